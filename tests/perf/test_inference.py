"""The inference performance model: hand-worked sizes and rates, properties of DESIGN 4.2."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.catalog import hardware_catalog, model_catalog
from planner.perf import throughput_tables
from planner.perf.efficiency import (
    BUILTIN_PRIORS,
    Efficiency,
    EfficiencyTable,
    default_calibration,
    save_calibration,
)
from planner.perf.inference import (
    INFERENCE_COLUMNS,
    ServingCase,
    experts_touched,
    inference_table,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    replica_size,
    serve,
)
from planner.perf.layouts import Layout, decode_step
from planner.scenario import load_scenario
from planner.scenario.schema import Scenario

HW = hardware_catalog()
MODELS = model_catalog()
DEFAULTS = EfficiencyTable()
THROUGHPUT_COLUMNS = [c for c in INFERENCE_COLUMNS if "tokens_per_s" in c]


def eff(hw_id: str, precision: str = "fp8") -> Efficiency:
    return DEFAULTS.lookup(HW[hw_id].family, precision)


def case(**changes: Any) -> ServingCase:
    values: dict[str, Any] = {
        "precision": "fp8",
        "kv_precision": "fp8",
        "input_tokens_per_request": 2000.0,
        "output_tokens_per_request": 500.0,
        "cache_hit_rate": 0.0,
        "slo_tokens_per_s_per_user": 30.0,
    }
    values.update(changes)
    return ServingCase(**values)


def scenario(
    hardware: list[str],
    models: list[str],
    training: list[dict[str, Any]] | None = None,
    **workload: Any,
) -> Scenario:
    """A minimal valid scenario serving each of ``models`` on ``hardware``."""
    return Scenario.model_validate(
        {
            "name": "t",
            "horizon": {"start": 2026, "years": 1},
            "sites": [{"name": "s", "power_cap_mw": 100.0}],
            "hardware": [{"id": h} for h in hardware],
            "models": [{"id": m} for m in models],
            "inference": [
                {"name": f"w-{m}", "model": m, "tokens_per_day": 1.0e9, **workload} for m in models
            ],
            "training": training or [],
        }
    )


# --- hand-worked numbers -------------------------------------------------------------


def test_kv_bytes_gqa_llama_3_1_70b() -> None:
    # 2 (K and V) · 80 layers · 8 KV heads · 128 head dim · 2 bytes (bf16)
    assert kv_bytes_per_token(MODELS["llama-3.1-70b"], "bf16") == 2 * 80 * 8 * 128 * 2 == 327_680
    assert kv_bytes_per_token(MODELS["llama-3.1-70b"], "fp8") == 163_840


@pytest.mark.parametrize("precision, b", [("bf16", 2.0), ("fp8", 1.0)])
def test_kv_bytes_mla_deepseek_v3(precision: str, b: float) -> None:
    # 61 layers · (512 latent + 64 RoPE key) · b
    assert kv_bytes_per_token(MODELS["deepseek-v3"], precision) == 61 * 576 * b


def test_kv_bytes_sliding_window_layers_cap_at_window() -> None:
    model = MODELS["gpt-oss-120b"]  # 36 layers, 18 with a 128-token window; 8 KV heads × 64
    per_layer = 2 * 8 * 64 * 1.0
    assert kv_bytes_per_sequence(model, 100, "fp8") == pytest.approx(per_layer * 36 * 100)
    expected = per_layer * (18 * 10_000 + 18 * 128)
    assert kv_bytes_per_sequence(model, 10_000, "fp8") == pytest.approx(expected)
    lengths = np.array([100.0, 10_000.0])
    assert kv_bytes_per_sequence(model, lengths, "fp8")[1] == pytest.approx(expected)


def test_replica_llama_405b_fp8_needs_8_h100() -> None:
    size = replica_size(MODELS["llama-3.1-405b"], HW["h100-hgx"], "fp8", "fp8", 131_072)
    assert size.accelerators == 8  # 405 GB + 33.8 GB of KV: > 4 × 72 GB, ≤ 8 × 72 GB


def test_replica_llama_405b_bf16_with_128k_does_not_fit_h100() -> None:
    size = replica_size(MODELS["llama-3.1-405b"], HW["h100-hgx"], "bf16", "bf16", 131_072)
    assert size.accelerators == 0
    # 810 GB of weights + 126·2·8·128·2 B · 131,072 = 67.6 GB of KV; 8 × 80 GB × 0.9 = 576 GB
    assert size.reason == (
        "needs 878 GB for weights + one 131,072-token sequence; "
        "the 8-accelerator scale-up domain holds 576 GB"
    )


def test_replica_smallest_power_of_two() -> None:
    # Llama-3.1-70B fp8: 70.6 GB + 131,072 · 163,840 B = 92.1 GB > 72 GB → 2 H100s
    assert (
        replica_size(MODELS["llama-3.1-70b"], HW["h100-hgx"], "fp8", "fp8", 131_072).accelerators
        == 2
    )
    # a 4k context fits one H100 (70.6 + 0.7 GB ≤ 72 GB)
    assert (
        replica_size(MODELS["llama-3.1-70b"], HW["h100-hgx"], "fp8", "fp8", 4096).accelerators == 1
    )


def _touched_by_enumeration(experts: int, k: int, batch: int) -> float:
    """Mean distinct experts over every equally likely way ``batch`` tokens each pick
    ``k`` of ``experts`` (no formula: the union counted routing by routing)."""
    choices = list(itertools.combinations(range(experts), k))
    routings = list(itertools.product(choices, repeat=batch))
    return sum(len(set().union(*r)) for r in routings) / len(routings)


def test_experts_touched_formula() -> None:
    assert experts_touched(256, 8, 1) == pytest.approx(8.0)
    assert experts_touched(256, 8, 0) == pytest.approx(0.0)
    assert experts_touched(8, 2, 2) == pytest.approx(8 * (1 - 0.75**2))  # 3.5
    assert experts_touched(256, 8, 10_000) == pytest.approx(256.0)
    # 2 tokens picking 2 of 4: 4 − E[overlap] = 4 − 2 · 2/4 = 3
    assert experts_touched(4, 2, 2) == pytest.approx(3.0, rel=1e-12)
    for experts, k, batch in ((4, 2, 2), (6, 2, 3), (5, 3, 2), (4, 1, 4), (3, 3, 2)):
        assert experts_touched(experts, k, batch) == pytest.approx(
            _touched_by_enumeration(experts, k, batch), rel=1e-12
        ), (experts, k, batch)


@settings(max_examples=50, deadline=None)
@given(
    experts=st.integers(1, 512),
    data=st.data(),
    batch=st.integers(1, 100_000),
)
def test_experts_touched_bounds(experts: int, data: st.DataObject, batch: int) -> None:
    k = data.draw(st.integers(1, experts))
    touched = float(experts_touched(experts, k, batch))
    direct = experts * (1 - (1 - k / experts) ** batch)
    assert touched == pytest.approx(direct, rel=1e-9, abs=1e-9)
    assert min(k, experts) - 1e-9 <= touched <= experts + 1e-9
    assert float(experts_touched(experts, k, batch + 1)) >= touched - 1e-12


# --- decode step properties -----------------------------------------------------------


def test_batch_one_70b_on_h100_is_bandwidth_bound_and_huge_batch_compute_bound() -> None:
    model, hw = MODELS["llama-3.1-70b"], HW["h100-hgx"]
    step = decode_step(model, hw, Layout("TP", 2, 1), "fp8", "fp8", 2000, eff("h100-hgx"))
    assert step.binding(1) == "bandwidth"
    assert step.binding(4096) == "compute"
    # On TP8 batch 1 reads 70.6 GB / 8 in 3.3 ms; the floors are 2 ms per step,
    # 80 layers x 10 us of launches and 80 x 2 all-reduces x 8 us: 4.1 ms.
    tp8 = decode_step(model, hw, Layout("TP", 8, 1), "fp8", "fp8", 2000, eff("h100-hgx"))
    assert tp8.binding(1) == "latency"
    assert float(tp8.time(1)) == pytest.approx(
        70.6e9 / 8 / (3.35e12 * 0.80)
        + 0.002
        + 80 * 10e-6
        + 80 * 2 * 8e-6
        + 2000 * 327_680 / 2 / 8 / (3.35e12 * 0.8)
        + 80 * 2 * 1.75 * 8192 * 2 / (450e9 * 0.75),
        rel=0.01,
    )


PAIRS = [
    (m, h)
    for m in ("llama-3.1-70b", "mixtral-8x7b", "deepseek-v3", "gpt-oss-120b", "llama-3.1-8b")
    for h in ("h100-hgx", "h200-hgx", "gb200-nvl72", "mi300x-oam8", "tpu-v6e-pod256")
]


@settings(max_examples=40, deadline=None)
@given(
    pair=st.sampled_from(PAIRS),
    g=st.sampled_from([1, 2, 8, 16, 64]),
    kind=st.sampled_from(["TP", "DEP"]),
    batch=st.integers(1, 20_000),
    context=st.floats(1.0, 100_000.0),
)
def test_per_replica_throughput_rises_and_speed_falls_with_batch(
    pair: tuple[str, str], g: int, kind: str, batch: int, context: float
) -> None:
    model, hw = MODELS[pair[0]], HW[pair[1]]
    layout = Layout(kind, g, max(1, g // hw.scale_up_domain))
    step = decode_step(model, hw, layout, "fp8", "fp8", context, eff(hw.id))
    t1, t2 = float(step.time(batch)), float(step.time(batch + 1))
    assert step.seconds(batch) == pytest.approx(t1, rel=1e-12)  # the scalar path agrees
    assert t2 >= t1 > 0  # tokens/s/user falls
    assert (batch + 1) / t2 >= batch / t1 * (1 - 1e-12)  # tokens/s per replica rises


def test_batch_search_decode_rate_grows_as_slo_loosens() -> None:
    model, hw = MODELS["llama-3.1-70b"], HW["h100-hgx"]
    results = [
        serve(model, hw, case(slo_tokens_per_s_per_user=s), eff(hw.id)) for s in (80, 40, 20)
    ]
    assert all(r.servable for r in results)
    # each looser SLO admits a strictly larger batch and so a strictly higher decode and
    # output rate per accelerator (80 → 40 → 20 tok/s/user: batch 166 → 311 → 589)
    batches = [r.batch for r in results]
    assert batches[0] < batches[1] < batches[2], batches
    decode = [r.decode_tokens_per_s_per_replica / r.replica_accelerators for r in results]
    assert decode[0] < decode[1] < decode[2], decode
    output = [r.output_tokens_per_s_per_accelerator for r in results]
    assert output[0] < output[1] < output[2], output
    speeds = [r.tokens_per_s_per_user for r in results]
    assert all(speed >= slo for speed, slo in zip(speeds, (80, 40, 20), strict=True))


def test_h200_never_below_h100() -> None:
    # Same FLOPS, more bandwidth (4.8 vs 3.35 TB/s) and memory (141 vs 80 GB).
    for model_id in ("llama-3.1-70b", "llama-2-70b", "mixtral-8x7b", "llama-3.1-8b"):
        for slo in (None, 10.0, 50.0):
            c = case(slo_tokens_per_s_per_user=slo)
            h100 = serve(MODELS[model_id], HW["h100-hgx"], c, eff("h100-hgx"))
            h200 = serve(MODELS[model_id], HW["h200-hgx"], c, eff("h200-hgx"))
            # both serve it, so the comparison is not 0 against 0
            assert h100.servable and h200.servable, (model_id, slo)
            assert (
                h200.output_tokens_per_s_per_accelerator > h100.output_tokens_per_s_per_accelerator
            ), (model_id, slo)
            # decode of these is bandwidth-bound: it gains at least most of the 1.43x
            assert h200.decode_tokens_per_s_per_accelerator > (
                1.3 * h100.decode_tokens_per_s_per_accelerator
            ), (model_id, slo)


@settings(max_examples=30, deadline=None)
@given(
    pair=st.sampled_from(PAIRS),
    factor=st.floats(1.0, 4.0),
    slo=st.sampled_from([None, 5.0, 20.0, 60.0]),
)
def test_more_bandwidth_never_lowers_throughput(
    pair: tuple[str, str], factor: float, slo: float | None
) -> None:
    model, hw = MODELS[pair[0]], HW[pair[1]]
    faster = hw.model_copy(update={"memory_tbps": hw.memory_tbps * factor})
    c = case(slo_tokens_per_s_per_user=slo)
    base, more = serve(model, hw, c, eff(hw.id)), serve(model, faster, c, eff(hw.id))
    assert more.decode_tokens_per_s_per_accelerator >= base.decode_tokens_per_s_per_accelerator * (
        1 - 1e-9
    )
    assert more.output_tokens_per_s_per_accelerator >= base.output_tokens_per_s_per_accelerator * (
        1 - 1e-9
    )


@settings(max_examples=30, deadline=None)
@given(
    pair=st.sampled_from(PAIRS),
    hits=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
    ratio=st.floats(0.0, 30.0),
)
def test_higher_cache_hit_rate_never_lowers_throughput(
    pair: tuple[str, str], hits: tuple[float, float], ratio: float
) -> None:
    model, hw = MODELS[pair[0]], HW[pair[1]]
    low, high = sorted(hits)
    kwargs = {"input_tokens_per_request": ratio * 500.0}
    a = serve(model, hw, case(cache_hit_rate=low, **kwargs), eff(hw.id))
    b = serve(model, hw, case(cache_hit_rate=high, **kwargs), eff(hw.id))
    assert b.output_tokens_per_s_per_accelerator >= a.output_tokens_per_s_per_accelerator * (
        1 - 1e-9
    )


@settings(max_examples=30, deadline=None)
@given(pair=st.sampled_from(PAIRS), slos=st.tuples(st.floats(1.0, 300.0), st.floats(1.0, 300.0)))
def test_tighter_slo_never_raises_throughput(
    pair: tuple[str, str], slos: tuple[float, float]
) -> None:
    model, hw = MODELS[pair[0]], HW[pair[1]]
    loose, tight = sorted(slos)
    a = serve(model, hw, case(slo_tokens_per_s_per_user=loose), eff(hw.id))
    b = serve(model, hw, case(slo_tokens_per_s_per_user=tight), eff(hw.id))
    assert b.output_tokens_per_s_per_accelerator <= a.output_tokens_per_s_per_accelerator * (
        1 + 1e-9
    )
    assert b.decode_tokens_per_s_per_accelerator <= a.decode_tokens_per_s_per_accelerator * (
        1 + 1e-9
    )
    if b.servable:
        assert b.tokens_per_s_per_user >= tight


# --- reasons ------------------------------------------------------------------------------


def test_unreachable_slo_reason_names_batch_one_speed() -> None:
    result = serve(
        MODELS["llama-3.1-405b"],
        HW["h100-hgx"],
        case(slo_tokens_per_s_per_user=5000),
        eff("h100-hgx"),
    )
    assert not result.servable
    assert result.binding == "latency"
    # Only TP8 holds 405 GB of fp8 weights + a 131,072-token sequence. Its batch-1 step at
    # the mean context 2,000 + 500/2 = 2,250 tokens (h100: 3.35 TB/s, η_bw 0.8; NVLink
    # 450 GB/s, η_comm 0.75):
    #   weights   405e9 B / 8 / 2.68e12 B/s                        = 18.890 ms
    #   KV        126 · 2 · 8 · 128 B · 2,250 / 8 / 2.68e12         =  0.027 ms
    #   floors    2 ms + 126 layers × 10 µs                         =  3.260 ms
    #   all-reduce 126 × 2 × 8 µs + 126·2·1.75·16,384·2 B / 337.5e9 =  2.059 ms
    #   total 24.236 ms → 41.26 tok/s/user
    assert result.reason == "SLO of 5,000 tok/s/user unreachable: batch 1 gives 41"
    assert result.replica_accelerators == 8
    # the weights fit, so prefill still works: accelerator-seconds per uncached prompt
    # token, 2 · 405e9 / (1,979e12 fp8 × 0.4 MFU) + attention over a mean 1,000 tokens,
    # 2 · 128 heads · 256 · 126 layers · 1,000 / (989e12 bf16 × 0.4)
    # = 1.02324 ms + 0.02087 ms = 1.04412 ms → 957.7 tokens/s
    assert result.prefill_tokens_per_s_per_accelerator == pytest.approx(957.75, rel=1e-4)
    assert result.decode_tokens_per_s_per_accelerator == 0


def test_prefill_only_part_has_prefill_throughput_only() -> None:
    result = serve(MODELS["llama-3.1-70b"], HW["rubin-cpx"], case(), eff("rubin-cpx"))
    assert not result.servable
    assert "prefill-only" in result.reason
    assert result.prefill_tokens_per_s_per_accelerator > 0
    assert result.output_tokens_per_s_per_replica == result.decode_tokens_per_s_per_accelerator == 0


def test_request_longer_than_model_context_is_not_servable() -> None:
    result = serve(
        MODELS["llama-2-70b"], HW["h200-hgx"], case(input_tokens_per_request=8000), eff("h200-hgx")
    )
    assert not result.servable
    assert "exceed the model's 4,096-token context" in result.reason


# --- the table -------------------------------------------------------------------------


def test_table_columns_and_values() -> None:
    table = inference_table(
        scenario(["h100-hgx", "rubin-cpx"], ["llama-3.1-70b", "llama-3.1-405b"], precision="bf16")
    )
    assert list(table.columns) == INFERENCE_COLUMNS
    assert len(table) == 4
    assert table["servable"].dtype == bool
    row = table.set_index(["workload", "hardware"]).loc[("w-llama-3.1-70b", "h100-hgx")]
    assert row["servable"] and row["reason"] == ""
    # 141 GB of bf16 weights + 42.9 GB of KV at 131,072 tokens: TP4 (288 GB) is the smallest
    # replica; at 30 tok/s/user TP8 serves more output tokens/s per GPU and is chosen
    assert (row["replica_accelerators"], row["layout"]) == (8, "TP8")
    # one TP8 replica per 8-GPU server, and it is also the best decode-only replica
    assert row["decode_tokens_per_s_per_unit"] == pytest.approx(
        row["decode_tokens_per_s_per_replica"], rel=1e-12
    )
    # colocated, the replica also prefills 3,000 / 1,000 = 3 prompt tokens per output
    # token: seconds per output token 1/decode + 3/prefill, 1/10,132 + 3/27,258 → 4,790/s
    # (the mean batch time-shares two whole batches, on the chord: within 1e-4 of that)
    colocated = 1 / (
        1 / row["decode_tokens_per_s_per_replica"] + 3 / row["prefill_tokens_per_s_per_unit"]
    )
    assert row["output_tokens_per_s_per_unit"] == pytest.approx(colocated, rel=1e-3)
    big = table.set_index(["workload", "hardware"]).loc[("w-llama-3.1-405b", "h100-hgx")]
    # 810 GB of bf16 weights fit only as pipeline stages over servers (TP8 PP2 or more),
    # whose step still reads 101 GB per GPU a token: 23 tok/s/user at batch 1, under 30
    assert not big["servable"]
    assert big["reason"] == "SLO of 30 tok/s/user unreachable: batch 1 gives 23"
    assert big["output_tokens_per_s_per_unit"] == big["decode_tokens_per_s_per_unit"] == 0
    assert big["prefill_tokens_per_s_per_unit"] > 0  # a replica holds the weights


def test_replica_larger_than_unit_divides_per_unit_throughput() -> None:
    # 70 GB of fp8 weights in 0.23 GB SRAM chips: a replica spans several 64-chip racks.
    table = inference_table(scenario(["groq-lpu-rack"], ["llama-3.1-70b"], context_tokens=8192.0))
    row = table.iloc[0]
    assert row["servable"], row["reason"]
    # 70.6 GB + 8,192 · 163,840 B of KV = 71.9 GB over 0.9 · 0.23 GB a chip = 348 chips:
    # the next power of two is 512, 8 racks of 64
    assert row["replica_accelerators"] == 512
    # a unit holds 64 / 512 = 1/8 of a replica, so 1/8 of its throughput
    assert row["decode_tokens_per_s_per_unit"] == pytest.approx(
        row["decode_tokens_per_s_per_replica"] / 8, rel=1e-12
    )
    # colocated, a replica's seconds per output token are 1/decode + 3 prompt tokens over
    # its prefill rate, 8 units' worth; a unit serves 1/8 of the replica's output
    replica_prefill = row["prefill_tokens_per_s_per_unit"] * 8
    replica_output = 1 / (1 / row["decode_tokens_per_s_per_replica"] + 3 / replica_prefill)
    assert row["output_tokens_per_s_per_unit"] == pytest.approx(replica_output / 8, rel=1e-9)


def _check_served_rows(table: pd.DataFrame, slo: float) -> None:
    """What every servable row must satisfy (inference_table itself only refuses
    negative or non-finite throughputs): the SLO is met by a real batch and layout; a
    colocated replica, which also prefills, serves no more than decode alone; and the
    decode-only rate per unit is that of the best decode replica, so at least the chosen
    replica's ``decode per replica × accelerators / g``."""
    served = table[table["servable"]]
    assert (served["tokens_per_s_per_user"] >= slo * (1 - 1e-9)).all()
    assert (served["batch"] >= 1).all() and (served["layout"] != "").all()
    assert (served["replica_accelerators"] >= 1).all()
    decode = served["decode_tokens_per_s_per_unit"]
    assert (served["output_tokens_per_s_per_unit"] <= decode * (1 + 1e-9)).all()
    accelerators = served["hardware"].map(lambda h: HW[h].accelerators)
    chosen = served["decode_tokens_per_s_per_replica"] * accelerators
    assert (chosen / served["replica_accelerators"] <= decode * (1 + 1e-9)).all()


