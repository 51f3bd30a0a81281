"""``planner curve --scenario``: a scenario's own models curved; ``--cache-hit-rate``;
a custom model without its provenance is refused naming the missing field paths."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import yaml

from planner.catalog import model_catalog

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "scenarios" / "baseline.yaml"


def _custom(tmp_path: Path, provenance: bool) -> Path:
    """Baseline plus ``my-70b``: llama-3.1-70b's architecture under a new id."""
    row = model_catalog()["llama-3.1-70b"].model_dump(mode="json", exclude_none=True)
    row["id"] = "my-70b"
    source, as_of = row.pop("source"), row.pop("as_of")
    base = yaml.safe_load(BASELINE.read_text(encoding="utf-8"))
    text = yaml.safe_dump({"extends": str(BASELINE), "models": [*base["models"], row]})
    if provenance:
        text += f"  source: {source}\n  as_of: {as_of}\n"
    path = tmp_path / "custom.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_custom_model_without_source_and_as_of_names_both_paths(run_cli, tmp_path) -> None:
    path = _custom(tmp_path, provenance=False)
    result = run_cli("validate", path)
    assert result.code == 2
    err = " ".join(result.err.split())
    assert f"{path}, line" in err
    assert "models[3].source: missing: 'my-70b' is not in the catalog" in err
    assert "models[3].as_of: missing" in err
    assert "expected: the date the figures were read, YYYY-MM-DD" in err
    assert "add it to models[3] (e.g. as_of: 2025-06-30)" in err
    assert "not fully specified" not in err  # not mistaken for a misspelt catalog id


def test_curve_takes_a_scenarios_custom_model(run_cli, tmp_path) -> None:
    path = _custom(tmp_path, provenance=True)
    args = ("curve", "--scenario", path, "--model", "my-70b", "--interactivity", "50")
    own = run_cli(*args, "--hardware", "h100-hgx,b200-hgx", "--format", "csv")
    assert own.code == 0, own.err
    rows = _rows(own.out)
    assert [(r["model"], r["hardware"]) for r in rows] == [
        ("my-70b", "h100-hgx"),
        ("my-70b", "b200-hgx"),
    ]
    catalog = run_cli(
        "curve",
        "--model",
        "llama-3.1-70b",
        "--hardware",
        "h100-hgx,b200-hgx",
        "--interactivity",
        "50",
        "--format",
        "csv",
    )
    same = [r["output_tokens_per_s_per_accelerator"] for r in _rows(catalog.out)]
    assert [r["output_tokens_per_s_per_accelerator"] for r in rows] == same
    every = run_cli(*args, "--format", "csv")  # --hardware defaults to the scenario's
    assert every.code == 0, every.err
    assert len(_rows(every.out)) == 6
    unknown = run_cli("curve", "--scenario", path, "--model", "my-7b")
    assert unknown.code == 2
    assert "did you mean 'my-70b'?" in unknown.err and "models: in" in unknown.err


def test_cache_hit_rate_lifts_throughput_by_skipping_prefill(run_cli) -> None:
    args = ("curve", "--model", "llama-3.1-70b", "--hardware", "h100-hgx")
    args += ("--interactivity", "50", "--format", "csv")
    cold = _rows(run_cli(*args).out)[0]
    warm = _rows(run_cli(*args, "--cache-hit-rate", "0.9").out)[0]
    speed = "output_tokens_per_s_per_accelerator"
    # 8,192 prompt tokens per 1,024 out: prefill dominates; 90% cached roughly doubles it
    assert float(warm[speed]) > 1.5 * float(cold[speed])
    assert float(warm["usd_per_mtok_output"]) < float(cold["usd_per_mtok_output"])
    refused = run_cli(*args, "--cache-hit-rate", "1")
    assert refused.code == 2 and "--cache-hit-rate" in refused.err


def test_curve_needs_hardware_without_a_scenario(run_cli) -> None:
    result = run_cli("curve", "--model", "llama-3.1-70b")
    assert result.code == 2
    assert "--hardware: no hardware given" in result.err and "--scenario" in result.err
