"""A results file is an output: never written through a symbolic link, and refused
before the first run (issue 29, item 3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BASELINE = Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml"


def _sweep(results: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "planner",
            "sweep",
            str(BASELINE),
            "--vary",
            "finance.wacc=0.06,0.08",
            "--results",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize("dangling", [True, False], ids=["dangling", "to-a-file"])
def test_a_results_link_is_refused_before_any_run(tmp_path: Path, dangling: bool) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "target.jsonl"
    if not dangling:
        target.write_text("precious\n")
    work = tmp_path / "work"
    work.mkdir()
    link = work / "results.jsonl"
    link.symlink_to(target)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    done = _sweep(link, work)
    assert done.returncode == 2, done.stderr
    assert "symbolic link" in done.stderr and "Traceback" not in done.stderr
    assert target.exists() == (not dangling)
    if not dangling:
        assert target.read_text() == "precious\n"
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    assert os.path.islink(link)
