"""Measured serving benchmarks: the CSV format of ``planner calibrate`` and ``planner perf-check``.

One row per measurement, a header row first. Columns:

Required
    ``hardware``       catalog hardware id (e.g. ``h100-hgx``)
    ``model``          catalog model id (e.g. ``llama-2-70b``)
    ``precision``      weight precision: bf16, fp8 or fp4
    ``input_tokens``   mean prompt tokens per request
    ``output_tokens``  mean generated tokens per request
    ``tokens_per_s_per_accelerator``  measured tokens/s per accelerator (output tokens;
                       input tokens for ``phase = prefill``)
Optional (empty cells allowed)
    ``tokens_per_s_per_user``  decode speed each user saw; used as the SLO. Empty: the
                       row is a maximum-throughput point (largest batch that fits memory).
    ``concurrency``    concurrent requests on the benchmarked system; fixes the batch
                       (per accelerator: ``concurrency / accelerators``).
    ``accelerators``   accelerators in the benchmarked system (default: one unit).
    ``phase``          ``colocated`` (default: prefill and decode on the same replicas),
                       ``decode`` (decode only, disaggregated) or ``prefill``.
    ``kv_precision``   KV-cache precision (default: the weights', fp8 for fp4 weights).
    ``cache_hit_rate`` share of prompt tokens served from a prefix cache (default 0).
    ``ttft_s``         the mean time-to-first-token limit, s, the row was measured under
                       (e.g. MLPerf Server's 2 s); predicted with that TTFT SLO
                       (``ServingCase.slo_ttft_s``, :mod:`planner.perf.ttft`). Refused
                       below the prefill floor: the prompt's uncached tokens at the full
                       peak compute of the row's accelerators
                       (:func:`planner.perf.ttft.prefill_floor_s`), which no system beats.
    ``source``         where the number comes from.
Any other column is carried through to ``perf-check --out`` untouched.
"""

from __future__ import annotations

import csv
import difflib
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from planner import safe_io
from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import PRECISIONS, HardwareSpec, ModelSpec
from planner.errors import InputError, Problem
from planner.perf.inference import ServingCase
from planner.perf.serving import served_label
from planner.perf.ttft import prefill_floor_s

REQUIRED_COLUMNS = (
    "hardware",
    "model",
    "precision",
    "input_tokens",
    "output_tokens",
    "tokens_per_s_per_accelerator",
)
OPTIONAL_COLUMNS = (
    "tokens_per_s_per_user",
    "concurrency",
    "accelerators",
    "phase",
    "kv_precision",
    "cache_hit_rate",
    "ttft_s",
    "source",
)
PHASES = ("colocated", "decode", "prefill")
R = TypeVar("R")


@dataclass(frozen=True)
class BenchRow:
    """One measured benchmark row, resolved against the catalog."""

    line: int
    """Line of the row in the file (the header is line 1)."""
    cells: dict[str, str]
    """Every cell of the row as written, by column."""
    hardware: HardwareSpec
    model: ModelSpec
    phase: str
    case: ServingCase
    measured_tokens_per_s_per_accelerator: float

    @property
    def served_precision(self) -> str:
        """What the row is predicted at: its precision where the part has the units, else
        the weight-only form (``w4a8``), never a precision the part cannot compute."""
        return served_label(self.hardware, self.case.precision)

    @property
    def label(self) -> str:
        return f"{self.hardware.id} {self.model.id} {self.served_precision} (line {self.line})"


@dataclass(frozen=True)
class BenchFile:
    """A benchmark CSV: its columns in order and its rows in input order."""

    path: str
    columns: list[str]
    rows: list[BenchRow]


def _did_you_mean(word: str, options: list[str]) -> str | None:
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.5)
    return f"did you mean {close[0]!r}?" if close else None


