"""The mean-value future: the futures' edits averaged, for the value of the stochastic
solution (VSS).

A ``scale`` multiplier becomes its probability-weighted mean (1 where a future does not
scale that path). A ``set`` number becomes the weighted mean of the futures' numbers
(the base value where a future does not set it, read in that year for a year path;
rounded for a whole-number field); a ``set`` series the weighted mean
year by year (each future's series read with its fill rule); anything else (a date, a
name) is the most probable future's value, first in order on a tie. The mean-value plan
is the deterministic plan of that one future.
"""

from __future__ import annotations

from typing import Any

import planner.scenario.paths as paths
from planner.scenario.futures import base_document
from planner.scenario.schema import Scenario
from planner.scenario.series import value_at
from planner.scenario.uncertainty import Future
from planner.scenario.variants import fill_of, split_year, whole_number


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _series(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and all(_number(v) for v in value.values())


def _base_value(base: dict[str, Any], path: str) -> Any:
    """What the base scenario holds at ``path`` (a trailing year: its series read in that
    year with its fill rule); None where it holds nothing."""
    parent, year = split_year(path)
    try:
        if year is None:
            return paths.get(base, path)
        return value_at(paths.get(base, parent), year, fill_of(parent))
    except (paths.PathError, KeyError, TypeError, ValueError):
        return None


def _whole(base: dict[str, Any], path: str) -> bool:
    try:
        return whole_number(base, path)
    except paths.PathError:
        return False


def mean_future(scenario: Scenario) -> Future:
    """The mean-value future of ``scenario.uncertainty`` (module docstring)."""
    tree = scenario.uncertainty
    assert tree is not None
    futures = tree.futures
    likeliest = max(futures, key=lambda f: f.probability)
    years = list(range(scenario.horizon.start, scenario.horizon.end + 1))
    base = base_document(scenario)
    scale: dict[str, float] = {}
    for path in dict.fromkeys(p for f in futures for p in f.scale):
        scale[path] = sum(f.probability * f.scale.get(path, 1.0) for f in futures)
    set_: dict[str, Any] = {}
    for path in dict.fromkeys(p for f in futures for p in f.set):
        fallback = _base_value(base, path)
        given = [(f.probability, f.set.get(path, fallback)) for f in futures]
        if all(_number(v) for _, v in given):
            mean = sum(p * float(v) for p, v in given)
            set_[path] = round(mean) if _whole(base, path) else mean
        elif all(_number(v) or _series(v) for _, v in given):
            fill = fill_of(path)
            set_[path] = {y: sum(p * value_at(v, y, fill) for p, v in given) for y in years}
        elif path in likeliest.set:
            set_[path] = likeliest.set[path]
    return Future(name="mean-value", probability=1.0, set=set_, scale=scale)
