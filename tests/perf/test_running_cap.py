"""Engines cap the sequences one scheduler runs; memory alone would allow far more."""

from __future__ import annotations

from dataclasses import replace

from planner.catalog import hardware_catalog, model_catalog
from planner.perf.efficiency import default_calibration, resolve_efficiency
from planner.perf.inference import ServingCase, serve
from planner.perf.serving import running_sequence_cap

HW, MODELS = hardware_catalog(), model_catalog()


def test_vllm_defaults_by_memory() -> None:
    """vLLM's max_num_seqs: 1,024 on parts of 70 GiB (75.2 GB) or more, 256 below."""
    assert running_sequence_cap(HW["h100-hgx"]) == 1024  # 80 GB
    assert running_sequence_cap(HW["l40s-pcie8"]) == 256  # 48 GB
    assert running_sequence_cap(HW["h100-hgx"], 64) == 64


def test_max_throughput_batch_stops_at_the_cap_per_scheduler() -> None:
    """Llama 3.1 8B fp8 on one H200, 1k in / 1k out: 141 GB holds thousands of 1.5k-token
    sequences (64 KiB of KV a token), so the batch is the engine's 1,024; a workload
    capping at 128 gets 128 and less throughput."""
    hw, model = HW["h200-hgx"], MODELS["llama-3.1-8b"]
    eff = resolve_efficiency(default_calibration(), hw.family, "fp8")
    case = ServingCase("fp8", "fp8", 1024, 1024, context_tokens=4096)
    result = serve(model, hw, case, eff)
    assert result.layout == "TP1" and result.batch == 1024
    small = serve(model, hw, replace(case, max_running_sequences=128), eff)
    assert small.batch == 128
    assert small.output_tokens_per_s_per_accelerator < result.output_tokens_per_s_per_accelerator


def test_an_expert_parallel_replica_has_a_scheduler_per_attention_rank() -> None:
    """gpt-oss-120b fp4 on a GB200 NVL72 at maximum throughput, 1k in / 1k out: DEP64
    runs 64 attention ranks of 1,024 sequences each, 65,536, where memory alone would
    hold more than five times that (small sliding-window KV)."""
    hw, model = HW["gb200-nvl72"], MODELS["gpt-oss-120b"]
    eff = resolve_efficiency(default_calibration(), hw.family, "fp4")
    case = ServingCase("fp4", "fp8", 1024, 1024, context_tokens=4096)
    result = serve(model, hw, case, eff)
    assert result.layout == "DEP64" and result.batch == 64 * 1024
    unbounded = serve(model, hw, replace(case, max_running_sequences=10**9), eff)
    assert unbounded.batch > 5 * result.batch
