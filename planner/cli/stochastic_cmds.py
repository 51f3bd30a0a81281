"""``planner stochastic``: the two-stage plan of a scenario's ``uncertainty:`` tree."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from planner.cli.common import emit_json, frame_records, print_frame, stderr, stdout_console
from planner.cli.options import (
    FiniteFloatRange,
    executor_choice,
    executor_options,
    format_option,
    out_option,
    scenario_argument,
)
from planner.cli.outputs import WORKBOOK, check_outputs, require_suffix, scenario_inputs
from planner.errors import InputError, Problem, SolverError
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.0f}"


def _percent(value: object) -> str:
    return f"{value:.3%}" if isinstance(value, float) else "unknown"


@click.command("stochastic")
@scenario_argument
@click.option(
    "--time-limit",
    type=FiniteFloatRange(0, min_open=True),
    help="Seconds for the first-stage solve (the equivalent or hedging; default: the "
    "scenario's solver.time_limit_s); each future's own plan gets solver.time_limit_s.",
)
@click.option(
    "--no-values",
    is_flag=True,
    help="Skip the wait-and-see and mean-value solves (no EVPI or VSS): 2K + 1 fewer solves.",
)
@click.option(
    "--dist",
    "dists",
    multiple=True,
    metavar="PATH=SPEC",
    help="Sample the futures instead: a distribution as planner montecarlo takes it, "
    "e.g. inference[chat].tokens_per_day.2030=uniform:5e12:2e13 (repeatable).",
)
@click.option("--samples", type=click.IntRange(1, 5000), help="Draws of the --dist distributions.")
@click.option(
    "--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of the draws."
)
@click.option(
    "--futures",
    "keep",
    type=click.IntRange(1, 64),
    default=8,
    show_default=True,
    help="Representatives kept from the draws (fast forward selection).",
)
@click.option(
    "--first-stage-through",
    type=click.IntRange(1990, 2100),
    help="Last year of the first stage for sampled futures (default: the file's).",
)
@out_option("Workbook to write: figures, futures with a chart of cost by future, first stage.")
@click.option(
    "--method",
    type=click.Choice(["equivalent", "hedging", "auto"]),
    default="equivalent",
    show_default=True,
    help="equivalent: every future in one HiGHS instance; hedging: progressive hedging, "
    "one future at a time on the workers below, with a bound and a gap; auto: hedging "
    "when the equivalent would be very large and risk.weight is 0.",
)
@click.option(
    "--iterations",
    type=click.IntRange(1, 100_000),
    default=200,
    show_default=True,
    help="Progressive hedging's iterations at most.",
)
@executor_options
@format_option
def stochastic(
    scenario_file: Path,
    time_limit: float | None,
    no_values: bool,
    dists: tuple[str, ...],
    samples: int | None,
    seed: int,
    keep: int,
    first_stage_through: int | None,
    out: Path | None,
    method: str,
    iterations: int,
    workers: int | None,
    scheduler: str | None,
    dask_local: int | None,
    fmt: str,
) -> None:
    """Plan the first stage of SCENARIO_FILE against every future of its uncertainty: tree.

    The orders, kept units, commitments, datacenter builds and sales of the years up to
    uncertainty.first_stage_through are decided once for every future (the most
    expected demand served, then the least expected NPV cost, plus weight x CVaR when
    risk.weight > 0); each future's plan then takes its own recourse. Prints the
    expected cost and service, CVaR, EVPI (what knowing the future is worth) and VSS
    (what planning for the mean would lose), each future's cost, and the first-stage
    decisions (--format csv: the futures table alone; json: everything); the
    independent checker verifies every future's plan and that they share
    the first stage. --method hedging decomposes the tree by future (progressive
    hedging on the local process pool or Dask) and reports its iterations, a lower
    bound on the expected cost and the gap. Exit 2 on bad input, 3 when no plan is
    found or the check fails.

    \b
    Example:
      planner stochastic scenarios/stochastic_orders.yaml
      planner stochastic scenarios/stochastic_orders.yaml --no-values --format json
      planner stochastic scenarios/stochastic_orders.yaml --out exports/two_stage.xlsx
      planner stochastic scenarios/stochastic_orders.yaml --method hedging --dask-local 4
    """
    from planner.stochastic.check import check_tree
    from planner.stochastic.solve import solve_tree
    from planner.stochastic.values import figures, first_stage_table, futures_table

    if out is not None:
        require_suffix(out, WORKBOOK, "--out")
    scenario = load_scenario(scenario_file)
    if out is not None:
        check_outputs(scenario_inputs(scenario_file, scenario.calibration), out)
    if first_stage_through is not None and not (dists or samples is not None):
        raise click.UsageError(
            "--first-stage-through applies to sampled futures (--dist and --samples); "
            "a file's tree sets uncertainty.first_stage_through"
        )
    if dists or samples is not None:
        scenario = _sampled(
            scenario, str(scenario_file), dists, samples, seed, keep, first_stage_through
        )
    if scenario.uncertainty is None:
        raise InputError(
            str(scenario_file),
            Problem(
                path="uncertainty",
                message="no uncertainty: section, so there is no tree to plan",
                hint="add uncertainty: {first_stage_through, futures} (see "
                "scenarios/stochastic_orders.yaml), or use planner run",
            ),
        )
    executor = executor_choice(workers, scheduler, dask_local)
    result = solve_tree(
        scenario,
        time_limit_s=time_limit,
        values=not no_values,
        method=method,
        executor=executor,
        iterations=iterations,
    )
    problems = check_tree(result)
    head = figures(result)
    futures, first = futures_table(result), first_stage_table(result)
    if fmt == "json":
        emit_json(
            {
                "headline": head,
                "futures": frame_records(futures),
                "first_stage": frame_records(first),
                "checker_problems": problems,
            }
        )
    elif fmt == "csv":
        print_frame(futures, "csv")
    else:
        _print_headline(head)
        print_frame(futures, "table", title="Futures (NPV cost, USD)")
        print_frame(first, "table", title="First stage (shared by every future)")
    if out is not None:
        from planner.export.stochastic import write_stochastic_workbook

        written = write_stochastic_workbook(head, futures, first, out)
        stderr.print(f"wrote {written}", markup=False)
    if problems:
        for problem in problems[:20]:
            stderr.print(escape(problem), soft_wrap=True)
        raise SolverError(f"the two-stage plan failed its check ({len(problems)} problem(s))")


def _sampled(
    scenario: Scenario,
    file: str,
    dists: tuple[str, ...],
    samples: int | None,
    seed: int,
    keep: int,
    first_stage_through: int | None,
) -> Scenario:
    """``scenario`` with its futures drawn from ``dists`` and reduced to ``keep``."""
    from planner.analysis.params import parse_dist, prepare
    from planner.scenario.futures import check_uncertainty
    from planner.scenario.uncertainty import Uncertainty
    from planner.stochastic.sampled import sampled_futures

    if not dists or samples is None:
        raise click.UsageError("sampled futures need both --dist and --samples")
    parameters = [parse_dist(text) for text in dists]
    prepare(scenario, parameters)  # every path names a number of the scenario
    tree = scenario.uncertainty
    through = first_stage_through or (tree.first_stage_through if tree else None)
    if through is None:
        raise InputError(
            file,
            Problem(
                path="uncertainty.first_stage_through",
                message="sampled futures need the first stage's last year",
                hint="give --first-stage-through YEAR, or an uncertainty: section",
            ),
        )
    futures = sampled_futures(parameters, samples, seed, keep)
    risk = tree.risk if tree else Uncertainty.model_fields["risk"].default
    sampled = scenario.model_copy(
        update={"uncertainty": Uncertainty(first_stage_through=through, futures=futures, risk=risk)}
    )
    problems = check_uncertainty(sampled)
    if problems:
        raise InputError(file, problems)
    return sampled


def _print_headline(h: dict[str, object]) -> None:
    out = stdout_console()

    def money(key: str) -> str:
        value = h.get(key)
        return _money(value if isinstance(value, float) else None)

    out.print(
        escape(
            f"{h['scenario']}: {h['futures']} futures, first stage through "
            f"{h['first_stage_through']}; {h['convention']}"
        ),
        soft_wrap=True,
    )
    out.print(
        f"expected NPV cost {money('expected_npv_cost_usd')}; expected weighted unserved "
        f"share {h['expected_weighted_unserved_share']:.4g}; CVaR at {h['cvar_alpha']:g} "
        f"{money('cvar_npv_cost_usd')}; worst future {money('worst_npv_cost_usd')}"
    )
    first = h.get("equivalent")
    if isinstance(first, dict) and first:
        out.print(
            f"first stage by the deterministic equivalent ({first['columns']:,} columns, "
            f"{first['rows']:,} rows): {first['status']}, gap on cost "
            f"{_percent(first.get('cost_gap'))}; service {first['service_status']}",
            soft_wrap=True,
        )
    hedging = h.get("hedging")
    if isinstance(hedging, dict) and hedging:
        gap = hedging["gap"]
        out.print(
            escape(
                f"progressive hedging on {hedging['executor']}: {hedging['iterations']} "
                f"iterations ({'converged' if hedging['converged'] else 'not converged'}, "
                f"residual {hedging['residual']:.2g}); first stage rounded "
                f"{hedging['rounding']}; bound {_money(hedging['bound_usd'])} "
                f"({hedging['bound_from']}), gap "
                f"{'unknown' if gap is None else f'{gap:.3%}'} of its recourse solves' "
                f"expected cost {_money(hedging['upper_bound_usd'])}, "
                f"{_percent(hedging.get('gap_to_plans'))} of the plans' above"
            ),
            soft_wrap=True,
        )
    if "evpi_usd" in h:
        out.print(
            f"EVPI {money('evpi_usd')} ± {money('evpi_resolution_usd')} of the solves' gaps "
            f"(wait and see {money('wait_and_see_npv_cost_usd')}; unserved share "
            f"{h['evpi_unserved_share']:+.4g})"
        )
    if "vss_usd" in h:
        out.print(
            f"VSS {money('vss_usd')} ± {money('vss_resolution_usd')} of the solves' gaps "
            f"(mean-value first stage {money('mean_value_npv_cost_usd')}; unserved share "
            f"{h['vss_unserved_share']:+.4g})",
            soft_wrap=True,
        )
        dropped = h.get("vss_decisions_dropped")
        if isinstance(dropped, int) and dropped:
            out.print(
                f"  {dropped} of the mean-value plan's first-stage decisions could not be taken "
                "in some future (a part not yet available there): left out there",
                soft_wrap=True,
            )


def register(cli: click.Group) -> None:
    cli.add_command(stochastic)