class RowReader:
    """Parses one row's cells, collecting problems instead of stopping at the first."""

    def __init__(self, cells: dict[str, str], line: int, problems: list[Problem]):
        self.cells, self.line, self.problems = cells, line, problems

    def problem(self, column: str, message: str, **extra: str | None) -> None:
        self.problems.append(
            Problem(path=f"column {column}", message=message, line=self.line, **extra)
        )

    def text(self, column: str) -> str:
        return (self.cells.get(column) or "").strip()

    def number(
        self,
        column: str,
        *,
        optional: bool = False,
        positive: bool = True,
        at_most: float | None = None,
    ) -> float | None:
        raw = self.text(column)
        if not raw:
            if not optional:
                self.problem(column, "empty cell", expected="a number")
            return None
        try:
            value = float(raw)
        except ValueError:
            self.problem(column, "not a number", found=repr(raw), expected="a number, e.g. 1024")
            return None
        low_ok = value > 0 if positive else value >= 0
        if not math.isfinite(value) or not low_ok or (at_most is not None and value > at_most):
            bound = "> 0" if positive else ">= 0"
            if at_most is not None:
                bound += f" and <= {at_most:g}"
            self.problem(column, "value out of range", found=raw, expected=f"a number {bound}")
            return None
        return value

    def choice(self, column: str, options: tuple[str, ...], default: str | None) -> str | None:
        raw = self.text(column)
        if not raw and default is not None:
            return default
        if raw not in options:
            hint = _did_you_mean(raw, list(options))
            self.problem(
                column,
                f"unknown value {raw!r}",
                expected="one of: " + ", ".join(options),
                hint=hint,
            )
            return None
        return raw

    def catalog_id(self, column: str, catalog: dict[str, object], listing: str) -> str | None:
        raw = self.text(column)
        if raw in catalog:
            return raw
        hint = _did_you_mean(raw, list(catalog)) or f"see `planner {listing} list`"
        self.problem(column, f"unknown id {raw!r}", hint=hint)
        return None


def _ttft_reachable(
    reader: RowReader, case: ServingCase, model: ModelSpec, hardware: HardwareSpec, system: float
) -> bool:
    """False, with a problem on column ``ttft_s``, when the case's TTFT SLO is below the
    prefill floor of its prompt on the row's ``system`` accelerators (:func:`prefill_floor_s`)."""
    floor = prefill_floor_s(
        model,
        hardware,
        case.precision,
        case.input_tokens_per_request,
        case.cache_hit_rate,
        system,
    )
    if floor is None or case.slo_ttft_s is None or case.slo_ttft_s >= floor:
        return True
    reader.problem(
        "ttft_s",
        f"below the prefill floor of {floor:.4g} s: {case.uncached_input_tokens:,.0f} "
        f"uncached prompt tokens of {model.id} take that long at the full "
        f"{served_label(hardware, case.precision)} peak of {system:g} {hardware.id} "
        "accelerators",
        found=reader.text("ttft_s"),
        expected=f"a time to first token of at least {floor:.4g} s",
        hint="check the unit (seconds) and the row's input_tokens and accelerators",
    )
    return False


