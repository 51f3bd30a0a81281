"""Futures drawn from distributions and reduced by fast forward selection."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from planner.analysis.params import parse_dist
from planner.stochastic.sampled import forward_selection, sampled_futures


def test_forward_selection_keeps_the_medoid_then_the_far_cluster_by_hand() -> None:
    """Six equally likely points on a line: 0, 1, 2 and 10, 11, 30. Alone, 2 is the best
    single representative (distances 2+1+0+8+9+28 = 48; 10 gives 10+9+8+0+1+20 = 48 too,
    the first minimum wins: index 2); with 2 kept, adding 11 leaves 2+1+0+1+0+19 = 23,
    30 leaves 2+1+0+8+9+0 = 20, 10 leaves 2+1+0+0+1+20 = 24: 30 is next. With {2, 30}:
    adding 10 leaves 2+1+1 = 4 (11 also 4: the first wins), 0 or 1 leaves 18: 10 (index 3).
    With {2, 30, 10}: 0 or 1 leaves 2 (0 first), 11 leaves 3; then 1 and 11 tie at 1."""
    points = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [30.0]])
    assert forward_selection(points, 1) == [2]
    assert forward_selection(points, 2) == [2, 5]
    assert forward_selection(points, 6) == [2, 5, 3, 0, 1, 4]


def test_sampled_futures_are_seeded_and_their_probabilities_are_their_shares() -> None:
    dist = parse_dist("inference[chat].tokens_per_day.2027=uniform:1e10:3e10")
    first = sampled_futures([dist], 200, 7, 4)
    again = sampled_futures([dist], 200, 7, 4)
    assert first == again and len(first) == 4
    assert sum(f.probability for f in first) == pytest.approx(1.0, abs=1e-12)
    values = sorted(f.set["inference[chat].tokens_per_day.2027"] for f in first)
    assert 1e10 <= values[0] < values[-1] <= 3e10
    assert all(f.probability * 200 == pytest.approx(round(f.probability * 200)) for f in first)


def test_stochastic_plans_sampled_futures_from_the_command_line(tmp_path: Path, run_cli) -> None:
    from newsvendor import write_tree

    path = write_tree(tmp_path, 3.0, (("low", 0.5, 2.98), ("high", 0.5, 8.98)))
    result = run_cli(
        "stochastic",
        path,
        "--dist",
        "inference[chat].tokens_per_day.2027=uniform:1e10:3e10",
        "--samples",
        "40",
        "--futures",
        "3",
        "--no-values",
        "--format",
        "json",
    )
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert len(out["futures"]) == 3 and out["checker_problems"] == []
    assert all(row["future"].startswith("sample-") for row in out["futures"])
    bad = run_cli(
        "stochastic",
        path,
        "--dist",
        "inference[nochat].tokens_per_day=uniform:1:2",
        "--samples",
        "5",
    )
    assert bad.code == 2 and "nochat" in bad.err


def test_a_negative_seed_or_a_stray_first_stage_year_exits_2(tmp_path: Path, run_cli) -> None:
    from newsvendor import write_tree

    path = write_tree(tmp_path, 3.0, (("only", 1.0, None),))
    dist = "inference[chat].tokens_per_day.2027=uniform:1e10:3e10"
    negative = run_cli("stochastic", path, "--dist", dist, "--samples", "5", "--seed", "-1")
    assert negative.code == 2 and "--seed" in negative.err
    stray = run_cli("stochastic", path, "--first-stage-through", "2026")
    assert stray.code == 2 and "--first-stage-through" in stray.err
