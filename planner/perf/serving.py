"""What one replica serves and what it achieves: :class:`ServingCase`, :class:`ServingResult`.

Split from :mod:`planner.perf.inference`, which searches layouts and batches for a case
and re-exports both.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.catalog.schema import HardwareSpec
from planner.scenario.schema import InferenceWorkload
from planner.units import GB, GIB

MAX_RUNNING_SEQUENCES = 1024
"""Default cap on the sequences one engine scheduler runs at once on a part with 70 GiB
of memory or more, 256 below (:func:`running_sequence_cap`): vLLM's ``max_num_seqs``
defaults (vllm/engine/arg_utils.py, ``get_batch_defaults``: 1,024 on GPUs of at least
70 GiB other than A100, 256 otherwise). TensorRT-LLM's ``max_batch_size`` default is
2,048. A workload's ``max_running_sequences`` sets its own. Without a cap a replica's
batch is bounded only by memory, which engines never reach at short prompts and long
outputs."""

SMALL_MEMORY_RUNNING_SEQUENCES = 256
"""vLLM's ``max_num_seqs`` default on parts under 70 GiB."""


def running_sequence_cap(hw: HardwareSpec, case_cap: int | None = None) -> int:
    """Sequences one scheduler runs at once: ``case_cap`` if set, else vLLM's default for
    the part's memory (70 GiB = 75.2 GB)."""
    if case_cap is not None:
        return case_cap
    return (
        MAX_RUNNING_SEQUENCES if hw.memory_gb * GB >= 70 * GIB else SMALL_MEMORY_RUNNING_SEQUENCES
    )


@dataclass(frozen=True)
class ServingCase:
    """What one replica must serve: request shape, precisions and latency target."""

    precision: str
    """Weight (and GEMM) precision."""
    kv_precision: str
    """KV-cache precision."""
    input_tokens_per_request: float
    """Prompt tokens per request (cached and uncached)."""
    output_tokens_per_request: float
    """Generated tokens per request (reasoning included)."""
    cache_hit_rate: float = 0.0
    """Share of prompt tokens served from the prefix cache (no prefill)."""
    slo_tokens_per_s_per_user: float | None = None
    """Minimum decode speed per sequence; None: maximum throughput (largest batch that fits)."""
    context_tokens: float | None = None
    """Longest sequence a replica must hold; None: the model's maximum context."""
    concurrency_per_accelerator: float | None = None
    """Fixed concurrent sequences per accelerator (a benchmark's concurrency divided by its
    accelerators); the batch of a g-accelerator replica is ``round(g · this)``, at least 1.
    None: the batch is searched."""
    draft_tokens: int = 0
    """Speculative decoding / multi-token prediction: tokens drafted per step (0: off)."""
    acceptance_rate: float = 0.0
    """Probability each drafted token is accepted, given the ones before it were."""
    slo_ttft_s: float | None = None
    """Longest mean time to first token; None: no TTFT target (prefill time-shared)."""
    max_running_sequences: int | None = None
    """Most sequences one engine scheduler runs at once (one per replica, one per
    attention data-parallel rank in a DEP replica); None: :func:`running_sequence_cap`."""

    @property
    def tokens_per_step(self) -> float:
        """Expected tokens a sequence emits per step: ``(1 − a^(d+1)) / (1 − a)`` for
        ``d`` drafts accepted with probability ``a`` each (Leviathan et al. 2023); 1
        without drafts. DeepSeek-V3's one MTP token at 85-90% acceptance: 1.85-1.9."""
        d, a = self.draft_tokens, self.acceptance_rate
        if d == 0 or a == 0:
            return 1.0
        if a >= 1.0:
            return d + 1.0
        return (1.0 - a ** (d + 1)) / (1.0 - a)

    @property
    def mean_decode_context(self) -> float:
        """``L = n_in + n_out / 2``: mean tokens attended to while decoding a request."""
        return self.input_tokens_per_request + self.output_tokens_per_request / 2.0

    @property
    def uncached_input_tokens(self) -> float:
        """``U = n_in · (1 − h)``: prompt tokens a request must prefill."""
        return self.input_tokens_per_request * (1.0 - self.cache_hit_rate)

    @property
    def input_per_output(self) -> float:
        """``r_in``: prompt tokens per output token."""
        return self.input_tokens_per_request / self.output_tokens_per_request

    @classmethod
    def from_workload(cls, workload: InferenceWorkload) -> ServingCase:
        """The case of a scenario workload (SLO-bound, sized for its context)."""
        return cls(
            precision=workload.precision,
            kv_precision=workload.kv_precision_resolved,
            input_tokens_per_request=workload.input_tokens_per_output_token
            * workload.output_tokens_per_request,
            output_tokens_per_request=workload.output_tokens_per_request,
            cache_hit_rate=workload.cache_hit_rate,
            slo_tokens_per_s_per_user=workload.slo_tokens_per_s_per_user,
            context_tokens=workload.context_tokens,
            draft_tokens=workload.draft_tokens,
            acceptance_rate=workload.draft_acceptance_rate,
            slo_ttft_s=workload.slo_ttft_s,
            max_running_sequences=workload.max_running_sequences,
        )