@pytest.mark.parametrize("precision", ["bf16", "fp8", "fp4"])
def test_every_catalog_pair_is_finite_and_consistent(precision: str) -> None:
    table = inference_table(scenario(list(HW), list(MODELS), precision=precision))
    assert len(table) == len(HW) * len(MODELS)
    values = table[THROUGHPUT_COLUMNS].to_numpy(dtype=float)
    assert np.isfinite(values).all()
    _check_served_rows(table, slo=30.0)  # the workload's default SLO
    # 16 GB of bf16 Llama-3.1-8B fits every part; all but the prefill-only one decode it
    small = table[table["model"] == "llama-3.1-8b"].set_index("hardware")
    assert set(small.index[~small["servable"]]) == {"rubin-cpx"}
    assert not table.loc[table["hardware"] == "rubin-cpx", "servable"].any()
    bad = table[~table["servable"]]
    assert (
        (bad[["output_tokens_per_s_per_unit", "decode_tokens_per_s_per_unit", "batch"]] == 0)
        .all()
        .all()
    )
    assert (bad["reason"] != "").all() and (table[table["servable"]]["reason"] == "").all()


@settings(max_examples=5, deadline=None)
@given(
    precision=st.sampled_from(["bf16", "fp8", "fp4"]),
    slo=st.floats(1.0, 500.0),
    ratio=st.floats(0.0, 50.0),
    output=st.floats(1.0, 20_000.0),
    hit=st.floats(0.0, 1.0),
)
def test_random_workloads_stay_finite_and_consistent(
    precision: str, slo: float, ratio: float, output: float, hit: float
) -> None:
    table = inference_table(
        scenario(
            list(HW),
            list(MODELS),
            precision=precision,
            slo_tokens_per_s_per_user=slo,
            input_tokens_per_output_token=ratio,
            output_tokens_per_request=output,
            cache_hit_rate=hit,
        )
    )
    values = table[THROUGHPUT_COLUMNS].to_numpy(dtype=float)
    assert np.isfinite(values).all()
    _check_served_rows(table, slo)


