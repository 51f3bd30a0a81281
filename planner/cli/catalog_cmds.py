"""``planner hardware list|show`` and ``planner models list|show``: the sourced catalogs."""

from __future__ import annotations

import difflib
from typing import Any

import click
import pandas as pd
from pydantic import BaseModel

from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.software import software_stacks
from planner.cli.common import print_frame
from planner.cli.options import all_columns_option, format_option
from planner.errors import InputError, Problem

HARDWARE_TABLE_COLUMNS = [
    "id",
    "vendor",
    "form",
    "accelerators",
    "peak_tflops_bf16",
    "peak_tflops_fp8",
    "peak_tflops_fp4",
    "memory_gb",
    "memory_tbps",
    "scale_up_domain",
    "power_kw",
    "price_usd",
    "release_year",
]
MODEL_TABLE_COLUMNS = [
    "id",
    "developer",
    "total_params_b",
    "active_params_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "experts",
    "experts_per_token",
    "max_context_tokens",
]


def _only(frame: pd.DataFrame, column: str, value: str | None, what: str) -> pd.DataFrame:
    """Rows whose ``column`` equals ``value`` (case-insensitive); all rows when None."""
    if not value:
        return frame
    known = sorted(frame[column].unique())
    kept = frame[frame[column].str.lower() == value.lower()]
    if kept.empty:
        raise InputError(
            None,
            Problem(
                path="--vendor",
                message=f"no {what} from {value!r}",
                expected="one of: " + ", ".join(known),
            ),
        )
    return kept.reset_index(drop=True)


def hardware_frame(vendor: str | None = None) -> pd.DataFrame:
    """The hardware catalog as a DataFrame, optionally for one vendor (case-insensitive)."""
    rows = [h.model_dump(mode="json") for h in hardware_catalog().values()]
    return _only(pd.DataFrame(rows), "vendor", vendor, "hardware")


def model_frame(developer: str | None = None) -> pd.DataFrame:
    """The model catalog as a DataFrame, optionally for one developer (case-insensitive)."""
    rows = [m.model_dump(mode="json") for m in model_catalog().values()]
    return _only(pd.DataFrame(rows), "developer", developer, "models")


@click.group()
def hardware() -> None:
    """The hardware catalog (purchasable systems with sources).

    \b
    Example:
      planner hardware list --vendor NVIDIA
    """


@hardware.command("list")
@click.option("--vendor", help="Only this vendor's systems (e.g. NVIDIA, AMD, Google).")
@all_columns_option
@format_option
def hardware_list(vendor: str | None, all_columns: bool, fmt: str) -> None:
    """List catalog hardware: specs, power, price, source and date.

    csv and json always carry every column, including source and as_of.

    \b
    Example:
      planner hardware list --vendor AMD
      planner hardware list --format csv > hardware.csv
    """
    frame = hardware_frame(vendor)
    if fmt == "table" and not all_columns:
        frame = frame[HARDWARE_TABLE_COLUMNS]
    print_frame(frame, fmt, title="Hardware catalog (dense TFLOPS per accelerator)")


@click.group()
def models() -> None:
    """The model catalog (architectures with sources).

    \b
    Example:
      planner models list --format csv > models.csv
    """


@models.command("list")
@click.option("--vendor", help="Only models from this developer (e.g. Meta, DeepSeek, OpenAI).")
@all_columns_option
@format_option
def models_list(vendor: str | None, all_columns: bool, fmt: str) -> None:
    """List catalog models: parameters, attention layout, experts, context and source.

    \b
    Example:
      planner models list --format json
      planner models list --vendor DeepSeek
    """
    frame = model_frame(vendor)
    if fmt == "table" and not all_columns:
        frame = frame[MODEL_TABLE_COLUMNS]
    print_frame(frame, fmt, title="Model catalog")


def show_frame(entries: dict[str, Any], entry_id: str, what: str) -> pd.DataFrame:
    """Every field of catalog entry ``entry_id`` (case-insensitive): field, value and
    what it means (the schema's field docstring); InputError with a did-you-mean."""
    by_lower = {key.lower(): key for key in entries}
    key = by_lower.get(entry_id.lower())
    if key is None:
        close = difflib.get_close_matches(entry_id.lower(), list(by_lower), n=3, cutoff=0.5)
        guess = f"; did you mean {', '.join(by_lower[c] for c in close)}?" if close else ""
        raise InputError(
            None,
            Problem(
                path=f"{what} id",
                message=f"no {what.removesuffix('s')} {entry_id!r} in the catalog{guess}",
                hint=f"`planner {what} list` prints every id",
            ),
        )
    entry: BaseModel = entries[key]
    fields = type(entry).model_fields
    values = entry.model_dump(mode="json")
    rows = [
        {
            "field": name,
            "value": "" if values[name] is None else str(values[name]),
            "meaning": (fields[name].description or "").replace("``", ""),
        }
        for name in fields
    ]
    return pd.DataFrame(rows, columns=["field", "value", "meaning"])


@hardware.command("show")
@click.argument("hardware_id", metavar="ID")
@format_option
def hardware_show(hardware_id: str, fmt: str) -> None:
    """Every field of one catalog system, with its source, date and notes.

    \b
    Example:
      planner hardware show gb200-nvl72
    """
    frame = show_frame(hardware_catalog(), hardware_id, "hardware")
    print_frame(frame, fmt, title=f"Hardware {frame['value'].iloc[0]}", json_key="fields")


@models.command("show")
@click.argument("model_id", metavar="ID")
@format_option
def models_show(model_id: str, fmt: str) -> None:
    """Every field of one catalog model, with its source, date and notes.

    \b
    Example:
      planner models show llama-3.1-405b
    """
    frame = show_frame(model_catalog(), model_id, "models")
    print_frame(frame, fmt, title=f"Model {frame['value'].iloc[0]}", json_key="fields")


@click.command("software")
@click.option("--vendor", help="Only this vendor's stacks (e.g. AMD, Google).")
@all_columns_option
@format_option
def software(vendor: str | None, all_columns: bool, fmt: str) -> None:
    """List the serving software stacks a scenario's `software:` key can pick.

    Each stack's factors multiply the inference throughput of its vendor's hardware, per
    model class (dense, moe), relative to the vendor's default stack (the one its
    calibration measured; empty: no published figure, the default's). csv and json
    carry the source of every figure.

    \b
    Example:
      planner software --vendor AMD
      planner software --format json
    """
    frame = _only(pd.DataFrame(software_stacks().rows()), "vendor", vendor, "software stacks")
    if fmt == "table" and not all_columns:
        frame = frame.drop(columns=["source"])
    print_frame(frame, fmt, title="Serving software stacks (throughput factor vs the default)")


def register(cli: click.Group) -> None:
    cli.add_command(hardware)
    cli.add_command(models)
    cli.add_command(software)
