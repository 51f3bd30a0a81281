"""Semantic checks of ordering and delivery times (:mod:`planner.scenario.timing`)."""

from __future__ import annotations

from pydantic import ValidationError

from planner.catalog import hardware_catalog
from planner.errors import Problem
from planner.scenario.resolve import hardware_spec
from planner.scenario.schema import Scenario
from planner.scenario.timing import (
    EPS_YEARS,
    MONTHS_PER_YEAR,
    available_from_year,
    date_year,
    lead_periods,
    quarter_start,
)


def check_timing(scenario: Scenario) -> list[Problem]:
    """Lead times shorter than the horizon, ``available_from`` inside it, end of sale
    not before availability, a successor that is a catalog part, and ``on_order``
    deliveries inside the horizon."""
    problems: list[Problem] = []
    horizon = scenario.horizon
    start, end = horizon.start, horizon.start + horizon.years
    span = f"{start}..{horizon.end}"
    for i, h in enumerate(scenario.hardware):
        try:
            spec = hardware_spec(h)
        except ValidationError:
            continue  # check_catalog_rows reports it
        path = f"hardware[{i}]"
        periods = horizon.years * horizon.periods_per_year
        if lead_periods(spec.lead_time_months, horizon.periods_per_year) >= periods:
            longest = MONTHS_PER_YEAR * (periods - 1) // horizon.periods_per_year
            problems.append(
                Problem(
                    path=f"{path}.lead_time_months",
                    message="lead time too long: nothing ordered in the horizon could arrive "
                    "by its last period",
                    found=str(spec.lead_time_months),
                    expected=f"at most {longest} months",
                    hint="shorten lead_time_months, extend horizon.years, or list the units "
                    "under on_order",
                )
            )
        if spec.successor is not None and spec.successor not in hardware_catalog():
            known = sorted(s for s in hardware_catalog() if s != spec.id)
            problems.append(
                Problem(
                    path=f"{path}.successor",
                    message="unknown successor: the price holds until a catalog part ships",
                    found=spec.successor,
                    expected="a catalog hardware id, e.g. " + ", ".join(known[:4]),
                    hint="run `planner hardware list` for the ids, or drop successor to hold "
                    "the price",
                )
            )
        if h.available_from is not None:
            try:
                first = quarter_start(h.available_from)
            except ValueError:
                problems.append(
                    Problem(
                        path=f"{path}.available_from",
                        message="available_from is not a calendar date",
                        found=str(h.available_from),
                        expected="a quarter (2027Q3) or a real date (2027-08-15)",
                        hint="fix the day or month, or give the quarter",
                    )
                )
                continue
            # A date before the horizon is a part already shipping (a catalog row's own
            # date, copied): available from the start. One at or after its end could
            # never be delivered in it.
            if first >= end - EPS_YEARS:
                problems.append(
                    Problem(
                        path=f"{path}.available_from",
                        message="available_from after the horizon: nothing could be delivered",
                        found=str(h.available_from),
                        expected=f"a quarter or date before the end of {span}",
                        hint="drop it (the catalog's release year applies) or move it",
                    )
                )
        if spec.end_of_sale is not None and spec.end_of_sale < int(available_from_year(spec)):
            problems.append(
                Problem(
                    path=f"{path}.end_of_sale",
                    message="end of sale before the hardware is available",
                    found=str(spec.end_of_sale),
                    expected=f"a year >= {int(available_from_year(spec))} (available_from)",
                    hint="move end_of_sale later or available_from earlier",
                )
            )
    if scenario.on_order and scenario.finance.sell_early:
        problems.append(
            Problem(
                path="finance.sell_early",
                message="early sales are not modelled for units on order",
                found="true, with on_order entries",
                expected="sell_early false, or no on_order entries",
                hint="list the delivered units under existing_fleet to let them be sold, "
                "or set finance.sell_early: false",
            )
        )
    for i, order in enumerate(scenario.on_order):
        when = date_year(order.delivery)
        if not start - EPS_YEARS <= when <= end - horizon.period_length_years + EPS_YEARS:
            problems.append(
                Problem(
                    path=f"on_order[{i}].delivery",
                    message="delivery outside the horizon",
                    found=str(order.delivery),
                    expected=f"a year or date in {span} (by the last period's start)",
                    hint="units delivered before the horizon are existing_fleet; drop later ones",
                )
            )
    return problems
