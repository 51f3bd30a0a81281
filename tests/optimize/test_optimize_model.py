"""Model building (without solving), sizes, the solver boundary and shadow prices."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from planner.errors import InputError, SolverError
from planner.optimize import SolverOptions, SolveStatus, build_data, build_model, solve
from planner.optimize.model import model_size
from planner.optimize.solvers.types import Termination
from planner.pipeline import plan, throughput
from planner.scenario import load_scenario
from planner.scenario.resolve import hardware_specs

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "scenarios"
HAND = ROOT / "tests" / "scenarios"

# Model size of each shipped scenario. These move when the formulation, the scenario or
# the perf model's servable pairs change; comment every change to an expected value.
EXPECTED_SIZES = {
    # Variables 217 = 36 buy (6 hardware x 6 years, 1 site) + 3 kept (the 2024 H100
    # cohort, alive 2026-2028) + 36 installed (one stock per buy) + 6 rent (h200) + 21 y
    # (3 runs x 7 places: 6 hardware at texas + rented h200) + 28 x_train + 71 x_inf
    # (inference pooled per hardware, not per place: agentic and rollouts not servable on
    # h100) + 13 unmet_inf + 3 unmet_train. Integers 60 = 36 buy + 3 kept + 21 y.
    # Constraints 153 = 36 fleet balance + 2 existing no-return + 36 capacity (one pool
    # per hardware and year) + 8 training capacity (h200 at texas and rented, the 4
    # training years) + 3 completion + 3 one-cluster + 28 cluster links + 13 demand
    # + 6 power + 6 budget + 12 supply (gb200, gb300).
    # (Issue 7: installed became a stock variable and inference capacity a pool: was
    # 194 variables and 115 constraints.) Now 224: x_inf 78, since DeepSeek-V3 (agentic
    # 6 years, rollouts 1) is servable on h100 by expert parallelism over several nodes.
    # Now 237 / 214: + 13 lost_inf (tokens lost under the load shape, one per unmet_inf)
    # and 61 lost_tokens rows: 5 per workload-year of chat (p2a 1.5) and agentic (1.3),
    # 4 chords + the linear part, 1 for the rollouts (flat, p2a 1: lost = unmet).
    # Now 228: + 14 start rows of the delivered-through years 2027 and 2028 (2030 is one
    # too, but nothing trains then; 2029 and 2031 are opening years: the h100 cohort's
    # life ends, the rollouts begin, the 2026 purchases' lives end): the pre-training
    # run's 2 years on the 6 types it may train on (12), and h200's own place at texas
    # in 2027 and 2028 (2 per-site training rows).
    "baseline": {"variables": 237, "integer_variables": 60, "constraints": 228},
    # Same sets as the baseline: only the power caps differ.
    "power_constrained": {"variables": 237, "integer_variables": 60, "constraints": 228},
    # 9 hardware (MI325X, two TPUs and Trainium2 added, GB300 dropped). TPU and Trainium
    # are cloud-only (offers catalog): rented on demand or committed for 1 or 3 years,
    # never bought. Variables 331 = 36 buy + 3 kept + 36 installed + 24 rent (h200, two
    # TPUs, trn2) + 30 y + 40 x_train + 110 x_inf + 16 slacks + 36 commit (3 cloud-only
    # x 2 terms x 6 years); integers 69 = 36 + 3 + 30; constraints 177 = 36 fleet balance
    # + 2 no-return + 54 capacity + 8 training capacity + 3 + 3 + 40 training + 13 demand
    # + 6 power + 6 budget + 6 supply (gb200 only). (Was 281, 78, 179 with TPUs bought.)
    # Now 333 / 67 / 174: TPU v6e has no fp8 units, so the two fp8 runs cannot train on
    # it (y 28, x_train and cluster links 37); DeepSeek-V3 is servable on h100 over
    # several nodes (x_inf 117). Now 346 / 235: the baseline's 13 lost_inf and 61
    # lost_tokens rows (the same workloads). Now 253: 18 start rows (the pre-training
    # run's 2 years on the 8 types it may train on, and h200 at texas in 2027 and 2028).
    "vendor_shootout": {"variables": 346, "integer_variables": 67, "constraints": 253},
    # The base scenario of the tree (its futures edit demand and availability only):
    # the baseline's workloads and runs, half-yearly, with vr200-nvl144 from 2026H2.
    "stochastic_orders": {"variables": 506, "integer_variables": 113, "constraints": 511},
    # Two sites (the second a greenfield build), eight hardware types, three workloads
    # and a 90-day pretrain over 2026-2032.
    "frontier_lab": {"variables": 499, "integer_variables": 180, "constraints": 428},
}


@pytest.mark.parametrize("name", sorted(EXPECTED_SIZES))
def test_model_size_of_shipped_scenarios(name: str) -> None:
    scenario = load_scenario(SHIPPED / f"{name}.yaml")
    model = build_model(build_data(scenario, *throughput(scenario)))
    assert model_size(model) == EXPECTED_SIZES[name]


def test_every_shipped_scenario_has_a_recorded_size() -> None:
    assert {p.stem for p in SHIPPED.glob("*.yaml")} <= set(EXPECTED_SIZES)


@pytest.mark.parametrize("path", sorted(SHIPPED.glob("*.yaml")), ids=lambda p: p.stem)
def test_index_sets_hold_only_combinations_that_exist(path: Path) -> None:
    scenario = load_scenario(path)
    inference, training = throughput(scenario)
    data = build_data(scenario, inference, training)
    specs = hardware_specs(scenario)
    starts = {p.label: p.start for p in data.periods}
    assert all(specs[h].release_year <= starts[t] for h, _, t in data.buy_index)
    assert all(specs[h].release_year <= starts[t] for h, t in data.rent_index)
    servable = {
        (r.workload, r.hardware)
        for r in inference.itertuples()
        if r.servable and r.output_tokens_per_s_per_unit > 0
    }
    assert {(w, h) for w, _, h, _ in data.inf_index} <= servable
    assert all(data.inf_rate[(w, role, h)] > 0 for w, role, h, _ in data.inf_index)
    feasible = {(r.run, r.hardware) for r in training.itertuples() if r.feasible}
    assert {(r, h) for r, h, _, _ in data.train_index} <= feasible
    for r, _, _, t in data.train_index:
        first, last = data.train_window[r]
        assert first <= t <= last


def test_hardware_absent_before_its_release_year() -> None:
    scenario = load_scenario(HAND / "disaggregated.yaml")
    doc = scenario.model_dump(mode="python")
    doc["horizon"] = {"start": 2026, "years": 2}
    moved = type(scenario).model_validate(doc)
    data = build_data(moved, *throughput(moved))
    years = {t for h, _, t in data.buy_index if h == "rubin-cpx"}
    assert years == {2027}  # rubin-cpx ships in 2027


def test_build_and_solve_are_timed_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    started = time.perf_counter()
    with caplog.at_level(logging.INFO, logger="planner"):
        result = plan(scenario)
    elapsed = time.perf_counter() - started
    h = result.headline
    messages = [r.getMessage() for r in caplog.records]
    built = f"built MILP model in {h['build_seconds']:.3f} s: {h['variables']} variables"
    assert any(m.startswith(built) for m in messages)  # the headline's figures, logged
    assert any(m.startswith(f"solved with highs in {h['solve_seconds']:.2f} s") for m in messages)
    # Each step is timed on its own, inside the whole run.
    assert 0 < h["build_seconds"] < elapsed and 0 < h["solve_seconds"] < elapsed
    assert h["build_seconds"] + h["solve_seconds"] < elapsed
    assert 0 < h["handoff_seconds"] + h["solver_seconds"] <= h["solve_seconds"]
    size = model_size(build_model(build_data(scenario, *throughput(scenario))))
    # The headline sizes the cost stage of min_cost: the built model (all demand served,
    # so the service is held by bounds on the slacks, not by a row).
    assert (h["variables"], h["integer_variables"], h["constraints"]) == (
        size["variables"],
        size["integer_variables"],
        size["constraints"],
    )


def test_time_limit_returns_the_incumbent_with_its_gap() -> None:
    """vendor_shootout takes about a second to prove optimal at gap 0; HiGHS's
    heuristics find a plan within milliseconds. The first limit that yields a plan
    must yield it as FEASIBLE with a positive gap (on a busy machine the shortest
    limit may end before any plan: the next one is tried)."""
    scenario = load_scenario(SHIPPED / "vendor_shootout.yaml")
    data = build_data(scenario, *throughput(scenario))
    for limit in (0.01, 0.03, 0.1):
        result = solve(build_model(data), SolverOptions(mip_gap=0.0, time_limit_s=limit))
        assert result.termination == Termination.TIME_LIMIT
        if result.status != SolveStatus.NO_SOLUTION:
            break
    assert result.status == SolveStatus.FEASIBLE
    assert result.objective is not None and result.bound is not None
    assert result.objective > result.bound
    assert result.gap == pytest.approx((result.objective - result.bound) / result.objective)


def test_no_time_at_all_is_no_solution_without_objective_or_gap() -> None:
    scenario = load_scenario(SHIPPED / "vendor_shootout.yaml")
    model = build_model(build_data(scenario, *throughput(scenario)))
    result = solve(model, SolverOptions(mip_gap=0.0, time_limit_s=0.0))
    assert (result.status, result.termination) == (SolveStatus.NO_SOLUTION, Termination.TIME_LIMIT)
    assert (result.objective, result.bound, result.gap) == (None, None, None)
    assert all(v.value is None for v in model.buy.values())  # nothing loaded


def test_no_plan_at_all_is_a_solver_error() -> None:
    scenario = load_scenario(SHIPPED / "vendor_shootout.yaml")
    with pytest.raises(SolverError) as raised:
        plan(scenario, time_limit_s=1e-6, mip_gap=0.0)
    assert raised.value.exit_code == 3


def test_unregistered_solver_is_bad_input_and_a_missing_one_a_solver_error() -> None:
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    with pytest.raises(InputError, match="no-such-solver") as refused:
        plan(scenario, solver="no-such-solver")
    assert refused.value.exit_code == 2 and "solver.name" in str(refused.value)
    with pytest.raises(SolverError, match="xpress"):
        plan(scenario, solver="xpress")  # registered, not installed here


def _shadow(result, limit: str, year: int):  # type: ignore[no-untyped-def]
    frame = result.tables["shadow_prices"]
    rows = frame[(frame["limit"] == limit) & (frame["year"] == year)]
    return rows.iloc[0]


def test_lp_power_dual_lies_between_finite_difference_slopes() -> None:
    scenario = load_scenario(HAND / "power_switch.yaml")
    path = "sites[dc].power_cap_mw.2027"
    result = plan(scenario, relax=True, marginals=[path])
    dual = _shadow(result, "power", 2027)
    assert dual["method"] == "LP relaxation" and dual["value"] > 0
    fd = result.tables["marginals"].iloc[0]
    assert fd["method"] == "LP finite difference" and fd["subject"] == path
    assert fd["slope_up"] - 1e-6 * dual["value"] <= dual["value"]
    assert dual["value"] <= fd["slope_down"] + 1e-6 * dual["value"]


def test_milp_marginal_of_power_is_labelled_and_nonnegative() -> None:
    scenario = load_scenario(HAND / "power_switch.yaml")
    result = plan(scenario, marginals=["sites[dc].power_cap_mw.2027", "finance.wacc"])
    fd = result.tables["marginals"].set_index("subject")
    row = fd.loc["sites[dc].power_cap_mw.2027"]
    assert row["method"] == "MILP finite difference"
    assert row["slope_up"] >= 0 and row["slope_down"] >= 0  # more power never costs more
    assert row["step"] == pytest.approx(0.001)  # 1% of the 0.1 MW cap
    shadow = result.tables["shadow_prices"]
    assert set(shadow["method"]) == {"LP relaxation", "MILP finite difference"}


def test_marginal_of_a_bad_path_is_an_input_error() -> None:
    from planner.errors import InputError

    scenario = load_scenario(HAND / "power_switch.yaml")
    with pytest.raises(InputError, match="did you mean"):
        plan(scenario, marginals=["sites[dc].power_cap_mww.2027"])
    with pytest.raises(InputError, match="add the year"):
        plan(scenario, marginals=["inference[chat].tokens_per_day"])


def test_demand_shadow_price_is_the_unit_cost_of_a_token() -> None:
    scenario = load_scenario(HAND / "one_hardware_one_year.yaml")
    inference, _ = throughput(scenario)
    tau = float(
        inference.loc[inference["hardware"] == "h100-hgx", "output_tokens_per_s_per_unit"].iloc[0]
    )
    running = 10.2 * 1.25 * 0.8 * 8760 * 0.07 + 10.2 * 1500 + 0.03 * 280_000
    per_unit = 280_000 + running - 280_000 * 0.8 / 1.1
    result = plan(scenario, relax=True)
    row = _shadow(result, "demand", 2026)
    # +1 Mtok/day of average demand needs 1.5 Mtok/day of peak capacity.
    assert row["value"] == pytest.approx(per_unit * 1.5 / (tau * 86_400 / 1e6), rel=1e-6)


def test_budget_shadow_price_is_positive_when_it_binds() -> None:
    result = plan(load_scenario(HAND / "budget_shortfall.yaml"), relax=True)
    row = _shadow(result, "budget", 2026)
    assert row["unit"].startswith("saved per USD of budget") and row["value"] > 1
