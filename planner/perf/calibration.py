"""Predict measured benchmarks and fit the efficiency factors to them (DESIGN 4.2).

A benchmark row (format: :mod:`planner.perf.benchmarks`) becomes a serving case: the
SLO is the row's ``tokens_per_s_per_user`` if given, else maximum throughput (the
largest batch that fits memory); a ``concurrency`` fixes the batch; a ``ttft_s`` is the
case's TTFT SLO (chunked prefill for colocated rows, a prefill pool run at the
utilisation meeting it for prefill rows; decode rows are not bound by it). :func:`predict`
returns the model's tokens/s per accelerator for it (with the shipped default
calibration unless told otherwise).

:func:`fit` groups rows by hardware family and precision. For each group with at
least ``MIN_ROWS_PER_GROUP`` rows it minimises

    mean over rows of (ln predicted − ln measured)²  +  λ · Σ (ln θ − ln θ₀)²

over the factors θ = (η_bw, η_c, prefill MFU, t_overhead, and η_moe where the group has
at least two MoE rows), θ₀ being the group's prior (the built-in priors,
:data:`~planner.perf.efficiency.BUILTIN_PRIORS`, never the shipped calibration, so
re-fitting the shipped benchmark files gives the shipped calibration back);
λ = ``PRIOR_WEIGHT`` keeps factors the rows cannot tell apart near their priors. Rows
of smaller groups are fitted together with one *shared* correction: the same
multipliers ``θ / θ₀`` for every small group, so family differences in the priors are
kept. The search is Nelder–Mead on ln(θ / θ₀) (:func:`nelder_mead`), factors clipped to
``FIT_BOUNDS``. The calibration holds one entry per group with rows; other families
keep their priors.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from planner.perf.benchmarks import BenchFile, BenchRow
from planner.perf.efficiency import (
    BUILTIN_PRIORS,
    Efficiency,
    EfficiencyTable,
    resolve_efficiency,
)
from planner.perf.inference import serve

BASE_FACTORS = ("eta_bw", "eta_c", "prefill_mfu", "t_overhead_s")
MOE_FACTOR = "eta_moe"
PRIOR_WEIGHT = 0.01
MIN_ROWS_PER_GROUP = 2
FIT_BOUNDS: dict[str, tuple[float, float]] = {
    "eta_bw": (0.05, 1.0),
    "eta_c": (0.02, 1.0),
    "prefill_mfu": (0.02, 1.0),
    "t_overhead_s": (1e-5, 0.05),
    "eta_moe": (0.05, 1.0),
}
_MISS_PENALTY = math.log(1e-3) ** 2  # a row the trial factors cannot serve at all


@dataclass(frozen=True)
class Prediction:
    """The model's answer for one benchmark row."""

    tokens_per_s_per_accelerator: float | None
    """Predicted tokens/s per accelerator; None when the row cannot run."""
    binding: str
    reason: str = ""

    def abs_pct_error(self, measured: float) -> float | None:
        """``|predicted / measured − 1| · 100``; None without a prediction."""
        if self.tokens_per_s_per_accelerator is None:
            return None
        return abs(self.tokens_per_s_per_accelerator / measured - 1.0) * 100.0


