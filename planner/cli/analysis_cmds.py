"""``planner sweep | montecarlo | vendors | alternatives``: many optimisations, summarised.

Each command loads the scenario, builds its tasks (checking every parameter path first),
runs them (local process pool, or Dask with ``--scheduler`` / ``--dask-local``), prints
the headline table and writes a workbook and a tidy per-run table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pandas as pd
from rich.markup import escape

from planner.analysis.executors import run_tasks
from planner.analysis.figures import DEFAULT_MIP_GAP
from planner.analysis.inert import inert_inputs, refuse_inert
from planner.analysis.params import (
    LogNormal,
    Parameter,
    merge,
    parse_dist,
    parse_vary,
    read_spec,
)
from planner.analysis.report import Analysis, write_runs_table, write_workbook
from planner.analysis.tasks import SOLVED, SolveSettings, check_run_count, sweep_run_count
from planner.cli.analysis_out import print_failures
from planner.cli.common import emit_json, frame_records, print_frame, stderr
from planner.cli.options import (
    EACH_RUN,
    FILE,
    FiniteFloatRange,
    analysis_output_options,
    execution_options,
    executor_choice,
    scenario_argument,
    software_option,
    solver_options,
    with_software,
)
from planner.cli.outputs import (
    TABLE,
    WORKBOOK,
    check_outputs,
    default_output,
    require_suffix,
    scenario_inputs,
)
from planner.errors import PlannerError
from planner.scenario import Scenario, load_scenario

EXPORTS = Path("exports")
STRICT = click.option(
    "--strict",
    is_flag=True,
    help="Refuse (exit 2) a varied input that is shadowed by a more specific value or "
    "does not reach the model [default: warn and run].",
)


def _check_inert(scenario: Any, parameters: Any, strict: bool, source: str | None) -> None:
    """Warn about varied inputs that cannot move the results; refuse them with --strict."""
    problems = inert_inputs(scenario, parameters)
    if strict:
        refuse_inert(problems, source)
    for p in problems:
        hint = f" ({p.hint})" if p.hint else ""
        stderr.print(f"warning: {p.path} {p.message}{hint}", markup=False, soft_wrap=True)


def _settings(options: dict[str, Any], scenario: Any) -> SolveSettings:
    """The solver options of :func:`~planner.cli.options.solver_options`, for every run.

    Without --mip-gap, runs use the scenario's gap or
    :data:`~planner.analysis.figures.DEFAULT_MIP_GAP`, whichever is tighter, so the
    differences an analysis compares stand above the solver's tolerance."""
    gap = options["mip_gap"]
    if gap is None:
        gap = min(scenario.solver.mip_gap, DEFAULT_MIP_GAP)
    return SolveSettings(
        relax=options["relax"],
        mip_gap=gap,
        time_limit_s=options["time_limit"],
        solver=options["solver"],
    )


def _run(
    tasks: list, kind: str, scenario_file: Path, options: dict[str, Any], suffix: str = ""
) -> list[dict]:
    if options["resume"] and options["fresh"]:
        raise click.UsageError("use --resume or --fresh, not both")
    executor = executor_choice(options["workers"], options["scheduler"], options["dask_local"])
    results = options["results"] or EXPORTS / f"{scenario_file.stem}-{kind}.jsonl"
    if suffix:
        results = results.with_name(f"{results.stem}-{suffix}{results.suffix}")
    stderr.print(
        f"{kind}: {len(tasks)} runs on {executor.describe()}; results in {results}", markup=False
    )
    rows = run_tasks(
        tasks,
        executor=executor,
        results=results,
        resume=options["resume"],
        fresh=options["fresh"],
        progress=not options["no_progress"],
        title=kind,
    )
    if not any(r["status"] in SOLVED for r in rows):
        reasons = sorted({str(r.get("error")) for r in rows})[:3]
        raise PlannerError(f"no run produced a plan; first reasons: {'; '.join(reasons)}")
    return rows


def _escaped(frame: pd.DataFrame) -> pd.DataFrame:
    """Text cells and headers with rich markup escaped (``sites[dc]`` is not a tag)."""
    out = frame.apply(lambda c: c.map(lambda v: escape(v) if isinstance(v, str) else v))
    return out.rename(columns=lambda c: escape(str(c)))


def _check_outputs(
    kind: str, scenario_file: Path, scenario: Any, kw: dict[str, Any], *read: Path | None
) -> None:
    """Settle the workbook and table paths (defaults: exports/SCENARIO-KIND.xlsx, .csv)
    and refuse them before any run if they would replace an input or cannot be written."""
    require_suffix(kw["out"], WORKBOOK, "--out")
    require_suffix(kw["table_path"], TABLE, "--table")
    inputs = [*scenario_inputs(scenario_file, scenario.calibration), *(p for p in read if p)]
    stem = f"{scenario_file.stem}-{kind}"
    kw["out"] = kw["out"] or default_output(EXPORTS / f"{stem}.xlsx", inputs, kind)
    kw["table_path"] = kw["table_path"] or default_output(EXPORTS / f"{stem}.csv", inputs, kind)
    check_outputs(inputs, kw["out"], kw["table_path"])


