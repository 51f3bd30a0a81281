"""Benchmark the optimiser on generated scenarios: ``planner.plan`` itself, timed.

    python bench/run.py                     # S M L XL
    python bench/run.py S M L --out bench.csv
    python bench/run.py XL --time-limit 600
    python bench/run.py H --no-workbook     # the hyperscaler size (20 sites, 1,200 s)

Each size runs in its own process (so peak memory is that size's alone): generate the
scenario (bench/generate.py, seed 0), run the perf model (``perf_s``), then call
``planner.plan`` — exactly what ``planner run`` calls — with those tables, and read its
stage times from the Plan's headline (the recipe's own clocks: build, hand-off, the
service and cost stages, load, extract, the shadow-price LP and the relief LPs;
``other_s`` is the rest of ``plan_s``: model data, results tables, diagnosis). The
independent checker (``planner.results.checker.check_plan``) runs on every plan
(``checker_problems``: what it found, 0 for a sound plan), then the workbook. The gap
reported is the cost stage's, on NPV cost alone; the unmet shares are reported apart.
Prints one row per size and writes the same as CSV (``--out``). Column meanings:
bench/README.md.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import inspect
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
SIZES = ("S", "M", "L", "XL", "H")
DEFAULT_SIZES = ("S", "M", "L", "XL")
STAGES = (
    "build_s",
    "handoff_s",
    "service_s",
    "cost_solve_s",
    "load_s",
    "extract_s",
    "shadow_s",
    "relief_s",
    "other_s",
)
"""Parts of ``plan_s`` (``planner.plan``'s wall clock), from its headline: the model's
build and hand-off, the service stage (``service_solve_seconds``), the cost stage
(``solver_seconds``), loading and extracting the solution, the shadow-price LP and the
relief LPs (``shadow_prices_seconds``, ``relief_seconds``), and ``other_s``, the rest
(model data, results tables, diagnosis)."""
COLUMNS = (
    "size",
    "periods",
    "variables",
    "integer_variables",
    "constraints",
    "nonzeros",
    "columns_held_back",
    "columns_priced_in",
    "columns_priced_after_milp",
    "perf_s",
    "plan_s",
    *STAGES,
    "solve_s",
    "checker_s",
    "workbook_s",
    "cpu_s",
    "peak_memory_mib",
    "load_average",
    "strategy",
    "service_path",
    "service_status",
    "service_gap",
    "status",
    "termination",
    "npv_cost_usd",
    "cost_gap",
    "unmet_inference_share",
    "unmet_training_share",
    "follow_ups_skipped",
    "checker_problems",
    "error",
)
"""CSV columns. ``solve_s`` = ``service_s`` + ``cost_solve_s`` (HiGHS's time in both
stages); ``cost_gap`` is the cost stage's gap (NPV cost, no penalty in it) and
``service_gap`` the service stage's; ``unmet_inference_share`` /
``unmet_training_share`` the shares of demanded output tokens / training FLOP left
unserved. ``columns_*``: inference assignment columns held back by column generation,
priced in by the LPs, and priced in after the MILP. ``cpu_s``: the process's CPU time
(user + system, all threads). ``load_average``: the machine's 1-minute load when the
size started. ``error``: why ``planner.plan`` gave no plan (the rest then empty)."""


def _load(name: str) -> ModuleType:
    """A sibling script as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def write_workbook(plan: Any, scenario: Any, path: Path, tables: Any) -> Path:
    """The workbook ``planner run`` writes."""
    from planner.export.excel import write_workbook as analyst

    accepted = inspect.signature(analyst).parameters
    extra = {"throughput": tables} if "throughput" in accepted else {}
    return Path(analyst(plan, scenario, path, **extra))


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def _share(unmet: float, total: float) -> float:
    return unmet / total if total > 0 else 0.0


def measure(size: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every figure of one size, in this process."""
    from planner.errors import PlannerError
    from planner.optimize.solvers.highs import new_highs
    from planner.pipeline import plan, throughput
    from planner.results.checker import check_plan
    from planner.scenario import load_scenario

    generate = _load("generate")
    new_highs()  # import highspy and swallow its banner before any clock: once a process
    row: dict[str, Any] = {"size": size, "load_average": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{size}.yaml"
        path.write_text(generate.generate(size, args.seed, args.periods_per_year))
        scenario = load_scenario(path)
        row["periods"] = scenario.horizon.period_count
        started = time.perf_counter()
        tables = throughput(scenario)
        row["perf_s"] = time.perf_counter() - started
        started = time.perf_counter()
        try:
            found = plan(
                scenario,
                tables=tables,
                time_limit_s=args.time_limit,
                threads=args.threads,
                strategy=args.strategy,
                mip_gap=args.mip_gap,
                max_nonzeros=10**10,  # the benchmark sizes are meant to be large
            )
        except PlannerError as error:
            row["plan_s"] = time.perf_counter() - started
            row["error"] = str(error)[:300]
            row["peak_memory_mib"] = _peak_mib()
            usage = resource.getrusage(resource.RUSAGE_SELF)
            row["cpu_s"] = usage.ru_utime + usage.ru_stime
            return row
        row["plan_s"] = time.perf_counter() - started
        row |= _headline_figures(found.headline)
        row["other_s"] = row["plan_s"] - sum(row.get(k) or 0.0 for k in STAGES[:-1])
        served, training = found.tables["served"], found.tables["training"]
        demanded = float((served["served_tokens"] + served["unmet_tokens"]).sum())
        row["unmet_inference_share"] = _share(float(served["unmet_tokens"].sum()), demanded)
        row["unmet_training_share"] = _share(
            float(training["unmet_flops"].sum()), float(training["flops_required"].sum())
        )
        started = time.perf_counter()
        row["checker_problems"] = len(check_plan(found))
        row["checker_s"] = time.perf_counter() - started
        row["peak_memory_mib"] = _peak_mib()  # before the workbook
        usage = resource.getrusage(resource.RUSAGE_SELF)
        row["cpu_s"] = usage.ru_utime + usage.ru_stime  # less moved by a loaded machine
        if not args.no_workbook:
            started = time.perf_counter()
            write_workbook(found, scenario, Path(tmp) / f"{size}.xlsx", tables)
            row["workbook_s"] = time.perf_counter() - started
    return row


def _headline_figures(h: dict[str, Any]) -> dict[str, Any]:
    """The row's figures that ``planner.plan``'s headline states."""
    service = h.get("service_solve_seconds")
    cost = h.get("solver_seconds")
    return {
        "variables": h.get("variables"),
        "integer_variables": h.get("integer_variables"),
        "constraints": h.get("constraints"),
        "nonzeros": h.get("nonzeros"),
        "columns_held_back": h.get("columns_held_back"),
        "columns_priced_in": h.get("columns_priced_in"),
        "columns_priced_after_milp": h.get("columns_priced_after_milp"),
        "build_s": h.get("build_seconds"),
        "handoff_s": h.get("handoff_seconds"),
        "service_s": service,
        "cost_solve_s": cost,
        "load_s": h.get("load_seconds"),
        "extract_s": h.get("extract_seconds"),
        "shadow_s": h.get("shadow_prices_seconds"),
        "relief_s": h.get("relief_seconds"),
        "solve_s": (service or 0.0) + (cost or 0.0),
        "strategy": h.get("strategy"),
        "service_path": h.get("service_path"),
        "service_status": h.get("service_status"),
        "service_gap": h.get("service_gap"),
        "status": h.get("status"),
        "termination": h.get("termination"),
        "npv_cost_usd": h.get("npv_cost_usd"),
        "cost_gap": h.get("mip_gap"),
        "follow_ups_skipped": "; ".join(h.get("follow_ups_skipped") or ()) or None,
    }


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
    text = str(value)
    return text if len(text) <= 11 else text[:10] + "…"  # the CSV keeps it whole


def print_table(rows: list[dict[str, Any]]) -> None:
    """One line per column, one column per size (wide tables do not fit a terminal)."""
    width = max(len(c) for c in COLUMNS)
    print(f"{'':<{width}}  " + "".join(f"{r['size']:>12}" for r in rows))
    for column in COLUMNS[1:]:
        cells = "".join(f"{_cell(r.get(column)):>12}" for r in rows)
        print(f"{column:<{width}}  {cells}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "sizes", nargs="*", type=str.upper, help="S, M, L, XL, H (default S M L XL)"
    )
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
    sizes = args.sizes or list(DEFAULT_SIZES)
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
        print(f"{size}: done in {rows[-1]['plan_s']:.1f} s", file=sys.stderr, flush=True)
    print_table(rows)
    if args.out:
        with args.out.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
