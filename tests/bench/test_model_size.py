"""The M benchmark's model size, built without solving, so a formulation change shows up.

M (bench/generate.py, seed 0) with quarterly periods: 6 years x 4 quarters = 24 periods,
12 hardware types (all released by 2026), 2 sites (texas, ohio), 10 inference workloads
plus the rollouts of one RL run, 3 training runs, rentals of h200-hgx and b200-hgx, and
an existing h100-hgx cohort at texas installed in 2024 (5-year life: alive 2026-2028).

Every expected number has a comment on what produces it; a change to one needs a new
comment (the generator, the perf model's servable pairs or the formulation moved).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pyomo.environ as pyo
import pytest

from planner.optimize import build_data, build_model
from planner.optimize.model import model_size
from planner.pipeline import throughput
from planner.scenario import load_scenario

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "generate.py"

VARIABLES = {
    # 12 hardware x 2 sites x 24 quarters, less vr200-nvl144's first two quarters at 2
    # sites (available from 2026Q3)
    "buy": 572,
    "kept": 12,  # the 2024 h100 cohort at texas, alive 2026Q1-2028Q4
    "installed": 572,  # one stock per (hardware, site, quarter) that can hold units
    "rent": 48,  # 2 rentable types x 24 quarters
    # 3 runs x 26 places (12 hardware x 2 sites + 2 rented types), less tpu-v6e at 2
    # sites for the two fp8 runs (pretrain-01, rl-03): it has no fp8 units
    "y": 74,
    # pretrain-01 (window 2029-2030: 8 quarters) + pretrain-02 (2030: 4) + rl-03 (2028:
    # 4) = 16 run-quarters x 26 places, less (8 + 4) quarters x 2 sites on tpu-v6e
    "x_train": 392,
    "z_train": 0,  # no run of M has a duration_days: no (size, start) choices
    # (workload, hardware) pairs the perf model can serve x quarters: every workload on
    # all 12 types (wide expert parallelism over scale-out fits the large MoE models),
    # 24 quarters (vr200-nvl144 from 2026Q3: 22), the rl-03 rollouts on 12 types in
    # 2028 (4 quarters): 10 x (288 - 2) + 48. Not per site: inference is pooled.
    "x_inf": 2908,
    "unmet_inf": 244,  # 10 workloads x 24 quarters + the rollouts' 4
    "lost_inf": 244,  # one per unmet_inf: the tokens its shortfall loses (load shape)
    "unmet_train": 3,  # one per run
    "commit": 0,  # M offers no rental commitments
    "dc_build": 0,  # nor datacenter build or lease
    "dc_lease": 0,
    "sell": 0,  # finance.sell_early is off: no early sales (empty families)
    "sell_existing": 0,
}
INTEGER = 658  # buy 572 + kept 12 + y 74

CONSTRAINTS = {
    "fleet_balance": 572,  # one per installed stock
    "existing_no_return": 11,  # the cohort's 12 quarters after its first
    # 12 hardware x 24 quarters (vr200-nvl144: 22), each pooling its sites and rentals
    "capacity": 286,
    # (hardware, place, quarter) where a run may train: 12 quarters of 2028-2030 x 26
    # places (every pool has more than one place, so each place gets its own row), less
    # tpu-v6e's 2 sites in the 8 quarters only fp8 runs use (2028, 2029)
    "training_capacity": 296,
    "training_completion": 3,  # one per run
    "training_one_cluster": 3,  # one per run
    "training_cluster_link": 392,  # one per x_train
    # no run of M has a duration_days: the fixed-cluster rows are empty
    "training_menu_choice": 0,
    "training_fixed_cluster": 0,
    "training_duration_completion": 0,
    "training_whole_cluster": 0,
    # start rows of the delivered-through quarters (all but 2026Q1, the first; 2028Q1,
    # the rollouts' first; 2029Q1 and 2031Q1, where cohorts delivered at a quarter's
    # start end their lives): a type that may train then. The 11 types that may train in
    # 2028-2029's 6 (66; tpu-v6e trains only in 2030) and all 12 in 2030's 4 (48)
    "period_start": 114,
    # one per owned training place in those quarters: 22 in 2028-2029's 6, 24 in 2030's 4
    "training_period_start": 228,
    "demand": 244,  # one per unmet_inf (colocated serving: output rows only)
    # the load shape's curve: 4 chords + the linear part per workload-quarter (every
    # workload's peak_to_average is between 1 and 2), 1 row for the rollouts' 4 (flat)
    "lost_tokens": 1204,
    "power": 48,  # 2 sites x 24 quarters
    "budget": 24,  # one per quarter
    # 7 supply-capped types (racks, pods and a few drawn) x 24 quarters (vr200: 22)
    "supply": 166,
    "vendor_share": 0,  # M sets no vendor share cap
    "grid": 0,  # no site builds or leases, no rental commitments
    "max_blocks": 0,
    "lease_cap": 0,
    "rental_cap": 0,
}


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_generate", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # so its classes resolve their module, as on import
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pyo.ConcreteModel:
    path = tmp_path_factory.mktemp("bench") / "m.yaml"
    path.write_text(_load_generator().generate("M", seed=0, periods_per_year=4))
    scenario = load_scenario(path)
    assert scenario.horizon.periods_per_year == 4
    return build_model(build_data(scenario, *throughput(scenario)))


def test_m_variable_counts(model: pyo.ConcreteModel) -> None:
    found = {v.local_name: len(v) for v in model.component_objects(pyo.Var)}
    assert found == VARIABLES


def test_m_constraint_counts(model: pyo.ConcreteModel) -> None:
    found = {c.local_name: len(c) for c in model.component_objects(pyo.Constraint)}
    assert found == CONSTRAINTS


def test_m_model_size(model: pyo.ConcreteModel) -> None:
    assert model_size(model) == {
        "variables": sum(VARIABLES.values()),  # 5,069
        "integer_variables": INTEGER,
        "constraints": sum(CONSTRAINTS.values()),  # 3,591
    }
