"""``Throughput inference`` and ``Throughput training``: the performance model's outputs.

Per (workload, hardware): replica, batch at the SLO, tokens/s per user and per unit,
what binds, the time to first token (colocated, and of a disaggregated prefill pool;
shown only when some workload sets ``slo_ttft_s``), and unit economics at the horizon
start (USD per accelerator-hour and per million output tokens at full load, as
``planner throughput`` prints them). Per
(run, hardware): cluster, goodput, days to finish, tokens/s and FLOP/s per unit.

The unit economics are formulas of the inputs, as :func:`planner.economics.unit_cost`
charges them: a unit's yearly cost is ``price × CRF(wacc, lifetime) + kW × facility
USD/kW-year + kW × PUE × energy hours × USD/kWh + maintenance fraction × price`` with
the horizon-start price and the finance-level site rates on Assumptions; per
accelerator-hour it is ÷ (accelerators × hours per year), per Mtok ÷ the output
tokens the unit serves in a year at full load.
"""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

from planner import economics
from planner.export import cells
from planner.export.sheets.book import Book, Column, Row, as_period, write_table
from planner.export.sheets.catalog import unit_kw, unit_price
from planner.export.sheets.fleet import crf_formula
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.units import MTOK, SECONDS_PER_HOUR

INFERENCE = [
    ("workload", "workload", None),
    ("hardware", "hardware", None),
    ("model", "model", None),
    ("precision", "precision", None),
    ("servable", "servable", None),
    ("reason", "reason not servable", None),
    ("replica_accelerators", "replica (accelerators)", cells.THOUSANDS),
    ("layout", "parallel layout", None),
    ("software", "serving software (planner software)", None),
    ("batch", "batch (sequences per replica)", cells.THOUSANDS),
    ("tokens_per_s_per_user", "decode speed (tokens/s per user)", cells.DECIMAL1),
    ("decode_tokens_per_s_per_replica", "decode (tokens/s per replica)", cells.THOUSANDS),
    ("output_tokens_per_s_per_unit", "served output (tokens/s per unit)", cells.THOUSANDS),
    ("decode_tokens_per_s_per_unit", "decode only (tokens/s per unit)", cells.THOUSANDS),
    ("prefill_tokens_per_s_per_unit", "prefill (tokens/s per unit)", cells.THOUSANDS),
    ("binding", "binding", None),
    ("ttft_s", "time to first token, colocated (s)", cells.DECIMAL2),
    ("prefill_ttft_s", "time to first token, prefill pool (s)", cells.DECIMAL2),
    ("usd_per_accelerator_hour", "unit cost (USD per accelerator-hour)", cells.USD_CENTS),
    ("usd_per_mtok_output", "full-load cost (USD per Mtok output)", cells.USD_PER_MTOK),
]
TTFT_COLUMNS = ("ttft_s", "prefill_ttft_s")
"""Shown only when some workload sets ``slo_ttft_s`` (:attr:`Scenario.sets_ttft`)."""
TRAINING = [
    ("run", "run", None),
    ("hardware", "hardware", None),
    ("model", "model", None),
    ("precision", "precision", None),
    ("feasible", "feasible", None),
    ("reason", "reason not feasible", None),
    ("flops", "work (FLOP)", cells.SCIENTIFIC),
    ("mfu", "stage MFU (share of peak, one pipeline stage)", cells.PCT),
    ("scaling_efficiency", "scaling efficiency at the cluster (share)", cells.PCT),
    ("layout", "layout", None),
    ("sustained_tflops_per_accelerator", "sustained (TFLOPS per accelerator)", cells.DECIMAL1),
    ("cluster_accelerators", "cluster (accelerators)", cells.THOUSANDS),
    ("cluster_units", "cluster (units)", cells.THOUSANDS),
    ("goodput", "goodput (share)", cells.PCT),
    ("days_to_finish", "time to finish (days)", cells.DECIMAL1),
    ("accelerator_hours", "accelerator-hours (h)", cells.THOUSANDS),
    ("training_tokens_per_s_per_unit", "training (tokens/s per unit)", cells.THOUSANDS),
    ("training_flops_per_s_per_unit", "training (FLOP/s per unit)", cells.SCIENTIFIC),
]


