"""The README is a short front door: the quick start, three worked jobs, the scope, and
links into the docs (every linked page exists)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= 250


def test_the_quick_start_commands_are_the_scripts_ci_runs() -> None:
    assert "bash scripts/quickstart.sh      # set up .venv, plan scenarios/baseline.yaml" in README
    assert "bash scripts/test.sh            # set up .venv with test tools" in README
    assert "bash scripts/test.sh" in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_works_the_three_jobs_and_says_what_is_modelled() -> None:
    for region in ("run-baseline", "workbook-sheets", "vendors"):
        assert f"<!-- generated: {region} -->" in README, region
    assert "## What is and is not modelled" in README
    assert "**an over-constrained scenario still returns a plan**" in README


def test_every_link_of_the_readme_exists() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    assert len(links) >= 15
    for link in links:
        assert (REPO / link).exists(), link


def test_the_usd_per_mtok_meanings_are_documented() -> None:
    economics = (REPO / "docs" / "concepts" / "economics.md").read_text(encoding="utf-8")
    assert "## What $/Mtok means here" in economics
    assert "**Full-load** (`planner throughput`" in economics
    assert "**Realised** (`planner run`" in economics
