"""The array model (:mod:`planner.optimize.rows`) equals the Pyomo model's hand-off
arrays on every shipped and test scenario: same columns in the same order, the same
rows, coefficients, bounds, integers and cost. While both paths exist this is what
lets the solve move to the arrays without a plan moving."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planner.optimize import build_data, build_model
from planner.optimize.rows import build_rows
from planner.optimize.solvers.handoff import model_arrays
from planner.pipeline import throughput
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted(
    (ROOT / "tests" / "scenarios").glob("*.yaml")
)
FIELDS = ("col_lower", "col_upper", "cost", "row_lower", "row_upper", "start", "index", "value")


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
@pytest.mark.parametrize("relax", [False, True], ids=["milp", "relaxed"])
def test_the_array_model_equals_the_hand_off(path: Path, relax: bool) -> None:
    scenario = load_scenario(path)
    data = build_data(scenario, *throughput(scenario), relax=relax)
    pyomo_model = build_model(data)
    handed = model_arrays(pyomo_model)
    rows = build_rows(data)
    built = rows.arrays()
    assert built.columns == [(v.parent_component().local_name, v.index()) for v in handed.columns]
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(built, field), getattr(handed, field), field)
    np.testing.assert_array_equal(built.integers, handed.integers)
    assert built.offset == handed.offset and not handed.maximise
    # each row block is the Pyomo component of that name, row for row
    for name, block in rows.rows.items():
        component = getattr(pyomo_model, name)
        active = [c.index() for c in component.values() if c.active]
        assert list(block.keys) == active, name


def test_rows_name_their_columns_by_family_and_key() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "baseline.yaml")
    data = build_data(scenario, *throughput(scenario))
    rows = build_rows(data)
    buy = rows.columns["buy"]
    assert buy.start == 0 and list(buy.keys) == list(data.buy_index)
    demand = rows.rows["demand"]
    first = demand.start
    start, end = rows.start[first], rows.start[first + 1]
    # peak demand served + unmet ≥ peak demand: τ · x_inf + 1 · unmet_inf ≥ D
    w, t, stage = demand.keys[0]
    assert rows.row_lower[first] == pytest.approx(data.demand_peak[(w, t, stage)])
    unmet = rows.columns["unmet_inf"]
    column = unmet.start + unmet.keys.index((w, t))
    entries = dict(zip(rows.index[start:end], rows.value[start:end], strict=True))
    assert entries[column] == 1.0  # the output stage's slack, in output tokens
    x_inf = rows.columns["x_inf"]
    for role, h in data.demand_terms[(w, t, stage)]:
        position = x_inf.start + x_inf.keys.index((w, role, h, t))
        assert entries[position] == pytest.approx(data.inf_rate[(w, role, h)])
