"""Benchmark ``planner stochastic``: the deterministic equivalent against progressive
hedging on a scenario's ``uncertainty:`` tree, each timed in its own process.

    python bench/stochastic.py                                   # the shipped tree
    python bench/stochastic.py scenarios/stochastic_orders.yaml --workers 2

Per method: the first-stage solve's size (the equivalent's columns and rows), wall and
CPU seconds of the whole two-stage plan (first stage, then each future re-solved with
it fixed; no wait-and-see or mean-value solves; CPU includes hedging's workers), peak
memory, the expected NPV cost, the equivalent's gap on cost or hedging's iterations
and its bound's gap to the plans' expected cost, and whether both first stages are the
same. The checker runs on every plan.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "scenarios" / "stochastic_orders.yaml"


def measure(path: Path, method: str, workers: int) -> dict[str, Any]:
    """One method's figures, in this process."""
    from planner.analysis.executors import ExecutorChoice
    from planner.scenario import load_scenario
    from planner.stochastic.check import check_tree
    from planner.stochastic.solve import solve_tree
    from planner.stochastic.values import figures

    scenario = load_scenario(path)
    before = _cpu()
    started = time.perf_counter()
    result = solve_tree(
        scenario, values=False, method=method, executor=ExecutorChoice(workers=workers)
    )
    wall = time.perf_counter() - started
    cpu = _cpu() - before
    head = figures(result)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    hedging = head.get("hedging") or {}
    first = {
        f"{family} {key}": value
        for family, by_key in result.first_stage.items()
        for key, value in by_key.items()
        if abs(value) > 1e-9
    }
    return {
        "method": method,
        "futures": head["futures"],
        "columns": result.equivalent.get("columns"),
        "rows": result.equivalent.get("rows"),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "peak_memory_mib": round(usage.ru_maxrss / 1024),
        "expected_npv_cost_usd": round(head["expected_npv_cost_usd"]),
        "equivalent_cost_gap": result.equivalent.get("cost_gap"),
        "hedging_iterations": hedging.get("iterations"),
        "hedging_gap_to_plans": hedging.get("gap_to_plans"),
        "first_stage": json.dumps(first, sort_keys=True),
        "checker_problems": len(check_tree(result)),
    }


def _cpu() -> float:
    """CPU seconds of this process and its finished children (hedging's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("scenario", nargs="?", type=Path, default=SHIPPED)
    parser.add_argument("--workers", type=int, default=0, help="hedging's local pool (0: here)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.scenario, args.child, args.workers)))
        return 0
    rows = []
    for method in ("equivalent", "hedging"):
        command = [sys.executable, __file__, str(args.scenario), "--child", method]
        done = subprocess.run(
            [*command, "--workers", str(args.workers)], capture_output=True, text=True
        )
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return done.returncode
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    same = rows[0].pop("first_stage") == rows[1].pop("first_stage")
    for key in rows[0]:
        print(f"{key:<24}" + "".join(f"{r[key]!s:>22}" for r in rows))
    print(f"{'same first stage':<24}{same!s:>22}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
