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
    # The baseline's 237 variables and 228 rows (tests/optimize/test_optimize_model.py);
    # 743 nonzeros (551 before DeepSeek-V3 became servable on h100: 7 more x_inf; 565
    # before the load shape's 13 lost_inf and 61 lost-tokens rows of 2 nonzeros each;
    # 687 before the 14 start rows of delivered-through years).
    assert (figures.columns, figures.rows, figures.nonzeros) == (237, 228, 743)
    assert (size["variables"], size["constraints"]) == (237, 228)
    # buy (36) and kept (3) first, then installed (36) and rent (6), then y (21).
    assert list(arrays.integers) == [*range(39), *range(81, 102)]
    assert figures.build_seconds > 0 and figures.read_seconds > 0 and figures.pass_seconds > 0
    assert figures.planner_handoff_seconds == figures.read_seconds + figures.pass_seconds
    # 9 arrays: 237 columns x 3 doubles, 228 rows x 2 doubles, 229 + 743 int32 starts
    # and indices, 743 doubles, 60 int32 integer columns.
    expected = (237 * 3 * 8 + 228 * 2 * 8 + (229 + 743) * 4 + 743 * 8 + 60 * 4) / 2**20
    assert figures.array_mib == pytest.approx(expected)


def test_the_bare_arrays_and_the_planner_reach_the_same_lp_optimum(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert direct.main([str(BASELINE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("237 columns, 228 rows, 743 nonzeros")
    # 2,852.860438 before the shipped calibration became the default, 3,004.412738 before
    # training rates scaled with cluster size and fp8 trained at its measured MFU,
    # 3,001.153604 before engines capped their running sequences, 3,000.620276 before
    # list prices held until each part's successor ships
    assert "objective: bare arrays 3,380.342863, planner 3,380.342863 (USD M)" in out
