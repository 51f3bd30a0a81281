"""The foundation CLI: help, version, catalog listings, validate, and the real commands.

In-process runs go through ``run_guarded`` (what the console script calls); a few runs
use real subprocesses of the installed ``planner`` script and of ``python -m planner``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from planner import __version__
from planner.cli import COMMANDS, cli

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
SHIPPED = sorted(SCENARIOS.glob("*.yaml"))
SUMMARY_KEYS = {
    "name",
    "horizon",
    "years",
    "sites",
    "capex_budget_usd",
    "hardware",
    "models",
    "training_runs",
    "inference_workloads",
    "serving",
    "solver",
}


def all_commands(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subgroup under ``group``, as argument tuples."""
    out = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        out.append((*prefix, name))
        if isinstance(command, click.Group):
            out += all_commands(command, (*prefix, name))
    return out


# --- help and version --------------------------------------------------------------------


def test_version(run_cli) -> None:
    result = run_cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"planner, version {__version__}"


def test_top_level_help(run_cli) -> None:
    result = run_cli("--help")
    assert result.code == 0
    assert "Example" in result.out
    for name in COMMANDS:
        assert f"\n  {name} " in result.out


def test_foundation_commands_exist() -> None:
    commands = all_commands()
    for expected in [("validate",), ("hardware", "list"), ("models", "list")]:
        assert expected in commands


@pytest.mark.parametrize("args", all_commands(), ids=" ".join)
def test_every_command_has_help_with_an_example(args: tuple[str, ...], run_cli) -> None:
    result = run_cli(*args, "--help")
    assert result.code == 0, result.err
    assert "Usage: planner " + " ".join(args) in result.out
    assert "Example" in result.out
    assert result.err == ""


def test_short_help_flag(run_cli) -> None:
    assert run_cli("-h").code == 0


