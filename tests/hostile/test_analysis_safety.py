"""Analysis commands on hostile or careless input: refused cleanly, nothing changed or left.

Every case runs the real CLI in a subprocess in its own session, with an address-space
limit (:data:`harness.MEMORY_LIMIT`), and asserts the exit code (2 bad input, 130 stopped), a
clear message, no traceback, no process of the session left behind and every input file
byte-identical afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from harness import Finished, environment, limit_memory

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "scenarios" / "baseline.yaml"
RUN_TIMEOUT_S = 120.0
GONE_WITHIN_S = 5.0
"""How soon after the CLI exits every process it started must be gone, seconds."""
HEADER = {"format": "planner-analysis-results", "version": 2}

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def session_members(session: int) -> list[int]:
    """Processes (other than zombies) whose session is ``session``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[3]) == session:
            members.append(int(entry.name))
    return members


def assert_nothing_left(session: int) -> None:
    deadline = time.monotonic() + GONE_WITHIN_S
    while session_members(session) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = session_members(session)
    if left:
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes left behind: {left}"


def start(
    args: Sequence[str], cwd: Path, python: Sequence[str] = ("-m", "planner")
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *python, *args],
        cwd=cwd,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=limit_memory,
    )


def finish(child: subprocess.Popen[str], started: float) -> Finished:
    try:
        out, err = child.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        pytest.fail(f"no answer within {RUN_TIMEOUT_S} s: {err[-2000:]}")
    assert_nothing_left(child.pid)
    return Finished(child.returncode, out, err, time.monotonic() - started)


def planner(*args: str, cwd: Path, python: Sequence[str] = ("-m", "planner")) -> Finished:
    return finish(start(args, cwd, python), time.monotonic())


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def refused(result: Finished, *phrases: str) -> None:
    assert result.code == 2, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    for phrase in phrases:
        assert phrase in " ".join(result.err.split()), result.err


@pytest.fixture
def work(tmp_path: Path) -> Path:
    shutil.copy(BASELINE, tmp_path / "baseline.yaml")
    (tmp_path / "notes.csv").write_text("run,comment\n1,keep me\n")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"task_id": 0, "label": "caf\xe9"}\n')
    old_row = {"task_id": 0, "label": "base", "status": "optimal", "task_key": "abc"}
    (tmp_path / "old.jsonl").write_text(json.dumps(old_row) + "\n")
    return tmp_path


SWEEP = ("sweep", "baseline.yaml", "--vary", "finance.wacc=0.08,0.1", "--no-progress")

# --- #3: --results names a file that is not a results file -------------------------------


@pytest.mark.parametrize(
    ("target", "flag", "message"),
    [
        ("baseline.yaml", "--resume", "is not a planner results file"),
        ("baseline.yaml", "--fresh", "is not a planner results file"),
        ("notes.csv", "--resume", "is not a planner results file"),
        ("notes.csv", "--fresh", "is not a planner results file"),
        ("notes.csv", None, "is not a planner results file"),
        ("latin1.jsonl", "--resume", "is not a planner results file"),
        ("old.jsonl", "--resume", "earlier planner version"),
        ("old.jsonl", "--fresh", "earlier planner version"),
    ],
)
def test_results_that_are_not_results_files_are_refused_untouched(
    work: Path, target: str, flag: str | None, message: str
) -> None:
    before = digest(work)
    result = planner(*SWEEP, "--results", target, *([flag] if flag else []), cwd=work)
    refused(result, target, message, "--results")
    assert digest(work) == before
    assert not (work / "exports").exists()  # stopped before any solve or output


def test_a_device_as_results_is_refused(work: Path) -> None:
    before = digest(work)
    result = planner(*SWEEP, "--results", "/dev/null", "--fresh", cwd=work)
    refused(result, "/dev/null", "not a regular file")
    assert digest(work) == before and Path("/dev/null").is_char_device()


def test_results_files_carry_a_header_and_resume(work: Path) -> None:
    args = (*SWEEP, "--results", "r.jsonl", "--out", "o.xlsx", "--table", "t.csv", "--workers", "0")
    first = planner(*args, cwd=work)
    assert first.code == 0, first.err
    header, *rows = (work / "r.jsonl").read_text().splitlines()
    assert json.loads(header) == HEADER and len(rows) == 2  # base (wacc 0.1 too) + 0.08
    again = planner(*args, "--resume", cwd=work)
    assert again.code == 0, again.err
    assert (work / "r.jsonl").read_text().splitlines()[0] == header


# --- #10: --scheduler --------------------------------------------------------------------


