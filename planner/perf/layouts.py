"""Parallel layouts of a serving replica and the decode step of each (DESIGN 4.2).

A layout says how one replica spreads over accelerators:

* ``TPg`` — tensor parallel over ``g`` accelerators inside one scale-up domain: every
  weight matrix (experts too) split ``g`` ways, two all-reduces per layer. The KV cache
  splits by KV head; MLA's single latent is replicated on all ``g`` (GQA with fewer KV
  heads than ``g`` is assumed to split the rest by layer, as pipeline stages do).
* ``DEPg`` — MoE only: attention data parallel (each accelerator holds the attention and
  shared weights and its own sequences' KV), experts expert-parallel over ``g``
  accelerators, a dispatch and a combine all-to-all per layer. ``g`` may exceed the
  scale-up domain: ``DEP32 over 4 nodes`` spans four 8-GPU servers, and the share
  ``(g − D) / (g − 1)`` of all-to-all traffic leaving a domain of ``D`` accelerators
  crosses the scale-out network (``scale_out_gbps``, ``scale_out_latency_us``).
  ``DEP64, TP8 attention`` splits each attention group over 8 accelerators (shared
  weights read 8 times fewer per accelerator, MLA latent replicated 8 times, one more
  pair of all-reduces per layer): the middle ground between DEP and TP at high
  interactivity.

* ``TPt PPp over p nodes`` — dense models only, when no single-domain layout holds
  the weights (Llama-3.1-405B at bf16 on 8-GPU servers: 810 GB over 640 GB): ``p``
  pipeline stages, one per scale-up domain, each tensor parallel over its ``t = D``
  accelerators and holding ``layers / p`` layers. ``p`` micro-batches of ``B / p``
  sequences keep every stage busy: a sequence's token goes through all stages in turn,
  so its step is the sum over stages, ``t_step(B) = p · t_stage(B / p) + p · t_p2p``,
  where ``t_stage`` reads the stage's weights (``W / (t p)`` per accelerator) and the
  micro-batch's KV, and ``t_p2p`` sends the micro-batch's activations
  (``hidden · 2`` bytes per token) to the next stage over scale-out (its latency plus
  bytes / bandwidth). Summed: the weights read per token are ``W / t`` per accelerator
  (as a ``TPt`` replica of the whole model would), KV, FLOPs and memory are shared over
  all ``t p`` accelerators, the stage all-reduces are ``TPt``'s, plus ``p`` scale-out
  latencies and one activation transfer per token. Assumes ``B ≥ p`` (with fewer
  sequences stages idle, and the step is the same weight read anyway).

Candidate sizes are powers of two from 1 to the scale-up domain (not past one purchased
unit unless memory needs it), plus, for MoE on parts with a scale-out network, whole
domains ``D · 2^j`` up to ``MAX_EXPERT_PARALLEL`` accelerators (none across racks on
NVIDIA rack-scale parts: :func:`expert_parallel_limit`) and no more than the
model's routed experts (one expert per accelerator at least), and for dense models on
such parts ``PIPELINE_STAGES`` stages of a whole domain (used only when nothing
smaller holds the weights: :func:`planner.perf.inference.serve`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from planner.catalog.schema import BYTES_PER_PARAM, HardwareSpec, ModelSpec
from planner.perf.efficiency import Efficiency
from planner.perf.roofline import (
    ACTIVATION_BYTES,
    DEFAULT_SCALE_OUT_LATENCY_US,
    DEFAULT_SCALE_UP_LATENCY_US,
    DecodeStep,
    attention_peak_flops,
    decode_attention_flops_per_token,
    kv_bytes_per_sequence,
    link_bytes_per_s,
    peak_flops,
    power_of_two_sizes,
    weight_bytes,
)
from planner.scenario.checks import USABLE_MEMORY_FRACTION
from planner.units import BILLION, GB, TB

MAX_EXPERT_PARALLEL = 512
"""Largest expert-parallel replica enumerated, accelerators (DeepSeek serves at EP144-320)."""
MICROSECOND = 1e-6
PIPELINE_STAGES = (2, 4, 8)
"""Pipeline stages tried for a dense model too large for one scale-up domain."""
ATTENTION_TP = (1, 2, 8)
"""Attention tensor-parallel sizes tried inside DEP layouts (below the replica and domain
size): splitting attention reads the shared weights and MLA latent fewer times per
accelerator, at the price of replicating the latent within the group."""


@dataclass(frozen=True)
class Layout:
    """How one replica spreads over ``accelerators``: ``TP`` or ``DEP`` (see module doc)."""

    kind: str
    """``TP`` or ``DEP``."""
    accelerators: int
    domains: int
    """Scale-up domains the replica spans (1: it stays on the scale-up fabric)."""
    domain_word: str = "nodes"
    attention_tp: int = 1
    """DEP: accelerators that split each attention group's heads (1: pure data parallel)."""
    pipeline: int = 1
    """TP: pipeline stages, one per scale-up domain (1: no pipeline)."""

    @property
    def attention_group(self) -> int:
        """Accelerators sharing one sequence's attention: ``g`` for TP, ``attention_tp``
        for DEP."""
        return self.accelerators if self.kind == "TP" else self.attention_tp

    @property
    def label(self) -> str:
        """``TP8``, ``TP8 PP2 over 2 nodes``, ``DEP64``, ``DEP32 over 4 nodes`` or
        ``DEP64, TP8 attention``."""
        text = f"{self.kind}{self.accelerators}"
        if self.pipeline > 1:
            text = f"TP{self.accelerators // self.pipeline} PP{self.pipeline}"
        if self.domains > 1:
            text += f" over {self.domains} {self.domain_word}"
        return text + (f", TP{self.attention_tp} attention" if self.attention_tp > 1 else "")