def _unit_year(book: Book, hardware: str, year: int) -> str | None:
    """A unit's yearly cost (USD) as a formula of the inputs, or None when an input
    has no cell (the table then shows the planner's number)."""
    keys = {
        "price": ("price", hardware, as_period(year)),
        "life": ("hw", "lifetime_years", hardware),
        "kw": ("hw", "power_kw", hardware),
        "pue": ("pue", None, as_period(year)),
        "electricity": ("electricity", None, as_period(year)),
        "facility": ("facility", None, as_period(year)),
    }
    if any(key not in book.refs for key in keys.values()):
        return None
    c = {name: book.ref(key) for name, key in keys.items()}
    c["price"] = unit_price(book, hardware, c["price"])
    c["kw"] = unit_kw(book, hardware)
    return (
        f"({c['price']}*{crf_formula(c['life'])}+{c['kw']}*{c['facility']}"
        f"+{c['kw']}*{c['pue']}*energy_hours_per_year*{c['electricity']}"
        f"+maintenance_fraction*{c['price']})"
    )


def _economics(book: Book, year: int, rented: Collection[str] = ()) -> dict:
    """Formulas of the unit-economics columns (None: the plain value). ``rented``:
    rent-only systems, quoted at their rental price (a plain value)."""

    def per_hour(r: Row) -> str | None:
        if r["hardware"] in rented:
            return None
        unit = _unit_year(book, r["hardware"], year)
        accelerators = book.refs.get(("hw", "accelerators", r["hardware"]))
        if unit is None or accelerators is None:
            return None
        return f"={unit}/({accelerators}*hours_per_year)"

    def per_mtok(r: Row) -> str | None:
        if r["hardware"] in rented:
            return None
        unit = _unit_year(book, r["hardware"], year)
        value = r.record.get("usd_per_mtok_output")
        if unit is None or value is None or pd.isna(value):
            return None
        tokens = f"{r.at('output_tokens_per_s_per_unit')}*{SECONDS_PER_HOUR:g}*hours_per_year"
        return f"={unit}/({tokens})*{MTOK:.0f}"

    return {"usd_per_accelerator_hour": per_hour, "usd_per_mtok_output": per_mtok}


def _write(
    book: Book,
    title: str,
    frame: pd.DataFrame,
    spec: list,
    note: str,
    formulas: dict | None = None,
) -> None:
    ws = book.sheet(title)
    formulas = formulas or {}
    columns = [Column(k, h, f, formulas.get(k)) for k, h, f in spec if k in frame.columns]
    table = write_table(book, ws, title.replace(" ", "_"), frame, columns)
    book.note(ws, table.last_row + 2, note)
    cells.freeze_header(ws, 1, 2)
    book.fit_widths(ws)


def write_throughput(
    book: Book, scenario: Scenario, inference: pd.DataFrame, training: pd.DataFrame
) -> None:
    year = scenario.horizon.start
    specs = hardware_specs(scenario)
    spec = [c for c in INFERENCE if scenario.sets_ttft or c[0] not in TTFT_COLUMNS]
    _write(
        book,
        "Throughput inference",
        economics.price_inference_table(scenario, inference, year),
        spec,
        f"Unit costs at {year} prices: capital recovery at the WACC over the lifetime plus "
        "energy, facility and maintenance; per Mtok at full load, prefill included.",
        _economics(book, year, set(economics.rent_only_rates(scenario, year, specs))),
    )
    _write(
        book,
        "Throughput training",
        training,
        TRAINING,
        "Goodput-adjusted for failures and checkpoints; clusters sized to finish in the window.",
    )
