"""``planner run``: optimise a scenario's fleet, print the plan, write a workbook."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd
from rich.markup import escape

from planner import api
from planner.cli.common import emit_json, print_frame, stderr, stdout_console
from planner.cli.investment_out import print_investment
from planner.cli.options import (
    ONE_PLAN,
    format_option,
    out_option,
    scenario_argument,
    solver_options,
)
from planner.cli.outputs import (
    WORKBOOK,
    check_outputs,
    default_output,
    require_suffix,
    scenario_inputs,
)
from planner.cli.resolution_out import OPTION, ResolutionReport, require_resolution
from planner.cli.run_exports import Export, write_exports
from planner.deadline import Deadline
from planner.export.charts import CHARTS
from planner.export.plots import require_matplotlib, write_plots
from planner.follow_ups import skipped_line
from planner.optimize import DEFAULT_MAX_NONZEROS
from planner.optimize.solvers.types import Termination
from planner.results import Plan
from planner.results.horizon_end import horizon_end_line
from planner.results.sales import sales_line
from planner.results.shortfall import shortfall_line


def _escaped(frame: pd.DataFrame) -> pd.DataFrame:
    """Text cells with rich markup escaped (paths such as sites[texas] are not tags)."""
    return frame.apply(lambda column: column.map(lambda v: escape(v) if isinstance(v, str) else v))


def _print_table(plan: Plan, by_period: bool = False) -> None:
    out = stdout_console()
    h = plan.headline
    out.print(f"[bold]{escape(plan.scenario)}[/bold]: {plan.status}")
    gap = h.get("mip_gap")
    objective = h.get("objective_usd")
    label = (
        "objective (NPV cost incl. penalties)"
        if h.get("penalties_in_objective", True)
        else "objective (min_cost: NPV cost, most demand served first, by service_measure "
        f"{h.get('service_measure', 'weighted_share')})"
    )
    if h.get("objective") == "max_profit":
        label = "objective (max_profit: NPV cost + PV of revenue forgone, must-serve first)"
    gap_text = "  gap on cost unknown" if plan.status != "optimal" else ""
    if gap is not None:
        gap_text = f"  gap on cost {gap:.3%}"
    if objective is None:  # the cost stage ended without a plan: the service stage's kept
        npv = h.get("npv_cost_usd")
        shown = "unknown" if npv is None else f"${npv:,.0f}"
        out.print(
            f"{label}: not minimised (the service stage's plan, NPV cost {shown})", soft_wrap=True
        )
    else:
        out.print(f"{label}: ${objective:,.0f}{gap_text}", soft_wrap=True)
    if h.get("termination") == Termination.COST_UNMINIMISED:
        out.print(f"[yellow]{escape(Termination.COST_UNMINIMISED.prose)}[/yellow]")
    p = plan.parameters
    out.print(
        f"NPV cost ${h['npv_cost_usd']:,.0f} ({h.get('foresight', 'perfect foresight')}; "
        f"horizon end: {h.get('horizon_end')}; cash costs "
        "less residual, discounted at "
        f"wacc {p.get('wacc', float('nan')):g}); undiscounted cash cost (gross) "
        f"${h['undiscounted_gross_cost_usd']:,.0f}"
    )
    valued = shortfall_line(h, p)  # lost revenue where priced; else the labelled penalty
    if valued is not None:
        out.print(valued)
    # + 0.0 turns a credit of -0.0 (nothing bought) into 0, so it never prints as "$-0"
    out.print(
        f"residual value credited at the horizon end ({h.get('horizon_end_text')}, "
        f"undiscounted) ${h['residual_credit_usd'] + 0.0:,.0f}; "
        f"undiscounted net ${h['undiscounted_cost_usd']:,.0f}"
    )
    out.print(horizon_end_line(h))
    if h.get("price_convention"):
        held = h.get("capex_usd_prices_held")
        same = "" if held is None else f"; the same fleet's capex with prices held ${held:,.0f}"
        out.print(
            escape(f"{h['price_convention']}: capex ${h['capex_usd']:,.0f}{same}"), soft_wrap=True
        )
    sold = sales_line(plan.tables.get("sales"))
    if sold is not None:
        out.print(sold)
    fleet_title = "Fleet by year (units)" if api.yearly(plan) else "Fleet at year end (units)"
    if by_period:
        fleet_title = "Fleet by period (units)"
    print_frame(api.fleet_by_year(plan, by_period), "table", title=fleet_title)
    cost_title = "Cost by period (USD)" if by_period else "Cost by year (USD)"
    print_frame(api.cost_by_year(plan, by_period), "table", title=cost_title)
    print_investment(plan)
    binding = api.binding(plan, by_period)
    if len(binding):
        print_frame(binding, "table", title="Binding constraints")
    shown, title = api.shadow_prices(plan, by_period)
    if len(shown):
        print_frame(_escaped(shown), "table", title=title)
    out.print("[bold]Diagnosis[/bold]")
    for sentence in plan.diagnosis:
        out.print(f"  - {escape(sentence)}", soft_wrap=True)


@click.command("run")
@scenario_argument
@out_option("Workbook to write [default: exports/SCENARIO.xlsx].", default=None)
@solver_options(ONE_PLAN, strategy=True)
@click.option(
    "--max-nonzeros",
    type=click.IntRange(1),
    help="Refuse a model estimated above this many nonzeros (checked before any work) "
    f"[default: {DEFAULT_MAX_NONZEROS}].",
)
@click.option(
    "--marginal",
    "marginals",
    multiple=True,
    metavar="PATH",
    help="Exact marginal value of one scenario number by re-solving "
    "(e.g. sites[texas].power_cap_mw.2028); repeatable.",
)
@click.option(
    "--by-period",
    is_flag=True,
    help="Print the tables by period (e.g. quarter) instead of rolled up to years.",
)
@click.option(
    "--plots",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    metavar="DIR",
    help="Also write the workbook's charts as PNG files in DIR (needs planner[plots]).",
)
@click.option(
    "--tables",
    "tables_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    metavar="DIR",
    help="Also write every plan table to DIR as NAME.csv (or .parquet), one file each.",
)
@click.option(
    "--table-format",
    type=click.Choice(api.TABLE_FORMATS),
    default="csv",
    show_default=True,
    help="File format of --tables (parquet needs pyarrow).",
)
@click.option(
    OPTION,
    "resolution_check",
    type=int,
    default=None,
    metavar="P",
    help="Also check the plan's fleet against the peak demand of each of P sub-periods "
    "a year (4: quarters; a multiple of horizon.periods_per_year) and print the worst "
    "shortfall per period.",
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
    strategy: str | None,
    max_nonzeros: int | None,
    marginals: tuple[str, ...],
    by_period: bool,
    plots: Path | None,
    tables_dir: Path | None,
    table_format: str,
    resolution_check: int | None,
    fmt: str,
) -> None:
    """Optimise the fleet of SCENARIO_FILE: what to buy or rent, period by period, at what cost.

    Prints the status, the objective (objective: min_cost — serve as much demand as the
    limits allow, by priority, then the least NPV of cash costs; the penalties value
    the shortfall but are outside the objective), the fleet and costs by year, binding
    limits, shadow prices and a diagnosis; writes the analyst workbook (live cost
    formulas, sources, charts).
    With sub-year periods (horizon.periods_per_year) the printed tables roll up to
    years unless --by-period. Unmet demand is reported on stderr and still exits 0;
    exit 3 when the solver finds no plan or the run reaches --time-limit before a plan
    is found, 2 on bad input or a model estimated above --max-nonzeros. A plan found is
    a plan kept: when the limit is spent after it, the shadow prices, --marginal values
    and LP relief estimates not yet made are skipped and named (exit 0), and a
    workbook that cannot be written within the export's grace is reported, not written.
    Nor is a plan lost to an export that fails (a folder that cannot be written, a full
    disk, an error in a writer): the plan is printed first, each of the workbook,
    --tables and --plots is written on its own, a failed one is named with its reason
    and leaves no half-written file, and the run exits 4 (plan printed, an output
    missing) rather than 0, so a script notices the missing file.

    --format csv prints the headline figures (status, objective, costs, model size,
    timings) as item,value rows; --tables DIR writes every plan table, one file each
    (NAME.csv, or NAME.parquet with --table-format parquet).

    \b
    Example:
      planner run scenarios/baseline.yaml --out exports/baseline.xlsx
      planner run scenarios/baseline.yaml --marginal 'sites[texas].power_cap_mw.2028'
      planner run scenarios/baseline.yaml --plots exports/baseline-plots
      planner run scenarios/baseline.yaml --tables exports/baseline-tables
      planner run scenarios/baseline.yaml --resolution-check 4
    """
    require_suffix(out, WORKBOOK, "--out")
    if plots is not None:
        require_matplotlib()  # fail before solving, not after
    if tables_dir is not None:
        api.require_table_format(table_format)
    scenario = api.load(scenario_file)
    require_resolution(scenario, resolution_check)  # fail before solving, not after
    inputs = scenario_inputs(scenario_file, scenario.calibration)
    target = out or default_output(Path("exports") / f"{scenario_file.stem}.xlsx", inputs)
    pngs = [plots / chart.file for chart in CHARTS] if plots is not None else []
    names = [*api.TABLE_UNITS, *(["marginals"] if marginals else [])]
    files = api.table_files(tables_dir, names, table_format) if tables_dir is not None else []
    check_outputs(inputs, target, *pngs, *files)
    with Deadline(time_limit or scenario.solver.time_limit_s):  # bounds the whole run
        result = api.plan(  # refuses a huge model before the perf model runs
            scenario,
            relax=relax,
            mip_gap=mip_gap,
            time_limit_s=time_limit,
            solver=solver,
            threads=threads,
            strategy=strategy,
            marginals=marginals,
            max_nonzeros=max_nonzeros,
        )
        h = result.headline
        handoff = h.get("handoff_seconds")
        stderr.print(
            f"built in {h['build_seconds']:.2f} s ({h['variables']:,} variables, "
            f"{h['integer_variables']:,} integer, {h['constraints']:,} constraints); "
            + (f"handed to the solver in {handoff:.2f} s; " if handoff is not None else "")
            + f"solved in {h['solve_seconds']:.2f} s: {result.status}",
            markup=False,
            soft_wrap=True,
        )
        resolution = ResolutionReport.of(result, scenario, resolution_check)
        if fmt == "json":
            emit_json({**result.to_json(), **(resolution.json_part() if resolution else {})})
        elif fmt == "csv":
            items = {"status": result.status, **h}
            frame = pd.DataFrame(  # a list (the follow-ups skipped) as one "; "-joined cell
                [
                    {"item": k, "value": "; ".join(map(str, v)) if isinstance(v, list) else v}
                    for k, v in items.items()
                ]
            )
            print_frame(frame, "csv")
        else:
            _print_table(result, by_period)
        if resolution is not None:
            resolution.print(fmt)
        _warn(result)
        exports: list[Export] = [  # each on its own: one failing never loses the plan
            (
                "workbook",
                lambda: [api.write_workbook(result, scenario, target, source=scenario_file)],
            )
        ]
        if tables_dir is not None:
            exports.append(("tables", lambda: api.write_tables(result, tables_dir, table_format)))
        if plots is not None:
            exports.append(("plots", lambda: write_plots(result, plots)))
        write_exports(exports)


def _warn(plan: Plan) -> None:
    """Loud messages on stderr: a solve stopped early, demand left unmet."""
    h = plan.headline
    if plan.status != "optimal":
        service = h.get("service_status", "optimal")
        stderr.print(
            f"[bold yellow]stopped early[/bold yellow] ({plan.status}): best plan found, "
            f"gap on cost {h['mip_gap'] if h['mip_gap'] is not None else 'unknown'}"
            + (
                "; the service stage stopped early too, so more demand may be servable"
                if service == "feasible"
                else ""
            )
            + ": this plan may be improvable",
            soft_wrap=True,
        )
    skipped = h.get("follow_ups_skipped") or ()
    if skipped:
        stderr.print(f"[bold yellow]{escape(skipped_line(skipped))}[/bold yellow]", soft_wrap=True)
    if h["unmet_inference_tokens"] <= 0 and h["unmet_training_flops"] <= 0:
        return
    stderr.print(
        f"[bold red]UNMET DEMAND[/bold red]: {h['unmet_inference_tokens']:.3g} output tokens "
        f"({h.get('unmet_tokens_basis', 'lost')}) "
        f"and {h['unmet_training_flops']:.3g} training FLOP left undone "
        f"({shortfall_line(h, plan.parameters)})",
        soft_wrap=True,
    )
    for sentence in plan.diagnosis:
        if "unmet" in sentence or "% of its" in sentence or sentence.startswith("LP estimate"):
            stderr.print(f"  - {escape(sentence)}", soft_wrap=True)


def register(cli: click.Group) -> None:
    cli.add_command(run)
