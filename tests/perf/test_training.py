"""Training performance: published FLOP counts, Llama 3 goodput, cluster sizing, the table."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from planner.catalog.schema import HardwareSpec
from planner.perf.training import (
    TRAINING_COLUMNS,
    cluster_size_for_window,
    expected_wall_time,
    goodput,
    optimal_checkpoint_interval_s,
    sustained_flops_per_accelerator,
    training_flops,
    training_row,
    training_table,
)
from planner.perf.training_scale import scaling_efficiency
from planner.scenario import load_scenario
from planner.scenario.resolve import model_specs
from planner.scenario.schema import Scenario

BASELINE = Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml"

# Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models", section 3.3.4): 419 unexpected
# interruptions in a 54-day snapshot of pre-training on 16,384 H100s.
LLAMA3_GPUS = 16_384
LLAMA3_MTBF_H = LLAMA3_GPUS * 54 * 24 / 419  # ≈ 50,677 h per GPU
LLAMA3_DELTA_S = 20.0
LLAMA3_RESTART_S = 7.4 * 60
H100_BF16_TFLOPS = 989.0  # NVIDIA H100 SXM datasheet, dense BF16


def h100_hgx(**changes: Any) -> HardwareSpec:
    """An 8-GPU HGX H100 server with published figures (NVIDIA H100 datasheet)."""
    fields: dict[str, Any] = {
        "id": "test-h100-hgx",
        "name": "HGX H100 (test)",
        "vendor": "NVIDIA",
        "family": "hopper",
        "form": "server",
        "accelerators": 8,
        "peak_tflops_bf16": H100_BF16_TFLOPS,
        "peak_tflops_fp8": 1979.0,
        "memory_gb": 80.0,
        "memory_tbps": 3.35,
        "scale_up_domain": 8,
        "power_kw": 10.2,
        "price_usd": 250_000.0,
        "price_year": 2024,
        "release_year": 2023,
        "mfu_training": 0.40,
        "mtbf_hours_per_accelerator": LLAMA3_MTBF_H,
        "source": "NVIDIA H100 datasheet",
        "as_of": dt.date(2025, 1, 1),
    }
    return HardwareSpec.model_validate({**fields, **changes})


# --- FLOPs ------------------------------------------------------------------------------


def test_gpt3_training_flops() -> None:
    # Brown et al. 2020, Table D.1: GPT-3 175B, 300B tokens: 3.14e23 FLOPs, 3,640 PF/s-days.
    flops = training_flops(175, 300e9)
    assert flops == pytest.approx(3.15e23, rel=0.01)
    petaflop_s_days = flops / (1e15 * 86_400)
    assert petaflop_s_days == pytest.approx(3640, rel=0.01)


def test_attention_term_and_override() -> None:
    base = training_flops(1, 1e12)
    assert base == 6e21
    # 6 · layers · context · hidden · tokens, only when all three are given
    assert training_flops(1, 1e12, layers=2, context_tokens=1000, hidden_size=10) == (
        base + 6 * 2 * 1000 * 10 * 1e12
    )
    assert training_flops(1, 1e12, layers=2, context_tokens=1000) == base
    assert training_flops(1, 1e12, flops=5e20, layers=2, context_tokens=1, hidden_size=1) == 5e20


def test_sustained_flops() -> None:
    hw = h100_hgx()
    assert sustained_flops_per_accelerator(hw, "bf16", 0.4) == pytest.approx(989e12 * 0.4)
    with pytest.raises(ValueError, match="no peak"):
        sustained_flops_per_accelerator(h100_hgx(peak_tflops_bf16=None), "bf16", 0.4)


# --- Goodput --------------------------------------------------------------------------


def test_expected_wall_time_limits() -> None:
    # Without failures (M → ∞) the work and one checkpoint take τ + δ.
    assert expected_wall_time(600, 20, 444, 1e12) == pytest.approx(620, rel=1e-6)
    # Failures only add time.
    assert expected_wall_time(600, 20, 444, 3600) > 620


def test_llama3_goodput() -> None:
    # Llama 3 paper: "> 90% effective training time" at 16,384 H100s; DESIGN.md 4.1: ≈ 0.90.
    g = goodput(LLAMA3_GPUS, LLAMA3_MTBF_H, LLAMA3_DELTA_S, LLAMA3_RESTART_S)
    assert g == pytest.approx(0.90, abs=0.03)


def test_goodput_is_the_maximum_over_checkpoint_intervals() -> None:
    n, mtbf, delta, restart = LLAMA3_GPUS, LLAMA3_MTBF_H, LLAMA3_DELTA_S, LLAMA3_RESTART_S
    cluster_mtbf_s = mtbf * 3600 / n
    taus = np.geomspace(1, 1e6, 20_001)
    brute = max(t / expected_wall_time(t, delta, restart, cluster_mtbf_s) for t in taus)
    assert goodput(n, mtbf, delta, restart) == pytest.approx(brute, rel=1e-6)
    tau = optimal_checkpoint_interval_s(n, mtbf, delta, restart)
    assert tau / expected_wall_time(tau, delta, restart, cluster_mtbf_s) == pytest.approx(
        goodput(n, mtbf, delta, restart), rel=1e-12
    )
    # Young's first-order interval sqrt(2 δ M) is close for δ ≪ M.
    assert tau == pytest.approx(math.sqrt(2 * delta * cluster_mtbf_s), rel=0.05)


def test_llama3_405b_gpu_hours() -> None:
    # Meta Llama 3.1 model card: 405B trained on 15.6T tokens with 30.84M H100 GPU-hours.
    g = goodput(LLAMA3_GPUS, LLAMA3_MTBF_H, LLAMA3_DELTA_S, LLAMA3_RESTART_S)
    flops = training_flops(405, 15.6e12)
    gpu_hours = flops / (H100_BF16_TFLOPS * 1e12 * 0.40 * g) / 3600
    assert gpu_hours == pytest.approx(30.84e6, rel=0.15)


def test_goodput_input_checks() -> None:
    with pytest.raises(ValueError):
        goodput(0, 1000, 20, 400)
    with pytest.raises(ValueError):
        goodput(8, 0, 20, 400)


accelerators = st.integers(min_value=1, max_value=1_000_000)
mtbf_hours = st.floats(min_value=1_000, max_value=1e7)
stall_s = st.floats(min_value=1, max_value=600)
restart = st.floats(min_value=0, max_value=1_800)


@settings(deadline=None, max_examples=200)
@given(accelerators, accelerators, mtbf_hours, stall_s, restart)
def test_goodput_falls_with_cluster_size(
    n1: int, n2: int, mtbf: float, delta: float, restart_s: float
) -> None:
    small, large = sorted((n1, n2))
    g_small = goodput(small, mtbf, delta, restart_s)
    g_large = goodput(large, mtbf, delta, restart_s)
    assert 0 < g_large <= g_small + 1e-12
    assert g_small <= 1


@settings(deadline=None, max_examples=200)
@given(accelerators, mtbf_hours, mtbf_hours, stall_s, restart)
def test_goodput_rises_with_mtbf(
    n: int, m1: float, m2: float, delta: float, restart_s: float
) -> None:
    low, high = sorted((m1, m2))
    g_low = goodput(n, low, delta, restart_s)
    g_high = goodput(n, high, delta, restart_s)
    assert 0 < g_low <= g_high + 1e-12 <= 1 + 1e-12


# --- Cluster size ---------------------------------------------------------------------


def test_llama3_cluster_for_54_days() -> None:
    # The 405B run in a 54-day window needs about Llama 3's 16,384 GPUs (hand: 6.5e6 s
    # of compute at 16,384 GPUs → ~75 days, so ~22,700 GPUs for 54 days).
    size = cluster_size_for_window(
        training_flops(405, 15.6e12),
        989e12 * 0.40,
        54 * 86_400,
        LLAMA3_MTBF_H,
        LLAMA3_DELTA_S,
        LLAMA3_RESTART_S,
        accelerators_per_unit=8,
    )
    assert size.feasible
    assert size.accelerators == size.units * 8
    assert 20_000 < size.accelerators < 26_000
    assert size.days_to_finish <= 54


def test_cluster_infeasible_when_failures_dominate() -> None:
    size = cluster_size_for_window(1e27, 400e12, 86_400, 1_000, 60, 1_800, accelerators_per_unit=72)
    assert not size.feasible
    assert size.units == 0
    assert "fastest" in size.reason
    assert size.days_to_finish > 1


@settings(deadline=None, max_examples=150)
@given(
    flops=st.floats(min_value=1e20, max_value=1e26),
    sustained=st.floats(min_value=1e14, max_value=2e15),
    window_days=st.floats(min_value=1, max_value=1_000),
    mtbf=st.floats(min_value=1_000, max_value=1e6),
    delta=stall_s,
    restart_s=restart,
    per_unit=st.sampled_from([1, 4, 8, 72]),
)
# Goodput underflows to ~1e-303 on huge clusters, so the units needed overflow to inf.
@example(2.8089918720000006e25, 1e14, 2.0, 1000.0, 15.0, 1523.0, 1)
def test_cluster_size_is_the_smallest_that_finishes(
    flops: float,
    sustained: float,
    window_days: float,
    mtbf: float,
    delta: float,
    restart_s: float,
    per_unit: int,
) -> None:
    window_s = window_days * 86_400

    def compute_in_window(units: int) -> float:
        n = units * per_unit
        return n * sustained * goodput(n, mtbf, delta, restart_s) * window_s

    size = cluster_size_for_window(flops, sustained, window_s, mtbf, delta, restart_s, per_unit)
    if not size.feasible:
        assert size.reason
        return
    assert 0 < size.goodput <= 1
    assert size.days_to_finish * 86_400 <= window_s * (1 + 1e-9)
    assert compute_in_window(size.units) >= flops * (1 - 1e-9)
    if size.units > 1:
        assert compute_in_window(size.units - 1) < flops


# --- The table ------------------------------------------------------------------------


def _scenario(**run_changes: Any) -> Scenario:
    h100 = h100_hgx().model_dump()
    prefill = {**h100, "id": "test-prefill", "prefill_only": True}
    model = {
        "id": "test-405b",
        "total_params_b": 405.0,
        "active_params_b": 405.0,
        "layers": 126,
        "hidden_size": 16_384,
        "attention_heads": 128,
        "kv_heads": 8,
        "head_dim": 128,
        "max_context_tokens": 131_072,
        "source": "Llama 3.1 model card",
        "as_of": dt.date(2025, 1, 1),
    }
    run = {
        "name": "pretrain",
        "model": "test-405b",
        "tokens": 15.6e12,
        "window": [2026, 2026],
        "checkpoint_stall_s": LLAMA3_DELTA_S,
        "restart_s": LLAMA3_RESTART_S,
        **run_changes,
    }
    return Scenario.model_validate(
        {
            "name": "t",
            "horizon": {"start": 2026, "years": 2},
            "sites": [{"name": "s", "power_cap_mw": 100.0}],
            "hardware": [h100, prefill],
            "models": [model],
            "training": [run],
        }
    )


def test_training_table_rows() -> None:
    table = training_table(_scenario())
    assert list(table.columns) == TRAINING_COLUMNS
    rows = table.set_index("hardware")
    h100 = rows.loc["test-h100-hgx"]
    assert h100.feasible and h100.reason == ""
    assert h100.flops == pytest.approx(6 * 405e9 * 15.6e12)
    # the stage rate 989 · 0.40 times the scaling efficiency at the cluster found
    scale = scaling_efficiency(
        model_specs(_scenario())["test-405b"],
        h100_hgx(),
        989e12 * 0.40,
        int(h100.cluster_accelerators),
        2048 * 8192,
        8192,
    )
    assert 0.5 < scale < 1.0 and h100.scaling_efficiency == pytest.approx(scale)
    assert h100.layout.startswith("TP8 PP16")
    assert h100.sustained_tflops_per_accelerator == pytest.approx(989 * 0.40 * scale)
    window_days = 365.25 * 0.95  # one year at the default availability
    assert h100.days_to_finish <= window_days
    assert h100.cluster_accelerators == 8 * h100.cluster_units
    assert h100.accelerator_hours == pytest.approx(
        h100.cluster_accelerators * h100.days_to_finish * 24
    )
    tokens_per_s = 8 * 989e12 * 0.40 * scale * h100.goodput / (6 * 405e9)
    assert h100.training_tokens_per_s_per_unit == pytest.approx(tokens_per_s)
    assert h100.training_flops_per_s_per_unit == pytest.approx(tokens_per_s * 6 * 405e9)

    prefill = rows.loc["test-prefill"]
    assert not prefill.feasible and "prefill-only" in prefill.reason
    assert prefill.cluster_units == 0 and math.isnan(prefill.goodput)


def test_training_row_without_peak_at_precision() -> None:
    # A part with only fp4 cannot run a bf16 run (no faster precision to fall back on).
    fp4_only = h100_hgx(peak_tflops_bf16=None, peak_tflops_fp8=None, peak_tflops_fp4=1000.0)
    scenario = _scenario()
    model = model_specs(scenario)["test-405b"]
    row = training_row(scenario.training[0], fp4_only, model, availability=0.95)
    assert not row["feasible"] and "no native bf16" in str(row["reason"])
    assert math.isnan(float(row["sustained_tflops_per_accelerator"]))  # type: ignore[arg-type]


def test_training_table_overrides() -> None:
    table = training_table(
        _scenario(flops=1e25, mfu=0.5, mtbf_hours_per_accelerator=5_000.0)
    ).set_index("hardware")
    h100 = table.loc["test-h100-hgx"]
    assert h100.flops == 1e25
    assert h100.mfu == 0.5
    # tokens/s follow the run's own FLOPs per token when FLOPs are overridden.
    assert h100.training_tokens_per_s_per_unit == pytest.approx(
        h100.training_flops_per_s_per_unit / (1e25 / 15.6e12)
    )
    expected_goodput = goodput(h100.cluster_accelerators, 5_000.0, 20.0, 444.0)
    assert h100.goodput == pytest.approx(expected_goodput)


def test_baseline_training_table_is_finite() -> None:
    table = training_table(load_scenario(BASELINE))
    assert len(table) > 0
    feasible = table[table.feasible]
    assert len(feasible) > 0
    text = ("run", "hardware", "model", "precision", "feasible", "reason", "layout")
    numeric = [c for c in TRAINING_COLUMNS if c not in text]
    assert np.isfinite(feasible[numeric].to_numpy(dtype=float)).all()
    assert (feasible.goodput > 0).all() and (feasible.goodput <= 1).all()
    assert (table[~table.feasible].reason != "").all()
    assert np.isfinite(table.flops).all()


# --- per-precision training MFU (catalog) -------------------------------------------------


def test_deepseek_v3_fp8_h800_hours_within_15_percent_of_the_pretraining_figure() -> None:
    # DeepSeek-V3 report (arXiv 2412.19437): 14.8T tokens, 37B active, 2,048 H800s,
    # batches of 15,360 sequences of 4,096 tokens, 2.664M H800-hours of pre-training.
    # Hopper fp8 stage MFU 0.408 with the MoE costs of planner.perf.training_scale.
    from planner.catalog import hardware_catalog, model_catalog
    from planner.perf.training import training_mfu
    from planner.perf.training_scale import step_time

    hw, v3 = hardware_catalog()["h800-hgx"], model_catalog()["deepseek-v3"]
    stage = 1979e12 * training_mfu(hw, "fp8")
    layout, step = step_time(v3, hw, stage, 2048, 15_360 * 4096, 4096)
    assert layout.expert_parallel > hw.scale_up_domain  # experts span servers
    assert step.expert_traffic_s > 0 and step.moe_overhead_s > 0
    g = goodput(2048, hw.mtbf_hours_per_accelerator, LLAMA3_DELTA_S, LLAMA3_RESTART_S)
    hours = training_flops(37, 14.8e12) / (stage * step.efficiency * g) / 3600
    assert hours == pytest.approx(2.664e6, rel=0.15)  # 2.40M: -10%


def test_llama_405b_bf16_h100_hours_within_10_percent() -> None:
    # Meta Llama 3.1 model card: 30.84M H100-hours on up to 16,384 GPUs, 16M-token batches.
    from planner.catalog import hardware_catalog, model_catalog
    from planner.perf.training import training_mfu

    hw, llama = hardware_catalog()["h100-hgx"], model_catalog()["llama-3.1-405b"]
    stage = 989e12 * training_mfu(hw, "bf16")
    scale = scaling_efficiency(llama, hw, stage, LLAMA3_GPUS, 2048 * 8192, 8192)
    g = goodput(LLAMA3_GPUS, hw.mtbf_hours_per_accelerator, LLAMA3_DELTA_S, LLAMA3_RESTART_S)
    hours = training_flops(405, 15.6e12) / (stage * scale * g) / 3600
    assert llama.training_accelerator_hours == 30.84e6
    assert hours == pytest.approx(30.84e6, rel=0.10)  # 29.2M: -5%


def test_fp8_without_a_measured_mfu_speeds_up_only_the_gemms_and_non_native_refuses() -> None:
    from planner.perf.training import training_mfu

    blackwell = h100_hgx(peak_tflops_bf16=2250.0, peak_tflops_fp8=4500.0, mfu_training=0.38)
    # Amdahl over the GEMM share 0.87: only the matrix multiplies double.
    speedup = 1 / (0.87 / 2 + 0.13)
    assert speedup == pytest.approx(1.770, abs=1e-3)
    assert training_mfu(blackwell, "fp8") * 4500.0 == pytest.approx(0.38 * 2250.0 * speedup)
    no_fp8 = h100_hgx(peak_tflops_fp8=None)
    row = training_row(
        _scenario().training[0].model_copy(update={"precision": "fp8"}),
        no_fp8,
        model_specs(_scenario())["test-405b"],
        availability=0.95,
    )
    assert not row["feasible"] and "no native fp8 units; train at bf16" in str(row["reason"])
