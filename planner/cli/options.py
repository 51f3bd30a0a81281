"""Options that several commands share, each declared once (decorators, as in sqlite-utils).

A bundle is a decorator that adds its options to a command in a fixed order, so every
command that offers ``--mip-gap`` spells, types and documents it the same way. Where the
help must say whether an option applies to one solve or to each of many, the command
picks a :class:`SolveScope`; names, types and defaults never vary.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from planner.deadline import EXPORT_GRACE_S
from planner.errors import InputError, Problem
from planner.units import SOLVER_NAMES

if TYPE_CHECKING:
    from planner.scenario.schema import Scenario

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]

FILE = click.Path(path_type=Path, dir_okay=False)
"""A file to read or write (a directory is rejected by click, exit 2)."""
INPUT = click.Path(path_type=Path)
"""A file the library reads and reports on itself (missing, a directory: its own message)."""


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses NaN and infinities (``nan`` passes every bound)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number is not None and not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def bundle(*decorators: Callable[[Any], Any]) -> Decorator[Any]:
    """One decorator applying ``decorators`` so that they show in ``--help`` in this order."""

    def apply(command: F) -> F:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return apply


def _set_wide(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        from planner.cli.common import WIDE_KEY

        ctx.find_root().meta[WIDE_KEY] = True
    return value


wide_option = click.option(
    "--wide",
    is_flag=True,
    expose_value=False,
    callback=_set_wide,
    help="Table format: show every column; by default tables fit 120 columns and a line "
    "under a table names the columns left out.",
)

format_option = bundle(
    click.option(
        "--format",
        "fmt",
        type=click.Choice(["table", "csv", "json"]),
        default="table",
        show_default=True,
        help="Output format: a rich table, CSV, or one JSON document on stdout.",
    ),
    wide_option,
)

scenario_argument = click.argument("scenario_file", type=FILE)

all_columns_option = click.option(
    "--all-columns", is_flag=True, help="Table format: show every column."
)


def out_option(help: str, **attrs: Any) -> Decorator[Any]:
    """``--out FILE``: the file a command writes (what it is, and any default, in ``help``)."""
    return click.option("--out", "out", type=FILE, help=help, **attrs)


# --- the performance model ---------------------------------------------------------------


def calibration_option(*, scenario: bool) -> Decorator[Any]:
    """``--calibration FILE|none``: the inference model's efficiency factors (resolve the
    value with :func:`planner.perf.efficiency.calibration_table`); ``scenario``: the
    command reads a scenario, whose ``calibration:`` the option replaces."""
    default = "the scenario's `calibration:`, else the shipped" if scenario else "the shipped"
    return click.option(
        "--calibration",
        "calibration",
        type=INPUT,
        help="Calibration YAML from `planner calibrate`, or `none` for the raw built-in "
        "priors (the roofline without a fit; a file called none: ./none) "
        f"[default: {default} calibration, fitted on MLPerf Inference v4.1 and published "
        "DeepSeek-V3/R1 serving points].",
    )


def software_option() -> Decorator[Any]:
    """``--software VENDOR=STACK`` (repeatable): the serving software stack a vendor's
    throughput assumes, over the scenario's ``software:`` (see :func:`with_software`)."""
    return click.option(
        "--software",
        "software",
        multiple=True,
        metavar="VENDOR=STACK",
        help="Serving software stack of a vendor, e.g. AMD=rocm7-amd-claim (repeatable; "
        "`planner software` lists them) [default: the scenario's `software:`, else each "
        "vendor's default stack].",
    )


def with_software(scenario: Scenario, pairs: Sequence[str]) -> Scenario:
    """``scenario`` with ``--software`` pairs over its ``software:``; InputError (exit 2)
    on a malformed pair, an unknown vendor or stack."""
    if not pairs:
        return scenario
    from planner.catalog.software import check_software  # only when asked: YAML to read

    chosen = dict(scenario.software)
    for pair in pairs:
        vendor, sep, stack = pair.partition("=")
        if not sep or not vendor.strip() or not stack.strip():
            raise InputError(
                None,
                Problem(
                    path="--software",
                    message="expects VENDOR=STACK",
                    found=repr(pair),
                    expected="e.g. --software AMD=rocm7-amd-claim",
                ),
            )
        chosen[vendor.strip()] = stack.strip()
    problems = check_software(chosen)
    if problems:
        raise InputError(
            None, [replace(p, path=p.path.replace("software.", "--software ", 1)) for p in problems]
        )
    return scenario.model_copy(update={"software": chosen})


# --- solving -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SolveScope:
    """The help of the solver options that depends on how many solves a command makes."""

    relax: str
    mip_gap: str
    time_limit: str


_MANY_LPS = "Continuous purchases (LPs): fast, approximate."