@dataclass(frozen=True)
class ServingResult:
    """Throughput of one model on one hardware type for one case (0 where not servable)."""

    servable: bool
    """Colocated serving meets the SLO (False for prefill-only parts)."""
    reason: str
    """Why not servable ("" when servable)."""
    replica_accelerators: int
    batch: int
    tokens_per_s_per_user: float
    decode_tokens_per_s_per_replica: float
    """Decode tokens/s of the colocated configuration's replica."""
    output_tokens_per_s_per_replica: float
    """Colocated: output tokens/s of a replica that also prefills its prompts."""
    prefill_tokens_per_s_per_accelerator: float
    """Uncached input tokens/s per accelerator when prefilling only (0 if it cannot)."""
    decode_tokens_per_s_per_accelerator: float
    """Decode tokens/s per accelerator of the best decode-only configuration (disaggregated)."""
    binding: str
    """memory capacity, bandwidth, compute, interconnect or latency; for non-servable rows
    what failed."""
    layout: str = ""
    """The chosen layout, e.g. ``TP8`` or ``DEP32 over 4 nodes`` ("" when not servable)."""
    served_precision: str = ""
    """The precision served: the requested one where native, else ``w4a8`` etc."""
    ttft_s: float = 0.0
    """Colocated: mean time to first token of the chosen configuration
    (:mod:`planner.perf.ttft`; 0 when not servable)."""
    prefill_ttft_s: float = 0.0
    """Disaggregated: mean TTFT of the prefill pool at the rate
    ``prefill_tokens_per_s_per_accelerator`` (its service time when no TTFT SLO)."""

    def per_unit(self, hw: HardwareSpec) -> dict[str, float]:
        """Throughputs per purchased unit: per replica × ``accelerators / g``."""
        replicas = hw.accelerators / self.replica_accelerators if self.replica_accelerators else 0
        return {
            "output_tokens_per_s_per_unit": self.output_tokens_per_s_per_replica * replicas,
            "decode_tokens_per_s_per_unit": self.decode_tokens_per_s_per_accelerator
            * hw.accelerators,
            "prefill_tokens_per_s_per_unit": self.prefill_tokens_per_s_per_accelerator
            * hw.accelerators,
        }

    @property
    def output_tokens_per_s_per_accelerator(self) -> float:
        if not self.replica_accelerators:
            return 0.0
        return self.output_tokens_per_s_per_replica / self.replica_accelerators


def not_servable(reason: str, binding: str, g: int = 0, prefill: float = 0.0) -> ServingResult:
    return ServingResult(False, reason, g, 0, 0.0, 0.0, 0.0, prefill, 0.0, binding)


def served_label(hw: HardwareSpec, precision: str) -> str:
    """The precision a table shows for ``precision`` on ``hw``: itself where native, else
    the weight-only form (``w4a8``); never a precision the part has no units for."""
    return hw.served_precision(precision) or f"{precision} (no compute)"
