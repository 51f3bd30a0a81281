"""Semantic checks of the procurement sections (:mod:`planner.scenario.procurement`)."""

from __future__ import annotations

from planner.catalog import offer_catalog
from planner.errors import Problem
from planner.scenario.schema import Scenario
from planner.scenario.series import given_years, value_at


def check_procurement(scenario: Scenario) -> list[Problem]:
    """Leases at least their minimum term, builds that can power on inside the horizon,
    commitments with a price and one row per term, cloud-only systems never bought."""
    problems: list[Problem] = []
    years = scenario.horizon.years
    start, end = scenario.horizon.start, scenario.horizon.end
    for i, site in enumerate(scenario.sites):
        lease, build = site.lease, site.build
        if lease is not None and lease.term_years < lease.minimum_term_years:
            problems.append(
                Problem(
                    path=f"sites[{i}].lease.term_years",
                    message="lease shorter than its minimum term",
                    found=str(lease.term_years),
                    expected=f"at least minimum_term_years ({lease.minimum_term_years})",
                    hint="lengthen term_years or lower minimum_term_years",
                )
            )
        if build is not None and build.lead_time_years >= years:
            problems.append(
                Problem(
                    path=f"sites[{i}].build.lead_time_years",
                    message="build lead time as long as the horizon: no block could power on",
                    found=str(build.lead_time_years),
                    expected=f"fewer than horizon.years ({years})",
                    hint="shorten lead_time_years or extend horizon.years",
                )
            )
        series = [
            (f"sites[{i}].build.grid_mw_per_year", build and build.grid_mw_per_year),
            (f"sites[{i}].lease.max_kw_it", lease and lease.max_kw_it),
        ]
        problems += _years_inside(series, start, end)
    offers = offer_catalog()
    for i, h in enumerate(scenario.hardware):
        offer = offers.get(h.id)
        bought = offer is None or offer.purchasable or h.purchasable
        if bought or h.max_units_per_year is None:
            continue
        if any(value_at(h.max_units_per_year, y, "hold") > 0 for y in range(start, end + 1)):
            problems.append(
                Problem(
                    path=f"hardware[{i}].max_units_per_year",
                    message=f"{h.id} is cloud-only (offers catalog: purchasable: false)",
                    found=str(h.max_units_per_year),
                    expected="0 or absent",
                    hint="drop max_units_per_year and rent it (with commitments), or set "
                    "purchasable: true for a direct purchase deal",
                )
            )
    for i, r in enumerate(scenario.rental):
        seen: set[int] = set()
        for j, c in enumerate(r.commitments):
            path = f"rental[{i}].commitments[{j}]"
            if c.term_years in seen:
                problems.append(
                    Problem(
                        path=f"{path}.term_years",
                        message=f"a second {c.term_years}-year commitment for {r.hardware}",
                        hint="give each term once",
                    )
                )
            seen.add(c.term_years)
            if c.usd_per_accelerator_hour is None:
                problems.append(
                    Problem(
                        path=f"{path}.usd_per_accelerator_hour",
                        message=f"no {c.term_years}-year list price for {r.hardware} "
                        "in the offers catalog",
                        hint="give usd_per_accelerator_hour",
                    )
                )
            problems += _years_inside(
                [(f"{path}.usd_per_accelerator_hour", c.usd_per_accelerator_hour)], start, end
            )
    return problems


def _years_inside(series: list, start: int, end: int) -> list[Problem]:
    out = []
    for path, value in series:
        if not value:
            continue
        for year in given_years(value):
            if not start <= year <= end:
                out.append(
                    Problem(
                        path=f"{path}.{year}",
                        message="year outside the horizon",
                        found=str(year),
                        expected=f"a year in {start}..{end}",
                        hint="drop that year or extend the horizon",
                    )
                )
    return out
