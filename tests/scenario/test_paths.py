"""Dotted paths into a scenario document (planner/scenario/paths.py)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from planner.scenario import paths
from planner.scenario.paths import PathError
from planner.scenario.yamlio import read_yaml

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
YEARS = list(range(2026, 2032))


@pytest.fixture
def doc() -> dict[str, Any]:
    """The baseline scenario as a plain document, plus a gb200 price series."""
    data, _ = read_yaml(SCENARIOS / "baseline.yaml")
    data["hardware"][3]["price_usd"] = {2026: 3.4e6, 2028: 2.6e6}
    return data


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("finance.wacc", 0.10),
        ("sites[texas].power_cap_mw.2028", 200),
        ("sites[0].power_cap_mw.2028", 200),
        ("sites[texas].power_cap_mw", {2026: 60, 2027: 120, 2028: 200, 2030: 400}),
        ("inference[chat].tokens_per_day", {2026: 3.0e11, 2031: 1.5e13}),
        ("inference[chat].tokens_per_day.2031", 1.5e13),
        ("hardware[gb200-nvl72].price_usd", {2026: 3.4e6, 2028: 2.6e6}),
        ("hardware[gb200-nvl72].max_units_per_year", 400),
        ("inference[0].cache_hit_rate", 0.5),
        ("inference[1].cache_hit_rate", 0.8),
        ("inference[agentic].cache_hit_rate", 0.8),
        ("training[rl-post-train].window", [2029, 2029]),
        ("training[0].window[1]", 2026),
        ("horizon.start", 2026),
    ],
)
def test_get(doc: dict[str, Any], path: str, expected: Any) -> None:
    assert paths.get(doc, path) == expected


@pytest.mark.parametrize(
    ("path", "loc"),
    [
        ("finance.wacc", ("finance", "wacc")),
        ("sites[texas].power_cap_mw.2028", ("sites", 0, "power_cap_mw", 2028)),
        ("inference[chat].tokens_per_day", ("inference", 0, "tokens_per_day")),
        ("hardware[gb200-nvl72].price_usd", ("hardware", 3, "price_usd")),
        ("inference[1].cache_hit_rate", ("inference", 1, "cache_hit_rate")),
    ],
)
def test_locate(doc: dict[str, Any], path: str, loc: tuple[str | int, ...]) -> None:
    assert paths.locate(doc, path) == loc


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("finance.wacc", 0.08),
        ("sites[texas].power_cap_mw", 90.0),
        ("inference[chat].tokens_per_day", {2026: 1.0e12}),
        ("hardware[gb200-nvl72].price_usd", 3.0e6),
        ("inference[0].cache_hit_rate", 0.25),
        ("solver.mip_gap", 0.01),
    ],
)
def test_set_then_get(doc: dict[str, Any], path: str, value: Any) -> None:
    before = copy.deepcopy(doc)
    changed = paths.set_value(doc, path, value, YEARS)
    assert paths.get(changed, path) == value
    assert doc == before, "set_value returns a copy and leaves its input alone"


def test_set_one_year_of_a_mapping(doc: dict[str, Any]) -> None:
    changed = paths.set_value(doc, "sites[texas].power_cap_mw.2028", 250, YEARS)
    assert paths.get(changed, "sites[texas].power_cap_mw") == {
        2026: 60,
        2027: 120,
        2028: 250,
        2030: 400,
    }


def test_set_a_new_year_of_a_mapping(doc: dict[str, Any]) -> None:
    changed = paths.set_value(doc, "sites[texas].power_cap_mw.2029", 300, YEARS)
    assert paths.get(changed, "sites[texas].power_cap_mw.2029") == 300
    assert paths.get(changed, "sites[texas].power_cap_mw.2028") == 200


def test_set_one_year_of_a_number_keeps_the_other_years(doc: dict[str, Any]) -> None:
    changed = paths.set_value(doc, "hardware[gb200-nvl72].max_units_per_year.2028", 600, YEARS)
    assert paths.get(changed, "hardware[gb200-nvl72].max_units_per_year") == {
        2026: 400,
        2027: 400,
        2028: 600,
        2029: 400,
        2030: 400,
        2031: 400,
    }


def test_set_only_changes_the_named_item(doc: dict[str, Any]) -> None:
    changed = paths.set_value(doc, "inference[agentic].cache_hit_rate", 0.1, YEARS)
    assert changed["inference"][0] == doc["inference"][0]
    assert {k: v for k, v in changed["inference"][1].items() if k != "cache_hit_rate"} == {
        k: v for k, v in doc["inference"][1].items() if k != "cache_hit_rate"
    }


def test_parse() -> None:
    assert paths.parse("sites[texas].power_cap_mw.2028") == [
        "sites",
        "[texas]",
        "power_cap_mw",
        "2028",
    ]
    assert paths.parse("a.b[0].c") == ["a", "b", "[0]", "c"]


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("finance.wac", "did you mean 'wacc'?"),
        ("financ.wacc", "did you mean 'finance'?"),
        ("sites[texs].pue", "sites has no item named 'texs'; did you mean 'texas'?"),
        ("inference[chatt].cache_hit_rate", "did you mean 'chat'?"),
        ("hardware[gb200-nvl27].price_usd", "did you mean 'gb200-nvl72'?"),
        ("inference[0].cache_hit_rat", "did you mean 'cache_hit_rate'?"),
        ("inference[5].cache_hit_rate", "index 5 is out of range"),
        ("finance.wacc.rate", "finance.wacc is a single value"),
        ("sites[texas].power_cap_mw.2029", "sites[texas].power_cap_mw has no field '2029'"),
    ],
)
def test_unknown_path(doc: dict[str, Any], path: str, says: str) -> None:
    with pytest.raises(PathError) as info:
        paths.get(doc, path)
    assert says in str(info.value)


@pytest.mark.parametrize("path", ["", ".", "finance..wacc", "finance.", "a[b", "a]b"])
def test_unreadable_path(doc: dict[str, Any], path: str) -> None:
    with pytest.raises(PathError, match="cannot read path"):
        paths.parse(path)


def test_set_unknown_item_is_an_error(doc: dict[str, Any]) -> None:
    with pytest.raises(PathError, match="did you mean 'texas'"):
        paths.set_value(doc, "sites[texs].pue", 1.3, YEARS)


def test_path_error_is_a_value_error() -> None:
    assert issubclass(PathError, ValueError)
