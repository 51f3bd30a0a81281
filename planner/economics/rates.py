"""What one unit costs per year to run, and the inputs those rates are read from.

One function per rate, each called by the optimiser's model data, the Plan's tables,
the checker and the unit-cost quotes (``planner throughput``), so they cannot drift.
Energy and rent use the 8,760-hour billing year (:data:`planner.units.HOURS_PER_YEAR`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from planner.catalog import hardware_catalog
from planner.catalog.schema import HardwareSpec
from planner.scenario.schema import HardwareChoice, Scenario, Site
from planner.scenario.series import YearValue, value_at
from planner.scenario.timing import available_from_year
from planner.units import DAYS_PER_YEAR, HOURS_PER_YEAR, KW_PER_MW, SECONDS_PER_DAY


def energy_usd_per_unit_year(
    power_kw: float, pue: float, utilisation: float, electricity_usd_per_kwh: float
) -> float:
    """Electricity of one unit for a year: ``kW · PUE · utilisation · 8760 h · $/kWh``."""
    return power_kw * pue * utilisation * HOURS_PER_YEAR * electricity_usd_per_kwh


def facility_usd_per_unit_year(power_kw: float, facility_usd_per_kw_year: float) -> float:
    """Data-centre space and power of one unit for a year: ``kW (IT) · $/kW-year``."""
    return power_kw * facility_usd_per_kw_year


def power_contract_usd_per_year(cap_mw: float, contract_usd_per_kw_year: float) -> float:
    """A take-or-pay power contract for a year: ``cap MW (facility) · 1000 · $/kW-year``,
    the whole cap, used or not."""
    return cap_mw * KW_PER_MW * contract_usd_per_kw_year


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


def contract_rate_series(scenario: Scenario, site: Site) -> YearValue:
    """The take-or-pay price of ``site``'s contracted power, USD per kW of facility cap
    per year, as a number or ``{year: value}``: its ``contract_usd_per_kw_year``, else
    its facility rate (its own, else ``finance``'s; per kW of IT) ÷ its PUE, point by
    point, so a full site pays what ``power_cost: installed`` charges (a geometric
    series divided by a constant reads the same between its points)."""
    if site.contract_usd_per_kw_year is not None:
        return site.contract_usd_per_kw_year
    facility = site.facility_usd_per_kw_year
    if facility is None:
        facility = scenario.finance.facility_usd_per_kw_year
    pue = site_pue(scenario, site)
    if isinstance(facility, Mapping):
        return {year: usd / pue for year, usd in facility.items()}
    return facility / pue


def contract_usd_per_kw_year(scenario: Scenario, site: Site, when: float) -> float:
    """:func:`contract_rate_series` at ``when`` (fractional years; read geometrically,
    as rates are)."""
    return value_at(contract_rate_series(scenario, site), when, "geometric")


def price_decline_per_year(choice: HardwareChoice, spec: HardwareSpec) -> float:
    """The list-price decline a catalog price follows: the scenario's, else the catalog
    row's (:data:`planner.catalog.schema.DEFAULT_PRICE_DECLINE_PER_YEAR` by default)."""
    given = choice.price_decline_per_year
    return spec.price_decline_per_year if given is None else given


def price_decline_start(
    spec: HardwareSpec, specs: Mapping[str, HardwareSpec] | None = None
) -> float | None:
    """When ``spec``'s list price starts to decline, fractional years: the later of its
    ``price_year`` and its successor's first delivery (:func:`available_from_year`; the
    successor as the scenario sees it, ``specs``, else the catalog's). None: no
    successor, the price holds."""
    if spec.successor is None:
        return None
    successor = (specs or {}).get(spec.successor) or hardware_catalog().get(spec.successor)
    if successor is None:  # refused when the scenario is checked; no decline meanwhile
        return None
    return max(float(spec.price_year), available_from_year(successor))


def decline_start(
    choice: HardwareChoice, spec: HardwareSpec, specs: Mapping[str, HardwareSpec] | None = None
) -> float | None:
    """When the catalog price of ``choice`` starts to decline: when its successor ships
    (:func:`price_decline_start`); with no successor, from the price year if the
    scenario sets ``price_decline_per_year`` itself (its own path), else never."""
    start = price_decline_start(spec, specs)
    if start is None and choice.price_decline_per_year is not None:
        return float(spec.price_year)
    return start


def unit_price_usd(
    choice: HardwareChoice,
    spec: HardwareSpec,
    when: float,
    specs: Mapping[str, HardwareSpec] | None = None,
) -> float:
    """Price of one unit of ``spec`` bought at ``when``: the scenario's ``price_usd``
    (a number, or ``{year: price}`` read geometrically), else the catalog price, held
    until t_s = :func:`price_decline_start` (the successor ships; never, without one)
    and declined by ``price_decline_per_year`` d (the choice's, else the catalog row's)
    after it::

        price(when) = price_catalog · (1 − d)^max(0, when − t_s)

    ``specs``: the scenario's hardware (:func:`planner.scenario.resolve.hardware_specs`),
    so a successor's ``available_from`` moved by the scenario moves the decline too.
    """
    if choice.price_usd is None:
        start = decline_start(choice, spec, specs)
        if start is None:
            return spec.price_usd
        decline = price_decline_per_year(choice, spec)
        return spec.price_usd * (1.0 - decline) ** max(0.0, when - start)
    return value_at(choice.price_usd, when, "geometric")


def rental_usd_per_accelerator_hour(scenario: Scenario, hardware_id: str, when: float) -> float:
    """The scenario's rental price of ``hardware_id`` at ``when``, USD per accelerator-hour
    (``nan`` when no rental is offered)."""
    for offer in scenario.rental:
        if offer.hardware == hardware_id:
            return value_at(offer.usd_per_accelerator_hour, when, "geometric")
    return float("nan")


def price_convention(scenario: Scenario, specs: Mapping[str, HardwareSpec]) -> str:
    """The price path the scenario's hardware follows, in one sentence for the headline:
    catalog list prices held until each part's successor ships, then declining at the
    rates used; parts with no successor, and prices the scenario gives, named."""
    declining: dict[float, list[str]] = {}
    own: list[str] = []
    held: list[str] = []
    given: list[str] = []
    for choice in scenario.hardware:
        spec = specs[choice.id]
        if choice.price_usd is not None:
            given.append(choice.id)
        elif decline_start(choice, spec, specs) is None:
            held.append(choice.id)
        elif price_decline_start(spec, specs) is None:  # no successor: the scenario's rate
            rate = price_decline_per_year(choice, spec)
            own.append(f"{choice.id} {rate:.0%} a year")
        else:
            declining.setdefault(price_decline_per_year(choice, spec), []).append(choice.id)
    parts = []
    if declining:
        rates = "; ".join(
            f"{rate:.0%} a year ({', '.join(ids)})" for rate, ids in sorted(declining.items())
        )
        parts.append(f"catalog list prices held until each part's successor ships, then {rates}")
    if own:
        parts.append(f"no successor, the scenario's decline from the price year ({', '.join(own)})")
    if held:
        parts.append(f"held over the horizon, no successor in the catalog ({', '.join(held)})")
    if given:
        parts.append(f"as the scenario gives them ({', '.join(given)})")
    return "prices: " + "; ".join(parts) if parts else "prices: no hardware"
