"""Procurement sections of a scenario: rental commitments and datacenter build or lease.

Hooked into :mod:`planner.scenario.schema` (``Rental.commitments``, ``Site.build``,
``Site.lease``, and :func:`complete_procurement` before a Scenario is validated).
Defaults come from the offers catalog (``planner/catalog/offers.yaml``), which cites
them. Units are in the field names; ``critical IT`` is the IT load a datacenter
is built or leased for (facility power = IT × PUE).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.catalog import datacenter_defaults, offer_catalog
from planner.field_docs import DocumentedFields
from planner.scenario.meta import meta

_PositiveYearValue = Annotated[float, Field(gt=0)] | dict[int, Annotated[float, Field(gt=0)]]
TERMS: tuple[int, ...] = (1, 3)
"""Commitment terms offered, years."""


class _Section(DocumentedFields, BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class Commitment(_Section):
    """Rented capacity reserved for a whole term at a discount, paid whether used or not."""

    term_years: Annotated[Literal[1, 3], meta(perf=False, unit="years")]
    """Length of the commitment: 1 or 3 years."""
    usd_per_accelerator_hour: Annotated[
        _PositiveYearValue | None,
        meta(perf=False, unit="USD per accelerator-hour", fill="geometric"),
    ] = None
    """Committed price, USD per accelerator-hour; default: the offers catalog's list price."""


class DatacenterBuild(_Section):
    """Building datacenter capacity at a site, in blocks of critical IT MW."""

    block_mw_it: Annotated[float, meta(perf=False, unit="MW of critical IT")] = Field(gt=0)
    """Critical IT capacity of one block, MW (blocks are whole)."""
    capex_usd_per_mw_it: Annotated[float, meta(perf=False, unit="USD per MW of critical IT")] = (
        Field(ge=0, default_factory=lambda: datacenter_defaults().capex_usd_per_mw_it)
    )
    """Cost to build one MW of critical IT; default: the offers catalog's (Cushman &
    Wakefield 2025 average, range 9.3-15.0 M$/MW)."""
    lead_time_years: Annotated[int, meta(perf=False, unit="years")] = Field(
        ge=0, default_factory=lambda: datacenter_defaults().build_lead_time_years
    )
    """Years from the start of construction (when capex is paid) to power on."""
    facility_life_years: Annotated[int, meta(perf=False, unit="years")] = Field(
        ge=1, default_factory=lambda: datacenter_defaults().facility_life_years
    )
    """Useful life of a block, years: straight-line residual value at the horizon end."""
    fixed_om_usd_per_kw_year: Annotated[
        float, meta(perf=False, unit="USD per kW of critical IT per year")
    ] = Field(ge=0, default_factory=lambda: datacenter_defaults().fixed_om_usd_per_kw_year)
    """Fixed operations and maintenance of built capacity, paid whether it is used or not."""
    grid_mw_per_year: Annotated[
        _PositiveYearValue | None, meta(perf=False, unit="MW (facility, IT × PUE)", fill="hold")
    ] = None
    """Grid interconnect limit: most facility MW that can come online in a year; absent =
    unlimited."""
    max_blocks: Annotated[int | None, meta(perf=False, unit="blocks")] = Field(default=None, ge=0)
    """Most blocks the site can hold; absent = unlimited."""


class DatacenterLease(_Section):
    """Leasing contracted critical IT capacity (take-or-pay) at a site."""

    usd_per_kw_month: Annotated[float, meta(perf=False, unit="USD per kW of IT per month")] = Field(
        gt=0, default_factory=lambda: datacenter_defaults().lease_usd_per_kw_month
    )
    """Rent per contracted kW of critical IT per month, paid whether used or not."""
    term_years: Annotated[int, meta(perf=False, unit="years")] = Field(
        ge=1, default_factory=lambda: datacenter_defaults().lease_minimum_term_years
    )
    """Length of each lease signed, years (at least ``minimum_term_years``)."""
    minimum_term_years: Annotated[int, meta(perf=False, unit="years")] = Field(
        ge=1, default_factory=lambda: datacenter_defaults().lease_minimum_term_years
    )
    """Shortest lease the landlord signs, years."""
    max_kw_it: Annotated[
        _PositiveYearValue | None, meta(perf=False, unit="kW of critical IT", fill="hold")
    ] = None
    """Most kW that can be under lease at once; absent = unlimited."""


def rent_only(max_units_per_year: float | dict[int, float] | None) -> bool:
    """True when a hardware choice's supply cap allows no purchase (0 in every year it
    gives; cloud-only systems get that from the offers catalog)."""
    cap = max_units_per_year
    if cap is None:
        return False
    return all(v == 0 for v in cap.values()) if isinstance(cap, dict) else cap == 0


def complete_procurement(data: Any) -> Any:
    """A scenario document with the procurement facts the catalog implies made explicit.

    * A catalog system that is rented but not listed under ``hardware`` is listed with
      ``max_units_per_year: 0`` (rent-only; renting does not require buying). An id
      the catalog does not know is left for the reference check to report.
    * A cloud-only system (``purchasable: false`` in the offers catalog, and not
      ``purchasable: true`` in the scenario) listed under ``hardware`` gets
      ``max_units_per_year: 0`` and, when no rental row names it, a rental row at the
      catalog's on-demand price with its 1- and 3-year commitments.
    * A rental or commitment without a price takes the catalog's list price.

    Anything not shaped as expected is left alone for validation to report.
    """
    if not isinstance(data, dict):
        return data
    hardware, rental = data.get("hardware", []), data.get("rental", [])
    if not isinstance(hardware, list) or not isinstance(rental, list):
        return data
    if not all(isinstance(h, dict) for h in hardware) or not all(
        isinstance(r, dict) for r in rental
    ):
        return data
    offers = offer_catalog()
    hardware = [dict(h) for h in hardware]
    rental = [dict(r) for r in rental]
    listed = {h.get("id") for h in hardware}
    for row in rental:
        if row.get("hardware") not in listed and row.get("hardware") in offers:
            hardware.append({"id": row["hardware"], "max_units_per_year": 0})
            listed.add(row["hardware"])
    rented = {r.get("hardware") for r in rental}
    for h in hardware:
        offer = offers.get(h.get("id"))  # type: ignore[arg-type]
        if offer is None or offer.purchasable or h.get("purchasable") is True:
            continue
        h.setdefault("max_units_per_year", 0)
        if h["id"] not in rented and offer.on_demand_usd_per_accelerator_hour is not None:
            terms = [
                {"term_years": k}
                for k in TERMS
                if offer.committed_usd_per_accelerator_hour(k) is not None
            ]
            rental.append({"hardware": h["id"], "commitments": terms})
    for row in rental:
        offer = offers.get(row.get("hardware"))  # type: ignore[arg-type]
        if offer is None:
            continue
        if "usd_per_accelerator_hour" not in row and offer.on_demand_usd_per_accelerator_hour:
            row["usd_per_accelerator_hour"] = offer.on_demand_usd_per_accelerator_hour
        commitments = row.get("commitments")
        if isinstance(commitments, list):
            filled = []
            for c in commitments:
                c = dict(c) if isinstance(c, dict) else c
                term = c.get("term_years") if isinstance(c, dict) else None
                if isinstance(c, dict) and "usd_per_accelerator_hour" not in c and term in TERMS:
                    price = offer.committed_usd_per_accelerator_hour(int(term))  # type: ignore[arg-type]
                    if price is not None:
                        c["usd_per_accelerator_hour"] = price
                filled.append(c)
            row["commitments"] = filled
    return {**data, "hardware": hardware, "rental": rental}
