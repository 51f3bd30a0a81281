"""``planner run``: optimise a scenario's fleet, print the plan, write a workbook."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd
from rich.markup import escape

from planner.cli.common import emit_json, print_frame, stderr, stdout_console
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
from planner.deadline import Deadline
from planner.export.charts import CHARTS
from planner.export.excel import write_workbook
from planner.export.plots import require_matplotlib, write_plots
from planner.optimize import DEFAULT_MAX_NONZEROS, check_size
from planner.pipeline import plan as optimise
from planner.pipeline import throughput
from planner.results import Plan, fleet_by_year
from planner.scenario import load_scenario


def _yearly(plan: Plan) -> bool:
    return plan.parameters.get("periods_per_year", 1) == 1


def _fleet_by_year(plan: Plan, by_period: bool = False) -> pd.DataFrame:
    """Units per hardware: by period, or at each year's end (a stock is not summed)."""
    fleet = plan.tables["fleet"]
    if fleet.empty:
        return pd.DataFrame(columns=["hardware"])
    column = "period" if by_period else "year"
    if not by_period:
        fleet = fleet_by_year(fleet, plan.tables["periods"])
    wide = fleet.pivot_table(index="hardware", columns=column, values="units", aggfunc="sum")
    wide.columns = [str(c) for c in wide.columns]
    return wide.fillna(0.0).reset_index()


def _cost_by_year(plan: Plan, by_period: bool = False) -> pd.DataFrame:
    """Cash cost per category by year (summed over its periods) or by period."""
    costs = plan.tables["costs"]
    wide = costs.pivot_table(
        index="category",
        columns="period" if by_period else "year",
        values="usd",
        aggfunc="sum",
        sort=False,
    )
    wide.columns = [str(c) for c in wide.columns]
    wide["total_pv"] = costs.groupby("category", sort=False)["usd_pv"].sum()
    return wide.reset_index()


def _binding(plan: Plan, by_period: bool = False) -> pd.DataFrame:
    """Binding limits; rolled up to years, with how many of the year's periods bind."""
    rows = []
    for name, subject in (("power", "site"), ("budget", None), ("supply", "hardware")):
        frame = plan.tables[name]
        for row in frame[frame["binding"].astype(bool)].itertuples(index=False):
            rows.append(
                {
                    "limit": name,
                    "period": row.period,
                    "year": row.year,
                    "subject": getattr(row, subject) if subject else "",
                }
            )
    frame = pd.DataFrame(rows, columns=["limit", "period", "year", "subject"])
    if _yearly(plan) or by_period:
        return frame.drop(columns="year" if by_period and not _yearly(plan) else "period")
    per_year = plan.parameters["periods_per_year"]
    out = frame.groupby(["limit", "year", "subject"], as_index=False, sort=False)["period"].count()
    out["periods"] = out.pop("period").map(lambda n: f"{n} of {per_year}")
    return out


