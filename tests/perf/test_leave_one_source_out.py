"""Leave-one-source-out error of the inference calibration."""

from __future__ import annotations

import dataclasses
import statistics
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
    mlperf = read_benchmarks(DATA / "mlperf-inference-v4.1.csv")
    assert {k for _, k in row_sources([mlperf])} == {"MLPerf Inference v4.1 closed division"}


def test_same_never_reaches_into_the_file_before(tmp_path: Path) -> None:
    """File A's only row is line 2; file B's first row (line 3, after a blank line) says
    `same`: it names no source, not file A's."""
    header = (
        "hardware,model,precision,input_tokens,output_tokens,tokens_per_s_per_accelerator,source"
    )
    first = tmp_path / "a.csv"
    first.write_text(f"{header}\nh100-hgx,llama-2-70b,fp8,300,290,3000,Paper A\n")
    second = tmp_path / "b.csv"
    second.write_text(f"{header}\n\nh100-hgx,llama-2-70b,fp8,300,290,3000,same\n")
    files = [read_benchmarks(first), read_benchmarks(second)]
    assert [k for _, k in row_sources(files)] == ["Paper A", "unnamed"]


def test_each_source_is_predicted_by_a_fit_that_never_saw_it(tmp_path: Path) -> None:
    """Two sources: the 10 MLPerf rows and the 2 SGLang large-scale EP rows. Each is
    predicted by the fit of the other alone, and labelled with its file."""
    mlperf = read_benchmarks(DATA / "mlperf-inference-v4.1.csv")
    moe = read_benchmarks(DATA / "moe-serving-reference.csv")
    sglang = dataclasses.replace(moe, rows=moe.rows[:2])
    held, overall = leave_one_source_out([mlperf, sglang])
    assert [(h.source, h.rows, h.refitted) for h in held] == [
        ("MLPerf Inference v4.1 closed division", 10, True),
        ("SGLang large-scale expert parallelism blog", 2, True),
    ]
    assert overall.rows == 12 and overall.worst_row.endswith(")")
    assert overall.worst_row.split(":")[0] in (
        "mlperf-inference-v4.1.csv",
        "moe-serving-reference.csv",
    )
    from_mlperf = fit(mlperf.rows).table
    errors = [
        predict(r, from_mlperf).abs_pct_error(r.measured_tokens_per_s_per_accelerator)
        for r in sglang.rows
    ]
    assert None not in errors
    assert held[1].summary.median_abs_pct == pytest.approx(
        statistics.median(e for e in errors if e is not None)
    )
    # one source alone: nothing left to fit, its rows are the priors' and say so
    alone, _ = leave_one_source_out([sglang])
    assert not alone[0].refitted
