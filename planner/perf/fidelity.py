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
from planner.errors import PlannerError
from planner.perf.benchmarks import read_benchmarks
from planner.perf.calibration import predict
from planner.perf.efficiency import EfficiencyTable
from planner.perf.training_bench import (
    TRAINING_REQUIRED_COLUMNS,
    read_training_benchmarks,
    signed_errors,
)

MAX_HEADER_BYTES = 64 * 1024
"""Most of a benchmark CSV's first line read to tell a training file from an inference one."""


def shipped_benchmark_files() -> list[Path]:
    """The benchmark CSVs shipped with the package, sorted by name (raises when the
    installation has none: an empty check would read as a perfect one)."""
    folder = resources.files("planner.perf") / "data" / "benchmarks"
    files = sorted(Path(str(folder)).glob("*.csv"))
    if not files:
        raise PlannerError(f"no benchmark CSVs in {folder}: the installation is incomplete")
    return files


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
    with safe_io.open_regular(path, what="benchmark CSV") as handle:  # the header only
        first = handle.readline(MAX_HEADER_BYTES)
    text = safe_io.decode_text(first, str(path), "benchmark CSV")
    header = next(csv.reader(io.StringIO(text)), [])
    columns = {c.strip() for c in header}
    return set(TRAINING_REQUIRED_COLUMNS) <= columns


Groups = dict[str, list[tuple[float, str]]]
"""Group → (predicted / measured − 1, row label) of each row."""


def _errors(
    files: Sequence[str | Path], calibration: EfficiencyTable | None
) -> tuple[Groups, Groups]:
    """(training groups, inference groups) of signed errors over ``files``: totals
    ``all`` / ``dense`` and ``moe``, and one group per family, precision and kind."""
    training: Groups = {}
    inference: Groups = {}
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
    return training, inference


def fidelity(
    files: Sequence[str | Path], calibration: EfficiencyTable | None = None
) -> list[GroupError]:
    """Per-group errors over ``files`` (module doc), the totals first in each domain:
    ``all`` for training, ``dense`` and ``moe`` for inference."""
    training, inference = _errors(files, calibration)
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


def perf_error_sigmas(
    files: Sequence[str | Path] | None = None, calibration: EfficiencyTable | None = None
) -> dict[str, float]:
    """Log-sd of the model's error, training and inference, over ``files`` (default: the
    shipped data) under ``calibration`` (default: the shipped one): ``σ = median
    |ln(predicted / measured)| / 0.6745``, the lognormal whose median absolute log error
    matches the measured one, dense and MoE rows pooled. The bias is not kept: Monte
    Carlo's ``--perf-error`` samples ``throughput_scale`` from lognormal(1, σ), a spread
    around the model's own figure, not a correction of it."""
    training, inference = _errors(
        files if files is not None else shipped_benchmark_files(), calibration
    )
    sigmas = {}
    for kind, groups, total in (
        ("training", training, ("all",)),
        ("inference", inference, ("dense", "moe")),
    ):
        logs = [abs(math.log1p(e)) for g in total for e, _ in groups.get(g, [])]
        sigmas[kind] = statistics.median(logs) / HALF_NORMAL_MEDIAN if logs else 0.0
    return sigmas
