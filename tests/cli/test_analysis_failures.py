"""Runs of a sweep that produce no plan are summarised at the end of stdout, not only
on stderr; CSV on stdout stays CSV."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "scenarios" / "one_hardware_one_year.yaml"


def _sweep(run_cli, tmp_path: Path, *extra: str):
    return run_cli(
        "sweep",
        TINY,
        "--vary",
        "finance.wacc=0.1,1.5",
        "--no-progress",
        "--out",
        tmp_path / "s.xlsx",
        "--table",
        tmp_path / "s.csv",
        "--results",
        tmp_path / "s.jsonl",
        "--fresh",
        *extra,
    )


def test_failed_runs_are_listed_at_the_end_of_stdout(run_cli, tmp_path: Path) -> None:
    result = _sweep(run_cli, tmp_path)
    assert result.code == 0, result.err
    out = " ".join(result.out.split())
    assert "Tornado" in out
    tail = out[out.index("1 of 2 runs failed") :]
    assert f"every run's status and error: {tmp_path / 's.csv'}" in tail
    assert "finance.wacc=1.5" in tail and "invalid" in tail
    assert "a value less than or equal to 1" in tail
    assert out.index("Tornado") < out.index("1 of 2 runs failed")
    csv = _sweep(run_cli, tmp_path, "--format", "csv")
    assert csv.code == 0 and "runs failed" not in csv.out
