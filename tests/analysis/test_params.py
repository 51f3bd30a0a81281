"""Parameter paths, spec files, command-line flags, sampling and applying values."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from analysis_helpers import HAND

from planner.analysis.params import (
    Change,
    LogNormal,
    Normal,
    Triangular,
    Uniform,
    apply_changes,
    merge,
    parse_dist,
    parse_vary,
    prepare,
    read_spec,
    sample,
)
from planner.analysis.tasks import Task, build_scenario
from planner.errors import InputError
from planner.scenario import load_scenario
from planner.scenario.resolve import hardware_specs


@pytest.fixture(scope="module")
def switch():
    return load_scenario(HAND / "power_switch.yaml")


def _problems(exc: pytest.ExceptionInfo[InputError]) -> str:
    return "\n".join(p.render(None) for p in exc.value.problems)


def test_unknown_paths_are_rejected_with_did_you_mean(switch) -> None:
    flags = [
        parse_vary("finance.wac=0.05,0.1"),
        parse_vary("hardware[h100-hgz].price_usd=1,2"),
        parse_vary("sites[dc].power_cap_mv=1,2"),
        parse_vary("hardware[h100-hgx].power_kW=1,2"),
        parse_vary("inference[chat].tokens_per_day.2035=1"),
    ]
    with pytest.raises(InputError) as caught:
        prepare(switch, flags)
    text = _problems(caught)
    assert len(caught.value.problems) == 5  # every problem at once, before anything runs
    assert "did you mean 'wacc'" in text
    assert "did you mean 'h100-hgx'" in text
    assert "did you mean 'power_cap_mw'" in text
    assert "did you mean 'power_kw'" in text
    assert "2035 is outside the horizon 2026-2027" in text
    assert caught.value.exit_code == 2


def test_a_series_needs_a_year_or_a_multiplier(switch) -> None:
    with pytest.raises(InputError, match=r"differs by year") as caught:
        prepare(switch, [parse_vary("inference[chat].tokens_per_day=1e10,2e10")])
    assert "tokens_per_day*=" in _problems(caught)
    _, base = prepare(switch, [parse_vary("inference[chat].tokens_per_day*=0.5,2")])
    assert base == {"inference[chat].tokens_per_day": None}


def test_non_numbers_are_rejected(switch) -> None:
    with pytest.raises(InputError, match="names no number"):
        prepare(switch, [parse_vary("serving=1,2")])


def test_inherited_values_are_written_out_without_changing_the_base(switch) -> None:
    paths = [
        parse_vary("hardware[b200-hgx].price_usd=1e5"),  # catalog price
        parse_vary("sites[dc].electricity_usd_per_kwh=0.1"),  # finance default
        parse_vary("hardware[h100-hgx].lifetime_years=2"),  # set in the file
    ]
    doc, base = prepare(switch, paths)
    spec = hardware_specs(switch)["b200-hgx"]
    assert base["hardware[b200-hgx].price_usd"] == spec.price_usd
    assert base["sites[dc].electricity_usd_per_kwh"] == switch.finance.electricity_usd_per_kwh
    assert base["hardware[h100-hgx].lifetime_years"] == 1
    unchanged = build_scenario(Task(0, "base", doc))
    assert hardware_specs(unchanged) == hardware_specs(switch)


def test_one_year_of_a_series_moves_alone(switch) -> None:
    doc, base = prepare(switch, [parse_vary("inference[chat].tokens_per_day.2027=4e10")])
    assert base["inference[chat].tokens_per_day.2027"] == 3.0e10
    moved = apply_changes(doc, [Change("inference[chat].tokens_per_day.2027", 4e10)], [2026, 2027])
    assert moved["inference"][0]["tokens_per_day"] == {2026: 1.0e10, 2027: 4.0e10}
    assert doc["inference"][0]["tokens_per_day"] == {2026: 1.0e10, 2027: 3.0e10}  # a copy


def test_a_multiplier_scales_every_year_and_whole_numbers_stay_whole(switch) -> None:
    doc, _ = prepare(
        switch,
        [
            parse_vary("inference[chat].tokens_per_day*=2"),
            parse_vary("hardware[h100-hgx].lifetime_years=3"),
        ],
    )
    moved = apply_changes(
        doc,
        [
            Change("inference[chat].tokens_per_day", 2.0, multiplier=True),
            Change("hardware[h100-hgx].lifetime_years", 2.6),
        ],
        [2026, 2027],
    )
    assert moved["inference"][0]["tokens_per_day"] == {2026: 2.0e10, 2027: 6.0e10}
    assert moved["hardware"][0]["lifetime_years"] == 3


def test_vary_and_dist_flags() -> None:
    assert parse_vary("finance.wacc=0.05:0.15:3").values == pytest.approx((0.05, 0.1, 0.15))
    assert parse_vary("finance.pue=1.1,1.3").values == (1.1, 1.3)
    star = parse_vary("inference[chat].tokens_per_day*=0.5:2:4")
    assert star.multiplier and star.path == "inference[chat].tokens_per_day"
    assert parse_dist("finance.wacc=triangular:0.05:0.1:0.2").distribution == Triangular(
        0.05, 0.1, 0.2
    )
    assert parse_dist("x=normal:1:0.5:0:").distribution == Normal(1.0, 0.5, 0.0, None)
    assert parse_dist("x=lognormal:1:0.5::3").distribution == LogNormal(1.0, 0.5, None, 3.0)
    for bad, message in (
        ("finance.wacc", "PATH=VALUES"),
        ("finance.wacc=0.1:0.2", "LOW:HIGH:N"),
        ("finance.wacc=0.1,abc", "not a number"),
    ):
        with pytest.raises(InputError, match=message):
            parse_vary(bad)
    for bad, message in (
        ("x=norml:1:2", "did you mean 'normal'"),
        ("x=uniform:2:1", "must be below"),
        ("x=triangular:0:5:1", "mode"),
        ("x=normal:0:1:10:20", "no probability"),
        ("x=uniform:1", "uniform takes LOW:HIGH"),
    ):
        with pytest.raises(InputError, match=message):
            parse_dist(bad)


def test_spec_file(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "seed: 7\n"
        "samples: 50\n"
        "parameters:\n"
        "  finance.wacc: {distribution: triangular, low: 0.07, mode: 0.1, high: 0.13}\n"
        "  inference[chat].tokens_per_day:\n"
        "    {distribution: lognormal, median: 1, sigma: 0.3, multiplier: true}\n"
        "  sites[dc].power_cap_mw.2027: {values: [0.08, 0.1]}\n"
        "  finance.pue: {range: [1.1, 1.4, 4]}\n"
    )
    loaded = read_spec(spec)
    assert (loaded.seed, loaded.samples) == (7, 50)
    assert [p.path for p in loaded.parameters][1] == "inference[chat].tokens_per_day"
    assert loaded.parameters[1].multiplier
    assert loaded.parameters[3].values == pytest.approx((1.1, 1.2, 1.3, 1.4))
    flags = merge(loaded, [parse_dist("finance.wacc=uniform:0.05:0.15")])
    assert flags[0].distribution == Uniform(0.05, 0.15) and len(flags) == 4


def test_bad_spec_files_name_every_problem_with_its_line(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(
        "seed: -1\n"
        "sample: 5\n"
        "parameters:\n"
        "  finance.wacc: {distribution: triangle, low: 0, high: 1}\n"
        "  finance.pue: {values: [1.1, '1.2']}\n"
        "  finance.availability: {distribution: normal, mean: 0.9}\n"
        "  finance.utilisation: {values: [0.5], range: [0, 1, 2]}\n"
        "  finance.maintenance_fraction_of_capex_per_year: {distribution: uniform, low: 0, hi: 1}\n"
    )
    with pytest.raises(InputError) as caught:
        read_spec(spec)
    text = str(caught.value)
    assert "bad.yaml: 7 problem(s)" in text or "problem(s)" in text
    assert "seed: expected a whole number" in text
    assert "did you mean 'samples'" in text
    assert "did you mean 'triangular'" in text
    assert "expected a list of numbers" in text
    assert "needs sd" in text
    assert "exactly one of values, range or distribution" in text
    assert "did you mean 'high'" in text
    assert "line 4" in text


def test_samples_depend_only_on_seed_and_spec() -> None:
    parameters = [
        parse_dist("a=uniform:0:1"),
        parse_dist("b=triangular:1:2:4"),
        parse_dist("c=normal:0:1:-1:1"),
        parse_dist("d=lognormal:1:0.5:0.5:2"),
    ]
    first = sample(parameters, 200, seed=11)
    assert first == sample(parameters, 200, seed=11)
    assert first[:20] == sample(parameters, 20, seed=11)  # a bigger run extends a smaller one
    assert first != sample(parameters, 200, seed=12)
    columns = list(zip(*first, strict=True))
    assert min(columns[0]) >= 0 and max(columns[0]) <= 1
    assert min(columns[1]) >= 1 and max(columns[1]) <= 4
    assert min(columns[2]) >= -1 and max(columns[2]) <= 1
    assert min(columns[3]) >= 0.5 and max(columns[3]) <= 2
    mean = sum(columns[1]) / len(columns[1])
    assert math.isclose(mean, (1 + 2 + 4) / 3, rel_tol=0.05)
    with pytest.raises(InputError, match="needs a distribution"):
        sample([parse_vary("a=1,2")], 3, seed=1)
