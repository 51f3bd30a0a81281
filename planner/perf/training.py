"""Training performance: FLOPs, goodput under failures, cluster size (docs/concepts/performance.md).

Pure functions; SI units inside (FLOP, FLOP/s, s). Catalog figures in analyst units
(TFLOPS, hours) are converted once, where they enter.

Failures follow Daly (2006), "A higher order estimate of the optimum checkpoint
interval for restart dumps", FGCS 22(3): failures arrive as a Poisson process with
cluster MTBF ``M = M_a / N``; each checkpoint stalls training for δ seconds; each
failure costs a restart of R seconds plus the work since the last checkpoint.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.perf.training_scale import (
    GEMM_TIME_SHARE,
    flops_per_param_token,
    scaling_efficiency,
    smallest_cluster,
    step_time,
)
from planner.scenario.resolve import hardware_specs, model_specs
from planner.scenario.schema import Scenario, TrainingRun
from planner.units import (
    BILLION,
    DAYS_PER_YEAR,
    HOURS_PER_DAY,
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    TERA,
)

MAX_ACCELERATORS = 2_000_000
_MAX_NEWTON_STEPS = 100

TRAINING_COLUMNS = [
    "run",
    "hardware",
    "model",
    "precision",
    "feasible",
    "reason",
    "flops",
    "mfu",
    "scaling_efficiency",
    "layout",
    "sustained_tflops_per_accelerator",
    "cluster_accelerators",
    "cluster_units",
    "goodput",
    "days_to_finish",
    "accelerator_hours",
    "training_tokens_per_s_per_unit",
    "training_flops_per_s_per_unit",
]


def training_flops(
    active_params_b: float,
    tokens: float,
    *,
    flops: float | None = None,
    layers: int | None = None,
    context_tokens: float | None = None,
    hidden_size: int | None = None,
    kind: str = "pretrain",
) -> float:
    """Total training FLOPs of a run.

    ``6 · P · T`` with P = ``active_params_b · 1e9`` parameters active per token and
    T = ``tokens`` (2 FLOPs per parameter forward, 4 backward; Kaplan et al. 2020);
    ``4 · P · T`` for ``kind = "lora"`` (frozen weights get no weight gradients: forward
    2, activation gradients 2; adapters are a fraction of a percent).
    When ``layers``, ``context_tokens`` and ``hidden_size`` are all given, the
    attention-score term ``6 · layers · context · hidden · T`` is added (QKᵀ and AV
    matmuls, forward and backward; Kaplan et al. 2020, Table 1, at the full context).
    An explicit ``flops`` overrides both.
    """
    if flops is not None:
        return float(flops)
    total = flops_per_param_token(kind) * active_params_b * BILLION * tokens
    if layers is not None and context_tokens is not None and hidden_size is not None:
        total += 6.0 * layers * context_tokens * hidden_size * tokens
    return total


def sustained_flops_per_accelerator(hw: HardwareSpec, precision: str, mfu: float) -> float:
    """Sustained FLOP/s of one accelerator: ``peak_tflops(precision) · 1e12 · mfu``.

    Raises ValueError when the hardware has no peak at ``precision``.
    """
    peak = hw.peak_tflops(precision)
    if peak is None:
        raise ValueError(f"{hw.id} has no peak TFLOPS at {precision}")
    return peak * TERA * mfu


DEFAULT_GLOBAL_BATCH_TOKENS = {"pretrain": 2048 * 8192.0, "full": 2048 * 8192.0, "lora": 8 * 8192.0}
"""Default tokens a step by run kind (see ``TrainingRun.global_batch_tokens``)."""


def training_mfu(hw: HardwareSpec, precision: str) -> float:
    """Catalog stage MFU of ``hw`` at ``precision``, relative to that precision's peak.

    bf16: ``mfu_training``. fp8 / fp4: ``mfu_training_fp8`` / ``_fp4`` where the catalog
    has a measured figure; else derived from the next-wider precision w by Amdahl's law
    over :data:`GEMM_TIME_SHARE` g: only the matrix multiplies run ``peak / peak_w``
    times faster, so ``mfu = mfu_w · peak_w / (peak · (g · peak_w / peak + 1 − g))``
    (2× the peak gives 1 / (g/2 + 1 − g) = 1.77× the rate at g = 0.87).
    """
    if precision == "bf16":
        return hw.mfu_training
    own = hw.mfu_training_fp8 if precision == "fp8" else hw.mfu_training_fp4
    if own is not None:
        return own
    wider = "fp8" if precision == "fp4" and hw.is_native("fp8") else "bf16"
    peak, wider_peak = hw.peak_tflops(precision), hw.peak_tflops(wider)
    if peak is None or wider_peak is None:
        return hw.mfu_training
    g = GEMM_TIME_SHARE
    speedup = 1.0 / (g * wider_peak / peak + 1.0 - g)
    return training_mfu(hw, wider) * wider_peak / peak * speedup


def global_batch_tokens(run: TrainingRun) -> float:
    """The run's tokens a step: its own, else the default for its kind."""
    return run.global_batch_tokens or DEFAULT_GLOBAL_BATCH_TOKENS[run.kind]


