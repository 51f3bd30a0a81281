"""Yearly cost of one unit, and the $/Mtok and $/accelerator-hour it implies.

Built from the same rate functions (:mod:`planner.economics.rates`) the optimiser's
model data uses, so ``planner throughput`` quotes what the optimiser charges; capital
is charged here as an annuity (:data:`~planner.economics.discounting.ANNUITY_CAPITAL`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.catalog.schema import HardwareSpec
from planner.economics.addons import network_storage_usd_per_unit, with_network_storage_power
from planner.economics.discounting import capital_recovery_factor
from planner.economics.rates import (
    energy_usd_per_unit_year,
    facility_usd_per_unit_year,
    maintenance_usd_per_unit_year,
    rent_usd_per_unit_year,
    rental_usd_per_accelerator_hour,
    site_rates,
    unit_price_usd,
)
from planner.errors import InputError, Problem
from planner.scenario.procurement import rent_only
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.units import HOURS_PER_YEAR, MTOK, SECONDS_PER_HOUR

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class UnitCost:
    """Yearly cost of owning and running one unit, USD per year."""

    capital_recovery_usd_per_year: float
    facility_usd_per_year: float
    energy_usd_per_year: float
    maintenance_usd_per_year: float
    total_usd_per_year: float
    accelerators: int
    """Accelerators in the unit."""
    price_usd: float
    """The unit's price, USD (what capital recovery and maintenance are charged on)."""

    @property
    def usd_per_accelerator_hour(self) -> float:
        """``total / (accelerators · 8760)``."""
        return self.total_usd_per_year / (self.accelerators * HOURS_PER_YEAR)


def unit_cost(
    hw: HardwareSpec,
    *,
    price_usd: float,
    wacc: float,
    pue: float,
    electricity_usd_per_kwh: float,
    facility_usd_per_kw_year: float,
    maintenance_fraction: float,
    utilisation: float,
    lifetime_years: float | None = None,
) -> UnitCost:
    """Yearly cost of one unit of ``hw``.

    * capital recovery ``price · CRF(wacc, life)`` (life: ``lifetime_years`` or the catalog's);
    * facility ``power_kw · facility_usd_per_kw_year`` (per kW of IT load);
    * energy ``power_kw · PUE · utilisation · 8760 h · electricity price``;
    * maintenance ``maintenance_fraction · price``.
    """
    life = lifetime_years if lifetime_years is not None else hw.lifetime_years
    capital = price_usd * capital_recovery_factor(wacc, life)
    facility = facility_usd_per_unit_year(hw.power_kw, facility_usd_per_kw_year)
    energy = energy_usd_per_unit_year(hw.power_kw, pue, utilisation, electricity_usd_per_kwh)
    maintenance = maintenance_usd_per_unit_year(price_usd, maintenance_fraction)
    return UnitCost(
        capital_recovery_usd_per_year=capital,
        facility_usd_per_year=facility,
        energy_usd_per_year=energy,
        maintenance_usd_per_year=maintenance,
        total_usd_per_year=capital + facility + energy + maintenance,
        accelerators=hw.accelerators,
        price_usd=price_usd,
    )


def _unknown(kind: str, name: str, known: list[str], path: str) -> InputError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(known)}"
    return InputError(
        None,
        Problem(path=path, message=f"unknown {kind} {name!r}", found=name, hint=hint),
    )


