"""Inference physics: KV cache, replica memory, decode step time and prefill cost (DESIGN 4.2).

Pure functions; SI units inside (bytes, FLOP, FLOP/s, bytes/s, s). Catalog figures
(GB, TB/s, TFLOPS, GB/s) are converted where they enter. Functions whose arguments
are batch sizes or context lengths accept numpy arrays and broadcast.

Symbols: ``b_w``, ``b_kv`` bytes per weight / KV element (``BYTES_PER_PARAM``); ``g``
accelerators in a replica; ``B`` sequences decoded together (batch); ``L`` tokens of
context a sequence attends to; ``E``, ``k`` routed experts and experts per token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.catalog.schema import BYTES_PER_PARAM, HardwareSpec, ModelSpec
from planner.perf.efficiency import Efficiency
from planner.scenario.checks import USABLE_MEMORY_FRACTION
from planner.units import BILLION, GB, TERA

ACTIVATION_BYTES = 2.0
"""Bytes per activation element exchanged between accelerators (bf16)."""
DEFAULT_SCALE_UP_LATENCY_US = 8.0
"""Latency of one small collective on a scale-up fabric when the catalog gives none, µs
(NCCL / custom all-reduce on NVLink: 5-10 µs)."""
DEFAULT_SCALE_OUT_LATENCY_US = 25.0
"""Latency of one small all-to-all over scale-out when the catalog gives none, µs."""
EXPERT_GEMM_TILE_ROWS = 64
"""Rows (tokens) of one grouped-GEMM tile (Hopper/Blackwell MMA M = 64): an expert with
``m`` tokens runs at ``m / (m + 64)`` of the full-tile rate (half at one tile)."""
DEFAULT_SCALE_UP_GBPS = 50.0
"""Link bandwidth assumed when the catalog gives none, GB/s per accelerator per direction
(a 400 Gb/s NIC)."""
ATTENTION_PRECISION = "bf16"
"""Attention matmuls run at bf16 (FlashAttention / FlashMLA decode), whatever the weights."""

FloatArray = NDArray[np.float64]


# --- KV cache -------------------------------------------------------------------------


def kv_bytes_per_token_per_layer(model: ModelSpec, kv_precision: str) -> float:
    """KV-cache bytes one token adds to one attention layer.

    GQA/MHA: ``2 · kv_heads · head_dim · b_kv`` (a key and a value vector per KV head;
    one vector where ``kv_shared_key_value``); MLA: ``(kv_lora_rank + qk_rope_head_dim) ·
    b_kv`` (one latent plus the RoPE key).
    """
    b_kv = BYTES_PER_PARAM[kv_precision]
    if model.kv_lora_rank is not None and model.qk_rope_head_dim is not None:
        return (model.kv_lora_rank + model.qk_rope_head_dim) * b_kv
    vectors = 1.0 if model.kv_shared_key_value else 2.0
    return vectors * model.kv_heads * model.head_dim * b_kv


def kv_bytes_per_token(model: ModelSpec, kv_precision: str) -> float:
    """KV bytes per token over all layers (while the sequence is shorter than any window).

    GQA: ``2 · layers · kv_heads · head_dim · b_kv``; MLA: ``layers · (kv_lora_rank +
    qk_rope_head_dim) · b_kv``. Llama-3.1-70B at bf16: 2·80·8·128·2 = 327,680 B.
    """
    return model.layers * kv_bytes_per_token_per_layer(model, kv_precision)


def _entries(model: ModelSpec, context_tokens: ArrayLike, *, attended: bool) -> FloatArray:
    """Σ over layers of the KV entries each layer holds (``attended`` False) or attends
    to (True) at context ``L``: full layers ``L``, sliding-window layers ``min(L, W)``,
    each compressed group ``L / r + min(L, w)`` entries held, of which it attends to
    ``min(L / r, k) + min(L, w)`` (r tokens per entry, k indexer-selected entries, w the
    uncompressed recent window)."""
    length = np.asarray(context_tokens, dtype=float)
    window_layers = model.sliding_window_layers
    compressed = model.compressed_attention
    full_layers = model.layers - window_layers - sum(c.layers for c in compressed)
    window = float(model.sliding_window_tokens or 0)
    total = full_layers * length + window_layers * np.minimum(length, window)
    recent = np.minimum(length, float(model.compressed_window_tokens))
    for group in compressed:
        entries = length / group.tokens_per_entry
        if attended and group.attended_entries is not None:
            entries = np.minimum(entries, float(group.attended_entries))
        total = total + group.layers * (entries + recent)
    return total


def _attended(model: ModelSpec, context_tokens: ArrayLike) -> FloatArray:
    """Σ over layers of the entries each layer attends to (:func:`_entries`)."""
    return _entries(model, context_tokens, attended=True)


def kv_bytes_per_sequence(
    model: ModelSpec, context_tokens: ArrayLike, kv_precision: str
) -> FloatArray:
    """KV bytes of one sequence of ``L`` tokens: per-entry bytes × the entries the layers
    hold (``full·L + window·min(L, W)`` plus compressed groups: :func:`_entries`)."""
    return kv_bytes_per_token_per_layer(model, kv_precision) * _entries(
        model, context_tokens, attended=False
    )


# --- Weights and memory ----------------------------------------------------------------


def weight_bytes(model: ModelSpec, precision: str) -> float:
    """Bytes of all weights: ``total_params · b_w``."""
    return model.total_params_b * BILLION * BYTES_PER_PARAM[precision]


def usable_memory_bytes(hw: HardwareSpec, accelerators: ArrayLike) -> FloatArray:
    """Memory for weights and KV in g accelerators: ``g · memory · USABLE_MEMORY_FRACTION``."""
    return np.asarray(accelerators, dtype=float) * hw.memory_gb * GB * USABLE_MEMORY_FRACTION


@dataclass(frozen=True)
class ReplicaSize:
    """The smallest replica holding the weights and one full-context sequence, or why none does."""

    accelerators: int
    """Accelerators in the replica (0 when none fits)."""
    needed_bytes: float
    """Weights plus the KV of one ``context_tokens`` sequence, bytes."""
    reason: str = ""


def power_of_two_sizes(limit: int) -> list[int]:
    """1, 2, 4, ... up to ``limit``."""
    sizes, g = [], 1
    while g <= limit:
        sizes.append(g)
        g *= 2
    return sizes


def replica_size(
    model: ModelSpec,
    hw: HardwareSpec,
    precision: str,
    kv_precision: str,
    context_tokens: float,
) -> ReplicaSize:
    """Smallest power-of-two ``g ≤ scale_up_domain`` with
    ``weights + kv(context) ≤ g · memory · USABLE_MEMORY_FRACTION``.

    Example: Llama-3.1-405B at fp8 (405 GB + 8.6 GB of KV at 131,072 tokens) needs
    8 H100s (576 GB usable); at bf16 (810 GB + 17 GB) no 8-GPU replica holds it.
    """
    needed = weight_bytes(model, precision) + float(
        kv_bytes_per_sequence(model, context_tokens, kv_precision)
    )
    sizes = power_of_two_sizes(hw.scale_up_domain)
    for g in sizes:
        if needed <= float(usable_memory_bytes(hw, g)):
            return ReplicaSize(accelerators=g, needed_bytes=needed)
    largest = sizes[-1]
    where = f"the {hw.scale_up_domain}-accelerator scale-up domain"
    if largest != hw.scale_up_domain:
        where = f"a {largest}-accelerator replica (largest power of two in {where})"
    reason = (
        f"needs {needed / GB:,.0f} GB for weights + one {context_tokens:,.0f}-token sequence; "
        f"{where} holds {float(usable_memory_bytes(hw, largest)) / GB:,.0f} GB"
    )
    return ReplicaSize(accelerators=0, needed_bytes=needed, reason=reason)


# --- Mixture of experts ----------------------------------------------------------------


def experts_touched(experts: int, experts_per_token: int, batch: ArrayLike) -> FloatArray:
    """Expected distinct experts per layer that ``B`` tokens route to: ``E · (1 − (1 − k/E)^B)``.

    Each token picks k of E experts; an expert is missed by one token with probability
    ``1 − k/E`` (routing assumed uniform and independent across tokens).
    """
    b = np.asarray(batch, dtype=float)
    if experts_per_token >= experts:  # every token uses every expert
        return np.where(b > 0, float(experts), 0.0)
    return experts * -np.expm1(b * np.log1p(-experts_per_token / experts))


# --- FLOPs -----------------------------------------------------------------------------


def decode_attention_flops_per_token(model: ModelSpec, context_tokens: ArrayLike) -> FloatArray:
    """Attention FLOPs to decode one token that attends to ``L`` tokens.

    GQA/MHA: ``2 · 2 · heads · head_dim`` per layer and attended token (QKᵀ and AV).
    MLA in its absorbed decode form: ``2 · heads · (2 · kv_lora_rank + qk_rope_head_dim)``
    per layer and attended token (scores over the latent plus RoPE key, then values
    from the latent). Summed over layers with ``full · L + window · min(L, W)``.
    DeepSeek-V3 at L = 2,000: 3.4e10 FLOPs, half its 7.4e10 weight FLOPs.
    """
    if model.kv_lora_rank is not None and model.qk_rope_head_dim is not None:
        per = 2.0 * model.attention_heads * (2.0 * model.kv_lora_rank + model.qk_rope_head_dim)
    else:
        per = 4.0 * model.attention_heads * model.head_dim
    return per * _attended(model, context_tokens)


def prefill_attention_flops_per_token(model: ModelSpec, context_tokens: ArrayLike) -> FloatArray:
    """Attention FLOPs of one prefill token attending to ``L`` tokens (MLA uncompressed:
    query/key width ``head_dim + qk_rope_head_dim``, value width ``head_dim``)."""
    rope = model.qk_rope_head_dim or 0
    per = 2.0 * model.attention_heads * (2.0 * model.head_dim + rope)
    return per * _attended(model, context_tokens)


def peak_flops(hw: HardwareSpec, precision: str) -> float | None:
    """Dense peak FLOP/s of one accelerator at ``precision`` (None if unsupported)."""
    tflops = hw.peak_tflops(precision)
    return None if tflops is None else tflops * TERA


def attention_peak_flops(hw: HardwareSpec, precision: str) -> float | None:
    """Peak FLOP/s for attention: the bf16 rate, else the weights' rate."""
    return peak_flops(hw, ATTENTION_PRECISION) or peak_flops(hw, precision)


