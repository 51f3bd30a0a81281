"""Layouts across scale-up domains, latency floors, honest precision and the curve
properties issue-level users rely on (catalog hardware, the built-in efficiency priors:
the shapes pinned here are the roofline's; the shipped calibration, the default since it
became one, moves the numbers, and the tests that use it say so)."""

from __future__ import annotations

import dataclasses
import json
import math
from functools import cache
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from planner.analysis.curves import curve_frame
from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.perf.efficiency import BUILTIN_PRIORS, EfficiencyTable
from planner.perf.inference import ServingCase, serve
from planner.perf.layouts import (
    Layout,
    candidate_layouts,
    decode_step,
    weight_bytes_per_accelerator,
)
from tests.conftest import RunCli

HW, MODELS = hardware_catalog(), model_catalog()
SPEEDS = [float(s) for s in range(10, 201, 10)]
CURVE_HARDWARE = ("b200-hgx", "gb200-nvl72", "h200-hgx", "mi355x-oam8")
PRIORS = BUILTIN_PRIORS
"""The factors of the shapes pinned here (``planner curve --calibration none``)."""


@cache
def curve_points(model: str, precision: str) -> dict[str, list[tuple[float, int]]]:
    """(output tokens/s per accelerator, replica batch) at 10, 20, ... 200 tok/s/user,
    8k in / 1k out."""
    frame = curve_frame(
        MODELS[model], [HW[h] for h in CURVE_HARDWARE], precision, 8192, 1024, SPEEDS, PRIORS
    )
    return {
        h: list(
            zip(
                frame[frame["hardware"] == h]["output_tokens_per_s_per_accelerator"],
                frame[frame["hardware"] == h]["batch"],
                strict=True,
            )
        )
        for h in CURVE_HARDWARE
    }


def curve(model: str, precision: str) -> dict[str, list[float]]:
    return {h: [v for v, _ in points] for h, points in curve_points(model, precision).items()}


NATIVE_PAIRS = [
    (model, precision)
    for model in MODELS
    for precision in ("bf16", "fp8", "fp4")
    if any(hw.is_native(precision) for hw in HW.values())
]


FLOOR_BOUND = 0.5
"""A point whose speed is at least this share of its layout's batch-1 speed is bound by
the step's floors (weight read, collective latency, launches): its step is within 2x of
the batch-1 step, so throughput scales with the batch and not with the speed."""
DENSE_WALL_MARGIN = 10.0 / (2.5 - 1.0)
"""tok/s/user below a dense layout's batch-1 speed where a 2.5x fall over 10 tok/s/user
is physics: with ``t(B) = t_fixed + B t_seq`` a replica at speed ``s`` runs
``B = (1/s − t_fixed) / t_seq``, so throughput ``B s = (1 − s t_fixed) / t_seq`` is linear
in ``s`` and reaches 0 at ``1/t_fixed``; ``X(s) / X(s + 10) > 2.5`` needs ``s + 10``
within 10 / 1.5 = 6.7 tok/s/user of it. (For MoE the step is concave in ``B`` — the
experts a batch touches saturate — so the knee sits at the saturated step's wall, well
below the batch-1 speed, and ``FLOOR_BOUND`` stands in for it.)"""


def batch_one_speed(
    model: ModelSpec,
    hw: HardwareSpec,
    label: str,
    precision: str,
    batch: int = 1,
    context: float = 8192 + 512,
) -> float:
    """Tokens/s/user of layout ``label`` at ``batch`` (default 1) at mean decode
    ``context`` (default 8k in / 1k out)."""
    layout = next(x for x in candidate_layouts(model, hw) if x.label == label)
    eff = EfficiencyTable().lookup(hw.family, precision)
    kv = "fp8" if precision == "fp4" else precision
    return 1.0 / decode_step(model, hw, layout, precision, kv, context, eff).seconds(batch)