def rate_at_size(
    run: TrainingRun,
    hw: HardwareSpec,
    model: ModelSpec,
    stage_flops_per_s: float,
    scale: float = 1.0,
) -> Callable[[int], float]:
    """Sustained FLOP/s per accelerator at a cluster of n accelerators: the stage rate
    times :func:`planner.perf.training_scale.scaling_efficiency` (non-increasing in n),
    times ``scale`` (the scenario's ``throughput_scale.training``, applied to the result
    as measured error would be, not fed into the step model)."""
    batch = global_batch_tokens(run)

    def rate(accelerators: int) -> float:
        return (
            stage_flops_per_s
            * scale
            * scaling_efficiency(
                model, hw, stage_flops_per_s, accelerators, batch, run.sequence_tokens, run.kind
            )
        )

    return rate


def expected_wall_time(
    tau_s: float, delta_s: float, restart_s: float, cluster_mtbf_s: float
) -> float:
    """Expected wall-clock seconds to complete τ seconds of work and its checkpoint.

    ``E(τ) = M · e^{R/M} · (e^{(τ+δ)/M} − 1)`` (Daly 2006, exponential failures), with
    M the cluster MTBF, δ the checkpoint stall and R the restart time, all seconds.
    """
    m = cluster_mtbf_s
    return m * math.exp(restart_s / m) * math.expm1((tau_s + delta_s) / m)


def _optimal_work_fraction(d: float) -> float:
    """The x = τ/M that maximises ``x / (e^{x+d} − 1)``, for d = δ/M > 0.

    Setting the derivative to zero gives ``e^{x+d} (1 − x) = 1``; divided by
    ``e^{x+d}`` this is ``h(x) = −x − expm1(−(x+d)) = 0``, which is free of overflow
    and cancellation. h is strictly decreasing on [0, 1] (h' = expm1(−(x+d)) < 0),
    h(0) > 0 > h(1), so the root is unique. Safeguarded Newton from Young's
    ``x = sqrt(2d)``, bisecting whenever a step leaves the bracket.
    """
    lo, hi = 0.0, 1.0
    x = min(math.sqrt(2.0 * d), 0.5)
    for _ in range(_MAX_NEWTON_STEPS):
        h = -x - math.expm1(-(x + d))
        if h > 0:
            lo = x
        else:
            hi = x
        slope = math.expm1(-(x + d))
        step = h / slope if slope != 0 else math.inf
        candidate = x - step
        if not lo < candidate < hi:
            candidate = 0.5 * (lo + hi)
        if abs(candidate - x) <= 1e-15 * max(x, 1e-300) or hi - lo <= 1e-300:
            return candidate
        x = candidate
    return x


