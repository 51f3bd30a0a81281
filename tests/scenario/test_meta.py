"""Field meaning on the schema (planner/scenario/meta.py): units, fills, defaults, perf use."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pydantic import BaseModel, ValidationError

from planner.pipeline import throughput
from planner.scenario import load_scenario, paths, schema
from planner.scenario.meta import UNKNOWN, FieldMeta, field_meta, perf_free_fields
from planner.scenario.schema import (
    Finance,
    HardwareChoice,
    InferenceWorkload,
    Scenario,
    Site,
    TrainingRun,
)
from planner.scenario.variants import fill_of, path_meta

REPO = Path(__file__).resolve().parents[2]
MODELS: list[type[BaseModel]] = [
    m
    for m in vars(schema).values()
    if isinstance(m, type) and issubclass(m, BaseModel) and m.__module__ == schema.__name__
]


def _year_indexed(model: type[BaseModel], name: str) -> bool:
    text = str(model.model_fields[name].annotation)
    # resale_curve is keyed by age in years, not by calendar year: no fill rule
    keyed_otherwise = ("vendor_share_max", "software", "overrides", "resale_curve")
    return "dict[" in text and name not in keyed_otherwise


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_year_indexed_fields_and_only_they_have_a_fill_rule(model: type[BaseModel]) -> None:
    for name in model.model_fields:
        has_fill = field_meta(model, name).fill is not None
        assert has_fill == _year_indexed(model, name), f"{model.__name__}.{name}"


def test_fill_rules_are_the_documented_ones() -> None:
    assert fill_of("sites[texas].power_cap_mw") == "hold"
    assert fill_of("budget.capex_usd") == "hold"
    assert fill_of("hardware[gb200-nvl72].max_units_per_year") == "hold"
    assert fill_of("rental[0].max_accelerators") == "hold"
    assert fill_of("hardware[gb200-nvl72].price_usd") == "geometric"
    assert fill_of("inference[chat].tokens_per_day") == "geometric"
    assert fill_of("finance.electricity_usd_per_kwh") == "geometric"
    assert fill_of("rental[0].usd_per_accelerator_hour") == "geometric"


def test_site_defaults_name_finance_fields_of_the_same_kind() -> None:
    defaults = {n: field_meta(Site, n).default_from for n in Site.model_fields}
    assert {k: v for k, v in defaults.items() if v} == {
        "electricity_usd_per_kwh": "finance.electricity_usd_per_kwh",
        "pue": "finance.pue",
        "facility_usd_per_kw_year": "finance.facility_usd_per_kw_year",
    }
    for site_field, target in defaults.items():
        if target is None:
            continue
        finance_field = target.removeprefix("finance.")
        assert field_meta(Site, site_field).unit == field_meta(Finance, finance_field).unit
        assert field_meta(Site, site_field).fill == field_meta(Finance, finance_field).fill


def test_units_and_perf_flags_read_from_paths() -> None:
    assert path_meta("finance.availability") == FieldMeta(perf=True, unit="share of units")
    assert path_meta("sites[texas].power_cap_mw") == FieldMeta(
        perf=False, unit="MW (facility, IT × PUE)", fill="hold"
    )
    assert path_meta("inference[0].cache_hit_rate").perf is True
    assert path_meta("hardware[gb200-nvl72].price_usd").perf is False
    assert path_meta("models[deepseek-v3].layers") is UNKNOWN  # catalog field: counts as read
    assert path_meta("vendor_share_max.NVIDIA").perf is False
    assert perf_free_fields(HardwareChoice) == {
        "price_usd",
        "max_units_per_year",
        "sites",
        "purchasable",
        "price_decline_per_year",
    }
    prices = {f"price_{kind}usd_per_mtok" for kind in ("", "input_", "cached_input_", "output_")}
    assert perf_free_fields(InferenceWorkload) == {
        "tokens_per_day",
        "peak_to_average",
        "priority",
        *prices,
    }
    # earliest_start and deadline move when a run may go, not how fast it trains
    assert perf_free_fields(TrainingRun) == {
        "priority",
        "value_usd",
        "must_finish",
        "earliest_start",
        "deadline",
    }
    with pytest.raises(paths.PathError, match="no field 'wac'"):
        path_meta("finance.wac")


# --- perf relevance, measured: perturb each field marked perf=False -----------------------


def _leaves(model: BaseModel, prefix: str = "") -> Iterator[tuple[str, type[BaseModel], str]]:
    """(path, model class, field) of every field set in ``model``, depth first."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        path = f"{prefix}.{name}" if prefix else name
        if isinstance(value, BaseModel):
            yield from _leaves(value, path)
        elif isinstance(value, list) and value and isinstance(value[0], BaseModel):
            for i, item in enumerate(value):
                yield from _leaves(item, f"{path}[{i}]")
        else:
            yield path, type(model), name


def _perturbed(value: Any, annotation: Any) -> list[Any]:
    """Other valid-looking values for a field: a little more, a little less, another choice."""
    if value is None:  # unset: a number (or whole number) where the type allows one
        return [1.5, 2]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value * 2, value - 1]
    if isinstance(value, float):
        return [value * 1.05, value * 0.95]
    if (
        isinstance(value, dict)
        and value
        and all(isinstance(v, float | int) for v in value.values())
    ):
        return [{k: v * 1.05 for k, v in value.items()}, {k: v * 0.95 for k, v in value.items()}]
    if typing.get_origin(annotation) is typing.Literal:
        return [a for a in typing.get_args(annotation) if a != value]
    return []


def _same_tables(
    a: tuple[pd.DataFrame, pd.DataFrame], b: tuple[pd.DataFrame, pd.DataFrame]
) -> bool:
    return all(x.equals(y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(
    "scenario_file",
    ["scenarios/baseline.yaml", "tests/scenarios/availability_cluster.yaml"],
)
def test_fields_marked_perf_free_leave_the_throughput_tables_unchanged(scenario_file: str) -> None:
    """Every field the perf package reads must be marked perf=True: moving a field marked
    perf=False never changes a throughput table (and moving availability does)."""
    scenario = load_scenario(REPO / scenario_file)
    base = throughput(scenario)
    doc = scenario.model_dump(mode="python")
    checked = []
    for path, model, name in _leaves(scenario):
        if field_meta(model, name).perf:
            continue
        annotation = model.model_fields[name].annotation
        current = paths.get(doc, path)
        for value in _perturbed(current, annotation):
            try:
                variant = Scenario.model_validate(paths.set_value(doc, path, value))
            except ValidationError:
                continue
            assert _same_tables(throughput(variant), base), f"{path} = {value!r} moved the tables"
            checked.append(path)
            break
    expected = {"finance.wacc", "sites[0].power_cap_mw", "sites[0].pue", "horizon.start"}
    assert expected | {"serving", "hardware[0].price_usd"} <= set(checked)


def test_the_perturbation_sees_a_field_the_perf_model_reads() -> None:
    """The check above can fail: availability (perf=True) moves the training table."""
    scenario = load_scenario(REPO / "tests/scenarios/availability_cluster.yaml")
    doc = scenario.model_dump(mode="python")
    moved = Scenario.model_validate(paths.set_value(doc, "finance.availability", 0.9405))
    assert not _same_tables(throughput(moved), throughput(scenario))