# --- Decode step ---------------------------------------------------------------------


@dataclass(frozen=True)
class DecodeStep:
    """Decode-step time of one replica as a function of its batch ``B``, per accelerator.

    ``t_step(B) = W(B) + t_comm + t_overhead + layers · t_layer``, where the work ``W``
    times a layer's GEMM kernels and its attention kernel one after the other, each bound
    by its own bytes or FLOPs, less the share ω (``Efficiency.kv_overlap``) of the
    attention phase hidden behind the GEMMs::

        apart    = max(t_weights, t_gemm) + max(t_kv, t_attn)
        together = max(t_weights + t_kv, t_gemm + t_attn)
        W        = apart − ω · (apart − together)

    (ω = 1, the default, is one max over all bytes and all FLOPs: at large batches and
    long contexts the KV reads then hide behind the GEMMs; ω = 0 times them apart), with

    * ``t_weights = (W_fixed + touched(B) · W_expert) / (BW · η_bw)``: the weight shard
      and the experts of its shard the batch touches;
    * ``t_gemm = B · F_dense / (peak · η_c) + λ · (B · k + touched(B) · h) · F_expert /
      (peak · η_c · η_moe)``, all per accelerator: ``m / (m + h)`` is the grouped-GEMM
      tile efficiency at ``m`` tokens per expert (``h = EXPERT_GEMM_TILE_ROWS``), λ the
      expert load imbalance;
    * ``t_kv = B · kv(L) / (BW · η_bw)`` and ``t_attn = B · F_attn(L) / (peak_bf16 ·
      η_c)``: the KV cache each sequence attends to at the mean decode context ``L``
      (long outputs grow it) and the score and value FLOPs over it;
    * ``t_comm = latency + B · comm_s_per_token``: per-layer collectives (their fixed
      latency on scale-up or scale-out, and their bytes over the slower link);
    * ``t_overhead`` per step (scheduling, sampling) and ``t_layer`` per layer (launch
      and synchronisation), the floors that make tokens/s/user saturate.

    With speculative decoding each sequence runs ``q = 1 + draft`` query tokens a step:
    compute, expert routing and communication scale with ``B · q`` tokens, while the
    weights and each sequence's KV are read once.

    Built by :func:`planner.perf.layouts.decode_step` for one layout.
    """

    accelerators: int
    fixed_weight_bytes: float
    expert_weight_bytes: float
    kv_bytes_per_sequence: float
    experts: int
    experts_per_token: int
    dense_flops_per_token: float
    expert_flops_per_row: float
    attention_flops_per_token: float
    bandwidth: float
    compute: float
    expert_compute: float
    attention_compute: float
    comm_latency_s: float
    comm_s_per_token: float
    overhead_s: float
    query_tokens: float = 1.0
    """Tokens each sequence runs per step: 1, or 1 + draft tokens when speculating."""
    kv_overlap: float = 1.0
    """Share ω of the attention phase hidden behind the GEMM phase (``Efficiency.kv_overlap``)."""

    def phases(
        self, batch: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        """``(t_weights, t_gemm, t_kv, t_attention, t_comm)`` in seconds for batch ``B``
        (broadcasts): the GEMM phase's weight reads and matrix work, the attention
        phase's KV reads and score/value work, and the collectives."""
        b = np.asarray(batch, dtype=float)
        n = b * self.query_tokens
        weight_bytes_read = np.full_like(b, self.fixed_weight_bytes)
        t_gemm = n * self.dense_flops_per_token / self.compute
        if self.experts:
            touched = experts_touched(self.experts, self.experts_per_token, n)
            weight_bytes_read = weight_bytes_read + touched * self.expert_weight_bytes
            rows = n * self.experts_per_token + touched * EXPERT_GEMM_TILE_ROWS
            t_gemm = t_gemm + rows * self.expert_flops_per_row / self.expert_compute
        t_weights = weight_bytes_read / self.bandwidth
        t_kv = b * self.kv_bytes_per_sequence / self.bandwidth
        t_attention = n * self.attention_flops_per_token / self.attention_compute
        t_comm = np.where(b > 0, self.comm_latency_s + n * self.comm_s_per_token, 0.0)
        return t_weights, t_gemm, t_kv, t_attention, t_comm

    def components(self, batch: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(t_mem, t_compute, t_comm)`` in seconds for batch ``B`` (broadcasts): all
        bytes read, all FLOPs, the collectives (:meth:`phases` summed by kind)."""
        t_weights, t_gemm, t_kv, t_attention, t_comm = self.phases(batch)
        return t_weights + t_kv, t_gemm + t_attention, t_comm

    def time(self, batch: ArrayLike) -> FloatArray:
        """Seconds per decode step at batch ``B`` (see the class doc)."""
        t_weights, t_gemm, t_kv, t_attention, t_comm = self.phases(batch)
        apart = np.maximum(t_weights, t_gemm) + np.maximum(t_kv, t_attention)
        together = np.maximum(t_weights + t_kv, t_gemm + t_attention)
        work = apart - self.kv_overlap * (apart - together)
        return work + t_comm + self.overhead_s

    def seconds(self, batch: float) -> float:
        """:meth:`time` of one batch ``B > 0`` in plain floats (the batch search calls it
        tens of thousands of times per table)."""
        n = batch * self.query_tokens
        weight_bytes_read = self.fixed_weight_bytes
        t_gemm = n * self.dense_flops_per_token / self.compute
        if self.experts:
            e, k = self.experts, self.experts_per_token
            touched = float(e) if k >= e else -e * math.expm1(n * math.log1p(-k / e))
            weight_bytes_read += touched * self.expert_weight_bytes
            rows = n * k + touched * EXPERT_GEMM_TILE_ROWS
            t_gemm += rows * self.expert_flops_per_row / self.expert_compute
        t_weights = weight_bytes_read / self.bandwidth
        t_kv = batch * self.kv_bytes_per_sequence / self.bandwidth
        t_attention = n * self.attention_flops_per_token / self.attention_compute
        apart = max(t_weights, t_gemm) + max(t_kv, t_attention)
        together = max(t_weights + t_kv, t_gemm + t_attention)
        work = apart - self.kv_overlap * (apart - together)
        t_comm = self.comm_latency_s + n * self.comm_s_per_token
        return work + t_comm + self.overhead_s

    def binding(self, batch: int) -> str:
        """Which term dominates the step at ``batch``: bandwidth, compute, interconnect
        or latency (the fixed per-step and per-layer floors)."""
        t_weights, t_gemm, t_kv, t_attention, t_comm = (float(x) for x in self.phases(batch))
        if self.kv_overlap >= 1.0:  # one max over all bytes and all FLOPs
            t_mem, t_compute = t_weights + t_kv, t_gemm + t_attention
        else:  # each phase bound by its own bytes or FLOPs
            t_mem = (t_weights if t_weights >= t_gemm else 0.0) + (
                t_kv if t_kv >= t_attention else 0.0
            )
            t_compute = (t_gemm if t_gemm > t_weights else 0.0) + (
                t_attention if t_attention > t_kv else 0.0
            )
        floor = self.overhead_s + self.comm_latency_s
        if floor > max(t_mem, t_compute, t_comm - self.comm_latency_s):
            return "latency"
        if t_comm > max(t_mem, t_compute):
            return "interconnect"
        return "bandwidth" if t_mem >= t_compute else "compute"


def link_bytes_per_s(hw: HardwareSpec) -> float:
    """Scale-up bandwidth per accelerator, bytes/s (``DEFAULT_SCALE_UP_GBPS`` if unknown)."""
    return (hw.scale_up_gbps or DEFAULT_SCALE_UP_GBPS) * GB


# --- Prefill ---------------------------------------------------------------------------


def prefill_seconds_per_token(
    model: ModelSpec,
    hw: HardwareSpec,
    precision: str,
    input_tokens_per_request: float,
    cache_hit_rate: float,
    efficiency: Efficiency,
) -> float:
    """Accelerator-seconds to prefill one uncached input token.

    ``2 · P_active / (peak · MFU) + F_attn(c) / (peak_bf16 · MFU)``, MFU = ``prefill_mfu``
    (times η_moe for MoE). The uncached tokens are the suffix of the prompt after a
    cached prefix of share h, so they attend on average to ``c = n_in · (1 + h) / 2``
    tokens. A replica of g accelerators takes ``1/g`` of this wall time per token.
    Raises ValueError when the hardware has no compute at ``precision``.
    """
    peak = peak_flops(hw, precision)
    attention_peak = attention_peak_flops(hw, precision)
    if peak is None or attention_peak is None:
        raise ValueError(f"{hw.id} has no {precision} or wider compute")
    mfu = efficiency.prefill_mfu * (efficiency.eta_moe if model.is_moe else 1.0)
    context = input_tokens_per_request * (1.0 + cache_hit_rate) / 2.0
    attention = float(prefill_attention_flops_per_token(model, context))
    return 2.0 * model.active_params_b * BILLION / (peak * mfu) + attention / (attention_peak * mfu)