def _shadow(plan: Plan, by_period: bool = False) -> tuple[pd.DataFrame, str]:
    """Non-zero shadow prices; with sub-year periods, their mean over each year's periods."""
    shadow = plan.tables["shadow_prices"]
    # Marginals the analyst asked for (--marginal) show even when zero.
    asked = shadow["limit"] == "marginal"
    shown = shadow[asked | (shadow["value"].fillna(0).abs() > 1e-9)]
    title = (
        "Shadow prices (value_in_year_usd: that year's USD; positive = saved per +1 of a "
        "limit, cost per +1 of demand)"
    )
    if _yearly(plan) or by_period:
        when = "year" if _yearly(plan) else "period"
        return shown[["limit", when, "subject", "value_in_year_usd", "unit", "method"]], title
    keys = ["limit", "year", "subject", "unit", "method"]
    out = shown.groupby(keys, as_index=False, sort=False, dropna=False)["value_in_year_usd"].mean()
    title = (
        "Shadow prices (mean over each year's periods, that year's USD; positive = saved "
        "per +1 of a limit, cost per +1 of demand)"
    )
    return out[["limit", "year", "subject", "value_in_year_usd", "unit", "method"]], title


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
        else "objective (min_cost: NPV cost, most demand served first)"
    )
    out.print(
        f"{label}: ${objective:,.0f}" + (f"  gap on cost {gap:.3%}" if gap is not None else "")
    )
    out.print(
        f"NPV cost ${h['npv_cost_usd']:,.0f}; undiscounted cash cost (gross) "
        f"${h['undiscounted_gross_cost_usd']:,.0f}; penalties (PV) ${h['penalties_usd_pv']:,.0f}"
        + ("" if h.get("penalties_in_objective", True) else " (not in the objective)")
    )
    out.print(
        f"residual value credited at the horizon end (undiscounted) "
        f"${h['residual_credit_usd']:,.0f}; undiscounted net ${h['undiscounted_cost_usd']:,.0f}"
    )
    fleet_title = "Fleet by year (units)" if _yearly(plan) else "Fleet at year end (units)"
    if by_period:
        fleet_title = "Fleet by period (units)"
    print_frame(_fleet_by_year(plan, by_period), "table", title=fleet_title)
    cost_title = "Cost by period (USD)" if by_period else "Cost by year (USD)"
    print_frame(_cost_by_year(plan, by_period), "table", title=cost_title)
    binding = _binding(plan, by_period)
    if len(binding):
        print_frame(binding, "table", title="Binding constraints")
    shown, title = _shadow(plan, by_period)
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
    exit 3 when the solver finds no plan or the run reaches --time-limit, 2 on bad
    input or a model estimated above --max-nonzeros.

    \b
    Example:
      planner run scenarios/baseline.yaml --out exports/baseline.xlsx
      planner run scenarios/baseline.yaml --marginal 'sites[texas].power_cap_mw.2028'
      planner run scenarios/baseline.yaml --plots exports/baseline-plots
    """
    require_suffix(out, WORKBOOK, "--out")
    if plots is not None:
        require_matplotlib()  # fail before solving, not after
    scenario = load_scenario(scenario_file)
    inputs = scenario_inputs(scenario_file, scenario.calibration)
    target = out or default_output(Path("exports") / f"{scenario_file.stem}.xlsx", inputs)
    pngs = [plots / chart.file for chart in CHARTS] if plots is not None else []
    check_outputs(inputs, target, *pngs)
    with Deadline(time_limit or scenario.solver.time_limit_s):  # bounds the whole run
        check_size(scenario, max_nonzeros)  # before the perf model: refuse a huge model at once
        tables = throughput(scenario)
        result = optimise(
            scenario,
            relax=relax,
            mip_gap=mip_gap,
            time_limit_s=time_limit,
            solver=solver,
            threads=threads,
            strategy=strategy,
            marginals=marginals,
            tables=tables,
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
        if fmt == "json":
            emit_json(result.to_json())
        elif fmt == "csv":
            frame = pd.DataFrame(
                [{"item": k, "value": v} for k, v in {"status": result.status, **h}.items()]
            )
            print_frame(frame, "csv")
        else:
            _print_table(result, by_period)
        _warn(result)
        written = write_workbook(result, scenario, target, source=scenario_file, throughput=tables)
        stderr.print(f"wrote {written}", markup=False)
        if plots is not None:
            for png in write_plots(result, plots):
                stderr.print(f"wrote {png}", markup=False)


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
                if service != "optimal"
                else ""
            )
            + ": this plan may be improvable",
            soft_wrap=True,
        )
    if h["unmet_inference_tokens"] <= 0 and h["unmet_training_flops"] <= 0:
        return
    stderr.print(
        f"[bold red]UNMET DEMAND[/bold red]: {h['unmet_inference_tokens']:.3g} output tokens "
        f"and {h['unmet_training_flops']:.3g} training FLOP left undone "
        f"(penalties ${h['penalties_usd_pv']:,.0f} PV"
        + ("" if h.get("penalties_in_objective", True) else ", not in the objective")
        + ")",
        soft_wrap=True,
    )
    for sentence in plan.diagnosis:
        if "unmet" in sentence or "% of its" in sentence:
            stderr.print(f"  - {escape(sentence)}", soft_wrap=True)


def register(cli: click.Group) -> None:
    cli.add_command(run)
