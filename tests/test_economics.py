"""Unit economics: capital recovery, unit TCO, $/Mtok, bills and the inference crossover."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.economics import (
    UnitCost,
    blended_usd_per_mtok,
    capital_recovery_factor,
    crossover,
    daily_bill_usd,
    discount_factor,
    inference_flops_per_token,
    npv,
    training_flops_from_hours,
    unit_cost,
    unit_cost_for_scenario,
    usd_per_mtok,
    yearly_bill_usd,
    yearly_query_bill_usd,
)
from planner.errors import InputError
from planner.scenario.schema import Scenario

AS_OF = dt.date(2025, 1, 1)


def h100_hgx(**changes: Any) -> HardwareSpec:
    """An 8-GPU HGX H100 server: 989 dense BF16 TFLOPS per GPU (NVIDIA H100 datasheet)."""
    fields: dict[str, Any] = {
        "id": "test-h100-hgx",
        "name": "HGX H100 (test)",
        "vendor": "NVIDIA",
        "family": "hopper",
        "form": "server",
        "accelerators": 8,
        "peak_tflops_bf16": 989.0,
        "peak_tflops_fp8": 1979.0,
        "memory_gb": 80.0,
        "memory_tbps": 3.35,
        "scale_up_domain": 8,
        "power_kw": 10.0,
        "price_usd": 250_000.0,
        "price_year": 2024,
        "release_year": 2023,
        "lifetime_years": 5,
        "mfu_training": 0.40,
        "mtbf_hours_per_accelerator": 50_000.0,
        "source": "NVIDIA H100 datasheet",
        "as_of": AS_OF,
    }
    return HardwareSpec.model_validate({**fields, **changes})


def llama(params_b: float, layers: int, hidden: int, heads: int, **changes: Any) -> ModelSpec:
    fields: dict[str, Any] = {
        "id": f"test-llama-{int(params_b)}b",
        "total_params_b": params_b,
        "active_params_b": params_b,
        "layers": layers,
        "hidden_size": hidden,
        "attention_heads": heads,
        "kv_heads": 8,
        "head_dim": 128,
        "max_context_tokens": 131_072,
        "source": "Meta Llama 3.1 model card",
        "as_of": AS_OF,
    }
    return ModelSpec.model_validate({**fields, **changes})


# Meta Llama 3.1 model card: 70B and 405B trained on 15.6T tokens with 7.0M and 30.84M
# H100-80GB GPU-hours.
LLAMA_70B = llama(70, 80, 8192, 64, training_tokens=15.6e12, training_accelerator_hours=7.0e6)
LLAMA_405B = llama(
    405, 126, 16_384, 128, training_tokens=15.6e12, training_accelerator_hours=30.84e6
)


# --- Discounting ----------------------------------------------------------------------


def test_capital_recovery_factor() -> None:
    # Standard annuity tables: CRF(7%, 25 y) = 0.0858; at 0 % it is 1 / n.
    assert round(capital_recovery_factor(0.07, 25), 4) == 0.0858
    assert capital_recovery_factor(0.0, 20) == 0.05
    with pytest.raises(ValueError):
        capital_recovery_factor(0.05, 0)


def test_discount_factor_and_npv() -> None:
    assert discount_factor(0.10, 0) == 1.0
    assert discount_factor(0.10, 2) == pytest.approx(1 / 1.21)
    # 110 paid a year on at 10 % is worth 100 today.
    assert npv(0.10, {2026: 100.0, 2027: 110.0}, base_year=2026) == pytest.approx(200.0)
    assert npv(0.0, {2030: 5.0, 2031: 7.0}, base_year=2026) == 12.0


# --- Unit cost ------------------------------------------------------------------------


def test_unit_cost_by_hand() -> None:
    cost = unit_cost(
        h100_hgx(),
        price_usd=250_000.0,
        wacc=0.0,
        pue=1.25,
        electricity_usd_per_kwh=0.10,
        facility_usd_per_kw_year=1_000.0,
        maintenance_fraction=0.04,
        utilisation=0.8,
    )
    assert cost.capital_recovery_usd_per_year == pytest.approx(50_000.0)  # 250k / 5 y
    assert cost.facility_usd_per_year == pytest.approx(10_000.0)  # 10 kW · $1,000
    assert cost.energy_usd_per_year == pytest.approx(10 * 1.25 * 0.8 * 8760 * 0.10)  # 8,760
    assert cost.maintenance_usd_per_year == pytest.approx(10_000.0)
    assert cost.total_usd_per_year == pytest.approx(78_760.0)
    assert cost.usd_per_accelerator_hour == pytest.approx(78_760.0 / (8 * 8760))


def test_unit_cost_lifetime_override() -> None:
    kwargs: dict[str, Any] = {
        "price_usd": 300_000.0,
        "wacc": 0.0,
        "pue": 1.2,
        "electricity_usd_per_kwh": 0.07,
        "facility_usd_per_kw_year": 0.0,
        "maintenance_fraction": 0.0,
        "utilisation": 0.0,
    }
    assert unit_cost(h100_hgx(), **kwargs, lifetime_years=3).total_usd_per_year == 100_000.0


def _scenario() -> Scenario:
    hw = h100_hgx().model_dump()
    hw["price_usd"] = {2026: 200_000.0, 2028: 50_000.0}
    return Scenario.model_validate(
        {
            "name": "t",
            "horizon": {"start": 2026, "years": 3},
            "finance": {
                "wacc": 0.0,
                "pue": 1.25,
                "electricity_usd_per_kwh": 0.10,
                "facility_usd_per_kw_year": 1_000.0,
                "maintenance_fraction_of_capex_per_year": 0.0,
                "utilisation": 1.0,
            },
            "sites": [
                {
                    "name": "cheap",
                    "power_cap_mw": 50.0,
                    "electricity_usd_per_kwh": 0.05,
                    "pue": 1.1,
                    "facility_usd_per_kw_year": 0.0,
                },
                {"name": "plain", "power_cap_mw": 50.0},
            ],
            "hardware": [hw],
            "models": [LLAMA_70B.model_dump()],
        }
    )


def test_unit_cost_for_scenario() -> None:
    scenario = _scenario()
    # Price interpolates geometrically: 200k → 50k over two years is 100k in 2027.
    cost = unit_cost_for_scenario(scenario, "test-h100-hgx", 2027)
    assert cost.capital_recovery_usd_per_year == pytest.approx(100_000.0 / 5)
    assert cost.energy_usd_per_year == pytest.approx(10 * 1.25 * 8760 * 0.10)
    assert cost.facility_usd_per_year == pytest.approx(10_000.0)
    assert unit_cost_for_scenario(scenario, "test-h100-hgx", 2027, "plain") == cost
    cheap = unit_cost_for_scenario(scenario, "test-h100-hgx", 2027, "cheap")
    assert cheap.energy_usd_per_year == pytest.approx(10 * 1.1 * 8760 * 0.05)
    assert cheap.facility_usd_per_year == 0.0


def test_unit_cost_for_scenario_unknown_ids() -> None:
    scenario = _scenario()
    with pytest.raises(InputError, match="did you mean 'test-h100-hgx'"):
        unit_cost_for_scenario(scenario, "test-h100-hg", 2026)
    with pytest.raises(InputError, match="did you mean 'cheap'"):
        unit_cost_for_scenario(scenario, "test-h100-hgx", 2026, "chep")


def test_usd_per_mtok() -> None:
    # A unit costing $31.536M a year serving 1,000 tokens/s: 31.536e9 tokens a year, $1/ktok.
    assert usd_per_mtok(31.536e6, 1_000.0) == pytest.approx(1_000.0)
    assert usd_per_mtok(31.536e6, 1_000.0, load_factor=0.5) == pytest.approx(2_000.0)
    cost = UnitCost(1.0, 1.0, 1.0, 1.0, 4.0, 8, price_usd=5.0)
    assert cost.usd_per_accelerator_hour == pytest.approx(4.0 / (8 * 8760))


# --- Prices and bills -----------------------------------------------------------------


def test_daily_and_yearly_bill() -> None:
    # Worked example: 10,000 conversations/day of 700 tokens at $0.001 per 1k tokens is
    # $7.00/day; at 100× the traffic about $255k a year (700 × 365 = $255,500).
    tokens_per_day = 10_000 * 700
    usd_per_mtok_price = 0.001 * 1_000  # $0.001 per 1k tokens = $1 per Mtok
    assert daily_bill_usd(tokens_per_day, usd_per_mtok_price) == pytest.approx(7.00)
    assert yearly_bill_usd(100 * tokens_per_day, usd_per_mtok_price) == pytest.approx(255_500)
    # 100M queries/day at $0.002 per query: $73M a year.
    assert yearly_query_bill_usd(100e6, 0.002) == pytest.approx(73e6)


def test_blended_price() -> None:
    # Anthropic Claude Opus 4.5 list prices: $5 input, $25 output, $0.50 cache-read per Mtok.
    # At 300 input tokens per output token and 90 % cache hits the blend is about $1/Mtok
    # (published realised figure ≈ $0.99/Mtok). Hand: (25 + 300·(0.1·5 + 0.9·0.5)) / 301.
    price = blended_usd_per_mtok(5.0, 25.0, 0.50, 300.0, 0.90)
    assert price.usd_per_mtok == pytest.approx(1.0, rel=0.05)
    assert price.usd_per_mtok == pytest.approx(310.0 / 301.0)
    assert price.usd_per_output_mtok == pytest.approx(310.0)
    # No input: the blend is the output price.
    assert blended_usd_per_mtok(5.0, 25.0, 0.5, 0.0, 0.9).usd_per_mtok == 25.0


# --- Crossover ------------------------------------------------------------------------


def test_inference_flops_per_token() -> None:
    assert inference_flops_per_token(70) == 140e9


def test_crossover_small_service_takes_millennia() -> None:
    # 5,000 questions/day of 1,500 tokens on Llama 3.1 70B against its 7.0M H100-hours at
    # 30 % of peak: 7.48e24 / 1.05e18 FLOP/day ≈ 7.1M days ≈ 19,500 years.
    result = crossover(
        LLAMA_70B,
        questions_per_day=5_000,
        tokens_per_question=1_500,
        hardware=h100_hgx(),
        utilisation=0.30,
    )
    assert result.training_basis == "accelerator-hours"
    assert result.training_flops == pytest.approx(7.0e6 * 3600 * 989e12 * 0.30)
    assert result.years > 1_000
    assert result.days == pytest.approx(result.years * 365.25)


def test_crossover_large_service_takes_weeks() -> None:
    # 1e9 questions/day of 1,500 tokens on Llama 3.1 405B: 30.84M H100-hours at 30 % of
    # peak (3.29e25 FLOPs) over 1.2e24 FLOP/day ≈ 27 days.
    kwargs: dict[str, Any] = {
        "questions_per_day": 1e9,
        "tokens_per_question": 1_500,
        "hardware": h100_hgx(),
        "utilisation": 0.30,
        "training_accelerator_hours": 30.84e6,
    }
    result = crossover(LLAMA_405B, **kwargs)
    assert 20 <= result.days <= 40
    # Reasoning tokens count as generated tokens: 8,000 more per answer shortens the
    # crossover by (1,500 + 8,000) / 1,500.
    reasoning = crossover(LLAMA_405B, **kwargs, reasoning_tokens=8_000)
    assert result.days / reasoning.days == pytest.approx(9_500 / 1_500)
    small = crossover(
        LLAMA_70B,
        questions_per_day=5_000,
        tokens_per_question=1_500,
        hardware=h100_hgx(),
        utilisation=0.30,
    )
    small_reasoning = crossover(
        LLAMA_70B,
        questions_per_day=5_000,
        tokens_per_question=1_500,
        reasoning_tokens=8_000,
        hardware=h100_hgx(),
        utilisation=0.30,
    )
    assert small.days / small_reasoning.days == pytest.approx(9_500 / 1_500)


def test_crossover_from_training_tokens() -> None:
    result = crossover(LLAMA_405B, questions_per_day=1e9, tokens_per_question=1_500)
    assert result.training_basis == "tokens"
    assert result.training_flops == pytest.approx(6 * 405e9 * 15.6e12)
    assert result.inference_flops_per_day == pytest.approx(1e9 * 1_500 * 2 * 405e9)


def test_crossover_missing_inputs() -> None:
    bare = llama(8, 32, 4096, 32)
    with pytest.raises(InputError, match="training tokens"):
        crossover(bare, questions_per_day=1, tokens_per_question=1)
    with pytest.raises(InputError, match="accelerator-hours"):
        crossover(bare, questions_per_day=1, tokens_per_question=1, hardware=h100_hgx())
    with pytest.raises(InputError, match="hardware"):
        crossover(bare, questions_per_day=1, tokens_per_question=1, training_accelerator_hours=1e6)
    # Utilisation defaults to the hardware's training MFU.
    result = crossover(LLAMA_70B, questions_per_day=1, tokens_per_question=1, hardware=h100_hgx())
    assert result.training_flops == pytest.approx(training_flops_from_hours(7.0e6, 989.0, 0.40))