def saturated_speed(
    model: ModelSpec, hw: HardwareSpec, label: str, precision: str, context: float = 8192 + 512
) -> float:
    """Tokens/s/user of an MoE layout at the smallest batch that touches 95% of each
    layer's experts, ``ln 0.05 / ln(1 − k/E)`` sequences: from there on every step reads
    (nearly) all the replica's expert weights, ``t(B) ≈ t_sat + B t_seq``, and throughput
    falls linearly to 0 at this speed, as a dense layout's does at its batch-1 speed
    (``DENSE_WALL_MARGIN`` applies below it)."""
    k, experts = model.experts_per_token or 1, model.experts or 1
    batch = math.ceil(math.log(0.05) / math.log1p(-k / experts)) if k < experts else 1
    return batch_one_speed(model, hw, label, precision, batch, context)


@pytest.mark.parametrize(("model", "precision"), NATIVE_PAIRS)
@pytest.mark.parametrize(("prompt", "output"), [(8192, 1024), (1024, 1024), (1024, 8192)])
def test_throughput_never_rises_and_never_jumps_with_interactivity(
    model: str, precision: str, prompt: int, output: int
) -> None:
    """Every catalog hardware with native ``precision`` units, at 8k in / 1k out, 1k / 1k
    and 1k / 8k, 10 … 200 tok/s/user: throughput per accelerator never rises; servable
    points are a prefix and the rest say why; and servable points 10 tok/s/user apart
    differ by at most 2.5x except where the later one is within ``DENSE_WALL_MARGIN``
    of its layout's batch-1 speed (dense) or floor-bound (``FLOOR_BOUND``, MoE) or past
    an MoE layout's expert-saturation wall (:func:`saturated_speed`); at a layout
    switch, the earlier layout's wall or floor counts too. There the step hardly grows
    with the batch, so 10 tok/s/user more can only be had with a several-fold smaller
    batch (time-sharing between batches cannot help: by Little's law the mean speed is
    decode rate over concurrency, planner.perf.frontier)."""
    spec = MODELS[model]
    hardware = [hw for hw in HW.values() if hw.is_native(precision)]
    frame = curve_frame(spec, hardware, precision, prompt, output, SPEEDS, PRIORS)
    context = prompt + output / 2
    for hw_id, rows in frame.groupby("hardware"):
        values = list(rows["output_tokens_per_s_per_accelerator"])
        servable, layouts = list(rows["servable"]), list(rows["layout"])
        assert all(b <= a * (1 + 1e-9) for a, b in pairwise(values)), (hw_id, values)
        last = sum(servable)
        assert servable == [True] * last + [False] * (len(values) - last), hw_id
        reasons = list(rows["reason"])[last:]
        assert all(reasons), hw_id
        if last:  # servable below: the SLO is out of reach
            assert all("unreachable: batch 1 gives" in r for r in reasons), (hw_id, reasons)
        for i in range(last - 1):
            if values[i] <= 2.5 * values[i + 1]:
                continue
            hw = HW[str(hw_id)]
            floor = batch_one_speed(spec, hw, layouts[i + 1], precision, 1, context)
            bound = FLOOR_BOUND * floor if spec.is_moe else floor - DENSE_WALL_MARGIN
            if spec.is_moe:
                # past either layout's expert-saturation wall, or a switch away from a
                # layout that is itself floor-bound at the later speed
                walls = {layouts[i], layouts[i + 1]}
                sat = min(saturated_speed(spec, hw, x, precision, context) for x in walls)
                bound = min(bound, sat - DENSE_WALL_MARGIN)
                if layouts[i] != layouts[i + 1]:
                    before = batch_one_speed(spec, hw, layouts[i], precision, 1, context)
                    bound = min(bound, FLOOR_BOUND * before)
            elif layouts[i] != layouts[i + 1]:
                # a switch forced at the earlier layout's wall (it cannot reach the
                # later speed with more than a sliver of its batch)
                before = batch_one_speed(spec, hw, layouts[i], precision, 1, context)
                bound = min(bound, before - DENSE_WALL_MARGIN)
            assert SPEEDS[i + 1] >= bound, (hw_id, SPEEDS[i], values, layouts)