def _check_failure_inputs(
    n_accelerators: float, mtbf_hours: float, delta_s: float, restart_s: float
) -> None:
    if n_accelerators < 1:
        raise ValueError(f"n_accelerators must be at least 1, got {n_accelerators}")
    if mtbf_hours <= 0:
        raise ValueError(f"MTBF must be positive, got {mtbf_hours} h")
    if delta_s <= 0 or restart_s < 0:
        raise ValueError("checkpoint stall must be positive and restart time non-negative")


def optimal_checkpoint_interval_s(
    n_accelerators: float,
    mtbf_hours_per_accelerator: float,
    checkpoint_stall_s: float,
    restart_s: float,
) -> float:
    """Seconds of work between checkpoints that maximise goodput (τ* = x*·M)."""
    _check_failure_inputs(n_accelerators, mtbf_hours_per_accelerator, checkpoint_stall_s, restart_s)
    m = mtbf_hours_per_accelerator * SECONDS_PER_HOUR / n_accelerators
    return _optimal_work_fraction(checkpoint_stall_s / m) * m


def goodput(
    n_accelerators: float,
    mtbf_hours_per_accelerator: float,
    checkpoint_stall_s: float,
    restart_s: float,
) -> float:
    """Fraction of wall-clock time spent on useful training, at the best checkpoint interval.

    ``goodput = max_τ τ / E(τ)`` with ``E`` from :func:`expected_wall_time` and cluster
    MTBF ``M = M_a · 3600 / N`` seconds. With x = τ/M, d = δ/M:
    ``τ/E = x · e^{−R/M} / (e^{x+d} − 1)``, computed in logs so it never overflows.
    It lies in (0, 1] (it underflows to 0 only when R/M exceeds ~700), falls as N
    grows and rises with the MTBF.
    """
    _check_failure_inputs(n_accelerators, mtbf_hours_per_accelerator, checkpoint_stall_s, restart_s)
    m = mtbf_hours_per_accelerator * SECONDS_PER_HOUR / n_accelerators
    d = checkpoint_stall_s / m
    x = _optimal_work_fraction(d)
    y = x + d
    log_expm1_y = y + math.log1p(-math.exp(-y)) if y > 30 else math.log(math.expm1(y))
    return min(1.0, math.exp(math.log(x) - restart_s / m - log_expm1_y))


@dataclass(frozen=True)
class ClusterSize:
    """The smallest cluster that finishes a run inside its window, or why none does."""

    feasible: bool
    units: int
    """Units bought (0 when infeasible)."""
    accelerators: int
    """``units · accelerators_per_unit`` (0 when infeasible)."""
    goodput: float
    """Goodput at that size (when infeasible: at the fastest size, named in ``reason``)."""
    days_to_finish: float
    """Days the run takes at that size (when infeasible: at the fastest size)."""
    reason: str = ""


