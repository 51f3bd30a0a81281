"""Inference throughput at a latency SLO: replica, batch, decode and prefill rates (DESIGN 4.2).

The physics (KV bytes, replica memory, decode step, prefill cost) is in
:mod:`planner.perf.roofline`; this module searches the serving configuration and
builds the table the optimiser reads.

For one (model, hardware, workload):

1. Layouts (:mod:`planner.perf.layouts`): ``TPg`` inside the scale-up domain and, for
   MoE, ``DEPg`` expert parallel, across domains over scale-out where the part has one;
   those whose per-accelerator weights plus one full-context sequence fit. None → not
   servable.
2. For each layout, the batch: the largest ``B`` with ``1 / t_step(B) ≥ SLO`` and the
   KV of ``B`` sequences at ``L`` beside the weights in ``0.9 ·`` memory — or, better,
   a mean concurrency between two whole batches: under continuous batching a replica
   time-shares between them, on the chord of their (concurrency, throughput) points
   with a mean speed (decode rate over mean concurrency) of exactly the SLO
   (:mod:`planner.perf.frontier`; the ``batch`` column is then the rounded mean).
   Not with a TTFT SLO (chunks are sized per whole batch) nor a fixed benchmark
   concurrency; the disaggregated decode pool time-shares without prefill either way.
   ``L = n_in + n_out / 2`` is the mean context over a request's decode
   (``n_in = input_tokens_per_output_token · output_tokens_per_request``).
   Memory is sized at the mean context because a paged KV cache under continuous
   batching holds each sequence at its current length.
3. Colocated serving: replica-seconds per output token
   ``1 / decode_tput + r_in · (1 − h) · t_prefill_per_token``; the chosen layout is the
   one with the most output tokens/s per accelerator (ties: the earlier, so single-domain
   first). The row's replica, layout, batch, speed and binding describe it.
   With ``slo_ttft_s`` the prompts are pushed through a chunked-prefill budget per
   decode step instead (:mod:`planner.perf.ttft`), and a configuration counts only if
   its TTFT meets the target too; ``ttft_s`` is the TTFT of the chosen configuration.
4. Disaggregated serving uses ``decode_tokens_per_s_per_unit`` (the best decode-only
   configuration, whose ``g`` may differ from the colocated one) and
   ``prefill_tokens_per_s_per_unit`` as separate capacities; with ``slo_ttft_s`` the
   prefill rate is that of a pool run at the utilisation meeting it (``prefill_ttft_s``).

Per unit = per replica × ``accelerators_per_unit / g`` (a replica larger than a unit
spans several units). The ``precision`` column names what is served: the workload's
precision where the part has native units, else weight-only quantisation (``w4a8``: fp4
weights on fp8 tensor cores; ``w8a16``), never a precision the part cannot compute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from planner import deadline
from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.catalog.software import software_stacks
from planner.errors import InputError, Problem
from planner.perf.efficiency import (
    BUILTIN_PRIORS,
    Efficiency,
    EfficiencyTable,
    calibration_table,
    default_calibration,
    load_calibration,
    resolve_efficiency,
)
from planner.perf.frontier import Frontier, Mix, best_at_speed, frontier
from planner.perf.layouts import (
    Layout,
    candidate_layouts,
    decode_step,
    fits,
    memory_batch_limit,
)
from planner.perf.roofline import (
    DecodeStep,
    experts_touched,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    prefill_seconds_per_token,
    replica_size,
)
from planner.perf.serving import (
    ServingCase,
    ServingResult,
    not_servable,
    running_sequence_cap,
    served_label,
)
from planner.perf.ttft import (
    Prefill,
    best_chunked,
    queueing_factor,
    time_shared_ttft_s,
    utilisation_for,
)
from planner.perf.workloads import serving_workloads
from planner.scenario.resolve import hardware_specs, model_specs
from planner.scenario.schema import Scenario
from planner.units import NO_CALIBRATION

__all__ = [
    "INFERENCE_COLUMNS",
    "ServingCase",
    "ServingResult",
    "experts_touched",
    "inference_table",
    "kv_bytes_per_sequence",
    "kv_bytes_per_token",
    "replica_size",
    "serve",
    "served_label",
]

INFERENCE_COLUMNS = [
    "workload",
    "hardware",
    "model",
    "precision",
    "servable",
    "reason",
    "replica_accelerators",
    "batch",
    "tokens_per_s_per_user",
    "decode_tokens_per_s_per_replica",
    "output_tokens_per_s_per_unit",
    "decode_tokens_per_s_per_unit",
    "prefill_tokens_per_s_per_unit",
    "binding",
    "layout",
    "ttft_s",
    "prefill_ttft_s",
    "software",
]


def _largest_batch(step: DecodeStep, limit: int, slo: float, tokens_per_step: float) -> int:
    """Largest ``B`` in [1, limit] with ``τ / t_step(B) ≥ slo`` (0 if even B = 1 misses),
    ``τ`` the tokens a sequence emits per step.

    ``t_step`` rises with ``B``, so the per-user speed falls: bisect.
    """
    longest = tokens_per_step / slo
    if step.seconds(1) > longest:
        return 0
    if step.seconds(limit) <= longest:
        return limit
    low, high = 1, limit  # t(low) ≤ 1/slo < t(high)
    while high - low > 1:
        mid = (low + high) // 2
        if step.seconds(mid) <= longest:
            low = mid
        else:
            high = mid
    return low


@dataclass(frozen=True)
class _Config:
    layout: Layout
    batch: int
    step_s: float
    binding: str
    colocated_per_accelerator: float
    decode_per_replica: float
    colocated_per_replica: float
    ttft_s: float = 0.0
    speed: float = 0.0
    """Tokens/s per user when time-shared (exactly the SLO); 0: ``τ / step_s``."""

    @property
    def g(self) -> int:
        return self.layout.accelerators


def _case_step(
    case: ServingCase, model: ModelSpec, hw: HardwareSpec, layout: Layout, efficiency: Efficiency
) -> DecodeStep:
    """The decode step of ``case`` on ``layout`` at the case's mean decode context."""
    return decode_step(
        model,
        hw,
        layout,
        case.precision,
        case.kv_precision,
        case.mean_decode_context,
        efficiency,
        case.draft_tokens,
    )


