"""Validation reports reference, catalog and fit problems of a file in one pass."""

from __future__ import annotations

import json
from pathlib import Path

SCENARIO = """\
name: two-problems
horizon: {start: 2026, years: 3}
sites:
  - {name: texas, power_cap_mw: 50}
hardware:
  - id: h100-hgx
  - id: h100-hgxx
existing_fleet:
  - {hardware: h100-hgx, site: texsa, units: 10, installed: 2025}
models:
  - id: kimi-k2
inference:
  - name: chat
    model: kimi-k2
    precision: bf16
    tokens_per_day: 1.0e10
"""


def test_a_typo_a_bad_reference_and_a_misfit_model_show_together(tmp_path: Path, run_cli) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    result = run_cli("validate", path, "--format", "json")
    assert result.code == 2
    problems = json.loads(result.out)["files"][0]["errors"]
    paths = [p["path"] for p in problems]
    assert "hardware[1].id" in paths  # not in the catalog
    assert "existing_fleet[0].site" in paths  # no such site
    assert "inference[0].model" in paths  # before: shown only once the others were fixed
    fit = next(p for p in problems if p["path"] == "inference[0].model")
    assert "not counting hardware[1] 'h100-hgxx', which has its own problem" in fit["message"]
