"""Layouts across scale-up domains, latency floors, honest precision and the curve
properties issue-level users rely on (catalog hardware, built-in efficiency factors)."""

from __future__ import annotations

import json
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

from planner.analysis.curves import curve_frame
from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.perf.efficiency import EfficiencyTable
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


@cache
def curve_points(model: str, precision: str) -> dict[str, list[tuple[float, int]]]:
    """(output tokens/s per accelerator, replica batch) at 10, 20, ... 200 tok/s/user,
    8k in / 1k out."""
    frame = curve_frame(
        MODELS[model], [HW[h] for h in CURVE_HARDWARE], precision, 8192, 1024, SPEEDS
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


TAIL_BATCH = 16
"""Below this many sequences per replica the integer batch dominates: near the latency
floor one sequence more or less is a large share of the throughput."""


@pytest.mark.parametrize(
    ("model", "precision"),
    [("deepseek-v3", "fp8"), ("deepseek-v3", "fp4"), ("llama-3.1-70b", "fp8")],
)
def test_throughput_never_rises_and_never_jumps_with_interactivity(
    model: str, precision: str
) -> None:
    for hardware, points in curve_points(model, precision).items():
        values = [v for v, _ in points]
        assert values[0] > 0, hardware
        assert all(b <= a * (1 + 1e-9) for a, b in pairwise(values)), hardware
        # points 10 tok/s/user apart never differ by more than 2.5x, down to the
        # integer-batch tail at the latency floor
        for (a, _), (b, batch) in pairwise(points):
            if b > 0 and batch >= TAIL_BATCH:
                assert a / b <= 2.5, (hardware, points)
        upto = [v for s, v in zip(SPEEDS, values, strict=True) if s <= 100]
        assert all(b > 0 and a / b <= 2.5 for a, b in pairwise(upto)), (hardware, upto)


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
        (["--model", "deepseek-v4"], "did you mean 'deepseek-v3'"),
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
