"""The futures of a scenario's ``uncertainty:`` tree as scenarios, and their checks.

:func:`future_scenarios` applies each future's ``set`` edits (as ``overrides`` are
applied) and then its ``scale`` multipliers (as sweeps multiply, every year of a series)
to the base document, without the ``uncertainty`` section, and validates the result; a
broken edit is an :class:`InputError` naming ``uncertainty.futures[i].set.<path>``.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import ValidationError

import planner.scenario.paths as paths
from planner.errors import InputError, Problem
from planner.scenario.schema import Scenario
from planner.scenario.uncertainty import FIXED_ROOTS, PROBABILITY_TOLERANCE, Future
from planner.scenario.variants import (
    Change,
    apply_changes,
    resolve_inherited,
    split_year,
    whole_number,
)


def base_document(scenario: Scenario) -> dict[str, Any]:
    """The scenario's document without its tree (what each future edits)."""
    doc = scenario.model_dump(mode="python", exclude_none=True)
    doc.pop("uncertainty", None)
    doc["overrides"] = {}
    doc["extends"] = None
    return doc


def future_document(scenario: Scenario, future: Future, where: str) -> dict[str, Any]:
    """The document of ``scenario`` (without its tree) with ``future``'s edits; a value
    the scenario leaves to the catalog or the finance section is written in first, as
    sweeps do (:func:`resolve_inherited`). A path that does not resolve raises
    InputError at ``where.set.<path>`` (or ``.scale.``)."""
    doc = base_document(scenario)
    years = scenario.horizon.year_list
    for path, value in future.set.items():
        try:
            doc = _set(_inherit(doc, scenario, path), path, value, years)
        except paths.PathError as exc:
            raise InputError(None, _bad(f"{where}.set.{path}", str(exc))) from None
    changes = [Change(path, factor, multiplier=True) for path, factor in future.scale.items()]
    for change in changes:
        try:
            doc = _inherit(doc, scenario, change.path)
            current = paths.get(doc, change.path)
        except paths.PathError as exc:
            raise InputError(None, _bad(f"{where}.scale.{change.path}", str(exc))) from None
        if not _scalable(current):
            found = type(current).__name__
            message = f"scale multiplies a number or a year series, not a {found}"
            raise InputError(None, _bad(f"{where}.scale.{change.path}", message))
    return apply_changes(doc, changes, years)


def _inherit(doc: dict[str, Any], scenario: Scenario, path: str) -> dict[str, Any]:
    """``doc`` with the value ``path`` (less a trailing year) inherits written in; as it
    was when nothing is inherited there (the edit itself then says what is wrong)."""
    try:
        return resolve_inherited(doc, scenario, split_year(path)[0])[0]
    except paths.PathError:
        return doc


def _set(doc: dict[str, Any], path: str, value: Any, years: list[int]) -> dict[str, Any]:
    """``doc`` with ``value`` at ``path``, as sweeps and Monte Carlo edit a number: a
    trailing year edits that year alone (the series written out for every horizon year
    with its fill rule first, so interpolation does not spread the edit), and a
    whole-number field gets the nearest whole number; anything else as ``overrides``."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    parent, year = split_year(path)
    if number and year is not None and _scalable(paths.get(doc, parent)):
        return apply_changes(doc, [Change(path, float(value))], years)
    if number and whole_number(doc, path):
        value = round(value)
    paths.assign(doc, path, copy.deepcopy(value), years)
    return doc


def _scalable(value: Any) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    series = isinstance(value, dict) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value.values()
    )
    return number or series


def _bad(path: str, message: str) -> Problem:
    return Problem(
        path=path,
        message=message,
        hint="write a dotted path such as inference[chat].tokens_per_day or "
        "hardware[vr200-nvl144].available_from",
    )


def future_scenarios(scenario: Scenario) -> list[tuple[Future, Scenario]]:
    """Each future of ``scenario.uncertainty`` with its scenario (named
    ``<scenario>/<future>``), validated; InputError naming the future's edit otherwise."""
    assert scenario.uncertainty is not None
    out = []
    for i, future in enumerate(scenario.uncertainty.futures):
        where = f"uncertainty.futures[{i}]"
        doc = future_document(scenario, future, where)
        doc["name"] = f"{scenario.name}/{future.name}"
        try:
            out.append((future, Scenario.model_validate(doc)))
        except ValidationError as exc:
            problems = [
                Problem(
                    path=f"{where} → " + ".".join(str(p) for p in err["loc"]),
                    message=err["msg"],
                    hint="the future's edits must leave a valid scenario",
                )
                for err in exc.errors()
            ]
            raise InputError(None, problems) from None
    return out


def check_uncertainty(scenario: Scenario) -> list[Problem]:
    """``objective: min_cost`` with perfect foresight, probabilities summing to 1, unique
    future names, a first-stage year inside the horizon, and edits of what may be
    uncertain (not :data:`FIXED_ROOTS`) that leave a valid scenario."""
    tree = scenario.uncertainty
    if tree is None:
        return []
    problems: list[Problem] = []
    if scenario.objective != "min_cost":
        problems.append(
            Problem(
                path="objective",
                message="a two-stage plan is planned for min_cost (the most expected demand "
                "served, then the least expected cost)",
                found=scenario.objective,
                hint="set objective: min_cost, or plan max_profit futures one by one",
            )
        )
    if scenario.solver.foresight != "perfect":
        problems.append(
            Problem(
                path="solver.foresight",
                message="a two-stage plan already decides in stages: each future is planned "
                "with perfect foresight after the first stage",
                found=scenario.solver.foresight,
                hint="set solver.foresight: perfect",
            )
        )
    total = sum(f.probability for f in tree.futures)
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        problems.append(
            Problem(
                path="uncertainty.futures",
                message="the futures' probabilities do not sum to 1",
                found=f"{total:.9g}",
                expected="probabilities summing to 1",
                hint="rescale them, or add the missing future",
            )
        )
    names = [f.name for f in tree.futures]
    for i, name in enumerate(names):
        if name in names[:i]:
            problems.append(
                Problem(path=f"uncertainty.futures[{i}].name", message="duplicate name", found=name)
            )
    horizon = scenario.horizon
    if not horizon.start <= tree.first_stage_through <= horizon.end:
        problems.append(
            Problem(
                path="uncertainty.first_stage_through",
                message="the first stage ends outside the horizon",
                found=str(tree.first_stage_through),
                expected=f"a year in {horizon.start}..{horizon.end}",
                hint="the first stage is the decisions taken before the future is known",
            )
        )
    for i, future in enumerate(tree.futures):
        for kind, edits in (("set", future.set), ("scale", future.scale)):
            for path in edits:
                try:
                    root = paths.parse(path)[0]
                except paths.PathError:
                    root = ""  # reported when the edit is applied
                if root in FIXED_ROOTS:
                    problems.append(
                        Problem(
                            path=f"uncertainty.futures[{i}].{kind}.{path}",
                            message=f"a future may not edit {root}: it defines the tree, "
                            "not what is uncertain",
                            hint="edit demand, prices, availability, caps or budgets",
                        )
                    )
    if problems:
        return problems
    try:
        future_scenarios(scenario)
    except InputError as exc:
        problems.extend(exc.problems)
    return problems
