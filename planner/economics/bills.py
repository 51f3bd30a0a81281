"""Bills at API prices and the inference-versus-training compute crossover.

Bills use the 365-day billing year (:data:`planner.units.DAYS_PER_BILLING_YEAR`);
crossover years the 365.25-day calendar year (:data:`planner.units.DAYS_PER_YEAR`).
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.errors import InputError
from planner.perf.training import training_flops
from planner.units import (
    BILLION,
    DAYS_PER_BILLING_YEAR,
    DAYS_PER_YEAR,
    MTOK,
    SECONDS_PER_HOUR,
    TERA,
)


@dataclass(frozen=True)
class BlendedPrice:
    """An API price list blended at a workload's input mix and cache-hit rate."""

    usd_per_mtok: float
    """USD per million tokens of all kinds (input and output)."""
    usd_per_output_mtok: float
    """USD per million output tokens, with their input tokens included."""


def blended_usd_per_mtok(
    input_usd_per_mtok: float,
    output_usd_per_mtok: float,
    cached_input_usd_per_mtok: float,
    input_per_output: float,
    cache_hit_rate: float,
) -> BlendedPrice:
    """Blend input, cached-input and output prices.

    Per output token come r = ``input_per_output`` input tokens, a share h of them
    cache hits: per million output tokens ``out + r · ((1−h) · in + h · cached)``;
    per million tokens of all kinds that divided by ``1 + r``.
    """
    per_output = output_usd_per_mtok + input_per_output * (
        (1.0 - cache_hit_rate) * input_usd_per_mtok + cache_hit_rate * cached_input_usd_per_mtok
    )
    return BlendedPrice(
        usd_per_mtok=per_output / (1.0 + input_per_output), usd_per_output_mtok=per_output
    )


def daily_bill_usd(tokens_per_day: float, usd_per_mtok: float) -> float:
    """USD per day for ``tokens_per_day`` tokens at ``usd_per_mtok``."""
    return tokens_per_day / MTOK * usd_per_mtok


def yearly_bill_usd(
    tokens_per_day: float, usd_per_mtok: float, days_per_year: float = DAYS_PER_BILLING_YEAR
) -> float:
    """USD per year: the daily bill times ``days_per_year`` (365 by default)."""
    return daily_bill_usd(tokens_per_day, usd_per_mtok) * days_per_year


def yearly_query_bill_usd(
    queries_per_day: float, usd_per_query: float, days_per_year: float = DAYS_PER_BILLING_YEAR
) -> float:
    """USD per year for ``queries_per_day`` queries priced per query."""
    return queries_per_day * usd_per_query * days_per_year


def inference_flops_per_token(active_params_b: float) -> float:
    """FLOPs to generate or read one token: ``2 · P_active`` (attention ignored)."""
    return 2.0 * active_params_b * BILLION


@dataclass(frozen=True)
class Crossover:
    """When cumulative inference compute equals a model's training compute."""

    training_flops: float
    training_basis: str
    """How ``training_flops`` was found: ``tokens`` (6·P·T) or ``accelerator-hours``."""
    inference_flops_per_day: float
    tokens_per_day: float
    """Tokens generated per day (questions × (answer + reasoning tokens))."""
    days: float
    years: float
    """``days / 365.25``."""


def training_flops_from_hours(
    accelerator_hours: float, peak_tflops: float, utilisation: float
) -> float:
    """Training FLOPs from accelerator-hours: ``hours · 3600 · peak · 1e12 · utilisation``."""
    return accelerator_hours * SECONDS_PER_HOUR * peak_tflops * TERA * utilisation


def crossover(
    model: ModelSpec,
    *,
    questions_per_day: float,
    tokens_per_question: float,
    reasoning_tokens: float = 0.0,
    hardware: HardwareSpec | None = None,
    utilisation: float | None = None,
    training_accelerator_hours: float | None = None,
    precision: str = "bf16",
) -> Crossover:
    """Days of serving until inference compute equals training compute.

    Inference: ``questions · (tokens + reasoning) · 2 · P_active`` FLOPs per day.
    Training: with ``hardware``, ``hours · peak(precision) · utilisation`` (hours:
    ``training_accelerator_hours`` or the model's reported hours; utilisation: the
    given one or the hardware's training MFU); without, ``6 · P_active · T`` from the
    model's reported training tokens. Missing inputs raise :class:`InputError`.
    """
    if training_accelerator_hours is not None and hardware is None:
        raise InputError(
            None, "training accelerator-hours need a hardware type to convert hours to FLOPs"
        )
    if hardware is not None:
        hours = training_accelerator_hours or model.training_accelerator_hours
        if hours is None:
            raise InputError(
                None,
                f"model {model.id!r} has no reported training accelerator-hours; "
                "give them (--training-gpu-hours)",
            )
        peak = hardware.peak_tflops(precision)
        if peak is None:
            raise InputError(None, f"hardware {hardware.id!r} has no peak at {precision}")
        util = utilisation if utilisation is not None else hardware.mfu_training
        total, basis = training_flops_from_hours(hours, peak, util), "accelerator-hours"
    else:
        if model.training_tokens is None:
            raise InputError(
                None,
                f"model {model.id!r} has no reported training tokens; give a hardware "
                "type and training accelerator-hours instead",
            )
        total, basis = training_flops(model.active_params_b, model.training_tokens), "tokens"
    tokens_per_day = questions_per_day * (tokens_per_question + reasoning_tokens)
    per_day = tokens_per_day * inference_flops_per_token(model.active_params_b)
    days = total / per_day
    return Crossover(
        training_flops=total,
        training_basis=basis,
        inference_flops_per_day=per_day,
        tokens_per_day=tokens_per_day,
        days=days,
        years=days / DAYS_PER_YEAR,
    )
