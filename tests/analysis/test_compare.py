"""``planner compare``: shipped scenarios side by side, in a workbook with a chart."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from planner.analysis.compare import compare_files, unique_labels

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "scenarios" / "baseline.yaml"
POWER = REPO / "scenarios" / "power_constrained.yaml"


@pytest.fixture(scope="module")
def comparison():
    return compare_files([BASELINE, POWER])


def test_headline_figures_side_by_side(comparison) -> None:
    assert comparison.labels == ["baseline", "power_constrained"]
    headline = comparison.headline.set_index("metric")
    for s, label in zip(comparison.solved, comparison.labels, strict=True):
        assert headline.loc["NPV of total cost of ownership", label] == pytest.approx(
            s.plan.headline["npv_cost_usd"]
        )
        assert headline.loc["total capex", label] == pytest.approx(s.plan.headline["capex_usd"])
    difference = "power_constrained − baseline"
    row = headline.loc["NPV of total cost of ownership"]
    assert row[difference] == pytest.approx(row["power_constrained"] - row["baseline"])


def test_fleet_and_cost_differences(comparison) -> None:
    fleet, costs = comparison.fleet, comparison.costs
    for s, label in zip(comparison.solved, comparison.labels, strict=True):
        assert fleet[label].sum() == pytest.approx(s.plan.tables["fleet"]["accelerators"].sum())
        total = costs.set_index("category").loc["total excl. penalties", label]
        assert total == pytest.approx(s.plan.headline["npv_cost_usd"])
    assert (
        fleet["power_constrained − baseline"] == fleet["power_constrained"] - fleet["baseline"]
    ).all()


def test_cli_writes_a_workbook_with_a_chart(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "compare.xlsx"
    result = run_cli("compare", BASELINE, POWER, "--out", out, "--format", "json")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert document["scenarios"] == ["baseline", "power_constrained"]
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Comparison", "Fleet comparison", "Cost comparison"]
    ws = wb["Comparison"]
    assert [c.value for c in ws[1]][:5] == [
        "metric",
        "unit",
        "baseline",
        "power_constrained",
        "power_constrained − baseline",
    ]
    assert ws["A2"].value == "NPV of total cost of ownership"
    assert ws["E2"].value == "=D2-C2"
    assert len(ws._charts) >= 1 and ws.tables


def test_one_scenario_is_not_a_comparison(run_cli, tmp_path: Path) -> None:
    result = run_cli("compare", BASELINE, "--out", tmp_path / "x.xlsx")
    assert result.code == 2
    assert result.err.endswith("Error: give at least two scenario files to compare\n")


def test_labels_are_unique() -> None:
    labels = unique_labels(["a", "a", "b"], [Path("x/a1.yaml"), Path("y/a2.yaml"), None])
    assert labels == ["a (a1.yaml)", "a (a2.yaml)", "b"]
    assert unique_labels(["a", "a"], [Path("x/s.yaml"), Path("y/s.yaml")]) == [
        "a (s.yaml)",
        "a (s.yaml) #2",
    ]


def test_a_scenario_that_serves_less_shows_it_next_to_its_cost() -> None:
    """one_hardware_one_year serves all 1.0e10 tokens/day (4 h100-hgx); budget_shortfall
    has the same demand and serves 2 tau at peak (2 units): x = 1 − 2 tau / peak short at
    peak, which loses a share (5x − 1)/8 × 1.5 of the tokens under the load shape (the
    chord k = 2 of width P/6 of the curve from P to P/2, as in test_lexicographic), and
    each scenario's NPV cost is divided by the Mtok it serves."""
    hand = REPO / "tests" / "scenarios"
    result = compare_files([hand / "one_hardware_one_year.yaml", hand / "budget_shortfall.yaml"])
    headline = result.headline.set_index("metric")
    full, short = result.labels
    served = headline.loc["inference demand served"]
    assert served[full] == pytest.approx(1.0e10 * 365.25, rel=1e-9)
    plan_short = result.solved[1].plan
    x = float(plan_short.tables["served"]["unmet_share"].iloc[0])
    assert int(6 * x) == 2
    share = (5 * x - 1) / 8 * 1.5
    assert headline.loc["inference demand left unmet", short] == pytest.approx(share, rel=1e-9)
    assert headline.loc["inference demand left unmet", full] == 0.0
    assert served[short] == pytest.approx(1.0e10 * 365.25 * (1 - share), rel=1e-9)
    per_mtok = headline.loc["NPV cost per served Mtok (whole horizon)"]
    for label, solved in zip(result.labels, result.solved, strict=True):
        npv = solved.plan.headline["npv_cost_usd"]
        assert per_mtok[label] == pytest.approx(npv / (served[label] / 1e6), rel=1e-9)
    # Half the NPV (2 units of 4), shown next to the 27% of tokens it leaves unmet.
    npv = headline.loc["NPV of total cost of ownership"]
    assert npv[short] == pytest.approx(npv[full] / 2, rel=1e-9)
    assert 0.4 < x < 0.6 and 0.2 < share < 0.35


def test_lost_revenue_stands_next_to_served_and_unmet(comparison) -> None:
    """The baseline prices its workloads: compare adds the revenue lost on unmet priced
    work, the PV of revenue and the NPV of profit, each the plan's own figure."""
    headline = comparison.headline.set_index("metric")
    metrics = list(headline.index)
    at = metrics.index("NPV cost per served Mtok (whole horizon)")
    assert metrics[at + 1] == "revenue lost on unmet priced work"
    for s, label in zip(comparison.solved, comparison.labels, strict=True):
        h = s.plan.headline
        lost = s.plan.tables["revenue"]["lost_revenue_usd"].sum()
        assert headline.loc["revenue lost on unmet priced work", label] == pytest.approx(lost)
        assert h["lost_revenue_usd"] == pytest.approx(lost)
        assert headline.loc["NPV of profit (PV of revenue − NPV cost)", label] == pytest.approx(
            h["revenue_usd_pv"] - h["npv_cost_usd"]
        )
    assert headline.loc["revenue lost on unmet priced work", "power_constrained"] > 0
