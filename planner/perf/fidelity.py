"""Fidelity: how far the performance model is from every shipped measurement.

``planner fidelity`` reads the benchmark files shipped in ``planner/perf/data/benchmarks``
(or the files named) and reports, per group, the number of rows, the median absolute
error, the bias (median of predicted / measured − 1: positive = the model is too fast)
and the worst row. Training files (:mod:`planner.perf.training_bench`) are grouped by
hardware family, precision and run kind; inference files
(:mod:`planner.perf.benchmarks`) by dense or MoE model, family and served precision,
predicted with the default calibration (or the one given).
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from planner import safe_io
from planner.perf.benchmarks import MAX_BENCHMARK_BYTES, read_benchmarks
from planner.perf.calibration import predict
from planner.perf.efficiency import EfficiencyTable, default_calibration
from planner.perf.training_bench import (
    TRAINING_REQUIRED_COLUMNS,
    read_training_benchmarks,
    signed_errors,
)


def shipped_benchmark_files() -> list[Path]:
    """The benchmark CSVs shipped with the package, sorted by name."""
    folder = resources.files("planner.perf") / "data" / "benchmarks"
    return sorted(Path(str(folder)).glob("*.csv"))


@dataclass(frozen=True)
class GroupError:
    """Errors of one group of rows."""

    domain: str
    """``training`` or ``inference``."""
    group: str
    rows: int
    median_abs_pct: float
    bias_pct: float
    """Median signed error, %: positive when the model is too fast."""
    worst_pct: float
    worst_row: str


def _group(domain: str, name: str, errors: Sequence[tuple[float, str]]) -> GroupError:
    worst = max(errors, key=lambda e: abs(e[0]))
    return GroupError(
        domain,
        name,
        len(errors),
        statistics.median(abs(e) for e, _ in errors) * 100.0,
        statistics.median(e for e, _ in errors) * 100.0,
        worst[0] * 100.0,
        worst[1],
    )


def is_training_file(path: str | Path) -> bool:
    """True when the CSV's header has the training columns (else it is read as inference)."""
    text = safe_io.read_text(path, limit=MAX_BENCHMARK_BYTES, what="benchmark CSV")
    header = next(csv.reader(io.StringIO(text)), [])
    columns = {c.strip() for c in header}
    return set(TRAINING_REQUIRED_COLUMNS) <= columns and "kind" in columns


def fidelity(
    files: Sequence[str | Path], calibration: EfficiencyTable | None = None
) -> list[GroupError]:
    """Per-group errors over ``files`` (module doc), the totals first in each domain:
    ``all`` for training, ``dense`` and ``moe`` for inference."""
    training: dict[str, list[tuple[float, str]]] = {}
    inference: dict[str, list[tuple[float, str]]] = {}
    for path in files:
        name = Path(path).name
        if is_training_file(path):
            for error, row in signed_errors(read_training_benchmarks(path)):
                key = f"{row.hardware.family} {row.precision} {row.kind}"
                for group in ("all", key):
                    training.setdefault(group, []).append((error, f"{name}: {row.label}"))
            continue
        for bench in read_benchmarks(path).rows:
            predicted = predict(bench, calibration).tokens_per_s_per_accelerator
            if predicted is None:
                continue
            error = predicted / bench.measured_tokens_per_s_per_accelerator - 1.0
            kind = "moe" if bench.model.is_moe else "dense"
            key = f"{kind} {bench.hardware.family} {bench.served_precision}"
            for group in (kind, key):
                inference.setdefault(group, []).append((error, f"{name}: {bench.label}"))
    out: list[GroupError] = []
    for domain, groups, totals in (
        ("training", training, ("all",)),
        ("inference", inference, ("dense", "moe")),
    ):
        ordered = [g for g in totals if g in groups] + sorted(g for g in groups if g not in totals)
        out += [_group(domain, g, groups[g]) for g in ordered]
    return out


HALF_NORMAL_MEDIAN = 0.6744897501960817
"""Median of |Z| for a standard normal Z: a lognormal error with log-sd σ has median
absolute log error 0.6745 · σ."""


def perf_error_sigmas(files: Sequence[str | Path] | None = None) -> dict[str, float]:
    """Log-sd of the model's error, training and inference, from ``files`` (default: the
    shipped data): ``σ = median |ln(predicted / measured)| / 0.6745``, the lognormal
    whose median absolute log error matches the measured one. Monte Carlo's
    ``--perf-error`` samples ``throughput_scale`` from lognormal(1, σ)."""
    logs: dict[str, list[float]] = {"training": [], "inference": []}
    for path in files if files is not None else shipped_benchmark_files():
        if is_training_file(path):
            logs["training"] += [
                abs(math.log1p(e)) for e, _ in signed_errors(read_training_benchmarks(path))
            ]
            continue
        table = default_calibration()
        for bench in read_benchmarks(path).rows:
            predicted = predict(bench, table).tokens_per_s_per_accelerator
            if predicted is not None:
                ratio = predicted / bench.measured_tokens_per_s_per_accelerator
                logs["inference"].append(abs(math.log(ratio)))
    return {
        kind: statistics.median(values) / HALF_NORMAL_MEDIAN if values else 0.0
        for kind, values in logs.items()
    }
