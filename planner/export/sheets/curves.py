"""``Curves``: throughput against interactivity, per serving workload and hardware.

One block per serving workload (the scenario's ``inference`` plus RL rollouts): for
each candidate hardware, at the workload's precision and token mix, the best layout
and batch at each required decode speed (tok/s/user) of a grid plus the workload's own
SLO, the output tokens/s per accelerator, and the unit economics on the basis of the
``Throughput inference`` sheet (:func:`planner.economics.price_inference_table` at the
horizon-start prices). Points no layout reaches keep a row with the reason.

The numbers are the perf model's (:func:`planner.perf.curves.scenario_curves`, which
the caller runs and passes in; exports never run the perf model), written as values
like the Throughput sheet's perf columns. The row marked ``SLO point`` is the
workload's row of ``Throughput inference``. Beside each block a line chart draws
tokens/s per accelerator against tok/s/user, one series per hardware.
"""

from __future__ import annotations

import pandas as pd
from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.chart.axis import ChartLines
from openpyxl.chart.data_source import NumFmt
from openpyxl.chart.series import SeriesLabel
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from planner import economics
from planner.export import cells
from planner.export.sheets.book import Book, Column, TableRef, write_table
from planner.scenario.schema import Scenario

TITLE = "Curves"
CHART_ROWS = 18  # a 9 cm chart covers about 17 rows of 15 pt
GAP_ROWS = 3

COLUMNS = [
    Column("workload", "workload"),
    Column("hardware", "hardware"),
    Column("precision", "precision"),
    Column(
        "interactivity_tokens_per_s_per_user", "required speed (tokens/s per user)", cells.DECIMAL1
    ),
    Column("slo_point", "SLO point"),
    Column("servable", "servable"),
    Column("layout", "parallel layout"),
    Column("replica_accelerators", "replica (accelerators)", cells.THOUSANDS),
    Column("batch", "batch (sequences per replica)", cells.THOUSANDS),
    Column("tokens_per_s_per_user", "decode speed (tokens/s per user)", cells.DECIMAL1),
    Column(
        "output_tokens_per_s_per_accelerator",
        "served output (tokens/s per accelerator)",
        cells.THOUSANDS,
    ),
    Column("ttft_s", "time to first token (s)", cells.DECIMAL2),
    Column("usd_per_accelerator_hour", "unit cost (USD per accelerator-hour)", cells.USD_CENTS),
    Column("usd_per_mtok_output", "full-load cost (USD per Mtok output)", cells.USD_PER_MTOK),
    Column("binding", "binding"),
    Column("reason", "reason not servable"),
]
TTFT_COLUMN = "ttft_s"


def priced_curves(scenario: Scenario, curves: pd.DataFrame) -> pd.DataFrame:
    """``curves`` plus ``usd_per_accelerator_hour`` and ``usd_per_mtok_output`` at the
    horizon-start prices, exactly as the Throughput inference sheet prices its rows."""
    return economics.price_inference_table(scenario, curves, scenario.horizon.start)


def case_text(first: dict) -> str:
    """The serving case of a block, from its first row: what every point assumes."""
    parts = [
        f"{first['model']}",
        f"{first['input_tokens_per_request']:,.0f} input + "
        f"{first['output_tokens_per_request']:,.0f} output tokens per request",
        f"KV cache {first['kv_precision']}",
        f"{first['cache_hit_rate']:.0%} prefix-cache hits",
        f"sized for {first['context_tokens']:,.0f}-token sequences",
        f"SLO {first['slo_tokens_per_s_per_user']:,.4g} tok/s/user",
    ]
    if pd.notna(first["slo_ttft_s"]):
        parts.append(f"TTFT target {first['slo_ttft_s']:,.4g} s (kept at every point)")
    if first["tokens_per_step"] > 1.0:
        parts.append(f"speculative decoding {first['tokens_per_step']:.3g} tokens per step")
    return f"{first['workload']}: " + ", ".join(parts)