@contextlib.contextmanager
def peer(behaviour: Callable[[socket.socket], None]) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that accepts connections and treats each with
    ``behaviour``; it stops by itself after a few connections or 60 s."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        deadline = time.monotonic() + 60
        while not stop.is_set() and time.monotonic() < deadline and len(held) < 8:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            held.append(conn)
            with contextlib.suppress(OSError):
                behaviour(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


def _silent(conn: socket.socket) -> None:
    pass  # accepts, says nothing, keeps the connection open


def _garbage(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + bytes(range(256)) * 4)


def test_a_silent_peer_as_scheduler_times_out(work: Path) -> None:
    before = digest(work)
    with peer(_silent) as address:
        result = planner(*SWEEP, "--scheduler", address, cwd=work)
    refused(result, address, "no Dask handshake within 15 s")
    assert result.seconds < 45
    assert digest(work) == before


def test_a_peer_sending_garbage_is_not_a_scheduler(work: Path) -> None:
    before = digest(work)
    with peer(_garbage) as address:
        result = planner(*SWEEP, "--scheduler", address, cwd=work)
    refused(result, address, "is not a Dask scheduler")
    assert result.seconds < 30
    assert digest(work) == before


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("http://127.0.0.1:8786", "unsupported scheme http://"),
        ("tcp://127.0.0.1", "not a Dask scheduler address"),
        ("127.0.0.1:8786", "not a Dask scheduler address"),
        ("tcp://127.0.0.1:99999", "port 99999 is out of range"),
        ("tcp://127.0.0.1:9", "could not reach the scheduler"),
    ],
)
def test_bad_scheduler_addresses_are_bad_input(work: Path, address: str, message: str) -> None:
    before = digest(work)
    result = planner(*SWEEP, "--scheduler", address, cwd=work)
    refused(result, "--scheduler", message)
    assert digest(work) == before


# --- #11: stopping an analysis ------------------------------------------------------------


def _started_sweep(work: Path) -> subprocess.Popen[str]:
    child = start(
        (
            "sweep",
            "baseline.yaml",
            "--vary",
            "finance.wacc=0.05:0.15:40",
            "--workers",
            "2",
            "--no-progress",
            "--results",
            "r.jsonl",
            "--out",
            "o.xlsx",
            "--table",
            "t.csv",
        ),
        work,
    )
    results = work / "r.jsonl"
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline and child.poll() is None:
        if results.exists() and len(results.read_text().splitlines()) >= 2:  # header + a row
            return child  # workers are busy solving
        time.sleep(0.1)
    os.killpg(child.pid, signal.SIGKILL)
    pytest.fail(f"the sweep did not start: {child.communicate()[1][-2000:]}")


def _workers(session: int) -> int:
    return len(session_members(session)) - 1


def test_sigterm_stops_a_sweep_cleanly_with_a_resume_hint(work: Path) -> None:
    child = _started_sweep(work)
    assert _workers(child.pid) >= 2  # fork server, workers, resource tracker
    started = time.monotonic()
    child.send_signal(signal.SIGTERM)
    result = finish(child, started)
    assert result.code == 130, result.err
    assert "run the same command with --resume to finish" in result.err
    assert "Traceback" not in result.err
    assert result.seconds < 20
    header, *rows = (work / "r.jsonl").read_text().splitlines()
    assert json.loads(header) == HEADER and 1 <= len(rows) < 41


def test_sigkill_of_a_sweep_leaves_no_worker_behind(work: Path) -> None:
    child = _started_sweep(work)
    assert _workers(child.pid) >= 2
    child.kill()
    child.wait(timeout=10)
    assert_nothing_left(child.pid)  # before reading the pipes: an orphan would hold them
    child.communicate(timeout=10)


# --- #14: analyses too big to build ----------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("sweep", "baseline.yaml", "--vary", "finance.wacc=0.05:0.15:10000000"),
            "10,000,001 runs",
        ),
        (
            (
                "sweep",
                "baseline.yaml",
                "--grid",
                "--vary",
                "finance.wacc=0.05:0.15:1000",
                "--vary",
                "finance.electricity_usd_per_kwh=0.05:0.1:1000",
            ),
            "1,000,001 runs",
        ),
        (("montecarlo", "baseline.yaml", "--samples", "100000000"), "100,000,001 runs"),
    ],
)
def test_too_many_runs_are_refused_before_building_them(
    work: Path, args: tuple[str, ...], message: str
) -> None:
    before = digest(work)
    result = planner(*args, "--no-progress", cwd=work)
    refused(result, message, "at most 100,000")
    assert result.seconds < 60
    assert digest(work) == before
    assert not (work / "exports").exists()


# --- compare loads everything before solving anything ---------------------------------------

_NO_SOLVE = (
    "import sys, planner.pipeline as o\n"
    "def refuse(*a, **k):\n"
    "    sys.exit('solved before every file was loaded')\n"
    "o.plan = o.throughput = refuse\n"
    "from planner.cli import main\n"
    "sys.argv[0] = 'planner'\n"
    "main()\n"
)


def test_compare_checks_every_file_before_solving(work: Path) -> None:
    (work / "broken.yaml").write_text("name: broken\nhorizon: {start: 2026, years: -1}\n")
    before = digest(work)
    result = planner(
        "compare",
        "baseline.yaml",
        "baseline.yaml",
        "broken.yaml",
        cwd=work,
        python=("-c", _NO_SOLVE),
    )
    refused(result, "broken.yaml")
    assert "solved before" not in result.err
    assert digest(work) == before
