"""Assemble a Plan from a solved model's plain-data solution."""

from __future__ import annotations

from typing import Any

import pandas as pd

from planner.economics.load_shape import BASIS as LOAD_SHAPE_BASIS
from planner.optimize.data import ModelData
from planner.optimize.extract import Solution
from planner.results.costs import RESALE, costs_by_year, costs_table, usd_per_mtok_table
from planner.results.diagnosis import diagnose
from planner.results.fleet import (
    capex_prices_held,
    fleet_table,
    periods_table,
    purchases_table,
    rentals_table,
)
from planner.results.horizon_end import horizon_end_figures
from planner.results.investment import investment_figures, investment_tables
from planner.results.limits import limits_tables
from planner.results.plan import Plan
from planner.results.procurement import (
    procurement_amounts,
    procurement_tables,
    with_built_capacity,
)
from planner.results.relief_text import empty_relief_tables
from planner.results.rented import rented_usd_per_unit_year
from planner.results.revenue import revenue_table
from planner.results.sales import sales_table
from planner.results.shadow import (
    SHADOW_COLUMNS,
    penalty_labelled,
    shadow_price_table,
    unmet_periods,
)
from planner.results.work import (
    assignment_tables,
    inference_by_place,
    served_table,
    training_table,
    utilisation_table,
)


