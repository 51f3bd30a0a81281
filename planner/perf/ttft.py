"""Time to first token: chunked prefill beside decode, and prefill pools sized for a TTFT.

**Colocated serving with a TTFT SLO** (``slo_ttft_s``). Each step of a replica runs the
decode tokens of its batch ``B`` plus up to ``C`` prompt tokens (a chunked-prefill token
budget, ``C`` in :data:`CHUNK_TOKENS`), so prefill slows the decode steps it rides in:

* ``t(B, C) = t_step(B) + C · p / g``: the decode step's roofline
  (:class:`~planner.perf.roofline.DecodeStep`: weight and KV reads, compute, collectives,
  launch floors) plus the chunk's compute at prefill MFU (``p`` accelerator-seconds per
  uncached prompt token, over the replica's ``g`` accelerators). The two add rather than
  overlap, the accounting the time-shared model already uses (replica-seconds per output
  token ``t_step / (B τ) + r_in (1 − h) p / g``), so a TTFT target never buys throughput:
  at one batch both give the same tokens/s, and the chunk only lowers the batch the
  decode SLO allows.
* Prefill load per step: a sequence emits ``τ`` tokens a step and a request ``n_out``, so
  ``B · τ / n_out`` requests finish (and arrive) per step, each with ``U = n_in · (1 − h)``
  uncached tokens: ``C_load = B · τ · U / n_out`` tokens a step, utilisation
  ``ρ = C_load / C`` (must be < 1).
* Decode speed is checked on a step that carries a full chunk: ``τ / t(B, C) ≥ SLO``
  (the inter-token latency users see while a prompt is being pushed through).
* Output tokens/s of the replica: ``B · τ / t̄`` with the mean step
  ``t̄ = t(B, 0) + ρ · (t(B, C) − t(B, 0)) = t_step(B) + C_load · p / g`` (a share ρ of
  steps carries a full chunk).
* TTFT: the prompt needs ``⌈U / C⌉`` full-chunk steps, ``S = ⌈U / C⌉ · t(B, C)``; prompts
  queue for the chunk budget, taken as an M/D/1 queue (Poisson arrivals, deterministic
  service ``S``) at utilisation ρ: mean wait ``ρ · S / (2 (1 − ρ))``, so
  ``TTFT = S · (1 + ρ / (2 (1 − ρ)))``. Network, tokenisation and the first decode step are
  not counted.

The search takes, for each ``C``, the largest batch meeting both SLOs (both tighten as
``B`` grows) and keeps the ``(C, B)`` with the most output tokens/s; the time-shared
configuration (below) competes when its own TTFT meets the SLO.

**Time-shared** colocated serving (the model without a TTFT SLO: whole prompts prefilled
between decode steps, :mod:`planner.perf.inference`): TTFT ``S = U · p / g`` (the whole
prompt across the replica) with the same M/D/1 wait at ``ρ`` = the share of replica time
spent prefilling.

**Disaggregated prefill pool**: a prefill replica of ``g`` accelerators (tensor parallel
inside the scale-up domain, the widest layout that fits) serves a prompt in
``S = U · p / g``; sized for the TTFT SLO it runs at the largest utilisation with
``S · (1 + ρ / (2 (1 − ρ))) ≤ slo_ttft_s``, ``ρ = 2 (x − 1) / (2x − 1)`` for
``x = slo_ttft_s / S`` (0 when ``S`` alone exceeds the SLO), so it delivers ``ρ / p``
uncached tokens/s per accelerator instead of ``1 / p``. Prefill communication is not
modelled (prefill is compute-bound).

**The prefill floor** (:func:`prefill_floor_s`): no configuration above beats
``S = U · p / g`` with the whole prompt on ``g`` accelerators, and ``p`` is least at
full compute (prefill MFU 1, and for MoE grouped-GEMM efficiency 1). So
``U · p₁ / g`` over the accelerators a benchmark ran on is the least TTFT it can have
measured; a benchmark row claiming less is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.perf.efficiency import Efficiency
from planner.perf.roofline import DecodeStep, prefill_seconds_per_token

FULL_COMPUTE = Efficiency(prefill_mfu=1.0, eta_moe=1.0)
"""Prefill at the part's peak: the efficiency of :func:`prefill_floor_s`."""

CHUNK_TOKENS = tuple(2**k for k in range(6, 17))
"""Chunked-prefill token budgets per step tried: 64 … 65,536 (vLLM and SGLang default
to 2,048-16,384)."""


def queueing_factor(utilisation: float) -> float:
    """``1 + ρ / (2 (1 − ρ))``: M/D/1 mean time in system over the service time."""
    if utilisation >= 1.0:
        return math.inf
    return 1.0 + utilisation / (2.0 * (1.0 - utilisation))


def utilisation_for(service_s: float, slo_s: float) -> float:
    """Largest ρ with ``service_s · queueing_factor(ρ) ≤ slo_s``: ``2 (x − 1) / (2x − 1)``
    for ``x = slo_s / service_s``; 0 when the service alone misses the SLO."""
    if service_s <= 0:
        return 1.0
    x = slo_s / service_s
    if x <= 1.0:
        return 0.0
    return 2.0 * (x - 1.0) / (2.0 * x - 1.0)


