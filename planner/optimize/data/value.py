"""What the work is worth: revenue per served Mtok, run values, and the must-serve work."""

from __future__ import annotations

from typing import TypedDict

from planner.economics.revenue import TokenPrices, revenue_usd_per_output_mtok
from planner.optimize.data.context import Context
from planner.optimize.data.model_data import Key
from planner.perf.workloads import active_years, serving_workloads
from planner.scenario.periods import Period, rate_at
from planner.scenario.schema import InferenceWorkload


class Value(TypedDict):
    objective: str
    service_measure: str
    revenue_usd_per_mtok: dict[Key, float]
    run_value_usd: dict[str, float]
    must_serve_workloads: frozenset[str]
    must_finish_runs: frozenset[str]


def workload_revenue_usd_per_mtok(wl: InferenceWorkload, period: Period) -> float | None:
    """Revenue per served output Mtok of ``wl`` in ``period`` (None: no price)."""
    if wl.price_usd_per_mtok is not None:
        return rate_at(wl.price_usd_per_mtok, period)
    if wl.price_output_usd_per_mtok is None or wl.price_input_usd_per_mtok is None:
        return None
    cached = wl.price_cached_input_usd_per_mtok
    prices = TokenPrices(
        output_usd_per_mtok=rate_at(wl.price_output_usd_per_mtok, period),
        input_usd_per_mtok=rate_at(wl.price_input_usd_per_mtok, period),
        cached_input_usd_per_mtok=rate_at(
            wl.price_input_usd_per_mtok if cached is None else cached, period
        ),
    )
    return revenue_usd_per_output_mtok(prices, wl.input_tokens_per_output_token, wl.cache_hit_rate)


def service_value(ctx: Context) -> Value:
    """Prices of the demand rows (w, t), values of the runs, and the work that
    ``objective: max_profit`` serves whatever it costs: workloads without a price (a
    run's rollouts included), runs without ``value_usd`` or with ``must_finish``."""
    scenario = ctx.scenario
    revenue: dict[Key, float] = {}
    must_serve = set()
    for wl in serving_workloads(scenario):
        years = set(active_years(wl, scenario))
        if not wl.priced:
            must_serve.add(wl.name)
            continue
        for p in ctx.periods:
            price = workload_revenue_usd_per_mtok(wl, p)
            if p.year in years and price is not None:
                revenue[(wl.name, p.label)] = price
    values = {r.name: r.value_usd for r in scenario.training if r.value_usd is not None}
    must_finish = {r.name for r in scenario.training if r.must_finish or r.value_usd is None}
    return {
        "objective": scenario.objective,
        "service_measure": scenario.service_measure,
        "revenue_usd_per_mtok": revenue,
        "run_value_usd": values,
        "must_serve_workloads": frozenset(must_serve),
        "must_finish_runs": frozenset(must_finish),
    }