def build_plan(
    d: ModelData,
    sol: Solution,
    *,
    status: str,
    headline: dict[str, Any],
    duals: dict[str, dict[Any, float]] | None = None,
    marginals: pd.DataFrame | None = None,
    throughput: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> Plan:
    """Assemble the plan's tables, headline figures and diagnosis.

    ``throughput``: the perf model's (inference, training) tables ``d`` was built from;
    the Plan carries them so that exports never rerun the perf model.
    """
    purchases = purchases_table(d, sol)
    fleet = fleet_table(d, sol)
    rentals = rentals_table(d, sol)
    split = inference_by_place(d, sol)
    train, inf = assignment_tables(d, sol, split)
    served = served_table(d, sol, inf)
    training = training_table(d, sol, train)
    procurement = procurement_tables(d, sol)
    builds = procurement.get("datacenter_builds")
    dc_paid = {} if builds is None else builds.groupby("paid_period")["capex_usd"].sum().to_dict()
    limits = limits_tables(d, purchases, fleet, duals, dc_paid)
    limits["power"] = with_built_capacity(
        limits["power"], procurement.get("datacenter_capacity"), (duals or {}).get("power", {})
    )
    extra = procurement_amounts(procurement)
    sales = sales_table(d, sol)  # empty unless finance.sell_early
    credited = sales if d.sell_early else None
    costs = costs_table(d, purchases, fleet, rentals, served, training, extra, credited)
    commitments = procurement.get("commitments")
    length = {str(p.label): p.length_years for p in d.periods}
    rented_rates = rented_usd_per_unit_year(rentals, commitments, train, inf, length)
    unmet = unmet_periods(d, sol)
    shadow = shadow_price_table(d, duals, unmet)
    if marginals is not None and len(marginals):
        marginals = penalty_labelled(marginals, unmet)
        shadow = pd.concat([shadow, marginals[SHADOW_COLUMNS]], ignore_index=True)
    tables = {
        "periods": periods_table(d),
        "purchases": purchases,
        "fleet": fleet,
        "rentals": rentals,
        "sales": sales,
        "assignment_training": train,
        "assignment_inference": inf,
        "utilisation": utilisation_table(d, fleet, rentals, train, inf, commitments),
        "served": served,
        "training": training,
        **limits,
        **procurement,
        "costs": costs,
        "costs_by_year": costs_by_year(costs),
        "usd_per_mtok": usd_per_mtok_table(d, split, fleet, served, rented_rates),
        "shadow_prices": shadow,
        "revenue": revenue_table(d, served, training),
        **empty_relief_tables(),  # planner.relief fills them (planner.pipeline)
    }
    tables.update(investment_tables(tables))
    if marginals is not None and len(marginals):
        tables["marginals"] = marginals
    penalty = costs["category"].str.startswith("penalty")
    residual = costs["category"] == "residual"
    resale = costs["category"] == RESALE
    figures: dict[str, Any] = {
        "npv_cost_usd": float(costs.loc[~penalty, "usd_pv"].sum()),
        "penalties_usd_pv": float(costs.loc[penalty, "usd_pv"].sum()),
        # Net of the residual credit (kept for its meaning); the gross and the credit
        # are reported on their own.
        "undiscounted_cost_usd": float(costs.loc[~penalty, "usd"].sum()),
        "undiscounted_gross_cost_usd": float(
            costs.loc[~penalty & ~residual & ~resale, "usd"].sum()
        ),
        "residual_credit_usd": -float(costs.loc[residual, "usd"].sum()),
        "capex_usd": float(purchases["capex_usd"].sum()),
        "capex_usd_prices_held": capex_prices_held(d, sol),
        "price_convention": d.price_convention,
        "unmet_inference_tokens": float(served["unmet_tokens"].sum()),
        "unmet_tokens_basis": LOAD_SHAPE_BASIS,
        "unmet_training_flops": float(training["unmet_flops"].sum()),
        "service_measure": d.service_measure,
    }
    if d.sell_early:
        figures["resale_proceeds_usd"] = -float(costs.loc[resale, "usd"].sum())
        figures["units_sold"] = float(sales["units"].sum())
    if d.dc_build_index:  # capex above is the fleet's; the datacenter's is its own figure
        figures["datacenter_capex_usd"] = float(procurement["datacenter_builds"]["capex_usd"].sum())
    figures.update(investment_figures(tables, figures["npv_cost_usd"]))
    figures.update(horizon_end_figures(d, purchases, figures["npv_cost_usd"]))
    parameters = {
        "periods_per_year": d.periods_per_year,
        "availability": d.availability,
        "relax": d.relax,
        "serving": d.serving,
        "wacc": d.wacc,
        "discount_factor_end": d.discount_factor_end,
        "deliveries_through_period": d.deliveries_through_period,
        # the periods whose purchases arrive through them (the rest: at their start)
        "ramp_periods": [str(p.label) for p in d.periods if p.label in d.ramp_periods],
        "horizon_end": d.horizon_end_convention,
        "resale_curve": [list(point) for point in d.resale_curve],
        "sell_early": d.sell_early,
        # [hardware, site, installed, units, catalog price, lifetime]: the checker's
        # base for existing units sold early.
        "existing_fleet": [
            [h, s, i, u, d.existing_price_usd[(h, s, i)], d.lifetime_years[h]]
            for (h, s, i), u in d.existing_units.items()
        ],
        "service_measure": d.service_measure,
        "penalty_usd_per_mtok": d.penalty_usd_per_mtok,
        "penalty_usd_per_pflop": d.penalty_usd_per_pflop,
        "vendor_of_hardware": dict(d.vendor),
        "accelerators_per_unit": dict(d.accelerators),
        "capex_payment": d.capex_payment,
        "lead_time_months": dict(d.lead_time_months),
        "available_from_year": dict(d.available_from_year),
        "end_of_sale": dict(d.end_of_sale),
        "first_year_max_units": dict(d.first_year_max_units),
    }
    if d.contract_usd_per_kw_year:
        # [site, period, USD per kW of cap per year] of each contracted site: the
        # checker's base for the power_contract cost line (with the power table's cap).
        parameters["power_contract"] = [
            [s, str(t), usd] for (s, t), usd in d.contract_usd_per_kw_year.items()
        ]
    inference_throughput, training_throughput = throughput or (pd.DataFrame(), pd.DataFrame())
    return Plan(
        scenario=d.scenario_name,
        status=status,
        headline={**headline, **figures},
        tables=tables,
        diagnosis=diagnose(d, tables, status, headline),
        parameters=parameters,
        inference_throughput=inference_throughput,
        training_throughput=training_throughput,
    )
