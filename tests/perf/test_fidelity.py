"""``planner fidelity``, throughput_scale and Monte Carlo's --perf-error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.analysis.params import Change, LogNormal, Parameter, apply_changes
from planner.cli.analysis_cmds import _with_perf_error
from planner.perf.fidelity import perf_error_sigmas, shipped_benchmark_files
from planner.perf.inference import inference_table
from planner.perf.training import training_table
from planner.scenario.schema import Scenario

SCENARIO = {
    "name": "scaled",
    "horizon": {"start": 2026, "years": 1},
    "sites": [{"name": "s", "power_cap_mw": 50}],
    "hardware": [{"id": "h100-hgx"}],
    "models": [{"id": "llama-3.1-8b"}],
    "training": [{"name": "t", "model": "llama-3.1-8b", "tokens": 1e12, "window": [2026, 2026]}],
    "inference": [
        {
            "name": "chat",
            "model": "llama-3.1-8b",
            "tokens_per_day": 1e9,
            "slo_tokens_per_s_per_user": 40,
        }
    ],
}


def test_fidelity_checks_every_shipped_file_and_reports_totals(run_cli) -> None:
    names = {p.name for p in shipped_benchmark_files()}
    assert {"mlperf-training-v5.0.csv", "mlperf-inference-v4.1.csv"} <= names
    code, out, err = run_cli("fidelity", "--format", "json")
    assert code == 0, err
    groups = {(g["domain"], g["group"]): g for g in json.loads(out)["groups"]}
    assert groups["training", "all"]["rows"] >= 60
    assert groups["training", "all"]["median_abs_pct"] < 10.0
    assert groups["training", "hopper fp8 pretrain"]["median_abs_pct"] < 5.0
    assert {("inference", "dense"), ("inference", "moe")} <= set(groups)
    worst = groups["training", "all"]
    assert abs(worst["worst_pct"]) >= worst["median_abs_pct"] and worst["worst_row"]


def test_fidelity_without_calibration_is_worse_on_inference(run_cli) -> None:
    """The inference rows the shipped calibration was fitted on: the raw priors miss more."""
    data = Path(__file__).resolve().parents[2] / "planner/perf/data/benchmarks"
    files = [data / "mlperf-inference-v4.1.csv", data / "moe-serving-reference.csv"]
    medians = {}
    for option in ("default", "none"):
        extra = ["--calibration", "none"] if option == "none" else []
        code, out, err = run_cli("fidelity", *files, *extra, "--format", "json")
        assert code == 0, err
        groups = {g["group"]: g for g in json.loads(out)["groups"]}
        medians[option] = groups["moe"]["median_abs_pct"]
    assert medians["default"] < medians["none"]


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ("h100-hgxx,llama-3.1-405b,fp8,pretrain,512,1152,8192,300", "column hardware"),
        ("h100-hgx,llama-3.1-405b,fp8,pretrain,512,1152,8192,-3", "tokens_per_s_per_accelerator"),
        ("h100-hgx,llama-3.1-405b,fp8,finetune,512,1152,8192,300", "column kind"),
        ("h100-hgx,llama-3.1-405b,fp8,pretrain,51.5,1152,8192,300", "column accelerators"),
    ],
)
def test_bad_training_csv_exits_2_naming_file_line_and_column(
    run_cli, tmp_path: Path, line: str, column: str
) -> None:
    bench = tmp_path / "train.csv"
    bench.write_text(
        "hardware,model,precision,kind,accelerators,global_batch_sequences,sequence_tokens,"
        "tokens_per_s_per_accelerator\n"
        "h100-hgx,llama-3.1-405b,fp8,pretrain,512,1152,8192,300\n" + line + "\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("fidelity", bench)
    assert code == 2 and out == ""
    assert str(bench) in err and "line 3" in err and column in err
    assert "Traceback" not in err


def test_throughput_scale_multiplies_every_rate() -> None:
    base = Scenario.model_validate(SCENARIO)
    half = Scenario.model_validate(
        {**SCENARIO, "throughput_scale": {"training": 0.5, "inference": 0.5}}
    )
    inf, inf_half = inference_table(base), inference_table(half)
    for column in ("output_tokens_per_s_per_unit", "decode_tokens_per_s_per_unit"):
        assert float(inf_half[column].iloc[0]) == pytest.approx(0.5 * float(inf[column].iloc[0]))
    train, train_half = training_table(base).iloc[0], training_table(half).iloc[0]
    # half the rate per accelerator: about twice the cluster, the same work done
    assert train_half.sustained_tflops_per_accelerator == pytest.approx(
        0.5
        * train.sustained_tflops_per_accelerator
        * train_half.scaling_efficiency
        / train.scaling_efficiency
    )
    assert train_half.cluster_units >= 2 * train.cluster_units - 1


def test_perf_error_multiplies_the_scenario_s_scale_for_the_work_it_has() -> None:
    """--perf-error adds lognormal(1, σ) multipliers on the scenario's own
    throughput_scale, σ from the measured error (training ~6% median: σ ≈ 0.08, below
    inference's), only for the kinds of work the scenario has; a user's own
    distribution for a path is kept."""
    sigmas = perf_error_sigmas()
    assert 0.05 < sigmas["training"] < 0.12 < sigmas["inference"]
    scenario = Scenario.model_validate({**SCENARIO, "throughput_scale": {"training": 0.6}})
    added = {p.path: p for p in _with_perf_error((), scenario)}
    assert set(added) == {"throughput_scale.training", "throughput_scale.inference"}
    dist = added["throughput_scale.training"].distribution
    assert added["throughput_scale.training"].multiplier  # the scenario's 0.6 stays 0.6 × draw
    drawn = Change("throughput_scale.training", 1.1, multiplier=True)
    document = apply_changes(scenario.model_dump(mode="python"), (drawn,), [2026])
    assert document["throughput_scale"]["training"] == pytest.approx(0.66)
    assert isinstance(dist, LogNormal) and dist.median == 1.0
    assert dist.sigma == pytest.approx(sigmas["training"])
    serving_only = Scenario.model_validate({**SCENARIO, "training": []})
    assert [p.path for p in _with_perf_error((), serving_only)] == ["throughput_scale.inference"]
    own = Parameter("throughput_scale.inference", distribution=LogNormal(1.0, 0.05))
    kept = {p.path: p for p in _with_perf_error((own,), scenario)}
    assert kept["throughput_scale.inference"] is own
