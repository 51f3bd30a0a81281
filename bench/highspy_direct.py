"""How much of the hand-off to HiGHS is Pyomo's, on the planner's own model.

The formulation lives once, in planner/optimize (one function per constraint family);
this script builds the model through that path (``build_model``) and times the
planner's hand-off (``highs_model``: read the Pyomo rows into arrays, then one
``passModel``) against passing the same arrays to a fresh ``highspy.Highs`` directly —
the floor of any hand-off, whatever builds the arrays. It then solves the LP both ways
and checks that the optima agree.

    python bench/highspy_direct.py scenario.yaml      # times and the two LP optima
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.model import build_model
from planner.optimize.solvers.handoff import Arrays, model_arrays, pass_arrays


@dataclass(frozen=True)
class HandOff:
    """Times (s) of one model's build and hand-off, and the size of what HiGHS got."""

    build_seconds: float
    """ModelData → Pyomo model (planner.optimize.build_model)."""
    read_seconds: float
    """Pyomo model → arrays (the planner's hand-off, before ``passModel``)."""
    pass_seconds: float
    """Arrays → a new ``highspy.Highs`` (one ``passModel``): the direct hand-off."""
    columns: int
    rows: int
    nonzeros: int
    array_mib: float
    """Memory the arrays hold (what a model built as arrays alone would need)."""

    @property
    def planner_handoff_seconds(self) -> float:
        """The planner's whole hand-off: read the rows, then pass the arrays."""
        return self.read_seconds + self.pass_seconds


def _array_mib(arrays: Arrays) -> float:
    held = (
        arrays.col_lower,
        arrays.col_upper,
        arrays.cost,
        arrays.row_lower,
        arrays.row_upper,
        arrays.start,
        arrays.index,
        arrays.value,
        arrays.integers,
    )
    return sum(a.nbytes for a in held) / 2**20


def measure(data: ModelData) -> tuple[HandOff, pyo.ConcreteModel, Arrays]:
    """Build ``data``'s model the planner's way and time both hand-offs."""
    started = time.perf_counter()
    model = build_model(data)
    built = time.perf_counter() - started
    started = time.perf_counter()
    arrays = model_arrays(model)
    read = time.perf_counter() - started
    started = time.perf_counter()
    pass_arrays(arrays)
    passed = time.perf_counter() - started
    figures = HandOff(
        build_seconds=built,
        read_seconds=read,
        pass_seconds=passed,
        columns=len(arrays.col_lower),
        rows=len(arrays.row_lower),
        nonzeros=len(arrays.value),
        array_mib=_array_mib(arrays),
    )
    return figures, model, arrays


def main(argv: list[str] | None = None) -> int:
    """Time ``FILE``'s LP hand-offs, solve it through the planner and from the bare
    arrays, and compare the optima (exit 1 when they differ)."""
    from dataclasses import replace

    from planner.optimize import SolverOptions, build_data, solve
    from planner.pipeline import throughput
    from planner.scenario import load_scenario

    path = Path((argv or sys.argv[1:])[0])
    scenario = load_scenario(path)
    data = replace(build_data(scenario, *throughput(scenario)), relax=True)
    figures, model, arrays = measure(data)
    print(
        f"{figures.columns:,} columns, {figures.rows:,} rows, {figures.nonzeros:,} nonzeros "
        f"({figures.array_mib:.1f} MiB of arrays); build {figures.build_seconds:.3f} s, "
        f"planner hand-off {figures.planner_handoff_seconds:.3f} s "
        f"(reading rows {figures.read_seconds:.3f} s), "
        f"arrays to highspy directly {figures.pass_seconds:.3f} s"
    )
    direct = pass_arrays(arrays)
    direct.run()
    objective = direct.getInfo().objective_function_value
    result = solve(model, SolverOptions())
    print(f"objective: bare arrays {objective:,.6f}, planner {result.objective:,.6f} (USD M)")
    agree = result.objective is not None and abs(objective - result.objective) <= 1e-6 * max(
        1.0, abs(objective)
    )
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
