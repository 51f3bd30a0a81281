"""``planner hardware list`` and ``planner models list``: the sourced catalogs."""

from __future__ import annotations

import click
import pandas as pd

from planner.catalog import hardware_catalog, model_catalog
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


def register(cli: click.Group) -> None:
    cli.add_command(hardware)
    cli.add_command(models)