def predict(row: BenchRow, efficiency: Efficiency | EfficiencyTable | None = None) -> Prediction:
    """Predicted tokens/s per accelerator for ``row`` (output tokens; input for prefill).

    ``efficiency``: None uses the shipped default calibration; ``BUILTIN_PRIORS`` the raw
    priors."""
    eff = resolve_efficiency(efficiency, row.hardware.family, row.case.precision)
    result = serve(row.model, row.hardware, row.case, eff)
    ttft = row.case.slo_ttft_s
    if row.phase == "prefill":
        if result.prefill_tokens_per_s_per_accelerator > 0:
            return Prediction(result.prefill_tokens_per_s_per_accelerator, "compute")
        if ttft is None or result.prefill_ttft_s <= 0:  # no replica holds the weights
            return Prediction(None, result.binding, result.reason)
        return Prediction(
            None,
            "latency",
            f"TTFT limit of {ttft:,.4g} s unreachable: a prefill replica takes "
            f"{result.prefill_ttft_s:,.3g} s per prompt",
        )
    decode = result.decode_tokens_per_s_per_accelerator
    if row.phase == "decode" and (result.servable or decode > 0):
        # a disaggregated decode pool prefills nothing: a TTFT limit never binds it, and
        # the colocated configuration that missed one says nothing about its binding
        return Prediction(decode, result.binding if result.servable else "")
    if not result.servable:
        return Prediction(None, result.binding, result.reason)
    return Prediction(result.output_tokens_per_s_per_accelerator, result.binding)


@dataclass(frozen=True)
class ErrorSummary:
    """Absolute percentage errors over the rows that ran."""

    rows: int
    median_abs_pct: float
    worst_abs_pct: float
    worst_row: str = ""

    def describe(self) -> str:
        if not self.rows:
            return "no rows ran"
        return (
            f"median {self.median_abs_pct:.1f}%, worst {self.worst_abs_pct:.1f}% "
            f"({self.worst_row}) over {self.rows} rows"
        )


def error_summary(
    rows: Sequence[BenchRow], efficiency: Efficiency | EfficiencyTable | None = None
) -> ErrorSummary:
    """Median and worst absolute % error of :func:`predict` over ``rows`` that run
    (``efficiency`` as :func:`predict`)."""
    errors = []
    for row in rows:
        error = predict(row, efficiency).abs_pct_error(row.measured_tokens_per_s_per_accelerator)
        if error is not None:
            errors.append((error, row.label))
    if not errors:
        return ErrorSummary(0, 0.0, 0.0)
    worst = max(errors)
    return ErrorSummary(len(errors), statistics.median(e for e, _ in errors), worst[0], worst[1])


# --- Nelder–Mead ------------------------------------------------------------------------


def nelder_mead(
    func: Callable[[np.ndarray], float],
    x0: Sequence[float] | np.ndarray,
    step: float = 0.2,
    max_evals: int = 600,
    tolerance: float = 1e-7,
) -> tuple[np.ndarray, float]:
    """Minimise ``func`` from ``x0`` by Nelder–Mead (reflect 1, expand 2, contract ½, shrink ½).

    Stops after ``max_evals`` evaluations or when the simplex's values differ by less
    than ``tolerance``. Returns the best point and its value.
    """
    n = len(x0)
    simplex = [np.asarray(x0, dtype=float)]
    for i in range(n):
        vertex = simplex[0].copy()
        vertex[i] += step
        simplex.append(vertex)
    values = [func(x) for x in simplex]
    evals = n + 1
    while evals < max_evals:
        order = np.argsort(values)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if values[-1] - values[0] <= tolerance:
            break
        centroid = np.mean(simplex[:-1], axis=0)
        worst = simplex[-1]
        reflected = centroid + (centroid - worst)
        f_reflected = func(reflected)
        evals += 1
        if values[0] <= f_reflected < values[-2]:
            simplex[-1], values[-1] = reflected, f_reflected
            continue
        if f_reflected < values[0]:
            expanded = centroid + 2.0 * (centroid - worst)
            f_expanded = func(expanded)
            evals += 1
            if f_expanded < f_reflected:
                simplex[-1], values[-1] = expanded, f_expanded
            else:
                simplex[-1], values[-1] = reflected, f_reflected
            continue
        if f_reflected < values[-1]:
            contracted = centroid + 0.5 * (reflected - centroid)
        else:
            contracted = centroid + 0.5 * (worst - centroid)
        f_contracted = func(contracted)
        evals += 1
        if f_contracted < min(f_reflected, values[-1]):
            simplex[-1], values[-1] = contracted, f_contracted
            continue
        best = simplex[0]
        simplex = [best] + [best + 0.5 * (x - best) for x in simplex[1:]]
        values = [values[0]] + [func(x) for x in simplex[1:]]
        evals += n
    i = int(np.argmin(values))
    return simplex[i], float(values[i])


