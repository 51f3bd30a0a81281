"""What one unit costs per year to run, and the inputs those rates are read from.

One function per rate, each called by the optimiser's model data, the Plan's tables,
the checker and the unit-cost quotes (``planner throughput``), so they cannot drift.
Energy and rent use the 8,760-hour billing year (:data:`planner.units.HOURS_PER_YEAR`).
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.catalog.schema import HardwareSpec
from planner.scenario.schema import HardwareChoice, Scenario, Site
from planner.scenario.series import value_at
from planner.units import DAYS_PER_YEAR, HOURS_PER_YEAR, KW_PER_MW, SECONDS_PER_DAY


def energy_usd_per_unit_year(
    power_kw: float, pue: float, utilisation: float, electricity_usd_per_kwh: float
) -> float:
    """Electricity of one unit for a year: ``kW · PUE · utilisation · 8760 h · $/kWh``."""
    return power_kw * pue * utilisation * HOURS_PER_YEAR * electricity_usd_per_kwh


def facility_usd_per_unit_year(power_kw: float, facility_usd_per_kw_year: float) -> float:
    """Data-centre space and power of one unit for a year: ``kW (IT) · $/kW-year``."""
    return power_kw * facility_usd_per_kw_year


def maintenance_usd_per_unit_year(price_usd: float, maintenance_fraction: float) -> float:
    """Maintenance of one unit for a year: ``fraction · price`` (the price it was bought at)."""
    return maintenance_fraction * price_usd


def rent_usd_per_unit_year(usd_per_accelerator_hour: float, accelerators: int) -> float:
    """Renting one unit for a year: ``$/accelerator-hour · 8760 h · accelerators``."""
    return usd_per_accelerator_hour * HOURS_PER_YEAR * accelerators


def facility_mw_per_unit(power_kw: float, pue: float) -> float:
    """Facility power one unit draws, MW: ``kW (IT) · PUE / 1000``."""
    return power_kw * pue / KW_PER_MW


def tokens_per_day(tokens_per_s: float) -> float:
    """Tokens a day at ``tokens_per_s``: ``· 86,400``."""
    return tokens_per_s * SECONDS_PER_DAY


def tokens_over_years(tokens_per_day: float, years: float) -> float:
    """Tokens over ``years`` at ``tokens_per_day``: ``· 365.25 days · years`` (calendar year)."""
    return tokens_per_day * DAYS_PER_YEAR * years


@dataclass(frozen=True)
class SiteRates:
    """The site inputs of a unit's running cost at one time."""

    pue: float
    electricity_usd_per_kwh: float
    facility_usd_per_kw_year: float


def site_pue(scenario: Scenario, site: Site | None) -> float:
    """The site's PUE, else ``finance.pue``."""
    return (site.pue if site is not None else None) or scenario.finance.pue


def site_rates(scenario: Scenario, site: Site | None, when: float) -> SiteRates:
    """PUE, electricity and facility price at ``site`` (``None``: ``finance``'s) at
    ``when`` (fractional years; series read geometrically, as rates are)."""
    finance = scenario.finance
    electricity = finance.electricity_usd_per_kwh
    facility = finance.facility_usd_per_kw_year
    if site is not None:
        electricity = site.electricity_usd_per_kwh or electricity
        if site.facility_usd_per_kw_year is not None:
            facility = site.facility_usd_per_kw_year
    return SiteRates(
        pue=site_pue(scenario, site),
        electricity_usd_per_kwh=value_at(electricity, when, "geometric"),
        facility_usd_per_kw_year=value_at(facility, when, "geometric"),
    )


def price_decline_per_year(choice: HardwareChoice, spec: HardwareSpec) -> float:
    """The list-price decline a catalog price follows: the scenario's, else the catalog
    row's (:data:`planner.catalog.schema.DEFAULT_PRICE_DECLINE_PER_YEAR` by default)."""
    given = choice.price_decline_per_year
    return spec.price_decline_per_year if given is None else given


def unit_price_usd(choice: HardwareChoice, spec: HardwareSpec, when: float) -> float:
    """Price of one unit of ``spec`` bought at ``when``: the scenario's ``price_usd``
    (a number, or ``{year: price}`` read geometrically), else the catalog price declined
    by ``price_decline_per_year`` d (the choice's, else the catalog row's) from the
    catalog ``price_year`` y0::

        price(when) = price_catalog · (1 − d)^max(0, when − y0)
    """
    if choice.price_usd is None:
        decline = price_decline_per_year(choice, spec)
        return spec.price_usd * (1.0 - decline) ** max(0.0, when - spec.price_year)
    return value_at(choice.price_usd, when, "geometric")


def rental_usd_per_accelerator_hour(scenario: Scenario, hardware_id: str, when: float) -> float:
    """The scenario's rental price of ``hardware_id`` at ``when``, USD per accelerator-hour
    (``nan`` when no rental is offered)."""
    for offer in scenario.rental:
        if offer.hardware == hardware_id:
            return value_at(offer.usd_per_accelerator_hour, when, "geometric")
    return float("nan")