ONE_PLAN = SolveScope(
    relax="Continuous purchases (an LP): fast, approximate.",
    mip_gap="Relative MIP gap (overrides the file).",
    time_limit="Wall-clock limit of the whole run, seconds: perf model, build, solve (the "
    "best plan so far is kept; shadow prices and estimates it cuts are skipped and named) "
    f"and, with {EXPORT_GRACE_S:g} s of grace, the workbook "
    "(overrides the file's solver.time_limit_s).",
)
"""``planner run``: one plan of one scenario file."""
EACH_SCENARIO = SolveScope(
    relax=_MANY_LPS,
    mip_gap="Relative MIP gap for every solve.",
    time_limit="Wall-clock limit per scenario (model build and solve), seconds.",
)
"""``planner compare``: one solve per scenario file."""
EACH_RUN = SolveScope(
    relax=_MANY_LPS,
    mip_gap="Relative MIP gap per run.",
    time_limit="Wall-clock limit per run (model build and solve), seconds.",
)
"""Sweeps, Monte Carlo, vendors and alternatives: many runs of one scenario."""

_STRATEGY_HELP = (
    "direct: solve the MILP as built; lp-first: round the LP relaxation and keep it "
    "if within the MIP gap, else start the MILP from it (HiGHS only); auto: lp-first "
    "from 20,000 variables [default: the file's solver.strategy, else auto]."
)


def solver_options(
    scope: SolveScope, *, solver: bool = True, threads: bool = True, strategy: bool = False
) -> Decorator[Any]:
    """``--relax --mip-gap --time-limit`` and, as the command's library call accepts them,
    ``--solver --threads --strategy``; passed as keyword arguments of those names
    (``time_limit`` in seconds, unset options None)."""
    options: list[Callable[[Any], Any]] = [
        click.option("--relax", is_flag=True, help=scope.relax),
        click.option("--mip-gap", type=FiniteFloatRange(0, 1), help=scope.mip_gap),
        click.option(
            "--time-limit", type=FiniteFloatRange(0, min_open=True), help=scope.time_limit
        ),
    ]
    if solver:
        options.append(
            click.option(
                "--solver",
                type=click.Choice(SOLVER_NAMES),
                help="A registered solver name [default: the file's, else highs].",
            )
        )
    if threads:
        options.append(
            click.option("--threads", type=click.IntRange(1, 256), help="Solver threads.")
        )
    if strategy:
        options.append(
            click.option(
                "--strategy", type=click.Choice(["auto", "direct", "lp-first"]), help=_STRATEGY_HELP
            )
        )
    return bundle(*options)


# --- many runs ---------------------------------------------------------------------------

executor_options = bundle(
    click.option(
        "--workers",
        type=click.IntRange(0, 1024),
        help="Local worker processes [default: one per core; 0 = in this process].",
    ),
    click.option(
        "--scheduler",
        metavar="ADDRESS",
        help="Run on an existing Dask cluster, e.g. tcp://10.0.0.5:8786 "
        "(needs pip install 'planner[dask]').",
    ),
    click.option(
        "--dask-local",
        type=click.IntRange(1, 1024),
        metavar="N",
        help="Run on a Dask LocalCluster of N single-threaded worker processes.",
    ),
)
"""Where many solves run: the local process pool, a Dask cluster, or this process."""


def executor_choice(workers: int | None, scheduler: str | None, dask_local: int | None) -> Any:
    """The :class:`~planner.analysis.executors.ExecutorChoice` of
    :data:`executor_options`; a usage error for a contradictory pair."""
    from planner.analysis.executors import ExecutorChoice

    if scheduler and dask_local:
        raise click.UsageError("use --scheduler or --dask-local, not both")
    if workers is not None and (scheduler or dask_local):
        raise click.UsageError("--workers sizes the local pool; Dask sizes its own workers")
    return ExecutorChoice(workers=workers, scheduler=scheduler, dask_local=dask_local)


execution_options = bundle(
    executor_options,
    click.option(
        "--results",
        type=FILE,
        help="Per-run results, appended as runs finish (JSON lines) "
        "[default: exports/SCENARIO-COMMAND.jsonl].",
    ),
    click.option("--resume", is_flag=True, help="Keep the runs already in --results."),
    click.option("--fresh", is_flag=True, help="Discard the runs already in --results."),
    click.option("--no-progress", is_flag=True, help="No progress bar on stderr."),
)
"""Where the runs of an analysis execute and where their results accumulate."""

analysis_output_options = bundle(
    out_option("Workbook [default: exports/SCENARIO-COMMAND.xlsx]."),
    click.option(
        "--table",
        "table_path",
        type=FILE,
        help="Tidy per-run table, .csv or .parquet (needs pyarrow) "
        "[default: exports/SCENARIO-COMMAND.csv].",
    ),
    format_option,
)
"""What an analysis writes: its workbook, its per-run table, and the printed format."""