# --- Fitting ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupFit:
    """The factors fitted for one hardware family and precision."""

    family: str
    precision: str
    rows: int
    """Rows of this group."""
    shared: bool
    """True: too few rows for an own fit; fitted with the shared correction."""
    factors: dict[str, float]
    before: ErrorSummary
    after: ErrorSummary


@dataclass(frozen=True)
class FitResult:
    """A fitted calibration, what was fitted where, and the error before and after."""

    table: EfficiencyTable
    groups: list[GroupFit]
    before: ErrorSummary
    after: ErrorSummary
    shared_correction: dict[str, float] = field(default_factory=dict)
    """Multipliers on the priors fitted jointly over the small groups (empty if none)."""
    skipped: list[tuple[BenchRow, str]] = field(default_factory=list)
    """Rows left out because the model cannot run them, with the reason."""


def _clip(name: str, value: float) -> float:
    low, high = FIT_BOUNDS[name]
    return min(max(value, low), high)


def _scaled(prior: Efficiency, names: list[str], log_scale: np.ndarray) -> dict[str, float]:
    """``prior``'s factors ``names`` times ``e^{log_scale}``, clipped to ``FIT_BOUNDS``."""
    values = prior.as_dict()
    return {n: _clip(n, values[n] * math.exp(v)) for n, v in zip(names, log_scale, strict=True)}


def _fit_correction(rows: list[BenchRow], priors: list[Efficiency], names: list[str]) -> np.ndarray:
    """Log multipliers on each row's prior factors minimising the regularised log error."""
    measured = [math.log(r.measured_tokens_per_s_per_accelerator) for r in rows]

    def loss(x: np.ndarray) -> float:
        total = 0.0
        for row, prior, target in zip(rows, priors, measured, strict=True):
            eff = prior.replace(**_scaled(prior, names, x))
            predicted = predict(row, eff).tokens_per_s_per_accelerator
            total += _MISS_PENALTY if not predicted else (math.log(predicted) - target) ** 2
        return total / len(rows) + PRIOR_WEIGHT * float(np.sum(x**2))

    best, _ = nelder_mead(loss, np.zeros(len(names)), max_evals=150 * (len(names) + 1))
    return best


def _names_for(rows: list[BenchRow]) -> list[str]:
    moe_rows = sum(1 for r in rows if r.model.is_moe)
    return [*BASE_FACTORS, *([MOE_FACTOR] if moe_rows >= MIN_ROWS_PER_GROUP else [])]