def _finish(
    analysis: Analysis,
    scenario_file: Path,
    fmt: str,
    out: Path | None,
    table_path: Path | None,
    shown: tuple[str, ...] = (),
) -> None:
    """Print the headline tables, warn about failed runs, write the workbook and table."""
    shown = shown or (next(iter(analysis.frames)),)
    if fmt == "json":
        emit_json(
            {
                "analysis": analysis.kind,
                "scenario": analysis.scenario,
                "settings": analysis.settings,
                "notes": analysis.notes,
                "tables": {
                    name: frame_records(frame)
                    for name, frame in analysis.frames.items()
                    if name != "Runs"
                },
                "runs": analysis.rows,
            }
        )
    elif fmt == "csv":
        print_frame(analysis.frames[shown[0]], "csv")
    else:
        for name in shown:
            frame = analysis.frames[name]
            columns = analysis.display.get(name)
            print_frame(_escaped(frame[columns] if columns else frame), "table", title=name)
    failed = [r for r in analysis.rows if r["status"] not in SOLVED]
    if failed:
        stderr.print(
            f"{len(failed)} of {len(analysis.rows)} runs failed, e.g. {failed[0]['label']}: "
            f"{failed[0]['status']}: {failed[0].get('error')}",
            markup=False,
            soft_wrap=True,
        )
    for note in analysis.notes:
        stderr.print(f"note: {note}", markup=False, soft_wrap=True)
    stem = f"{scenario_file.stem}-{analysis.kind}"
    workbook = write_workbook(analysis, out or EXPORTS / f"{stem}.xlsx")
    table = write_runs_table(analysis.frames["Runs"], table_path or EXPORTS / f"{stem}.csv")
    stderr.print(f"wrote {workbook} and {table}", markup=False)
    if failed and fmt == "table":  # CSV and JSON on stdout stay one document
        print_failures(failed, len(analysis.rows), table)


@click.command("sweep")
@scenario_argument
@click.option(
    "--vary",
    "vary",
    multiple=True,
    metavar="PATH=LOW:HIGH:N",
    help="An input and its values: LOW:HIGH:N (N even steps) or V1,V2,...; "
    "PATH*=... multiplies the base value (a whole year series). Repeatable.",
)
@click.option(
    "--spec",
    type=FILE,
    help="YAML spec: parameters: {PATH: {values: [...]} or {range: [LOW, HIGH, N]}}.",
)
@click.option("--grid", is_flag=True, help="Every combination of the values (full factorial).")
@STRICT
@solver_options(EACH_RUN, threads=False)
@execution_options
@analysis_output_options
def sweep(
    scenario_file: Path,
    vary: tuple[str, ...],
    spec: Path | None,
    grid: bool,
    strict: bool,
    **kw: Any,
) -> None:
    """Sensitivity of SCENARIO_FILE's optimum to its inputs.

    One input at a time around the base (a tornado: how far the real cost — NPV of
    cash costs — moves between an input's cheapest and dearest value, the unmet share
    beside it, each workload's $/Mtok, and whether the swing lies within solver
    tolerance; a spider chart of every tested value), or with --grid every
    combination. Inputs are dotted paths, checked before anything runs; an input that
    a more specific value shadows (or that cannot reach the model) is warned about,
    and refused with --strict. Runs default to a 0.01% MIP gap (or the scenario's, if
    tighter).

    \b
    Examples:
      planner sweep scenarios/baseline.yaml --vary finance.wacc=0.06:0.14:5 \\
          --vary 'sites[texas].electricity_usd_per_kwh=0.04:0.08:3' \\
          --vary 'sites[texas].power_cap_mw.2028=200,300,400' \\
          --vary 'inference[chat].tokens_per_day*=0.5:2:4'
      planner sweep scenarios/baseline.yaml --spec sweep.yaml --grid --dask-local 4
    """
    from planner.analysis.sweep import sweep_analysis, sweep_tasks

    scenario = load_scenario(scenario_file)
    _check_outputs("grid" if grid else "sweep", scenario_file, scenario, kw, spec)
    parameters = merge(read_spec(spec) if spec else None, [parse_vary(v) for v in vary])
    settings = _settings(kw, scenario)
    runs = sweep_run_count([len(p.values) for p in parameters], grid=grid)
    check_run_count(runs, "--vary / --spec")
    tasks, base = sweep_tasks(
        scenario, parameters, grid=grid, settings=settings, source=str(spec) if spec else None
    )
    _check_inert(scenario, parameters, strict, str(spec) if spec else None)
    rows = _run(tasks, "grid" if grid else "sweep", scenario_file, kw)
    analysis = sweep_analysis(scenario, parameters, rows, base, grid=grid)
    _finish(analysis, scenario_file, kw["fmt"], kw["out"], kw["table_path"])


