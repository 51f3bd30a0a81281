"""Plan tables of money: costs by category and period, by year, and realised $/Mtok."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

import pandas as pd

from planner.economics import (
    ANNUITY_CAPITAL,
    CASH_CAPITAL,
    capital_recovery_factor,
)
from planner.optimize.data import ModelData
from planner.results.fleet import capex_by_payment_period
from planner.results.procurement import PROCUREMENT_CATEGORIES
from planner.results.rented import RENTED_CONVENTION
from planner.results.tables import WHEN, frame
from planner.units import (
    MTOK,
    RENTED,
)

COST_CATEGORIES = (
    "capex",
    "rent",
    "energy",
    "facility",
    "maintenance",
    "residual",
    "penalty_unmet_inference",
    "penalty_unmet_training",
)

RESALE = "resale_proceeds"
"""The cost line of early sales' proceeds (a credit), present when ``finance.sell_early``."""
POWER_CONTRACT = "power_contract"
"""The cost line of take-or-pay power (``power_cost: contracted``): cap · rate each
period, used or not; present when a site contracts its power."""


def costs_table(
    d: ModelData,
    purchases: pd.DataFrame,
    fleet: pd.DataFrame,
    rentals: pd.DataFrame,
    served: pd.DataFrame,
    training: pd.DataFrame,
    procurement: Mapping[tuple[str, str], float] | None = None,
    sales: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Cash cost by period and category, undiscounted and present value.

    Residual value is a negative cost booked in the last period with the horizon-end
    discount factor; capex is discounted at the period's middle when purchases arrive
    through the period (``ModelData.paid_factor``), at its start otherwise; training
    penalties are booked in the run's last window period.
    ``procurement``: amounts by (period, category) of
    :func:`planner.results.procurement.procurement_amounts`; when given, its categories
    follow the fleet's (``residual`` with period ``""`` joins the last period's).
    ``sales``: the early-sales table (:mod:`planner.results.sales`) when the scenario
    sells early; its proceeds are the negative ``resale_proceeds`` line in the period of
    each sale, discounted from its start (after the fleet's categories).
    Contracted sites' power (``d.contract_usd_per_year``) is the ``power_contract``
    line, after the fleet's categories, each period's at its start.
    """
    amounts: dict[tuple[str, str], float] = defaultdict(float)
    for t, usd in capex_by_payment_period(purchases).items():
        amounts[(str(t), "capex")] += usd
    for t, usd in rentals.groupby("period")["cost_usd"].sum().items():
        amounts[(str(t), "rent")] += float(usd)
    for category in ("energy", "facility", "maintenance"):
        for t, usd in fleet.groupby("period")[f"{category}_usd"].sum().items():
            amounts[(str(t), category)] += float(usd)
    for t, usd in served.groupby("period")["penalty_usd"].sum().items():
        amounts[(str(t), "penalty_unmet_inference")] += float(usd)
    for t, usd in training.groupby("penalty_period")["penalty_usd"].sum().items():
        amounts[(str(t), "penalty_unmet_training")] += float(usd)
    last = d.periods[-1].name
    amounts[(last, "residual")] -= float(purchases["residual_usd"].sum())
    categories: tuple[str, ...] = COST_CATEGORIES
    if d.contract_usd_per_year:
        categories = (*categories, POWER_CONTRACT)
        for (_, t), per_year in d.contract_usd_per_year.items():
            amounts[(str(t), POWER_CONTRACT)] += per_year * d.period_length[t]
    if sales is not None:
        categories = (*categories, RESALE)
        for t, usd in sales.groupby("period")["proceeds_usd"].sum().items():
            amounts[(str(t), RESALE)] -= float(usd)
    if procurement:
        categories = (*categories, *PROCUREMENT_CATEGORIES)
        for (t, category), usd in procurement.items():
            amounts[(t or last, category)] += usd
    rows = []
    for p in d.periods:
        for category in categories:
            usd = amounts.get((p.name, category), 0.0)
            factor = (
                d.discount_factor_end
                if category == "residual"
                else d.paid_factor(p.label)
                if category == "capex"
                else d.discount_factor[p.label]
            )
            rows.append(
                {
                    "period": p.name,
                    "year": p.year,
                    "category": category,
                    "usd": usd,
                    "discount_factor": factor,
                    "usd_pv": usd * factor,
                }
            )
    out = frame(rows, [*WHEN, "category", "usd", "discount_factor", "usd_pv"])
    out.attrs["capital_convention"] = CASH_CAPITAL
    return out


def costs_by_year(costs: pd.DataFrame) -> pd.DataFrame:
    """The costs table rolled up to years: ``usd`` and ``usd_pv`` summed over each
    year's periods (the discount factor differs by period, so it is not repeated)."""
    out = costs.groupby(["year", "category"], as_index=False, sort=False)[["usd", "usd_pv"]].sum()
    return out.sort_values("year", kind="stable", ignore_index=True)


def usd_per_mtok_table(
    d: ModelData,
    inference_split: dict[tuple, float],
    fleet: pd.DataFrame,
    served: pd.DataFrame,
    rented_usd_per_unit_year: Mapping[tuple[str, str], float] | None = None,
) -> pd.DataFrame:
    """Realised cost per Mtok served, per workload and period.

    Each owned unit assigned to a workload (divided by availability, to carry its share
    of spares) is charged its annualised cost: capital recovery of its vintage's price
    (wacc, lifetime) plus energy, facility and maintenance. Rented units are charged as
    paid (:data:`planner.results.rented.RENTED_CONVENTION`):
    ``rented_usd_per_unit_year`` by (hardware, period) from
    :func:`planner.results.rented.rented_usd_per_unit_year` — on-demand rent and
    commitments at their own rates; without it (a plan with no commitments), the
    on-demand rate. Divided by the Mtok actually served in the period;
    ``rented_cost_usd`` is the part of ``cost_usd`` paid for rented units.

    Capital convention: **capital recovery (annuity, wacc, life)**, ``price · CRF``
    each year, as :func:`planner.economics.unit_cost` and ``planner throughput``
    charge it — the $/Mtok an operator would quote. The objective and the costs table
    instead book cash capex at purchase less a straight-line residual value at the
    horizon end (``planner.economics.CASH_CAPITAL``); over a whole life both recover
    the price, but period by period they differ. The table's
    ``attrs["capital_convention"]`` names the convention (``ANNUITY_CAPITAL``).
    """
    fleet = fleet.assign(
        annual=fleet["units"]
        * (
            fleet["energy_usd_per_unit_year"]
            + fleet["facility_usd_per_unit_year"]
            + fleet["maintenance_usd_per_unit_year"]
        )
    )
    capital = []
    # Cohorts by their vintage as the fleet table shows it (an install year, or the
    # delivery period of units on order).
    cohort_price = {(h, s, str(i)): usd for (h, s, i), usd in d.existing_price_usd.items()}
    for row in fleet.itertuples(index=False):
        price = (
            d.price_usd[(row.hardware, row.vintage)]
            if row.origin == "purchased"
            else cohort_price[(row.hardware, row.site, str(row.vintage))]
        )
        crf = capital_recovery_factor(d.wacc, d.lifetime_years[row.hardware])
        capital.append(row.units * price * crf)
    fleet = fleet.assign(
        annual=fleet["annual"] + pd.Series(capital, index=fleet.index, dtype=float)
    )
    grouped = fleet.groupby(["hardware", "site", "period"])[["annual", "units"]].sum()
    per_unit = (grouped["annual"] / grouped["units"]).to_dict()
    cost: dict[tuple[str, str], float] = defaultdict(float)
    rented_cost: dict[tuple[str, str], float] = defaultdict(float)
    for (w, _, h, s, t), units in inference_split.items():
        if s == RENTED:
            rate = (
                rented_usd_per_unit_year[(h, str(t))]
                if rented_usd_per_unit_year is not None
                else d.rent_usd_per_unit_year[(h, t)]
            )
            cost[(w, str(t))] += units * rate * d.period_length[t]
            rented_cost[(w, str(t))] += units * rate * d.period_length[t]
        else:
            rate = per_unit.get((h, s, str(t)), 0.0)
            cost[(w, str(t))] += units / d.availability * rate * d.period_length[t]
    rows = []
    for row in served.itertuples(index=False):
        mtok = row.served_tokens / MTOK
        usd = cost.get((row.workload, row.period), 0.0)
        rows.append(
            {
                "period": row.period,
                "year": row.year,
                "workload": row.workload,
                "served_mtok": mtok,
                "cost_usd": usd,
                "rented_cost_usd": rented_cost.get((row.workload, row.period), 0.0),
                "usd_per_mtok": usd / mtok if mtok > 0 else float("nan"),
            }
        )
    columns = [*WHEN, "workload", "served_mtok", "cost_usd", "rented_cost_usd", "usd_per_mtok"]
    out = frame(rows, columns)
    out.attrs["capital_convention"] = ANNUITY_CAPITAL
    out.attrs["rented_convention"] = RENTED_CONVENTION
    return out