def cluster_size_for_window(
    flops: float,
    sustained_flops_per_accel: float | Callable[[int], float],
    window_s: float,
    mtbf_hours_per_accelerator: float,
    checkpoint_stall_s: float,
    restart_s: float,
    accelerators_per_unit: int,
    max_accelerators: int = MAX_ACCELERATORS,
    min_accelerators: int = 1,
) -> ClusterSize:
    """Smallest whole number of units whose goodput-adjusted compute finishes in ``window_s``.

    Fixed point ``n = ceil(F / (a · s(a·n) · goodput(a·n) · W))`` units, with F FLOPs,
    s sustained FLOP/s per accelerator (a number, or a non-increasing function of the
    cluster's accelerators: :func:`rate_at_size`), W window seconds and a accelerators
    per unit. The right-hand side f(n) is non-decreasing in n (goodput and s fall as n
    grows), so iterating from the failure-free size at the smallest cluster's rate
    (where f(n₀) ≥ n₀) gives a non-decreasing sequence that stops at the least fixed
    point, the smallest n with enough compute, or passes ``max_accelerators``: either
    way it terminates. No cluster below ``min_accelerators`` (the smallest that holds the
    run's state: :func:`planner.perf.training_scale.smallest_cluster`) is considered.
    """
    rate = (
        sustained_flops_per_accel
        if callable(sustained_flops_per_accel)
        else (lambda _n, s=float(sustained_flops_per_accel): s)
    )
    a = accelerators_per_unit
    if flops <= 0 or rate(a) <= 0 or window_s <= 0:
        raise ValueError("flops, sustained FLOP/s and window must be positive")
    max_units = max_accelerators // a

    def per_accelerator(units: int) -> float:
        """Goodput-adjusted FLOP/s of one accelerator in a cluster of ``units``."""
        n = units * a
        return rate(n) * goodput(n, mtbf_hours_per_accelerator, checkpoint_stall_s, restart_s)

    def units_needed(per_accel: float) -> float:
        # A rate so small that the ratio overflows needs an unbounded cluster.
        ratio = flops / (a * per_accel * window_s) if per_accel > 0 else math.inf
        return math.ceil(ratio) if math.isfinite(ratio) else math.inf

    def days(units: int, per_accel: float) -> float:
        if per_accel <= 0:
            return math.inf
        return flops / (units * a * per_accel) / SECONDS_PER_DAY

    def good(units: int) -> float:
        return goodput(units * a, mtbf_hours_per_accelerator, checkpoint_stall_s, restart_s)

    smallest = math.ceil(min_accelerators / a)
    units = max(smallest, int(units_needed(rate(smallest * a))))
    while units <= max_units:  # units strictly increases each pass, so this ends
        per_accel = per_accelerator(units)
        needed = max(units, units_needed(per_accel))
        if needed == units:
            return ClusterSize(True, units, units * a, good(units), days(units, per_accel))
        units = int(needed) if math.isfinite(needed) else max_units + 1
    # No cluster is big enough. Report the fastest size: compute a·n·rate(a·n)·goodput
    # peaks where failures and scaling cost more than extra accelerators add.
    grid = sorted({int(u) for u in np.geomspace(smallest, max(max_units, smallest), 400).round()})
    fastest = min(grid, key=lambda u: days(u, per_accelerator(u)))
    g = good(fastest)
    taken = days(fastest, per_accelerator(fastest))
    reason = (
        f"no cluster up to {max_accelerators:,} accelerators finishes inside the window "
        f"({window_s / SECONDS_PER_DAY:,.0f} available days): the fastest, "
        f"{fastest * a:,} accelerators at goodput {g:.2f}, takes {taken:,.0f} days"
    )
    return ClusterSize(False, 0, 0, g, taken, reason)


def window_seconds(run: TrainingRun, availability: float) -> float:
    """Seconds of available time in the run's window: whole years × 365.25 days × availability.

    A run with ``duration_days`` has that many wall-clock days on a fixed cluster (spare
    units for availability are the optimiser's, see :mod:`planner.perf.training_menu`)."""
    if run.duration_days is not None:
        return run.duration_days * SECONDS_PER_DAY
    first, last = run.window
    return (last - first + 1) * DAYS_PER_YEAR * SECONDS_PER_DAY * availability


def _infeasible_row(base: dict[str, object], reason: str) -> dict[str, object]:
    nan = math.nan
    return {
        **base,
        "feasible": False,
        "reason": reason,
        "cluster_accelerators": 0,
        "cluster_units": 0,
        "goodput": nan,
        "days_to_finish": nan,
        "accelerator_hours": nan,
        "training_tokens_per_s_per_unit": nan,
        "training_flops_per_s_per_unit": nan,
    }


