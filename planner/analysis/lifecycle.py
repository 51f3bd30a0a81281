"""Processes of an analysis live and die with it.

* SIGTERM is handled like Ctrl-C while tasks run (:func:`sigterm_as_interrupt`): the
  run stops cleanly, says how to ``--resume`` and exits 130.
* Local pool workers die with the analysis (:func:`worker_initializer`): on Linux the
  kernel sends them SIGKILL when their parent dies (``prctl(PR_SET_PDEATHSIG)``), and on
  every platform a watchdog thread ends a worker within :data:`WATCHDOG_S` seconds of
  the analysis process going away (killed with SIGKILL, which no handler sees).
* :func:`stop_workers` kills a pool's workers when the run stops, so a long solve in a
  worker does not keep the process (and the fork server) alive after the main process
  has given up on it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from types import FrameType

WATCHDOG_S = 0.5
"""How often a worker checks that the analysis process is still there, seconds."""
PR_SET_PDEATHSIG = 1


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt (as Ctrl-C does)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _watch(analysis_pid: int, parent_pid: int) -> None:
    while True:
        time.sleep(WATCHDOG_S)
        if os.getppid() != parent_pid or not _alive(analysis_pid):
            os._exit(1)


def worker_initializer(analysis_pid: int) -> None:
    """Run in each pool worker: die when the analysis process (or this worker's parent,
    the fork server) goes away."""
    parent = os.getppid()
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    threading.Thread(
        target=_watch, args=(analysis_pid, parent), name="planner-watchdog", daemon=True
    ).start()
    # a worker is stopped by its pool; Ctrl-C in the terminal is for the main process
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and kill the pool's worker processes now."""
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)
