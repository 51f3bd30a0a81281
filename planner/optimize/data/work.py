"""The work: training-run assignments and windows, inference demand rows and rates."""

from __future__ import annotations

from typing import TypedDict

from planner import deadline
from planner.economics import tokens_per_day
from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key
from planner.perf.training_menu import run_span_years
from planner.perf.workloads import active_years, serving_workloads
from planner.scenario.periods import PeriodLabel, mean_rate_in, peak_rate_in, rate_at
from planner.scenario.series import value_at
from planner.units import MTOK, SECONDS_PER_YEAR, ZFLOP

Places = dict[Key, tuple[str, ...]]


class Training(TypedDict):
    train_rate: dict[Key, float]
    train_index: tuple[Key, ...]
    train_big_m: dict[Key, float]
    train_choice_index: tuple[Key, ...]
    train_window: dict[str, tuple[PeriodLabel, PeriodLabel]]
    train_window_years: dict[str, tuple[int, int]]
    train_penalty_period: dict[str, PeriodLabel]


class Inference(TypedDict):
    demand_index: tuple[Key, ...]
    demand_rows: tuple[Key, ...]
    demand_peak: dict[Key, float]
    demand_end_share: dict[Key, float]
    demand_tokens_per_day: dict[Key, float]
    inf_index: tuple[Key, ...]
    inf_rate: dict[Key, float]
    peak_to_average: dict[str, float]
    prefill_ratio: dict[str, float]


def training(
    ctx: Context,
    flops_per_s: dict[Key, float],
    zflop: dict[str, float],
    places: Places,
) -> Training:
    """Assignment keys of training runs, their rates per unit-period and tight big-Ms."""
    rate: dict[Key, float] = {}
    index: list[Key] = []
    big_m: dict[Key, float] = {}
    choice: dict[Key, None] = {}  # ordered, with O(1) membership
    windows: dict[str, tuple[PeriodLabel, PeriodLabel]] = {}
    years: dict[str, tuple[int, int]] = {}
    for run in ctx.scenario.training:
        r = run.name
        window = [p for p in ctx.periods if run.window[0] <= p.year <= run.window[1]]
        if run.duration_days is not None:  # only the periods it may run in
            first, last = run_span_years(run)
            window = [p for p in window if p.start < last and first < p.start + p.length_years]
        windows[r] = (window[0].label, window[-1].label)
        years[r] = (run.window[0], run.window[1])
        for h in ctx.hardware:
            deadline.check("the model data (training)")
            if (r, h) not in flops_per_s:
                continue
            for p in window:
                per_unit = flops_per_s[(r, h)] * SECONDS_PER_YEAR * p.length_years
                rate[(r, h, p.label)] = per_unit / ZFLOP
                for s in places.get((h, p.label), ()):
                    index.append((r, h, s, p.label))
                    big_m[(r, h, s, p.label)] = zflop[r] / rate[(r, h, p.label)]
                    choice[(r, h, s)] = None
    return {
        "train_rate": rate,
        "train_index": tuple(index),
        "train_big_m": big_m,
        "train_choice_index": tuple(choice),
        "train_window": windows,
        "train_window_years": years,
        "train_penalty_period": {r: w[1] for r, w in windows.items()},
    }


def inference(ctx: Context, tokens_per_s: dict[Key, float], places: Places) -> Inference:
    """Demand rows at the period's peak (average for tokens) and the keys that serve them."""
    disaggregated = ctx.scenario.serving == "disaggregated"
    roles = ("prefill", "decode") if disaggregated else ("serve",)
    demand_index: list[Key] = []
    rows: list[Key] = []
    peak: dict[Key, float] = {}
    end_share: dict[Key, float] = {}
    per_day: dict[Key, float] = {}
    index: list[Key] = []
    rate: dict[Key, float] = {}
    p2a: dict[str, float] = {}
    ratio: dict[str, float] = {}
    for wl in serving_workloads(ctx.scenario):
        w = wl.name
        p2a[w] = wl.peak_to_average
        ratio[w] = wl.input_tokens_per_output_token * (1 - wl.cache_hit_rate)
        stages = {"output": 1.0}
        if disaggregated and ratio[w] > 0:
            stages["prefill"] = ratio[w]
        years = set(active_years(wl, ctx.scenario))
        for p in ctx.periods:
            deadline.check("the model data (inference)")
            if p.year not in years:
                continue
            # a rate, per day whatever the period length; with peak_average: the average
            # for tokens, the highest inside the period (a growing series' end) for capacity
            if ctx.scenario.horizon.demand_within_period == "peak_average":
                tpd = mean_rate_in(wl.tokens_per_day, p)
                highest = peak_rate_in(wl.tokens_per_day, p)
                at_end = value_at(wl.tokens_per_day, p.end, "geometric")
                end_share[(w, p.label)] = min(at_end / highest, 1.0) if highest > 0 else 1.0
            else:
                tpd = highest = rate_at(wl.tokens_per_day, p)
            demand_index.append((w, p.label))
            per_day[(w, p.label)] = tpd
            for stage, share in stages.items():
                rows.append((w, p.label, stage))
                peak[(w, p.label, stage)] = highest * share * wl.peak_to_average / MTOK
            for role in roles:
                if role == "prefill" and "prefill" not in stages:
                    continue
                for h in ctx.hardware:
                    tps = tokens_per_s.get((w, role, h))
                    if tps is None:
                        continue
                    rate[(w, role, h)] = tokens_per_day(tps) / MTOK
                    if (h, p.label) in places:
                        index.append((w, role, h, p.label))
    return {
        "demand_index": tuple(demand_index),
        "demand_rows": tuple(rows),
        "demand_peak": peak,
        "demand_end_share": end_share,
        "demand_tokens_per_day": per_day,
        "inf_index": tuple(index),
        "inf_rate": rate,
        "peak_to_average": p2a,
        "prefill_ratio": ratio,
    }
