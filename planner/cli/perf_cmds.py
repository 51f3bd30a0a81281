"""``planner throughput``, ``calibrate`` and ``perf-check``: the performance model."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import click
import pandas as pd

from planner import economics
from planner.cli.common import echo_err, emit_json, frame_records, print_frame
from planner.cli.options import (
    INPUT,
    calibration_option,
    format_option,
    out_option,
    software_option,
    with_software,
)
from planner.cli.outputs import CSV, YAML, check_outputs, require_suffix
from planner.errors import InputError, Problem
from planner.export.atomic import write_atomically
from planner.export.cells import csv_text
from planner.perf.benchmarks import BenchFile, BenchRow, read_benchmarks
from planner.perf.calibration import (
    BASE_FACTORS,
    MOE_FACTOR,
    ErrorSummary,
    FitResult,
    error_summary,
    fit,
    leave_one_source_out,
    predict,
)
from planner.perf.efficiency import (
    EfficiencyTable,
    calibration_file,
    calibration_label,
    calibration_table,
    save_calibration,
)
from planner.perf.inference import inference_table
from planner.scenario import Scenario, load_scenario

PREDICTION_COLUMNS = [
    "predicted_tokens_per_s_per_accelerator",
    "abs_pct_error",
    "binding",
    "reason",
]
TRAINING_SHOWN = [
    "run",
    "hardware",
    "precision",
    "feasible",
    "reason",
    "training_tokens_per_s_per_unit",
    "cluster_accelerators",
    "cluster_units",
    "goodput",
    "days_to_finish",
    "accelerator_hours",
]

TTFT_COLUMNS = ("ttft_s", "prefill_ttft_s")
"""In the terminal table only when some workload sets ``slo_ttft_s`` (narrower otherwise)."""
# Short headers for the terminal table (csv and json keep the full column names).
INFERENCE_TABLE_HEADERS = {
    "workload": "workload",
    "hardware": "hardware",
    "precision": "precision",
    "servable": "ok",
    "layout": "layout",
    "replica_accelerators": "replica",
    "batch": "batch",
    "tokens_per_s_per_user": "tok/s/user",
    "output_tokens_per_s_per_unit": "out tok/s/unit",
    "decode_tokens_per_s_per_unit": "decode tok/s/unit",
    "prefill_tokens_per_s_per_unit": "prefill tok/s/unit",
    "binding": "binding",
    "ttft_s": "ttft s",
    "prefill_ttft_s": "prefill ttft s",
    "usd_per_accelerator_hour": "$/acc-h",
    "usd_per_mtok_output": "$/Mtok out",
    "reason": "reason",
}
INFERENCE_DROP_FIRST = (
    "reason",
    "prefill ttft s",
    "prefill tok/s/unit",
    "decode tok/s/unit",
    "layout",
    "replica",
    "precision",
    "binding",
    "$/acc-h",
)
"""Columns of the inference table left out first when it is wider than the terminal
table width: the price and throughput columns stay longest."""
TRAINING_TABLE_HEADERS = {
    "run": "run",
    "hardware": "hardware",
    "feasible": "ok",
    "training_tokens_per_s_per_unit": "tok/s/unit",
    "cluster_accelerators": "accelerators",
    "cluster_units": "units",
    "goodput": "goodput",
    "days_to_finish": "days",
    "accelerator_hours": "acc-hours",
    "reason": "reason",
}

# --- throughput --------------------------------------------------------------------------


def _scenario_calibration(scenario: Scenario, option: Path | None) -> EfficiencyTable:
    """``--calibration`` if given (``none``: the built-in priors), else the scenario's
    ``calibration``, else the shipped calibration."""
    return calibration_table(option or scenario.calibration)  # resolved by load_scenario


def priced_inference_table(
    scenario: Scenario, year: int, calibration: EfficiencyTable | None
) -> pd.DataFrame:
    """The inference table priced in ``year`` (see economics.price_inference_table);
    ``calibration`` None: the scenario's, else the shipped one."""
    return economics.price_inference_table(scenario, inference_table(scenario, calibration), year)


def training_view(scenario: Scenario) -> pd.DataFrame:
    """The training table's analyst columns (tokens/s, cluster, goodput, days, hours)."""
    from planner.perf.training import training_table

    return training_table(scenario)[TRAINING_SHOWN]


