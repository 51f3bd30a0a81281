"""The notebook API: dicts load, changes apply, errors are clear (docs/python-api.md's
examples run in tests/test_docs.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import planner
from planner.errors import InputError
from planner.scenario.yamlio import read_yaml

REPO = Path(__file__).resolve().parents[1]


def test_a_dict_loads_as_the_file_does() -> None:
    path = REPO / "tests" / "scenarios" / "one_hardware_one_year.yaml"
    document, _ = read_yaml(path)
    assert "extends" not in document
    assert planner.load(document) == planner.load(path)


def test_with_changes_sets_one_year_of_a_series_only() -> None:
    scenario = planner.load(REPO / "scenarios" / "power_constrained.yaml")
    before = scenario.model_dump()["sites"]
    changed = planner.with_changes(scenario, {"sites[texas].power_cap_mw.2028": 123.0})
    texas = next(s for s in changed.sites if s.name == "texas")
    assert texas.power_cap_mw[2028] == 123.0
    # The file gives {2026: 60, 2027: 90, 2029: 150}; the series is written out for
    # every horizon year first, so the edit does not spread to 2029-2031.
    assert texas.power_cap_mw == {2026: 60, 2027: 90, 2028: 123, 2029: 150, 2030: 150, 2031: 150}
    assert scenario.model_dump()["sites"] == before  # the original is untouched


def test_a_bad_path_or_value_raises_input_error_with_the_path() -> None:
    scenario = planner.load(REPO / "scenarios" / "baseline.yaml")
    with pytest.raises(InputError, match="did you mean") as bad_path:
        planner.with_changes(scenario, {"finance.wac": 0.1})
    assert "finance.wac" in str(bad_path.value)
    with pytest.raises(InputError, match=r"finance\.wacc"):
        planner.with_changes(scenario, {"finance.wacc": -3.0})


def test_a_broken_dict_lists_its_problems() -> None:
    document, _ = read_yaml(REPO / "scenarios" / "baseline.yaml")
    document["finance"]["wacc"] = "ten percent"
    document["horizon"]["years"] = 0
    with pytest.raises(InputError) as broken:
        planner.load(document)
    assert [p.path for p in broken.value.problems] == ["horizon.years", "finance.wacc"]


def test_import_planner_loads_neither_pandas_nor_pyomo() -> None:
    code = "import sys, planner; print(sorted({'pandas', 'pyomo', 'openpyxl'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_every_api_name_is_exported_lazily() -> None:
    from planner import api

    assert set(planner.API) == set(api.__all__)
    assert planner.plan is api.plan
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = planner.no_such_name  # type: ignore[attr-defined]
