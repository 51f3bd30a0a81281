"""``planner sweep | montecarlo | vendors | alternatives`` through ``run_guarded``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from analysis_helpers import HAND
from openpyxl import load_workbook

SWITCH = str(HAND / "power_switch.yaml")


def _outputs(tmp_path: Path, name: str) -> list[str]:
    return [
        "--results",
        str(tmp_path / f"{name}.jsonl"),
        "--out",
        str(tmp_path / f"{name}.xlsx"),
        "--table",
        str(tmp_path / f"{name}.csv"),
    ]


@pytest.mark.parametrize("command", ["sweep", "montecarlo", "vendors", "alternatives"])
def test_help_has_an_example(run_cli, command: str) -> None:
    code, out, _ = run_cli(command, "--help")
    assert code == 0 and "Example" in out and f"planner {command}" in out


def test_sweep_json_workbook_and_table(run_cli, tmp_path: Path) -> None:
    args = ["sweep", SWITCH, "--vary", "finance.wacc=0.05:0.15:3", "--vary"]
    args += ["inference[chat].tokens_per_day*=0.5,1.5", "--mip-gap", "0", "--workers", "0"]
    code, out, err = run_cli(*args, *_outputs(tmp_path, "s"), "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    # wacc=0.10 is the base value: answered by the base run, not solved again.
    assert document["analysis"] == "sweep" and len(document["runs"]) == 5
    tornado = document["tables"]["Tornado"]
    assert tornado[0]["parameter"] == "inference[chat].tokens_per_day ×"
    assert "wrote" in err and "5 runs" in err
    book = load_workbook(tmp_path / "s.xlsx")
    sheets = ["Summary", "Tornado", "Tornado chart data", "Spider", "Runs", "Inputs"]
    assert book.sheetnames == sheets
    assert len(book["Tornado chart data"]._charts) == 1 and len(book["Spider"]._charts) == 2
    # the largest swing is the chart's last category, which a bar chart draws on top
    assert book["Tornado chart data"]["A3"].value == "inference[chat].tokens_per_day ×"
    assert book["Inputs"]["C2"].value == 0.1  # the base row is filled with base values
    assert book["Runs"].page_setup.orientation == "landscape"
    csv = (tmp_path / "s.csv").read_text().splitlines()
    assert len(csv) == 6 and "input:finance.wacc" in csv[0] and "capex_usd.2027" in csv[0]
    assert "shortfall" in csv[0] and "cost_band_usd" in csv[0]


def test_montecarlo_on_dask_prints_percentiles(run_cli, tmp_path: Path, dask_address: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "seed: 5\nsamples: 6\nparameters:\n"
        "  finance.wacc: {distribution: uniform, low: 0.05, high: 0.15}\n"
    )
    args = ["montecarlo", SWITCH, "--spec", str(spec), "--scheduler", dask_address]
    args += ["--dist", "inference[chat].tokens_per_day*=lognormal:1:0.2", "--no-progress"]
    code, out, err = run_cli(*args, *_outputs(tmp_path, "m"))
    assert code == 0, err
    assert "Statistics" in out and "p50" in out and "Purchases by year" in out
    assert "usd_per_mtok[chat]" in out  # headers escaped, not read as markup
    book = load_workbook(tmp_path / "m.xlsx")
    expected = {"Statistics", "Capex fan", "NPV cost histogram", "Convergence", "Drivers"}
    assert expected | {"Purchases by year", "First-year plans", "Inputs"} <= set(book.sheetnames)
    assert len(book["Capex fan"]._charts) == 1
    summary = {r[0].value: r[1].value for r in book["Summary"].iter_rows(min_row=2)}
    assert summary["seed"] == 5 and summary["samples"] == 6
    again = [*args, *_outputs(tmp_path, "m"), "--resume", "--format", "csv"]
    code, out, err = run_cli(*again)  # everything already solved: nothing runs
    assert code == 0 and out.startswith("metric,runs,p10,p50,p90")


def test_vendors_csv(run_cli, tmp_path: Path) -> None:
    args = ["vendors", str(HAND / "existing_fleet.yaml"), "--workers", "0", "--format", "csv"]
    code, out, err = run_cli(*args, *_outputs(tmp_path, "v"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("vendor,status,npv_cost_usd,vs_all_vendors_usd")
    assert lines[1].startswith("all vendors,optimal") and lines[2].startswith("NVIDIA,optimal")


def test_alternatives_table(run_cli, tmp_path: Path) -> None:
    args = [
        "alternatives",
        str(HAND / "power_switch.yaml"),
        "--slack",
        "0.05",
        "--count",
        "2",
        "--wide",
    ]
    args += ["--out", str(tmp_path / "a.xlsx"), "--table", str(tmp_path / "a.csv")]
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert "Alternatives" in out and "Choices" in out and "forced" in out
    assert "Mix" in load_workbook(tmp_path / "a.xlsx").sheetnames


def test_unknown_path_exits_2_with_did_you_mean_before_running(run_cli, tmp_path: Path) -> None:
    args = ["sweep", SWITCH, "--vary", "finance.wac=0.05,0.1", *_outputs(tmp_path, "bad")]
    code, out, err = run_cli(*args)
    assert code == 2 and "did you mean 'wacc'" in err and out == ""
    assert not (tmp_path / "bad.jsonl").exists() and not (tmp_path / "bad.xlsx").exists()
    code, _, err = run_cli("montecarlo", SWITCH, "--dist", "finance.wacc=uniform:0.2:0.1")
    assert code == 2 and "must be below" in err


def test_option_conflicts_and_results_file_rules(run_cli, tmp_path: Path) -> None:
    base = ["sweep", SWITCH, "--vary", "finance.wacc=0.1", "--workers", "0"]
    code, _, err = run_cli(*base[:4], "--scheduler", "tcp://x:1", "--dask-local", "2")
    assert code == 2 and "not both" in err
    assert run_cli(*base, *_outputs(tmp_path, "r")).code == 0
    code, _, err = run_cli(*base, *_outputs(tmp_path, "r"))
    assert code == 2 and "--resume" in err and "--fresh" in err
    assert run_cli(*base, *_outputs(tmp_path, "r"), "--fresh").code == 0


def test_missing_dask_exits_2(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    args = ["sweep", SWITCH, "--vary", "finance.wacc=0.1", "--dask-local", "2"]
    code, _, err = run_cli(*args, *_outputs(tmp_path, "d"))
    assert code == 2 and "pip install 'planner[dask]'" in err


def test_workbook_text_is_never_a_formula(run_cli, tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(
        (HAND / "power_switch.yaml").read_text().replace("name: power-switch", "name: '=1+1'")
    )
    args = ["sweep", str(hostile), "--vary", "finance.wacc=0.1", "--workers", "0"]
    code, _, err = run_cli(*args, *_outputs(tmp_path, "h"))
    assert code == 0, err
    cell = load_workbook(tmp_path / "h.xlsx")["Summary"]["B3"]
    assert cell.value == "=1+1" and cell.data_type == "s" and cell.quotePrefix


def test_a_sweep_whose_only_input_is_shadowed_warns_and_strict_refuses(
    run_cli, tmp_path: Path
) -> None:
    """baseline's Texas site sets its own electricity price: the finance default is inert."""
    baseline = str(Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml")
    args = ["sweep", baseline, "--vary", "finance.electricity_usd_per_kwh=0.05,0.09"]
    code, out, err = run_cli(*args, "--strict", *_outputs(tmp_path, "inert"))
    assert code == 2 and out == ""
    assert "finance.electricity_usd_per_kwh" in err and "every site sets its own" in err
    assert "sites[texas].electricity_usd_per_kwh" in err
    assert not (tmp_path / "inert.jsonl").exists()  # refused before any run
    tiny = tmp_path / "shadowed.yaml"
    tiny.write_text(
        (HAND / "power_switch.yaml")
        .read_text()
        .replace("power_cap_mw: 0.1}", "power_cap_mw: 0.1, electricity_usd_per_kwh: 0.05}")
    )
    args = ["sweep", str(tiny), "--vary", "finance.electricity_usd_per_kwh=0.05,0.09"]
    code, out, err = run_cli(*args, "--workers", "0", *_outputs(tmp_path, "warned"))
    assert code == 0, err
    assert "warning: finance.electricity_usd_per_kwh has no effect" in err
    assert "within solver tolerance of the base" in err  # and every run says so
