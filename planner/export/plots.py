"""The workbook's four charts as PNG files, for slides and memos (``planner run --plots``).

Drawn with matplotlib, an optional extra (``pip install planner[plots]``); without it
:func:`require_matplotlib` raises :class:`PlotsUnavailable` (exit 2) before any
solving. Each chart shows the same data as its native twin on the Charts sheet
(:mod:`planner.export.charts`), titled with the scenario and labelled with units.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from planner.errors import ExportError, PlannerError
from planner.export.atomic import write_atomically
from planner.export.charts import (
    COSTS,
    DEMAND,
    FLEET,
    POWER,
    ChartSpec,
    cost_frame,
    demand_frame,
    fleet_frame,
    power_frame,
)
from planner.export.sheets.costs import LABELS, PENALTIES
from planner.results import Plan

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 150
SIZE_INCHES = (8.0, 4.5)


class PlotsUnavailable(PlannerError):
    """matplotlib is not installed (exit 2: install the ``plots`` extra)."""

    exit_code = 2


def require_matplotlib() -> None:
    """Raise PlotsUnavailable unless matplotlib can be imported."""
    if importlib.util.find_spec("matplotlib") is None:
        raise PlotsUnavailable(
            "--plots needs matplotlib, which is not installed: "
            "pip install 'planner[plots]' (or pip install matplotlib)"
        )


def _figure(spec: ChartSpec, scenario: str) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    figure = Figure(figsize=SIZE_INCHES, dpi=DPI, layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(f"{spec.title} — {scenario}")
    axes.set_xlabel("period")
    axes.set_ylabel(spec.y_title)
    axes.grid(axis="y", alpha=0.3)
    axes.yaxis.set_major_formatter(FuncFormatter(_short_number))
    return figure, axes


def _short_number(value: float, _position: object = None) -> str:
    """Axis ticks: 4.5B, 120M, 35k, 400."""
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:,.1f}{suffix}".replace(".0" + suffix, suffix)
    return f"{value:,.0f}"


def _stacked(axes: Axes, frame: pd.DataFrame, names: dict[str, str] | None = None) -> None:
    """Stacked columns; negative values (the residual credit) stack below zero."""
    x = [str(i) for i in frame.index]
    above = [0.0] * len(frame)
    below = [0.0] * len(frame)
    for column in frame.columns:
        values = [float(v) for v in frame[column]]
        bottom = [b if v < 0 else a for v, a, b in zip(values, above, below, strict=True)]
        axes.bar(x, values, bottom=bottom, label=(names or {}).get(column, str(column)))
        above = [a + max(v, 0.0) for a, v in zip(above, values, strict=True)]
        below = [b + min(v, 0.0) for b, v in zip(below, values, strict=True)]
    if len(frame.columns):
        axes.legend(fontsize="small", ncols=2)


def _draw(spec: ChartSpec, plan: Plan) -> Figure:
    figure, axes = _figure(spec, plan.scenario)
    if spec is FLEET:
        _stacked(axes, fleet_frame(plan))
    elif spec is COSTS:
        frame = cost_frame(plan).drop(columns=list(PENALTIES))  # as the workbook's chart
        _stacked(axes, frame.loc[:, (frame != 0).any()], LABELS)
    elif spec is POWER:
        frame = power_frame(plan)
        x = [str(i) for i in frame.index]
        axes.plot(
            x, frame["used_mw"], marker="o", drawstyle="steps-mid", label="facility power used"
        )
        axes.plot(x, frame["cap_mw"], linestyle="--", drawstyle="steps-mid", label="cap")
        axes.legend(fontsize="small")
    else:
        frame = demand_frame(plan)
        at = [float(i) for i in range(len(frame))]
        axes.bar([i - 0.2 for i in at], frame["demand_mtok_per_day"], width=0.4, label="demand")
        axes.bar([i + 0.2 for i in at], frame["served_mtok_per_day"], width=0.4, label="served")
        axes.set_xticks(at, [str(i) for i in frame.index])
        axes.legend(fontsize="small")
    return figure


def write_plots(plan: Plan, folder: str | Path) -> list[Path]:
    """Write the four charts of ``plan`` as PNG files in ``folder``; return their paths."""
    require_matplotlib()
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise ExportError(str(target), "--plots needs a folder, and this is a file")
    written = []
    for spec in (FLEET, COSTS, POWER, DEMAND):
        figure = _draw(spec, plan)

        def save(temp: Path, figure: Figure = figure) -> None:
            figure.savefig(temp, format="png", metadata={"Software": None})

        written.append(write_atomically(target / spec.file, save))
    return written