def test_efficiency_argument_and_calibration_path(tmp_path: Any) -> None:
    s = scenario(["h100-hgx"], ["llama-3.1-70b"])
    base = inference_table(s)
    slow = inference_table(s, Efficiency(eta_bw=0.3, eta_c=0.2, prefill_mfu=0.2))
    assert (
        slow["output_tokens_per_s_per_unit"].iloc[0] < base["output_tokens_per_s_per_unit"].iloc[0]
    )
    path = tmp_path / "cal.yaml"
    save_calibration(
        EfficiencyTable(
            families={"hopper": {"all": {"eta_bw": 0.3, "eta_c": 0.2, "prefill_mfu": 0.2}}}
        ),
        path,
    )
    from_file = inference_table(s, calibration_path=path)
    assert from_file["output_tokens_per_s_per_unit"].iloc[0] == pytest.approx(
        slow["output_tokens_per_s_per_unit"].iloc[0]
    )


SHIPPED_CALIBRATION = Path(__file__).resolve().parents[1] / "data" / "serving-calibration.yaml"
RAW_CHAT_H100, RAW_CHAT_H100_BATCH = 7847.480285299657, 220
"""Chat on H100 under the built-in priors, computed before the shipped calibration became
the default (8,206 tok/s per unit with it, as tests/cli/test_perf_cmds.py pins)."""