def curve_chart(ws: Worksheet, table: TableRef, block: pd.DataFrame) -> ScatterChart | None:
    """Tokens/s per accelerator against tok/s/user, one line per hardware (its servable
    points); None when no hardware serves any point."""
    chart = ScatterChart()
    x_col = table.columns["interactivity_tokens_per_s_per_user"]
    y_col = table.columns["output_tokens_per_s_per_accelerator"]
    positions = pd.Series(range(len(block)), index=block.index)
    for hardware, rows in block.groupby("hardware", sort=False):
        served = positions[rows.index[rows["servable"].to_numpy()]]
        if served.empty:
            continue
        first, last = table.first_row + int(served.min()), table.first_row + int(served.max())
        xs = Reference(ws, min_col=x_col, min_row=first, max_row=last)
        ys = Reference(ws, min_col=y_col, min_row=first, max_row=last)
        series = Series(ys, xs)
        series.tx = SeriesLabel(v=str(hardware))
        series.marker.symbol = "circle"
        chart.series.append(series)
    if not chart.series:
        return None
    chart.title = f"{block['workload'].iloc[0]}: throughput vs interactivity"
    chart.x_axis.title = "interactivity (output tokens/s per user)"
    chart.y_axis.title = "output tokens/s per accelerator"
    chart.x_axis.scaling.min = 0
    chart.x_axis.scaling.max = float(block["interactivity_tokens_per_s_per_user"].max())
    chart.x_axis.numFmt = NumFmt(formatCode="0", sourceLinked=False)
    chart.y_axis.numFmt = NumFmt(formatCode=cells.THOUSANDS, sourceLinked=False)
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.y_axis.majorGridlines = ChartLines()
    chart.width, chart.height = 18, 9
    chart.legend.position = "b"
    return chart


def write_curves(book: Book, scenario: Scenario, curves: pd.DataFrame) -> None:
    """The Curves sheet from :func:`planner.perf.curves.scenario_curves`'s table."""
    ws = book.sheet(TITLE)
    year = scenario.horizon.start
    book.title_row(
        ws,
        1,
        "Throughput vs interactivity: each serving workload on each candidate hardware, "
        "at the workload's precision and token mix",
    )
    speeds = curves["interactivity_tokens_per_s_per_user"]
    notes = [
        f"Points: required decode speeds from {speeds.min():g} to {speeds.max():g} tok/s/user, "
        "each workload's own SLO among them (SLO point: yes; that row is the workload's "
        "row of Throughput inference)."
        if len(speeds)
        else "No serving workloads.",
        "Served output: output tokens/s per accelerator at full load, colocated serving, "
        "prefill included; the best layout and batch meeting the speed (and the TTFT "
        "target, where the workload sets one).",
        f"Unit costs at {year} prices, as Throughput inference: capital recovery at the "
        "WACC over the lifetime plus energy, facility and maintenance, per accelerator-hour "
        "and per Mtok output at full load (rent-only systems at their rental price).",
        "Perf-model output, as values. `planner curve` prints the same throughputs for the "
        "same case (its $/Mtok: catalog price and default finance).",
        str(
            curves.attrs.get(
                "hardware_note", "Hardware: every candidate of the scenario, for every workload."
            )
        ),
    ]
    for i, text in enumerate(notes):
        book.note(ws, 2 + i, text)
    top = 2 + len(notes) + 1
    priced = priced_curves(scenario, curves)
    headers: list[tuple[int, list[str]]] = []
    for index, (_, block) in enumerate(priced.groupby("workload", sort=False), start=1):
        records = block.to_dict(orient="records")
        book.text(ws, top, 1, case_text(records[0]), track=False).font = cells.HEADER_FONT
        columns = [c for c in COLUMNS if c.key != TTFT_COLUMN or pd.notna(records[0]["slo_ttft_s"])]
        shown = block.assign(slo_point=block["slo_point"].map({True: "yes", False: ""}))
        table = write_table(book, ws, f"Curves_{index}", shown, columns, header_row=top + 1)
        headers.append((top + 1, [c.key for c in columns]))
        chart = curve_chart(ws, table, block)
        if chart is not None:
            ws.add_chart(chart, f"{get_column_letter(len(columns) + 2)}{top}")
        top = max(table.last_row, top + CHART_ROWS) + GAP_ROWS
    cells.freeze_header(ws, 1)
    book.fit_widths(ws)
    if headers and all(keys == headers[0][1] for _, keys in headers):
        # each block starts a page (a break before its chart) with its own header; a
        # block longer than a page repeats the column header, the same for every block
        ws.print_title_rows = f"{headers[0][0]}:{headers[0][0]}"
