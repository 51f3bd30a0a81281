"""``planner throughput``, ``planner calibrate`` and ``planner perf-check`` run in-process."""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest

from planner.perf.inference import INFERENCE_COLUMNS

DATA = Path(__file__).resolve().parents[1] / "data"
MLPERF = DATA / "mlperf-inference-v4.1.csv"

SCENARIO = """\
name: small
horizon: {start: 2026, years: 2}
sites:
  - {name: s, power_cap_mw: 50}
hardware:
  - id: h100-hgx
  - id: h200-hgx
models:
  - id: llama-3.1-70b
  - id: llama-3.1-405b
training:
  - {name: pretrain, model: llama-3.1-70b, tokens: 1.0e12, precision: bf16, window: [2026, 2026]}
inference:
  - name: chat
    model: llama-3.1-70b
    tokens_per_day: 1.0e10
    slo_tokens_per_s_per_user: 40
  - name: big
    model: llama-3.1-405b
    precision: bf16
    tokens_per_day: 1.0e9
"""


@pytest.mark.parametrize("command", ["throughput", "calibrate", "perf-check"])
def test_help_has_an_example(run_cli, command: str) -> None:
    code, out, _ = run_cli(command, "--help")
    assert code == 0
    assert "Example" in out and f"planner {command}" in out


def test_perf_check_prints_rows_and_median(run_cli) -> None:
    code, out, _ = run_cli("perf-check", MLPERF)
    assert code == 0
    assert "abs % error: median" in out
    assert "h100-hgx" in out and "mixtral-8x7b" in out