@pytest.mark.parametrize(
    "args",
    [
        ("no-such-command",),
        ("validate",),
        ("validate", "--format", "yaml", "x.yaml"),
        ("hardware", "list", "--no-such-option"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], run_cli) -> None:
    result = run_cli(*args)
    assert result.code == 2
    assert "Error" in result.err and "Traceback" not in result.err
    assert result.out == ""


# --- catalog listings --------------------------------------------------------------------


def test_hardware_list_json(run_cli) -> None:
    result = run_cli("hardware", "list", "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert len(rows) >= 18
    assert len({r["vendor"] for r in rows}) >= 5
    for row in rows:
        assert row["source"], row["id"]
        assert row["as_of"], row["id"]
    assert {"h100-hgx", "gb200-nvl72", "mi355x-oam8"} <= {r["id"] for r in rows}


@pytest.mark.parametrize("vendor", ["amd", "AMD", "Amd"])
def test_hardware_list_vendor_filter(vendor: str, run_cli) -> None:
    result = run_cli("hardware", "list", "--vendor", vendor, "--format", "json")
    assert result.code == 0
    rows = json.loads(result.out)
    assert len(rows) >= 3
    assert {r["vendor"] for r in rows} == {"AMD"}
    assert {"mi300x-oam8", "mi325x-oam8", "mi355x-oam8"} <= {r["id"] for r in rows}


def test_hardware_list_unknown_vendor(run_cli) -> None:
    result = run_cli("hardware", "list", "--vendor", "nosuch")
    assert result.code == 2
    assert result.out == ""
    assert "no hardware from 'nosuch'" in result.err
    assert "NVIDIA" in result.err and "AMD" in result.err  # the vendors that exist
    assert "Traceback" not in result.err


def test_models_list_developer_filter(run_cli) -> None:
    result = run_cli("models", "list", "--vendor", "deepseek", "--format", "json")
    assert result.code == 0
    rows = json.loads(result.out)
    assert {r["id"] for r in rows} == {"deepseek-v3", "deepseek-r1", "deepseek-v4"}
    result = run_cli("models", "list", "--vendor", "nosuch")
    assert result.code == 2 and "no models from 'nosuch'" in result.err
    assert "Meta" in result.err  # the developers that exist


def test_hardware_list_csv(run_cli) -> None:
    result = run_cli("hardware", "list", "--format", "csv")
    assert result.code == 0
    rows = list(csv.DictReader(io.StringIO(result.out)))
    assert len(rows) >= 18
    assert all(r["source"] and r["as_of"] for r in rows)


def test_hardware_list_table(run_cli) -> None:
    result = run_cli("hardware", "list")
    assert result.code == 0
    assert "gb200-nvl72" in result.out and "Hardware catalog" in result.out


def test_models_list_csv(run_cli) -> None:
    result = run_cli("models", "list", "--format", "csv")
    assert result.code == 0, result.err
    rows = list(csv.DictReader(io.StringIO(result.out)))
    assert len(rows) >= 11
    ids = {r["id"] for r in rows}
    assert {"llama-3.1-405b", "deepseek-v3", "kimi-k2", "gpt-oss-120b"} <= ids
    for row in rows:
        assert float(row["total_params_b"]) >= float(row["active_params_b"]) > 0
        assert row["source"]


def test_models_list_json_and_table(run_cli) -> None:
    result = run_cli("models", "list", "--format", "json")
    assert result.code == 0
    assert len(json.loads(result.out)) >= 11
    table = run_cli("models", "list")
    assert table.code == 0 and "llama-3.1-405b" in table.out


# --- validate: good inputs ---------------------------------------------------------------


def test_three_scenarios_are_shipped() -> None:
    names = {p.name for p in SHIPPED}
    assert {"baseline.yaml", "power_constrained.yaml", "vendor_shootout.yaml"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenario_validates(path: Path, run_cli) -> None:
    result = run_cli("validate", path)
    assert result.code == 0, result.err
    assert result.out.startswith(f"ok {path}: ")
    assert "site " in result.out and ": power cap MW" in result.out
    assert result.err == ""


def test_validate_json_is_one_document_with_documented_keys(run_cli) -> None:
    result = run_cli("validate", "--format", "json", *SHIPPED)
    assert result.code == 0, result.err
    assert result.err == ""
    doc = json.loads(result.out)  # exactly one document: json.loads rejects trailing data
    assert set(doc) == {"files"}
    assert [f["file"] for f in doc["files"]] == [str(p) for p in SHIPPED]
    for entry in doc["files"]:
        assert entry["valid"] is True
        assert set(entry["summary"]) == SUMMARY_KEYS
    by_name = {f["summary"]["name"]: f["summary"] for f in doc["files"]}
    base = by_name["baseline"]
    assert base["horizon"] == "2026-2031" and base["years"] == 6
    assert base["sites"]["texas"] == {
        "2026": 60.0,
        "2027": 120.0,
        "2028": 200.0,
        "2029": 200.0,
        "2030": 400.0,
        "2031": 400.0,
    }
    assert base["capex_budget_usd"]["2031"] == 6.0e9
    assert [r["name"] for r in base["training_runs"]] == [
        "pretrain-dense",
        "pretrain-moe",
        "rl-post-train",
    ]
    chat = base["inference_workloads"][0]
    assert chat["tokens_per_day_first_year"] == pytest.approx(3.0e11)
    assert chat["tokens_per_day_last_year"] == pytest.approx(1.5e13)
    assert by_name["power_constrained"]["sites"]["texas"]["2031"] == 150.0
    assert "tpu-ironwood-slice256" in by_name["vendor_shootout"]["hardware"]


def test_validate_csv(run_cli) -> None:
    result = run_cli("validate", "--format", "csv", SCENARIOS / "baseline.yaml")
    assert result.code == 0
    (row,) = list(csv.reader(io.StringIO(result.out)))
    assert row[1:] == ["valid", "baseline", "2026-2031"]


def test_one_e_nine_unquoted_is_a_float(tmp_path: Path, run_cli) -> None:
    from planner.scenario import load_scenario

    text = (SCENARIOS / "baseline.yaml").read_text(encoding="utf-8")
    text = text.replace("tokens: 1.5e13", "tokens: 1e9").replace(
        "{2026: 3.0e11, 2031: 1.5e13}", "{2026: 3e11, 2031: 15E+12}"
    )
    path = tmp_path / "e9.yaml"
    path.write_text(text, encoding="utf-8")
    assert run_cli("validate", path).code == 0
    scenario = load_scenario(path)
    assert scenario.training[0].tokens == 1e9
    assert isinstance(scenario.training[0].tokens, float)
    assert scenario.inference[0].tokens_per_day == {2026: 3e11, 2031: 1.5e13}


def test_utf8_bom_is_accepted(tmp_path: Path, run_cli) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + (SCENARIOS / "baseline.yaml").read_bytes())
    assert run_cli("validate", path).code == 0


# --- real subprocesses -------------------------------------------------------------------


def console_script() -> str:
    candidate = Path(sys.executable).parent / "planner"
    found = str(candidate) if candidate.exists() else shutil.which("planner")
    assert found, "the planner console script is not installed"
    return found


ENTRY_POINTS = {
    "console-script": lambda: [console_script()],
    "python-m": lambda: [sys.executable, "-m", "planner"],
}


def run_real(entry: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [*ENTRY_POINTS[entry](), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def bad_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    text = (SCENARIOS / "baseline.yaml").read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("bad") / "bad.yaml"
    path.write_text(text.replace("cache_hit_rate: 0.8", "cache_hit_rate: 1.5"), encoding="utf-8")
    return path


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_real_validate_good(entry: str) -> None:
    proc = run_real(entry, "validate", "scenarios/baseline.yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok scenarios/baseline.yaml: baseline")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_real_validate_bad(entry: str, bad_file: Path) -> None:
    proc = run_real(entry, "validate", bad_file)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "inference[1].cache_hit_rate" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_real_garbage_inputs(entry: str, tmp_path: Path) -> None:
    (tmp_path / "bin.yaml").write_bytes(bytes(range(256)))
    (tmp_path / "deep.yaml").write_text("a: " + "[" * 5000 + "]" * 5000)
    proc = run_real(
        entry, "validate", tmp_path / "bin.yaml", tmp_path / "deep.yaml", tmp_path, "missing"
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("invalid ") == 4


def test_real_json_goes_to_stdout_only(bad_file: Path) -> None:
    proc = run_real("console-script", "validate", "--format", "json", *SHIPPED, bad_file)
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert [f["valid"] for f in doc["files"]] == [True] * len(SHIPPED) + [False]
    assert "{" not in proc.stderr and '"files"' not in proc.stderr


def test_real_catalog_json_and_version() -> None:
    proc = run_real("console-script", "hardware", "list", "--format", "json")
    assert proc.returncode == 0
    assert len(json.loads(proc.stdout)) >= 18
    assert proc.stderr == ""
    version = run_real("python-m", "--version")
    assert version.returncode == 0 and __version__ in version.stdout


def test_real_unknown_vendor() -> None:
    proc = run_real("console-script", "hardware", "list", "--vendor", "nosuch")
    assert proc.returncode == 2
    assert "nosuch" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""