def unit_cost_for_scenario(
    scenario: Scenario,
    hardware_id: str,
    year: float,
    site_name: str | None = None,
    *,
    specs: Mapping[str, HardwareSpec] | None = None,
) -> UnitCost:
    """:func:`unit_cost` of ``hardware_id`` bought in ``year``, with the scenario's inputs.

    Price: :func:`~planner.economics.rates.unit_price_usd`. Electricity, PUE and
    facility cost: :func:`~planner.economics.rates.site_rates` of ``site_name``, or of
    ``finance`` when it is not given. Unknown ids raise :class:`InputError`. ``specs``:
    the scenario's :func:`hardware_specs`, when the caller has them (pricing every type
    resolves them once, not once per type).
    """
    specs = hardware_specs(scenario) if specs is None else specs
    if hardware_id not in specs:
        raise _unknown("hardware", hardware_id, sorted(specs), "hardware")
    (hw,) = with_network_storage_power(scenario, {hardware_id: specs[hardware_id]}).values()
    choice = next(h for h in scenario.hardware if h.id == hardware_id)
    site = None
    if site_name is not None:
        sites = {s.name: s for s in scenario.sites}
        if site_name not in sites:
            raise _unknown("site", site_name, sorted(sites), "sites")
        site = sites[site_name]
    rates = site_rates(scenario, site, year)
    finance = scenario.finance
    return unit_cost(
        hw,
        price_usd=unit_price_usd(choice, hw, year, specs)
        + network_storage_usd_per_unit(scenario, hw),
        wacc=finance.wacc,
        pue=rates.pue,
        electricity_usd_per_kwh=rates.electricity_usd_per_kwh,
        facility_usd_per_kw_year=rates.facility_usd_per_kw_year,
        maintenance_fraction=finance.maintenance_fraction_of_capex_per_year,
        utilisation=finance.utilisation,
    )


def usd_per_mtok(
    unit_cost_usd_per_year: float, tokens_per_s_per_unit: float, load_factor: float = 1.0
) -> float:
    """USD per million tokens from one unit: ``cost / (tokens/s · 3600 · 8760 · load) · 1e6``.

    ``load_factor`` is the average share of the unit's throughput actually sold.
    """
    tokens_per_year = tokens_per_s_per_unit * SECONDS_PER_HOUR * HOURS_PER_YEAR * load_factor
    return unit_cost_usd_per_year / tokens_per_year * MTOK


def rent_only_rates(
    scenario: Scenario, year: float, specs: Mapping[str, HardwareSpec]
) -> dict[str, tuple[float, float]]:
    """Rent-only systems with a rental offer → (on-demand $/accelerator-hour, rent per
    unit-year): what the optimiser charges for them, since it cannot buy them."""
    out = {}
    for choice in scenario.hardware:
        if not rent_only(choice.max_units_per_year):
            continue
        hourly = rental_usd_per_accelerator_hour(scenario, choice.id, year)
        if not math.isnan(hourly):
            out[choice.id] = (hourly, rent_usd_per_unit_year(hourly, specs[choice.id].accelerators))
    return out


def price_inference_table(scenario: Scenario, inference: pd.DataFrame, year: int) -> pd.DataFrame:
    """``inference`` (the perf model's table) plus unit economics in ``year``.

    ``usd_per_accelerator_hour``: the unit's yearly cost per accelerator-hour (for a
    rent-only system, e.g. cloud-only, its on-demand rental price: what renting costs);
    ``usd_per_mtok_output``: that yearly cost over the output tokens the unit serves in a
    year at full load (colocated, prefill included); ``usd_per_mtok_all_tokens`` spreads
    the same cost over input and output tokens (``÷ (1 + input per output)``). Empty
    (NA) for pairs that cannot be served. Capital: an annuity (``ANNUITY_CAPITAL``).
    """
    import pandas as pd

    from planner.perf.workloads import serving_workloads

    ratio = {w.name: w.input_tokens_per_output_token for w in serving_workloads(scenario)}
    specs = hardware_specs(scenario)
    costs = {
        h.id: unit_cost_for_scenario(scenario, h.id, year, specs=specs) for h in scenario.hardware
    }
    rented = rent_only_rates(scenario, year, specs)
    per_hour: list[float] = []
    output: list[float | None] = []
    blended: list[float | None] = []
    for row in inference.itertuples(index=False):
        cost = costs[row.hardware]
        hourly, yearly = rented.get(
            row.hardware, (cost.usd_per_accelerator_hour, cost.total_usd_per_year)
        )
        per_hour.append(hourly)
        if row.servable and row.output_tokens_per_s_per_unit > 0:
            usd = usd_per_mtok(yearly, row.output_tokens_per_s_per_unit)
            output.append(usd)
            blended.append(usd / (1.0 + ratio[row.workload]))
        else:
            output.append(None)
            blended.append(None)
    return inference.assign(
        usd_per_accelerator_hour=per_hour,
        usd_per_mtok_output=pd.array(output, dtype="Float64"),
        usd_per_mtok_all_tokens=pd.array(blended, dtype="Float64"),
    )
