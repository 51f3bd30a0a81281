"""Time to first token: chunked prefill beside decode, prefill pools sized for a TTFT."""

from __future__ import annotations

import math

import pytest

from planner.catalog import hardware_catalog, model_catalog
from planner.perf.efficiency import EfficiencyTable
from planner.perf.inference import ServingCase, serve
from planner.perf.roofline import DecodeStep
from planner.perf.ttft import (
    Prefill,
    chunked_step_seconds,
    evaluate,
    queueing_factor,
    time_shared_ttft_s,
    utilisation_for,
)

HW = hardware_catalog()
MODELS = model_catalog()
DEFAULTS = EfficiencyTable()

# A dense 8B model in fp8 on one GPU, in round numbers: 8 GB of weights read at an
# effective 2 TB/s, 16 GFLOP a decode token at an effective 500 TFLOP/s, 100 MB of KV
# per sequence at the mean context, 2 ms of step overhead; a prompt token costs
# p = 2 · 8e9 / (1e15 · 0.4 MFU) = 4e-5 GPU-seconds.
STEP = DecodeStep(
    accelerators=1,
    fixed_weight_bytes=8e9,
    expert_weight_bytes=0.0,
    kv_bytes_per_sequence=1e8,
    experts=0,
    experts_per_token=0,
    dense_flops_per_token=1.6e10,
    expert_flops_per_row=0.0,
    attention_flops_per_token=0.0,
    bandwidth=2e12,
    compute=5e14,
    expert_compute=5e14,
    attention_compute=5e14,
    comm_latency_s=0.0,
    comm_s_per_token=0.0,
    overhead_s=2e-3,
)
PREFILL = Prefill(uncached_tokens=2000.0, output_tokens=500.0, seconds_per_token=4e-5)


def test_chunked_step_hand_worked() -> None:
    # B = 16: t_mem = (8e9 + 16 · 1e8) / 2e12 = 4.8 ms > t_compute = 0.512 ms; + 2 ms
    assert chunked_step_seconds(STEP, 16, 0, 4e-5) == pytest.approx(6.8e-3)
    # a 512-token chunk adds 512 · 4e-5 = 20.48 ms of compute: 27.28 ms
    assert chunked_step_seconds(STEP, 16, 512, 4e-5) == pytest.approx(0.02728)


def test_ttft_hand_worked_dense_one_gpu() -> None:
    # C_load = 16 · 2000 / 500 = 64 prompt tokens a step; ρ = 64 / 512 = 0.125;
    # ⌈2000 / 512⌉ = 4 full-chunk steps: S = 4 · 27.28 ms = 109.12 ms;
    # M/D/1: TTFT = S · (1 + 0.125 / (2 · 0.875)) = 116.914 ms
    x = evaluate(STEP, PREFILL, 16, 512)
    assert x is not None
    assert x.step_s == pytest.approx(0.02728)
    assert x.ttft_s == pytest.approx(0.10912 * (1 + 0.125 / 1.75))
    assert x.ttft_s == pytest.approx(0.1169143, rel=1e-6)
    # mean step 6.8 ms + 0.125 · 20.48 ms = 9.36 ms (= 6.8 ms + 64 · 4e-5 s, the
    # time-shared accounting): 16 / 9.36 ms = 1,709.4 tokens/s
    assert x.mean_step_s == pytest.approx(0.00936)
    assert x.output_tokens_per_s(1.0) == pytest.approx(1709.4, rel=1e-4)
    # B = 4 (t_step = (8e9 + 4e8) / 2e12 + 2 ms = 6.2 ms), one 2048-token chunk holds the
    # prompt: ρ = (4 · 2000 / 500) / 2048, S = 6.2 ms + 81.92 ms
    y = evaluate(STEP, PREFILL, 4, 2048)
    assert y is not None
    rho = 16 / 2048
    assert y.ttft_s == pytest.approx((0.0062 + 0.08192) * (1 + rho / (2 * (1 - rho))))
    # chunks no larger than the prompt load cannot keep up
    assert evaluate(STEP, PREFILL, 16, 64) is None


def test_time_shared_ttft_hand_worked() -> None:
    # S = 2000 · 4e-5 = 80 ms; prefill busy 64 · 4e-5 = 2.56 ms per 6.8 ms decode step:
    # ρ = 2.56 / 9.36; TTFT = 80 ms · (1 + ρ / (2 (1 − ρ))) = 95.06 ms
    rho = 2.56 / 9.36
    assert time_shared_ttft_s(PREFILL, 1, 16, 6.8e-3) == pytest.approx(
        0.08 * (1 + rho / (2 * (1 - rho)))
    )
    assert time_shared_ttft_s(PREFILL, 1, 16, 6.8e-3) == pytest.approx(0.0950588, rel=1e-6)