def _prepare(
    model: ModelSpec, hw: HardwareSpec, case: ServingCase, layout: Layout, efficiency: Efficiency
) -> tuple[DecodeStep, int]:
    """The decode step of ``layout`` and the largest batch it runs: what its memory holds,
    at most the engine's running-sequence cap per scheduler (one per replica, one per
    attention data-parallel rank of a DEP replica: ``g / attention_tp``)."""
    limit = memory_batch_limit(
        model, hw, layout, case.precision, case.kv_precision, case.mean_decode_context
    )
    schedulers = layout.accelerators // layout.attention_group if layout.kind == "DEP" else 1
    cap = running_sequence_cap(hw, case.max_running_sequences)
    return _case_step(case, model, hw, layout, efficiency), min(limit, cap * schedulers)


def _configure(
    model: ModelSpec,
    hw: HardwareSpec,
    case: ServingCase,
    layout: Layout,
    efficiency: Efficiency,
    prefill_s_per_token: float,
    beat: float = 0.0,
    prepared: tuple[DecodeStep, int] | None = None,
) -> tuple[_Config | None, float]:
    """The best batch of ``layout``, or None with the batch-1 speed (tokens/s/user).

    None also when even the largest batch memory allows gives no more than ``beat``
    colocated tokens/s per accelerator (throughput rises with the batch, so no batch the
    SLO allows could): the search then skips the layout. With a TTFT SLO the chunked
    configuration competes with the time-shared one, which counts for colocated serving
    only if its own TTFT meets the SLO (else it keeps its decode rate, colocated 0).
    ``prepared``: the layout's decode step and memory batch limit, if known.
    """
    g = layout.accelerators
    step, memory_limit = prepared or _prepare(model, hw, case, layout, efficiency)
    tau = case.tokens_per_step
    batch_one_speed = tau / step.seconds(1)
    if memory_limit < 1:
        return None, batch_one_speed
    prefill_share = case.input_per_output * (1.0 - case.cache_hit_rate)

    def colocated_per_accelerator(batch: int, step_s: float) -> float:
        return 1.0 / (step_s / (batch * tau) + prefill_share * prefill_s_per_token / g) / g

    prefill = Prefill(
        case.uncached_input_tokens, case.output_tokens_per_request, prefill_s_per_token, tau
    )
    chunked = None
    if prefill.uncached_tokens > 0 and case.slo_ttft_s is not None:
        chunked = _configure_chunked(step, layout, case, prefill, memory_limit, beat)
    shared = None
    if beat <= 0 or colocated_per_accelerator(memory_limit, step.seconds(memory_limit)) > beat:
        shared = _configure_time_shared(step, layout, case, prefill, memory_limit)
    decode = shared.decode_per_replica if shared is not None else 0.0
    if shared is not None and shared.ttft_s > (case.slo_ttft_s or math.inf):
        # too slow a first token; its decode rate still serves a disaggregated decode pool
        shared = replace(shared, colocated_per_accelerator=0.0, colocated_per_replica=0.0)
    if chunked is not None and (
        shared is None or chunked.colocated_per_accelerator > shared.colocated_per_accelerator
    ):
        return replace(chunked, decode_per_replica=max(decode, chunked.decode_per_replica)), (
            batch_one_speed
        )
    return shared, batch_one_speed