def _domain_word(hw: HardwareSpec) -> str:
    return {"server": "nodes", "rack": "racks"}.get(hw.form, "domains")


def expert_parallel_limit(hw: HardwareSpec) -> int:
    """Widest expert-parallel replica enumerated on ``hw``: one scale-up domain on NVIDIA
    rack-scale parts, else :data:`MAX_EXPERT_PARALLEL` across domains.

    GB200 and GB300 NVL72 and Vera Rubin NVL144 keep an expert-parallel replica inside
    their rack: the published wide-EP deployments on them stay inside one rack
    (SGLang's GB200 NVL72 decode, lmsys.org 2025-06-16), and one rack's NVLink domain
    holds the largest MoE. 8-GPU servers may span servers (DeepSeek's own decode runs
    EP144 over 18 H800 servers, open-source week day 6, 2025-03-01); other parts keep
    the enumeration as it was (no published deployment either way)."""
    nvidia_rack = hw.form == "rack" and hw.vendor == "NVIDIA"
    return hw.scale_up_domain if nvidia_rack else MAX_EXPERT_PARALLEL


def candidate_layouts(model: ModelSpec, hw: HardwareSpec) -> list[Layout]:
    """Every layout to try, single-domain ones first (see module doc)."""
    domain = hw.scale_up_domain
    word = _domain_word(hw)
    inside = power_of_two_sizes(domain)
    layouts = [Layout("TP", g, 1, word) for g in inside]
    if not model.is_moe:
        if hw.scale_out_gbps is not None:
            layouts += [
                Layout("TP", domain * p, p, word, pipeline=p)
                for p in PIPELINE_STAGES
                if p <= model.layers
            ]
        return layouts
    expert_parallel = [(g, 1) for g in inside if g > 1]
    if hw.scale_out_gbps is not None:
        g = domain * 2
        while g <= min(expert_parallel_limit(hw), model.experts or 0):
            expert_parallel.append((g, g // domain))
            g *= 2
    for g, domains in expert_parallel:
        for t in ATTENTION_TP:
            if t == 1 or (t < g and t <= domain):
                layouts.append(Layout("DEP", g, domains, word, attention_tp=t))
    return layouts


@lru_cache(maxsize=4096)
def _kv_bytes(model: ModelSpec, kv_precision: str, context_tokens: float) -> float:
    """``kv_bytes_per_sequence`` as a float, cached: every layout of a case asks for it."""
    return float(kv_bytes_per_sequence(model, context_tokens, kv_precision))


@lru_cache(maxsize=4096)
def _attention_flops(model: ModelSpec, context_tokens: float) -> float:
    return float(decode_attention_flops_per_token(model, context_tokens))


def kv_replication(model: ModelSpec, layout: Layout) -> float:
    """Copies of each KV entry a layout keeps: MLA's latent on every accelerator of the
    attention group, else 1 (heads split)."""
    return float(layout.attention_group) if model.uses_mla else 1.0


def weight_bytes_per_accelerator(model: ModelSpec, layout: Layout, precision: str) -> float:
    """TP: ``weights / g``; DEP: ``shared / t + experts / g`` (attention and shared
    weights replicated over the ``g / t`` attention groups)."""
    g = layout.accelerators
    if layout.kind == "TP":
        return weight_bytes(model, precision) / g
    b_w = BYTES_PER_PARAM[precision]
    shared = model.shared_params_b * BILLION * b_w
    return shared / layout.attention_tp + (weight_bytes(model, precision) - shared) / g


def kv_bytes_per_sequence_per_accelerator(
    model: ModelSpec, layout: Layout, kv_precision: str, context_tokens: float
) -> float:
    """Mean KV bytes one sequence puts on each accelerator of the replica."""
    kv = _kv_bytes(model, kv_precision, context_tokens)
    return kv * kv_replication(model, layout) / layout.accelerators


def fits(
    model: ModelSpec,
    hw: HardwareSpec,
    layout: Layout,
    precision: str,
    kv_precision: str,
    context_tokens: float,
) -> bool:
    """Weights plus one full-context sequence fit each accelerator's usable memory (a DEP
    sequence lives whole on one accelerator)."""
    kv = _kv_bytes(model, kv_precision, context_tokens)
    per_seq = kv * kv_replication(model, layout) / layout.attention_group
    need = weight_bytes_per_accelerator(model, layout, precision) + per_seq
    return need <= _usable_bytes(hw)


def memory_batch_limit(
    model: ModelSpec,
    hw: HardwareSpec,
    layout: Layout,
    precision: str,
    kv_precision: str,
    context_tokens: float,
) -> int:
    """Largest replica batch whose KV at ``context_tokens`` fits beside the weights."""
    free = _usable_bytes(hw) - weight_bytes_per_accelerator(model, layout, precision)
    per = kv_bytes_per_sequence_per_accelerator(model, layout, kv_precision, context_tokens)
    return int(max(0.0, free) // per) if per > 0 else 0


def _usable_bytes(hw: HardwareSpec) -> float:
    return hw.memory_gb * GB * USABLE_MEMORY_FRACTION


def _all_to_all(
    model: ModelSpec, hw: HardwareSpec, layout: Layout, precision: str, efficiency: Efficiency
) -> tuple[float, float]:
    """``(latency s, s per replica token)`` of dispatch + combine over all layers.

    Each token goes to the ``(g − 1)(1 − (1 − 1/g)^k)`` other accelerators holding its
    experts, ``hidden · (b_dispatch + 2)`` bytes each way (fp8 dispatch with fp8 weights,
    bf16 combine); a share ``(g − D)/(g − 1)`` crosses scale-out. An accelerator sends its
    ``B / g`` tokens; the slower link sets the time.
    """
    g, domain = layout.accelerators, hw.scale_up_domain
    k = model.experts_per_token or 0
    remote = (g - 1) * -float(np.expm1(k * np.log1p(-1.0 / g)))
    bytes_per_token = remote * model.hidden_size * (min(BYTES_PER_PARAM[precision], 2.0) + 2.0)
    outside = max(0.0, (g - domain) / (g - 1))
    up = link_bytes_per_s(hw) * efficiency.eta_comm
    out = (hw.scale_out_gbps or 0.0) * GB * efficiency.eta_comm
    seconds = (1.0 - outside) * bytes_per_token / up
    if outside > 0:
        seconds = max(seconds, outside * bytes_per_token / out)
    latency_us = (
        (hw.scale_out_latency_us or DEFAULT_SCALE_OUT_LATENCY_US)
        if layout.domains > 1
        else (hw.scale_up_latency_us or DEFAULT_SCALE_UP_LATENCY_US)
    )
    return model.layers * 2 * latency_us * MICROSECOND, model.layers * seconds / g


def _all_reduce(
    model: ModelSpec, hw: HardwareSpec, g: int, efficiency: Efficiency
) -> tuple[float, float]:
    """``(latency s, s per token)`` of two ring all-reduces per layer of ``hidden``
    activations: ``2 (g − 1)/g`` of the bytes per accelerator."""
    ring = 2.0 * (g - 1) / g
    link = link_bytes_per_s(hw) * efficiency.eta_comm
    latency_us = hw.scale_up_latency_us or DEFAULT_SCALE_UP_LATENCY_US
    per_token = model.layers * 2 * ring * model.hidden_size * ACTIVATION_BYTES / link
    return model.layers * 2 * latency_us * MICROSECOND, per_token


def _pipeline_terms(
    model: ModelSpec, hw: HardwareSpec, layout: Layout, weights: float, efficiency: Efficiency
) -> tuple[float, float, float]:
    """``(weight bytes read per accelerator per token, latency s, s per token)`` of a
    ``TPt PPp`` replica's step (module doc): ``W / t``; ``TPt``'s all-reduce latency
    plus ``p`` scale-out latencies; its all-reduce bytes over ``p`` (each accelerator
    all-reduces only its stage's layers) plus ``hidden · 2`` bytes per token over the
    scale-out link, ``η_comm`` applied."""
    p = layout.pipeline
    t = layout.accelerators // p
    latency, per_token = _all_reduce(model, hw, t, efficiency) if t > 1 else (0.0, 0.0)
    hop_us = hw.scale_out_latency_us or DEFAULT_SCALE_OUT_LATENCY_US
    out = (hw.scale_out_gbps or 0.0) * GB * efficiency.eta_comm
    transfer = model.hidden_size * ACTIVATION_BYTES / out
    return weights / t, latency + p * hop_us * MICROSECOND, per_token / p + transfer


@lru_cache(maxsize=4096)
def decode_step(
    model: ModelSpec,
    hw: HardwareSpec,
    layout: Layout,
    precision: str,
    kv_precision: str,
    context_tokens: float,
    efficiency: Efficiency,
    draft_tokens: int = 0,
) -> DecodeStep:
    """The :class:`DecodeStep` of ``layout`` at mean context ``L`` (per accelerator);
    ``draft_tokens`` speculated per step (each adds one draft-layer launch).

    Raises ValueError when the hardware has no compute at ``precision`` or wider.
    Cached (every argument is immutable): a throughput-interactivity curve asks for the
    same step at each of its points, only the batch searched changes.
    """
    peak = peak_flops(hw, precision)
    # fp4 serving recipes pair NVFP4 experts with fp8 attention over the fp8 KV cache
    # (SGLang GB200 NVL72 part II, lmsys.org 2025-09-25); otherwise attention runs at bf16
    fp8_attention = precision == "fp4" and kv_precision == "fp8" and hw.is_native("fp8")
    attention_peak = peak_flops(hw, "fp8") if fp8_attention else None
    attention_peak = attention_peak or attention_peak_flops(hw, precision)
    if peak is None or attention_peak is None:
        raise ValueError(f"{hw.id} has no {precision} or wider compute")
    g = layout.accelerators
    b_w = BYTES_PER_PARAM[precision]
    experts = model.experts or 0
    expert_params = model.expert_params_b * BILLION
    dense_params = model.shared_params_b * BILLION if experts else model.total_params_b * BILLION
    fixed = dense_params * b_w / layout.attention_group
    latency, per_token = 0.0, 0.0
    if layout.pipeline > 1:
        fixed, latency, per_token = _pipeline_terms(
            model, hw, layout, dense_params * b_w, efficiency
        )
    elif g > 1:
        if layout.kind == "DEP":
            latency, per_token = _all_to_all(model, hw, layout, precision, efficiency)
        else:
            latency, per_token = _all_reduce(model, hw, g, efficiency)
    if layout.kind == "DEP" and layout.attention_tp > 1:
        # each attention group all-reduces its own tokens: B · t / g of the batch
        t = layout.attention_tp
        group_latency, group_per_token = _all_reduce(model, hw, t, efficiency)
        latency += group_latency
        per_token += group_per_token * t / g
    imbalance = efficiency.expert_imbalance if layout.kind == "DEP" and g > 1 else 1.0
    c = peak * efficiency.eta_c
    return DecodeStep(
        accelerators=g,
        fixed_weight_bytes=fixed,
        expert_weight_bytes=expert_params * b_w / g,
        kv_bytes_per_sequence=kv_bytes_per_sequence_per_accelerator(
            model, layout, kv_precision, context_tokens
        ),
        experts=experts,
        experts_per_token=model.experts_per_token or 0,
        dense_flops_per_token=2.0 * dense_params / g,
        expert_flops_per_row=2.0 * expert_params * imbalance / g,
        attention_flops_per_token=_attention_flops(model, context_tokens) / g,
        bandwidth=hw.memory_tbps * TB * efficiency.eta_bw,
        compute=c,
        expert_compute=c * efficiency.eta_moe,
        attention_compute=attention_peak * efficiency.eta_c,
        comm_latency_s=latency,
        comm_s_per_token=per_token,
        overhead_s=efficiency.t_overhead_s + (model.layers + draft_tokens) * efficiency.t_layer_s,
        query_tokens=1.0 + draft_tokens,
        kv_overlap=efficiency.kv_overlap,
    )
