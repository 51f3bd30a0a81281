"""Type, reference, year and fit problems of one file come in one report.

A type problem withholds only the entry (or section) it is in: the semantic checks run
on the rest of the file, with the file's own paths and lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.scenario import load_scenario

pytestmark = pytest.mark.filterwarnings("error")

BASE = """\
name: one-pass
horizon: {start: 2026, years: 3}
sites:
  - {name: texas, power_cap_mw: 50}
hardware:
  - id: h100-hgx
  - id: h200-hgx
rental:
  - {hardware: h200-hgx, usd_per_accelerator_hour: 2.2}
existing_fleet:
  - {hardware: h100-hgx, site: texas, units: 10, installed: 2025}
models:
  - id: llama-3.1-70b
training:
  - {name: pre, model: llama-3.1-70b, tokens: 1.0e12, window: [2026, 2027]}
inference:
  - name: chat
    model: llama-3.1-70b
    cache_hit_rate: 0.5
    tokens_per_day: 1.0e10
  - name: batch
    model: llama-3.1-70b
    tokens_per_day: 1.0e9
"""


def _problems(tmp_path: Path, text: str) -> dict[str, dict[str, object]]:
    """Path → problem (message, line) of loading ``text``; fails if it loads."""
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    return {p.path: {"message": p.message, "line": p.line} for p in caught.value.problems}


def _edit(*pairs: tuple[str, str]) -> str:
    text = BASE
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def test_base_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(BASE, encoding="utf-8")
    assert load_scenario(path).name == "one-pass"


def test_type_problem_and_hardware_typo_elsewhere_in_one_run(tmp_path: Path, run_cli) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        _edit(
            ("cache_hit_rate: 0.5", "cache_hit_rate: high"),
            ("{hardware: h200-hgx, usd", "{hardware: h200-hgxx, usd"),
        ),
        encoding="utf-8",
    )
    result = run_cli("validate", path, "--format", "json")
    assert result.code == 2
    (entry,) = json.loads(result.out)["files"]
    got = {p["path"]: p for p in entry["errors"]}
    assert set(got) == {"inference[0].cache_hit_rate", "rental[0].hardware"}
    assert got["inference[0].cache_hit_rate"]["line"] == 19
    assert got["rental[0].hardware"]["line"] == 9
    assert got["rental[0].hardware"]["hint"] == "did you mean 'h200-hgx'?"


def test_paths_are_the_files_indices(tmp_path: Path) -> None:
    # inference[0] is withheld; the bad model of inference[1] keeps its own index
    got = _problems(
        tmp_path,
        _edit(
            ("cache_hit_rate: 0.5", "cache_hit_rate: 2"),
            (
                "    model: llama-3.1-70b\n    tokens_per_day: 1.0e9",
                "    model: llama-3.1-7b\n    tokens_per_day: 1.0e9",
            ),
        ),
    )
    assert set(got) == {"inference[0].cache_hit_rate", "inference[1].model"}
    assert got["inference[1].model"]["line"] == 22


def test_a_problem_hides_references_only_inside_its_own_entry(tmp_path: Path) -> None:
    # the workload with the type problem also names a missing model: not reported
    got = _problems(
        tmp_path,
        _edit(
            ("  - name: chat\n    model: llama-3.1-70b", "  - name: chat\n    model: nope"),
            ("cache_hit_rate: 0.5", "cache_hit_rate: -1"),
        ),
    )
    assert set(got) == {"inference[0].cache_hit_rate"}


def test_references_to_a_withheld_entry_are_not_reported(tmp_path: Path) -> None:
    # h200-hgx has a bad price: the rental naming it is not "naming nothing"
    got = _problems(
        tmp_path,
        _edit(("  - id: h200-hgx\n", "  - {id: h200-hgx, price_usd: cheap}\n")),
    )
    assert set(got) == {"hardware[1].price_usd"}


def test_fit_check_names_the_hardware_it_did_not_count(tmp_path: Path) -> None:
    got = _problems(
        tmp_path,
        _edit(
            (
                "  - id: h100-hgx\n  - id: h200-hgx\n",
                "  - id: h100-hgx\n  - {id: gb200-nvl72, price_usd: cheap}\n",
            ),
            ("{hardware: h200-hgx, usd", "{hardware: h100-hgx, usd"),
            ("  - id: llama-3.1-70b\n", "  - id: llama-3.1-405b\n"),
            ("model: llama-3.1-70b, tokens", "model: llama-3.1-405b, tokens"),
            (
                "  - name: chat\n    model: llama-3.1-70b",
                "  - name: chat\n    model: llama-3.1-405b\n    precision: bf16",
            ),
            (
                "  - name: batch\n    model: llama-3.1-70b",
                "  - name: batch\n    model: llama-3.1-405b\n    precision: bf16",
            ),
        ),
    )
    # 405B at bf16 is 810 GB; an H100 HGX holds 8 x 80 GB x 0.9 = 576 GB
    assert set(got) == {"hardware[1].price_usd", "inference[0].model", "inference[1].model"}
    message = str(got["inference[0].model"]["message"])
    assert "not counting hardware[1] 'gb200-nvl72', which has its own problem" in message


def test_a_broken_horizon_skips_only_the_year_checks(tmp_path: Path) -> None:
    got = _problems(
        tmp_path,
        _edit(
            ("horizon: {start: 2026, years: 3}", "horizon: {start: 2026, years: many}"),
            ("window: [2026, 2027]", "window: [2026, 2040]"),  # unknowable without a horizon
            ("site: texas, units", "site: texs, units"),
        ),
    )
    assert set(got) == {"horizon.years", "existing_fleet[0].site"}


def test_a_section_that_is_not_a_list_hides_references_to_it_only(tmp_path: Path) -> None:
    got = _problems(
        tmp_path,
        _edit(
            ("  - {name: texas, power_cap_mw: 50}\n", "  texas\n"),
            ("{hardware: h200-hgx, usd", "{hardware: h300-hgx, usd"),
        ),
    )
    assert set(got) == {"sites", "rental[0].hardware"}


def test_duplicate_names_among_the_kept_entries(tmp_path: Path) -> None:
    got = _problems(
        tmp_path,
        _edit(
            ("cache_hit_rate: 0.5", "cache_hit_rate: 1.5"),
            ("  - name: batch", "  - name: pre"),  # also the training run's name
        ),
    )
    assert set(got) == {"inference[0].cache_hit_rate", "inference[1].name"}
