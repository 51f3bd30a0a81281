"""``planner validate``: check scenario files and summarise them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from planner.cli.common import echo_out, emit_json, stderr, stdout_console
from planner.cli.options import INPUT, format_option
from planner.errors import InputError
from planner.scenario import Scenario, load_scenario
from planner.scenario.series import value_at


def summary(scenario: Scenario) -> dict[str, Any]:
    """A short, JSON-ready description of a valid scenario."""
    years = scenario.horizon.year_list
    return {
        "name": scenario.name,
        "horizon": f"{years[0]}-{years[-1]}",
        "years": len(years),
        "sites": {
            s.name: {
                y: value_at(s.power_cap_mw, y, "hold") if s.power_cap_mw is not None else 0.0
                for y in years
            }
            for s in scenario.sites
        },
        "capex_budget_usd": None
        if scenario.budget.capex_usd is None
        else {y: value_at(scenario.budget.capex_usd, y, "hold") for y in years},
        "solver": solver_program(scenario.solver.name),
        "hardware": [h.id for h in scenario.hardware],
        "models": [m.id for m in scenario.models],
        "training_runs": [
            {"name": r.name, "model": r.model, "tokens": r.tokens, "window": list(r.window)}
            for r in scenario.training
        ],
        "inference_workloads": [
            {
                "name": w.name,
                "model": w.model,
                "tokens_per_day_first_year": value_at(w.tokens_per_day, years[0], "geometric"),
                "tokens_per_day_last_year": value_at(w.tokens_per_day, years[-1], "geometric"),
                "slo_tokens_per_s_per_user": w.slo_tokens_per_s_per_user,
            }
            for w in scenario.inference
        ],
        "serving": scenario.serving,
    }


def solver_program(name: str) -> str:
    """Which program the scenario's solver runs, in words: none for HiGHS and the
    in-process interfaces, else its absolute path (or why none will run)."""
    from planner.errors import SolverError
    from planner.solver_programs import solver_executable

    try:
        program = solver_executable(name)
    except SolverError as exc:
        return f"{name}, no program will run: {exc}"
    if program is None:
        return f"{name} (in-process; runs no program)"
    return f"{name}, runs {program}"


def _print_summary(file: str, info: dict[str, Any]) -> None:
    out = stdout_console()
    out.print(
        f"[green]ok[/green] {escape(file)}: [bold]{escape(info['name'])}[/bold], {info['horizon']}"
    )
    for site, caps in info["sites"].items():
        steps = ", ".join(f"{y}: {mw:g}" for y, mw in caps.items())
        out.print(f"  site {site}: power cap MW {steps}", markup=False)
    if info["capex_budget_usd"]:
        steps = ", ".join(f"{y}: ${v / 1e9:g}B" for y, v in info["capex_budget_usd"].items())
        out.print(f"  capex budget: {steps}", markup=False)
    else:
        out.print("  capex budget: unlimited")
    out.print(f"  solver: {info['solver']}", markup=False)
    out.print(f"  hardware ({len(info['hardware'])}): {', '.join(info['hardware'])}", markup=False)
    out.print(f"  models ({len(info['models'])}): {', '.join(info['models'])}", markup=False)
    for r in info["training_runs"]:
        out.print(
            f"  run {r['name']}: {r['model']}, {r['tokens']:.3g} tokens, "
            f"window {r['window'][0]}-{r['window'][1]}",
            markup=False,
        )
    for w in info["inference_workloads"]:
        out.print(
            f"  workload {w['name']}: {w['model']}, {w['tokens_per_day_first_year']:.3g} → "
            f"{w['tokens_per_day_last_year']:.3g} output tokens/day, "
            f"SLO {w['slo_tokens_per_s_per_user']:g} tok/s/user",
            markup=False,
        )
    out.print(f"  serving: {info['serving']}", markup=False)


@click.command()
@click.argument("files", nargs=-1, required=True, type=INPUT)
@format_option
def validate(files: tuple[Path, ...], fmt: str) -> None:
    """Check scenario files and print a short summary of each valid one.

    Every problem is reported with the file, line, field path, what was found and
    what was expected; exit code 2 if any file is invalid.

    \b
    Example:
      planner validate scenarios/baseline.yaml scenarios/power_constrained.yaml
    """
    results: list[dict[str, Any]] = []
    errors: list[InputError] = []
    for file in files:
        try:
            scenario = load_scenario(file)
        except InputError as exc:
            errors.append(exc)
            results.append({"file": str(file), "valid": False, "errors": _problems(exc)})
            if fmt != "json":
                stderr.print(f"[red]invalid[/red] {escape(str(exc))}", soft_wrap=True)
            continue
        info = summary(scenario)
        results.append({"file": str(file), "valid": True, "summary": info})
        if fmt == "table":
            _print_summary(str(file), info)
        elif fmt == "csv":
            from planner.export.cells import csv_text  # openpyxl: only for CSV output

            cells = [str(file), "valid", info["name"], info["horizon"]]
            echo_out(",".join(str(csv_text(c)) for c in cells))
    if fmt == "json":
        emit_json({"files": results})
    if errors:
        raise click.exceptions.Exit(2)


def _problems(exc: InputError) -> list[dict[str, Any]]:
    return [
        {
            "file": p.file or exc.file,
            "line": p.line,
            "path": p.path,
            "message": p.message,
            "found": p.found,
            "expected": p.expected,
            "hint": p.hint,
            "where": p.where,
        }
        for p in exc.problems
    ]


def register(cli: click.Group) -> None:
    cli.add_command(validate)
