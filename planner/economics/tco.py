"""The $/accelerator-hour build-up of one hardware system, by ownership tier.

Per accelerator, per year, then over the 8,760-hour billing year (as
:class:`~planner.economics.unit_cost.UnitCost` quotes it):

* server: ``price / accelerators · CRF(wacc, life)``;
* network, storage: their capex per accelerator (offers catalog) · CRF(wacc, life);
* datacenter share: ``capex per MW of critical IT · IT kW / 1000 · CRF(wacc, facility life)``
  — IT kW per accelerator includes the network's and storage's;
* energy: ``IT kW · PUE · utilisation · 8760 · $/kWh``;
* facility O&M: ``fixed O&M per kW-year · IT kW``;
* maintenance: ``fraction · (server + network + storage capex)``.

Tiers: **owned** at the scenario's WACC; **neocloud-like**, the same build-up at a GPU
cloud's cost of capital (offers catalog ``neocloud_wacc``), before any margin;
**on-demand**, the public list price (the scenario's rental price, else the catalog's).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from planner.catalog import datacenter_defaults, offer_catalog
from planner.catalog.schema import HardwareSpec, OfferSpec
from planner.economics.discounting import capital_recovery_factor
from planner.economics.rates import (
    energy_usd_per_unit_year,
    rental_usd_per_accelerator_hour,
    site_rates,
    unit_price_usd,
)
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.units import HOURS_PER_YEAR, KW_PER_MW

COMPONENTS = (
    "server",
    "network",
    "storage",
    "datacenter",
    "energy",
    "facility_om",
    "maintenance",
)
"""The build-up's lines, in the order they are printed."""


@dataclass(frozen=True)
class DatacenterCost:
    """What a MW of critical IT costs to build and run."""

    capex_usd_per_mw_it: float
    facility_life_years: float
    fixed_om_usd_per_kw_year: float


@dataclass(frozen=True)
class TcoBuildUp:
    """USD per accelerator-hour of each component and each tier (module docstring)."""

    hardware: str
    accelerators: int
    it_kw_per_accelerator: float
    wacc: float
    neocloud_wacc: float
    server: float
    network: float
    storage: float
    datacenter: float
    energy: float
    facility_om: float
    maintenance: float
    owned: float
    neocloud: float
    on_demand: float
    """Public on-demand list price; ``nan`` when none is known."""
    purchasable: bool
    price_usd: float
    """Price of one unit, USD (the inputs of the build-up follow)."""
    network_usd_per_accelerator: float
    storage_usd_per_accelerator: float
    network_storage_kw_per_accelerator: float
    datacenter_usd_per_mw_it: float
    facility_life_years: float
    fixed_om_usd_per_kw_year: float

    def as_dict(self) -> dict[str, float | str | int | bool]:
        return asdict(self)

    @property
    def site_usd_per_mw_year(self) -> float:
        """Owned cost of a site full of this hardware, USD per MW of critical IT per year."""
        return self.owned * HOURS_PER_YEAR * KW_PER_MW / self.it_kw_per_accelerator


def build_up(
    spec: HardwareSpec,
    offer: OfferSpec,
    dc: DatacenterCost,
    *,
    price_usd: float,
    wacc: float,
    neocloud_wacc: float,
    pue: float,
    electricity_usd_per_kwh: float,
    utilisation: float,
    maintenance_fraction: float,
    on_demand_usd_per_accelerator_hour: float,
) -> TcoBuildUp:
    """The build-up of one accelerator of ``spec`` (formulas in the module docstring)."""
    n = spec.accelerators
    kw = spec.power_kw / n + offer.network_storage_kw_per_accelerator
    capex = {
        "server": price_usd / n,
        "network": offer.network_usd_per_accelerator,
        "storage": offer.storage_usd_per_accelerator,
    }
    dc_capex = dc.capex_usd_per_mw_it * kw / KW_PER_MW

    def capital(rate: float) -> dict[str, float]:
        crf = capital_recovery_factor(rate, spec.lifetime_years)
        out = {k: v * crf for k, v in capex.items()}
        out["datacenter"] = dc_capex * capital_recovery_factor(rate, dc.facility_life_years)
        return out

    running = {
        "energy": energy_usd_per_unit_year(kw, pue, utilisation, electricity_usd_per_kwh),
        "facility_om": dc.fixed_om_usd_per_kw_year * kw,
        "maintenance": maintenance_fraction * sum(capex.values()),
    }
    owned = {**capital(wacc), **running}
    neocloud = {**capital(neocloud_wacc), **running}
    per_hour = {k: v / HOURS_PER_YEAR for k, v in owned.items()}
    return TcoBuildUp(
        hardware=spec.id,
        accelerators=n,
        it_kw_per_accelerator=kw,
        wacc=wacc,
        neocloud_wacc=neocloud_wacc,
        owned=sum(owned.values()) / HOURS_PER_YEAR,
        neocloud=sum(neocloud.values()) / HOURS_PER_YEAR,
        on_demand=on_demand_usd_per_accelerator_hour,
        purchasable=offer.purchasable,
        price_usd=price_usd,
        network_usd_per_accelerator=offer.network_usd_per_accelerator,
        storage_usd_per_accelerator=offer.storage_usd_per_accelerator,
        network_storage_kw_per_accelerator=offer.network_storage_kw_per_accelerator,
        datacenter_usd_per_mw_it=dc.capex_usd_per_mw_it,
        facility_life_years=dc.facility_life_years,
        fixed_om_usd_per_kw_year=dc.fixed_om_usd_per_kw_year,
        **per_hour,
    )


def tco_for_scenario(
    scenario: Scenario, hardware_id: str, site_name: str | None = None
) -> TcoBuildUp:
    """The build-up of ``hardware_id`` with the scenario's finance, at ``site_name`` (its
    electricity, PUE and ``build`` costs; default the first site), in the first year."""
    specs = hardware_specs(scenario)
    spec = specs[hardware_id]
    offer = offer_catalog().get(hardware_id)
    if offer is None:
        offer = OfferSpec(
            hardware=hardware_id, source="not in the offers catalog", as_of=spec.as_of
        )
    site = next((s for s in scenario.sites if s.name == site_name), scenario.sites[0])
    year = float(scenario.horizon.start)
    rates = site_rates(scenario, site, year)
    defaults = datacenter_defaults()
    build = site.build
    dc = DatacenterCost(
        capex_usd_per_mw_it=build.capex_usd_per_mw_it if build else defaults.capex_usd_per_mw_it,
        facility_life_years=build.facility_life_years if build else defaults.facility_life_years,
        fixed_om_usd_per_kw_year=(
            build.fixed_om_usd_per_kw_year if build else defaults.fixed_om_usd_per_kw_year
        ),
    )
    on_demand = rental_usd_per_accelerator_hour(scenario, hardware_id, year)
    if math.isnan(on_demand) and offer.on_demand_usd_per_accelerator_hour is not None:
        on_demand = offer.on_demand_usd_per_accelerator_hour
    choice = next(c for c in scenario.hardware if c.id == hardware_id)
    finance = scenario.finance
    return build_up(
        spec,
        offer,
        dc,
        price_usd=unit_price_usd(choice, spec, year, specs),
        wacc=finance.wacc,
        neocloud_wacc=defaults.neocloud_wacc,
        pue=rates.pue,
        electricity_usd_per_kwh=rates.electricity_usd_per_kwh,
        utilisation=finance.utilisation,
        maintenance_fraction=finance.maintenance_fraction_of_capex_per_year,
        on_demand_usd_per_accelerator_hour=on_demand,
    )
