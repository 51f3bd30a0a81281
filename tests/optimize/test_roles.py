"""The variable-role table (:mod:`planner.optimize.roles`) is what the model, rounding,
foresight and the one-instance solve read: a family's domain, rounding, fixing and
slackness all follow its row, and every family of the model has one."""

from __future__ import annotations

import math

import pyomo.environ as pyo
import pytest
from hand_cases import load

from planner.optimize import build_data, build_model, round_plan, solve
from planner.optimize.foresight import DECISIONS
from planner.optimize.objective import service_coefficients
from planner.optimize.roles import ROLES, Kind, Part, Rounding, families
from planner.optimize.variables import Vars
from planner.pipeline import solver_options, throughput

# Between them these use every family: datacenter blocks and leases, early sales of new
# and existing units, committed rentals, fixed-duration clusters, training and serving.
FEATURES = (
    "lease_or_build",
    "sell_existing",
    "sell_after_first_year",
    "commitment_steady",
    "duration_step_up",
    "training_step_up",
)


def test_every_family_has_one_role() -> None:
    assert set(ROLES) == set(Vars.__dataclass_fields__)


@pytest.mark.parametrize("name", FEATURES)
def test_each_family_s_domain_is_its_kind(name: str) -> None:
    scenario = load(name)
    data = build_data(scenario, *throughput(scenario))
    model = build_model(data)
    for family, role in ROLES.items():
        for var in getattr(model, family).values():
            assert var.is_integer() == (role.kind in (Kind.WHOLE, Kind.CHOICE)), family
            if role.kind == Kind.CHOICE:
                assert var.is_binary(), family


def test_only_slacks_are_in_the_service_objective() -> None:
    scenario = load("priority_shortfall")
    data = build_data(scenario, *throughput(scenario))
    weighted = {name for name, by_key in service_coefficients(data).items() if any(by_key.values())}
    assert weighted <= set(families(part=Part.SLACK))
    assert families(part=Part.SLACK) == ("unmet_inf", "lost_inf", "unmet_train")


def test_foresight_fixes_the_commitments_and_nothing_else() -> None:
    assert families(foresight_fixes=True) == DECISIONS
    assert set(DECISIONS) == set(families(part=Part.COMMITMENT))
    assert "rent" not in DECISIONS and "x_inf" not in DECISIONS


@pytest.mark.parametrize("name", FEATURES)
@pytest.mark.parametrize("up", [True, False])
def test_rounding_leaves_every_whole_and_choice_family_whole(name: str, up: bool) -> None:
    """The LP relaxation's plan, rounded: every value of a whole or choice family is a
    whole number (a choice 0 or 1); a family rounded down never rises; each run's
    choices sum to 1."""
    scenario = load(name)
    data = build_data(scenario, *throughput(scenario), relax=True)
    model = build_model(data)
    result = solve(model, solver_options(scenario))  # loads the relaxation's values
    assert result.status.has_solution
    before = {f: {k: v.value for k, v in getattr(model, f).items()} for f in ROLES}
    round_plan(model, up)
    for family, role in ROLES.items():
        for key, var in getattr(model, family).items():
            if role.kind in (Kind.WHOLE, Kind.CHOICE) and var.value is not None:
                assert var.value == math.floor(var.value), (family, key, var.value)
            if role.kind == Kind.CHOICE and var.value is not None:
                assert var.value in (0.0, 1.0)
            if role.rounding == Rounding.DOWN and before[family][key] is not None:
                assert var.value <= before[family][key] + 1e-6
    for run in data.runs:
        chosen = [pyo.value(v) for (r, *_), v in model.y.items() if r == run]
        assert not chosen or sum(chosen) == 1.0
