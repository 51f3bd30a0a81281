"""Sensitivity sweeps: one input at a time around the base (a tornado), or a full grid.

One-at-a-time: task 0 is the base scenario; then each parameter takes each of its
values with every other input at its base. The tornado ranks inputs by how far the NPV
TCO (the objective: NPV of cash costs plus penalties for unmet demand) moves between
the parameter's lowest and highest value, and shows each workload's $/Mtok there.

``grid``: every combination of every parameter's values (the full factorial).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pandas as pd

from planner.analysis.params import Parameter
from planner.analysis.report import Analysis, ChartSpec, runs_frame
from planner.analysis.tasks import SOLVED, Row, SolveSettings, Task
from planner.errors import InputError, Problem
from planner.scenario.schema import Scenario
from planner.scenario.variants import Change, prepare

METRIC = "objective_usd"
"""The NPV TCO a sweep ranks by: NPV cost plus penalties for unmet demand, USD."""


def _label(p: Parameter, value: float) -> str:
    return f"{p.path}{'*' if p.multiplier else ''}={value:g}"


def sweep_tasks(
    scenario: Scenario,
    parameters: Sequence[Parameter],
    *,
    grid: bool = False,
    settings: SolveSettings | None = None,
    source: str | None = None,
) -> tuple[list[Task], dict[str, float | None]]:
    """The tasks of a sweep and each parameter's base value (paths checked first)."""
    settings = settings or SolveSettings()
    empty = [p.path for p in parameters if not p.values]
    if not parameters or empty:
        raise InputError(
            source,
            Problem(
                path=", ".join(empty) or "--vary",
                message="a sweep needs values for every parameter",
                hint="e.g. --vary finance.wacc=0.08:0.12:3, or values:/range: in a spec",
            ),
        )
    doc, base = prepare(scenario, parameters, source)
    tasks = [Task(0, "base", doc, (), settings)]
    if grid:
        for combo in itertools.product(*(p.values for p in parameters)):
            changes = tuple(
                Change(p.path, v, p.multiplier) for p, v in zip(parameters, combo, strict=True)
            )
            label = "; ".join(_label(p, v) for p, v in zip(parameters, combo, strict=True))
            tasks.append(Task(len(tasks), label, doc, changes, settings))
    else:
        for p in parameters:
            for v in p.values:
                tasks.append(
                    Task(
                        len(tasks), _label(p, v), doc, (Change(p.path, v, p.multiplier),), settings
                    )
                )
    return tasks, base


def _metric(row: Row | None, key: str = METRIC) -> float:
    if row is None or row.get("status") not in SOLVED or row.get(key) is None:
        return math.nan
    return float(row[key])


def _per_mtok(row: Row | None, workload: str) -> float:
    if row is None or row.get("status") not in SOLVED:
        return math.nan
    value = (row.get("usd_per_mtok") or {}).get(workload)
    return math.nan if value is None else float(value)


def tornado(
    rows: Sequence[Row], parameters: Sequence[Parameter], base: dict[str, float | None]
) -> pd.DataFrame:
    """One row per parameter, largest NPV swing first (one-at-a-time sweeps only)."""
    base_row = next((r for r in rows if r["task_id"] == 0), None)
    workloads = sorted({w for r in rows for w in (r.get("usd_per_mtok") or {})})
    out = []
    next_id = 1
    for p in parameters:
        mine = {
            v: r for v, r in zip(p.values, rows[next_id : next_id + len(p.values)], strict=True)
        }
        next_id += len(p.values)
        low, high = min(p.values), max(p.values)
        npvs = [_metric(r) for r in mine.values()]
        solved = [x for x in npvs if not math.isnan(x)]
        npv_base = _metric(base_row)
        swing = (max(solved) - min(solved)) if solved else math.nan
        record: dict[str, object] = {
            "parameter": p.label,
            "base_value": base.get(p.path) if not p.multiplier else 1.0,
            "low_value": low,
            "high_value": high,
            "npv_base_usd": npv_base,
            "npv_at_low_usd": _metric(mine[low]),
            "npv_at_high_usd": _metric(mine[high]),
            "npv_min_usd": min(solved, default=math.nan),
            "npv_max_usd": max(solved, default=math.nan),
            "swing_usd": swing,
            "swing_share": swing / abs(npv_base) if npv_base else math.nan,
            "failed_runs": sum(1 for x in npvs if math.isnan(x)),
        }
        for w in workloads:
            at_low, at_high = _per_mtok(mine[low], w), _per_mtok(mine[high], w)
            record[f"usd_per_mtok[{w}]_at_low"] = at_low
            record[f"usd_per_mtok[{w}]_at_high"] = at_high
            record[f"usd_per_mtok[{w}]_swing"] = abs(at_high - at_low)
        out.append(record)
    frame = pd.DataFrame(out)
    if frame.empty:
        return frame
    return frame.sort_values("swing_usd", ascending=False, na_position="last", ignore_index=True)


def sweep_analysis(
    scenario: Scenario,
    parameters: Sequence[Parameter],
    rows: Sequence[Row],
    base: dict[str, float | None],
    *,
    grid: bool,
) -> Analysis:
    """The sweep's tables and charts, ready for the workbook and the terminal."""
    runs = runs_frame(rows)
    frames: dict[str, pd.DataFrame] = {}
    charts: list[ChartSpec] = []
    if not grid:
        table = tornado(rows, parameters, base)
        frames["Tornado"] = table
        if len(table):
            chart_data = pd.DataFrame(
                {
                    "parameter": table["parameter"],
                    "low_minus_base_usd": table["npv_at_low_usd"] - table["npv_base_usd"],
                    "high_minus_base_usd": table["npv_at_high_usd"] - table["npv_base_usd"],
                }
            )
            frames["Tornado chart data"] = chart_data
            charts.append(
                ChartSpec(
                    kind="tornado",
                    sheet="Tornado chart data",
                    title="NPV TCO change from base, lowest and highest value of each input",
                    y_title="USD",
                )
            )
    frames["Runs"] = runs
    display = {}
    if "Tornado" in frames and len(frames["Tornado"]):
        keep = ["parameter", "low_value", "high_value", "npv_at_low_usd", "npv_at_high_usd"]
        keep += ["swing_usd", *(c for c in frames["Tornado"].columns if c.endswith("_swing"))]
        display["Tornado"] = keep
    return Analysis(
        display=display,
        kind="grid" if grid else "sweep",
        scenario=scenario.name,
        rows=list(rows),
        frames=frames,
        settings={
            "design": "full factorial" if grid else "one at a time around the base",
            "parameters": "; ".join(
                f"{p.label}: {', '.join(f'{v:g}' for v in p.values)}" for p in parameters
            ),
            "base values": "; ".join(
                f"{p.path}={'series' if base.get(p.path) is None else f'{base[p.path]:g}'}"
                for p in parameters
            ),
        },
        charts=charts,
    )
