"""How a training step spends its time at a cluster size (docs/concepts/performance.md).

The catalog's training MFU is the *stage* efficiency: one pipeline stage's matrix work
at the part's sustained rate, with no pipeline bubble, no exposed gradient
synchronisation and no mixture-of-experts traffic. This module turns it into the rate a
cluster of N accelerators sustains at a fixed global batch, the way a
Megatron-style stack (tensor × pipeline × data parallel, experts over an expert-parallel
group) runs:

* **Layout** (:func:`training_layout`): tensor parallel ``tp`` = the fewest powers of
  two, up to the scale-up domain and 8, that the dense state needs (MoE models run
  attention without TP, as DeepSeek-V3 did); expert parallel ``ep`` = the
  largest power of two inside the scale-up domain, doubled across domains while the
  state still needs more than ``MAX_PIPELINE_STAGES`` stages; pipeline ``pp`` = the
  fewest powers of two whose share of the state fits ``TRAINING_MEMORY_SHARE`` of
  memory at ``STATE_BYTES_PER_PARAM`` bytes a parameter. Never more model-parallel
  accelerators than the cluster has. Llama 3 405B on H100: tp 8, pp 16 (Meta ran
  exactly that: Dubey et al. 2024, Table 4).
* **Step time** (:func:`step_time`) of one data-parallel replica over ``m`` microbatches
  of one sequence (``m = global batch sequences / dp``):

      t_mb     = S · f / (tp · pp · peak · mfu)           one microbatch through a stage
      compute  = m · t_mb · (1 + moe overhead)
      bubble   = (pp − 1) / v · t_mb                      interleaved 1F1B, v virtual stages
      dp sync  = max(T_ar / layers_per_stage, T_ar − ⅔ · compute)   exposed
      experts  = ξ · T_a2a                                exposed all-to-all

  with f = FLOPs a token (6 · P_active; 4 · P for LoRA), ``T_ar`` the gradient
  reduce-scatter + all-gather of a replica's shard over the slower of the links it
  crosses, and ``T_a2a`` the expert dispatch and combine, forward and backward.
  When ``dp`` exceeds the global batch's sequences, sequences are split over replicas
  (context parallel) at a cost per doubling (:data:`CONTEXT_PARALLEL_EFFICIENCY`).
* The per-accelerator rate is ``S_batch / (N · step)``; divided by the ideal
  ``peak · mfu / f`` it is :attr:`StepTime.efficiency`, which never rises with N at a
  fixed global batch (more replicas: fewer microbatches each, a larger bubble share
  and a larger exposed synchronisation share).

Engineering values are named constants with their basis; the fitted MFUs live in the
catalog (``planner/catalog/hardware.yaml``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.perf.roofline import link_bytes_per_s
from planner.units import BILLION, GB, TB

TRAINING_KINDS = ("pretrain", "full", "lora")
"""Pre-training, full fine-tuning (same math, its own tokens) and LoRA fine-tuning."""

STATE_BYTES_PER_PARAM = {"pretrain": 8.0, "full": 8.0, "lora": 2.5}
"""Bytes of training state per parameter that must sit on a model-parallel group: bf16
weights and gradients (4) plus the distributed optimizer's share of fp32 master weights
and Adam moments and activation headroom (engineering estimate, ≈ 8: Llama 3 405B then
needs 128 H100s per replica, Meta's layout). LoRA keeps frozen bf16 weights (2) and
small adapters with their optimizer state."""

GEMM_TIME_SHARE = 0.87
"""Share g of a bf16 (or fp8) training step's time spent in matrix multiplies that a
narrower precision speeds up; the rest (attention softmax, norms, optimizer, exposed
communication) runs as before. Fitted on Hopper, where both rates are measured: stage
MFU 0.46 at bf16 (Llama 3 405B at 43% on 8,192 H100s: Dubey et al. 2024, Table 4,
over a scaling efficiency of 0.934 there) and 0.408 of the fp8 peak at fp8 (MLPerf
Training v5.0 Llama 3.1 405B, H100 and H200 closed results): 807 / 455 TFLOPS = a
1.77× fp8 speed-up = 1 / (0.87 / 2 + 0.13)."""

TRAINING_MEMORY_SHARE = 0.5
"""Share of an accelerator's memory the model state may take (the rest: activations)."""

MAX_TENSOR_PARALLEL = 8
"""Widest tensor parallelism used (Megatron-LM practice: TP beyond 8 stops paying)."""

MAX_PIPELINE_STAGES = 16
"""Pipeline stages beyond which an MoE model widens expert parallelism instead
(DeepSeek-V3: PP16 with EP64, technical report section 3.2)."""

MAX_VIRTUAL_STAGES = 8
"""Interleaved-schedule chunks per stage, at most one per layer (Narayanan et al. 2021,
"Efficient large-scale language model training on GPU clusters"; bubble
(pp − 1)/(v · m)). Llama 3 405B (126 layers, PP16: v = 7) goes from 43% to 40% MFU
from 8,192 to 16,384 GPUs at 16M-token batches, bubble 6.7% → 13.4% (published: 43% →
41%, Dubey et al. 2024, Table 4)."""

BACKWARD_SHARE = 2.0 / 3.0
"""Share of step compute in the backward pass, which gradient synchronisation overlaps."""

COLLECTIVE_EFFICIENCY = 0.8
"""Share of link bandwidth a large collective reaches (NCCL bus bandwidth ~80% of line
rate on NVLink and InfiniBand)."""

EXPERT_ALL_TO_ALL_EXPOSED = 0.7
"""Share ξ of expert all-to-all time not hidden behind compute. Fitted to one published
run: DeepSeek-V3's pre-training, 14.8T tokens on 2,048 H800s in 2.664M H800-hours
(technical report, arXiv 2412.19437, Table 1), gives 2.40M (−10%) at 0.7 with the Hopper
fp8 stage MFU of 0.408 (tests/perf/test_training.py). DualPipe hid
more of its traffic than this, but its node-limited routing also sent less than the
uniform routing counted here."""

DISPATCH_BYTES = 1.0
"""Bytes an activation element takes when dispatched to experts (fp8, DeepSeek-V3)."""

COMBINE_BYTES = 2.0
"""Bytes an activation element takes when combined back (bf16)."""

EXPERT_MEMORY_PASSES = 6.0
"""HBM passes over each routed token's hidden and expert activations per step (permute,
unpermute and gated activation; forward once, backward twice), a memory-bound cost
grouped GEMMs do not hide."""

EXPERT_IMBALANCE = 1.1
"""Busiest expert's load over the mean with auxiliary-loss-free balancing (DeepSeek-V3
report, section 2.1.2, keeps it near balance; 1.1 is an engineering allowance)."""

CONTEXT_PARALLEL_EFFICIENCY = 0.85
"""Rate kept per doubling of context parallelism, when a step has fewer sequences than
data-parallel replicas and stacks split sequences instead (smaller GEMMs, exposed
attention exchanges and per-step latency). Fitted on MLPerf Training v5.0 Llama 2 70B
LoRA (global batch 8-64 sequences) with evaluation time left in: GB200 4,923 → 3,849
tokens/s per GPU from 8 to 72 GPUs (0.78), B200 4,793 → 3,359 from 8 to 64 (0.70); a
split of 4 gives 0.85² = 0.72. With evaluation taken out, as the shipped rows are:
5,515 → 4,463 (0.81) and 5,408 → 4,005 (0.74)."""

HBM_EFFICIENCY = 0.7
"""Share of HBM bandwidth streaming kernels reach."""


@dataclass(frozen=True)
class TrainingLayout:
    """How a run is split over a cluster."""

    tensor_parallel: int
    pipeline_parallel: int
    expert_parallel: int
    data_parallel: float
    """Replicas: accelerators / (tp · pp)."""
    virtual_stages: int

    @property
    def model_parallel(self) -> int:
        return self.tensor_parallel * self.pipeline_parallel

    @property
    def label(self) -> str:
        text = f"TP{self.tensor_parallel} PP{self.pipeline_parallel}"
        if self.expert_parallel > 1:
            text += f" EP{self.expert_parallel}"
        dp = self.data_parallel
        return text + (f" DP{round(dp)}" if dp == round(dp) else f" DP~{dp:.1f}")


@dataclass(frozen=True)
class StepTime:
    """Seconds of one optimiser step of one replica, by where they go."""

    ideal_s: float
    """Matrix work at the stage MFU: m · t_mb."""
    moe_overhead_s: float
    """Grouped-GEMM imbalance and memory-bound expert passes."""
    bubble_s: float
    data_parallel_s: float
    """Exposed gradient synchronisation."""
    expert_traffic_s: float
    """Exposed expert all-to-all."""
    frozen_s: float
    """LoRA: the non-matrix work a pass keeps although frozen weights get no gradient
    (FLOPs fall to 4/6, time only to ``g · 2/3 + 1 − g``, g = GEMM_TIME_SHARE)."""
    busy_share: float
    """Efficiency left when the batch has fewer sequences than replicas and each
    sequence is split over ``c = dp / sequences`` of them (context parallel):
    ``CONTEXT_PARALLEL_EFFICIENCY ** log2(c)``; 1 otherwise."""

    @property
    def total_s(self) -> float:
        return (
            self.ideal_s
            + self.moe_overhead_s
            + self.bubble_s
            + self.data_parallel_s
            + self.expert_traffic_s
            + self.frozen_s
        )

    @property
    def efficiency(self) -> float:
        """Per-accelerator rate over the stage-MFU rate, in (0, 1]."""
        return self.busy_share * self.ideal_s / self.total_s


def _power_of_two_at_least(x: float) -> int:
    return 1 if x <= 1 else 2 ** math.ceil(math.log2(x - 1e-9))


def _power_of_two_at_most(x: float) -> int:
    return 1 if x < 2 else 2 ** math.floor(math.log2(x + 1e-9))


def flops_per_param_token(kind: str) -> float:
    """Training FLOPs per active parameter and token: 6 (forward 2, backward 4; Kaplan et
    al. 2020), 4 for LoRA (no weight gradients of frozen weights; adapters are
    negligible)."""
    return 4.0 if kind == "lora" else 6.0


def flops_per_token(model: ModelSpec, kind: str) -> float:
    """Training FLOPs a token: :func:`flops_per_param_token` · ``P_active``."""
    return flops_per_param_token(kind) * model.active_params_b * BILLION


def training_layout(
    model: ModelSpec, hw: HardwareSpec, accelerators: int, kind: str
) -> TrainingLayout:
    """The layout of the module doc for a cluster of ``accelerators``."""
    budget = TRAINING_MEMORY_SHARE * hw.memory_gb * GB / STATE_BYTES_PER_PARAM[kind]
    domain = max(1, hw.scale_up_domain)
    n = max(1, accelerators)
    shared, experts = model.shared_params_b * BILLION, 0.0
    if model.is_moe:
        experts = model.total_params_b * BILLION - shared
    tp = 1
    if not model.is_moe:
        widest = min(_power_of_two_at_most(domain), MAX_TENSOR_PARALLEL, _power_of_two_at_most(n))
        tp = min(widest, _power_of_two_at_least(shared / budget))
    ep = 1
    if model.is_moe:
        ep = min(_power_of_two_at_most(domain), _power_of_two_at_most(model.experts or 1))
        while (
            shared / tp + experts / ep > MAX_PIPELINE_STAGES * budget
            and ep < (model.experts or 1)
            and ep < _power_of_two_at_most(n)
        ):
            ep *= 2
    pp = _power_of_two_at_least((shared / tp + experts / ep) / budget)
    pp = max(1, min(pp, _power_of_two_at_most(n / tp), _power_of_two_at_most(model.layers)))
    # The expert group is carved out of one pipeline stage's ranks (Megatron-Core's
    # parallel folding: EP · ETP divides DP · TP), so it never spans more than n / pp.
    ep = max(1, min(ep, _power_of_two_at_most(n / pp)))
    v = max(1, min(MAX_VIRTUAL_STAGES, model.layers // pp)) if pp > 1 else 1
    return TrainingLayout(tp, pp, ep, n / (tp * pp), v)


def smallest_cluster(
    model: ModelSpec, hw: HardwareSpec, kind: str, limit: int = 2**21
) -> int | None:
    """Fewest accelerators (a power of two) whose layout holds the run's state within
    ``TRAINING_MEMORY_SHARE`` of memory: below it :func:`training_layout` caps the
    pipeline at the cluster and the state would not fit. None when no cluster up to
    ``limit`` holds it (pipeline stages cannot exceed the layers)."""
    budget = TRAINING_MEMORY_SHARE * hw.memory_gb * GB / STATE_BYTES_PER_PARAM[kind]
    shared = model.shared_params_b * BILLION
    experts = model.total_params_b * BILLION - shared if model.is_moe else 0.0
    n = 1
    while n <= limit:
        layout = training_layout(model, hw, n, kind)
        per_accelerator = shared / layout.tensor_parallel + experts / layout.expert_parallel
        if per_accelerator / layout.pipeline_parallel <= budget * (1 + 1e-9):
            return n
        n *= 2
    return None


def _gradient_sync_s(
    model: ModelSpec, hw: HardwareSpec, layout: TrainingLayout, kind: str, accelerators: int
) -> float:
    """Reduce-scatter + all-gather of one accelerator's gradient shard (bf16, ``b``
    bytes) across its data-parallel group, hierarchically: ``2 · b · (dp − 1)/dp`` over
    the scale-up fabric, and where the group spans domains ``2 · b / c`` more over the
    scale-out NIC, c being the copies of the shard inside one domain (``D / (tp · pp)``
    when whole replicas fit a domain, else 1): the domain's NICs share that traffic."""
    if kind == "lora" or layout.data_parallel <= 1:
        return 0.0
    shard_params = model.shared_params_b * BILLION / layout.model_parallel
    if model.is_moe:
        expert_params = (model.total_params_b - model.shared_params_b) * BILLION
        shard_params += expert_params / (layout.pipeline_parallel * layout.expert_parallel)
    dp, domain = layout.data_parallel, max(1, hw.scale_up_domain)
    shard_bytes = shard_params * 2.0
    inside = 2.0 * shard_bytes * (dp - 1.0) / dp
    seconds = inside / (link_bytes_per_s(hw) * COLLECTIVE_EFFICIENCY)
    if accelerators > domain and hw.scale_out_gbps:
        copies = max(1.0, min(domain, accelerators) / layout.model_parallel)
        nic = 2.0 * shard_bytes / copies
        seconds += nic / (hw.scale_out_gbps * GB * COLLECTIVE_EFFICIENCY)
    return seconds


def _expert_costs(
    model: ModelSpec, hw: HardwareSpec, layout: TrainingLayout, tokens: float, ideal_s: float
) -> tuple[float, float]:
    """(MoE compute overhead, exposed all-to-all) seconds for ``tokens`` a replica's
    accelerator processes in a step. Expert GEMMs take the share ``k · e / P_active`` of
    the work and run at the busiest expert's pace (× ``EXPERT_IMBALANCE``); each routed
    token's hidden (h) and expert (2 · ffn) activations make ``EXPERT_MEMORY_PASSES``
    HBM passes; dispatch and combine, forward and backward, move
    ``2 · k · h · (DISPATCH + COMBINE)`` bytes a token a layer, the share
    ``(ep − D)/(ep − 1)`` of it across scale-out when the expert group spans domains."""
    if not model.is_moe or model.experts_per_token is None:
        return 0.0, 0.0
    k, h = model.experts_per_token, model.hidden_size
    expert_share = k * model.expert_params_b / model.active_params_b
    imbalance_s = ideal_s * expert_share * (EXPERT_IMBALANCE - 1.0)
    ffn = model.expert_params_b * BILLION / model.layers / (3.0 * h)
    per_token_layer = k * (h + 2.0 * ffn) * 2.0 * EXPERT_MEMORY_PASSES
    tokens_local = tokens / (layout.tensor_parallel * layout.pipeline_parallel)
    memory_s = (
        tokens_local * model.layers * per_token_layer / (hw.memory_tbps * TB * HBM_EFFICIENCY)
    )
    ep, domain = layout.expert_parallel, max(1, hw.scale_up_domain)
    moved = tokens_local * model.layers * 2.0 * k * h * (DISPATCH_BYTES + COMBINE_BYTES)
    if ep <= 1:
        return imbalance_s + memory_s, 0.0
    remote = max(0.0, (ep - domain) / (ep - 1)) if hw.scale_out_gbps else 0.0
    over_out = 0.0
    over_up = (
        moved * (1.0 - remote) * (ep - 1) / ep / (link_bytes_per_s(hw) * COLLECTIVE_EFFICIENCY)
    )
    if hw.scale_out_gbps:
        over_out = moved * remote / (hw.scale_out_gbps * GB * COLLECTIVE_EFFICIENCY)
    return imbalance_s + memory_s, EXPERT_ALL_TO_ALL_EXPOSED * (over_up + over_out)


def step_time(
    model: ModelSpec,
    hw: HardwareSpec,
    sustained_flops_per_accelerator: float,
    accelerators: int,
    global_batch_tokens: float,
    sequence_tokens: float,
    kind: str = "pretrain",
) -> tuple[TrainingLayout, StepTime]:
    """The layout and the step time of the module doc (FLOP/s, tokens; seconds out)."""
    sequences = max(1.0, global_batch_tokens / sequence_tokens)
    layout = training_layout(model, hw, accelerators, kind)
    f = flops_per_token(model, kind)
    t_mb = sequence_tokens * f / (layout.model_parallel * sustained_flops_per_accelerator)
    split = max(1.0, layout.data_parallel / sequences)
    busy = CONTEXT_PARALLEL_EFFICIENCY ** math.log2(split)
    microbatches = max(1.0, sequences / layout.data_parallel)
    ideal = microbatches * t_mb
    frozen = 0.0
    if kind == "lora":  # the non-GEMM share 1 − g does not shrink with the weight gradients
        frozen = ideal * ((GEMM_TIME_SHARE * 2.0 / 3.0 + 1.0 - GEMM_TIME_SHARE) / (2.0 / 3.0) - 1.0)
    replica_tokens = microbatches * sequence_tokens
    moe_s, a2a_s = _expert_costs(model, hw, layout, replica_tokens, ideal)
    bubble = (layout.pipeline_parallel - 1) / layout.virtual_stages * t_mb
    sync = _gradient_sync_s(model, hw, layout, kind, accelerators)
    per_stage = max(1.0, model.layers / layout.pipeline_parallel)
    exposed = max(sync / per_stage, sync - BACKWARD_SHARE * (ideal + moe_s))
    return layout, StepTime(ideal, moe_s, bubble, exposed, a2a_s, frozen, busy)


def scaling_efficiency(*args: Any, **kwargs: Any) -> float:
    """:attr:`StepTime.efficiency` of :func:`step_time` (the same arguments)."""
    return step_time(*args, **kwargs)[1].efficiency