def test_prefill_utilisation_inverts_the_queue() -> None:
    # S = 1 s, SLO 2 s: x = 2, ρ = 2 / 3, and 1 s · (1 + (2/3) / (2/3)) = 2 s
    assert utilisation_for(1.0, 2.0) == pytest.approx(2 / 3)
    assert queueing_factor(2 / 3) == pytest.approx(2.0)
    assert utilisation_for(1.0, 0.9) == 0.0
    assert queueing_factor(1.0) == math.inf
    for service, slo in [(0.1, 0.3), (0.5, 0.51), (2.0, 100.0)]:
        rho = utilisation_for(service, slo)
        assert service * queueing_factor(rho) == pytest.approx(slo)


def _case(slo_ttft_s: float | None, **changes: float) -> ServingCase:
    values = {
        "input_tokens_per_request": 8192.0,
        "output_tokens_per_request": 1024.0,
        "slo_tokens_per_s_per_user": 50.0,
    }
    values.update(changes)
    return ServingCase("fp8", "fp8", slo_ttft_s=slo_ttft_s, **values)


PAIRS = [
    ("llama-3.1-8b", "h100-hgx"),
    ("llama-3.1-70b", "b200-hgx"),
    ("deepseek-v3", "h200-hgx"),
    ("deepseek-v3", "gb200-nvl72"),
]


@pytest.mark.parametrize(("model", "hw"), PAIRS)
def test_tighter_ttft_never_raises_throughput(model: str, hw: str) -> None:
    spec, m = HW[hw], MODELS[model]
    efficiency = DEFAULTS.lookup(spec.family, "fp8")
    previous = math.inf
    prefill_previous = math.inf
    for slo in (None, 10.0, 2.0, 1.0, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02):
        r = serve(m, spec, _case(slo), efficiency)
        output = r.output_tokens_per_s_per_accelerator
        assert output <= previous * (1 + 1e-12), (slo, output, previous)
        assert r.prefill_tokens_per_s_per_accelerator <= prefill_previous * (1 + 1e-12)
        if r.servable:
            assert r.ttft_s > 0
            assert r.ttft_s <= (slo or math.inf) * (1 + 1e-9)
            assert r.tokens_per_s_per_user >= 50.0 * (1 - 1e-9)
        if slo is not None and r.prefill_tokens_per_s_per_accelerator > 0:
            assert r.prefill_ttft_s == pytest.approx(slo)
        previous, prefill_previous = output, r.prefill_tokens_per_s_per_accelerator


def test_unreachable_ttft_is_not_servable_with_the_reason() -> None:
    spec, m = HW["b200-hgx"], MODELS["llama-3.1-70b"]
    efficiency = DEFAULTS.lookup(spec.family, "fp8")
    r = serve(m, spec, _case(0.01), efficiency)
    assert not r.servable
    assert r.binding == "latency"
    assert r.reason.startswith("TTFT SLO of 0.01 s unreachable at 50 tok/s/user")
    assert "8,192 prompt tokens" in r.reason
    # the decode pool of disaggregated serving has no prompts to push: still rated
    assert r.decode_tokens_per_s_per_accelerator == pytest.approx(
        serve(m, spec, _case(None), efficiency).decode_tokens_per_s_per_accelerator
    )
    # and a prefill pool cannot meet it either (8192 · p / 8 > 10 ms)
    assert r.prefill_tokens_per_s_per_accelerator == 0.0


def test_prefill_pool_sized_for_the_ttft() -> None:
    spec, m = HW["b200-hgx"], MODELS["llama-3.1-8b"]
    efficiency = DEFAULTS.lookup(spec.family, "fp8")
    free = serve(m, spec, _case(None), efficiency)
    # the widest single-domain prefill replica (TP8): S = 8192 / (8 · rate)
    service = 8192 / (8 * free.prefill_tokens_per_s_per_accelerator)
    assert free.prefill_ttft_s == pytest.approx(service)
    bound = serve(m, spec, _case(4 * service), efficiency)
    # x = 4: ρ = 6 / 7 of the flat-out rate
    assert bound.prefill_tokens_per_s_per_accelerator == pytest.approx(
        free.prefill_tokens_per_s_per_accelerator * 6 / 7
    )