def test_perf_check_json(run_cli) -> None:
    code, out, _ = run_cli("perf-check", MLPERF, "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert len(document["rows"]) == 10
    assert document["summary"]["rows"] == 10
    before = document["summary"]["median_abs_pct_error"]
    print(f"MLPerf fixture, shipped calibration: median abs error {before:.1f}%")
    assert 0 < before < 50


def test_calibrate_then_check_dense_rows_under_15_percent(run_cli, tmp_path: Path) -> None:
    calibration = tmp_path / "calibration.yaml"
    code, out, err = run_cli("calibrate", MLPERF, "--out", calibration)
    assert code == 0, err
    assert "abs % error before: median" in out and "abs % error after (in-sample):" in out
    assert calibration.is_file() and f"wrote {calibration}" in err
    code, out, _ = run_cli("perf-check", MLPERF, "--calibration", calibration, "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    dense = [r["abs_pct_error"] for r in rows if r["model"] == "llama-2-70b"]
    print(f"MLPerf dense rows after calibration: median {statistics.median(dense):.1f}%")
    assert statistics.median(dense) < 15.0


def test_calibrate_json(run_cli, tmp_path: Path) -> None:
    code, out, _ = run_cli("calibrate", MLPERF, "--out", tmp_path / "c.yaml", "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert document["after"]["median_abs_pct_error"] < document["before"]["median_abs_pct_error"]
    assert {g["family"] for g in document["groups"]} == {"hopper", "cdna3"}


def test_perf_check_out_keeps_input_order_and_columns(run_cli, tmp_path: Path) -> None:
    bench = tmp_path / "bench.csv"
    bench.write_text(
        "note,hardware,model,precision,input_tokens,output_tokens,"
        "tokens_per_s_per_accelerator,tokens_per_s_per_user,lab\n"
        "z-first,mi300x-oam8,llama-2-70b,fp8,300,290,2976.5,,amd\n"
        # 810 GB of bf16 weights on 8 x 48 GB, no scale-out to pipeline over: cannot run
        'a-second,l40s-pcie8,llama-3.1-405b,bf16,1000,1000,100,,"x, quoted"\n'
        "m-third,h100-hgx,llama-2-70b,fp8,300,290,2698.5,6.2,nv\n",
        encoding="utf-8",
    )
    out_file = tmp_path / "checked.csv"
    code, _, err = run_cli("perf-check", bench, "--out", out_file, "--format", "csv")
    assert code == 0, err
    with out_file.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    header = out_file.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[:9] == [
        "note",
        "hardware",
        "model",
        "precision",
        "input_tokens",
        "output_tokens",
        "tokens_per_s_per_accelerator",
        "tokens_per_s_per_user",
        "lab",
    ]
    assert header[9:] == [
        "predicted_tokens_per_s_per_accelerator",
        "abs_pct_error",
        "binding",
        "reason",
    ]
    assert [r["note"] for r in rows] == ["z-first", "a-second", "m-third"]
    assert rows[1]["lab"] == "x, quoted" and rows[1]["tokens_per_s_per_user"] == ""
    cannot = rows[1]
    assert cannot["predicted_tokens_per_s_per_accelerator"] == ""
    assert cannot["abs_pct_error"] == ""
    assert cannot["reason"].startswith("needs ")
    for row in (rows[0], rows[2]):
        assert float(row["predicted_tokens_per_s_per_accelerator"]) > 0
        assert float(row["abs_pct_error"]) >= 0 and row["reason"] == ""


def test_bad_benchmark_csv_exits_2_naming_line_and_column(run_cli, tmp_path: Path) -> None:
    bench = tmp_path / "bench.csv"
    bench.write_text(
        "hardware,model,precision,input_tokens,output_tokens,tokens_per_s_per_accelerator\n"
        "h100-hgx,llama-2-70b,fp8,300,290,3000\n"
        "h100-hgx,lama-2-70b,fp8,300,290,3000\n",
        encoding="utf-8",
    )
    for command in ("perf-check", "calibrate"):
        extra = ["--out", str(tmp_path / "c.yaml")] if command == "calibrate" else []
        code, out, err = run_cli(command, bench, *extra)
        assert code == 2
        assert out == ""
        assert str(bench) in err and "line 3" in err and "column model" in err
        assert "did you mean 'llama-2-70b'" in err
        assert "Traceback" not in err
    code, _, err = run_cli("perf-check", tmp_path / "missing.csv")
    assert code == 2 and "file not found" in err


BENCH_HEADER = (
    "hardware,model,precision,input_tokens,output_tokens,tokens_per_s_per_accelerator,"
    "tokens_per_s_per_user,accelerators,ttft_s\n"
)
GOOD_ROW = "h100-hgx,llama-2-70b,fp8,300,290,2698.5,6.2,8,2\n"


@pytest.mark.parametrize(
    ("bad_row", "column", "needles"),
    [
        ("h100-hgq,llama-2-70b,fp8,300,290,2698.5,6.2,8,2", "hardware", ["unknown id 'h100-hgq'"]),
        ("h100-hgx,llama-2-70b,fp8,300,290,0,6.2,8,2", "tokens_per_s_per_accelerator", ["> 0"]),
        ("h100-hgx,llama-2-70b,fp8,300,290,-3,6.2,8,2", "tokens_per_s_per_accelerator", ["> 0"]),
        ("h100-hgx,llama-2-70b,fp8,300,290,2698.5,0,8,2", "tokens_per_s_per_user", ["> 0"]),
        ("h100-hgx,llama-2-70b,fp8,300,290,2698.5,-6.2,8,2", "tokens_per_s_per_user", ["> 0"]),
        ("h100-hgx,llama-2-70b,fp8,300,290,2698.5,6.2,8,0", "ttft_s", ["> 0"]),
        ("h100-hgx,llama-2-70b,fp8,300,290,2698.5,6.2,8,2s", "ttft_s", ["not a number"]),
        # 2 · 69e9 · 300 FLOPs over 8 x 1,979 TFLOP/s: 2.6 ms, whatever the calibration
        (
            "h100-hgx,llama-2-70b,fp8,300,290,2698.5,6.2,8,0.002",
            "ttft_s",
            ["below the prefill floor of 0.00263 s", "at least 0.00263 s"],
        ),
    ],
)
def test_bad_benchmark_cell_exits_2_naming_file_line_and_column(
    run_cli, tmp_path: Path, bad_row: str, column: str, needles: list[str]
) -> None:
    bench = tmp_path / "bench.csv"
    bench.write_text(BENCH_HEADER + GOOD_ROW + bad_row + "\n", encoding="utf-8")
    for command in ("perf-check", "calibrate"):
        extra = ["--out", str(tmp_path / "c.yaml")] if command == "calibrate" else []
        code, out, err = run_cli(command, bench, *extra)
        assert code == 2, err
        assert out == "" and "Traceback" not in err
        assert f"{bench}, line 3: column {column}:" in err
        for needle in needles:
            assert needle in err
    assert not (tmp_path / "c.yaml").exists()


def test_perf_check_honours_ttft_s(run_cli, tmp_path: Path) -> None:
    """The MLPerf Llama-2-70B Server row under its 2 s TTFT limit, and under 20 ms: the
    tighter limit lowers the prediction."""
    bench = tmp_path / "bench.csv"
    tight = GOOD_ROW.replace(",8,2\n", ",8,0.02\n")
    bench.write_text(BENCH_HEADER + GOOD_ROW + tight, encoding="utf-8")
    code, out, err = run_cli("perf-check", bench, "--format", "json")
    assert code == 0, err
    loose_row, tight_row = json.loads(out)["rows"]
    loose_value = loose_row["predicted_tokens_per_s_per_accelerator"]
    assert 0 < tight_row["predicted_tokens_per_s_per_accelerator"] < loose_value


def write_scenario(tmp_path: Path, extra: str = "") -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir(exist_ok=True)
    path = folder / "small.yaml"
    path.write_text(SCENARIO + extra, encoding="utf-8")
    return path


def test_throughput_json(run_cli, tmp_path: Path) -> None:
    code, out, err = run_cli("throughput", write_scenario(tmp_path), "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert document["year"] == 2026
    inference = document["inference"]
    assert len(inference) == 4
    assert set(INFERENCE_COLUMNS) <= set(inference[0])
    chat = next(r for r in inference if r["workload"] == "chat" and r["hardware"] == "h100-hgx")
    assert (
        chat["servable"]
        and chat["usd_per_mtok_output"] > 0
        and chat["usd_per_accelerator_hour"] > 0
    )
    assert chat["usd_per_mtok_all_tokens"] == pytest.approx(chat["usd_per_mtok_output"] / 4)
    big = next(r for r in inference if r["workload"] == "big" and r["hardware"] == "h100-hgx")
    assert not big["servable"] and big["usd_per_mtok_output"] is None and big["reason"]
    training = document["training"]
    assert {r["run"] for r in training} == {"pretrain"}
    assert {"days_to_finish", "goodput", "cluster_units", "accelerator_hours"} <= set(training[0])


def test_throughput_table_and_csv(run_cli, tmp_path: Path) -> None:
    path = write_scenario(tmp_path)
    code, out, _ = run_cli("throughput", path)
    assert code == 0 and "Inference throughput" in out and "Training throughput" in out
    code, out, _ = run_cli(
        "throughput", path, "--only", "inference", "--format", "csv", "--year", "2027"
    )
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("workload,hardware,model,precision,servable")
    assert len(lines) == 5


def test_throughput_uses_scenario_calibration_relative_to_file(run_cli, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "calibration: slow.yaml\n")
    (path.parent / "slow.yaml").write_text(
        "format: planner-calibration/1\nshared: {eta_bw: 0.2, eta_c: 0.1, prefill_mfu: 0.1}\n"
        "families: {hopper: {all: {eta_bw: 0.2, eta_c: 0.1}}}\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("throughput", path, "--format", "json", "--only", "inference")
    assert code == 0, err
    assert f"calibration: {path.parent / 'slow.yaml'}" in err
    slow = json.loads(out)["inference"]
    code, out, _ = run_cli(
        "throughput", write_scenario(tmp_path), "--format", "json", "--only", "inference"
    )
    fast = json.loads(out)["inference"]
    assert slow[0]["output_tokens_per_s_per_unit"] < fast[0]["output_tokens_per_s_per_unit"]


SHIPPED = DATA / "serving-calibration.yaml"


def _inference(run_cli, path: Path, *extra: str | Path) -> tuple[list[dict], str]:
    code, out, err = run_cli("throughput", path, "--format", "json", "--only", "inference", *extra)
    assert code == 0, err
    return json.loads(out)["inference"], err


def test_throughput_default_is_the_shipped_calibration(run_cli, tmp_path: Path) -> None:
    """No `calibration:` key and a key naming the shipped file print the same table; each
    says which calibration it used."""
    default, err = _inference(run_cli, write_scenario(tmp_path))
    assert "calibration: the shipped default (planner/perf/data/serving-calibration.yaml" in err
    named_path = tmp_path / "named" / "small.yaml"
    named_path.parent.mkdir()
    named_path.write_text(SCENARIO + f"calibration: {SHIPPED}\n", encoding="utf-8")
    named, err = _inference(run_cli, named_path)
    assert f"calibration: {SHIPPED}" in err
    assert named == default
    option, _ = _inference(run_cli, write_scenario(tmp_path), "--calibration", SHIPPED)
    assert option == default


def test_throughput_calibration_none_gives_the_raw_priors(run_cli, tmp_path: Path) -> None:
    """`--calibration none` replaces the default and a scenario's own file alike with the
    built-in priors: chat on H100 at its pre-default number (batch 220, 7,847 tok/s per
    unit; 8,206 with the shipped calibration)."""
    raw, err = _inference(run_cli, write_scenario(tmp_path), "--calibration", "none")
    assert "calibration: none (built-in priors)" in err
    chat = next(r for r in raw if r["workload"] == "chat" and r["hardware"] == "h100-hgx")
    assert chat["batch"] == 220
    assert chat["output_tokens_per_s_per_unit"] == pytest.approx(7847.480285299657, rel=1e-9)
    default, _ = _inference(run_cli, write_scenario(tmp_path))
    calibrated = next(r for r in default if r["workload"] == "chat" and r["hardware"] == "h100-hgx")
    # 8,234.36 before the refit with engines capping their running sequences
    assert calibrated["output_tokens_per_s_per_unit"] == pytest.approx(8206.32733964599, rel=1e-9)
    path = write_scenario(tmp_path, f"calibration: {SHIPPED}\n")
    assert _inference(run_cli, path, "--calibration", "none")[0] == raw
    said, err = _inference(run_cli, write_scenario(tmp_path, "calibration: none\n"))
    assert said == raw and "calibration: none (built-in priors)" in err


def test_throughput_bad_year_and_bad_scenario(run_cli, tmp_path: Path) -> None:
    code, _, err = run_cli("throughput", write_scenario(tmp_path), "--year", "2040")
    assert code == 2 and "outside the scenario horizon" in err
    code, _, err = run_cli("throughput", tmp_path / "none.yaml")
    assert code == 2


def test_perf_check_names_what_is_served_never_a_precision_without_units(
    run_cli, tmp_path: Path
) -> None:
    """A row measured "fp4" on H100 (no fp4 units) is predicted as w4a8 and shown so, in the
    table and in the worst-row label; a native pair keeps its precision."""
    bench = tmp_path / "bench.csv"
    bench.write_text(
        "hardware,model,precision,input_tokens,output_tokens,tokens_per_s_per_accelerator\n"
        "h100-hgx,llama-3.1-70b,fp4,1000,1000,100\n"
        "b200-hgx,llama-3.1-70b,fp4,1000,1000,9000\n",
        encoding="utf-8",
    )
    code, out, err = run_cli("perf-check", bench, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert [r["precision"] for r in document["rows"]] == ["w4a8", "fp4"]
    assert document["summary"]["worst_row"] == "h100-hgx llama-3.1-70b w4a8 (line 2)"
    code, out, _ = run_cli("perf-check", bench, "--format", "table")
    assert code == 0 and "w4a8" in out


MOE = DATA / "moe-serving-reference.csv"


def test_calibrate_then_check_both_files_meets_dense_and_moe_targets(
    run_cli, tmp_path: Path
) -> None:
    """The README's figures as a user gets them: `planner calibrate` on both data files,
    then `perf-check` on both with that calibration: median ≤ 10% on the dense rows and
    ≤ 20% on the MoE rows, reported apart; rows say which file they come from."""
    calibration = tmp_path / "both.yaml"
    code, _, err = run_cli("calibrate", MLPERF, MOE, "--out", calibration)
    assert code == 0, err
    code, out, err = run_cli(
        "perf-check", MLPERF, MOE, "--calibration", calibration, "--format", "json"
    )
    assert code == 0, err
    document = json.loads(out)
    assert {r["file"] for r in document["rows"]} == {MLPERF.name, MOE.name}
    dense, moe = document["dense"], document["moe"]
    print(f"dense {dense['median_abs_pct_error']:.1f}%, MoE {moe['median_abs_pct_error']:.1f}%")
    assert (dense["rows"], moe["rows"], document["summary"]["rows"]) == (6, 12, 18)
    assert dense["median_abs_pct_error"] <= 10.0 and moe["median_abs_pct_error"] <= 20.0
    code, out, _ = run_cli("perf-check", MLPERF, MOE, "--calibration", calibration)
    assert code == 0 and "dense rows: median" in out and "MoE rows: median" in out


def test_perf_check_default_is_the_shipped_calibration_and_none_the_priors(run_cli) -> None:
    """Medians over both files: the default equals naming the shipped file; `none` gives
    what perf-check printed before the shipped calibration was the default."""

    def summary(*extra: str | Path) -> dict:
        code, out, err = run_cli("perf-check", MLPERF, MOE, "--format", "json", *extra)
        assert code == 0, err
        return json.loads(out)

    default, named, raw = (
        summary(),
        summary("--calibration", SHIPPED),
        summary("--calibration", "none"),
    )
    assert default == named
    # 14.26 / 12.49 / 15.10 before engines capped their running sequences per scheduler
    assert raw["summary"]["median_abs_pct_error"] == pytest.approx(13.687117506108194, rel=1e-9)
    assert raw["dense"]["median_abs_pct_error"] == pytest.approx(12.481980816354476, rel=1e-9)
    assert raw["moe"]["median_abs_pct_error"] == pytest.approx(14.001892740078809, rel=1e-9)
    print(
        f"default: {default['summary']['median_abs_pct_error']:.1f}%, "
        f"none: {raw['summary']['median_abs_pct_error']:.1f}%"
    )
    assert default["summary"]["median_abs_pct_error"] < raw["summary"]["median_abs_pct_error"]


def test_curve_calibration_none_and_default(run_cli) -> None:
    args = ["curve", "--model", "llama-3.1-70b", "--hardware", "h100-hgx", "--precision", "fp8"]
    args += ["--interactivity", "40", "--format", "json"]

    def tokens(*extra: str | Path) -> float:
        code, out, err = run_cli(*args, *extra)
        assert code == 0, err
        return json.loads(out)["points"][0]["output_tokens_per_s_per_accelerator"]

    default = tokens()
    assert default == tokens("--calibration", SHIPPED)
    assert default != tokens("--calibration", "none")


def test_perf_check_out_takes_one_file(run_cli, tmp_path: Path) -> None:
    code, _, err = run_cli("perf-check", MLPERF, MOE, "--out", tmp_path / "checked.csv")
    assert code == 2 and "--out" in err and "2 BENCH.csv files" in err
    assert not (tmp_path / "checked.csv").exists()
