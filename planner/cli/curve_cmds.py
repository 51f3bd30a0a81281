"""``planner curve``: throughput–interactivity curves per hardware (planner.analysis.curves)."""

from __future__ import annotations

import difflib
import math
from pathlib import Path

import click

from planner.analysis.curves import curve_frame, plot_curves
from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import PRECISIONS
from planner.cli.common import echo_err, emit_json, frame_records, print_frame
from planner.cli.options import calibration_option, format_option
from planner.cli.outputs import check_outputs, require_suffix
from planner.errors import InputError, Problem
from planner.perf.efficiency import calibration_file, calibration_label, calibration_table

MAX_POINTS = 1000
CURVE_TABLE_HEADERS = {
    "hardware": "hardware",
    "precision": "precision",
    "interactivity_tokens_per_s_per_user": "tok/s/user",
    "layout": "layout",
    "batch": "batch",
    "output_tokens_per_s_per_accelerator": "tok/s/acc",
    "usd_per_mtok_output": "$/Mtok out",
    "binding": "binding",
    "reason": "reason",
}


def _bad(option: str, message: str, found: str, expected: str, hint: str | None = None) -> None:
    raise InputError(
        None, Problem(path=option, message=message, found=found, expected=expected, hint=hint)
    )


def _catalog_id(option: str, value: str, known: list[str], listing: str) -> str:
    if value in known:
        return value
    close = difflib.get_close_matches(value, known, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}?" if close else f"see `planner {listing} list`"
    _bad(option, f"unknown id {value!r}", value, f"a catalog id ({listing})", hint)
    raise AssertionError  # unreachable: _bad raises


def parse_interactivity(text: str) -> list[float]:
    """``START:STOP:STEP`` (inclusive) or a comma list of tok/s/user, each > 0."""
    expected = "START:STOP:STEP (e.g. 10:200:20) or a list (e.g. 20,50,100), values > 0"
    try:
        if ":" in text:
            start, stop, step = (float(part) for part in text.split(":"))
            if not (step > 0 and stop >= start):
                raise ValueError
            count = math.floor((stop - start) / step + 1e-9) + 1
            values = [start + i * step for i in range(min(count, MAX_POINTS + 1))]
        else:
            values = [float(part) for part in text.split(",")]
    except ValueError:
        _bad("--interactivity", "cannot read the interactivity points", text, expected)
    if not values or len(values) > MAX_POINTS:
        _bad("--interactivity", f"1 to {MAX_POINTS} points needed", text, expected)
    if not all(math.isfinite(v) and v > 0 for v in values):
        _bad("--interactivity", "interactivity must be > 0 tok/s/user", text, expected)
    return values


def parse_mtp(text: str) -> tuple[int, float]:
    """``DRAFT:ACCEPT``: 1-16 drafted tokens per step, acceptance rate in [0, 1]."""
    expected = "DRAFT:ACCEPT with DRAFT 1-16 and ACCEPT in [0, 1], e.g. 1:0.85"
    try:
        draft_text, accept_text = text.split(":")
        draft, accept = int(draft_text), float(accept_text)
    except ValueError:
        _bad("--mtp", "cannot read the speculative-decoding setting", text, expected)
    if not (1 <= draft <= 16 and 0.0 <= accept <= 1.0):
        _bad("--mtp", "value out of range", text, expected)
    return draft, accept


def _tokens(option: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        _bad(option, "must be a positive number of tokens", repr(value), "a number > 0")
    return value


@click.command("curve")
@click.option("--model", "model_id", required=True, help="Catalog model id, e.g. deepseek-v3.")
@click.option(
    "--hardware", "hardware_ids", required=True, help="Comma-separated catalog hardware ids."
)
@click.option(
    "--precision",
    type=click.Choice(PRECISIONS),
    default="fp8",
    show_default=True,
    help="Weight precision; parts without native units serve it weight-only (w4a8).",
)
@click.option("--input-tokens", type=float, default=8192.0, show_default=True)
@click.option("--output-tokens", type=float, default=1024.0, show_default=True)
@click.option(
    "--interactivity",
    default="10:200:10",
    show_default=True,
    help="Required tok/s/user: START:STOP:STEP or a comma list.",
)
@click.option(
    "--mtp",
    help="Speculative decoding: DRAFT:ACCEPT, tokens drafted per step and their acceptance "
    "rate (e.g. 1:0.85, DeepSeek-V3's multi-token prediction). Default: off.",
)
@calibration_option(scenario=False)
@click.option("--plot", type=click.Path(path_type=Path), help="Write the curves as a PNG.")
@format_option
def curve(
    model_id: str,
    hardware_ids: str,
    precision: str,
    input_tokens: float,
    output_tokens: float,
    interactivity: str,
    mtp: str | None,
    calibration: Path | None,
    plot: Path | None,
    fmt: str,
) -> None:
    """Throughput–interactivity curves: tokens/s per accelerator, layout and $/Mtok.

    For each hardware and each required interactivity (tok/s/user), the best parallel
    layout and batch that meet it, the output tokens/s per accelerator (prefill
    included) and $/Mtok of output at the catalog price with default finance inputs.

    \b
    Examples:
      planner curve --model deepseek-v3 --hardware b200-hgx,gb200-nvl72 --precision fp4
      planner curve --model llama-3.1-70b --hardware h100-hgx,mi355x-oam8 \\
          --interactivity 20,50,100 --format csv --plot curves.png
    """
    models, hardware = model_catalog(), hardware_catalog()
    model = models[_catalog_id("--model", model_id, sorted(models), "models")]
    ids = [part.strip() for part in hardware_ids.split(",") if part.strip()]
    if not ids:
        _bad("--hardware", "no hardware given", hardware_ids, "comma-separated hardware ids")
    specs = [hardware[_catalog_id("--hardware", h, sorted(hardware), "hardware")] for h in ids]
    points = parse_interactivity(interactivity)
    _tokens("--input-tokens", input_tokens)
    _tokens("--output-tokens", output_tokens)
    draft, accept = parse_mtp(mtp) if mtp is not None else (0, 0.0)
    require_suffix(plot, (".png",), "--plot")
    file = calibration_file(calibration)
    check_outputs([*([file] if file else [])], plot)
    table = calibration_table(calibration)
    echo_err(f"calibration: {calibration_label(calibration)}")
    frame = curve_frame(
        model, specs, precision, input_tokens, output_tokens, points, table, draft, accept
    )
    if plot is not None:
        title = f"{model.id}, {input_tokens:,.0f} in / {output_tokens:,.0f} out"
        plot_curves(frame, plot, title)
        echo_err(f"wrote {plot}")
    if fmt == "json":
        emit_json({"model": model.id, "points": frame_records(frame)})
        return
    shown = frame[list(CURVE_TABLE_HEADERS)].rename(columns=CURVE_TABLE_HEADERS)
    print_frame(shown if fmt == "table" else frame, fmt, title=f"Curves ({model.id})")