def test_time_sharing_meets_the_slo_on_average_by_littles_law() -> None:
    """Kimi-K2 fp8 on GB200 NVL72 at 130 tok/s/user: whole batches give DEP64 with 125
    sequences; time-sharing with a larger batch lifts the rate a little and the mean
    speed (decode rate over mean concurrency) is exactly the SLO. 120 → 130 still falls
    about 3x: both points are floor-bound (DEP64 at batch 1: about 140 tok/s/user)."""
    model, hw = MODELS["kimi-k2"], HW["gb200-nvl72"]
    eff = EfficiencyTable().lookup(hw.family, "fp8")
    case = ServingCase("fp8", "fp8", 8192, 1024, context_tokens=9216)
    at = {
        s: serve(model, hw, dataclasses.replace(case, slo_tokens_per_s_per_user=s), eff)
        for s in (120.0, 130.0)
    }
    shared = at[130.0]
    assert shared.layout == "DEP64" and shared.tokens_per_s_per_user == 130.0
    assert shared.decode_tokens_per_s_per_replica / shared.batch == pytest.approx(130.0, rel=0.01)
    layout = Layout("DEP", 64, 1, "racks")
    whole = dataclasses_replace_domain(
        model, hw, dataclasses.replace(case, slo_tokens_per_s_per_user=130.0), layout
    )
    assert whole < shared.output_tokens_per_s_per_accelerator < 1.05 * whole
    ratio = (
        at[120.0].output_tokens_per_s_per_accelerator / shared.output_tokens_per_s_per_accelerator
    )
    assert 2.5 < ratio < 4.0
    assert FLOOR_BOUND * batch_one_speed(model, hw, "DEP64", "fp8") <= 130.0


@pytest.mark.parametrize("hardware", ["b200-hgx", "gb200-nvl72", "mi355x-oam8"])
def test_fp4_over_fp8_on_native_fp4_hardware(hardware: str) -> None:
    fp8, fp4 = curve("deepseek-v3", "fp8")[hardware], curve("deepseek-v3", "fp4")[hardware]
    ratios = [b / a for s, a, b in zip(SPEEDS, fp8, fp4, strict=True) if 20 <= s <= 80]
    assert all(1.2 <= r <= 2.5 for r in ratios), ratios


def test_multi_domain_replica_only_when_strictly_better() -> None:
    model, hw = MODELS["deepseek-v3"], HW["b200-hgx"]
    eff = EfficiencyTable().lookup(hw.family, "fp8")
    for slo in (10.0, 30.0, 50.0, 90.0):
        case = ServingCase("fp8", "fp8", 8192, 1024, slo_tokens_per_s_per_user=slo)
        chosen = serve(model, hw, case, eff)
        if " over " not in chosen.layout:
            continue
        inside = [x for x in candidate_layouts(model, hw) if x.domains == 1]
        for layout in inside:
            one = dataclasses_replace_domain(model, hw, case, layout)
            assert one < chosen.output_tokens_per_s_per_accelerator


def dataclasses_replace_domain(
    model: ModelSpec, hw: HardwareSpec, case: ServingCase, layout: Layout
) -> float:
    """Best colocated tokens/s per accelerator when only ``layout`` is allowed."""
    from planner.perf import inference

    config, _ = inference._configure(
        model,
        hw,
        case,
        layout,
        EfficiencyTable().lookup(hw.family, case.precision),
        inference.prefill_seconds_per_token(
            model,
            hw,
            case.precision,
            case.input_tokens_per_request,
            0.0,
            EfficiencyTable().lookup(hw.family, case.precision),
        ),
    )
    return 0.0 if config is None else config.colocated_per_accelerator


