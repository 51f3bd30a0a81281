"""bench/highspy_direct.py compares hand-offs of the planner's own model (no formulation
of its own): the same columns, rows and nonzeros as the model, and the same optimum."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from planner.optimize import build_data
from planner.optimize.model import model_size
from planner.pipeline import throughput
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "highspy_direct.py"
BASELINE = ROOT / "scenarios" / "baseline.yaml"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_highspy_direct", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


direct = _load()


def test_it_measures_the_planner_s_own_model() -> None:
    scenario = load_scenario(BASELINE)
    figures, model, arrays = direct.measure(build_data(scenario, *throughput(scenario)))
    size = model_size(model)
    # The baseline's 224 variables and 153 rows (tests/optimize/test_optimize_model.py);
    # 565 nonzeros (551 before DeepSeek-V3 became servable on h100: 7 more x_inf).
    assert (figures.columns, figures.rows, figures.nonzeros) == (224, 153, 565)
    assert (size["variables"], size["constraints"]) == (224, 153)
    # buy (36) and kept (3) first, then installed (36) and rent (6), then y (21).
    assert list(arrays.integers) == [*range(39), *range(81, 102)]
    assert figures.build_seconds > 0 and figures.read_seconds > 0 and figures.pass_seconds > 0
    assert figures.planner_handoff_seconds == figures.read_seconds + figures.pass_seconds
    # 9 arrays: 224 columns x 3 doubles, 153 rows x 2 doubles, 154 + 565 int32 starts
    # and indices, 565 doubles, 60 int32 integer columns.
    expected = (224 * 3 * 8 + 153 * 2 * 8 + (154 + 565) * 4 + 565 * 8 + 60 * 4) / 2**20
    assert figures.array_mib == pytest.approx(expected)


def test_the_bare_arrays_and_the_planner_reach_the_same_lp_optimum(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert direct.main([str(BASELINE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("224 columns, 153 rows, 565 nonzeros")
    # 3,458.545114 before time-shared batches lifted some baseline rows by up to 0.01%
    assert "objective: bare arrays 3,458.423991, planner 3,458.423991 (USD M)" in out
