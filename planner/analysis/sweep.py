"""Sensitivity sweeps: one input at a time around the base (a tornado), or a full grid.

One-at-a-time: task 0 is the base scenario; then each parameter takes each of its
values with every other input at its base. A value equal to the base (a multiplier of
1) is not solved again: it reads task 0. The tornado ranks inputs by how far the **real
cost** (NPV of cash costs, no penalties) moves between the parameter's cheapest and
dearest value, with the unmet share of demand beside it, each workload's $/Mtok, and
whether the swing lies within the runs' solver tolerance (their cost bands from the MIP
gap, :mod:`planner.analysis.figures`). The spider chart draws every tested value.

``grid``: every combination of every parameter's values (the full factorial).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pandas as pd

from planner.analysis.figures import (
    COST,
    SOLVED,
    difference_note,
    fill_base_values,
    shortfall,
    value,
    within_tolerance,
)
from planner.analysis.formats import usd_change_format
from planner.analysis.params import Parameter
from planner.analysis.report import Analysis, ChartSpec, runs_frame
from planner.analysis.tasks import Row, SolveSettings, Task
from planner.errors import InputError, Problem
from planner.scenario.schema import Scenario
from planner.scenario.variants import Change, prepare

METRIC = COST
"""What a sweep ranks by: the NPV of cash costs, USD (penalties kept apart)."""
Layout = list[tuple[Parameter, tuple[int, ...]]]
"""Each parameter of a one-at-a-time sweep and the task id of each of its values."""


def _label(p: Parameter, value: float) -> str:
    return f"{p.path}{'*' if p.multiplier else ''}={value:g}"


def is_base(p: Parameter, v: float, base: dict[str, float | None]) -> bool:
    """Whether value ``v`` of ``p`` is the base scenario's (then task 0 answers it)."""
    return v == 1.0 if p.multiplier else base.get(p.path) == v


def layout(parameters: Sequence[Parameter], base: dict[str, float | None]) -> Layout:
    """Task ids of a one-at-a-time sweep: base values map to task 0, the rest count up."""
    out: Layout = []
    next_id = 1
    for p in parameters:
        ids = []
        for v in p.values:
            if is_base(p, v, base):
                ids.append(0)
            else:
                ids.append(next_id)
                next_id += 1
        out.append((p, tuple(ids)))
    return out


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
        return tasks, base
    for p, ids in layout(parameters, base):
        for v, task_id in zip(p.values, ids, strict=True):
            if task_id:
                change = (Change(p.path, v, p.multiplier),)
                tasks.append(Task(task_id, _label(p, v), doc, change, settings))
    return tasks, base


def _per_mtok(row: Row | None, workload: str) -> float:
    if row is None or row.get("status") not in SOLVED:
        return math.nan
    found = (row.get("usd_per_mtok") or {}).get(workload)
    return math.nan if found is None else float(found)


def _runs_by_value(
    rows: Sequence[Row], parameters: Sequence[Parameter], base: dict[str, float | None]
) -> list[tuple[Parameter, dict[float, Row | None]]]:
    by_id = {r["task_id"]: r for r in rows}
    return [
        (p, {v: by_id.get(i) for v, i in zip(p.values, ids, strict=True)})
        for p, ids in layout(parameters, base)
    ]


