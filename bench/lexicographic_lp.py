"""Time the two LP relaxations of min_cost's lexicographic solve on a generated size.

    python bench/lexicographic_lp.py L ipmx primal   # service LP by IPM + crossover,
                                                     # then the cost LP warm by primal simplex
    python bench/lexicographic_lp.py XL ipmx ipm     # ... or the cost LP by IPM again

The service stage's LP (minimise the weighted unserved share) is solved first; then, in
the same HiGHS instance, the service is held (one row) and the objective switched to the
NPV cost, and the cost stage's LP is solved from there. Prints each stage's seconds,
status and objective. Second argument: ipm (no crossover), ipmx (with) or pdlp; third:
the cost stage's HiGHS solver (default choose). Results: bench/README.md.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent


def _generate(size: str) -> Path:
    spec = importlib.util.spec_from_file_location("generate", HERE / "generate.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    path = Path(tempfile.mkdtemp()) / f"{size}.yaml"
    path.write_text(gen.generate(size, 0, None))
    return path


def main(size: str, service_mode: str, cost_solver: str = "choose") -> None:
    """Print the seconds, status and objective of each stage's LP relaxation."""
    sys.path.insert(0, str(HERE.parent))
    from pyomo.repn import generate_standard_repn

    from planner.optimize import build_data, build_model
    from planner.optimize.objective import ServiceFirst, npv_cost, unserved_share
    from planner.optimize.solvers.handoff import highs_model
    from planner.pipeline import throughput
    from planner.scenario import load_scenario

    scenario = load_scenario(_generate(size))
    started = time.perf_counter()
    data = build_data(scenario, *throughput(scenario), relax=True)
    model = build_model(data)
    ServiceFirst()(model, data)
    bridge = highs_model(model)
    highs = bridge.highs
    print(f"built and handed over in {time.perf_counter() - started:.1f} s", flush=True)
    column = {id(v): j for j, v in enumerate(bridge.columns)}

    def coefficients(expr: Any) -> tuple[np.ndarray, np.ndarray]:
        repn = generate_standard_repn(expr, compute_values=True)
        index = np.array([column[id(v)] for v in repn.linear_vars], dtype=np.int32)
        return index, np.array(repn.linear_coefs, dtype=float)

    highs.setOptionValue("time_limit", 1200.0)
    if service_mode in ("ipm", "ipmx"):
        highs.setOptionValue("solver", "ipm")
        highs.setOptionValue("run_crossover", "on" if service_mode == "ipmx" else "off")
    elif service_mode == "pdlp":
        highs.setOptionValue("solver", "pdlp")
    started = time.perf_counter()
    highs.run()
    unserved = highs.getInfo().objective_function_value
    print(
        f"service LP ({service_mode}): {time.perf_counter() - started:.1f} s, "
        f"{highs.getModelStatus()}, objective {unserved:.6g}",
        flush=True,
    )
    index, values = coefficients(unserved_share(model, data))
    highs.addRow(-np.inf, unserved * (1 + 1e-8) + 1e-6, len(index), index, values)
    index, values = coefficients(npv_cost(model, data))
    count = highs.getNumCol()
    cost = np.zeros(count)
    cost[index] = values
    highs.changeColsCost(count, np.arange(count, dtype=np.int32), cost)
    highs.setOptionValue("solver", cost_solver)
    started = time.perf_counter()
    highs.run()
    print(
        f"cost LP ({cost_solver}): {time.perf_counter() - started:.1f} s, "
        f"{highs.getModelStatus()}, objective {highs.getInfo().objective_function_value:.6g}",
        flush=True,
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