@click.command("throughput")
@click.argument("scenario_file", metavar="SCENARIO", type=INPUT)
@click.option("--year", type=int, help="Year of prices and costs (default: the horizon start).")
@click.option(
    "--only",
    type=click.Choice(["inference", "training"]),
    help="Print one table only (handy with --format csv).",
)
@calibration_option(scenario=True)
@software_option()
@format_option
def throughput(
    scenario_file: Path,
    year: int | None,
    only: str | None,
    calibration: Path | None,
    software: tuple[str, ...],
    fmt: str,
) -> None:
    """Throughput the performance model gives each hardware type, with unit costs.

    Inference: one row per (workload, hardware): replica size, batch at the SLO,
    tokens/s per user, decode / colocated / prefill tokens/s per unit, what binds, and
    $/accelerator-hour and $/Mtok at full load. Training: one row per (run, hardware):
    tokens/s per unit, cluster size, goodput, days to finish and accelerator-hours.
    With --format csv both tables are printed, separated by a blank line (see --only).

    \b
    Examples:
      planner throughput scenarios/baseline.yaml
      planner throughput scenarios/baseline.yaml --year 2028 --only inference --format csv
      planner throughput scenarios/vendor_shootout.yaml --software AMD=rocm7-amd-claim
    """
    scenario = with_software(load_scenario(scenario_file), software)
    years = scenario.horizon.year_list
    year = years[0] if year is None else year
    if year not in years:
        raise InputError(
            None,
            Problem(
                path="--year",
                message=f"year {year} is outside the scenario horizon",
                expected=f"a year in {years[0]}..{years[-1]}",
            ),
        )
    table = _scenario_calibration(scenario, calibration)
    echo_err(f"calibration: {calibration_label(calibration or scenario.calibration)}")
    inference = priced_inference_table(scenario, year, table) if only != "training" else None
    training = training_view(scenario) if only != "inference" else None
    if fmt == "json":
        document: dict[str, Any] = {"scenario": scenario.name, "year": year}
        if inference is not None:
            document["inference"] = frame_records(inference)
        if training is not None:
            document["training"] = frame_records(training)
        emit_json(document)
        return
    if fmt == "table":
        headers = {
            k: v
            for k, v in INFERENCE_TABLE_HEADERS.items()
            if scenario.sets_ttft or k not in TTFT_COLUMNS
        }
        inference = None if inference is None else _short(inference, headers)
        if inference is not None:
            inference.attrs["drop_first"] = INFERENCE_DROP_FIRST
        training = None if training is None else _short(training, TRAINING_TABLE_HEADERS)
    if inference is not None:
        print_frame(inference, fmt, title=f"Inference throughput ({scenario.name}, {year} prices)")
    if inference is not None and training is not None and fmt == "csv":
        click.echo("")
    if training is not None:
        print_frame(training, fmt, title=f"Training throughput ({scenario.name})")


def _short(frame: pd.DataFrame, headers: dict[str, str]) -> pd.DataFrame:
    """The columns of ``headers`` under short names; missing numbers as NaN (shown blank)."""
    short = frame[list(headers)].rename(columns=headers)
    nullable = [c for c in short.columns if isinstance(short[c].dtype, pd.Float64Dtype)]
    return short.astype({c: float for c in nullable})


# --- perf-check -----------------------------------------------------------------------


def check_frame(
    bench: BenchFile, calibration: EfficiencyTable | None, *more: BenchFile
) -> pd.DataFrame:
    """Per benchmark row, in input order: measured vs predicted, abs % error, binding, reason.
    With ``more`` files their rows follow, and a leading ``file`` column names each row's."""
    records = []
    for source in (bench, *more):
        for row in source.rows:
            record = {"file": Path(source.path).name} if more else {}
            records.append({**record, **_check_record(row, calibration)})
    frame = pd.DataFrame(records)
    for column in ("predicted_tokens_per_s_per_accelerator", "abs_pct_error"):
        frame[column] = pd.array(frame[column].tolist(), dtype="Float64")
    return frame


def _check_record(row: BenchRow, calibration: EfficiencyTable | None) -> dict[str, Any]:
    prediction = predict(row, calibration)
    return {
        "line": row.line,
        "hardware": row.hardware.id,
        "model": row.model.id,
        "precision": row.served_precision,
        "phase": row.phase,
        "measured_tokens_per_s_per_accelerator": row.measured_tokens_per_s_per_accelerator,
        "predicted_tokens_per_s_per_accelerator": prediction.tokens_per_s_per_accelerator,
        "abs_pct_error": prediction.abs_pct_error(row.measured_tokens_per_s_per_accelerator),
        "binding": prediction.binding,
        "reason": prediction.reason,
    }