def test_dep_weights_and_layout_labels() -> None:
    v3, hgx = MODELS["deepseek-v3"], HW["h100-hgx"]
    # DEP16: 16.6 B shared params on every GPU plus 654 B of experts over 16 (fp8 bytes)
    dep = Layout("DEP", 16, 2)
    assert weight_bytes_per_accelerator(v3, dep, "fp8") == pytest.approx(
        v3.shared_params_b * 1e9 + (671 - v3.shared_params_b) * 1e9 / 16
    )
    assert dep.label == "DEP16 over 2 nodes" and Layout("TP", 8, 1).label == "TP8"
    labels = [x.label for x in candidate_layouts(v3, hgx)]
    assert labels[-1] == "DEP256 over 32 nodes, TP8 attention"  # no more than 256 experts
    assert "DEP8, TP8 attention" not in labels and "DEP8, TP2 attention" in labels
    assert all(x.kind == "TP" for x in candidate_layouts(MODELS["llama-3.1-70b"], hgx))


def test_scale_out_all_to_all_costs_latency_and_bytes() -> None:
    v3, hgx = MODELS["deepseek-v3"], HW["h100-hgx"]
    eff = EfficiencyTable().lookup("hopper", "fp8")
    inside = decode_step(v3, hgx, Layout("DEP", 8, 1), "fp8", "fp8", 4000, eff)
    across = decode_step(v3, hgx, Layout("DEP", 16, 2), "fp8", "fp8", 4000, eff)
    # 61 layers x (dispatch + combine) x 8 us on NVLink, x 20 us over InfiniBand
    assert inside.comm_latency_s == pytest.approx(61 * 2 * 8e-6)
    assert across.comm_latency_s == pytest.approx(61 * 2 * 20e-6)
    # 8/15 of the all-to-all leaves the node at 50 GB/s instead of 450 GB/s
    remote = 15 * (1 - (1 - 1 / 16) ** 8)
    bytes_per_token = remote * 7168 * (1 + 2)
    expected = 61 * (8 / 15) * bytes_per_token / (50e9 * 0.75) / 16
    assert across.comm_s_per_token == pytest.approx(expected)
    # floors: 2 ms per step plus 61 layers x 10 us
    assert inside.overhead_s == pytest.approx(0.002 + 61 * 10e-6)


def test_non_native_precision_is_served_weight_only_and_labelled() -> None:
    for model in ("llama-3.1-70b", "deepseek-v3"):
        frame = curve_frame(
            MODELS[model],
            [HW["h100-hgx"], HW["tpu-v6e-pod256"], HW["b200-hgx"]],
            "fp4",
            2048,
            512,
            [20.0],
        )
        labels = dict(zip(frame["hardware"], frame["precision"], strict=True))
        assert labels == {"h100-hgx": "w4a8", "tpu-v6e-pod256": "w4a16", "b200-hgx": "fp4"}
    for hw in HW.values():
        for precision in ("bf16", "fp8", "fp4"):
            served = hw.served_precision(precision)
            assert served is None or served == precision or not hw.is_native(precision)


def test_mla_long_context_attention_and_kv_reads_grow_with_context() -> None:
    v3, gb = MODELS["deepseek-v3"], HW["gb200-nvl72"]
    eff = EfficiencyTable().lookup("blackwell", "fp8")
    short = decode_step(v3, gb, Layout("DEP", 64, 1), "fp8", "fp8", 2_000, eff)
    long = decode_step(v3, gb, Layout("DEP", 64, 1), "fp8", "fp8", 64_000, eff)
    # absorbed MLA: 2 * 128 heads * (2 * 512 + 64) FLOPs per layer and attended token
    assert long.attention_flops_per_token * 64 == pytest.approx(2 * 128 * 1088 * 61 * 64_000)
    assert long.kv_bytes_per_sequence / short.kv_bytes_per_sequence == pytest.approx(32)


# --- planner curve ------------------------------------------------------------------------