def chunked_step_seconds(
    step: DecodeStep, batch: float, chunk_tokens: float, prefill_s_per_token: float
) -> float:
    """``t(B, C) = t_step(B) + C · p / g``: a decode step of ``batch`` sequences carrying
    ``chunk_tokens`` prompt tokens (see module doc)."""
    return step.seconds(batch) + chunk_tokens * prefill_s_per_token / step.accelerators


@dataclass(frozen=True)
class Prefill:
    """What one request asks of prefill, and what a prompt token costs."""

    uncached_tokens: float
    """``U = n_in · (1 − h)`` per request."""
    output_tokens: float
    """``n_out`` per request."""
    seconds_per_token: float
    """``p``: accelerator-seconds per uncached prompt token."""
    tokens_per_step: float = 1.0
    """``τ``: tokens a sequence emits per decode step."""

    def load_per_step(self, batch: float) -> float:
        """``C_load = B · τ · U / n_out`` prompt tokens arriving per decode step."""
        return batch * self.tokens_per_step * self.uncached_tokens / self.output_tokens


@dataclass(frozen=True)
class Chunked:
    """A batch and chunk budget of one layout, and what they achieve."""

    batch: int
    chunk_tokens: int
    step_s: float
    """``t(B, C)``: a step carrying a full chunk (sets the decode speed checked)."""
    mean_step_s: float
    """``t̄``: the mean step (sets the throughput)."""
    ttft_s: float

    def output_tokens_per_s(self, tokens_per_step: float) -> float:
        return self.batch * tokens_per_step / self.mean_step_s


def evaluate(step: DecodeStep, prefill: Prefill, batch: int, chunk_tokens: int) -> Chunked | None:
    """The :class:`Chunked` of ``(B, C)``; None when the chunks cannot keep up (ρ ≥ 1)."""
    rho = prefill.load_per_step(batch) / chunk_tokens
    if rho >= 1.0:
        return None
    full = chunked_step_seconds(step, batch, chunk_tokens, prefill.seconds_per_token)
    plain = chunked_step_seconds(step, batch, 0.0, prefill.seconds_per_token)
    service = math.ceil(prefill.uncached_tokens / chunk_tokens) * full
    return Chunked(
        batch, chunk_tokens, full, plain + rho * (full - plain), service * queueing_factor(rho)
    )


def best_chunked(
    step: DecodeStep,
    prefill: Prefill,
    limit: int,
    slo_tokens_per_s_per_user: float | None,
    slo_ttft_s: float,
    fixed_batch: int | None = None,
) -> tuple[Chunked | None, float]:
    """The ``(C, B)`` with the most output tokens/s meeting both SLOs, ``B ≤ limit`` (or
    exactly ``fixed_batch``), with the lowest TTFT any ``C`` reaches at the smallest batch
    (to explain a miss)."""
    tau = prefill.tokens_per_step

    def meets(x: Chunked | None) -> bool:
        if x is None or x.ttft_s > slo_ttft_s:
            return False
        return slo_tokens_per_s_per_user is None or tau / x.step_s >= slo_tokens_per_s_per_user

    best: Chunked | None = None
    lowest = math.inf
    low_batch = fixed_batch or 1
    for chunk in CHUNK_TOKENS:
        first = evaluate(step, prefill, low_batch, chunk)
        if first is not None:
            lowest = min(lowest, first.ttft_s)
        if not meets(first):
            continue
        found = first
        if fixed_batch is None:
            low, high = 1, limit + 1  # meets(low), not meets(high) (or past the limit)
            top = evaluate(step, prefill, limit, chunk)
            if meets(top):
                low, found = limit, top
            while high - low > 1:
                mid = (low + high) // 2
                x = evaluate(step, prefill, mid, chunk)
                if meets(x):
                    low, found = mid, x
                else:
                    high = mid
        assert found is not None
        if best is None or found.output_tokens_per_s(tau) > best.output_tokens_per_s(tau):
            best = found
    return best, lowest


def time_shared_ttft_s(prefill: Prefill, accelerators: int, batch: int, step_s: float) -> float:
    """TTFT of time-shared colocated serving: ``S = U · p / g`` with the M/D/1 wait at ρ,
    the share of replica time prefilling, ``C_load · p / g / (t_step + C_load · p / g)``."""
    service = prefill.uncached_tokens * prefill.seconds_per_token / accelerators
    if service <= 0:
        return 0.0
    busy = prefill.load_per_step(batch) * prefill.seconds_per_token / accelerators
    return service * queueing_factor(busy / (step_s + busy))


def prefill_floor_s(
    model: ModelSpec,
    hw: HardwareSpec,
    precision: str,
    input_tokens: float,
    cache_hit_rate: float,
    accelerators: float,
) -> float | None:
    """The least possible TTFT, s: the prompt's ``U = n_in · (1 − h)`` uncached tokens
    prefilled at the full peak compute of ``accelerators`` accelerators, ``U · p₁ / g``
    (``p₁``: :func:`~planner.perf.roofline.prefill_seconds_per_token` at MFU 1); no
    queueing and no decode step. None when ``hw`` has no compute at ``precision``."""
    try:
        per_token = prefill_seconds_per_token(
            model, hw, precision, input_tokens, cache_hit_rate, FULL_COMPUTE
        )
    except ValueError:
        return None
    return input_tokens * (1.0 - cache_hit_rate) * per_token / accelerators