def _parse_row(cells: dict[str, str], line: int, problems: list[Problem]) -> BenchRow | None:
    reader = RowReader(cells, line, problems)
    before = len(problems)
    hardware_id = reader.catalog_id("hardware", hardware_catalog(), "hardware")  # type: ignore[arg-type]
    model_id = reader.catalog_id("model", model_catalog(), "models")  # type: ignore[arg-type]
    precision = reader.choice("precision", PRECISIONS, None)
    kv_precision = (
        reader.choice("kv_precision", PRECISIONS, None) if reader.text("kv_precision") else None
    )
    phase = reader.choice("phase", PHASES, "colocated")
    input_tokens = reader.number("input_tokens", positive=False)
    output_tokens = reader.number("output_tokens")
    measured = reader.number("tokens_per_s_per_accelerator")
    slo = reader.number("tokens_per_s_per_user", optional=True)
    concurrency = reader.number("concurrency", optional=True)
    accelerators = reader.number("accelerators", optional=True)
    hit_rate = reader.number("cache_hit_rate", optional=True, positive=False, at_most=1.0)
    ttft = reader.number("ttft_s", optional=True)
    if len(problems) > before:
        return None
    assert hardware_id and model_id and precision and phase
    assert input_tokens is not None and output_tokens is not None and measured is not None
    hardware, model = hardware_catalog()[hardware_id], model_catalog()[model_id]
    system = accelerators or hardware.accelerators
    case = ServingCase(
        precision=precision,
        kv_precision=kv_precision or ("fp8" if precision == "fp4" else precision),
        input_tokens_per_request=input_tokens,
        output_tokens_per_request=output_tokens,
        cache_hit_rate=hit_rate or 0.0,
        slo_tokens_per_s_per_user=slo,
        concurrency_per_accelerator=None if concurrency is None else concurrency / system,
        slo_ttft_s=ttft,
    )
    if not _ttft_reachable(reader, case, model, hardware, system):
        return None
    return BenchRow(
        line=line,
        cells=cells,
        hardware=hardware,
        model=model,
        phase=phase,
        case=case,
        measured_tokens_per_s_per_accelerator=measured,
    )


MAX_BENCHMARK_BYTES = 50_000_000
"""The largest benchmark CSV read (MLPerf's full results are a few megabytes)."""


def read_csv_rows(
    path: str | Path,
    required: tuple[str, ...],
    parse: Callable[[dict[str, str], int, list[Problem]], R | None],
    what: str = "benchmark CSV",
) -> tuple[list[str], list[R]]:
    """Read a CSV whose header has the ``required`` columns and ``parse`` each data row
    (cells by column, line, the problem list it appends to; None: the row has a
    problem). Raise :class:`InputError` naming file, line and column for every problem;
    a file that is not such a CSV is never quoted."""
    file = str(path)
    text = safe_io.read_text(path, limit=MAX_BENCHMARK_BYTES, what=what)
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        lines = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise InputError(
            file,
            Problem(path="", message=f"cannot read the CSV: {exc}", line=reader.line_num),
        ) from None
    if not lines:
        raise InputError(
            file, Problem(path="", message="the file is empty", expected="a header row")
        )
    columns = [c.strip() for c in lines[0][1]]
    missing = [c for c in required if c not in columns]
    if len(missing) == len(required):  # not such a file: never quote it
        raise InputError(
            file,
            Problem(
                path="",
                message=f"is not a {what}: its first line is not a header with its "
                "columns (its content is not shown)",
                expected="columns " + ", ".join(required),
                hint="see planner/perf/benchmarks.py for the format",
                line=1,
            ),
        )
    if missing:
        hints = [h for c in missing if (h := _did_you_mean(c, columns))]
        raise InputError(
            file,
            Problem(
                path="header",
                message="missing column(s): " + ", ".join(missing),
                expected="columns " + ", ".join(required),
                hint="; ".join(hints) or "see planner/perf/benchmarks.py for the format",
                line=1,
            ),
        )
    problems: list[Problem] = []
    rows: list[R] = []
    for line, values in lines[1:]:
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(columns):
            problems.append(
                Problem(
                    path="",
                    message=f"{len(values)} cells, the header has {len(columns)}",
                    line=line,
                    hint="quote cells that contain commas",
                )
            )
            continue
        row = parse(dict(zip(columns, values, strict=True)), line, problems)
        if row is not None:
            rows.append(row)
    if problems:
        raise InputError(file, problems)
    if not rows:
        raise InputError(
            file, Problem(path="", message="no data rows", expected="one row per measurement")
        )
    return columns, rows


def read_benchmarks(path: str | Path) -> BenchFile:
    """Read and check a benchmark CSV; raise :class:`InputError` naming file, line and column."""
    columns, rows = read_csv_rows(path, REQUIRED_COLUMNS, _parse_row)
    return BenchFile(path=str(path), columns=columns, rows=rows)
