"""The decode step's attention phase: hidden behind the GEMMs (kv_overlap 1, default) or
timed apart from them (0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.perf.efficiency import Efficiency, default_calibration
from planner.perf.fidelity import fidelity
from planner.perf.roofline import DecodeStep

BENCHMARKS = Path(__file__).resolve().parents[2] / "planner/perf/data/benchmarks"


def _step(kv_overlap: float) -> DecodeStep:
    """At B = 100: weights 1 ms (1 GB at 1 TB/s), GEMMs 3 ms, KV 2 ms, attention 0.2 ms."""
    return DecodeStep(
        accelerators=1,
        fixed_weight_bytes=1e9,
        expert_weight_bytes=0.0,
        kv_bytes_per_sequence=2e7,
        experts=0,
        experts_per_token=0,
        dense_flops_per_token=3e13 / 100,
        expert_flops_per_row=0.0,
        attention_flops_per_token=2e12 / 100,
        bandwidth=1e12,
        compute=1e16,
        expert_compute=1e16,
        attention_compute=1e16,
        comm_latency_s=0.0,
        comm_s_per_token=0.0,
        overhead_s=0.0,
        kv_overlap=kv_overlap,
    )


@pytest.mark.parametrize(
    ("kv_overlap", "milliseconds"),
    [
        (1.0, 3.2),  # max(1 + 2, 3 + 0.2): the KV reads hide behind the GEMMs
        (0.0, 5.0),  # max(1, 3) + max(2, 0.2): attention after the GEMMs
        (0.5, 4.1),
    ],
)
def test_step_by_hand(kv_overlap: float, milliseconds: float) -> None:
    step = _step(kv_overlap)
    assert step.seconds(100) * 1e3 == pytest.approx(milliseconds)
    assert float(step.time(100)) * 1e3 == pytest.approx(milliseconds)


def test_default_is_one_and_bounds_hold() -> None:
    assert Efficiency().kv_overlap == 1.0
    with pytest.raises(ValueError, match="kv_overlap"):
        Efficiency(kv_overlap=1.5)


def test_timing_attention_apart_fits_maximum_throughput_rows_better() -> None:
    """TensorRT-LLM's perf-overview rows (maximum throughput, never fitted): with the
    attention phase timed apart the dense median falls from about 21% to 11% and the
    MoE median from about 74% to 42%."""
    files = [BENCHMARKS / "trtllm-perf-overview.csv"]
    apart = default_calibration().with_entry(None, "", {"kv_overlap": 0.0})
    before = {g.group: g.median_abs_pct for g in fidelity(files)}
    after = {g.group: g.median_abs_pct for g in fidelity(files, apart)}
    assert after["dense"] < 13.0 < 18.0 < before["dense"]
    assert after["moe"] < 45.0 < 70.0 < before["moe"]
