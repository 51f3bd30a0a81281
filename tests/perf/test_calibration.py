"""Benchmark CSVs, predictions, the fit, calibration files and the MoE reference points."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from planner.errors import InputError
from planner.perf.benchmarks import read_benchmarks
from planner.perf.calibration import error_summary, fit, nelder_mead, predict
from planner.perf.efficiency import (
    BUILTIN_PRIORS,
    DEFAULT_CALIBRATION_FILE,
    Efficiency,
    EfficiencyTable,
    calibration_table,
    default_calibration,
    load_calibration,
    resolve_efficiency,
    save_calibration,
)
from planner.perf.inference import serve

DATA = Path(__file__).resolve().parents[1] / "data"
MLPERF = DATA / "mlperf-inference-v4.1.csv"
MOE_REFERENCE = DATA / "moe-serving-reference.csv"
HEADER = "hardware,model,precision,input_tokens,output_tokens,tokens_per_s_per_accelerator"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bench.csv"
    path.write_text(text, encoding="utf-8")
    return path


# --- reading -------------------------------------------------------------------------


def test_reads_fixture_in_order_with_slo_and_extra_columns() -> None:
    bench = read_benchmarks(MLPERF)
    assert len(bench.rows) == 10
    assert [r.line for r in bench.rows] == list(range(2, 12))
    assert "scenario" in bench.columns and "source" in bench.columns
    offline, server = bench.rows[0], bench.rows[1]
    assert offline.case.slo_tokens_per_s_per_user is None  # max throughput
    assert server.case.slo_tokens_per_s_per_user == 6.2
    assert server.cells["scenario"] == "Server"


def test_concurrency_fixes_batch_per_accelerator(tmp_path: Path) -> None:
    text = HEADER + ",concurrency,accelerators\nh200-hgx,llama-2-70b,fp8,300,290,3000,64,8\n"
    row = read_benchmarks(write(tmp_path, text)).rows[0]
    assert row.case.concurrency_per_accelerator == 8.0
    result = serve(row.model, row.hardware, row.case, Efficiency())
    assert result.batch == 8 * result.replica_accelerators


@pytest.mark.parametrize(
    "text, needles",
    [
        ("hardware,model\nh100-hgx,llama-2-70b\n", ["line 1", "missing column(s)", "precision"]),
        (
            HEADER + "\nh100-hgx,llama-2-70b,fp8,abc,290,3000\n",
            ["line 2", "column input_tokens", "not a number"],
        ),
        (
            HEADER + "\nh100-hgx,llama-2-70b,fp8,300,290,-5\n",
            ["line 2", "tokens_per_s_per_accelerator", "out of range"],
        ),
        (
            HEADER + "\nh100-hgz,llama-2-70b,fp8,300,290,3000\n",
            ["line 2", "column hardware", "did you mean 'h100-hgx'"],
        ),
        (
            HEADER + "\nh100-hgx,llama-2-70x,fp8,300,290,3000\n",
            ["column model", "did you mean 'llama-2-70b'"],
        ),
        (
            HEADER + "\nh100-hgx,llama-2-70b,fp9,300,290,3000\n",
            ["column precision", "did you mean 'fp8'"],
        ),
        (HEADER + "\nh100-hgx,llama-2-70b,fp8,300,290\n", ["line 2", "5 cells, the header has 6"]),
        (HEADER + "\n", ["no data rows"]),
        ("", ["the file is empty"]),
    ],
)
def test_bad_csv_names_file_line_and_column(tmp_path: Path, text: str, needles: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_benchmarks(path)
    message = str(info.value)
    assert str(path) in message
    for needle in needles:
        assert needle in message


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        read_benchmarks(tmp_path / "nope.csv")


def test_every_problem_reported_at_once(tmp_path: Path) -> None:
    text = HEADER + "\nh100-hgz,llama-2-70b,fp8,300,290,3000\nh100-hgx,llama-2-70b,fp8,300,x,3000\n"
    with pytest.raises(InputError) as info:
        read_benchmarks(write(tmp_path, text))
    assert len(info.value.problems) == 2
    assert [p.line for p in info.value.problems] == [2, 3]


# --- ttft_s: rows measured under a time-to-first-token limit -------------------------------


TTFT_HEADER = (
    "hardware,model,precision,phase,accelerators,input_tokens,output_tokens,"
    "tokens_per_s_per_accelerator,tokens_per_s_per_user,ttft_s"
)


def ttft_rows(tmp_path: Path, *rows: str) -> list:
    return read_benchmarks(write(tmp_path, TTFT_HEADER + "\n" + "\n".join(rows) + "\n")).rows


def test_prefill_floor_by_hand() -> None:
    """Llama-2-70B (69B parameters) fp8 on 8 H100 (1,979 TFLOP/s fp8 each), 300 prompt
    tokens: at least 2 · 69e9 · 300 / (8 · 1979e12) = 2.615 ms of weight GEMMs, plus the
    attention FLOPs at the bf16 peak."""
    from planner.catalog import hardware_catalog, model_catalog
    from planner.perf.ttft import prefill_floor_s

    model, hw = model_catalog()["llama-2-70b"], hardware_catalog()["h100-hgx"]
    floor = prefill_floor_s(model, hw, "fp8", 300, 0.0, 8)
    gemms = 2 * 69e9 * 300 / (8 * 1979e12)
    assert floor is not None and gemms < floor < gemms * 1.02
    assert prefill_floor_s(model, hw, "fp8", 300, 0.5, 8) == pytest.approx(floor / 2, rel=0.02)
    assert prefill_floor_s(model, hw, "fp8", 300, 0.0, 16) == pytest.approx(floor / 2)


def test_ttft_column_is_the_cases_slo_and_binds_colocated_rows(tmp_path: Path) -> None:
    """MLPerf's Llama-2-70B Server row: a 2 s TTFT limit does not bind, 20 ms lowers the
    batch, 5 ms (above the 2.6 ms floor) cannot be met by any chunk budget."""
    base = "h100-hgx,llama-2-70b,fp8,colocated,8,300,290,2698.5,6.2,"
    free, loose, tight, unreachable = ttft_rows(
        tmp_path, base, base + "2", base + "0.02", base + "0.005"
    )
    assert free.case.slo_ttft_s is None and loose.case.slo_ttft_s == 2.0
    assert tight.case.slo_ttft_s == 0.02
    value = predict(free).tokens_per_s_per_accelerator
    assert value is not None
    assert predict(loose).tokens_per_s_per_accelerator == pytest.approx(value)
    tighter = predict(tight).tokens_per_s_per_accelerator
    assert tighter is not None and tighter < value
    missed = predict(unreachable)
    assert missed.tokens_per_s_per_accelerator is None and missed.binding == "latency"
    assert "TTFT SLO of 0.005 s unreachable" in missed.reason


def test_ttft_column_sizes_the_prefill_pool_and_leaves_decode_alone(tmp_path: Path) -> None:
    """DeepSeek-V3 prefill and decode rows on 96 H100s (the SGLang points): the prefill
    pool runs at the utilisation meeting the TTFT (lower throughput as it tightens, none
    below its own service time); a decode pool prefills nothing, so its prediction
    does not move."""
    prefill = "h100-hgx,deepseek-v3,fp8,prefill,96,2000,100,6538,,"
    decode = "h100-hgx,deepseek-v3,fp8,decode,96,1950,100,2788,,"
    rows = ttft_rows(
        tmp_path,
        prefill,
        prefill + "1",
        prefill + "0.1",
        prefill + "0.001",
        decode,
        decode + "0.001",
    )
    rates = [predict(r).tokens_per_s_per_accelerator for r in rows[:3]]
    assert rates[0] is not None and rates[1] is not None and rates[2] is not None
    assert rates[0] > rates[1] > rates[2] > 0
    missed = predict(rows[3])
    assert missed.tokens_per_s_per_accelerator is None and missed.binding == "latency"
    assert missed.reason.startswith("TTFT limit of 0.001 s unreachable")
    decode_rate = predict(rows[4]).tokens_per_s_per_accelerator
    assert decode_rate and predict(rows[5]).tokens_per_s_per_accelerator == decode_rate
    assert predict(rows[5]).reason == ""  # colocated misses 1 ms; the decode pool is not bound


@pytest.mark.parametrize(
    ("cell", "needles"),
    [
        ("0", ["value out of range", "a number > 0"]),
        ("-1", ["value out of range"]),
        ("soon", ["not a number"]),
        ("0.001", ["below the prefill floor of 0.002", "at least 0.002"]),
    ],
)
def test_bad_ttft_names_file_line_and_column(tmp_path: Path, cell: str, needles: list[str]) -> None:
    text = TTFT_HEADER + "\nh100-hgx,llama-2-70b,fp8,colocated,8,300,290,2698.5,6.2,2\n"
    text += f"h100-hgx,llama-2-70b,fp8,colocated,8,300,290,2698.5,6.2,{cell}\n"
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_benchmarks(path)
    message = str(info.value)
    assert f"{path}, line 3: column ttft_s:" in message
    for needle in needles:
        assert needle in message


def test_ttft_floor_message_gives_the_floor(tmp_path: Path) -> None:
    from planner.catalog import hardware_catalog, model_catalog
    from planner.perf.ttft import prefill_floor_s

    floor = prefill_floor_s(
        model_catalog()["llama-2-70b"], hardware_catalog()["h100-hgx"], "fp8", 300, 0.0, 8
    )
    assert floor is not None
    path = write(tmp_path, TTFT_HEADER + "\nh100-hgx,llama-2-70b,fp8,,,300,290,2698.5,,0.002\n")
    with pytest.raises(InputError) as info:
        read_benchmarks(path)
    problem = info.value.problems[0]
    assert (problem.path, problem.line, problem.found) == ("column ttft_s", 2, "0.002")
    assert f"prefill floor of {floor:.4g} s" in problem.message
    assert "300 uncached prompt tokens of llama-2-70b" in problem.message
    assert "8 h100-hgx accelerators" in problem.message


# --- predicting and fitting -------------------------------------------------------------


def test_row_that_cannot_run_has_no_prediction_and_a_reason(tmp_path: Path) -> None:
    # 810 GB of bf16 weights over 8 x 48 GB, and no scale-out network to pipeline over
    text = HEADER + "\nl40s-pcie8,llama-3.1-405b,bf16,1000,1000,100\n"
    row = read_benchmarks(write(tmp_path, text)).rows[0]
    prediction = predict(row)
    assert prediction.tokens_per_s_per_accelerator is None
    assert prediction.reason.startswith("needs ")
    assert prediction.abs_pct_error(100.0) is None


def test_fit_on_mlperf_brings_dense_median_under_15_percent() -> None:
    rows = read_benchmarks(MLPERF).rows
    result = fit(rows)
    dense = [r for r in rows if r.model.id == "llama-2-70b"]
    before, after = error_summary(dense, BUILTIN_PRIORS), error_summary(dense, result.table)
    print(f"dense rows: before {before.describe()}; after {after.describe()}")
    print(f"all rows: before {result.before.describe()}; after {result.after.describe()}")
    assert after.median_abs_pct < 15.0
    assert result.after.median_abs_pct <= result.before.median_abs_pct
    assert result.after.worst_abs_pct <= result.before.worst_abs_pct
    groups = {(g.family, g.precision, g.shared) for g in result.groups}
    assert groups == {("hopper", "fp8", False), ("cdna3", "fp8", False)}  # ≥ 2 rows: own fits
    hopper = next(g for g in result.groups if g.family == "hopper")
    assert "eta_moe" in hopper.factors  # four Mixtral rows
    assert not result.shared_correction  # no group with fewer than two rows
    assert not result.table.shared
    # families without rows keep their built-in priors
    assert result.table.lookup("blackwell", "fp8") == EfficiencyTable().lookup("blackwell", "fp8")


def test_single_row_groups_share_one_correction_and_keep_family_differences(
    tmp_path: Path,
) -> None:
    text = (
        HEADER
        + "\nh100-hgx,llama-2-70b,fp8,300,290,2000\nmi300x-oam8,llama-2-70b,fp8,300,290,2000\n"
    )
    result = fit(read_benchmarks(write(tmp_path, text)).rows)
    assert [(g.family, g.shared) for g in result.groups] == [("cdna3", True), ("hopper", True)]
    assert set(result.shared_correction) == {"eta_bw", "eta_c", "prefill_mfu", "t_overhead_s"}
    assert result.after.median_abs_pct < result.before.median_abs_pct
    priors = EfficiencyTable()
    for name, scale in result.shared_correction.items():
        for family in ("hopper", "cdna3"):
            prior = getattr(priors.lookup(family, "fp8"), name)
            fitted = getattr(result.table.lookup(family, "fp8"), name)
            assert fitted == pytest.approx(prior * scale, rel=1e-9)
    assert not result.table.shared


def test_nelder_mead_finds_a_quadratic_minimum() -> None:
    target = np.array([0.3, -1.2, 2.0])
    best, value = nelder_mead(
        lambda x: float(np.sum((x - target) ** 2)), [0.0, 0.0, 0.0], max_evals=2000, tolerance=1e-14
    )
    assert best == pytest.approx(target, abs=1e-4)
    assert value < 1e-8


def test_nelder_mead_rosenbrock() -> None:
    def rosenbrock(x: np.ndarray) -> float:
        return float((1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2)

    best, _ = nelder_mead(rosenbrock, [-1.0, 1.0], step=0.5, max_evals=5000, tolerance=1e-16)
    assert best == pytest.approx([1.0, 1.0], abs=1e-3)


# --- calibration files --------------------------------------------------------------------


def test_calibration_round_trip_and_precedence(tmp_path: Path) -> None:
    table = (
        EfficiencyTable(note="test")
        .with_entry(None, "", {"eta_bw": 0.5})
        .with_entry("hopper", "all", {"eta_c": 0.3})
        .with_entry("hopper", "fp8", {"eta_c": 0.25, "t_overhead_s": 0.001})
    )
    path = tmp_path / "cal.yaml"
    save_calibration(table, path)
    loaded = load_calibration(path)
    assert loaded.lookup("hopper", "fp8") == table.lookup("hopper", "fp8")
    hopper_fp8 = loaded.lookup("hopper", "fp8")
    assert (hopper_fp8.eta_bw, hopper_fp8.eta_c, hopper_fp8.t_overhead_s) == (0.5, 0.25, 0.001)
    assert loaded.lookup("hopper", "bf16").eta_c == 0.3
    assert loaded.lookup("cdna3", "fp8").eta_bw == 0.5  # the file's shared beats built-in family
    assert EfficiencyTable().lookup("cdna3", "fp8").eta_bw == 0.65
    assert EfficiencyTable().lookup("unknown-family", "fp8") == Efficiency()


@pytest.mark.parametrize(
    "text, needle",
    [
        ("shared: {eta_bww: 0.5}\n", "did you mean 'eta_bw'"),
        ("shared: {eta_bw: 1.5}\n", "out of range"),
        ("shared: {eta_bw: fast}\n", "expected a number"),
        ("families: {hopper: {fp9: {eta_bw: 0.5}}}\n", "unknown precision"),
        ("format: other/2\n", "unsupported format"),
        ("colour: blue\n", "is not a calibration file"),
        ("- 1\n", "is not a calibration file"),
    ],
)
def test_bad_calibration_file(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "cal.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=needle):
        load_calibration(path)


def test_missing_calibration_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_calibration(tmp_path / "none.yaml")


# --- the large-MoE reference points and the shipped calibration ---------------------------


SHIPPED_CALIBRATION = MOE_REFERENCE.parent / "serving-calibration.yaml"


def test_moe_reference_is_a_benchmark_file_with_its_notes() -> None:
    bench = read_benchmarks(MOE_REFERENCE)
    assert [r.hardware.id for r in bench.rows][:3] == ["h100-hgx", "h100-hgx", "gb200-nvl72"]
    assert {r.phase for r in bench.rows} == {"decode", "prefill", "colocated"}
    assert "notes" in bench.columns and "context_tokens" in bench.columns
    production = bench.rows[5]  # DeepSeek's production decode: SLO 21 tok/s/user
    assert production.case.slo_tokens_per_s_per_user == 21.0
    assert production.case.mean_decode_context == 3600 + 1000 / 2


HELD_OUT = ("v5.1", "inferencex", "inferencemax", "semianalysis")
"""Kept as independent checks, never calibration or test data (issue 12)."""


@pytest.mark.parametrize("path", [MLPERF, MOE_REFERENCE])
def test_calibration_rows_cite_a_dated_source_and_no_held_out_data(path: Path) -> None:
    """Every row names its source with a publication date (``same`` repeats the row
    above's); none comes from MLPerf Inference v5.1 or SemiAnalysis InferenceX."""
    source = ""
    for row in read_benchmarks(path).rows:
        cell = row.cells["source"]
        source = source if cell.startswith("same") else cell
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", source), (row.line, source)
        text = " ".join(row.cells.values()).lower()
        assert not any(name in text for name in HELD_OUT), (row.line, text)


def test_shipped_calibration_meets_dense_and_moe_targets() -> None:
    """`planner calibrate` on both data files, then `perf-check`: median ≤ 10% on dense
    rows and ≤ 20% on MoE rows (the README reports these figures)."""
    rows = read_benchmarks(MLPERF).rows + read_benchmarks(MOE_REFERENCE).rows
    table = load_calibration(SHIPPED_CALIBRATION)
    dense = error_summary([r for r in rows if not r.model.is_moe], table)
    moe = error_summary([r for r in rows if r.model.is_moe], table)
    print(f"dense {dense.describe()}; moe {moe.describe()}")
    assert dense.rows == 6 and moe.rows == 12
    assert dense.median_abs_pct <= 10.0
    assert moe.median_abs_pct <= 20.0


# --- the shipped calibration is the default ----------------------------------------------


PACKAGE_CALIBRATION = (
    Path(__file__).resolve().parents[2] / "planner/perf" / DEFAULT_CALIBRATION_FILE
)


def test_the_package_default_is_the_tests_data_calibration() -> None:
    """One calibration: the file the package ships and the one tests/data documents."""
    assert PACKAGE_CALIBRATION.read_bytes() == SHIPPED_CALIBRATION.read_bytes()
    assert default_calibration() == load_calibration(SHIPPED_CALIBRATION)
    # and the data it was fitted on is the data `planner fidelity` checks
    package_data = PACKAGE_CALIBRATION.parent / "benchmarks"
    for fitted in (MLPERF, MOE_REFERENCE):
        assert (package_data / fitted.name).read_bytes() == fitted.read_bytes(), fitted.name


def test_refitting_the_shipped_benchmarks_reproduces_the_default() -> None:
    """`planner calibrate` on both files in tests/data, from the built-in priors, gives the
    shipped default back within its rounding (4 significant digits); about 3 s."""
    rows = read_benchmarks(MLPERF).rows + read_benchmarks(MOE_REFERENCE).rows
    refit = fit(rows).table.to_document()
    shipped = default_calibration().to_document()
    assert refit.get("shared") == shipped.get("shared")
    assert refit["families"].keys() == shipped["families"].keys()
    for family, precisions in shipped["families"].items():
        assert refit["families"][family].keys() == precisions.keys(), family
        for precision, factors in precisions.items():
            got = refit["families"][family][precision]
            assert got.keys() == factors.keys(), (family, precision)
            for name, value in factors.items():
                assert got[name] == pytest.approx(value, rel=1e-3), (family, precision, name)


def test_predictions_default_to_the_shipped_calibration_and_none_to_the_priors() -> None:
    rows = read_benchmarks(MLPERF).rows + read_benchmarks(MOE_REFERENCE).rows
    shipped = load_calibration(SHIPPED_CALIBRATION)
    for row in rows:
        assert predict(row) == predict(row, shipped)
        assert predict(row, calibration_table("none")) == predict(row, EfficiencyTable())
    assert calibration_table(None) is default_calibration()
    assert calibration_table("none") is BUILTIN_PRIORS
    hopper = resolve_efficiency(None, "hopper", "fp8")
    assert hopper == shipped.lookup("hopper", "fp8") != EfficiencyTable().lookup("hopper", "fp8")
    # the numbers perf-check printed before the shipped calibration became the default
    raw = error_summary(rows, BUILTIN_PRIORS)
    # (14.26% before engines capped the running sequences per scheduler)
    assert raw.median_abs_pct == pytest.approx(13.687117506108194, rel=1e-9)
    assert error_summary(rows).median_abs_pct < raw.median_abs_pct


def test_wide_expert_parallel_places_hopper_deepseek_over_several_nodes() -> None:
    """671 GB of fp8 weights exceed one 8-GPU server: the H100 point needs DEP over nodes."""
    row = read_benchmarks(MOE_REFERENCE).rows[0]
    result = serve(row.model, row.hardware, row.case, EfficiencyTable().lookup("hopper", "fp8"))
    assert result.servable and result.layout.startswith("DEP")
    assert result.layout.endswith("nodes") and result.replica_accelerators >= 16
