"""Run the CLI on hostile input: a subprocess with a memory limit and a timeout.

The one harness of the hostile suite (input files, outputs, analyses, model bounds).
"""

from __future__ import annotations

import atexit
import hashlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "scenarios" / "baseline.yaml"
MEMORY_LIMIT = 2 << 30
"""Address space of each CLI run, bytes (2 GiB): a bounded read stays far below it."""
TIMEOUT_S = 90.0
"""A run that reads a FIFO or a device forever is killed after this long (and fails)."""


@dataclass(frozen=True)
class Finished:
    code: int
    out: str
    err: str
    seconds: float


def limit_memory(limit: int = MEMORY_LIMIT) -> None:
    """Cap this process's address space at ``limit`` bytes (use in ``preexec_fn``)."""
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def environment() -> dict[str, str]:
    """The environment of a CLI run: this checkout first on the path, a wide terminal."""
    return {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}


class _Zygote:
    """The warm process of :mod:`zygote`, started on first use, one per test process."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def run(self, args: list[str], cwd: Path | None, timeout_s: float) -> Finished:
        process = self._started()
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="planner-run-") as folder:
            out, err = Path(folder, "out"), Path(folder, "err")
            request = {
                "args": args,
                "cwd": str(cwd or Path.cwd()),
                "env": environment(),
                "out": str(out),
                "err": str(err),
                "timeout_s": timeout_s,
                "memory_limit": MEMORY_LIMIT,
            }
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            reply = json.loads(process.stdout.readline())
            if reply.get("timeout"):
                raise subprocess.TimeoutExpired(["planner", *args], timeout_s)
            return Finished(
                reply["code"],
                out.read_bytes().decode(errors="replace"),
                err.read_bytes().decode(errors="replace"),
                time.monotonic() - started,
            )

    def _started(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("zygote.py"))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=environment(),
                cwd=REPO,
            )
            assert self.process.stdout is not None
            ready = self.process.stdout.readline()
            assert json.loads(ready) == {"ready": True}, ready
            atexit.register(self.close)
        return self.process

    def close(self) -> None:
        if self.process is not None and self.process.stdin is not None:
            self.process.stdin.close()
            self.process.wait(timeout=10)
            self.process = None


_ZYGOTE = _Zygote()


def planner(*args: object, cwd: Path | None = None, timeout_s: float = TIMEOUT_S) -> Finished:
    """``planner ARGS`` in its own process limited to :data:`MEMORY_LIMIT` and ``timeout_s``.

    The process is forked from a warm interpreter (:mod:`zygote`) rather than started
    fresh: the same entry point, limits, folder, environment and streams, without two
    seconds of imports per case. ``PLANNER_TEST_FRESH=1`` starts each run fresh instead.
    """
    if os.environ.get("PLANNER_TEST_FRESH") == "1":
        return fresh_planner(*args, cwd=cwd, timeout_s=timeout_s)
    return _ZYGOTE.run([str(a) for a in args], cwd, timeout_s)


def fresh_planner(*args: object, cwd: Path | None = None, timeout_s: float = TIMEOUT_S) -> Finished:
    """``python -m planner ARGS`` in a new interpreter (limits as :func:`planner`)."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "planner", *map(str, args)],
        capture_output=True,
        text=True,
        env=environment(),
        cwd=cwd,
        timeout=timeout_s,
        preexec_fn=limit_memory,
        check=False,
    )
    return Finished(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def snapshot(folder: Path) -> dict[str, str]:
    """SHA-256 of every regular file under ``folder`` (links and special files skipped)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def assert_refused(result: Finished, *needles: str) -> None:
    """Exit 2, every needle in the message, no traceback and nothing on stdout."""
    assert result.code == 2, (result.code, result.err)
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    for needle in needles:
        assert needle in result.err, f"{needle!r} missing from:\n{result.err}"


def rewrite_zip(source: Path, target: Path, extra: dict[str, bytes]) -> Path:
    """A copy of the zip ``source`` at ``target`` with ``extra`` members added (deflated)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            new.writestr(info, old.read(info))
        for name, data in extra.items():
            new.writestr(name, data)
    target.write_bytes(buffer.getvalue())
    return target
