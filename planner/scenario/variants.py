"""Variants of a scenario: a set of path → value edits applied to its document.

One home for what sweeps, Monte Carlo (:mod:`planner.analysis`) and ``--marginal``
(:mod:`planner.marginals`) do to a scenario. A path is a dotted path
(:mod:`planner.scenario.paths`): ``finance.wacc``, ``sites[texas].power_cap_mw.2028``,
``hardware[gb200-nvl72].price_usd``, ``inference[0].cache_hit_rate``.

:func:`prepare` checks the paths against the scenario and writes out, with the value
they already have, fields the scenario leaves to the catalog (``hardware[h].power_kw``)
or to the finance section (``sites[dc].pue``, see ``default_from`` in
:mod:`planner.scenario.meta`), so the unedited document gives the same scenario.
:func:`apply_changes` then applies :class:`Change` s. A trailing year edits that year
alone: the series is first written out for every horizon year with its fill rule, so
interpolation and hold-forward do not spread the edit.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import planner.scenario.paths as paths
from planner.errors import InputError, Problem
from planner.scenario.meta import FieldMeta, field_at, field_meta
from planner.scenario.resolve import hardware_specs, model_specs
from planner.scenario.schema import Scenario
from planner.scenario.series import Fill, value_at


@dataclass(frozen=True)
class Change:
    """Set (or multiply, when ``multiplier``) the number at ``path`` — plain, picklable data."""

    path: str
    value: float
    multiplier: bool = False


class Target(Protocol):
    """A path to edit, and whether its values multiply the base (a Parameter or Change)."""

    @property
    def path(self) -> str: ...
    @property
    def multiplier(self) -> bool: ...


def path_meta(path: str) -> FieldMeta:
    """The metadata of the scenario field ``path`` names (raises PathError if none)."""
    try:
        return field_meta(*field_at(Scenario, paths.parse(path)))
    except KeyError as exc:
        raise paths.PathError(str(exc.args[0])) from None


def fill_of(path: str) -> Fill:
    """How the year-indexed value at ``path`` fills years (geometric if not stated)."""
    return path_meta(path).fill or "geometric"


def split_year(path: str) -> tuple[str, int | None]:
    """``a.b.2028`` → (``a.b``, 2028); a path without a trailing year → (path, None)."""
    steps = paths.parse(path)
    if len(steps) > 1 and steps[-1].isdigit():
        return path[: path.rfind(".")], int(steps[-1])
    return path, None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _did_you_mean(word: str, options: Any) -> str:
    close = difflib.get_close_matches(word, [str(o) for o in options], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _inherited(doc: dict[str, Any], scenario: Scenario, path: str) -> Any:
    """The number an unset field takes from the catalog or the finance section.

    Raises PathError (with a did-you-mean over every field the item may set) when
    ``path`` is not such a field.
    """
    steps = paths.parse(path)
    if len(steps) != 3 or not steps[1].startswith("["):
        raise paths.PathError("not an inherited field")
    section, field = steps[0], steps[2]
    item = doc[section][paths.locate(doc, path.rsplit(".", 1)[0])[1]]
    if section in ("hardware", "models"):
        specs = hardware_specs(scenario) if section == "hardware" else model_specs(scenario)
        spec = specs[item["id"]]
        if field not in type(spec).model_fields:
            known = [*type(spec).model_fields, "max_units_per_year"]
            raise paths.PathError(
                f"{section}[{item['id']}] has no field {field!r}{_did_you_mean(field, known)}"
            )
        return getattr(spec, field)
    try:
        default = path_meta(path).default_from
    except paths.PathError:
        default = None
    if default is not None:
        return paths.get(doc, default)
    raise paths.PathError("not an inherited field")


def resolve_inherited(
    doc: dict[str, Any], scenario: Scenario, path: str
) -> tuple[dict[str, Any], Any]:
    """The value at ``path``, writing an inherited value into ``doc`` when unset."""
    try:
        return doc, paths.get(doc, path)
    except paths.PathError as missing:
        try:
            value = _inherited(doc, scenario, path)
        except paths.PathError as inherited:
            if "not an inherited field" in str(inherited):
                raise missing from None
            raise
        if value is None:
            raise paths.PathError(
                f"{path} is not set and inherits no number; set it in the scenario first"
            ) from None
        return paths.set_value(doc, path, value), value


def prepare(
    scenario: Scenario,
    targets: Sequence[Target],
    source: str | None = None,
    *,
    where: str = "{path}",
    by_year_hint: str = "vary one year ({path}.{year}) or the whole series as a multiplier "
    "({path}*=0.8:1.2:3, or multiplier: true in a spec)",
) -> tuple[dict[str, Any], dict[str, float | None]]:
    """The base document (inherited values written out) and each path's base value.

    The document is ``scenario.model_dump`` without unset (None) fields, so list items
    are found by their ``name`` or ``id``. ``source`` names where the paths came from
    (a spec file) and ``where`` how a problem names a path (``--marginal {path}``). The
    base value of a multiplier on a whole series is None (it has one per year). Raises
    InputError, with a did-you-mean, for any path that names no number.
    """
    doc = scenario.model_dump(mode="python", exclude_none=True)
    years = scenario.horizon.year_list
    base: dict[str, float | None] = {}
    problems: list[Problem] = []

    def bad(path: str, message: str, hint: str | None = None) -> None:
        problems.append(Problem(path=where.format(path=path), message=message, hint=hint))

    for t in targets:
        try:
            parent, year = split_year(t.path)
            doc, node = resolve_inherited(doc, scenario, parent)
        except paths.PathError as exc:
            hint = None if "did you mean" in str(exc) else "write a path such as finance.wacc"
            bad(t.path, str(exc), hint)
            continue
        if _number(node):
            value: float | None = float(node)
        elif isinstance(node, dict) and node and all(_number(v) for v in node.values()):
            value = None
        else:
            found = "true/false" if isinstance(node, bool) else repr(node)[:60]
            bad(t.path, f"names no number (found {found})")
            continue
        if year is not None:
            if year not in years:
                bad(t.path, f"{year} is outside the horizon {years[0]}-{years[-1]}")
                continue
            value = value_at(node, year, fill_of(parent))
        elif value is None and not t.multiplier:
            bad(
                t.path,
                "this value differs by year",
                by_year_hint.format(path=t.path, year=years[0]),
            )
            continue
        base[t.path] = value
    if problems:
        raise InputError(source, problems)
    return doc, base


def whole_number(doc: dict[str, Any], path: str) -> bool:
    """Whether the field at ``path`` (checked by :func:`prepare`) holds whole numbers."""
    parent, year = split_year(path)
    current = paths.get(doc, parent)
    return year is None and isinstance(current, int) and not isinstance(current, bool)


def apply_changes(
    doc: dict[str, Any], changes: Sequence[Change], years: list[int]
) -> dict[str, Any]:
    """A copy of ``doc`` with ``changes`` applied in order (paths checked by :func:`prepare`).

    A whole-number field (units, years) gets the nearest whole number.
    """
    for change in changes:
        parent, year = split_year(change.path)
        current = paths.get(doc, parent)
        if year is not None:
            fill = fill_of(parent)
            series = {y: value_at(current, y, fill) for y in years}
            series[year] = series[year] * change.value if change.multiplier else change.value
            doc = paths.set_value(doc, parent, series)
            continue
        if isinstance(current, dict):
            new: Any = {y: v * change.value for y, v in current.items()}
        else:
            new = current * change.value if change.multiplier else change.value
            if isinstance(current, int) and not isinstance(current, bool):
                new = round(new)
        doc = paths.set_value(doc, parent, new)
    return doc
