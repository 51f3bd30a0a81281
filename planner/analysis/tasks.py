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
from planner.errors import InputError, PlannerError, Problem, SolverError
from planner.results import Plan
from planner.scenario.meta import perf_free_fields
from planner.scenario.schema import HardwareChoice, InferenceWorkload, Scenario
from planner.units import DAYS_PER_YEAR

Row = dict[str, Any]
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
UNMET_SHARE = 1e-6
"""Demand counts as met when less than this share of it is left unserved."""
CACHE_SIZE = 32


@dataclass(frozen=True)
class SolveSettings:
    """Solver settings for every run (None: the scenario's own ``solver:`` section)."""

    relax: bool = False
    mip_gap: float | None = None
    time_limit_s: float | None = None
    solver: str | None = None


@dataclass(frozen=True)
class Task:
    """One optimisation: ``document`` with ``changes`` applied, solved with ``settings``."""

    task_id: int
    label: str
    document: dict[str, Any]
    changes: tuple[Change, ...] = ()
    settings: SolveSettings = field(default_factory=SolveSettings)

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
    be resumed by a run with another scenario, spec or seed.
    """
    doc = document_key or fingerprint(text_keys(task.document))
    return fingerprint([doc, [asdict(c) for c in task.changes], asdict(task.settings)])


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
        result = plan(
            scenario,
            relax=s.relax,
            mip_gap=s.mip_gap,
            time_limit_s=s.time_limit_s,
            solver=s.solver,
            threads=1,
            tables=tables,
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


# --- what a row holds --------------------------------------------------------------------


def _by(frame: pd.DataFrame, key: str, column: str) -> dict[str, float]:
    if frame.empty:
        return {}
    grouped = frame.groupby(key)[column].sum()
    return {str(k): float(v) for k, v in grouped.items() if v}


def _when(frame: pd.DataFrame) -> str:
    """The time column of a plan table: ``period`` (``2027``, ``2027Q3``), else ``year``."""
    return "period" if "period" in frame.columns else "year"


def binding_limits(plan: Plan) -> list[str]:
    """Binding limits as path-like names: ``power[dc].2027``, ``budget.2026Q3``, …"""
    out = []
    for name, subject in (
        ("power", "site"),
        ("budget", None),
        ("supply", "hardware"),
        ("vendor_share", "vendor"),
    ):
        frame = plan.tables.get(name)
        if frame is None or frame.empty:
            continue
        when = _when(frame)
        for row in frame[frame["binding"].astype(bool)].to_dict(orient="records"):
            who = f"[{row[subject]}]" if subject else ""
            out.append(f"{name}{who}.{row[when]}")
    return sorted(out)


def _peak_mw_by_year(power: pd.DataFrame) -> dict[str, float]:
    """Facility MW used, all sites, at the year's busiest period."""
    if power.empty:
        return {}
    keys = ["year", "period"] if "period" in power.columns else ["year"]
    per_period = power.groupby(keys, as_index=False)["used_mw"].sum()
    return {str(k): float(v) for k, v in per_period.groupby("year")["used_mw"].max().items()}


def _per_mtok(table: pd.DataFrame) -> dict[str, float | None]:
    """Each workload's $/Mtok over the horizon: its cost over its served Mtok."""
    out: dict[str, float | None] = {}
    for workload, rows in table.groupby("workload", sort=True):
        served = float(rows["served_mtok"].sum())
        out[str(workload)] = float(rows["cost_usd"].sum()) / served if served else None
    return out


def plan_row(plan: Plan) -> Row:
    """The figures of a plan an analysis summarises (USD, MW, units, tokens).

    Per-year figures are keyed by calendar year (text): capex adds up over a year's
    periods, MW is the year's peak.
    """
    t, h = plan.tables, plan.headline
    periods = t["periods"]
    years = [str(y) for y in dict.fromkeys(periods["year"])]
    capex = _by(t["purchases"], "year", "capex_usd")
    mw = _peak_mw_by_year(t["power"])
    served = t["served"]
    demand = float((served["tokens_per_day"] * DAYS_PER_YEAR * served["length_years"]).sum())
    unmet = float(h["unmet_inference_tokens"])
    training = t["training"]
    flops_needed = float(training["flops_required"].sum()) if len(training) else 0.0
    unmet_flops = float(h["unmet_training_flops"])
    fleet = t["fleet"]
    when = _when(periods)
    last = fleet[fleet[_when(fleet)].astype(str) == str(periods[when].iloc[-1])]
    rentals = t["rentals"]
    return {
        "status": plan.status,
        "objective_usd": h.get("objective_usd"),
        "npv_cost_usd": h["npv_cost_usd"],
        "penalties_usd_pv": h["penalties_usd_pv"],
        "undiscounted_cost_usd": h["undiscounted_cost_usd"],
        "capex_usd": h["capex_usd"],
        "mip_gap": h.get("mip_gap"),
        "capex_by_year": {y: capex.get(y, 0.0) for y in years},
        "mw_by_year": {y: mw.get(y, 0.0) for y in years},
        "peak_mw": max(mw.values(), default=0.0),
        "units_bought": _by(t["purchases"], "hardware", "units"),
        "capex_by_hardware": _by(t["purchases"], "hardware", "capex_usd"),
        "rented_unit_years": _by(
            rentals.assign(unit_years=rentals["units"] * rentals["length_years"]),
            "hardware",
            "unit_years",
        ),
        "final_fleet_units": _by(last, "hardware", "units"),
        "unmet_inference_tokens": unmet,
        "unmet_inference_share": unmet / demand if demand else 0.0,
        "unmet_training_flops": unmet_flops,
        "demand_met": bool(
            unmet <= UNMET_SHARE * max(demand, 1.0)
            and unmet_flops <= UNMET_SHARE * max(flops_needed, 1.0)
        ),
        "usd_per_mtok": _per_mtok(t["usd_per_mtok"]),
        "binding": binding_limits(plan),
    }


def clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become None, tuples lists, keys text."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        return clean(value.item())
    return value