def _with_perf_error(
    parameters: tuple[Parameter, ...], scenario: Scenario
) -> tuple[Parameter, ...]:
    """``parameters`` plus lognormal multipliers on the scenario's own
    ``throughput_scale`` at the model's measured error under the scenario's calibration
    (:func:`planner.perf.fidelity.perf_error_sigmas`), for the kinds of work it has and
    paths not already given."""
    from planner.perf.efficiency import calibration_table
    from planner.perf.fidelity import perf_error_sigmas

    given = {p.path for p in parameters}
    has = {"training": bool(scenario.training), "inference": bool(scenario.inference)}
    sigmas = perf_error_sigmas(calibration=calibration_table(scenario.calibration))
    added = [
        Parameter(f"throughput_scale.{kind}", multiplier=True, distribution=LogNormal(1.0, sigma))
        for kind, sigma in sigmas.items()
        if has[kind] and sigma > 0 and f"throughput_scale.{kind}" not in given
    ]
    return (*parameters, *added)


@click.command("montecarlo")
@scenario_argument
@click.option(
    "--spec",
    type=FILE,
    help="YAML spec: seed, samples, parameters: {PATH: {distribution: ..., ...}}.",
)
@click.option(
    "--dist",
    "dists",
    multiple=True,
    metavar="PATH=NAME:ARGS",
    help="An uncertain input: uniform:LOW:HIGH, triangular:LOW:MODE:HIGH, "
    "normal:MEAN:SD[:LOW:HIGH], lognormal:MEDIAN:SIGMA[:LOW:HIGH]; PATH*= for a "
    "multiplier. Repeatable; replaces the spec's entry for the same path.",
)
@click.option("--samples", type=click.IntRange(1), help="Samples [default: the spec's, else 100].")
@click.option("--seed", type=click.IntRange(0), help="Random seed [default: the spec's, else 0].")
@click.option(
    "--perf-error",
    is_flag=True,
    help="Also sample throughput_scale.training and .inference from lognormal(1, σ), σ "
    "from the performance model's measured error on the shipped data (`planner "
    "fidelity`), so the spread includes the model's own uncertainty; the inference σ "
    "is pooled over dense and MoE rows, so a dense-only scenario gets the MoE rows' wider "
    "spread too. A --dist or spec entry for either path takes precedence.",
)
@click.option(
    "--regret",
    type=click.IntRange(0, 20),
    default=0,
    show_default=True,
    help="Candidate first-year plans whose regret to evaluate (base, median, the samples' "
    "most frequent); each is fixed and the later years re-solved in every sample.",
)
@STRICT
@solver_options(EACH_RUN, threads=False)
@execution_options
@analysis_output_options
def montecarlo(
    scenario_file: Path,
    spec: Path | None,
    dists: tuple[str, ...],
    samples: int | None,
    seed: int | None,
    perf_error: bool,
    regret: int,
    strict: bool,
    **kw: Any,
) -> None:
    """Distributions of the optimum when SCENARIO_FILE's inputs are uncertain.

    Samples the inputs (same seed, same samples, whatever runs them), optimises each
    sample and reports P10/P50/P90 (with bootstrap intervals) of the real cost (NPV of
    cash costs), the unmet demand apart from it, capex by year, peak MW and $/Mtok;
    purchases by year and hardware, the first year's plans, the inputs that drive the
    spread (rank correlation), a convergence chart, how often each limit binds. With
    --regret N, the regret of committing to each of N first-year plans and the robust
    choice. Runs default to a 0.01% MIP gap (or the scenario's, if tighter).

    \b
    Example:
      planner montecarlo scenarios/baseline.yaml --spec uncertainty.yaml --samples 500 --seed 7
      planner montecarlo scenarios/baseline.yaml --samples 40 --regret 5 \\
          --dist 'sites[texas].electricity_usd_per_kwh=normal:0.06:0.015:0.03:' \\
          --dist 'inference[chat].tokens_per_day*=lognormal:1:0.4'
    """
    from planner.analysis.montecarlo import montecarlo_analysis, montecarlo_tasks
    from planner.analysis.regret import base_task, candidates, regret_frames, regret_tasks

    scenario = load_scenario(scenario_file)
    _check_outputs("montecarlo", scenario_file, scenario, kw, spec)
    loaded = read_spec(spec) if spec else None
    parameters = merge(loaded, [parse_dist(d) for d in dists])
    if perf_error:
        parameters = _with_perf_error(parameters, scenario)
    samples = samples or (loaded.samples if loaded and loaded.samples else 100)
    seed = seed if seed is not None else (loaded.seed if loaded and loaded.seed is not None else 0)
    settings = _settings(kw, scenario)
    check_run_count(samples * (1 + regret) + 1, "--samples / the spec's samples: / --regret")
    tasks = montecarlo_tasks(
        scenario,
        parameters,
        samples=samples,
        seed=seed,
        settings=settings,
        source=str(spec) if spec else None,
    )
    _check_inert(scenario, parameters, strict, str(spec) if spec else None)
    shown = ["Statistics", "Purchases by year", "Drivers", "Binding frequency"]
    if regret:
        tasks.append(base_task(tasks))
    rows = _run(tasks, "montecarlo", scenario_file, kw)
    analysis = montecarlo_analysis(scenario, parameters, rows[:samples], samples=samples, seed=seed)
    if regret:
        chosen = candidates(rows[samples], rows[:samples], regret)
        if rows[samples]["status"] not in SOLVED:
            raise PlannerError(f"the base scenario found no plan: {rows[samples].get('error')}")
        fixed = _run(regret_tasks(tasks, rows, chosen), "montecarlo", scenario_file, kw, "regret")
        frames, sentence = regret_frames(tasks, rows, chosen, fixed)
        analysis.frames = {"Regret": frames["Regret"], **analysis.frames, **frames}
        analysis.notes.append(sentence)
        shown.insert(0, "Regret")
    _finish(analysis, scenario_file, kw["fmt"], kw["out"], kw["table_path"], tuple(shown))


