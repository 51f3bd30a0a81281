"""``planner stochastic``: the two-stage plan of a scenario's ``uncertainty:`` tree."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from planner.cli.common import emit_json, frame_records, print_frame, stderr, stdout_console
from planner.cli.options import FiniteFloatRange, format_option, scenario_argument
from planner.errors import InputError, Problem, SolverError
from planner.scenario import load_scenario


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.0f}"


@click.command("stochastic")
@scenario_argument
@click.option(
    "--time-limit",
    type=FiniteFloatRange(0, min_open=True),
    help="Seconds for the two-stage solve (default: the scenario's solver.time_limit_s).",
)
@click.option(
    "--no-values",
    is_flag=True,
    help="Skip the wait-and-see and mean-value solves (no EVPI or VSS): 2K + 1 fewer solves.",
)
@format_option
def stochastic(scenario_file: Path, time_limit: float | None, no_values: bool, fmt: str) -> None:
    """Plan the first stage of SCENARIO_FILE against every future of its uncertainty: tree.

    The orders, kept units, commitments, datacenter builds and sales of the years up to
    uncertainty.first_stage_through are decided once for every future (the most
    expected demand served, then the least expected NPV cost, plus weight x CVaR when
    risk.weight > 0); each future's plan then takes its own recourse. Prints the
    expected cost and service, CVaR, EVPI (what knowing the future is worth) and VSS
    (what planning for the mean would lose), each future's cost, and the first-stage
    decisions; the independent checker verifies every future's plan and that they share
    the first stage. Exit 2 on bad input, 3 when no plan is found or the check fails.

    \b
    Example:
      planner stochastic scenarios/stochastic_orders.yaml
      planner stochastic scenarios/stochastic_orders.yaml --no-values --format json
    """
    from planner.stochastic.check import check_tree
    from planner.stochastic.solve import solve_tree
    from planner.stochastic.values import figures, first_stage_table, futures_table

    scenario = load_scenario(scenario_file)
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
    result = solve_tree(scenario, time_limit_s=time_limit, values=not no_values)
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
    if problems:
        for problem in problems[:20]:
            stderr.print(escape(problem), soft_wrap=True)
        raise SolverError(f"the two-stage plan failed its check ({len(problems)} problem(s))")


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
            f"{h['vss_unserved_share']:+.4g})"
        )


def register(cli: click.Group) -> None:
    cli.add_command(stochastic)
