"""``planner crossover`` and ``planner price``: back-of-envelope economics."""

from __future__ import annotations

import difflib
from typing import Any

import click
import pandas as pd

from planner import economics
from planner.catalog import hardware_catalog, model_catalog
from planner.cli.common import emit_json, print_frame
from planner.cli.options import FiniteFloatRange, format_option
from planner.errors import InputError, Problem

_POSITIVE = FiniteFloatRange(min=0, min_open=True)
_NON_NEGATIVE = FiniteFloatRange(min=0)
_FRACTION = FiniteFloatRange(min=0, max=1)


def _lookup(catalog: dict[str, Any], item_id: str, kind: str, option: str) -> Any:
    """The catalog row ``item_id``, or an InputError with a did-you-mean."""
    if item_id in catalog:
        return catalog[item_id]
    close = difflib.get_close_matches(item_id, list(catalog), n=1)
    listing = "models" if kind == "model" else kind
    hint = f"did you mean {close[0]!r}?" if close else f"see `planner {listing} list`"
    raise InputError(
        None, Problem(path=option, message=f"unknown {kind} id {item_id!r}", hint=hint)
    )


def _print_result(values: dict[str, float | str], units: dict[str, str], fmt: str) -> None:
    """JSON: one flat object; CSV: one wide row; table: one quantity per line."""
    if fmt == "json":
        emit_json(values)
    elif fmt == "csv":
        print_frame(pd.DataFrame([values]), fmt)
    else:
        frame = pd.DataFrame(
            {
                "quantity": list(values),
                "value": [str(v) if isinstance(v, str) else _number(v) for v in values.values()],
                "unit": [units.get(k, "") for k in values],
            }
        )
        print_frame(frame, fmt)


def _number(value: float) -> str:
    """Four significant figures; thousands separators between 1,000 and 10 million."""
    if 1_000 <= abs(value) < 1e7:
        return f"{value:,.0f}"
    return f"{value:.4g}"


@click.command("crossover")
@click.option("--model", "model_id", required=True, help="Model id from the catalog.")
@click.option(
    "--tokens-per-question", type=_POSITIVE, required=True, help="Answer tokens per question."
)
@click.option(
    "--questions-per-day", type=_POSITIVE, required=True, help="Questions served per day."
)
@click.option(
    "--reasoning-tokens",
    type=_NON_NEGATIVE,
    default=0.0,
    show_default=True,
    help="Hidden reasoning tokens generated per answer.",
)
@click.option(
    "--hardware",
    "hardware_id",
    help="Training hardware id: training compute = GPU-hours x its peak x utilisation.",
)
@click.option(
    "--utilisation",
    type=FiniteFloatRange(min=0, max=1, min_open=True),
    help="Share of peak achieved in training (default: the hardware's training MFU).",
)
@click.option(
    "--training-gpu-hours",
    type=_POSITIVE,
    help="Training accelerator-hours (default: the model's reported hours); needs --hardware.",
)
@click.option(
    "--precision",
    type=click.Choice(["bf16", "fp8", "fp4"]),
    default="bf16",
    show_default=True,
    help="Precision whose peak converts GPU-hours to FLOPs.",
)
@format_option
def crossover_cmd(
    model_id: str,
    tokens_per_question: float,
    questions_per_day: float,
    reasoning_tokens: float,
    hardware_id: str | None,
    utilisation: float | None,
    training_gpu_hours: float | None,
    precision: str,
    fmt: str,
) -> None:
    """Days of serving until inference compute equals the model's training compute.

    Inference uses 2 x active params FLOPs per token; training is 6 x active params x
    training tokens from the catalog, or, with --hardware, GPU-hours x peak x utilisation.

    \b
    Example:
      planner crossover --model llama-3.1-405b --tokens-per-question 1500 \\
        --questions-per-day 1e9 --hardware h100-hgx --utilisation 0.3 \\
        --training-gpu-hours 30.84e6
    """
    model = _lookup(model_catalog(), model_id, "model", "--model")
    hardware = (
        _lookup(hardware_catalog(), hardware_id, "hardware", "--hardware")
        if hardware_id is not None
        else None
    )
    result = economics.crossover(
        model,
        questions_per_day=questions_per_day,
        tokens_per_question=tokens_per_question,
        reasoning_tokens=reasoning_tokens,
        hardware=hardware,
        utilisation=utilisation,
        training_accelerator_hours=training_gpu_hours,
        precision=precision,
    )
    values: dict[str, float | str] = {
        "model": model.id,
        "training_basis": result.training_basis,
        "training_flops": result.training_flops,
        "tokens_per_day": result.tokens_per_day,
        "inference_flops_per_day": result.inference_flops_per_day,
        "days": result.days,
        "years": result.years,
    }
    units = {
        "training_flops": "FLOP",
        "tokens_per_day": "tokens/day",
        "inference_flops_per_day": "FLOP/day",
        "days": "days",
        "years": "years",
    }
    _print_result(values, units, fmt)


@click.command("price")
@click.option("--input-usd-per-mtok", type=_NON_NEGATIVE, required=True, help="Input price.")
@click.option("--output-usd-per-mtok", type=_NON_NEGATIVE, required=True, help="Output price.")
@click.option(
    "--cached-input-usd-per-mtok", type=_NON_NEGATIVE, required=True, help="Cached-input price."
)
@click.option(
    "--input-per-output", type=_NON_NEGATIVE, required=True, help="Input tokens per output token."
)
@click.option(
    "--cache-hit-rate", type=_FRACTION, required=True, help="Share of input tokens cached (0-1)."
)
@click.option(
    "--output-tokens-per-day",
    type=_NON_NEGATIVE,
    help="Output tokens per day; adds the daily and yearly (365-day) bill.",
)
@format_option
def price_cmd(
    input_usd_per_mtok: float,
    output_usd_per_mtok: float,
    cached_input_usd_per_mtok: float,
    input_per_output: float,
    cache_hit_rate: float,
    output_tokens_per_day: float | None,
    fmt: str,
) -> None:
    """Blended $/Mtok of an API price list at an input mix and cache-hit rate.

    Prints $ per million tokens of all kinds, $ per million output tokens (their input
    included) and, with --output-tokens-per-day, the daily and yearly bill.

    \b
    Example:
      planner price --input-usd-per-mtok 5 --output-usd-per-mtok 25 \\
        --cached-input-usd-per-mtok 0.5 --input-per-output 300 --cache-hit-rate 0.9 \\
        --output-tokens-per-day 1e9
    """
    blended = economics.blended_usd_per_mtok(
        input_usd_per_mtok,
        output_usd_per_mtok,
        cached_input_usd_per_mtok,
        input_per_output,
        cache_hit_rate,
    )
    values: dict[str, float | str] = {
        "usd_per_mtok": blended.usd_per_mtok,
        "usd_per_output_mtok": blended.usd_per_output_mtok,
    }
    units = {"usd_per_mtok": "USD/Mtok", "usd_per_output_mtok": "USD/output Mtok"}
    if output_tokens_per_day is not None:
        values["daily_bill_usd"] = economics.daily_bill_usd(
            output_tokens_per_day, blended.usd_per_output_mtok
        )
        values["yearly_bill_usd"] = economics.yearly_bill_usd(
            output_tokens_per_day, blended.usd_per_output_mtok
        )
        units.update(daily_bill_usd="USD/day", yearly_bill_usd="USD/year")
    _print_result(values, units, fmt)


def register(cli: click.Group) -> None:
    """Add ``crossover`` and ``price`` to ``cli``."""
    cli.add_command(crossover_cmd)
    cli.add_command(price_cmd)
