"""Benchmark the optimiser on generated scenarios (issue 7, item 3).

    python bench/run.py                     # S M L XL
    python bench/run.py S M L --out bench.csv
    python bench/run.py XL --time-limit 600 --strategy lp-first

Each size runs in its own process (so peak memory is that size's alone): generate the
scenario (bench/generate.py, seed 0), run the perf model, then time each step of
``planner run`` separately — ModelData, the Pyomo build, the hand-off to HiGHS, HiGHS's
own solve, loading and extracting the solution, the results tables and the workbook —
and finally time handing the same model's arrays to highspy directly
(bench/highspy_direct.py), the floor of any hand-off. Prints one row per size and
writes the same as CSV (``--out``). Column meanings: bench/README.md.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import inspect
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
SIZES = ("S", "M", "L", "XL")
STAGES = (
    "perf_s",
    "data_s",
    "build_s",
    "handoff_s",
    "solve_s",
    "load_s",
    "extract_s",
    "results_s",
    "workbook_s",
)
"""Timed stages of one run, in order; ``total_s`` is their sum."""
COLUMNS = (
    "size",
    "periods",
    "variables",
    "integer_variables",
    "continuous_variables",
    "constraints",
    "nonzeros",
    *STAGES,
    "total_s",
    "peak_memory_mib",
    "strategy",
    "status",
    "objective_usd",
    "mip_gap",
    "read_rows_s",
    "direct_pass_s",
    "array_mib",
    "overhead_vs_solve",
    "handoff_vs_direct",
)
"""CSV columns; ``read_rows_s``: the part of the hand-off that reads the Pyomo rows
into arrays; ``direct_pass_s``: the same arrays into a new ``highspy.Highs``;
``array_mib``: what those arrays hold; ``overhead_vs_solve`` = (build + hand-off) /
HiGHS solve time, ``handoff_vs_direct`` = hand-off / direct pass."""


def _load(name: str) -> ModuleType:
    """A sibling script as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def write_workbook(plan: Any, scenario: Any, path: Path, tables: Any) -> Path:
    """The workbook ``planner run`` writes: the analyst workbook when it exists, else the
    plain one (the call adapts to whichever exporter is installed)."""
    try:
        from planner.export.excel import write_workbook as analyst
    except ImportError:
        analyst = None
    if analyst is not None:
        accepted = inspect.signature(analyst).parameters
        extra = {"throughput": tables} if "throughput" in accepted else {}
        return Path(analyst(plan, scenario, path, **extra))
    from planner.export.simple import write_plan_workbook

    return Path(write_plan_workbook(plan, path))


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def measure(size: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every figure of one size, in this process."""
    from dataclasses import replace

    from planner.optimize import build_data, build_model, extract, solve
    from planner.optimize.data import USD_SCALE
    from planner.optimize.model import model_size
    from planner.optimize.solvers.highs import new_highs
    from planner.optimize.strategy import resolve, round_plan
    from planner.pipeline import solver_options, throughput
    from planner.results import build_plan
    from planner.scenario import load_scenario

    generate = _load("generate")
    direct = _load("highspy_direct")
    new_highs()  # import highspy and swallow its banner before any clock: once a process
    row: dict[str, Any] = {"size": size}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{size}.yaml"
        path.write_text(generate.generate(size, args.seed, args.periods_per_year))
        scenario = load_scenario(path)
        row["periods"] = scenario.horizon.period_count
        started = time.perf_counter()
        tables = throughput(scenario)
        row["perf_s"] = time.perf_counter() - started
        started = time.perf_counter()
        data = build_data(scenario, *tables)
        row["data_s"] = time.perf_counter() - started
        started = time.perf_counter()
        model = build_model(data)
        row["build_s"] = time.perf_counter() - started
        size_now = model_size(model)
        row["variables"] = size_now["variables"]
        row["integer_variables"] = size_now["integer_variables"]
        row["continuous_variables"] = size_now["variables"] - size_now["integer_variables"]
        row["constraints"] = size_now["constraints"]
        options = solver_options(
            scenario,
            time_limit_s=args.time_limit,
            threads=args.threads,
            strategy=args.strategy,
            mip_gap=args.mip_gap,
        )
        strategy = resolve(options.strategy, options.name, row["variables"], relax=False)
        row["strategy"] = strategy
        rounding = round_plan if strategy == "lp-first" else None
        result = solve(model, replace(options, strategy=strategy), rounding=rounding)
        handoff, solver = result.handoff_seconds or 0.0, result.solver_seconds or 0.0
        row["handoff_s"], row["solve_s"] = handoff, solver
        row["load_s"] = result.load_seconds
        row["nonzeros"] = result.nonzeros
        row["status"] = result.status.value
        row["objective_usd"] = None if result.objective is None else result.objective * USD_SCALE
        row["mip_gap"] = result.gap
        if result.status.has_solution:
            started = time.perf_counter()
            solution = extract(model, data)
            row["extract_s"] = time.perf_counter() - started
            started = time.perf_counter()
            plan = build_plan(
                data, solution, status=result.status.value, headline={}, throughput=tables
            )
            row["results_s"] = time.perf_counter() - started
            if not args.no_workbook:
                started = time.perf_counter()
                write_workbook(plan, scenario, Path(tmp) / f"{size}.xlsx", tables)
                row["workbook_s"] = time.perf_counter() - started
        row["peak_memory_mib"] = _peak_mib()  # before the direct build below
        row["total_s"] = sum(row.get(k) or 0.0 for k in STAGES)
        del model
        figures, _, _ = direct.measure(data)  # a fresh model of the same data
        row["read_rows_s"] = figures.read_seconds
        row["direct_pass_s"] = figures.pass_seconds
        row["array_mib"] = figures.array_mib
    overhead = row["build_s"] + row["handoff_s"]
    row["overhead_vs_solve"] = overhead / row["solve_s"] if row["solve_s"] else None
    row["handoff_vs_direct"] = row["handoff_s"] / row["direct_pass_s"]
    return row


def _child_command(size: str, args: argparse.Namespace) -> list[str]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", size, "--seed"]
    command.append(str(args.seed))
    for flag, value in (
        ("--time-limit", args.time_limit),
        ("--threads", args.threads),
        ("--strategy", args.strategy),
        ("--mip-gap", args.mip_gap),
        ("--periods-per-year", args.periods_per_year),
    ):
        if value is not None:
            command += [flag, str(value)]
    if args.no_workbook:
        command.append("--no-workbook")
    return command


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if abs(value) >= 1e5:
            return f"{value:.4g}"
        return f"{value:.3g}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def print_table(rows: list[dict[str, Any]]) -> None:
    """One line per column, one column per size (wide tables do not fit a terminal)."""
    width = max(len(c) for c in COLUMNS)
    print(f"{'':<{width}}  " + "".join(f"{r['size']:>12}" for r in rows))
    for column in COLUMNS[1:]:
        cells = "".join(f"{_cell(r.get(column)):>12}" for r in rows)
        print(f"{column:<{width}}  {cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=str.upper, help="S, M, L, XL (default all)")
    parser.add_argument("--out", type=Path, help="also write the rows to this CSV file")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--time-limit", type=float, help="override the scenario's limit (s)")
    parser.add_argument("--mip-gap", type=float, help="override the scenario's MIP gap")
    parser.add_argument("--threads", type=int, help="HiGHS threads")
    parser.add_argument(
        "--strategy", choices=("auto", "direct", "lp-first"), help="solver strategy"
    )
    parser.add_argument("--periods-per-year", type=int, help="override the size's default")
    parser.add_argument("--no-workbook", action="store_true", help="skip the workbook")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args)))
        return 0
    sizes = args.sizes or list(SIZES)
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        parser.error(f"unknown size {unknown[0]}; choose from {', '.join(SIZES)}")
    rows = []
    for size in sizes:
        done = subprocess.run(_child_command(size, args), capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{size} failed:\n{done.stderr}", file=sys.stderr)
            return 1
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{size}: done in {rows[-1]['total_s']:.1f} s", file=sys.stderr, flush=True)
    print_table(rows)
    if args.out:
        with args.out.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
