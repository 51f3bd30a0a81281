"""``extends:`` and ``overrides:``: variants of a scenario that change only what they name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.errors import InputError, Problem
from planner.scenario import Scenario, load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
YEARS = range(2026, 2032)
IDENTITY = {"name", "description", "extends", "overrides"}


def dump(scenario: Scenario) -> dict[str, Any]:
    """The scenario as plain data, without the keys every variant changes."""
    return {k: v for k, v in scenario.model_dump().items() if k not in IDENTITY}


def differences(a: Any, b: Any, here: str = "") -> list[str]:
    """Paths at which two dumped documents differ ({year: value} mappings compare whole)."""
    if isinstance(a, dict) and isinstance(b, dict) and all(isinstance(k, str) for k in a):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            sub = f"{here}.{key}" if here else str(key)
            if key not in a or key not in b:
                out.append(sub)
            else:
                out += differences(a[key], b[key], sub)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in differences(x, y, f"{here}[{i}]")
        ]
    return [] if a == b else [here]


@pytest.fixture
def base_dir(tmp_path: Path) -> Path:
    """A directory holding a copy of the baseline, for variants to extend."""
    (tmp_path / "baseline.yaml").write_text(
        (SCENARIOS / "baseline.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    return tmp_path


def variant(
    base_dir: Path, overrides: str, name: str = "variant.yaml", extends: str = "baseline.yaml"
) -> Path:
    path = base_dir / name
    path.write_text(
        f"name: {path.stem}\nextends: {extends}\noverrides:\n{overrides}", encoding="utf-8"
    )
    return path


def rejected(path: Path) -> list[Problem]:
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert info.value.exit_code == 2
    return info.value.problems


def line_of(path: Path, text: str) -> int:
    content = path.read_text(encoding="utf-8")
    return content[: content.index(text)].count("\n") + 1


# --- the shipped variants ----------------------------------------------------------------


def test_power_constrained_differs_from_baseline_only_in_the_power_cap() -> None:
    base = load_scenario(SCENARIOS / "baseline.yaml")
    variant_ = load_scenario(SCENARIOS / "power_constrained.yaml")
    assert variant_.name == "power_constrained"
    assert differences(dump(base), dump(variant_)) == ["sites[0].power_cap_mw"]
    assert variant_.sites[0].power_cap_mw == {2026: 60, 2027: 90, 2029: 150}
    # The rest of the site is inherited.
    assert variant_.sites[0].electricity_usd_per_kwh == base.sites[0].electricity_usd_per_kwh


def test_vendor_shootout_differs_from_baseline_only_in_hardware() -> None:
    base = load_scenario(SCENARIOS / "baseline.yaml")
    shootout = load_scenario(SCENARIOS / "vendor_shootout.yaml")
    changed = differences(dump(base), dump(shootout))
    assert all(d.startswith(("hardware", "rental")) for d in changed)
    # The rentals added are the cloud-only TPUs' catalog offers (offers.yaml).
    added = [r.hardware for r in shootout.rental if r not in base.rental]
    assert added == ["tpu-v6e-pod256", "tpu-ironwood-slice256"]
    ids = [h.id for h in shootout.hardware]
    assert "tpu-ironwood-slice256" in ids and "mi325x-oam8" in ids
    assert shootout.inference == base.inference and shootout.training == base.training


# --- overrides ---------------------------------------------------------------------------


def test_override_a_scalar(base_dir: Path) -> None:
    scenario = load_scenario(variant(base_dir, "  finance.wacc: 0.08\n"))
    assert scenario.finance.wacc == 0.08
    base = load_scenario(base_dir / "baseline.yaml")
    assert differences(dump(base), dump(scenario)) == ["finance.wacc"]


def test_override_one_year_of_a_scalar_keeps_the_other_years(base_dir: Path) -> None:
    scenario = load_scenario(variant(base_dir, "  finance.electricity_usd_per_kwh.2028: 0.09\n"))
    assert scenario.finance.electricity_usd_per_kwh == {
        y: (0.09 if y == 2028 else 0.07) for y in YEARS
    }


def test_override_one_year_of_a_site_value_keeps_the_other_years(base_dir: Path) -> None:
    scenario = load_scenario(
        variant(base_dir, "  sites[texas].electricity_usd_per_kwh.2030: 0.05\n")
    )
    assert scenario.sites[0].electricity_usd_per_kwh == {
        y: (0.05 if y == 2030 else 0.06) for y in YEARS
    }


def test_override_one_year_of_a_mapping_keeps_the_given_years(base_dir: Path) -> None:
    scenario = load_scenario(variant(base_dir, "  sites[texas].power_cap_mw.2029: 250\n"))
    assert scenario.sites[0].power_cap_mw == {2026: 60, 2027: 120, 2028: 200, 2029: 250, 2030: 400}


def test_override_list_items_by_name_and_index(base_dir: Path) -> None:
    scenario = load_scenario(
        variant(
            base_dir,
            "  inference[chat].tokens_per_day: {2026: 1.0e12, 2031: 1.0e14}\n"
            "  inference[1].cache_hit_rate: 0.6\n"
            "  hardware[gb200-nvl72].price_usd: {2026: 3.4e6, 2028: 2.6e6}\n",
        )
    )
    assert scenario.inference[0].tokens_per_day == {2026: 1.0e12, 2031: 1.0e14}
    assert scenario.inference[1].cache_hit_rate == 0.6
    assert scenario.hardware[3].price_usd == {2026: 3.4e6, 2028: 2.6e6}
    base = load_scenario(base_dir / "baseline.yaml")
    assert sorted(differences(dump(base), dump(scenario))) == [
        "hardware[3].price_usd",
        "inference[0].tokens_per_day",
        "inference[1].cache_hit_rate",
    ]


def test_overrides_without_extends_apply_to_the_same_file(tmp_path: Path) -> None:
    text = (SCENARIOS / "baseline.yaml").read_text(encoding="utf-8")
    path = tmp_path / "self.yaml"
    path.write_text(text + "overrides:\n  finance.pue: 1.4\n", encoding="utf-8")
    assert load_scenario(path).finance.pue == 1.4


def test_extends_chain_of_two_files(base_dir: Path) -> None:
    variant(base_dir, "  finance.wacc: 0.08\n  finance.pue: 1.3\n", name="middle.yaml")
    top = variant(base_dir, "  finance.wacc: 0.12\n", name="top.yaml", extends="middle.yaml")
    scenario = load_scenario(top)
    assert scenario.name == "top"
    assert scenario.finance.wacc == 0.12  # the top file's override wins
    assert scenario.finance.pue == 1.3  # the middle file's override is kept
    base = load_scenario(base_dir / "baseline.yaml")
    assert differences(dump(base), dump(scenario)) == ["finance.pue", "finance.wacc"]


def test_extends_is_relative_to_the_extending_file(base_dir: Path) -> None:
    sub = base_dir / "variants"
    sub.mkdir()
    path = variant(sub, "  finance.wacc: 0.09\n", extends="../baseline.yaml")
    assert load_scenario(path).finance.wacc == 0.09


def test_a_section_in_the_variant_replaces_the_base_section(base_dir: Path) -> None:
    path = base_dir / "v.yaml"
    path.write_text(
        "name: v\nextends: baseline.yaml\nserving: disaggregated\n"
        "solver: {name: highs, mip_gap: 0.01}\n",
        encoding="utf-8",
    )
    scenario = load_scenario(path)
    assert scenario.serving == "disaggregated"
    assert scenario.solver.time_limit_s == 120.0  # the whole solver section was replaced


# --- errors in variants point at the right file and line ---------------------------------


def test_bad_override_value_carries_the_overrides_line(base_dir: Path) -> None:
    path = variant(base_dir, "  finance.wacc: 0.08\n  inference[chat].cache_hit_rate: 2\n")
    (problem,) = rejected(path)
    assert problem.path == "inference[0].cache_hit_rate"
    assert problem.line == line_of(path, "inference[chat]")
    assert problem.file == str(path)


def test_bad_override_of_one_year_carries_the_overrides_line(base_dir: Path) -> None:
    path = variant(base_dir, "  sites[texas].power_cap_mw.2028: -5\n")
    (problem,) = rejected(path)
    assert problem.path == "sites[0].power_cap_mw.2028"
    assert problem.line == 4
    assert problem.file == str(path)


def test_year_of_a_plain_number_field_is_reported_at_the_override(base_dir: Path) -> None:
    path = variant(base_dir, "  finance.wacc.2028: 0.2\n")
    (problem,) = rejected(path)
    assert problem.path == "finance.wacc"
    assert (problem.file, problem.line) == (str(path), 4)


def test_bad_year_inside_an_overriding_mapping(base_dir: Path) -> None:
    path = variant(base_dir, "  sites[texas].power_cap_mw:\n    2026: 60\n    2027: 0\n")
    (problem,) = rejected(path)
    assert problem.path == "sites[0].power_cap_mw.2027"
    assert (problem.file, problem.line) == (str(path), line_of(path, "2027: 0"))


def test_override_year_outside_the_horizon(base_dir: Path) -> None:
    path = variant(base_dir, "  sites[texas].power_cap_mw.2040: 500\n")
    (problem,) = rejected(path)
    assert problem.path == "sites[0].power_cap_mw.2040"
    assert (problem.file, problem.line) == (str(path), 4)


def test_override_path_that_names_nothing(base_dir: Path) -> None:
    path = variant(base_dir, "  finance.wacc: 0.08\n  inference[chatt].cache_hit_rate: 0.2\n")
    (problem,) = rejected(path)
    assert problem.path == "overrides.inference[chatt].cache_hit_rate"
    assert problem.line == 5
    assert "did you mean 'chat'?" in problem.message


def test_problem_in_the_base_file_names_the_base_file(base_dir: Path) -> None:
    base = base_dir / "baseline.yaml"
    base.write_text(
        base.read_text(encoding="utf-8").replace("cache_hit_rate: 0.8", "cache_hit_rate: 1.8"),
        encoding="utf-8",
    )
    path = variant(base_dir, "  finance.wacc: 0.08\n")
    (problem,) = rejected(path)
    assert problem.path == "inference[1].cache_hit_rate"
    assert (problem.file, problem.line) == (str(base), line_of(base, "cache_hit_rate: 1.8"))


def test_reference_problem_from_an_override_names_the_override(base_dir: Path) -> None:
    path = variant(base_dir, "  existing_fleet[0].site: oregon\n")
    (problem,) = rejected(path)
    assert problem.path == "existing_fleet[0].site"
    assert (problem.file, problem.line) == (str(path), 4)


def test_extends_chain_too_long(tmp_path: Path) -> None:
    for i in range(12):
        (tmp_path / f"s{i}.yaml").write_text(f"name: s{i}\nextends: s{i + 1}.yaml\n")
    (tmp_path / "s12.yaml").write_text((SCENARIOS / "baseline.yaml").read_text())
    (problem,) = rejected(tmp_path / "s0.yaml")
    assert "longer than 10" in problem.message
