"""Inputs an analysis varies that cannot move its results: warned about before running.

A varied path is **shadowed** when a more specific value overrides it everywhere it
would apply: ``finance.electricity_usd_per_kwh`` is only a default for sites that leave
their own ``electricity_usd_per_kwh`` unset (``default_from`` in
:mod:`planner.scenario.meta`), so when every site sets its own, varying the finance
value changes nothing (and when some do, it reaches only the others). A path **does not
reach the model** when it edits a year outside the horizon, the solver's settings, or
the penalties (with ``objective: min_cost`` they price unmet demand in the reports but
do not steer the plan).

:func:`inert_inputs` returns one :class:`~planner.errors.Problem` per such path; the
analysis commands print them as warnings, and ``--strict`` refuses them (exit 2).
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.errors import InputError, Problem
from planner.scenario.meta import field_meta
from planner.scenario.schema import Scenario, Site
from planner.scenario.variants import Target, split_year


def _site_overrides() -> dict[str, str]:
    """``finance.X`` → the Site field that overrides it (``default_from`` metadata)."""
    out = {}
    for name in Site.model_fields:
        source = field_meta(Site, name).default_from
        if source:
            out[source] = name
    return out


def _shadowed(scenario: Scenario, path: str) -> Problem | None:
    field = _site_overrides().get(path)
    if field is None:
        return None
    own = [s.name for s in scenario.sites if getattr(s, field) is not None]
    if not own:
        return None
    example = f"sites[{own[0]}].{field}"
    if len(own) == len(scenario.sites):
        return Problem(
            path=path,
            message=f"has no effect: every site sets its own {field} "
            f"({', '.join(f'sites[{n}]' for n in own)}), which overrides this default",
            hint=f"vary {example} (one site) instead",
        )
    rest = [s.name for s in scenario.sites if s.name not in own]
    return Problem(
        path=path,
        message=f"reaches only sites {', '.join(rest)}: {', '.join(own)} set their own {field}",
        hint=f"vary {example} too if those sites should move with it",
    )


def _not_reaching(scenario: Scenario, path: str, year: int | None) -> Problem | None:
    if year is not None and year not in scenario.horizon.year_list:
        first, last = scenario.horizon.start, scenario.horizon.end
        return Problem(
            path=path,
            message=f"does not reach the model: {year} is outside the horizon {first}–{last}",
            hint=f"vary a year from {first} to {last}",
        )
    if path.startswith("solver."):
        return Problem(
            path=path,
            message="does not reach the model: it changes the solver's settings, not the "
            "scenario (results differ only by solver tolerance)",
            hint="use --mip-gap / --time-limit for every run",
        )
    if path.startswith("penalties.") and scenario.objective == "min_cost":
        return Problem(
            path=path,
            message="does not change the plan: with objective min_cost penalties price "
            "unmet demand in the reports only (the most demand the limits allow is "
            "served first)",
            hint="vary demand or the limits to move the plan",
        )
    return None


def inert_inputs(scenario: Scenario, targets: Sequence[Target]) -> list[Problem]:
    """The varied paths that are shadowed or do not reach the model (module docstring)."""
    out = []
    for t in targets:
        parent, year = split_year(t.path)
        found = _shadowed(scenario, parent) or _not_reaching(scenario, t.path, year)
        if found is not None:
            out.append(found)
    return out


def refuse_inert(problems: Sequence[Problem], source: str | None = None) -> None:
    """``--strict``: raise InputError (exit 2) when any varied input is inert."""
    if problems:
        raise InputError(source, list(problems))
