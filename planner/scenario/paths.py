"""Dotted paths into a scenario document.

A path names one value: ``finance.wacc``, ``sites[texas].power_cap_mw.2028``,
``inference[chat].tokens_per_day``, ``hardware[gb200-nvl72].price_usd``,
``inference[0].cache_hit_rate``. ``[name]`` picks the list item whose ``name`` (or
``id``) equals it; ``[3]`` picks by position. A trailing year picks one year of a
year-indexed value.

Used by ``overrides:`` in scenario files and by the analysis commands (sweeps,
Monte Carlo), so both address fields the same way.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterable
from typing import Any

Location = tuple[str | int, ...]

_STEP = re.compile(r"([^.\[\]]+)|\[([^\]]+)\]")


class PathError(ValueError):
    """A path that names nothing in the document; the message says what is there."""


def parse(path: str) -> list[str]:
    """Split ``a.b[c].d`` into ``['a', 'b', '[c]', 'd']``."""
    steps: list[str] = []
    pos = 0
    for match in _STEP.finditer(path):
        between = path[pos : match.start()]
        if between not in ("", "."):
            raise PathError(f"cannot read path {path!r} near {between!r}")
        steps.append(match.group(1) if match.group(1) is not None else f"[{match.group(2)}]")
        pos = match.end()
    if not steps or path[pos:] not in ("",):
        raise PathError(f"cannot read path {path!r}; write e.g. finance.wacc or sites[texas].pue")
    return steps


def _suggest(word: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, [str(o) for o in options], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _extend(where: str, step: str) -> str:
    """The description of a path one step further: ``sites`` + ``[texas]`` → ``sites[texas]``."""
    if where == "the scenario":
        return step
    return f"{where}{step}" if step.startswith("[") else f"{where}.{step}"


def _item_key(item: Any) -> str | None:
    if isinstance(item, dict):
        for key in ("name", "id"):
            if key in item:
                return str(item[key])
    return None


def _step_into(node: Any, step: str, where: str, create: bool) -> tuple[Any, Any]:
    """Return (container, key) for ``step`` inside ``node``."""
    if isinstance(node, list):
        label = step[1:-1] if step.startswith("[") else step
        if label.isdigit():
            index = int(label)
            if index >= len(node):
                raise PathError(f"{where} has {len(node)} items; index {index} is out of range")
            return node, index
        names = [_item_key(item) for item in node]
        if label in names:
            return node, names.index(label)
        raise PathError(
            f"{where} has no item named {label!r}{_suggest(label, [n for n in names if n])}"
        )
    if isinstance(node, dict):
        key: Any = step[1:-1] if step.startswith("[") else step
        if key not in node and isinstance(key, str) and key.isdigit() and int(key) in node:
            key = int(key)
        if key not in node:
            if create and isinstance(key, str) and key.isdigit():
                return node, int(key)
            if create:
                return node, key
            raise PathError(f"{where} has no field {key!r}{_suggest(str(key), node)}")
        return node, key
    raise PathError(f"{where} is a single value, it has no {step!r}")


def get(doc: Any, path: str) -> Any:
    """The value at ``path`` in ``doc``; raises PathError with a did-you-mean."""
    node = doc
    where = "the scenario"
    for step in parse(path):
        container, key = _step_into(node, step, where, create=False)
        node = container[key]
        where = _extend(where, step)
    return node


def locate(doc: Any, path: str) -> Location:
    """The concrete location ``path`` names in ``doc``: dict keys and list indices.

    ``sites[texas].power_cap_mw.2028`` → ``('sites', 0, 'power_cap_mw', 2028)``.
    Raises PathError like :func:`get`.
    """
    node = doc
    where = "the scenario"
    out: list[str | int] = []
    for step in parse(path):
        container, key = _step_into(node, step, where, create=False)
        out.append(key)
        node = container[key]
        where = _extend(where, step)
    return tuple(out)


def set_value(doc: Any, path: str, value: Any, years: list[int] | None = None) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (see :func:`assign`)."""
    doc = copy.deepcopy(doc)
    assign(doc, path, value, years)
    return doc


def assign(doc: Any, path: str, value: Any, years: list[int] | None = None) -> Location:
    """Put ``value`` at ``path`` in ``doc`` itself; return the concrete location it set.

    The location is found before the value is written, so an edit that renames the
    item it goes through (``sites[dc].name: dc2``) still has one. Setting one year of a
    year-indexed value that is a plain number turns it into a mapping holding the old
    number for every year in ``years`` and the new one in that year, so the other
    years keep their values. The work is proportional to the path, not the document:
    ``overrides:`` applies thousands of edits this way.
    """
    steps = parse(path)
    node = doc
    where = "the scenario"
    out: list[str | int] = []
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        if not last and steps[i + 1].isdigit() and isinstance(node, dict):
            container, key = _step_into(node, step, where, create=False)
            if isinstance(container[key], int | float) and not isinstance(container[key], bool):
                old = container[key]
                container[key] = {y: old for y in (years or [])}
        container, key = _step_into(node, step, where, create=last)
        out.append(key)
        if last:
            container[key] = value
        else:
            node = container[key]
            where = _extend(where, step)
    return tuple(out)
