"""Benchmark the optimiser on generated scenarios (issue 7, item 3).

    python bench/run.py                     # S M L XL
    python bench/run.py S M L --out bench.csv
    python bench/run.py XL --time-limit 600 --strategy lp-first
    python bench/run.py L --two-stages      # what-if: without the one-solve attempt

Each size runs in its own process (so peak memory is that size's alone): generate the
scenario (bench/generate.py, seed 0), run the perf model, then time each step of
``planner run`` separately — ModelData, the service stage of the lexicographic solve,
the cost stage's Pyomo build, hand-off and HiGHS solve, loading the solution, the
results tables, the shadow-price LP, the LP re-solves behind the diagnosis and the
workbook — and finally time handing the same model's arrays to highspy directly
(bench/highspy_direct.py), the floor of any hand-off. The gap reported is the cost
stage's, on NPV cost alone; the unmet shares are reported apart from it. Prints one row per size and
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
    "lost_s",
    "service_s",
    "build_s",
    "handoff_s",
    "cost_solve_s",
    "load_s",
    "results_s",
    "shadow_s",
    "relief_s",
    "workbook_s",
)
"""Timed stages of one run, in order; ``total_s`` is their sum. ``service_s`` is the
service stage whole (its build, hand-off and solve); ``build_s`` and ``handoff_s``
are the cost stage's; ``lost_s`` the one solve with every slack at 0 when it proved
infeasible (``service_path`` says which way the plan was made: ``one`` solve, ``two``
stages, or ``one, two``: the one proved infeasible, then the two). A run that ends
without a plan books the time ``min_cost`` took beyond the stages it reported in
``cost_solve_s``."""
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
    "cpu_s",
    "service_solve_s",
    "solve_s",
    "peak_memory_mib",
    "strategy",
    "service_path",
    "service_status",
    "service_gap",
    "status",
    "npv_cost_usd",
    "cost_gap",
    "unmet_inference_share",
    "unmet_training_share",
    "relief_solves",
    "read_rows_s",
    "direct_pass_s",
    "array_mib",
    "overhead_vs_solve",
    "handoff_vs_direct",
)
"""CSV columns. The solve is ``planner run``'s, lexicographic: ``service_solve_s`` is
HiGHS's time in the service stage (serve the most the limits allow), ``cost_solve_s``
in the cost stage (least NPV cost with that service held), ``solve_s`` both;
``cost_gap`` is the cost stage's gap (a gap on NPV cost, no penalty in it) and
``service_gap`` the service stage's own (its target ``planner.pipeline.SERVICE_GAP``,
or ``--service-gap``), ``unmet_inference_share`` / ``unmet_training_share`` the shares
of demanded output tokens / training FLOP left unserved, reported apart from it.
``shadow_s``: the LP relaxation for the shadow prices; ``relief_s``: the LP re-solves
with binding limits lifted (``relief_solves`` of them) behind the diagnosis.
``read_rows_s``: the part of the hand-off that reads the Pyomo rows into arrays;
``direct_pass_s``: the same arrays into a new ``highspy.Highs``; ``array_mib``: what
those arrays hold; ``overhead_vs_solve`` = (build + hand-off) / HiGHS solve time (both
stages), ``handoff_vs_direct`` = hand-off / direct pass. ``cpu_s``: the process's CPU
time up to the workbook (user + system, all threads), which a machine loaded by other
jobs moves less than the wall-clock stages."""


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


def _share(unmet: float, total: float) -> float:
    return unmet / total if total > 0 else 0.0


def measure(size: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every figure of one size, in this process."""
    from planner.deadline import Deadline, TimeLimitError
    from planner.optimize import build_data, build_model
    from planner.optimize.model import model_size
    from planner.optimize.objective import service_scale
    from planner.optimize.solvers.highs import new_highs
    from planner.pipeline import (
        ONE_INSTANCE,
        ONE_STAGE,
        TWO_STAGES,
        lexicographic_status,
        lp_duals,
        lp_min_cost,
        min_cost,
        service_headline,
        solver_options,
        throughput,
    )
    from planner.relief import relief_tables
    from planner.results import build_plan
    from planner.scenario import load_scenario
    from planner.units import USD_SCALE

    if args.service_gap is not None:  # a what-if: the service stage to a looser gap
        import planner.pipeline

        planner.pipeline.SERVICE_GAP = args.service_gap
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
        size_now = model_size(build_model(data))
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
        # As planner run solves: the service stage, then the cost stage with the service
        # held, both inside the run's time limit.
        solving = time.perf_counter()
        with Deadline(options.time_limit_s or float("inf")):
            result, solution, stage, service = min_cost(
                data,
                options,
                serve_all_first=not args.two_stages,
                one_instance=not args.separate_stages,
            )
        row["strategy"] = stage["strategy"]
        path = stage.get("service_path")
        row["service_path"] = {ONE_STAGE: "one", TWO_STAGES: "two", ONE_INSTANCE: "instance"}.get(
            path, "one, two"
        )
        row["lost_s"] = stage.get("lost_seconds")
        row["build_s"] = stage["build_seconds"]
        row["handoff_s"] = stage["handoff_seconds"]
        one = path == ONE_STAGE  # no service stage ran (the one solve is the cost stage)
        row["service_solve_s"] = None if one else service.solver_seconds
        row["service_s"] = None if one else service.seconds
        row["cost_solve_s"] = result.solver_seconds if one or result is not service else None
        row["solve_s"] = (row["service_solve_s"] or 0.0) + (row["cost_solve_s"] or 0.0)
        booked = sum(row.get(k) or 0.0 for k in ("lost_s", "service_s", "build_s", "handoff_s"))
        unbooked = time.perf_counter() - solving - booked - (row["cost_solve_s"] or 0.0)
        if solution is None and unbooked > 1.0:  # no plan: no stage reported its time
            row["cost_solve_s"] = (row["cost_solve_s"] or 0.0) + unbooked
            row["solve_s"] += unbooked
        row["load_s"] = result.load_seconds
        row["nonzeros"] = result.nonzeros
        row["service_status"] = service_headline(service, result, 1.0)["service_status"]
        row["service_gap"] = service.gap
        row["status"] = lexicographic_status(service, result).value
        row["npv_cost_usd"] = None if result.objective is None else result.objective * USD_SCALE
        row["cost_gap"] = result.gap
        if solution is not None:
            started = time.perf_counter()
            headline = service_headline(service, result, service_scale(data))
            plan = build_plan(data, solution, status=row["status"], headline=headline)
            row["results_s"] = time.perf_counter() - started
            served, training = plan.tables["served"], plan.tables["training"]
            demanded = float((served["served_tokens"] + served["unmet_tokens"]).sum())
            row["unmet_inference_share"] = _share(float(served["unmet_tokens"].sum()), demanded)
            row["unmet_training_share"] = _share(
                float(training["unmet_flops"].sum()), float(training["flops_required"].sum())
            )
            # What planner run does after the solve, each in the size's time limit.
            try:
                with Deadline(options.time_limit_s or float("inf")):
                    started = time.perf_counter()
                    lp_duals(data, options)
                    row["shadow_s"] = time.perf_counter() - started
                    started = time.perf_counter()
                    relief = relief_tables(data, plan.tables, lambda d: lp_min_cost(d, options))
                    row["relief_s"] = time.perf_counter() - started
                    row["relief_solves"] = 2 * relief["relief_served"]["relief"].nunique()
            except TimeLimitError:
                pass  # left empty: not done inside the time limit
            if not args.no_workbook:
                started = time.perf_counter()
                write_workbook(plan, scenario, Path(tmp) / f"{size}.xlsx", tables)
                row["workbook_s"] = time.perf_counter() - started
        row["peak_memory_mib"] = _peak_mib()  # before the direct build below
        usage = resource.getrusage(resource.RUSAGE_SELF)
        row["cpu_s"] = usage.ru_utime + usage.ru_stime  # less moved by a loaded machine
        row["total_s"] = sum(row.get(k) or 0.0 for k in STAGES)
        figures, _, _ = direct.measure(data)  # a fresh model of the same data
        row["read_rows_s"] = figures.read_seconds
        row["direct_pass_s"] = figures.pass_seconds
        row["array_mib"] = figures.array_mib
    overhead = row["build_s"] + (row["handoff_s"] or 0.0)
    row["overhead_vs_solve"] = overhead / row["solve_s"] if row["solve_s"] else None
    handoff = row["handoff_s"]
    row["handoff_vs_direct"] = None if handoff is None else handoff / row["direct_pass_s"]
    return row


def _child_command(size: str, args: argparse.Namespace) -> list[str]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", size, "--seed"]
    command.append(str(args.seed))
    for flag, value in (
        ("--time-limit", args.time_limit),
        ("--threads", args.threads),
        ("--strategy", args.strategy),
        ("--mip-gap", args.mip_gap),
        ("--service-gap", args.service_gap),
        ("--periods-per-year", args.periods_per_year),
    ):
        if value is not None:
            command += [flag, str(value)]
    if args.no_workbook:
        command.append("--no-workbook")
    if args.two_stages:
        command.append("--two-stages")
    if args.separate_stages:
        command.append("--separate-stages")
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
    parser.add_argument(
        "--service-gap",
        type=float,
        help="what-if: the service stage's MIP gap instead of planner.pipeline.SERVICE_GAP",
    )
    parser.add_argument(
        "--two-stages",
        action="store_true",
        help="what-if: straight to the two stages, without first trying to serve everything",
    )
    parser.add_argument(
        "--separate-stages",
        action="store_true",
        help="what-if: under lp-first, each stage its own build and HiGHS instance",
    )
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
