"""Throughput rates from the perf model's tables, and discounting of the periods."""

from __future__ import annotations

from typing import TypedDict

import pandas as pd

from planner.economics import discount_factor, period_discount_factors
from planner.optimize.data.context import Context, finite_positive
from planner.optimize.data.model_data import Key
from planner.scenario.periods import PeriodLabel
from planner.units import ZFLOP


class Rates(TypedDict):
    inf_tokens_per_s: dict[Key, float]
    train_flops_per_s: dict[Key, float]
    train_zflop: dict[str, float]


class Discounting(TypedDict):
    period_length: dict[PeriodLabel, float]
    discount_factor: dict[PeriodLabel, float]
    discount_factor_end: float
    previous_period: dict[PeriodLabel, PeriodLabel]


def throughput_rates(ctx: Context, inference: pd.DataFrame, training: pd.DataFrame) -> Rates:
    """Which (workload, role, hardware) and (run, hardware) pairs exist, and their rates."""
    colocated = ctx.scenario.serving == "colocated"
    roles = ("serve",) if colocated else ("prefill", "decode")
    tokens: dict[Key, float] = {}
    for row in inference.itertuples(index=False):
        spec = ctx.specs.get(row.hardware)
        if spec is None or (colocated and spec.prefill_only):
            continue
        rates = {
            "serve": row.output_tokens_per_s_per_unit if bool(row.servable) else 0.0,
            "prefill": row.prefill_tokens_per_s_per_unit,
            "decode": 0.0 if spec.prefill_only else row.decode_tokens_per_s_per_unit,
        }
        for role in roles:
            if finite_positive(rates[role]):
                tokens[(row.workload, role, row.hardware)] = float(rates[role])
    flops_per_s: dict[Key, float] = {}
    required: dict[str, float] = {}
    for row in training.itertuples(index=False):
        if finite_positive(row.flops):
            required[row.run] = float(row.flops)
        if (
            row.hardware in ctx.specs
            and bool(row.feasible)
            and finite_positive(row.training_flops_per_s_per_unit)
        ):
            flops_per_s[(row.run, row.hardware)] = float(row.training_flops_per_s_per_unit)
    runs = [r.name for r in ctx.scenario.training]
    return {
        "inf_tokens_per_s": tokens,
        "train_flops_per_s": flops_per_s,
        "train_zflop": {r: required.get(r, 0.0) / ZFLOP for r in runs},
    }


def discounting(ctx: Context) -> Discounting:
    """Period lengths, discount factors at each period start and at the horizon end."""
    first = ctx.periods[0].start
    wacc = ctx.scenario.finance.wacc
    labels = [p.label for p in ctx.periods]
    return {
        "period_length": {p.label: p.length_years for p in ctx.periods},
        "discount_factor": period_discount_factors(
            wacc, {p.label: p.start for p in ctx.periods}, first
        ),
        "discount_factor_end": discount_factor(wacc, ctx.periods[-1].end - first),
        "previous_period": dict(zip(labels[1:], labels, strict=False)),
    }
