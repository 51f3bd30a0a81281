"""The Python API keeps the command line's promises about outputs (issue 29, item 6):
a workbook never replaces the scenario it was planned from, and xlsx bytes never go
under another format's name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import planner
from planner.errors import ExportError

BASELINE = Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml"


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, object]:
    folder = tmp_path_factory.mktemp("api")
    source = folder / "s.yaml"
    shutil.copyfile(BASELINE, source)
    scenario = planner.load(source)
    return source, scenario, planner.plan(scenario)


@pytest.mark.parametrize("name", ["s.yaml", "s.xlsx"])
def test_a_workbook_never_replaces_its_scenario(planned: tuple, name: str) -> None:
    """The scenario it was planned from, YAML or an assumptions workbook (here any
    file named as the source), is left as it was."""
    source, scenario, plan = planned
    given = source.parent / name
    if not given.exists():
        given.write_bytes(b"PK an assumptions workbook")
    before = given.read_bytes()
    why = "it is an input" if name.endswith(".xlsx") else r"\.xlsx format"
    with pytest.raises(ExportError, match=why) as refused:
        planner.write_workbook(plan, scenario, given, source=given)
    assert refused.value.exit_code == 2
    assert given.read_bytes() == before


@pytest.mark.parametrize("name", ["plan.csv", "plan.yaml", "plan"])
def test_a_workbook_goes_only_under_an_xlsx_name(planned: tuple, name: str) -> None:
    source, scenario, plan = planned
    target = source.parent / name
    with pytest.raises(ExportError, match=r"\.xlsx"):
        planner.write_workbook(plan, scenario, target, source=source)
    assert not target.exists()


def test_a_workbook_beside_its_scenario_is_written(planned: tuple) -> None:
    source, scenario, plan = planned
    written = planner.write_workbook(plan, scenario, source.parent / "plan.xlsx", source=source)
    assert written.read_bytes()[:2] == b"PK"  # a zip: the xlsx container
