"""bench/generate.py writes valid, deterministic scenarios of the stated sizes."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from planner.catalog import hardware_catalog
from planner.scenario import hardware_specs, load_scenario
from planner.scenario.yamlio import read_yaml

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "generate.py"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_generate", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # so its classes resolve their module, as on import
    spec.loader.exec_module(module)
    return module


generate = _load_generator()


@pytest.fixture(scope="module")
def m_text() -> str:
    return generate.generate("M", seed=0)


@pytest.mark.parametrize("size", ["S", "M", "L", "XL", "H"])
def test_every_size_loads_with_yearly_periods(size: str, tmp_path: Path) -> None:
    path = tmp_path / f"{size}.yaml"
    assert generate.main([size, "--seed", "3", "--periods-per-year", "1", "--out", str(path)]) == 0
    scenario = load_scenario(path)
    assert scenario.horizon.periods_per_year == 1
    if size == "S":
        assert scenario == load_scenario(generate.BASELINE)
        return
    stated = generate.SIZES[size]
    assert scenario.horizon.years == stated.years
    assert len(scenario.hardware) == stated.hardware
    assert len(scenario.inference) == stated.workloads
    assert len(scenario.sites) == stated.sites
    assert len(scenario.training) == stated.runs
    assert sum(r.rollout_tokens is not None for r in scenario.training) >= 1
    assert sum(r.rollout_tokens is None for r in scenario.training) >= 2
    assert len({r.hardware for r in scenario.rental}) >= 2
    assert scenario.existing_fleet[0].site == scenario.sites[0].name
    assert scenario.budget.capex_usd is not None
    assert any(h.max_units_per_year is not None for h in scenario.hardware)
    assert len({h.id for h in scenario.hardware}) == stated.hardware
    # Past the catalog's servable systems (XL), variants copy every field of a catalog row.
    variants = {i: spec for i, spec in hardware_specs(scenario).items() if i.endswith("-v2")}
    assert variants or size != "XL"
    for hardware_id, spec in variants.items():
        base = hardware_catalog()[hardware_id.removesuffix("-v2")]
        assert spec.memory_gb == base.memory_gb and spec.as_of == base.as_of
        assert spec.source.startswith("Synthetic benchmark variant")


def test_m_has_the_stated_counts(m_text: str, tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(m_text)
    doc = read_yaml(path)[0]  # the planner's YAML reader; the schema takes 1 period today
    assert doc["horizon"] == {"start": 2026, "years": 6, "periods_per_year": 4}
    assert len(doc["hardware"]) == 12
    assert len(doc["inference"]) == 10
    assert len(doc["sites"]) == 2
    assert len(doc["training"]) == 3
    assert m_text.startswith("# Benchmark scenario size M, seed 0")


def test_power_caps_sit_below_the_estimated_need() -> None:
    size = generate.SIZES["M"]
    doc = generate.build(size, random.Random(0), 1)
    pue = sum(s["pue"] for s in doc["sites"]) / len(doc["sites"])
    need = generate.demand_mw(doc, pue)
    last = max(need)
    total_cap = sum(s["power_cap_mw"][last] for s in doc["sites"])
    assert total_cap < need[last]


def test_same_seed_same_bytes_other_seed_differs(m_text: str) -> None:
    assert generate.generate("M", seed=0) == m_text
    assert generate.generate("M", seed=1) != m_text


@pytest.mark.parametrize("seed", [0])
def test_at_least_95_percent_of_demand_can_be_served(seed: int, tmp_path: Path) -> None:
    """The limits leave room for 95 % of the demand: the LP of the service stage (serve
    the most the limits allow, purchases continuous: a bound on any plan) leaves at most
    5 % of the output tokens and none of the training unserved."""
    from dataclasses import replace

    from planner.optimize import build_data
    from planner.optimize.objective import ServiceFirst
    from planner.pipeline import build_and_solve, solver_options, throughput
    from planner.units import MTOK

    path = tmp_path / "m.yaml"
    assert (
        generate.main(["M", "--seed", str(seed), "--periods-per-year", "1", "--out", str(path)])
        == 0
    )
    scenario = load_scenario(path)
    data = build_data(scenario, *throughput(scenario), relax=True)
    options = replace(solver_options(scenario), mip_gap=None)
    result, solution, _ = build_and_solve(data, options, extend=ServiceFirst())
    assert solution is not None and result.status.value == "optimal"
    demanded = sum(data.period_length[t] * v for (w, t), v in data.demand_tokens_per_day.items())
    unmet = sum(data.period_length[t] * v * MTOK for (w, t), v in solution.lost_inf.items())
    assert unmet / demanded <= 0.05
    assert sum(solution.unmet_train.values()) == pytest.approx(0.0, abs=1e-9)


def test_bench_models_are_long_context_catalog_models() -> None:
    """The workloads' contexts reach 128k tokens: every listed model must hold them."""
    from planner.catalog import model_catalog

    assert all(model_catalog()[m].max_context_tokens >= 131072 for m in generate.BENCH_MODELS)
