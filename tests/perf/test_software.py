"""Software stacks as an input: dated, sourced factors per (vendor, model class) that
multiply that vendor's inference throughput, named in every table that uses them."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from planner.analysis.tasks import perf_key
from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.software import describe, parse_stacks, software_stacks
from planner.errors import InputError
from planner.perf.inference import SCALED_COLUMNS, inference_table
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SHOOTOUT = ROOT / "scenarios" / "vendor_shootout.yaml"


def test_every_shipped_stack_is_dated_and_sourced_and_defaults_change_nothing() -> None:
    stacks = software_stacks()
    assert {"NVIDIA", "AMD", "Google"} <= set(stacks.by_vendor)
    for vendor, mine in stacks.by_vendor.items():
        default = mine[stacks.defaults[vendor]]
        assert default.factor(moe=False) == default.factor(moe=True) == 1.0
        for stack in mine.values():
            assert dt.date(2023, 1, 1) <= stack.as_of <= dt.date(2026, 12, 31)
            assert stack.source
            if stack is not default:  # a figure that moves throughput quotes it
                assert stack.quote and stack.derivation, stack.id


def test_published_ratios_become_the_factors() -> None:
    amd = software_stacks().by_vendor["AMD"]
    assert amd["sglang-without-aiter"].factor(moe=True) == pytest.approx(7332.02 / 14635.98, 1e-2)
    assert amd["sglang-without-aiter"].factor(moe=False) == 1.0  # no figure: the default
    assert amd["rocm7-amd-claim"].factor(moe=False) == 3.5
    google = software_stacks().by_vendor["Google"]
    assert google["pre-jetstream"].factor(moe=False) == pytest.approx(1 / 3, 1e-2)
    nvidia = software_stacks().by_vendor["NVIDIA"]
    assert nvidia["trtllm-mlperf-v4.0"].factor(moe=False) == pytest.approx(1 / 1.27, 1e-3)


@pytest.fixture(scope="module")
def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    base = load_scenario(ROOT / "scenarios" / "baseline.yaml")  # dense and MoE workloads
    hardware = [*base.hardware]
    shootout = load_scenario(SHOOTOUT)
    more = [h for h in shootout.hardware if h.id not in {h.id for h in hardware}]
    scenario = base.model_copy(update={"hardware": [*hardware, *more]})
    chosen = {"AMD": "sglang-without-aiter", "Google": "pre-jetstream"}
    moved = scenario.model_copy(update={"software": chosen})
    return inference_table(scenario), inference_table(moved)


def test_a_stack_multiplies_its_vendors_rows_by_model_class(
    tables: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    default, moved = tables
    models = model_catalog()
    specs = hardware_catalog()
    vendor = {h: specs[h].vendor for h in default["hardware"]}
    checked = set()
    for (_, a), (_, b) in zip(default.iterrows(), moved.iterrows(), strict=True):
        moe = models[a["model"]].is_moe
        expected = 1.0
        if vendor.get(a["hardware"]) == "AMD" and moe:
            expected = 0.5
        if vendor.get(a["hardware"]) == "Google" and not moe:
            expected = 0.333
        for column in SCALED_COLUMNS:
            assert b[column] == pytest.approx(a[column] * expected, rel=1e-12)
        # batch, layout and the SLO check are the default's: the stack scales the rate
        assert (b["batch"], b["layout"], b["servable"]) == (a["batch"], a["layout"], a["servable"])
        checked.add((vendor[a["hardware"]], moe, expected))
    assert ("AMD", True, 0.5) in checked and ("AMD", False, 1.0) in checked
    assert ("Google", False, 0.333) in checked and ("NVIDIA", True, 1.0) in checked


def test_the_table_names_the_stack_each_row_assumes(
    tables: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    default, moved = tables
    row = moved[moved["hardware"] == "mi355x-oam8"].iloc[0]
    assert row["software"] == "sglang-without-aiter (2025-03-25)"
    assert set(default[default["hardware"] == "h100-hgx"]["software"]) == {"default"}


def test_an_unknown_vendor_or_stack_is_refused_naming_the_field(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    text = (ROOT / "scenarios" / "baseline.yaml").read_text()
    text += "\nsoftware: {AMD: rocm9, Intel: any}\n"
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(InputError) as caught:
        load_scenario(bad)
    problems = {p.path: p.message for p in caught.value.problems}
    assert problems == {
        "software.AMD": "names no stack of this vendor",
        "software.Intel": "no software stacks are listed for this vendor",
    }
    result = run_cli("validate", bad)
    assert result.code == 2
    assert "software.AMD" in result.err and "rocm7-amd-claim" in result.err


def test_throughput_takes_software_on_the_command_line(run_cli: Callable[..., Any]) -> None:
    args = ["throughput", SHOOTOUT, "--only", "inference", "--format", "json"]
    plain = run_cli(*args)
    moved = run_cli(*args, "--software", "AMD=rocm7-amd-claim")
    assert plain.code == moved.code == 0, moved.err
    assert "rocm7-amd-claim (2025-06-12)" in moved.out
    assert "rocm7-amd-claim" not in plain.out
    bad = run_cli(*args, "--software", "AMD")
    assert bad.code == 2 and "VENDOR=STACK" in bad.err
    unknown = run_cli(*args, "--software", "AMD=rocm9")
    assert unknown.code == 2 and "--software AMD" in unknown.err


def test_the_software_choice_is_part_of_the_perf_cache_key() -> None:
    scenario = load_scenario(SHOOTOUT)
    moved = scenario.model_copy(update={"software": {"AMD": "rocm7-amd-claim"}})
    assert perf_key(scenario) != perf_key(moved)


def test_a_comparison_states_the_software_of_each_vendor() -> None:
    text = describe({"AMD": "rocm7-amd-claim"}, ["NVIDIA", "AMD", "AWS"])
    assert text == (
        "NVIDIA: default; AMD: rocm7-amd-claim (2025-06-12); AWS: as modelled (none listed)"
    )


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        ("default: default", "vendors.AMD.default"),
        ("dense: 3.5", "vendors.AMD.stacks[2]"),
    ],
)
def test_a_broken_stacks_file_names_the_field(edit: str, path: str) -> None:
    text = (ROOT / "planner" / "catalog" / "software-stacks.yaml").read_text()
    broken = {
        "default: default": text.replace("default: default", "default: nope", 2),
        "dense: 3.5": text.replace("dense: 3.5", "dense: -1"),
    }[edit]
    with pytest.raises(InputError) as caught:
        parse_stacks(broken, "stacks.yaml")
    assert path in [p.path for p in caught.value.problems]


def test_the_readme_table_is_what_the_perf_model_gives(run_cli: Callable[..., Any]) -> None:
    """The software table of docs/jobs/compare-vendors.md (chat, 2026) is the code's
    output, not typed numbers."""
    readme = (ROOT / "docs" / "jobs" / "compare-vendors.md").read_text(encoding="utf-8")
    section = readme[readme.index("How the AMD and Google rows move") :].split("\n\n")[1]
    shown = {
        tuple(cell.strip() for cell in line.strip("|").split("|")[:2]): line
        for line in [row for row in section.splitlines() if row.startswith("|")][2:]
    }
    assert len(shown) == 5
    args = ["throughput", SHOOTOUT, "--only", "inference", "--format", "csv"]
    moved = ["--software", "AMD=rocm7-amd-claim", "--software", "Google=pre-jetstream"]
    for extra in ([], moved):
        done = run_cli(*args, *extra)
        assert done.code == 0, done.err
        table = pd.read_csv(io.StringIO(done.out))
        for _, row in table[table["workload"] == "chat"].iterrows():
            line = shown.get((row["hardware"], row["software"]))
            if line is not None:
                tokens = f"{row['output_tokens_per_s_per_unit']:,.0f}"
                usd = f"${row['usd_per_mtok_output']:.3f}"
                assert line == f"| {row['hardware']} | {row['software']} | {tokens} | {usd} |"
                shown.pop((row["hardware"], row["software"]))
    assert shown == {}  # every row of the page was checked


def test_a_long_stack_id_is_quoted_short(tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    text = (ROOT / "scenarios" / "baseline.yaml").read_text()
    bad = tmp_path / "long.yaml"
    bad.write_text(text + f"\nsoftware: {{AMD: {'x' * 100_000}}}\n")
    result = run_cli("validate", bad)
    assert result.code == 2 and "software.AMD" in result.err
    assert len(result.err) < 2_000  # the id is cut, not echoed


def test_the_command_line_adds_to_the_scenario_s_software(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    text = (ROOT / "scenarios" / "vendor_shootout.yaml").read_text()
    own = tmp_path / "vendor_shootout.yaml"
    own.write_text(text + "\nsoftware: {Google: pre-jetstream}\n")
    (tmp_path / "baseline.yaml").write_text((ROOT / "scenarios" / "baseline.yaml").read_text())
    args = ["throughput", own, "--only", "inference", "--format", "csv"]
    done = run_cli(*args, "--software", "AMD=rocm7-amd-claim")
    assert done.code == 0, done.err
    table = pd.read_csv(io.StringIO(done.out)).set_index("hardware")
    assert set(table.loc["tpu-ironwood-slice256", "software"]) == {"pre-jetstream (2024-03-31)"}
    assert set(table.loc["mi355x-oam8", "software"]) == {"rocm7-amd-claim (2025-06-12)"}


def test_every_vendor_run_of_a_comparison_keeps_the_software_choice() -> None:
    """A vendors analysis drops the other vendors' hardware; a `software:` entry for one
    of them must not make those runs invalid."""
    from planner.analysis.tasks import build_scenario
    from planner.analysis.vendors import vendor_tasks
    from planner.pipeline import check

    scenario = load_scenario(SHOOTOUT)
    moved = scenario.model_copy(update={"software": {"AMD": "rocm7-amd-claim"}})
    tasks = vendor_tasks(moved)
    assert len(tasks) == 5  # all vendors, then each alone
    for task in tasks:
        alone = build_scenario(task)
        assert alone.software == {"AMD": "rocm7-amd-claim"}, task.label
        check(alone)  # the checks every run makes before its solve