def kind_summaries(
    rows: list[BenchRow], calibration: EfficiencyTable | None
) -> dict[str, ErrorSummary]:
    """The error summary of the dense rows and of the MoE rows, when both kinds occur
    (docs/concepts/performance.md reports each against its own target)."""
    kinds = {
        "dense": [r for r in rows if not r.model.is_moe],
        "moe": [r for r in rows if r.model.is_moe],
    }
    if not all(kinds.values()):
        return {}
    return {kind: error_summary(chosen, calibration) for kind, chosen in kinds.items()}


def _cell(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return f"{float(value):.6g}" if isinstance(value, float) else str(value)


def write_checked_csv(bench: BenchFile, frame: pd.DataFrame, out: Path) -> None:
    """The input rows, in input order with every input cell as written, plus predictions.

    Written atomically (planner.export.atomic): a failure never leaves half a file.
    Cells a spreadsheet would run as a formula are neutralised (planner.export.cells).
    """
    columns = [*bench.columns, *(c for c in PREDICTION_COLUMNS if c not in bench.columns)]

    def write(temp: Path) -> None:
        with open(temp, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow([csv_text(c) for c in columns])
            for row, result in zip(bench.rows, frame.to_dict(orient="records"), strict=True):
                cells = {**row.cells, **{c: _cell(result[c]) for c in PREDICTION_COLUMNS}}
                writer.writerow([csv_text(cells.get(c, "")) for c in columns])

    write_atomically(out, write)


def _summary_record(summary: ErrorSummary) -> dict[str, Any]:
    return {
        "rows": summary.rows,
        "median_abs_pct_error": summary.median_abs_pct,
        "worst_abs_pct_error": summary.worst_abs_pct,
        "worst_row": summary.worst_row,
    }


@click.command("perf-check")
@click.argument("bench_files", metavar="BENCH.csv...", type=INPUT, nargs=-1, required=True)
@calibration_option(scenario=False)
@out_option(
    "Write the input rows plus predicted tokens/s, abs % error, binding and reason (one BENCH.csv)."
)
@format_option
def perf_check(
    bench_files: tuple[Path, ...], calibration: Path | None, out: Path | None, fmt: str
) -> None:
    """Compare the performance model with measured benchmark rows.

    Prints, per row, measured and predicted tokens/s per accelerator and the absolute
    % error, then the median and worst error, and the dense and MoE rows' medians apart
    when there are both. Several files are checked together (a `file` column names each
    row's). Predictions use the shipped calibration unless --calibration names another
    (`none`: the raw built-in priors). Rows the model cannot run (the model does not fit,
    the SLO is out of reach) get no prediction and a reason.
    BENCH.csv columns: hardware, model, precision, input_tokens, output_tokens,
    tokens_per_s_per_accelerator; optional tokens_per_s_per_user (SLO), concurrency,
    accelerators, phase, kv_precision, cache_hit_rate, ttft_s (the TTFT limit the row
    was measured under, s; refused below the prompt's prefill time at full compute),
    source; others are kept.

    \b
    Examples:
      planner perf-check tests/data/mlperf-inference-v4.1.csv
      planner perf-check bench.csv --calibration calibration.yaml --out checked.csv
      planner perf-check tests/data/mlperf-inference-v4.1.csv \\
          tests/data/moe-serving-reference.csv --calibration none
    """
    require_suffix(out, CSV, "--out")
    if out is not None and len(bench_files) > 1:
        raise InputError(
            None,
            Problem(
                path="--out",
                message="--out keeps one file's columns and line numbers",
                found=f"{len(bench_files)} BENCH.csv files",
                expected="one BENCH.csv with --out (check the others one at a time)",
            ),
        )
    benches = [read_benchmarks(path) for path in bench_files]
    echo_err(f"calibration: {calibration_label(calibration)}")
    table = calibration_table(calibration)
    file = calibration_file(calibration)
    check_outputs([*bench_files, *([file] if file else [])], out)
    frame = check_frame(benches[0], table, *benches[1:])
    rows = [row for bench in benches for row in bench.rows]
    summary, kinds = error_summary(rows, table), kind_summaries(rows, table)
    if out is not None:
        write_checked_csv(benches[0], frame, out)
        echo_err(f"wrote {out}")
    if fmt == "json":
        records = {kind: _summary_record(s) for kind, s in kinds.items()}
        emit_json({"rows": frame_records(frame), "summary": _summary_record(summary), **records})
        return
    names = ", ".join(path.name for path in bench_files)
    print_frame(frame, fmt, title=f"Predicted vs measured ({names})")
    say = click.echo if fmt == "table" else echo_err
    say(f"abs % error: {summary.describe()}")
    for kind, described in kinds.items():
        say(f"  {'dense' if kind == 'dense' else 'MoE'} rows: {described.describe()}")


# --- calibrate --------------------------------------------------------------------------


FITTED_FACTORS = (*BASE_FACTORS, MOE_FACTOR)


def groups_frame(result: FitResult) -> pd.DataFrame:
    """One row per fitted group: own fit or shared correction, factors, error before/after."""
    records = []
    for group in result.groups:
        records.append(
            {
                "family": group.family,
                "precision": group.precision,
                "rows": group.rows,
                "fit": "shared" if group.shared else "own",
                **{k: group.factors.get(k) for k in FITTED_FACTORS},
                "median_abs_pct_before": group.before.median_abs_pct,
                "median_abs_pct_after": group.after.median_abs_pct,
            }
        )
    return pd.DataFrame(records)


@click.command("calibrate")
@click.argument("bench_files", metavar="BENCH.csv...", type=INPUT, nargs=-1, required=True)
@out_option(
    "Calibration YAML to write (name it in a scenario's `calibration:` key).", required=True
)
@click.option(
    "--leave-one-source-out",
    "loso",
    is_flag=True,
    help="Also refit without each source (the rows' `source` publication) in turn and "
    "report the error on its rows: what to expect on data the fit never saw.",
)
@format_option
def calibrate(bench_files: tuple[Path, ...], out: Path, loso: bool, fmt: str) -> None:
    """Fit the inference model's efficiency factors to measured benchmark rows.

    Fits bandwidth and compute efficiency, prefill MFU, per-step overhead (and the MoE
    efficiency where there are MoE rows) for each hardware family and precision with
    at least two rows; groups with one row share one correction of their defaults.
    Families without rows keep their defaults. The fit starts from the built-in priors
    (not the shipped calibration, which is this fit of the two files in tests/data).
    Prints the median and worst absolute % error before (priors) and after; with
    --leave-one-source-out, also the error on each source's rows from a fit without
    them. BENCH.csv format: see `planner perf-check --help`; several files are fitted
    together.

    \b
    Example:
      planner calibrate tests/data/mlperf-inference-v4.1.csv --out calibration.yaml
      planner perf-check tests/data/mlperf-inference-v4.1.csv --calibration calibration.yaml
      planner calibrate tests/data/mlperf-inference-v4.1.csv \\
          tests/data/moe-serving-reference.csv --out calibration.yaml
    """
    require_suffix(out, YAML, "--out")
    benches = [read_benchmarks(path) for path in bench_files]
    rows = [row for bench in benches for row in bench.rows]
    check_outputs(list(bench_files), out)
    names = ", ".join(path.name for path in bench_files)
    result = fit(rows, note=f"fitted on {names} ({len(rows)} rows)")
    write_atomically(out, lambda temp: save_calibration(result.table, temp))
    echo_err(f"wrote {out}")
    for row, reason in result.skipped:
        echo_err(f"skipped {row.label}: {reason}")
    groups = groups_frame(result)
    held, held_overall = leave_one_source_out(benches) if loso else ([], None)
    held_frame = pd.DataFrame(
        [
            {
                "source": h.source,
                "rows": h.rows,
                "median_abs_pct_held_out": h.summary.median_abs_pct,
                "worst_abs_pct_held_out": h.summary.worst_abs_pct,
                "predicted_by": "fit without it" if h.refitted else "priors (no other source)",
            }
            for h in held
        ]
    )
    if fmt == "json":
        emit_json(
            {
                "out": str(out),
                "groups": frame_records(groups),
                "shared_correction": result.shared_correction,
                "before": _summary_record(result.before),
                "after": _summary_record(result.after),
                "skipped": [{"line": r.line, "reason": why} for r, why in result.skipped],
                **(
                    {
                        "leave_one_source_out": frame_records(held_frame),
                        "held_out": _summary_record(held_overall),
                    }
                    if held_overall is not None
                    else {}
                ),
            }
        )
        return
    print_frame(groups, fmt, title="Fitted efficiency factors")
    say = click.echo if fmt == "table" else echo_err
    if result.shared_correction:
        factors = ", ".join(f"{k} x{v:.3g}" for k, v in result.shared_correction.items())
        say(f"shared correction (groups with one row): {factors}")
    say(f"abs % error before: {result.before.describe()}")
    say(f"abs % error after (in-sample):  {result.after.describe()}")
    if held_overall is not None:
        print_frame(held_frame, fmt, title="Leave one source out (refit without it)")
        say(f"abs % error held out: {held_overall.describe()}")


def register(cli: click.Group) -> None:
    cli.add_command(throughput)
    cli.add_command(calibrate)
    cli.add_command(perf_check)