def training_row(
    run: TrainingRun,
    hw: HardwareSpec,
    model: ModelSpec,
    availability: float,
    max_accelerators: int = MAX_ACCELERATORS,
    scale: float = 1.0,
) -> dict[str, object]:
    """One row of :func:`training_table` for ``run`` of ``model`` on ``hw``.

    ``mfu`` is the stage MFU (catalog or the run's); ``scaling_efficiency`` and
    ``layout`` are those of the cluster found (planner.perf.training_scale), and the
    sustained TFLOPS and throughput include both and ``scale`` (the scenario's
    ``throughput_scale.training``)."""
    flops = training_flops(model.active_params_b, run.tokens, flops=run.flops, kind=run.kind)
    native = hw.is_native(run.precision)
    mfu = run.mfu if run.mfu is not None else training_mfu(hw, run.precision)
    peak = hw.peak_tflops(run.precision) if native else None
    base: dict[str, object] = {
        "run": run.name,
        "hardware": hw.id,
        "model": run.model,
        "precision": run.precision,
        "flops": flops,
        "mfu": mfu,
        "scaling_efficiency": math.nan,
        "layout": "",
        "sustained_tflops_per_accelerator": peak * mfu if peak is not None else math.nan,
    }
    if hw.prefill_only:
        return _infeasible_row(base, f"{hw.id} is a prefill-only part; it does not train")
    if peak is None:
        wider = hw.compute_precision(run.precision)
        hint = f"; train at {wider}" if wider else ""
        return _infeasible_row(base, f"{hw.id} has no native {run.precision} units{hint}")
    if mfu <= 0:
        return _infeasible_row(base, "MFU is 0; set the run's mfu or the hardware's mfu_training")
    stage = peak * TERA * mfu
    smallest = smallest_cluster(model, hw, run.kind, max_accelerators)
    if smallest is None:
        return _infeasible_row(
            base,
            f"{run.kind} state of {model.id} does not fit {hw.id} at any cluster size "
            "(more pipeline stages than layers)",
        )
    rate = rate_at_size(run, hw, model, stage, scale)
    mtbf = run.mtbf_hours_per_accelerator or hw.mtbf_hours_per_accelerator
    size = cluster_size_for_window(
        flops,
        rate,
        window_seconds(run, availability),
        mtbf,
        run.checkpoint_stall_s,
        run.restart_s,
        hw.accelerators,
        max_accelerators,
        smallest,
    )
    if not size.feasible:
        return _infeasible_row(base, size.reason)
    layout, step = step_time(
        model, hw, stage, size.accelerators, global_batch_tokens(run), run.sequence_tokens, run.kind
    )
    sustained = stage * scale * step.efficiency  # rate(size.accelerators), with its layout
    flops_per_s_per_unit = hw.accelerators * sustained * size.goodput
    return {
        **base,
        "scaling_efficiency": step.efficiency,
        "layout": layout.label,
        "sustained_tflops_per_accelerator": sustained / TERA,
        "feasible": True,
        "reason": "",
        "cluster_accelerators": size.accelerators,
        "cluster_units": size.units,
        "goodput": size.goodput,
        "days_to_finish": size.days_to_finish,
        "accelerator_hours": size.accelerators * size.days_to_finish * HOURS_PER_DAY,
        "training_tokens_per_s_per_unit": flops_per_s_per_unit / (flops / run.tokens),
        "training_flops_per_s_per_unit": flops_per_s_per_unit,
    }


def training_table(scenario: Scenario) -> pd.DataFrame:
    """One row per (training run, hardware) of the scenario, columns ``TRAINING_COLUMNS``.

    Infeasible pairs (prefill-only parts, no peak at the precision, no cluster up to
    ``MAX_ACCELERATORS`` finishing in the window) have ``feasible`` False, a ``reason``,
    0 cluster units and NaN goodput, time and throughput: filter on ``feasible``.
    """
    hardware = hardware_specs(scenario)
    models = model_specs(scenario)
    rows = [
        training_row(
            run,
            hw,
            models[run.model],
            scenario.finance.availability,
            scale=scenario.throughput_scale.training,
        )
        for run in scenario.training
        for hw in hardware.values()
    ]
    frame = pd.DataFrame(rows, columns=TRAINING_COLUMNS)
    return frame.astype({"feasible": bool, "cluster_accelerators": int, "cluster_units": int})
