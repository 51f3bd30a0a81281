"""Run the CLI on hostile input files: a subprocess with a memory limit and a timeout.

Helpers for :mod:`tests.hostile.test_input_files` (kept out of any shared conftest).
"""

from __future__ import annotations

import hashlib
import io
import os
import resource
import subprocess
import sys
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


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def planner(*args: str | Path, cwd: Path | None = None) -> Finished:
    """``planner ARGS`` in a subprocess limited to :data:`MEMORY_LIMIT` and :data:`TIMEOUT_S`."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "planner", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=TIMEOUT_S,
        preexec_fn=_limit_memory,
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