def tornado(
    rows: Sequence[Row], parameters: Sequence[Parameter], base: dict[str, float | None]
) -> pd.DataFrame:
    """One row per parameter, largest real-cost swing first (one-at-a-time sweeps)."""
    base_row = next((r for r in rows if r["task_id"] == 0), None)
    workloads = sorted({w for r in rows for w in (r.get("usd_per_mtok") or {})})
    out = []
    for p, mine in _runs_by_value(rows, parameters, base):
        low, high = min(p.values), max(p.values)
        costs = {v: value(r, METRIC) for v, r in mine.items()}
        solved = {v: c for v, c in costs.items() if not math.isnan(c)}
        cost_base = value(base_row, METRIC)
        swing = (max(solved.values()) - min(solved.values())) if solved else math.nan
        unmet = [value(r, "unmet_inference_share") for r in mine.values()]
        runs = [*mine.values(), base_row]
        record: dict[str, object] = {
            "parameter": p.label,
            "base_value": base.get(p.path) if not p.multiplier else 1.0,
            "low_value": low,
            "high_value": high,
            "values_tested": ", ".join(f"{v:g}" for v in sorted(p.values)),
            "npv_cost_base_usd": cost_base,
            "npv_cost_at_low_usd": costs[low],
            "npv_cost_at_high_usd": costs[high],
            "npv_cost_min_usd": min(solved.values(), default=math.nan),
            "npv_cost_max_usd": max(solved.values(), default=math.nan),
            "swing_usd": swing,
            "swing_share": swing / abs(cost_base) if cost_base else math.nan,
            "cost_band_usd": max((value(r, "cost_band_usd") for r in runs), default=math.nan),
            "swing_note": difference_note(swing, *runs),
            "unmet_share_at_low": value(mine[low], "unmet_inference_share"),
            "unmet_share_at_high": value(mine[high], "unmet_inference_share"),
            "unmet_share_max": max((u for u in unmet if not math.isnan(u)), default=math.nan),
            "shortfall": "; ".join(f"{v:g}: {s}" for v, r in mine.items() if (s := shortfall(r))),
            "changes_purchases": any(
                (r or {}).get("units_bought") != (base_row or {}).get("units_bought")
                for r in mine.values()
                if r is not None and r.get("status") in SOLVED
            ),
            "failed_runs": sum(1 for c in costs.values() if math.isnan(c)),
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


def spider(
    rows: Sequence[Row], parameters: Sequence[Parameter], base: dict[str, float | None]
) -> pd.DataFrame:
    """Every tested value of every parameter, and the base value (the base run): its
    value relative to the base, the real cost's change from the base run, the unmet
    share, and the tolerance note."""
    base_row = next((r for r in rows if r["task_id"] == 0), None)
    cost_base = value(base_row, METRIC)
    records = []
    for p, mine in _runs_by_value(rows, parameters, base):
        at = base.get(p.path)
        at_base = 1.0 if p.multiplier else at
        if at_base is not None and at_base not in mine:
            mine = {**mine, at_base: base_row}  # every line passes through the base run
        for v, r in sorted(mine.items()):
            relative = v if p.multiplier else (v / at if at else math.nan)
            change = value(r, METRIC) - cost_base
            records.append(
                {
                    "parameter": p.label,
                    "value": v,
                    "value_vs_base": relative,
                    "npv_cost_change_usd": change,
                    "unmet_inference_share": value(r, "unmet_inference_share"),
                    "note": difference_note(change, r, base_row),
                }
            )
    return pd.DataFrame(
        records,
        columns=[
            "parameter",
            "value",
            "value_vs_base",
            "npv_cost_change_usd",
            "unmet_inference_share",
            "note",
        ],
    )


def vs_base(runs: pd.DataFrame, rows: Sequence[Row]) -> pd.DataFrame:
    """The runs table with each run's real-cost difference from the base and its note."""
    by_id = {r["task_id"]: r for r in rows}
    base_row = by_id.get(0)
    cost_base = value(base_row, METRIC)
    diffs = [value(by_id.get(i), METRIC) - cost_base for i in runs["task_id"]]
    notes = [
        difference_note(d, by_id.get(i), base_row)
        for d, i in zip(diffs, runs["task_id"], strict=True)
    ]
    at = list(runs.columns).index(METRIC) + 1
    runs = runs.copy()
    runs.insert(at, "npv_cost_vs_base_usd", diffs)
    runs.insert(at + 1, "vs_base_note", notes)
    return runs


def sweep_analysis(
    scenario: Scenario,
    parameters: Sequence[Parameter],
    rows: Sequence[Row],
    base: dict[str, float | None],
    *,
    grid: bool,
) -> Analysis:
    """The sweep's tables and charts, ready for the workbook and the terminal."""
    rows = [dict(r) for r in rows]
    fill_base_values(rows, base, {p.path: p.label for p in parameters})
    runs = vs_base(runs_frame(rows), rows)
    frames: dict[str, pd.DataFrame] = {}
    charts: list[ChartSpec] = []
    display = {}
    if not grid:
        table = tornado(rows, parameters, base)
        frames["Tornado"] = table
        if len(table):
            bars = tornado_chart_frame(table)
            frames["Tornado chart data"] = bars
            charts.append(
                ChartSpec(
                    kind="tornado",
                    sheet="Tornado chart data",
                    title="NPV cost change from base at each input's lowest and highest value",
                    y_title="change in USD",
                    y_format=bars.attrs["formats"]["at lowest value"],
                )
            )
            points = spider(rows, parameters, base)
            change = usd_change_format(points["npv_cost_change_usd"])
            points.attrs["formats"] = {"npv_cost_change_usd": change}
            frames["Spider"] = points
            charts.append(
                ChartSpec(
                    kind="spider",
                    sheet="Spider",
                    title="NPV cost change from base across every tested value",
                    y_title="change in USD",
                    y_format=change,
                    x_title="input value ÷ base value",
                )
            )
            charts.append(
                ChartSpec(
                    kind="spider",
                    sheet="Spider",
                    title="Unmet share of inference demand across every tested value",
                    y_title="share of demand",
                    x_title="input value ÷ base value",
                    y_column="unmet_inference_share",
                )
            )
            keep = ["parameter", "values_tested", "npv_cost_at_low_usd"]
            keep += ["npv_cost_at_high_usd", "swing_usd", "swing_note", "unmet_share_max"]
            keep += ["changes_purchases", *(c for c in table.columns if c.endswith("_swing"))]
            display["Tornado"] = keep
    frames["Runs"] = runs
    within = [
        r["label"]
        for r in rows
        if r["task_id"] and within_tolerance(value(r, METRIC) - value(rows[0], METRIC), r, rows[0])
    ]
    notes = []
    if within and len(within) == len(rows) - 1:
        notes.append(
            "every run's NPV cost lies within solver tolerance of the base: no varied input "
            "moves the cost by more than the MIP gap allows"
        )
    return Analysis(
        display=display,
        kind="grid" if grid else "sweep",
        scenario=scenario.name,
        rows=rows,
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
            "cost compared": "NPV of cash costs (penalties for unmet demand kept apart)",
        },
        charts=charts,
        notes=notes,
    )


def tornado_chart_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The tornado's bars, smallest swing first: a bar chart draws its first category at
    the bottom, so the largest swing ends up on top. A swing within solver tolerance
    says so in its label."""
    ordered = table.iloc[::-1]
    names = [
        f"{name} ({note})" if note else name
        for name, note in zip(ordered["parameter"], ordered["swing_note"], strict=True)
    ]
    frame = pd.DataFrame(
        {
            "input": names,
            "at lowest value": (
                ordered["npv_cost_at_low_usd"] - ordered["npv_cost_base_usd"]
            ).to_numpy(),
            "at highest value": (
                ordered["npv_cost_at_high_usd"] - ordered["npv_cost_base_usd"]
            ).to_numpy(),
        }
    )
    columns = ("at lowest value", "at highest value")
    fmt = usd_change_format(frame[list(columns)].to_numpy().ravel())
    frame.attrs["formats"] = {c: fmt for c in columns}
    return frame
