"""One analysis run as plain data, and the worker function that solves it.

A :class:`Task` is a scenario document (a plain dict, as ``Scenario.model_dump``
gives it) plus the :class:`~planner.analysis.params.Change` s to apply and the solver
settings. :func:`run_task` applies the changes, validates, optimises with one solver
thread and returns a :func:`result row <plan_row>`: a JSON-ready dict of numbers,
strings, lists and string-keyed dicts. No Pyomo object crosses a process boundary.

Perf tables are cached per worker process (``_TABLES``, a small LRU dict), keyed by a
hash of the scenario parts the perf model reads (:func:`perf_key`): hardware specs
(prices, supply caps and site lists excluded), models, the perf fields of inference
workloads (demand and peak-to-average excluded), training runs, calibration,
availability and the horizon. A sweep of prices, power, budgets or demand thus
computes the tables once per worker; a sweep of, say, memory bandwidth once per value.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd
from pydantic import ValidationError

from planner.analysis.params import MAX_RUNS, Change, apply_changes
from planner.analysis.rows import Row, plan_row
from planner.errors import InputError, PlannerError, Problem, SolverError
from planner.scenario.meta import perf_free_fields
from planner.scenario.schema import HardwareChoice, InferenceWorkload, Scenario

Tables = tuple[pd.DataFrame, pd.DataFrame]


SOLVED = ("optimal", "feasible")
"""Statuses of a run that produced a plan."""
RETRY = "error"
"""Status of a run that crashed or whose worker was lost: retried by ``--resume``.