def test_curve_cli_json_and_plot(run_cli: RunCli, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "c.png"
    code, out, err = run_cli(
        "curve",
        "--model",
        "deepseek-v3",
        "--hardware",
        "b200-hgx,h100-hgx",
        "--precision",
        "fp4",
        "--interactivity",
        "20:60:20",
        "--format",
        "json",
        "--plot",
        png,
    )
    assert code == 0, err
    points = json.loads(out)["points"]
    assert [(p["hardware"], p["interactivity_tokens_per_s_per_user"]) for p in points] == [
        ("b200-hgx", 20.0),
        ("b200-hgx", 40.0),
        ("b200-hgx", 60.0),
        ("h100-hgx", 20.0),
        ("h100-hgx", 40.0),
        ("h100-hgx", 60.0),
    ]
    assert {p["precision"] for p in points} == {"fp4", "w4a8"}
    assert all(p["layout"] and p["usd_per_mtok_output"] > 0 for p in points)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--interactivity", "0"], "--interactivity"),
        (["--interactivity", "10:0:5"], "--interactivity"),
        (["--model", "deepsek-v3"], "did you mean 'deepseek-v3'"),
        (["--hardware", "b200-hgz"], "did you mean 'b200-hgx'"),
        (["--input-tokens", "-5"], "--input-tokens"),
        (["--output-tokens", "0"], "--output-tokens"),
    ],
)
def test_curve_bad_input_exits_2(run_cli: RunCli, args: list[str], needle: str) -> None:
    base = {"--model": "deepseek-v3", "--hardware": "b200-hgx", "--interactivity": "20"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    code, _, err = run_cli("curve", *[x for pair in base.items() for x in pair])
    assert code == 2
    assert needle in err


# --- speculative decoding / multi-token prediction -----------------------------------------


def test_tokens_per_step_from_draft_length_and_acceptance() -> None:
    def case(d: int, a: float) -> ServingCase:
        return ServingCase("fp8", "fp8", 1000, 100, draft_tokens=d, acceptance_rate=a)

    assert case(0, 0.9).tokens_per_step == 1.0
    assert case(1, 0.85).tokens_per_step == pytest.approx(1.85)  # 1 + 0.85
    assert case(3, 0.7).tokens_per_step == pytest.approx((1 - 0.7**4) / 0.3)  # 2.533
    assert case(2, 1.0).tokens_per_step == 3.0


def test_drafts_cost_compute_not_weight_or_kv_reads() -> None:
    v3, b200 = MODELS["deepseek-v3"], HW["b200-hgx"]
    eff = EfficiencyTable().lookup("blackwell", "fp8")
    plain = decode_step(v3, b200, Layout("TP", 8, 1), "fp8", "fp8", 4000, eff)
    mtp = decode_step(v3, b200, Layout("TP", 8, 1), "fp8", "fp8", 4000, eff, draft_tokens=1)
    t_mem, t_compute, _ = plain.components(64)
    t_mem2, t_compute2, _ = mtp.components(32)
    assert t_compute2 == pytest.approx(t_compute)  # 32 sequences x 2 tokens = 64 rows
    assert t_mem2 < t_mem  # half the sequences' KV; weights of 64 routed tokens either way
    assert mtp.overhead_s == pytest.approx(plain.overhead_s + 10e-6)  # one draft launch


def test_mtp_raises_throughput_at_high_interactivity() -> None:
    model, hw = MODELS["deepseek-v3"], HW["b200-hgx"]
    eff = EfficiencyTable().lookup("blackwell", "fp4")
    for slo in (100.0, 150.0):
        plain = ServingCase("fp4", "fp8", 8192, 1024, slo_tokens_per_s_per_user=slo)
        mtp = ServingCase(
            "fp4",
            "fp8",
            8192,
            1024,
            slo_tokens_per_s_per_user=slo,
            draft_tokens=1,
            acceptance_rate=0.85,
        )
        a, b = serve(model, hw, plain, eff), serve(model, hw, mtp, eff)
        assert b.output_tokens_per_s_per_accelerator > a.output_tokens_per_s_per_accelerator
        assert b.tokens_per_s_per_user >= slo


def test_workload_draft_fields_reach_the_case() -> None:
    from planner.scenario.schema import InferenceWorkload

    workload = InferenceWorkload(
        name="w",
        model="deepseek-v3",
        tokens_per_day=1e9,
        draft_tokens=1,
        draft_acceptance_rate=0.85,
    )
    case = ServingCase.from_workload(workload)
    assert (case.draft_tokens, case.acceptance_rate) == (1, 0.85)


def test_curve_cli_mtp_option(run_cli: RunCli) -> None:
    args = ["curve", "--model", "deepseek-v3", "--hardware", "b200-hgx", "--format", "json"]
    code, out, err = run_cli(*args, "--interactivity", "150", "--mtp", "1:0.85")
    assert code == 0, err
    with_mtp = json.loads(out)["points"][0]["output_tokens_per_s_per_accelerator"]
    code, out, _ = run_cli(*args, "--interactivity", "150")
    assert with_mtp > json.loads(out)["points"][0]["output_tokens_per_s_per_accelerator"]
    code, _, err = run_cli(*args, "--mtp", "0:0.5")
    assert code == 2 and "--mtp" in err


# --- pipeline parallelism across scale-up domains ------------------------------------------


def test_pipeline_step_by_hand() -> None:
    """Llama-3.1-405B bf16 on H100 HGX, TP8 PP2 over 2 nodes (810 GB of weights do not
    fit one 8-GPU server)."""
    model, hw = MODELS["llama-3.1-405b"], HW["h100-hgx"]
    eff = EfficiencyTable().lookup("hopper", "bf16")
    layout = Layout("TP", 16, 2, "nodes", pipeline=2)
    assert layout.label == "TP8 PP2 over 2 nodes"
    step = decode_step(model, hw, layout, "bf16", "bf16", 2048.0, eff)
    # each token reads its stage's weights in both stages: 405e9 x 2 B / 8 per GPU
    assert step.fixed_weight_bytes == pytest.approx(405e9 * 2 / 8)
    # 126 layers x 2 all-reduces x 8 us on NVLink, plus 2 hops x 20 us over InfiniBand
    assert step.comm_latency_s == pytest.approx(126 * 2 * 8e-6 + 2 * 20e-6)
    # the ring all-reduce of a stage's 63 layers (2 x 7/8 of 16,384 bf16 values, twice a
    # layer, at 450 GB/s x 0.75) and one 32 KiB activation per token at 50 GB/s x 0.75
    ring = 63 * 2 * (2 * 7 / 8) * 16384 * 2 / (450e9 * 0.75)
    assert step.comm_s_per_token == pytest.approx(ring + 16384 * 2 / (50e9 * 0.75))
    # KV and FLOPs are shared by all 16 GPUs: at batch 32 the step is
    kv = 126 * 2 * 8 * 128 * 2 * 2048 / 16
    t_mem = (405e9 * 2 / 8 + 32 * kv) / (3.35e12 * 0.8)
    assert step.seconds(32) == pytest.approx(
        max(t_mem, float(step.components(32)[1]))
        + step.comm_latency_s
        + 32 * step.comm_s_per_token
        + 0.002
        + 126 * 10e-6
    )
    assert t_mem > float(step.components(32)[1])  # memory-bound at batch 32


def test_pipeline_only_where_no_single_domain_replica_fits() -> None:
    model, hw = MODELS["llama-3.1-405b"], HW["h100-hgx"]
    eff = EfficiencyTable().lookup("hopper", "bf16")
    case = ServingCase("bf16", "bf16", 2048, 512, slo_tokens_per_s_per_user=20.0)
    served = serve(model, hw, case, eff)
    assert served.servable and " PP" in served.layout and "over" in served.layout
    # at fp8 the weights fit one server: TP8, no stages
    fp8 = serve(model, hw, dataclasses.replace(case, precision="fp8", kv_precision="fp8"), eff)
    assert fp8.layout == "TP8"
    # the chosen pipeline beats every other pipeline depth that fits
    for p in (2, 4, 8):
        layout = Layout("TP", 8 * p, p, "nodes", pipeline=p)
        if layout.label != served.layout:
            rate = dataclasses_replace_domain(model, hw, case, layout)
            assert rate <= served.output_tokens_per_s_per_accelerator


def test_rack_scale_advantage_peaks_where_an_8_gpu_server_must_scale_out() -> None:
    """DeepSeek-V3 fp8, 8k in / 1k out, GB200 NVL72 : B200 HGX tokens/s per GPU.

    Up to 40 tok/s/user both keep a replica in one domain (B200 DEP8: its 8 x 180 GB
    hold a large enough batch) and the ratio is the per-GPU HBM and compute, about
    1.15x. From 50 to 130 B200 needs more accelerators than a server has and spreads
    experts over nodes: each step then pays 2 x 61 all-to-alls over 400 Gb/s InfiniBand
    (20 us each, plus the bytes at 50 GB/s per GPU) where GB200 stays on NVLink (8 us,
    900 GB/s), and the ratio rises to about 3x at 110-120. Past 150 both serve from 8-16
    GPUs again (TP8 vs TP16) and the ratio falls back to about 1.1x. Under the built-in
    priors; the shipped calibration lowers Blackwell fp8 decode compute (eta_c 0.55 →
    0.30, fitted on one GB200 row), so B200 scales out from 40 tok/s/user and the peak is
    2.8x at 120 (README)."""
    frame = curve_frame(
        MODELS["deepseek-v3"],
        [HW["b200-hgx"], HW["gb200-nvl72"]],
        "fp8",
        8192,
        1024,
        SPEEDS,
        PRIORS,
    )
    by = {
        h: rows.set_index("interactivity_tokens_per_s_per_user")
        for h, rows in frame.groupby("hardware")
    }
    b200, gb200 = by["b200-hgx"], by["gb200-nvl72"]
    ratio = (
        gb200["output_tokens_per_s_per_accelerator"] / b200["output_tokens_per_s_per_accelerator"]
    )
    low = [s for s in SPEEDS if s <= 40]
    middle = [s for s in SPEEDS if 50 <= s <= 130]
    high = [s for s in SPEEDS if s >= 160]
    assert all(" over " not in b200.loc[s, "layout"] for s in low)
    assert all(" over " in b200.loc[s, "layout"] for s in middle)
    assert all(b200.loc[s, "replica_accelerators"] <= 8 for s in high)
    assert all(gb200.loc[s, "replica_accelerators"] <= 16 for s in high)
    assert all(ratio[s] < 1.3 for s in low + high)
    peak = max(ratio[s] for s in middle)
    assert 2.0 < peak < 4.0  # a small multiple
    assert ratio[200.0] < peak / 2


def test_time_share_by_hand() -> None:
    """Batch 1 at 100 tok/s/user (10 tok/s per accelerator) and batch 10 at 50 (40): at
    80 tok/s/user the slacks ``D − s B`` are +20 and −300, so 300/320 of the time runs
    batch 1; mean concurrency 1.5625, decode rate 0.9375·100 + 0.0625·500 = 125, mean
    speed 125 / 1.5625 = 80 (not the time average of the speeds, 96.9)."""
    from planner.perf.frontier import Frontier, best_at_speed

    layout = Layout("TP", 1, 1)
    front = Frontier(
        (layout,),
        batch=np.array([[1, 10]]),
        step_s=np.array([[0.01, 0.02]]),
        speed=np.array([[100.0, 50.0]]),
        per_accelerator=np.array([[10.0, 40.0]]),
        usable=np.array([[True, True]]),
    )
    mix = best_at_speed(front, 80.0)
    assert mix is not None and mix.low.batch == 1 and mix.high.batch == 10
    assert mix.share == pytest.approx(300 / 320)
    assert mix.mean_batch == pytest.approx(1.5625)
    assert mix.per_accelerator == pytest.approx(0.9375 * 10 + 0.0625 * 40)
    assert best_at_speed(front, 101.0) is None  # faster than batch 1
    alone = best_at_speed(front, 40.0)  # batch 10 is fast enough alone
    assert alone is not None and alone.low.batch == 10 and alone.per_accelerator == 40.0


def test_a_narrower_format_at_the_wider_ones_rate_keeps_its_prefill_mfu() -> None:
    """The built-in prefill MFU falls at fp8 / fp4 (0.40 / 0.32 → 0.32 / 0.25 on the less
    tuned stacks) because the non-GEMM work does not speed up when the peak doubles. Where
    the narrower format has no faster units (Trainium3 MXFP4 at the MXFP8 rate, Gaudi 3
    FP8 at the BF16 rate) nothing speeds up, so the MFU stays the wider format's and a
    prompt never prefills slower in the narrower one."""
    from planner.perf.roofline import prefill_seconds_per_token

    table, same_rate = EfficiencyTable(), set()
    for hw in HW.values():
        for narrow, wide in (("fp4", "fp8"), ("fp8", "bf16")):
            if not (hw.is_native(narrow) and hw.is_native(wide)):
                continue
            if hw.peak_tflops(narrow) != hw.peak_tflops(wide):
                continue
            same_rate.add((hw.id, narrow))
            fast, slow = table.lookup(hw.family, narrow), table.lookup(hw.family, wide)
            assert fast.prefill_mfu == slow.prefill_mfu, (hw.id, narrow)
            for model in ("llama-3.1-70b", "deepseek-v3"):
                spec = MODELS[model]
                narrow_s = prefill_seconds_per_token(spec, hw, narrow, 8192, 0.0, fast)
                assert narrow_s <= prefill_seconds_per_token(spec, hw, wide, 8192, 0.0, slow)
    assert same_rate == {("trn3-ultraserver144", "fp4"), ("gaudi3-oam8", "fp8")}


@pytest.mark.parametrize(
    ("model", "precision"),
    [("deepseek-v3", "fp8"), ("deepseek-v3", "fp4"), ("llama-3.1-70b", "fp8")],
)
def test_curves_under_the_shipped_calibration_never_rise(model: str, precision: str) -> None:
    """What `planner curve` shows by default (the shipped calibration): throughput per
    accelerator never rises with interactivity, and servable points are a prefix."""
    hardware = [hw for hw in HW.values() if hw.is_native(precision)]
    frame = curve_frame(MODELS[model], hardware, precision, 8192, 1024, SPEEDS)
    for hw_id, rows in frame.groupby("hardware"):
        values = list(rows["output_tokens_per_s_per_accelerator"])
        assert all(b <= a * (1 + 1e-9) for a, b in pairwise(values)), (hw_id, values)
        servable = list(rows["servable"])
        assert servable == sorted(servable, reverse=True), hw_id


def test_fp4_weights_never_serve_fewer_tokens_than_fp8_on_native_fp4_hardware() -> None:
    """Every part with fp4 units, 8k in / 1k out, 10 … 200 tok/s/user: halving the weight
    bytes never lowers throughput. Where fp4 runs at the fp8 rate (Trainium3) it gains
    only the weight reads, so the 1.2x floor of the test above does not apply there.
    With the shipped calibration (the default, what `planner curve` shows), whose
    Blackwell fp4 and fp8 entries are fitted apart."""
    hardware = [hw for hw in HW.values() if hw.is_native("fp4")]
    spec = MODELS["deepseek-v3"]
    fp8 = curve_frame(spec, hardware, "fp8", 8192, 1024, SPEEDS)
    fp4 = curve_frame(spec, hardware, "fp4", 8192, 1024, SPEEDS)
    column = "output_tokens_per_s_per_accelerator"
    served = (fp8[column] > 0).to_numpy()  # rubin-cpx only prefills; past the wall: none
    ratio = fp4[column].to_numpy()[served] / fp8[column].to_numpy()[served]
    speeds = fp8["interactivity_tokens_per_s_per_user"][served]
    where = list(zip(fp8["hardware"][served], speeds, strict=True))
    assert (ratio >= 1.0).all(), sorted(zip(ratio, where, strict=True))[:3]
    trn3 = (fp8["hardware"][served] == "trn3-ultraserver144").to_numpy()
    assert ratio[trn3].min() < 1.2  # no fp4 compute gain: the floor above is not physics here
