"""Leave-one-source-out error of the inference calibration."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.perf.benchmarks import read_benchmarks
from planner.perf.calibration import (
    fit,
    leave_one_source_out,
    predict,
    row_sources,
    source_key,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def test_source_key_reads_the_publication_and_same_repeats_it() -> None:
    assert source_key("SGLang GB200 NVL72 part I, lmsys.org 2025-06-16", "") == (
        "SGLang GB200 NVL72 part I"
    )
    assert source_key("same; Server scenario limits TTFT 2 s", "MLPerf") == "MLPerf"
    assert source_key("", "MLPerf") == "MLPerf"
    mlperf = read_benchmarks(DATA / "mlperf-inference-v4.1.csv").rows
    assert set(row_sources(mlperf)) == {"MLPerf Inference v4.1 closed division"}


def test_each_source_is_predicted_by_a_fit_that_never_saw_it() -> None:
    """Two sources: the 10 MLPerf rows and the 2 SGLang large-scale EP rows. Each is
    predicted by the fit of the other alone."""
    mlperf = read_benchmarks(DATA / "mlperf-inference-v4.1.csv").rows
    sglang = read_benchmarks(DATA / "moe-serving-reference.csv").rows[:2]
    held, overall = leave_one_source_out([*mlperf, *sglang])
    assert [(h.source, h.rows) for h in held] == [
        ("MLPerf Inference v4.1 closed division", 10),
        ("SGLang large-scale expert parallelism blog", 2),
    ]
    assert overall.rows == 12
    from_mlperf = fit(mlperf).table
    expected = predict(sglang[0], from_mlperf).abs_pct_error(
        sglang[0].measured_tokens_per_s_per_accelerator
    )
    errors = [
        predict(r, from_mlperf).abs_pct_error(r.measured_tokens_per_s_per_accelerator)
        for r in sglang
    ]
    assert held[1].summary.median_abs_pct == pytest.approx(
        sorted(errors)[0] / 2 + sorted(errors)[1] / 2
    )
    assert expected in errors