def _configure_time_shared(
    step: DecodeStep, layout: Layout, case: ServingCase, prefill: Prefill, memory_limit: int
) -> _Config | None:
    """Prefill batches between decode steps: the largest batch meeting the decode SLO,
    replica-seconds per output token ``t_step / (B τ) + r_in (1 − h) p / g``."""
    g, tau = layout.accelerators, case.tokens_per_step
    if case.concurrency_per_accelerator is not None:
        batch = min(max(1, round(g * case.concurrency_per_accelerator)), memory_limit)
    elif case.slo_tokens_per_s_per_user is None:
        batch = memory_limit
    else:
        batch = _largest_batch(step, memory_limit, case.slo_tokens_per_s_per_user, tau)
        if batch == 0:
            return None
    step_s = step.seconds(batch)
    binding = "memory capacity" if batch == memory_limit else step.binding(batch)
    decode = batch * tau / step_s
    prefill_share = case.input_per_output * (1.0 - case.cache_hit_rate)
    colocated = 1.0 / (step_s / (batch * tau) + prefill_share * prefill.seconds_per_token / g)
    ttft = time_shared_ttft_s(prefill, g, batch, step_s)
    return _Config(layout, batch, step_s, binding, colocated / g, decode, colocated, ttft)


def _configure_chunked(
    step: DecodeStep,
    layout: Layout,
    case: ServingCase,
    prefill: Prefill,
    memory_limit: int,
    beat: float,
) -> _Config | None:
    """The best chunk budget and batch of ``layout`` under both SLOs
    (:func:`planner.perf.ttft.best_chunked`); None when none meets them or when even
    decode alone at the memory limit gives no more than ``beat`` per accelerator."""
    g, tau = layout.accelerators, case.tokens_per_step
    if beat > 0 and memory_limit * tau / step.seconds(memory_limit) / g <= beat:
        return None
    fixed = None
    if case.concurrency_per_accelerator is not None:
        fixed = min(max(1, round(g * case.concurrency_per_accelerator)), memory_limit)
    slo_ttft = math.inf if case.slo_ttft_s is None else case.slo_ttft_s
    chunked, _ = best_chunked(
        step, prefill, memory_limit, case.slo_tokens_per_s_per_user, slo_ttft, fixed
    )
    if chunked is None:
        return None
    batch = chunked.batch
    binding = "memory capacity" if batch == memory_limit else step.binding(batch)
    output = chunked.output_tokens_per_s(tau)
    return _Config(
        layout,
        batch,
        chunked.step_s,
        binding,
        output / g,
        batch * tau / step.seconds(batch),
        output,
        chunked.ttft_s,
    )


