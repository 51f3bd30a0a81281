"""Throughput–interactivity curves: one serving case served at a grid of tok/s/user.

A curve point is :func:`planner.perf.inference.serve` with the case's decode SLO set to
the point: the best layout and batch meeting it, or why none does. Everything else of
the case (precisions, token mix, prefix cache, context, speculative decoding, TTFT
target) stays as given, so the point at a workload's own SLO is the row of the
inference table the plan was solved with.

:func:`scenario_curves` does that for each serving workload of a scenario and each of
its hardware types, over :data:`DEFAULT_INTERACTIVITY` plus the workload's own SLO;
``planner curve`` (:mod:`planner.analysis.curves`) and the workbook's Curves sheet show
these points.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from planner import deadline
from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.perf.efficiency import Efficiency, EfficiencyTable, resolve_efficiency
from planner.perf.inference import _efficiency_source, serve
from planner.perf.serving import ServingCase, ServingResult, served_label
from planner.perf.workloads import serving_workloads
from planner.scenario.resolve import hardware_specs, model_specs
from planner.scenario.schema import Scenario

DEFAULT_INTERACTIVITY: tuple[float, ...] = tuple(float(v) for v in range(10, 201, 10))
"""Required tok/s/user of a curve by default: 10, 20, ..., 200."""

SCENARIO_CURVE_COLUMNS = [
    "workload",
    "hardware",
    "model",
    "precision",
    "interactivity_tokens_per_s_per_user",
    "slo_point",
    "servable",
    "reason",
    "layout",
    "replica_accelerators",
    "batch",
    "tokens_per_s_per_user",
    "output_tokens_per_s_per_accelerator",
    "output_tokens_per_s_per_unit",
    "ttft_s",
    "binding",
    # the serving case of the workload (the same on each of its rows)
    "input_tokens_per_request",
    "output_tokens_per_request",
    "kv_precision",
    "cache_hit_rate",
    "context_tokens",
    "tokens_per_step",
    "slo_tokens_per_s_per_user",
    "slo_ttft_s",
]


def serve_curve(
    model: ModelSpec,
    hw: HardwareSpec,
    case: ServingCase,
    interactivity: Iterable[float],
    efficiency: Efficiency,
) -> list[ServingResult]:
    """``case`` served on ``hw`` at each required decode speed (tok/s/user) of
    ``interactivity``, in order; the rest of ``case`` is kept."""
    return [
        serve(model, hw, replace(case, slo_tokens_per_s_per_user=float(speed)), efficiency)
        for speed in interactivity
    ]


def with_point(points: Sequence[float], slo: float) -> list[float]:
    """``points`` with ``slo`` added, ascending, without repeats."""
    return sorted({float(p) for p in points} | {float(slo)})


def scenario_curves(
    scenario: Scenario,
    interactivity: Sequence[float] = DEFAULT_INTERACTIVITY,
    efficiency: Efficiency | EfficiencyTable | None = None,
    calibration_path: str | Path | None = None,
    hardware_for: Mapping[str, Collection[str]] | None = None,
) -> pd.DataFrame:
    """One row per (serving workload, scenario hardware, point), :data:`SCENARIO_CURVE_COLUMNS`.

    ``hardware_for``: workload name → the hardware ids to draw for it (default: every
    scenario hardware for every workload; see :func:`curve_selection`).

    The points are ``interactivity`` plus the workload's ``slo_tokens_per_s_per_user``
    (``slo_point`` True on that row). Throughputs are output tokens/s (prefill
    included, colocated), per accelerator and per unit (``× accelerators / g``, as the
    inference table); unservable points have zeros and a ``reason``. ``ttft_s``: the
    chosen configuration's mean time to first token. ``efficiency`` /
    ``calibration_path``: as :func:`planner.perf.inference.inference_table` (default:
    the scenario's ``calibration``, else the shipped calibration).
    """
    source = _efficiency_source(scenario, efficiency, calibration_path)
    hardware = hardware_specs(scenario)
    models = model_specs(scenario)
    rows = []
    for workload in serving_workloads(scenario):
        model = models[workload.model]
        case = ServingCase.from_workload(workload)
        slo = workload.slo_tokens_per_s_per_user
        points = with_point(interactivity, slo)
        shape = {
            "input_tokens_per_request": case.input_tokens_per_request,
            "output_tokens_per_request": case.output_tokens_per_request,
            "kv_precision": case.kv_precision,
            "cache_hit_rate": case.cache_hit_rate,
            "context_tokens": case.context_tokens or float(model.max_context_tokens),
            "tokens_per_step": case.tokens_per_step,
            "slo_tokens_per_s_per_user": slo,
            "slo_ttft_s": case.slo_ttft_s,
        }
        chosen = None if hardware_for is None else set(hardware_for.get(workload.name, ()))
        for hw in hardware.values():
            if chosen is not None and hw.id not in chosen:
                continue
            deadline.check("the throughput-interactivity curves")
            efficiency_here = resolve_efficiency(source, hw.family, case.precision)
            results = serve_curve(model, hw, case, points, efficiency_here)
            for speed, result in zip(points, results, strict=True):
                rows.append(
                    {
                        "workload": workload.name,
                        "hardware": hw.id,
                        "model": model.id,
                        "precision": served_label(hw, workload.precision),
                        "interactivity_tokens_per_s_per_user": speed,
                        "slo_point": speed == float(slo),
                        "servable": result.servable,
                        "reason": result.reason,
                        "layout": result.layout,
                        "replica_accelerators": result.replica_accelerators,
                        "batch": result.batch,
                        "tokens_per_s_per_user": result.tokens_per_s_per_user,
                        "output_tokens_per_s_per_accelerator": (
                            result.output_tokens_per_s_per_accelerator
                        ),
                        "output_tokens_per_s_per_unit": result.per_unit(hw)[
                            "output_tokens_per_s_per_unit"
                        ],
                        "ttft_s": result.ttft_s,
                        "binding": result.binding,
                        **shape,
                    }
                )
    frame = pd.DataFrame(rows, columns=SCENARIO_CURVE_COLUMNS)
    return frame.astype(
        {"servable": bool, "slo_point": bool, "replica_accelerators": int, "batch": int}
    )


CURVE_POINT_BUDGET = 1_500
"""Most curve points a workbook draws for every (workload, hardware) pair: about 5 s of
perf model (about 3.5 ms a point with time-shared batches, :mod:`planner.perf.frontier`;
1.2 ms before; measured on baseline). Above it, :func:`curve_selection` keeps the
hardware the plan serves each workload with; L-size benchmark scenarios have 16,032
points, XL 39,420."""


def curve_selection(
    scenario: Scenario,
    served_by: Mapping[str, Collection[str]],
    interactivity: Sequence[float] = DEFAULT_INTERACTIVITY,
    budget: int = CURVE_POINT_BUDGET,
) -> tuple[dict[str, set[str]] | None, str]:
    """Which hardware a workbook's Curves sheet draws per workload, and a note saying so.

    Every scenario hardware for every serving workload while the points (workloads ×
    hardware × (grid + 1)) fit in ``budget``; otherwise, for each workload, the hardware
    ``served_by`` lists (the plan's assignment), so the sheet stays quick to write and
    shows the curves the plan rests on. ``planner curve`` draws any other pair.
    """
    workloads = [w.name for w in serving_workloads(scenario)]
    pairs = len(workloads) * len(scenario.hardware)
    points = pairs * (len(interactivity) + 1)
    if points <= budget:
        return None, "Hardware: every candidate of the scenario, for every workload."
    chosen = {w: set(served_by.get(w, ())) for w in workloads}
    kept = sum(len(v) for v in chosen.values())
    note = (
        f"Hardware: for each workload, the types the plan serves it with ({kept} of "
        f"{pairs} workload-hardware pairs): all pairs would be {points:,} points, over "
        f"the {budget:,} a workbook draws; `planner curve` prints any other pair."
    )
    return chosen, note