def _calibrated_scenario(tmp_path: Path, calibration: str = "") -> Scenario:
    """fp8 chat on Hopper, Blackwell and MI300X (families the shipped file fits), bf16 on
    Hopper (one it does not), from a YAML file as the CLI reads it."""
    path = tmp_path / "s.yaml"
    text = (
        "name: t\nhorizon: {start: 2026, years: 1}\nsites: [{name: s, power_cap_mw: 100}]\n"
        "hardware: [{id: h100-hgx}, {id: b200-hgx}, {id: mi300x-oam8}]\n"
        "models: [{id: llama-3.1-70b}, {id: deepseek-v3}]\n"
        "inference:\n"
        "  - {name: chat, model: llama-3.1-70b, tokens_per_day: 1.0e9,"
        " slo_tokens_per_s_per_user: 40}\n"
        "  - {name: wide, model: llama-3.1-70b, precision: bf16, tokens_per_day: 1.0e9}\n"
        "  - {name: moe, model: deepseek-v3, tokens_per_day: 1.0e9, slo_ttft_s: 3}\n" + calibration
    )
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def test_no_calibration_key_is_the_shipped_calibration(tmp_path: Path) -> None:
    """The default and a scenario naming the shipped file give the same table, the one
    the CLI's `throughput` prints (it calls inference_table with the resolved table)."""
    default = _calibrated_scenario(tmp_path)
    named = _calibrated_scenario(tmp_path, f"calibration: {SHIPPED_CALIBRATION}\n")
    assert named.calibration == str(SHIPPED_CALIBRATION)
    expected = inference_table(named)
    pd.testing.assert_frame_equal(inference_table(default), expected)
    pd.testing.assert_frame_equal(inference_table(default, default_calibration()), expected)
    pd.testing.assert_frame_equal(throughput_tables(default)[0], expected)
    raw = inference_table(default, BUILTIN_PRIORS)
    assert not raw["output_tokens_per_s_per_unit"].equals(expected["output_tokens_per_s_per_unit"])