def _layouts(model: ModelSpec, hw: HardwareSpec, case: ServingCase, context: float) -> list[Layout]:
    """Layouts holding the weights and one ``context``-token sequence; single-domain ones
    not past one purchased unit unless the smallest that fits already is; pipelined
    ones only when no single-domain one fits."""
    fitting = [
        layout
        for layout in candidate_layouts(model, hw)
        if fits(model, hw, layout, case.precision, case.kv_precision, context)
    ]
    if not fitting:
        return []
    if any(x.pipeline == 1 and x.domains == 1 for x in fitting):
        # pipeline stages only where no single-domain replica holds the weights
        fitting = [x for x in fitting if x.pipeline == 1]
    smallest = min(layout.accelerators for layout in fitting)
    cap = max(smallest, hw.accelerators)
    return [x for x in fitting if x.domains > 1 or x.accelerators <= cap]


def serve(
    model: ModelSpec, hw: HardwareSpec, case: ServingCase, efficiency: Efficiency
) -> ServingResult:
    """Throughput of ``model`` on ``hw`` for ``case``: the best layout and batch.

    The layout with the most colocated output tokens/s per accelerator wins (cost per
    token on one hardware type is proportional to accelerators); on ties the earlier
    candidate, so a replica spans scale-up domains only when that is strictly better.
    """
    served = hw.served_precision(case.precision)
    request_tokens = case.input_tokens_per_request + case.output_tokens_per_request
    if request_tokens > model.max_context_tokens:
        return not_servable(
            f"requests of {request_tokens:,.0f} tokens (input + output) exceed the model's "
            f"{model.max_context_tokens:,}-token context",
            "context length",
        )
    if served is None:
        return not_servable(f"no {case.precision} or wider compute", "compute")
    context = max(case.context_tokens or model.max_context_tokens, request_tokens)
    layouts = _layouts(model, hw, case, context)
    if not layouts:
        size = replica_size(model, hw, case.precision, case.kv_precision, context)
        return not_servable(size.reason or "no layout holds the weights", "memory capacity")
    prefill_s = prefill_seconds_per_token(
        model, hw, case.precision, case.input_tokens_per_request, case.cache_hit_rate, efficiency
    )
    prefill_per_accelerator, prefill_ttft = _prefill_pool(case, layouts, prefill_s)
    smallest = min(x.accelerators for x in layouts)
    if hw.prefill_only:
        return replace(
            not_servable(
                "prefill-only part: serves prefill in disaggregated serving, not decode",
                "prefill only",
                smallest,
                prefill_per_accelerator,
            ),
            prefill_ttft_s=prefill_ttft,
        )
    best: _Config | None = None
    fastest, best_decode = 0.0, 0.0
    prepared = [(layout, *_prepare(model, hw, case, layout, efficiency)) for layout in layouts]
    for layout, step, limit in prepared:
        beat = best.colocated_per_accelerator if best is not None else 0.0
        config, batch_one_speed = _configure(
            model, hw, case, layout, efficiency, prefill_s, beat, (step, limit)
        )
        fastest = max(fastest, batch_one_speed)
        if config is None:
            continue
        best_decode = max(best_decode, config.decode_per_replica / config.g)
        if config.colocated_per_accelerator > 0 and (
            best is None or config.colocated_per_accelerator > best.colocated_per_accelerator
        ):
            best = config
    decode_mix = _envelope_point(case, prefill_s, prepared, best_decode, decode=True)
    if decode_mix is not None:
        best_decode = max(best_decode, decode_mix.per_accelerator)
    ttft_missed = best is None and best_decode > 0  # the decode SLO holds, the TTFT one not
    if ttft_missed and case.slo_ttft_s is not None:
        lowest = _lowest_ttft(model, hw, case, layouts, efficiency, prefill_s)
        return replace(
            not_servable(
                f"TTFT SLO of {case.slo_ttft_s:,.4g} s unreachable at "
                f"{case.slo_tokens_per_s_per_user or 0.0:,.4g} tok/s/user: the fastest "
                f"chunked prefill of {case.uncached_input_tokens:,.0f} prompt tokens "
                f"takes {lowest:,.3g} s",
                "latency",
                smallest,
                prefill_per_accelerator,
            ),
            decode_tokens_per_s_per_accelerator=best_decode,
            prefill_ttft_s=prefill_ttft,
        )
    if best is None:
        slo = case.slo_tokens_per_s_per_user or 0.0
        return replace(
            not_servable(
                f"SLO of {slo:,.4g} tok/s/user unreachable: batch 1 gives {fastest:,.0f}",
                "latency",
                smallest,
                prefill_per_accelerator,
            ),
            prefill_ttft_s=prefill_ttft,
        )
    mix = _envelope_point(case, prefill_s, prepared, best.colocated_per_accelerator)
    if mix is not None:
        best = _mixed_config(model, hw, case, efficiency, prefill_s, mix)
    return ServingResult(
        servable=True,
        reason="",
        replica_accelerators=best.g,
        batch=best.batch,
        tokens_per_s_per_user=best.speed or case.tokens_per_step / best.step_s,
        decode_tokens_per_s_per_replica=best.decode_per_replica,
        output_tokens_per_s_per_replica=best.colocated_per_replica,
        prefill_tokens_per_s_per_accelerator=prefill_per_accelerator,
        decode_tokens_per_s_per_accelerator=best_decode,
        binding=best.binding,
        layout=best.layout.label,
        served_precision=served,
        ttft_s=best.ttft_s,
        prefill_ttft_s=prefill_ttft,
    )