def fit(rows: Sequence[BenchRow], base: EfficiencyTable | None = None, note: str = "") -> FitResult:
    """Fit efficiency factors to measured rows (see module doc); ``base`` gives the priors
    (default: the built-in priors, not the shipped calibration).

    Only groups with rows get entries in the returned table; families without rows keep
    ``base``'s factors.
    """
    base = BUILTIN_PRIORS if base is None else base
    runnable: list[BenchRow] = []
    skipped: list[tuple[BenchRow, str]] = []
    for row in rows:
        prediction = predict(row, base)
        if prediction.tokens_per_s_per_accelerator is None:
            skipped.append((row, prediction.reason))
        else:
            runnable.append(row)
    groups: dict[tuple[str, str], list[BenchRow]] = {}
    for row in runnable:
        groups.setdefault((row.hardware.family, row.case.precision), []).append(row)
    fitted: dict[tuple[str, str], tuple[bool, dict[str, float]]] = {}
    small = {k: v for k, v in groups.items() if len(v) < MIN_ROWS_PER_GROUP}
    correction: dict[str, float] = {}
    if small:
        pooled = [r for members in small.values() for r in members]
        names = _names_for(pooled)
        priors = [base.lookup(r.hardware.family, r.case.precision) for r in pooled]
        log_scale = _fit_correction(pooled, priors, names)
        correction = {n: math.exp(v) for n, v in zip(names, log_scale, strict=True)}
        for family, precision in small:
            fitted[family, precision] = (
                True,
                _scaled(base.lookup(family, precision), names, log_scale),
            )
    for (family, precision), members in groups.items():
        if len(members) >= MIN_ROWS_PER_GROUP:
            prior = base.lookup(family, precision)
            names = _names_for(members)
            log_scale = _fit_correction(members, [prior] * len(members), names)
            fitted[family, precision] = (False, _scaled(prior, names, log_scale))
    table = base if not note else dataclasses.replace(base, note=note)
    for (family, precision), (_, values) in sorted(fitted.items()):
        table = table.with_entry(family, precision, values)
    fits = [
        GroupFit(
            family,
            precision,
            len(groups[family, precision]),
            shared,
            values,
            error_summary(groups[family, precision], base),
            error_summary(groups[family, precision], table),
        )
        for (family, precision), (shared, values) in sorted(fitted.items())
    ]
    return FitResult(
        table=table,
        groups=fits,
        before=error_summary(runnable, base),
        after=error_summary(runnable, table),
        shared_correction=correction,
        skipped=skipped,
    )


# --- Leave one source out ---------------------------------------------------------------


def source_key(text: str, previous: str) -> str:
    """The publication a row's ``source`` cell names: its text before the first ``;``,
    ``,`` or ``(``; ``same`` (or an empty cell) repeats the row above's."""
    head = re.split(r"[;,(]", text, maxsplit=1)[0].strip()
    return previous if head.lower() in ("", "same") else head


def row_sources(files: Sequence[BenchFile]) -> list[tuple[BenchRow, str]]:
    """Every row of ``files`` with :func:`source_key` of its ``source`` cell (``same``
    resolved within its own file)."""
    out: list[tuple[BenchRow, str]] = []
    for file in files:
        previous = ""
        for row in file.rows:
            previous = source_key(row.cells.get("source", ""), previous) or "unnamed"
            out.append((row, previous))
    return out


@dataclass(frozen=True)
class HeldOut:
    """The error on one source's rows when the fit did not see them."""

    source: str
    rows: int
    summary: ErrorSummary
    refitted: bool = True
    """False when no other source is left to fit: the rows are predicted by ``base``."""


def _summary(errors: list[tuple[float, str]]) -> ErrorSummary:
    if not errors:
        return ErrorSummary(0, 0.0, 0.0)
    worst = max(errors)
    return ErrorSummary(len(errors), statistics.median(e for e, _ in errors), worst[0], worst[1])


def leave_one_source_out(
    files: Sequence[BenchFile], base: EfficiencyTable | None = None
) -> tuple[list[HeldOut], ErrorSummary]:
    """Refit without each source in turn and predict its rows: per source, and over all
    held-out predictions (the error to expect on a source the fit never saw)."""
    keyed = row_sources(files)
    names = {id(row): Path(file.path).name for file in files for row in file.rows}
    held: list[HeldOut] = []
    everything: list[tuple[float, str]] = []
    for source in dict.fromkeys(k for _, k in keyed):
        train = [r for r, k in keyed if k != source]
        test = [r for r, k in keyed if k == source]
        table = fit(train, base).table if train else (base or BUILTIN_PRIORS)
        errors = []
        for row in test:
            error = predict(row, table).abs_pct_error(row.measured_tokens_per_s_per_accelerator)
            if error is not None:
                errors.append((error, f"{names[id(row)]}: {row.label}"))
        held.append(HeldOut(source, len(test), _summary(errors), refitted=bool(train)))
        everything += errors
    return held, _summary(everything)
