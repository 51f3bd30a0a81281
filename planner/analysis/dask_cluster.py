"""Check a ``--scheduler`` address before Dask is handed it.

Dask's own client waits without bound for a peer that accepts the connection but never
answers, and reads a frame length from whatever bytes a peer sends (garbage can ask it
to allocate exabytes). So the address form is checked first (``tcp://HOST:PORT`` or
``tls://HOST:PORT``), then, for ``tcp://``, a short probe connects and reads the
scheduler's greeting (Dask's handshake: an 8-byte length, then that many bytes of
frames), all within :data:`CONNECT_TIMEOUT_S`. Anything else is bad input (exit 2)
with a message naming the address; nothing is sent to the peer.
"""

from __future__ import annotations

import itertools
import os
import re
import socket
import struct
import time
from collections.abc import Callable, Iterator
from typing import Any

from planner.analysis.tasks import WORKER_LOST, Row, Task, error_row
from planner.errors import InputError, Problem

CONNECT_TIMEOUT_S = 15.0
"""How long the whole handshake with a Dask scheduler may take, seconds."""
SCHEMES = ("tcp", "tls")
MAX_GREETING_BYTES = 1 << 20
"""A Dask handshake is a few hundred bytes; a peer announcing more is not a scheduler."""
_ADDRESS = re.compile(
    r"(?P<scheme>[a-z0-9+]+)://(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(?P<port>\d{1,5})"
)
_EXAMPLE = "tcp://10.0.0.5:8786 (the address the scheduler prints when it starts)"


def _bad(address: str, message: str, hint: str = f"give e.g. {_EXAMPLE}") -> InputError:
    return InputError(
        None, Problem(path="--scheduler", message=message, found=repr(address), hint=hint)
    )


def parse_address(address: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address; InputError if malformed."""
    match = _ADDRESS.fullmatch(address.strip())
    if match is None:
        raise _bad(
            address, "not a Dask scheduler address", f"expected SCHEME://HOST:PORT, e.g. {_EXAMPLE}"
        )
    scheme, host, port = match["scheme"], match["host"].strip("[]"), int(match["port"])
    if scheme not in SCHEMES:
        raise _bad(
            address,
            f"unsupported scheme {scheme}://",
            f"use {' or '.join(s + '://' for s in SCHEMES)}",
        )
    if not 1 <= port <= 65535:
        raise _bad(address, f"port {port} is out of range 1–65535")
    return scheme, host, port


def _read(sock: socket.socket, count: int, deadline: float) -> bytes:
    data = b""
    while len(data) < count:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(min(count - len(data), 65536))
        if not chunk:
            raise ConnectionError("closed the connection")
        data += chunk
    return data


def probe(address: str, timeout_s: float | None = None) -> None:
    """Check that ``address`` is well formed and, for tcp://, greets like a scheduler."""
    scheme, host, port = parse_address(address)
    timeout_s = CONNECT_TIMEOUT_S if timeout_s is None else timeout_s
    deadline = time.monotonic() + timeout_s
    not_dask = "is not a Dask scheduler"
    hint = "check the address and port (the scheduler's, not its dashboard's)"
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            if scheme != "tcp":
                return  # the TLS handshake comes first: left to Dask, within its timeout
            (size,) = struct.unpack("<Q", _read(sock, 8, deadline))
            if not 16 <= size <= MAX_GREETING_BYTES:
                raise _bad(
                    address,
                    f"{not_dask}: it answered with bytes that are not Dask's protocol",
                    hint,
                )
            body = _read(sock, size, deadline)
            (frames,) = struct.unpack("<Q", body[:8])
            if not frames >= 1 or 8 * (frames + 1) > size:
                raise _bad(address, f"{not_dask}: its greeting is not Dask's handshake", hint)
    except TimeoutError:
        raise _bad(
            address,
            f"no Dask handshake within {timeout_s:g} s: the peer accepted "
            "the connection but said nothing (or did not answer at all)",
            hint,
        ) from None
    except socket.gaierror as exc:
        raise _bad(address, f"unknown host {host}: {exc.strerror}", hint) from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise _bad(
            address, f"could not reach the scheduler: {reason}", "is the scheduler running? " + hint
        ) from None


# --- running tasks on Dask ---------------------------------------------------------------


def _dask_modules() -> Any:
    try:
        import distributed
    except ImportError:
        raise InputError(
            None,
            Problem(
                path="--scheduler / --dask-local",
                message="Dask is not installed",
                hint="pip install 'planner[dask]' (or dask[distributed]), "
                "or drop the option to use the local process pool",
            ),
        ) from None
    return distributed


def _client(distributed: Any, address: str | None, local_workers: int | None) -> tuple[Any, Any]:
    """A Dask client (and the LocalCluster it owns, if any)."""
    import logging

    if address:
        timeout = CONNECT_TIMEOUT_S
        probe(address, timeout)
        try:
            return distributed.Client(address, timeout=f"{timeout}s"), None
        except Exception as exc:  # TLS, version mismatch, a peer that stopped answering
            raise InputError(
                None,
                Problem(
                    path="--scheduler",
                    message=f"could not connect to the Dask scheduler {address}: "
                    f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}",
                    hint="check the address, and that the cluster runs the same Dask version",
                ),
            ) from None
    cluster = distributed.LocalCluster(
        n_workers=local_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    try:
        return distributed.Client(cluster), cluster
    except BaseException:
        cluster.close()
        raise


def run(
    tasks: Iterator[Task],
    fn: Callable[[Task], Row],
    address: str | None,
    local_workers: int | None,
    per_worker: int,
) -> Iterator[Row]:
    """Run ``tasks`` on the cluster at ``address`` or a LocalCluster of ``local_workers``,
    keeping ``per_worker`` tasks submitted and unfinished per worker (counted at the
    start: at least 4 workers' worth, for a cluster whose workers are still joining)."""
    if address:
        parse_address(address)
    distributed = _dask_modules()
    client, cluster = _client(distributed, address, local_workers)
    token = f"{os.getpid()}-{time.time_ns()}"
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        ahead = per_worker * max(workers, local_workers or 0, 4)
        futures: dict[Any, Task] = {}

        def submit(task: Task) -> Any:
            future = client.submit(fn, task, key=f"planner-{token}-{task.task_id}", pure=False)
            futures[future] = task
            return future

        running = distributed.as_completed([submit(t) for t in itertools.islice(tasks, ahead)])
        for future in running:
            task = futures.pop(future)
            following = next(tasks, None)
            if following is not None:
                running.add(submit(following))
            try:
                yield future.result()
            except Exception as exc:  # KilledWorker (worker lost) or an exception in fn
                name = type(exc).__name__
                reason = WORKER_LOST if name == "KilledWorker" else f"{name}: {exc}"
                yield error_row(task, reason)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