def _envelope_point(
    case: ServingCase,
    prefill_s: float,
    prepared: list[tuple[Layout, DecodeStep, int]],
    beat: float,
    decode: bool = False,
) -> Mix | None:
    """The frontier (:mod:`planner.perf.frontier`) at the case's decode SLO where it
    beats ``beat`` tokens/s per accelerator (the whole-batch search's best): of
    time-shared colocated serving (not with a TTFT SLO, whose chunk budget is sized per
    whole batch), or with ``decode`` of a disaggregated decode pool (no prefill, so a
    TTFT SLO does not bind it). None with a fixed benchmark concurrency or no SLO.
    ``prepared``: each layout with its decode step and memory batch limit."""
    slo = case.slo_tokens_per_s_per_user
    if slo is None or case.concurrency_per_accelerator is not None:
        return None
    if case.slo_ttft_s is not None and not decode:
        return None
    share = 0.0 if decode else case.input_per_output * (1.0 - case.cache_hit_rate) * prefill_s
    rows = tuple((layout, step, limit) for layout, step, limit in prepared if limit >= 1)
    if not rows:
        return None
    front = _frontier(rows, case.tokens_per_step, share)
    mix = best_at_speed(front, slo, beat)
    return mix if mix is not None and mix.per_accelerator > beat * (1 + 1e-9) else None


@lru_cache(maxsize=1024)
def _frontier(
    rows: tuple[tuple[Layout, DecodeStep, int], ...], tokens_per_step: float, share: float
) -> Frontier:
    """:func:`planner.perf.frontier.frontier` of ``rows`` (layout, step, memory limit),
    cached: every point of a curve asks for the same one."""
    layouts, steps, limits = zip(*rows, strict=True)
    return frontier(steps, layouts, limits, tokens_per_step, share)


