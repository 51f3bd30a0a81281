"""``planner run``: optimise a scenario's fleet, print the plan, write a workbook."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd
from rich.markup import escape

from planner.cli.common import emit_json, format_option, print_frame, stderr, stdout_console
from planner.export.simple import write_plan_workbook
from planner.optimize import plan as optimise
from planner.results import Plan
from planner.scenario import load_scenario


def _fleet_by_year(plan: Plan) -> pd.DataFrame:
    fleet = plan.tables["fleet"]
    if fleet.empty:
        return pd.DataFrame(columns=["hardware"])
    wide = fleet.pivot_table(index="hardware", columns="year", values="units", aggfunc="sum")
    wide.columns = [str(c) for c in wide.columns]
    return wide.fillna(0.0).reset_index()


def _cost_by_year(plan: Plan) -> pd.DataFrame:
    costs = plan.tables["costs"]
    wide = costs.pivot_table(
        index="category", columns="year", values="usd", aggfunc="sum", sort=False
    )
    wide.columns = [str(c) for c in wide.columns]
    wide["total_pv"] = costs.groupby("category", sort=False)["usd_pv"].sum()
    return wide.reset_index()


def _binding(plan: Plan) -> pd.DataFrame:
    rows = []
    for name, subject in (("power", "site"), ("budget", None), ("supply", "hardware")):
        frame = plan.tables[name]
        for row in frame[frame["binding"].astype(bool)].itertuples(index=False):
            rows.append(
                {
                    "limit": name,
                    "year": row.year,
                    "subject": getattr(row, subject) if subject else "",
                }
            )
    return pd.DataFrame(rows, columns=["limit", "year", "subject"])


def _escaped(frame: pd.DataFrame) -> pd.DataFrame:
    """Text cells with rich markup escaped (paths such as sites[texas] are not tags)."""
    return frame.apply(lambda column: column.map(lambda v: escape(v) if isinstance(v, str) else v))


def _print_table(plan: Plan) -> None:
    out = stdout_console()
    h = plan.headline
    out.print(f"[bold]{escape(plan.scenario)}[/bold]: {plan.status}")
    gap = h.get("mip_gap")
    objective = h.get("objective_usd")
    out.print(
        f"objective (NPV cost incl. penalties): ${objective:,.0f}"
        + (f"  gap {gap:.3%}" if gap is not None else "")
    )
    out.print(
        f"NPV cost ${h['npv_cost_usd']:,.0f}; undiscounted ${h['undiscounted_cost_usd']:,.0f}; "
        f"penalties (PV) ${h['penalties_usd_pv']:,.0f}"
    )
    print_frame(_fleet_by_year(plan), "table", title="Fleet by year (units)")
    print_frame(_cost_by_year(plan), "table", title="Cost by year (USD)")
    binding = _binding(plan)
    if len(binding):
        print_frame(binding, "table", title="Binding constraints")
    shadow = plan.tables["shadow_prices"]
    shown = shadow[shadow["value"].fillna(0).abs() > 1e-9]
    if len(shown):
        columns = ["limit", "year", "subject", "value_in_year_usd", "unit", "method"]
        print_frame(
            _escaped(shown[columns]), "table", title="Shadow prices (value in that year's USD)"
        )
    out.print("[bold]Diagnosis[/bold]")
    for sentence in plan.diagnosis:
        out.print(f"  - {escape(sentence)}", soft_wrap=True)


@click.command("run")
@click.argument("scenario_file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Workbook to write [default: exports/SCENARIO.xlsx].",
)
@click.option("--relax", is_flag=True, help="Continuous purchases (an LP): fast, approximate.")
@click.option(
    "--mip-gap", type=click.FloatRange(0, 1), help="Relative MIP gap (overrides the file)."
)
@click.option(
    "--time-limit",
    type=click.FloatRange(0, min_open=True),
    help="Solver wall-clock limit, seconds (overrides the file); the best plan so far is kept.",
)
@click.option("--solver", help="Pyomo solver name [default: the file's, else highs].")
@click.option("--threads", type=click.IntRange(1, 256), help="Solver threads.")
@click.option(
    "--marginal",
    "marginals",
    multiple=True,
    metavar="PATH",
    help="Exact marginal value of one scenario number by re-solving "
    "(e.g. sites[texas].power_cap_mw.2028); repeatable.",
)
@format_option
def run(
    scenario_file: Path,
    out: Path | None,
    relax: bool,
    mip_gap: float | None,
    time_limit: float | None,
    solver: str | None,
    threads: int | None,
    marginals: tuple[str, ...],
    fmt: str,
) -> None:
    """Optimise the fleet of SCENARIO_FILE: what to buy or rent, year by year, at what cost.

    Prints the status, the objective (NPV of cash costs plus penalties for unmet
    demand), the fleet and costs by year, binding limits, shadow prices and a
    diagnosis; writes every table of the plan to a workbook. Unmet demand is reported
    on stderr and still exits 0; exit 3 when the solver finds no plan, 2 on bad input.

    \b
    Example:
      planner run scenarios/baseline.yaml --out exports/baseline.xlsx
      planner run scenarios/baseline.yaml --marginal 'sites[texas].power_cap_mw.2028'
    """
    scenario = load_scenario(scenario_file)
    calibration = (
        scenario_file.parent / scenario.calibration if scenario.calibration is not None else None
    )
    result = optimise(
        scenario,
        relax=relax,
        mip_gap=mip_gap,
        time_limit_s=time_limit,
        solver=solver,
        threads=threads,
        marginals=marginals,
        calibration_path=calibration,
    )
    h = result.headline
    stderr.print(
        f"built in {h['build_seconds']:.2f} s ({h['variables']:,} variables, "
        f"{h['integer_variables']:,} integer, {h['constraints']:,} constraints); "
        f"solved in {h['solve_seconds']:.2f} s: {result.status}",
        markup=False,
        soft_wrap=True,
    )
    if fmt == "json":
        emit_json(result.to_json())
    elif fmt == "csv":
        frame = pd.DataFrame(
            [{"item": k, "value": v} for k, v in {"status": result.status, **h}.items()]
        )
        print_frame(frame, "csv")
    else:
        _print_table(result)
    _warn(result)
    target = out if out is not None else Path("exports") / f"{scenario_file.stem}.xlsx"
    written = write_plan_workbook(result, target)
    stderr.print(f"wrote {written}", markup=False)


def _warn(plan: Plan) -> None:
    """Loud messages on stderr: a solve stopped early, demand left unmet."""
    h = plan.headline
    if plan.status != "optimal":
        stderr.print(
            f"[bold yellow]stopped early[/bold yellow] ({plan.status}): best plan found, "
            f"MIP gap {h['mip_gap'] if h['mip_gap'] is not None else 'unknown'}",
            soft_wrap=True,
        )
    if h["unmet_inference_tokens"] <= 0 and h["unmet_training_flops"] <= 0:
        return
    stderr.print(
        f"[bold red]UNMET DEMAND[/bold red]: {h['unmet_inference_tokens']:.3g} output tokens "
        f"and {h['unmet_training_flops']:.3g} training FLOP left undone "
        f"(penalties ${h['penalties_usd_pv']:,.0f} PV)",
        soft_wrap=True,
    )
    for sentence in plan.diagnosis:
        if "unmet" in sentence or "% of its" in sentence:
            stderr.print(f"  - {escape(sentence)}", soft_wrap=True)


def register(cli: click.Group) -> None:
    cli.add_command(run)