@click.command("vendors")
@scenario_argument
@click.option(
    "--greenfield",
    is_flag=True,
    help="Drop other vendors' existing fleet too [default: it stays, as it is already paid for].",
)
@software_option()
@solver_options(EACH_RUN, threads=False)
@execution_options
@analysis_output_options
def vendors(scenario_file: Path, greenfield: bool, software: tuple[str, ...], **kw: Any) -> None:
    """What each vendor alone costs, next to all vendors together.

    Re-optimises SCENARIO_FILE with only one vendor's hardware to buy or rent (the
    existing fleet keeps running), for each vendor listed: NPV TCO and its excess over
    all vendors, capex, peak MW, whether demand is met and $/Mtok per workload.

    \b
    Example:
      planner vendors scenarios/vendor_shootout.yaml --out exports/vendors.xlsx
      planner vendors scenarios/vendor_shootout.yaml --software AMD=rocm7-amd-claim
    """
    from planner.analysis.vendors import vendor_tasks, vendors_analysis

    scenario = with_software(load_scenario(scenario_file), software)
    _check_outputs("vendors", scenario_file, scenario, kw)
    settings = _settings(kw, scenario)
    tasks = vendor_tasks(scenario, greenfield=greenfield, settings=settings)
    rows = _run(tasks, "vendors", scenario_file, kw)
    analysis = vendors_analysis(scenario, rows, greenfield=greenfield)
    _finish(analysis, scenario_file, kw["fmt"], kw["out"], kw["table_path"])


@click.command("alternatives")
@scenario_argument
@click.option(
    "--slack",
    type=FiniteFloatRange(0, 1),
    default=0.02,
    show_default=True,
    help="How much dearer than the optimum an alternative may be (0.02 = 2%).",
)
@click.option(
    "--count",
    type=click.IntRange(1, 50),
    default=3,
    show_default=True,
    help="Alternatives to look for (fewer when they stop differing).",
)
@solver_options(EACH_RUN, threads=False)
@analysis_output_options
def alternatives(scenario_file: Path, slack: float, count: int, **kw: Any) -> None:
    """Near-optimal fleets that differ as much as possible in hardware mix.

    Finds the optimum, then plans within --slack of its cost that avoid the hardware
    earlier plans chose (Hop-Skip-Jump modelling to generate alternatives). Hardware in
    every plan is forced; hardware in some is a matter of taste. Each plan is checked
    by the independent checker.

    \b
    Example:
      planner alternatives scenarios/baseline.yaml --slack 0.02 --count 4
    """
    from planner.analysis.alternatives import alternatives as find
    from planner.analysis.alternatives import alternatives_analysis

    scenario = load_scenario(scenario_file)
    _check_outputs("alternatives", scenario_file, scenario, kw)
    settings = _settings(kw, scenario)
    stderr.print(
        f"alternatives: optimum, then up to {count} plans within {slack:.1%}", markup=False
    )
    found = find(scenario, slack=slack, count=count, settings=settings)
    analysis = alternatives_analysis(scenario, found, slack=slack, count=count)
    _finish(
        analysis, scenario_file, kw["fmt"], kw["out"], kw["table_path"], ("Alternatives", "Choices")
    )


def register(cli: click.Group) -> None:
    for command in (sweep, montecarlo, vendors, alternatives):
        cli.add_command(command)