def _mixed_config(
    model: ModelSpec,
    hw: HardwareSpec,
    case: ServingCase,
    efficiency: Efficiency,
    prefill_s: float,
    mix: Mix,
) -> _Config:
    """A frontier point as a configuration: batch (rounded), decode rate and TTFT are the
    time-weighted ones of its two whole-batch points; the binding is the larger batch's."""
    layout, tau = mix.high.layout, case.tokens_per_step
    g = layout.accelerators
    prefill = Prefill(case.uncached_input_tokens, case.output_tokens_per_request, prefill_s, tau)
    weights = (mix.share, 1.0 - mix.share)
    pair = (mix.low, mix.high)
    decode = sum(w * p.batch * tau / p.step_s for w, p in zip(weights, pair, strict=True))
    ttft = sum(
        w * time_shared_ttft_s(prefill, g, p.batch, p.step_s)
        for w, p in zip(weights, pair, strict=True)
    )
    step = _case_step(case, model, hw, layout, efficiency)
    limit = memory_batch_limit(
        model, hw, layout, case.precision, case.kv_precision, case.mean_decode_context
    )
    return _Config(
        layout=layout,
        batch=max(1, round(mix.mean_batch)),
        step_s=tau / mix.speed,
        binding="memory capacity" if mix.high.batch == limit else step.binding(mix.high.batch),
        colocated_per_accelerator=mix.per_accelerator,
        decode_per_replica=decode,
        colocated_per_replica=mix.per_accelerator * g,
        ttft_s=ttft,
        speed=mix.speed,
    )


def _prefill_pool(
    case: ServingCase, layouts: list[Layout], prefill_s: float
) -> tuple[float, float]:
    """``(uncached tokens/s per accelerator, TTFT s)`` of a disaggregated prefill replica:
    the widest single-domain layout, ``S = U · p / g``; with a TTFT SLO it runs at the
    utilisation :func:`~planner.perf.ttft.utilisation_for` allows (0 tokens/s when
    ``S`` alone misses it), else flat out (TTFT reported as ``S``)."""
    inside = [x.accelerators for x in layouts if x.domains == 1]
    g = max(inside) if inside else min(x.accelerators for x in layouts)
    service = case.uncached_input_tokens * prefill_s / g
    if case.slo_ttft_s is None or service <= 0:
        return 1.0 / prefill_s, service
    rho = utilisation_for(service, case.slo_ttft_s)
    return rho / prefill_s, service * queueing_factor(rho) if rho > 0 else service


def _lowest_ttft(
    model: ModelSpec,
    hw: HardwareSpec,
    case: ServingCase,
    layouts: list[Layout],
    efficiency: Efficiency,
    prefill_s: float,
) -> float:
    """The lowest colocated TTFT of any layout and chunk budget at batch 1."""
    prefill = Prefill(
        case.uncached_input_tokens, case.output_tokens_per_request, prefill_s, case.tokens_per_step
    )
    lowest = math.inf
    for layout in layouts:
        step = _case_step(case, model, hw, layout, efficiency)
        _, low = best_chunked(step, prefill, 1, None, 0.0, fixed_batch=1)
        lowest = min(lowest, low)
    return lowest


def _efficiency_source(
    scenario: Scenario,
    efficiency: Efficiency | EfficiencyTable | None,
    calibration_path: str | Path | None,
) -> Efficiency | EfficiencyTable:
    """``efficiency`` if given, else ``calibration_path``, else the scenario's
    ``calibration``, else the shipped default calibration (``"none"``: the built-in priors)."""
    if efficiency is not None:
        return efficiency
    if calibration_path is not None:
        return calibration_table(calibration_path)
    if scenario.calibration == NO_CALIBRATION:
        return BUILTIN_PRIORS
    if scenario.calibration is not None:
        path = Path(scenario.calibration)
        if not path.is_file():
            raise InputError(
                None,
                Problem(
                    path="calibration",
                    message="calibration file not found",
                    found=str(path),
                    hint="load_scenario resolves it against the scenario file; check the path",
                ),
            )
        return load_calibration(path)
    return default_calibration()


SCALED_COLUMNS = [
    "decode_tokens_per_s_per_replica",
    "output_tokens_per_s_per_unit",
    "decode_tokens_per_s_per_unit",
    "prefill_tokens_per_s_per_unit",
]
"""Throughput columns ``throughput_scale.inference`` multiplies."""


