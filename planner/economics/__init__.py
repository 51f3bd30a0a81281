"""Unit economics, the one home of cost math (docs/concepts/economics.md).

Pure functions in USD, years and hours. A *unit* is what is bought (a server or rack
holding ``accelerators`` chips). The optimiser's model data, its objective, the Plan's
tables, the checker and the unit-cost quotes all call these functions; the workbook's
formulas are the one deliberate second copy.

* :mod:`~planner.economics.discounting`: discount factors, capital recovery, residual value;
* :mod:`~planner.economics.rates`: energy, facility, maintenance and rent per unit-year,
  facility MW per unit, tokens per day, and the scenario inputs they read;
* :mod:`~planner.economics.unit_cost`: yearly unit cost, $/accelerator-hour, $/Mtok;
* :mod:`~planner.economics.bills`: API bills and the training/inference crossover.
"""

from __future__ import annotations

from planner.economics.bills import (
    BlendedPrice,
    Crossover,
    blended_usd_per_mtok,
    crossover,
    daily_bill_usd,
    inference_flops_per_token,
    training_flops_from_hours,
    yearly_bill_usd,
    yearly_query_bill_usd,
)
from planner.economics.discounting import (
    ANNUITY_CAPITAL,
    CASH_CAPITAL,
    capital_recovery_factor,
    discount_factor,
    in_year_factor,
    npv,
    period_discount_factors,
    residual_fraction,
)
from planner.economics.rates import (
    SiteRates,
    contract_usd_per_kw_year,
    energy_usd_per_unit_year,
    facility_mw_per_unit,
    facility_usd_per_unit_year,
    maintenance_usd_per_unit_year,
    power_contract_usd_per_year,
    price_convention,
    rent_usd_per_unit_year,
    rental_usd_per_accelerator_hour,
    site_pue,
    site_rates,
    tokens_over_years,
    tokens_per_day,
    unit_price_usd,
)
from planner.economics.unit_cost import (
    UnitCost,
    price_inference_table,
    rent_only_rates,
    unit_cost,
    unit_cost_for_scenario,
    usd_per_mtok,
)

__all__ = [
    "ANNUITY_CAPITAL",
    "CASH_CAPITAL",
    "BlendedPrice",
    "Crossover",
    "SiteRates",
    "UnitCost",
    "blended_usd_per_mtok",
    "capital_recovery_factor",
    "contract_usd_per_kw_year",
    "crossover",
    "daily_bill_usd",
    "discount_factor",
    "energy_usd_per_unit_year",
    "facility_mw_per_unit",
    "facility_usd_per_unit_year",
    "in_year_factor",
    "inference_flops_per_token",
    "maintenance_usd_per_unit_year",
    "npv",
    "period_discount_factors",
    "power_contract_usd_per_year",
    "price_convention",
    "price_inference_table",
    "rent_only_rates",
    "rent_usd_per_unit_year",
    "rental_usd_per_accelerator_hour",
    "residual_fraction",
    "site_pue",
    "site_rates",
    "tokens_over_years",
    "tokens_per_day",
    "training_flops_from_hours",
    "unit_cost",
    "unit_cost_for_scenario",
    "unit_price_usd",
    "usd_per_mtok",
    "yearly_bill_usd",
    "yearly_query_bill_usd",
]
