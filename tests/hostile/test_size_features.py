"""The size estimate counts every feature (issue 29, item 2): checked feature by
feature against the built model's own nonzeros (the array model's, which equal the
hand-off's), within 1.5× either way, and a small file whose early sales would build a
huge model is refused before anything is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.optimize import build_data
from planner.optimize.rows import build_rows
from planner.optimize.size import check_size, estimate_size
from planner.pipeline import throughput
from planner.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
FEATURES = {
    "baseline": ROOT / "scenarios" / "baseline.yaml",
    "duration menu": ROOT / "tests" / "scenarios" / "duration_step_up.yaml",
    "duration menu, 405B": ROOT / "tests" / "scenarios" / "llama_405b_duration.yaml",
    "early sales": ROOT / "tests" / "scenarios" / "sell_after_first_year.yaml",
    "existing sold": ROOT / "tests" / "scenarios" / "sell_existing.yaml",
    "datacenter blocks": ROOT / "tests" / "scenarios" / "datacenter_build.yaml",
    "leases": ROOT / "tests" / "scenarios" / "lease_or_build.yaml",
    "commitments": ROOT / "tests" / "scenarios" / "commitment_steady.yaml",
}


def _variant(tmp_path: Path, base: Path, per_year: int, sell: bool) -> Path:
    horizon = load_scenario(base).horizon
    text = (
        f"extends: {base}\n"
        f"horizon: {{start: {horizon.start}, years: {horizon.years}, "
        f"periods_per_year: {per_year}}}\n"
    )
    if sell:
        text += "finance: {sell_early: true}\n"
    path = tmp_path / f"{base.stem}-{per_year}-{sell}.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("feature", list(FEATURES))
@pytest.mark.parametrize("per_year", [1, 4, 12])
@pytest.mark.parametrize("sell", [False, True], ids=["", "sell_early"])
def test_the_estimate_is_within_1_5x_of_the_built_model(
    tmp_path: Path, feature: str, per_year: int, sell: bool
) -> None:
    scenario = load_scenario(_variant(tmp_path, FEATURES[feature], per_year, sell))
    real = len(build_rows(build_data(scenario, *throughput(scenario))).index)
    estimate = estimate_size(scenario).nonzeros
    assert real / 1.5 <= estimate <= real * 1.5, (feature, per_year, sell, estimate, real)


@pytest.mark.parametrize("rent_only", [True, False], ids=["rent-only type", "purchasable"])
def test_existing_cohorts_count(tmp_path: Path, rent_only: bool) -> None:
    """30 existing cohorts of h100 at three sites, alive for all 120 months of a
    10-year monthly horizon: 3,600 kept entries (and their sites' fleet rows even when
    the type may not be bought), within 1.5x of the built model; they were not counted
    (11x low)."""
    cohorts = "".join(
        f"  - {{hardware: h100-hgx, site: {site}, units: 10, installed: {year}}}\n"
        for site in ("dc", "dc2", "dc3")
        for year in range(2016, 2026)
    )
    cap = ", max_units_per_year: 0" if rent_only else ""
    path = tmp_path / "cohorts.yaml"
    path.write_text(
        f"extends: {ROOT / 'tests' / 'scenarios' / 'sell_existing.yaml'}\n"
        "horizon: {start: 2026, years: 10, periods_per_year: 12}\n"
        f"hardware: [{{id: h100-hgx, price_decline_per_year: 0, lifetime_years: 20{cap}}}]\n"
        "sites: [{name: dc, power_cap_mw: 10}, {name: dc2, power_cap_mw: 10}, "
        "{name: dc3, power_cap_mw: 10}]\n"
        f"existing_fleet:\n{cohorts}"
    )
    scenario = load_scenario(path)
    assert estimate_size(scenario).existing_entries == 30 * 120
    real = len(build_rows(build_data(scenario, *throughput(scenario))).index)
    assert real / 1.5 <= estimate_size(scenario).nonzeros <= real * 1.5


def test_a_small_file_with_early_sales_over_decades_is_refused_before_building(
    tmp_path: Path,
) -> None:
    """Monthly early sales over 30 years: every purchase month × every later month of
    its life, per hardware and site. Baseline's 6 systems at its one site live 5 years
    (60 months): Σ_v (min(60, 360 − v) − 1) = 300 × 59 + (0 + … + 59) = 19,470 options
    each, 116,820 in all, plus its existing cohort sold in any of the 360 months:
    117,180, about 316,000 nonzeros from a 200-byte file. Refused at a 300,000 limit,
    naming the sales as the driver, before anything is built."""
    base = ROOT / "scenarios" / "baseline.yaml"
    path = tmp_path / "sales.yaml"
    path.write_text(
        f"extends: {base}\n"
        "horizon: {start: 2026, years: 30, periods_per_year: 12}\n"
        "finance: {sell_early: true}\n"
    )
    assert len(path.read_bytes()) < 400
    scenario = load_scenario(path)
    assert estimate_size(scenario).sale_options == 6 * (300 * 59 + 59 * 60 // 2) + 360
    with pytest.raises(InputError, match="early sales"):
        check_size(scenario, max_nonzeros=300_000)