def inference_table(
    scenario: Scenario,
    efficiency: Efficiency | EfficiencyTable | None = None,
    calibration_path: str | Path | None = None,
) -> pd.DataFrame:
    """One row per (serving workload, scenario hardware), columns ``INFERENCE_COLUMNS``.

    ``efficiency``: fixed factors for every row, or a table looked up per hardware
    family and precision; default: ``calibration_path`` (``"none"``: the built-in priors,
    :data:`~planner.perf.efficiency.BUILTIN_PRIORS`), else the scenario's ``calibration``
    key (which load_scenario resolves against the scenario file), else the shipped
    calibration (:func:`~planner.perf.efficiency.default_calibration`).
    Non-servable rows have ``servable`` False, a ``reason``, batch 0 and zero
    throughputs, except ``prefill_tokens_per_s_per_unit``, which is positive whenever a
    replica holds the weights (prefill-only parts; SLO misses; ``replica_accelerators``
    is then the smallest replica, else 0). Throughputs are tokens/s, never NaN or negative.

    ``binding`` of a servable row: ``memory capacity`` (the KV cache stopped the batch),
    else the term that dominates the decode step at the chosen batch: ``bandwidth``,
    ``compute`` or ``interconnect``. Of a non-servable row, what failed: ``memory
    capacity`` (weights + one sequence do not fit), ``latency`` (SLO unreachable),
    ``prefill only``, ``context length`` or ``compute`` (no compute at the precision).
    The rates (:data:`SCALED_COLUMNS`) are multiplied by the scenario's
    ``throughput_scale.inference`` (1: as modelled) and by the factor of the software
    stack the row's vendor runs (:mod:`planner.catalog.software`; the scenario's
    ``software`` choice, else the vendor's default, factor 1), which ``software`` names.
    """
    source = _efficiency_source(scenario, efficiency, calibration_path)
    hardware = hardware_specs(scenario)
    models = model_specs(scenario)
    stacks = software_stacks()
    rows, factors = [], []
    for workload in serving_workloads(scenario):
        deadline.check("the perf model (inference table)")
        model = models[workload.model]
        case = ServingCase.from_workload(workload)
        for hw in hardware.values():
            result = serve(model, hw, case, resolve_efficiency(source, hw.family, case.precision))
            stack = stacks.stack(hw.vendor, scenario.software.get(hw.vendor))
            factors.append(1.0 if stack is None else stack.factor(model.is_moe))
            rows.append(
                {
                    "workload": workload.name,
                    "hardware": hw.id,
                    "model": model.id,
                    "precision": served_label(hw, workload.precision),
                    "servable": result.servable,
                    "reason": result.reason,
                    "replica_accelerators": result.replica_accelerators,
                    "batch": result.batch,
                    "tokens_per_s_per_user": result.tokens_per_s_per_user,
                    "decode_tokens_per_s_per_replica": result.decode_tokens_per_s_per_replica,
                    **result.per_unit(hw),
                    "binding": result.binding,
                    "layout": result.layout,
                    "ttft_s": result.ttft_s,
                    "prefill_ttft_s": result.prefill_ttft_s,
                    "software": "as modelled (no stacks listed)"
                    if stack is None
                    else stack.label(),
                }
            )
    frame = pd.DataFrame(rows, columns=INFERENCE_COLUMNS)
    numeric = [c for c in INFERENCE_COLUMNS[8:] if c not in ("binding", "layout", "software")]
    frame[numeric] = frame[numeric].astype(float)
    _check_finite(frame, numeric)
    scale = np.asarray(factors, dtype=float) * scenario.throughput_scale.inference
    frame[SCALED_COLUMNS] = frame[SCALED_COLUMNS].mul(scale, axis=0)
    return frame.astype({"servable": bool, "replica_accelerators": int, "batch": int})


def _check_finite(frame: pd.DataFrame, columns: list[str]) -> None:
    values = frame[columns].to_numpy(dtype=float)
    if values.size and not (np.isfinite(values).all() and (values >= 0).all()):
        raise AssertionError("inference table has a negative or non-finite throughput")
