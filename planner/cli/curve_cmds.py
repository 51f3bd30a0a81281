"""``planner curve``: throughput–interactivity curves per hardware (planner.analysis.curves)."""

from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import NoReturn

import click

from planner.analysis.curves import curve_frame, plot_curves
from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import PRECISIONS
from planner.cli.common import echo_err, emit_json, frame_records, print_frame
from planner.cli.options import FILE, FiniteFloatRange, calibration_option, format_option
from planner.cli.outputs import check_outputs, require_suffix, scenario_inputs
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


def _bad(option: str, message: str, found: str, expected: str, hint: str | None = None) -> NoReturn:
    raise InputError(
        None, Problem(path=option, message=message, found=found, expected=expected, hint=hint)
    )


def _catalog_id(
    option: str, value: str, known: list[str], listing: str, scenario: Path | None = None
) -> str:
    """``value`` if it is one of ``known``: catalog ids, or with ``scenario`` the ids the
    scenario's ``models:`` / ``hardware:`` list."""
    if value in known:
        return value
    close = difflib.get_close_matches(value, known, n=1, cutoff=0.5)
    if scenario is not None:
        expected = f"an id listed under {listing}: in {scenario} ({', '.join(known)})"
        hint = f"did you mean {close[0]!r}?" if close else f"add it to {listing}: in {scenario}"
    else:
        expected = f"a catalog id ({listing})"
        hint = f"did you mean {close[0]!r}?" if close else f"see `planner {listing} list`"
    _bad(option, f"unknown id {value!r}", value, expected, hint)


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


def _scenario_calibration(resolved: str | None) -> Path | None:
    """The scenario's calibration as ``--calibration`` would name it (None: shipped)."""
    return None if resolved is None else Path(resolved)


def _tokens(option: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        _bad(option, "must be a positive number of tokens", repr(value), "a number > 0")
    return value


@click.command("curve")
@click.option(
    "--model",
    "model_id",
    required=True,
    help="Model id, e.g. deepseek-v3: a catalog id, or with --scenario one its models: list.",
)
@click.option(
    "--hardware",
    "hardware_ids",
    help="Comma-separated hardware ids (catalog ids, or with --scenario ones its hardware: "
    "lists) [required without --scenario; with it, default: all its hardware].",
)
@click.option(
    "--scenario",
    "scenario_file",
    type=FILE,
    help="Take --model and --hardware from this scenario's models: and hardware: entries, "
    "as it sees them: its own models and hardware, catalog rows with its overrides, its "
    "calibration unless --calibration.",
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
@click.option(
    "--cache-hit-rate",
    type=FiniteFloatRange(0.0, 1.0, max_open=True),
    default=0.0,
    show_default=True,
    help="Share of prompt tokens served from a prefix cache, not prefilled (a scenario "
    "workload's cache_hit_rate).",
)
@calibration_option(scenario=True)
@click.option("--plot", type=click.Path(path_type=Path), help="Write the curves as a PNG.")
@format_option
def curve(
    model_id: str,
    hardware_ids: str | None,
    scenario_file: Path | None,
    precision: str,
    input_tokens: float,
    output_tokens: float,
    interactivity: str,
    mtp: str | None,
    cache_hit_rate: float,
    calibration: Path | None,
    plot: Path | None,
    fmt: str,
) -> None:
    """Throughput–interactivity curves: tokens/s per accelerator, layout and $/Mtok.

    For each hardware and each required interactivity (tok/s/user), the best parallel
    layout and batch that meet it, the output tokens/s per accelerator (prefill
    included) and $/Mtok of output at the catalog price with default finance inputs.
    With --scenario, the models and hardware are the scenario's (its own entries, and
    catalog rows with its overrides, prices included).

    \b
    Examples:
      planner curve --model deepseek-v3 --hardware b200-hgx,gb200-nvl72 --precision fp4
      planner curve --model llama-3.1-70b --hardware h100-hgx,mi355x-oam8 \\
          --interactivity 20,50,100 --format csv --plot curves.png
      planner curve --scenario scenarios/baseline.yaml --model deepseek-v3 \\
          --cache-hit-rate 0.5
    """
    inputs: list[Path] = []
    if scenario_file is not None:
        from planner.scenario import load_scenario
        from planner.scenario.resolve import hardware_specs, model_specs

        scenario = load_scenario(scenario_file)
        models, hardware = model_specs(scenario), hardware_specs(scenario)
        inputs = scenario_inputs(scenario_file, scenario.calibration)
        calibration = calibration or _scenario_calibration(scenario.calibration)
        hardware_ids = hardware_ids or ",".join(hardware)
    else:
        models, hardware = model_catalog(), hardware_catalog()
        if hardware_ids is None:
            _bad(
                "--hardware",
                "no hardware given",
                "",
                "comma-separated hardware ids",
                "name the hardware, or give --scenario to take its hardware",
            )
    at = scenario_file
    model = models[_catalog_id("--model", model_id, list(models), "models", at)]
    ids = [part.strip() for part in hardware_ids.split(",") if part.strip()]
    if not ids:
        _bad("--hardware", "no hardware given", hardware_ids, "comma-separated hardware ids")
    specs = [hardware[_catalog_id("--hardware", h, list(hardware), "hardware", at)] for h in ids]
    points = parse_interactivity(interactivity)
    _tokens("--input-tokens", input_tokens)
    _tokens("--output-tokens", output_tokens)
    draft, accept = parse_mtp(mtp) if mtp is not None else (0, 0.0)
    require_suffix(plot, (".png",), "--plot")
    file = calibration_file(calibration)
    check_outputs([*inputs, *([file] if file else [])], plot)
    table = calibration_table(calibration)
    echo_err(f"calibration: {calibration_label(calibration)}")
    frame = curve_frame(
        model,
        specs,
        precision,
        input_tokens,
        output_tokens,
        points,
        table,
        draft,
        accept,
        cache_hit_rate,
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