def test_calibration_none_is_the_raw_priors(tmp_path: Path) -> None:
    """``calibration_path="none"`` (the CLI's ``--calibration none``) gives the built-in
    priors, the numbers every table had before the shipped calibration was the default,
    and replaces a scenario's own calibration as a file would."""
    s = _calibrated_scenario(tmp_path, f"calibration: {SHIPPED_CALIBRATION}\n")
    none = inference_table(s, calibration_path="none")
    pd.testing.assert_frame_equal(none, inference_table(s, EfficiencyTable()))
    chat = none.set_index(["workload", "hardware"]).loc[("chat", "h100-hgx")]
    # pinned before the change of default (built-in priors, 2000 in / 500 out at 40 tok/s/user)
    assert chat["batch"] == RAW_CHAT_H100_BATCH
    assert chat["output_tokens_per_s_per_unit"] == pytest.approx(RAW_CHAT_H100, rel=1e-9)
    wide = none.set_index(["workload", "hardware"]).loc[("wide", "h100-hgx")]
    calibrated = inference_table(s).set_index(["workload", "hardware"])
    # Hopper bf16 has no calibrated entry: the shipped calibration leaves it at the priors
    assert calibrated.loc[("wide", "h100-hgx")].equals(wide)
    # a scenario saying `calibration: none` (kept as is, not read as a file)
    said = _calibrated_scenario(tmp_path, "calibration: none\n")
    assert said.calibration == "none"
    pd.testing.assert_frame_equal(inference_table(said), none)


