"""``planner fidelity``: the performance model against every shipped measurement."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from planner.cli.common import echo_err, print_frame
from planner.cli.options import INPUT, calibration_option, format_option
from planner.perf.efficiency import calibration_label, calibration_table
from planner.perf.fidelity import fidelity as fidelity_groups
from planner.perf.fidelity import shipped_benchmark_files

HEADERS = {
    "domain": "domain",
    "group": "group",
    "rows": "rows",
    "median_abs_pct": "median |err| %",
    "bias_pct": "bias %",
    "worst_pct": "worst %",
    "worst_row": "worst row",
}


@click.command("fidelity")
@click.argument("bench_files", metavar="[BENCH.csv...]", type=INPUT, nargs=-1)
@calibration_option(scenario=False)
@format_option
def fidelity(bench_files: tuple[Path, ...], calibration: Path | None, fmt: str) -> None:
    """How far the performance model is from measured training and inference rows.

    With no BENCH.csv, checks every data set shipped with planner (MLPerf Training v5.0
    Llama 3.1 405B and Llama 2 70B LoRA; MLPerf Inference v4.1; published DeepSeek-V3/R1
    serving points; TensorRT-LLM's perf-overview maximum-throughput tables). The shipped
    calibration is fitted on the MLPerf Inference and DeepSeek rows and the training
    MFUs on the 405B rows: their medians are in-sample. Per group (training: hardware
    family, precision and run kind; inference: dense or MoE, family and served
    precision) it prints rows, the median absolute error, the bias (median of predicted
    / measured − 1, positive: the model is too fast) and the worst row. The `all`,
    `dense` and `moe` rows are the totals. Training files have the columns of
    planner/perf/training_bench.py (a `kind` column), inference files those of
    `planner perf-check`.

    \b
    Examples:
      planner fidelity
      planner fidelity --calibration none
      planner fidelity my-cluster.csv --format csv
    """
    files = list(bench_files) or shipped_benchmark_files()
    echo_err(f"calibration: {calibration_label(calibration)}")
    groups = fidelity_groups(files, calibration_table(calibration))
    frame = pd.DataFrame([g.__dict__ for g in groups], columns=list(HEADERS))
    if fmt == "table":
        frame = frame.rename(columns=HEADERS).round(1)
    print_frame(frame, fmt, title="Performance model against measurements", json_key="groups")
