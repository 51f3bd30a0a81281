"""Independent checker: recompute every constraint and the objective from a Plan's tables.

Uses nothing but the plan (its tables, parameters and headline) — not Pyomo, not the
model data — so a bug in the formulation or in the extraction shows up as a violation.
Returns a list of sentences, empty when the plan holds. Works on any period length:
rows are matched on the ``period`` label, lifetimes and discounting are recomputed in
years from the periods table's ``start_year`` and ``length_years``.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise

import pandas as pd

from planner.economics import (
    discount_factor,
    facility_mw_per_unit,
    period_discount_factors,
    tokens_over_years,
    tokens_per_day,
)
from planner.economics.load_shape import lost_charged
from planner.optimize.solvers.types import Termination
from planner.results.checker_horizon_end import (
    check_horizon_end,
    delivered_at,
    residual_share,
)
from planner.results.checker_period_start import check_period_start
from planner.results.checker_power_contract import power_contract_amounts
from planner.results.checker_procurement import check_procurement, rented_with_commitments
from planner.results.checker_rented import check_rented
from planner.results.checker_sales import check_sales, resale_amounts, sold_through, units_sold_by
from planner.results.checker_timing import capex_paid, check_timing
from planner.results.checker_training import check_fixed_clusters, check_whole_clusters
from planner.results.costs import COST_CATEGORIES
from planner.results.diagnosis_check import check_diagnosis
from planner.results.plan import Plan
from planner.results.revenue_checks import check_revenue, objective_lost_revenue_pv
from planner.units import MTOK, PFLOP, RENTED

REL = 1e-5
"""Relative tolerance of every comparison (solver feasibility tolerances are ~1e-7)."""
EPS_YEARS = 1e-9
"""Slack on comparisons of fractional-year starts (monthly starts are not exact floats)."""


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= REL * max(abs(a), abs(b), scale)


def _at_most(a: float, b: float, scale: float = 1.0) -> bool:
    return a <= b + REL * max(abs(b), scale)


def _sum(frame: pd.DataFrame, keys: list[str], column: str) -> dict[tuple, float]:
    if frame.empty:
        return {}
    grouped = frame.groupby(keys)[column].sum()
    return {(k if isinstance(k, tuple) else (k,)): float(v) for k, v in grouped.items()}


def check_plan(plan: Plan) -> list[str]:
    """Every violation found in ``plan`` (empty list: the plan is consistent)."""
    t = plan.tables
    out: list[str] = []
    out += _check_fleet(plan)
    out += check_sales(plan)
    out += _check_capacity(plan)
    out += check_period_start(plan)
    out += _check_limits(plan)
    out += _check_demand(t["served"], t["assignment_inference"])
    out += _check_training(t["training"], t["assignment_training"], plan.parameters["relax"])
    out += _check_all_served(plan)
    out += check_fixed_clusters(t["training"], t["assignment_training"], t["periods"])
    out += check_timing(plan)
    problems, procurement = check_procurement(plan)
    out += problems
    out += _check_costs(plan, procurement)
    out += check_horizon_end(plan)
    out += check_revenue(plan)
    out += check_rented(plan)
    out += check_diagnosis(plan)  # every diagnosis sentence against these tables
    return out


def _check_fleet(plan: Plan) -> list[str]:
    """Purchases are whole units, live exactly their lifetime (less the units sold early,
    from the period of the sale on); existing units never return."""
    t = plan.tables
    out = []
    purchases, fleet, periods = t["purchases"], t["fleet"], t["periods"]
    if not plan.parameters["relax"]:
        for row in purchases.itertuples(index=False):
            if abs(row.units - round(row.units)) > 1e-6:
                out.append(f"purchase of {row.units} {row.hardware} in {row.period} is not whole")
    bought = fleet[fleet["origin"] == "purchased"]
    bought = bought.assign(vintage=bought["vintage"].astype(str))
    listed = _sum(bought, ["hardware", "site", "vintage", "period"], "units")
    starts = dict(zip(periods["period"], periods["start_year"], strict=True))
    sold = sold_through(plan)
    for row in purchases.itertuples(index=False):
        bought_at = starts[row.period]
        sales = sold.get((row.hardware, row.site, str(row.period)), [])
        for period, start in starts.items():
            alive = bought_at - EPS_YEARS <= start < bought_at + row.lifetime_years - EPS_YEARS
            units = listed.pop((row.hardware, row.site, row.period, period), 0.0)
            held = row.units - units_sold_by(sales, start)
            if alive and not _close(units, held):
                out.append(
                    f"fleet shows {units} of the {held} {row.hardware} bought in "
                    f"{row.period} at {row.site} in {period}"
                )
            if not alive and units:
                out.append(f"{row.hardware} bought in {row.period} still in the fleet in {period}")
    for key, units in listed.items():
        out.append(f"fleet lists {units} purchased units {key} that no purchase explains")
    out += _check_in_service(plan)
    existing = fleet[fleet["origin"] == "existing"]
    existing = existing.assign(_start=existing["period"].map(starts)).sort_values("_start")
    for key, rows in existing.groupby(["hardware", "site", "vintage"]):
        pairs = list(zip(rows["period"], rows["units"], strict=True))
        for (p0, u0), (p1, u1) in pairwise(pairs):
            if not _at_most(u1, u0):
                out.append(f"existing {key} grows from {u0} in {p0} to {u1} in {p1}")
    return out


def _check_in_service(plan: Plan) -> list[str]:
    """Units in service (the average over the period, which running costs are charged
    on) against the units held. Without deliveries through the period they are the
    units held. With them, every cohort changes linearly inside a period, from what it
    held at the period's start (its previous period's units) to what it holds at its
    end, so they are the mean of the two: half a purchase's units in its delivery
    period when that period's purchases arrive through it (else all), half of what a
    cohort held in the period it is sold or switched off in whole, or leaves through at
    its life's end (a row with 0 units, which must be there for a purchase arriving
    through its period). A cohort delivered at a period start leaves at one."""
    t = plan.tables
    fleet, periods = t["fleet"], t["periods"]
    if not plan.parameters.get("deliveries_through_period"):
        bad = fleet[
            (fleet["units_in_service"] - fleet["units"]).abs()
            > REL * fleet["units"].abs().clip(lower=1)
        ]
        return [
            f"{r.period}: {r.units_in_service:.6g} {r.hardware} in service, {r.units:.6g} held"
            for r in bad.itertuples(index=False)
        ]
    through = plan.ramp_periods
    order = list(periods["period"].astype(str))
    previous = dict(zip(order[1:], order, strict=False))
    cohort = ["hardware", "site", "origin", "vintage", "period"]
    named = fleet.assign(vintage=fleet["vintage"].astype(str), period=fleet["period"].astype(str))
    held = _sum(named, cohort, "units")
    out = []
    for row in named.itertuples(index=False):
        h, s, origin, v, period = row.hardware, row.site, row.origin, row.vintage, row.period
        if origin == "purchased" and period == v:
            at_start = 0.0 if v in through else row.units
        else:
            at_start = held.get((h, s, origin, v, previous.get(period)), row.units)
        expected = 0.5 * (at_start + row.units)
        if not _close(row.units_in_service, expected):
            out.append(
                f"{period}: {row.units_in_service:.6g} {h} of {v} in service on average, "
                f"expected {expected:.6g} (held {row.units:.6g}, {at_start:.6g} at its start)"
            )
    start = dict(zip(order, periods["start_year"], strict=True))
    after = dict(pairwise(order))
    for r in t["purchases"].itertuples(index=False):  # each departure row is there
        v = str(r.period)
        if v not in through:
            continue
        last = [p for p in order if (r.hardware, r.site, "purchased", v, p) in held]
        if not last or last[-1] not in after:
            continue
        nxt = after[last[-1]]
        units = held[(r.hardware, r.site, "purchased", v, last[-1])]
        ended = start[nxt] >= start[v] + r.lifetime_years - EPS_YEARS
        if units > 0 and ended and (r.hardware, r.site, "purchased", v, nxt) not in held:
            out.append(f"{nxt}: no departure row for the {units:.6g} {r.hardware} of {v}")
    return out


def _check_capacity(plan: Plan) -> list[str]:
    """Assigned units ≤ availability × owned units (≤ rented units at the rental site)."""
    t = plan.tables
    availability = plan.parameters["availability"]
    owned = _sum(t["fleet"], ["period", "hardware", "site"], "units")
    rented = rented_with_commitments(t["rentals"], plan)  # on demand + committed
    assigned: dict[tuple, float] = defaultdict(float)
    for name in ("assignment_training", "assignment_inference"):
        for key, units in _sum(t[name], ["period", "hardware", "site"], "units").items():
            assigned[key] += units
    out = []

    def available(period: str, h: str, s: str) -> float:
        if s == RENTED:
            return rented.get((period, h), 0.0)
        return availability * owned.get((period, h, s), 0.0)

    for (period, h, s), units in assigned.items():
        limit = available(period, h, s)
        if not _at_most(units, limit):
            out.append(f"{period}: {units:.6g} units of {h} at {s} assigned, {limit:.6g} available")
    for row in t["rentals"].itertuples(index=False):
        if pd.notna(row.max_units) and not _at_most(row.units, row.max_units):
            out.append(
                f"{row.period}: {row.units:.6g} {row.hardware} rented, cap {row.max_units:.6g}"
            )
    return out + check_whole_clusters(t["training"], t["assignment_training"], available)


def _check_limits(plan: Plan) -> list[str]:
    """Power, budget, supply and vendor share, recomputed from fleet and purchases."""
    t = plan.tables
    out = []
    fleet = t["fleet"]
    per_unit = [
        facility_mw_per_unit(kw, pue)
        for kw, pue in zip(fleet["power_kw_per_unit"], fleet["pue"], strict=True)
    ]
    mw = fleet["units"] * pd.Series(per_unit, index=fleet.index, dtype=float)
    used = _sum(fleet.assign(mw=mw), ["period", "site"], "mw")
    for row in t["power"].itertuples(index=False):
        mine = used.get((row.period, row.site), 0.0)
        if not _at_most(mine, row.cap_mw):
            out.append(
                f"{row.period}: {mine:.6g} MW at {row.site} exceeds the cap {row.cap_mw:.6g}"
            )
        if not _close(mine, row.used_mw):
            out.append(
                f"{row.period}: power table says {row.used_mw} MW at {row.site}, fleet {mine}"
            )
    purchases = t["purchases"]
    spend = {(p,): usd for p, usd in capex_paid(purchases).items()}  # by payment period
    builds = t.get("datacenter_builds")
    for row in () if builds is None else builds.itertuples(index=False):
        spend[(row.paid_period,)] = spend.get((row.paid_period,), 0.0) + row.capex_usd
    for row in t["budget"].itertuples(index=False):
        mine = spend.get((row.period,), 0.0)
        if pd.notna(row.budget_usd) and not _at_most(mine, row.budget_usd):
            out.append(f"{row.period}: capex {mine:.6g} exceeds the budget {row.budget_usd:.6g}")
    bought = _sum(purchases, ["period", "hardware"], "units")
    for row in t["supply"].itertuples(index=False):
        mine = bought.get((row.period, row.hardware), 0.0)
        if not _at_most(mine, row.max_units):
            out.append(f"{row.period}: {mine} {row.hardware} bought, supply cap {row.max_units}")
    vendor = plan.parameters["vendor_of_hardware"]
    acc = fleet.assign(vendor=fleet["hardware"].map(vendor))
    total = _sum(acc, ["period"], "accelerators")
    mine_by = _sum(acc, ["period", "vendor"], "accelerators")
    for row in t["vendor_share"].itertuples(index=False):
        mine = mine_by.get((row.period, row.vendor), 0.0)
        limit = row.max_share * total.get((row.period,), 0.0)
        if not _at_most(mine, limit):
            out.append(f"{row.period}: {row.vendor} holds {mine:.6g} accelerators, cap {limit:.6g}")
    return out


def _check_demand(served: pd.DataFrame, inference: pd.DataFrame) -> list[str]:
    """Capacity at peak + unmet ≥ peak demand (and the same for prefill when split); the
    unmet tokens are those the shortfall at peak loses under the linear load-duration
    curve of peak_to_average (:func:`planner.economics.load_shape.lost_charged`)."""
    per_day = inference.assign(
        tpd=inference["units"] * inference["tokens_per_s_per_unit"].map(tokens_per_day)
    )
    output = _sum(per_day[per_day["role"] != "prefill"], ["period", "workload"], "tpd")
    prefill = _sum(per_day[per_day["role"] == "prefill"], ["period", "workload"], "tpd")
    split = bool((inference["role"] != "serve").any())
    out = []
    for row in served.itertuples(index=False):
        key = (row.period, row.workload)
        capacity = output.get(key, 0.0)
        if not _at_most(row.peak_tokens_per_day, capacity + row.unmet_peak_tokens_per_day, MTOK):
            out.append(
                f"{row.period}: {row.workload} peak {row.peak_tokens_per_day:.6g} tokens/day, "
                f"capacity {capacity:.6g} + unmet {row.unmet_peak_tokens_per_day:.6g}"
            )
        q = row.prefill_tokens_per_output_token
        if split and q > 0:
            need = q * (row.peak_tokens_per_day - row.unmet_peak_tokens_per_day)
            if not _at_most(need, prefill.get(key, 0.0), MTOK):
                out.append(f"{row.period}: {row.workload} prefill capacity short of {need:.6g}")
        lost = lost_charged(
            row.unmet_peak_tokens_per_day, row.peak_tokens_per_day, row.peak_to_average
        )
        expected = tokens_over_years(lost, row.length_years)
        if not _close(row.unmet_tokens, expected, MTOK):
            out.append(f"{row.period}: {row.workload} unmet tokens {row.unmet_tokens} ≠ {expected}")
    return out


def _check_all_served(plan: Plan) -> list[str]:
    """A plan whose headline says no service stage was needed (``service_status``
    ``Termination.ALL_SERVED``) leaves no output token and no training FLOP undone (up to
    :data:`REL` of the demand)."""
    if plan.headline.get("service_status") != Termination.ALL_SERVED:
        return []
    served, training = plan.tables["served"], plan.tables["training"]
    tokens, flops = float(served["unmet_tokens"].sum()), float(training["unmet_flops"].sum())
    demanded = float(served["served_tokens"].sum()) + tokens
    out = []
    if tokens > REL * max(demanded, MTOK):
        out.append(f"service_status says all served, but {tokens:.6g} output tokens are unmet")
    if flops > REL * max(float(training["flops_required"].sum()), PFLOP):
        out.append(f"service_status says all served, but {flops:.6g} training FLOP are undone")
    return out


def _check_training(
    training: pd.DataFrame, assignment: pd.DataFrame, relaxed: bool = False
) -> list[str]:
    """Work done inside the window (whole years) + unmet ≥ required; one cluster per run
    (a whole-decision rule: a relaxed plan's runs may split)."""
    out = []
    for row in training.itertuples(index=False):
        mine = assignment[assignment["run"] == row.run]
        outside = mine[(mine["year"] < row.window_start) | (mine["year"] > row.window_end)]
        if len(outside):
            out.append(f"{row.run} works outside its window in {sorted(outside['period'])}")
        if not relaxed and len(mine.groupby(["hardware", "site"])) > 1:
            out.append(
                f"{row.run} is split across {len(mine.groupby(['hardware', 'site']))} clusters"
            )
        flops = float((mine["units"] * mine["flops_per_s_per_unit"] * mine["seconds"]).sum())
        if not _at_most(row.flops_required, flops + row.unmet_flops, PFLOP):
            out.append(
                f"{row.run}: {flops:.6g} FLOP done + {row.unmet_flops:.6g} unmet "
                f"< {row.flops_required:.6g} required"
            )
    return out


def _check_costs(plan: Plan, procurement: dict[tuple[str, str], float]) -> list[str]:
    """Each cost category by period from the tables; their present value is the objective.

    Discounting is recomputed in years: (1 + wacc)^−(start − horizon start) for the
    period's start in fractional years, and the horizon end for the residual value;
    with deliveries through the period, capex at the period's middle and running costs
    on the units in service (their average over the period)."""
    t = plan.tables
    periods = t["periods"].set_index("period")
    last = periods.index[-1]
    end = periods.loc[last, "start_year"] + periods.loc[last, "length_years"]
    start = periods["start_year"].iloc[0]
    wacc = plan.parameters["wacc"]
    factor = period_discount_factors(wacc, periods["start_year"].to_dict(), start)
    factor_end = discount_factor(wacc, end - start)
    length = periods["length_years"].to_dict()
    # Delivered through the period: capex is paid on average at its middle.
    through = plan.ramp_periods
    mid = {
        k: (1.0 + wacc) ** -(0.5 * years) if str(k) in through else 1.0
        for k, years in length.items()
    }
    amounts: dict[tuple[str, str], float] = defaultdict(float)
    convention = plan.parameters.get("horizon_end", "straight_line")
    p = t["purchases"]
    sold = sold_through(plan)
    for period, usd in capex_paid(p).items():
        amounts[(period, "capex")] += usd
    for row in p.itertuples(index=False):
        bought_at = delivered_at(plan, periods, row.period)
        left = residual_share(plan, convention, bought_at, row.lifetime_years, end)
        at_end = row.units - sum(
            u for _, u in sold.get((row.hardware, row.site, str(row.period)), [])
        )
        amounts[(last, "residual")] -= at_end * row.price_usd * left
    for key, usd in resale_amounts(plan).items():
        amounts[key] += usd
    for row in t["rentals"].itertuples(index=False):
        amounts[(row.period, "rent")] += row.units * row.usd_per_unit_year * length[row.period]
    for row in t["fleet"].itertuples(index=False):
        unit_years = row.units_in_service * length[row.period]  # checked by _check_fleet
        amounts[(row.period, "energy")] += unit_years * row.energy_usd_per_unit_year
        amounts[(row.period, "facility")] += unit_years * row.facility_usd_per_unit_year
        amounts[(row.period, "maintenance")] += unit_years * row.maintenance_usd_per_unit_year
    for row in t["served"].itertuples(index=False):
        mtok = row.unmet_tokens / MTOK
        amounts[(row.period, "penalty_unmet_inference")] += mtok * row.penalty_usd_per_mtok
    for row in t["training"].itertuples(index=False):
        pflop = row.unmet_flops / PFLOP
        amounts[(row.penalty_period, "penalty_unmet_training")] += pflop * row.penalty_usd_per_pflop
    categories: tuple[str, ...] = COST_CATEGORIES
    contract = power_contract_amounts(plan)  # planner.results.checker_power_contract
    if contract:
        categories += ("power_contract",)
        for key, usd in contract.items():
            amounts[key] += usd
    if plan.parameters.get("sell_early"):
        categories += ("resale_proceeds",)
    if procurement:  # recomputed by planner.results.checker_procurement
        categories += tuple(sorted({c for _, c in procurement} - set(COST_CATEGORIES)))
        for key, usd in procurement.items():
            amounts[key] += usd
    out = []
    table = {(r.period, r.category): r for r in t["costs"].itertuples(index=False)}
    total_pv = 0.0
    # min_cost (lexicographic) minimises the NPV without the penalty rows.
    in_objective = plan.headline.get("penalties_in_objective", True)
    scale = max(1.0, sum(abs(v) for v in amounts.values()) * 1e-3)
    for period in periods.index:
        for category in categories:
            mine = amounts.get((period, category), 0.0)
            pv = mine * (
                factor_end
                if category == "residual"
                else factor[period] * mid[period]
                if category == "capex"
                else factor[period]
            )
            if in_objective or not category.startswith("penalty"):
                total_pv += pv
            row = table.get((period, category))
            if row is None:
                if mine:
                    out.append(f"costs table lacks {category} in {period} ({mine:.6g} USD)")
                continue
            if not _close(row.usd, mine, scale) or not _close(row.usd_pv, pv, scale):
                out.append(f"{period} {category}: table {row.usd:.6g} USD, recomputed {mine:.6g}")
    objective = plan.headline.get("objective_usd")
    if plan.headline.get("objective") == "max_profit":
        total_pv += objective_lost_revenue_pv(plan)
    if objective is not None and not _close(objective, total_pv, scale):
        out.append(f"objective {objective:.9g} USD ≠ recomputed present value {total_pv:.9g}")
    return out