def test_throughput_tables_returns_inference_and_training() -> None:
    run = {"name": "r", "model": "llama-3.1-8b", "tokens": 1.0e12, "window": [2026, 2026]}
    s = scenario(["h100-hgx"], ["llama-3.1-8b"], training=[run])
    inference, training = throughput_tables(s)
    assert list(inference.columns) == INFERENCE_COLUMNS
    pd.testing.assert_frame_equal(inference, inference_table(s))
    assert list(training["run"]) == ["r"] and list(training["hardware"]) == ["h100-hgx"]
    row = training.iloc[0]
    assert row["feasible"]
    # 6 FLOPs per parameter and token: 6 × 8.03e9 × 1e12 tokens = 4.818e22 FLOPs
    assert row["flops"] == pytest.approx(4.818e22, rel=1e-12)
    # 8 H100s × 989 bf16 TFLOPS × 0.46 MFU / (6 × 8.03e9 FLOPs a token) = 75,546 tokens/s
    # per server before goodput (checkpoints, restarts) and scaling take their ~0.13 %
    at_full_goodput = 8 * 989e12 * 0.46 / (6 * 8.03e9)
    tokens = row["training_tokens_per_s_per_unit"]
    assert at_full_goodput * 0.99 < tokens < at_full_goodput
    assert row["training_flops_per_s_per_unit"] == pytest.approx(tokens * 6 * 8.03e9, rel=1e-12)
    # one server is the cluster: 1e12 tokens at that rate take 1e12 / 75,438 s = 153.4 days
    assert row["cluster_units"] == 1
    assert row["days_to_finish"] == pytest.approx(1e12 / tokens / 86_400, rel=1e-9)
