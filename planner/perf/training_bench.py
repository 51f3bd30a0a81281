"""Measured training throughput: the CSV format ``planner fidelity`` checks training against.

One row per measured run, a header row first. Columns:

Required
    ``hardware``       catalog hardware id (e.g. ``h100-hgx``)
    ``model``          catalog model id (e.g. ``llama-3.1-405b``)
    ``precision``      compute precision: bf16, fp8 or fp4
    ``kind``           ``pretrain``, ``full`` or ``lora`` (fine-tuning)
    ``accelerators``   accelerators in the measured cluster
    ``global_batch_sequences``  sequences in one optimiser step
    ``sequence_tokens``         tokens in one sequence
    ``tokens_per_s_per_accelerator``  measured training tokens/s per accelerator, with
                       no failures in the measured interval (MLPerf: samples over the
                       timed run, evaluation time taken out where the log marks it)
Optional
    ``source``, ``date``, ``notes`` and any other column: carried through.

The prediction is the stage rate (catalog MFU at the row's precision × peak) times the
scaling efficiency of :mod:`planner.perf.training_scale` at the row's cluster and batch,
over the FLOPs a token (6 · active params; 4 · for LoRA). Goodput is not applied: a
benchmark interval has no failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import PRECISIONS, HardwareSpec, ModelSpec
from planner.errors import Problem
from planner.perf.benchmarks import RowReader, read_csv_rows
from planner.perf.training import MAX_ACCELERATORS, training_mfu
from planner.perf.training_scale import TRAINING_KINDS, flops_per_token, step_time
from planner.units import TERA

MAX_BATCH_SEQUENCES = 1e7
"""Largest global batch a row may state, sequences (published runs use thousands)."""
MAX_SEQUENCE_TOKENS = 1e7
"""Longest training sequence a row may state, tokens."""

TRAINING_REQUIRED_COLUMNS = (
    "hardware",
    "model",
    "precision",
    "kind",
    "accelerators",
    "global_batch_sequences",
    "sequence_tokens",
    "tokens_per_s_per_accelerator",
)


@dataclass(frozen=True)
class TrainingBenchRow:
    """One measured training row, resolved against the catalog."""

    line: int
    cells: dict[str, str]
    hardware: HardwareSpec
    model: ModelSpec
    precision: str
    kind: str
    accelerators: int
    global_batch_sequences: float
    sequence_tokens: float
    measured_tokens_per_s_per_accelerator: float

    @property
    def label(self) -> str:
        return (
            f"{self.hardware.id} {self.model.id} {self.precision} {self.kind} "
            f"×{self.accelerators} (line {self.line})"
        )


@dataclass(frozen=True)
class TrainingPrediction:
    """The model's tokens/s per accelerator for a row, and how it got there."""

    tokens_per_s_per_accelerator: float | None
    stage_mfu: float
    scaling_efficiency: float
    layout: str
    reason: str = ""


def _parse(cells: dict[str, str], line: int, problems: list[Problem]) -> TrainingBenchRow | None:
    reader = RowReader(cells, line, problems)
    before = len(problems)
    hardware_id = reader.catalog_id("hardware", hardware_catalog(), "hardware")  # type: ignore[arg-type]
    model_id = reader.catalog_id("model", model_catalog(), "models")  # type: ignore[arg-type]
    precision = reader.choice("precision", PRECISIONS, None)
    kind = reader.choice("kind", TRAINING_KINDS, None)
    accelerators = reader.number("accelerators", at_most=MAX_ACCELERATORS)
    batch = reader.number("global_batch_sequences", at_most=MAX_BATCH_SEQUENCES)
    sequence = reader.number("sequence_tokens", at_most=MAX_SEQUENCE_TOKENS)
    measured = reader.number("tokens_per_s_per_accelerator")
    if accelerators is not None and accelerators != int(accelerators):
        reader.problem("accelerators", "not a whole number", found=str(accelerators))
    if len(problems) > before:
        return None
    assert hardware_id and model_id and precision and kind
    assert accelerators and batch and sequence and measured
    return TrainingBenchRow(
        line,
        cells,
        hardware_catalog()[hardware_id],
        model_catalog()[model_id],
        precision,
        kind,
        int(accelerators),
        batch,
        sequence,
        measured,
    )


def read_training_benchmarks(path: str | Path) -> list[TrainingBenchRow]:
    """Read and check a training benchmark CSV; raise :class:`InputError` naming file,
    line and column."""
    return read_csv_rows(path, TRAINING_REQUIRED_COLUMNS, _parse, "training benchmark CSV")[1]


def predict_training(row: TrainingBenchRow) -> TrainingPrediction:
    """Predicted training tokens/s per accelerator for ``row`` (module doc)."""
    hw = row.hardware
    peak = hw.peak_tflops(row.precision) if hw.is_native(row.precision) else None
    mfu = training_mfu(hw, row.precision)
    if peak is None or mfu <= 0 or hw.prefill_only:
        return TrainingPrediction(None, mfu, 0.0, "", f"{hw.id} does not train at {row.precision}")
    stage = peak * TERA * mfu
    layout, step = step_time(
        row.model,
        hw,
        stage,
        row.accelerators,
        row.global_batch_sequences * row.sequence_tokens,
        row.sequence_tokens,
        row.kind,
    )
    rate = stage * step.efficiency / flops_per_token(row.model, row.kind)
    return TrainingPrediction(rate, mfu, step.efficiency, layout.label)


def signed_errors(rows: Sequence[TrainingBenchRow]) -> list[tuple[float, TrainingBenchRow]]:
    """(predicted / measured − 1, row) for every row the model can run."""
    out = []
    for row in rows:
        predicted = predict_training(row).tokens_per_s_per_accelerator
        if predicted is not None:
            out.append((predicted / row.measured_tokens_per_s_per_accelerator - 1.0, row))
    return out