The other failures are deterministic and kept: ``invalid`` (the varied scenario breaks
the schema or a check, e.g. a WACC above 1) and ``no plan`` (the solver found none).
"""
WORKER_LOST = "worker process died while solving this task (a solver crash or out of memory)"
MAX_ERROR_CHARS = 600
CACHE_SIZE = 32


@dataclass(frozen=True)
class SolveSettings:
    """Solver settings for every run (None: the scenario's own ``solver:`` section)."""

    relax: bool = False
    mip_gap: float | None = None
    time_limit_s: float | None = None
    solver: str | None = None


@dataclass(frozen=True)
class FixedPlan:
    """Purchases decided before the run: every purchase of ``year`` is held at
    ``purchases`` (``(hardware, site, period, units)``; 0 for any not listed)."""

    year: int
    purchases: tuple[tuple[str, str, str, float], ...] = ()


@dataclass(frozen=True)
class Task:
    """One optimisation: ``document`` with ``changes`` applied, solved with ``settings``."""

    task_id: int
    label: str
    document: dict[str, Any]
    changes: tuple[Change, ...] = ()
    settings: SolveSettings = field(default_factory=SolveSettings)
    fixed: FixedPlan | None = None
    """First-year purchases held fixed (regret analysis); None: all free."""

    @property
    def values(self) -> dict[str, float]:
        """The varied values by parameter label (``PATH ×`` for multipliers)."""
        return {(f"{c.path} ×" if c.multiplier else c.path): c.value for c in self.changes}


def fingerprint(data: Any) -> str:
    """A short stable hash of JSON-able ``data`` (dict keys sorted, years as text)."""
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def task_key(task: Task, document_key: str | None = None) -> str:
    """What identifies a task's inputs: document, changes and settings.

    ``--resume`` only reuses a stored row whose key matches, so a results file can never
    be resumed by a run with another scenario, spec or seed. The time limit is left
    out: ``--resume --time-limit`` with a larger limit re-runs the rows it cut short
    (:func:`cut_short`) and keeps the rest.
    """
    doc = document_key or fingerprint(text_keys(task.document))
    # The time limit does not identify a task: a run it cut short is re-run under a
    # larger one (see cut_short).
    settings = {**asdict(task.settings), "time_limit_s": None}
    parts: list[Any] = [doc, [asdict(c) for c in task.changes], settings]
    if task.fixed is not None:
        parts.append(asdict(task.fixed))
    return fingerprint(parts)


def time_limit_of(task: Task) -> float | None:
    """The time limit ``task`` runs under: its settings', else its scenario's (None:
    none)."""
    if task.settings.time_limit_s is not None:
        return task.settings.time_limit_s
    limit = (task.document.get("solver") or {}).get("time_limit_s")
    limit = float(limit) if isinstance(limit, int | float) else None
    for change in task.changes:  # a sweep over the scenario's own limit
        if change.path == "solver.time_limit_s":
            if not change.multiplier:
                limit = change.value
            elif limit is not None:
                limit *= change.value
    return limit


def cut_short(row: Row, task: Task) -> bool:
    """Whether ``--resume`` re-runs ``row``, kept from an earlier run of ``task``, that
    has a plan: its time limit stopped it (the solve stopped early, or follow-ups
    skipped) and ``task`` now has more time (or no limit). A row with no plan because
    the limit ran out is an ``error`` row, which ``--resume`` re-runs anyway."""
    stopped = row.get("status") == "feasible" or bool(row.get("follow_ups_skipped"))
    if not stopped or "time_limit_s" not in row:
        return False
    before, now = row["time_limit_s"], time_limit_of(task)
    return before is not None and (now is None or now > before)


def text_keys(value: Any) -> Any:
    """``value`` with every dict key as text (so years and names sort together)."""
    if isinstance(value, dict):
        return {str(k): text_keys(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [text_keys(v) for v in value]
    return value


def check_run_count(count: int, option: str) -> None:
    """Refuse an analysis of more than :data:`MAX_RUNS` runs (InputError, exit 2)."""
    if count > MAX_RUNS:
        raise InputError(
            None,
            Problem(
                path=option,
                message=f"asks for {count:,} runs; an analysis may have at most {MAX_RUNS:,}",
                hint="use fewer values or samples (coarser steps), or split the analysis "
                "into several runs",
            ),
        )


def sweep_run_count(value_counts: Sequence[int], *, grid: bool) -> int:
    """Runs of a sweep over parameters with these numbers of values: the base run, then
    every combination (``grid``) or each value of each parameter alone."""
    return 1 + (math.prod(value_counts) if grid else sum(value_counts))


# --- perf tables, cached per process ---------------------------------------------------

_TABLES: OrderedDict[str, Tables] = OrderedDict()
_NOT_PERF = {
    "hardware": perf_free_fields(HardwareChoice),
    "inference": perf_free_fields(InferenceWorkload),
}


def perf_key(scenario: Scenario) -> str:
    """Hash of what the perf model reads (see the module docstring)."""
    doc = scenario.model_dump(mode="python")
    parts: dict[str, Any] = {
        "models": doc["models"],
        "training": doc["training"],
        "calibration": doc["calibration"],
        "availability": doc["finance"]["availability"],
        "horizon": doc["horizon"],
        "serving": doc["serving"],
        "software": doc["software"],
    }
    for section, skip in _NOT_PERF.items():
        parts[section] = [{k: v for k, v in item.items() if k not in skip} for item in doc[section]]
    return fingerprint(text_keys(parts))


def cached_tables(scenario: Scenario) -> tuple[Tables, bool]:
    """The perf tables of ``scenario`` and whether they came from this process's cache."""
    key = perf_key(scenario)
    if key in _TABLES:
        _TABLES.move_to_end(key)
        return _TABLES[key], True
    from planner.pipeline import throughput

    tables = throughput(scenario)
    _TABLES[key] = tables
    while len(_TABLES) > CACHE_SIZE:
        _TABLES.popitem(last=False)
    return tables, False


# --- the worker ------------------------------------------------------------------------


def build_scenario(task: Task) -> Scenario:
    """The task's scenario, validated; raises InputError naming the broken fields."""
    doc = apply_changes(task.document, task.changes, _years(task.document))
    try:
        return Scenario.model_validate(doc)
    except ValidationError as exc:
        from planner.scenario.loader import validation_problems

        raise InputError(None, validation_problems(exc, doc, {})) from None


def _years(doc: dict[str, Any]) -> list[int]:
    horizon = doc["horizon"]
    return list(range(horizon["start"], horizon["start"] + horizon["years"]))


def run_task(task: Task) -> Row:
    """Solve one task (one solver thread); never raises: failures become the row's status."""
    from planner.pipeline import plan

    started = time.perf_counter()
    row = base_row(task)
    cached = False
    try:
        scenario = build_scenario(task)
        tables, cached = cached_tables(scenario)
        s = task.settings
        hook = None
        if task.fixed is not None:
            from planner.optimize.fixed import FixedPurchases

            units = {(h, site, v): u for h, site, v, u in task.fixed.purchases}
            hook = FixedPurchases(task.fixed.year, units)
        result = plan(
            scenario,
            relax=s.relax,
            mip_gap=s.mip_gap,
            time_limit_s=s.time_limit_s,
            solver=s.solver,
            threads=1,
            tables=tables,
            extend=hook,
            duals=False,
        )
    except InputError as exc:
        row.update(status="invalid", error=_short(exc))
    except SolverError as exc:
        row.update(status="no plan", error=_short(exc))
    except PlannerError as exc:
        row.update(status=RETRY, error=_short(exc))
    except Exception as exc:  # a bug or a solver crash: recorded, the run goes on
        row.update(status=RETRY, error=_short(exc, with_type=True))
    else:
        row.update(plan_row(result))
        row["timing"] = {
            "build_seconds": result.headline.get("build_seconds"),
            "solve_seconds": result.headline.get("solve_seconds"),
        }
    row.setdefault("timing", {})
    row["timing"].update(seconds=time.perf_counter() - started, perf_cached=cached)
    return row


def base_row(task: Task) -> Row:
    return {
        "task_id": task.task_id,
        "label": task.label,
        "values": task.values,
        "status": RETRY,
        "error": None,
        "time_limit_s": time_limit_of(task),
    }


def error_row(task: Task, reason: str) -> Row:
    """The row of a task that failed outside :func:`run_task` (worker lost, exception)."""
    row = base_row(task)
    row.update(error=reason[:MAX_ERROR_CHARS], timing={})
    return row


def _short(exc: BaseException, with_type: bool = False) -> str:
    text = " ".join(str(exc).split())
    if with_type:
        text = f"{type(exc).__name__}: {text}"
    return text[:MAX_ERROR_CHARS]
