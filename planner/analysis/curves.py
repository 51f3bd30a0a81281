"""Throughput–interactivity curves: tokens/s per accelerator and $/Mtok against tok/s/user.

For one model, request shape and precision, each hardware type is served
(:func:`planner.perf.inference.serve`) at every required interactivity (decode
tokens/s per user, the SLO): the best layout and batch that meet it. The result is the
picture analysts compare vendors with: per-accelerator throughput falls as the
interactivity rises, until no layout reaches it.

$/Mtok is the unit's yearly cost (:func:`planner.economics.unit_cost` at the catalog
price and the default finance inputs of a scenario) over the output tokens it serves in
a year at full load, prefill included (colocated serving).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.economics.unit_cost import unit_cost, usd_per_mtok
from planner.perf.curves import serve_curve
from planner.perf.efficiency import EfficiencyTable, resolve_efficiency
from planner.perf.inference import ServingCase, served_label
from planner.scenario.schema import Finance

CURVE_COLUMNS = [
    "hardware",
    "model",
    "precision",
    "interactivity_tokens_per_s_per_user",
    "servable",
    "layout",
    "replica_accelerators",
    "batch",
    "tokens_per_s_per_user",
    "output_tokens_per_s_per_accelerator",
    "usd_per_mtok_output",
    "binding",
    "reason",
]


def usd_per_accelerator_year(hw: HardwareSpec) -> float:
    """Yearly cost of one accelerator of ``hw`` at its catalog price, default finance."""
    finance = Finance()
    cost = unit_cost(
        hw,
        price_usd=hw.price_usd,
        wacc=finance.wacc,
        pue=finance.pue,
        electricity_usd_per_kwh=float(finance.electricity_usd_per_kwh),  # type: ignore[arg-type]
        facility_usd_per_kw_year=float(finance.facility_usd_per_kw_year),  # type: ignore[arg-type]
        maintenance_fraction=finance.maintenance_fraction_of_capex_per_year,
        utilisation=finance.utilisation,
    )
    return cost.total_usd_per_year / hw.accelerators


def curve_frame(
    model: ModelSpec,
    hardware: Sequence[HardwareSpec],
    precision: str,
    input_tokens: float,
    output_tokens: float,
    interactivity: Sequence[float],
    calibration: EfficiencyTable | None = None,
    draft_tokens: int = 0,
    acceptance_rate: float = 0.0,
    cache_hit_rate: float = 0.0,
) -> pd.DataFrame:
    """One row per (hardware, interactivity), columns :data:`CURVE_COLUMNS`.

    ``precision`` names the weights; the ``precision`` column shows what is served
    (``w4a8`` on a part without fp4 units). Unservable points keep a row with zero
    throughput, no $/Mtok and a reason. ``draft_tokens`` / ``acceptance_rate``:
    speculative decoding (multi-token prediction) at every point. ``cache_hit_rate``:
    share of prompt tokens served from a prefix cache, not prefilled (as a scenario
    workload's). ``calibration``: None
    uses the shipped calibration (:func:`planner.perf.efficiency.default_calibration`).
    """
    rows = []
    case = ServingCase(
        precision=precision,
        kv_precision="fp8" if precision == "fp4" else precision,
        input_tokens_per_request=input_tokens,
        output_tokens_per_request=output_tokens,
        context_tokens=input_tokens + output_tokens,
        cache_hit_rate=cache_hit_rate,
        draft_tokens=draft_tokens,
        acceptance_rate=acceptance_rate,
    )
    for hw in hardware:
        efficiency = resolve_efficiency(calibration, hw.family, precision)
        yearly = usd_per_accelerator_year(hw)
        results = serve_curve(model, hw, case, interactivity, efficiency)
        for speed, result in zip(interactivity, results, strict=True):
            per_accelerator = result.output_tokens_per_s_per_accelerator
            rows.append(
                {
                    "hardware": hw.id,
                    "model": model.id,
                    "precision": served_label(hw, precision),
                    "interactivity_tokens_per_s_per_user": float(speed),
                    "servable": result.servable,
                    "layout": result.layout,
                    "replica_accelerators": result.replica_accelerators,
                    "batch": result.batch,
                    "tokens_per_s_per_user": result.tokens_per_s_per_user,
                    "output_tokens_per_s_per_accelerator": per_accelerator,
                    "usd_per_mtok_output": usd_per_mtok(yearly, per_accelerator)
                    if result.servable and per_accelerator > 0
                    else math.nan,
                    "binding": result.binding,
                    "reason": result.reason,
                }
            )
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def plot_curves(frame: pd.DataFrame, path: Path, title: str) -> None:
    """Write the Pareto curves (tokens/s per accelerator against tok/s/user, one line per
    hardware and precision served) as a PNG; needs the ``plots`` extra."""
    from matplotlib.figure import Figure

    from planner.export.atomic import write_atomically
    from planner.export.plots import DPI, SIZE_INCHES, require_matplotlib

    require_matplotlib()
    figure = Figure(figsize=SIZE_INCHES, dpi=DPI, layout="constrained")
    axes = figure.subplots()
    served = frame[frame["servable"]]
    for (hardware, precision), points in served.groupby(["hardware", "precision"], sort=False):
        axes.plot(
            points["interactivity_tokens_per_s_per_user"],
            points["output_tokens_per_s_per_accelerator"],
            marker="o",
            label=f"{hardware} ({precision})",
        )
    axes.set_xlabel("interactivity, output tokens/s per user")
    axes.set_ylabel("output tokens/s per accelerator")
    axes.set_title(title)
    axes.grid(True, alpha=0.3)
    if len(served):
        axes.legend(fontsize="small")
    write_atomically(path, lambda temp: figure.savefig(temp, format="png"))
