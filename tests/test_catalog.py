"""Integrity checks for the hardware and model catalogs.

Each check asserts real values from ``planner/catalog/*.yaml`` so that a typo in a unit
(sparse instead of dense TFLOPS, GB instead of TB, W instead of kW) or a dropped row
fails here rather than silently skewing a plan.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from importlib import resources
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

import planner.catalog as catalog_loading
from planner.catalog import HardwareSpec, ModelSpec, hardware_catalog, model_catalog
from planner.scenario.timing import available_from_year

pytestmark = pytest.mark.filterwarnings("error")

KEBAB_ID = re.compile(r"^[a-z0-9]+(?:[.\-][a-z0-9]+)*$")

REQUIRED_HARDWARE = {
    "h100-hgx",
    "h200-hgx",
    "b200-hgx",
    "b300-hgx",
    "gb200-nvl72",
    "gb300-nvl72",
    "mi300x-oam8",
    "mi325x-oam8",
    "mi355x-oam8",
    "vr200-nvl144",
    "rubin-cpx",
    "gaudi3-oam8",
    # Referenced by data/moe-serving-reference.csv (DeepSeek-V3 serving on H800).
    "h800-hgx",
}
REQUIRED_MODELS = {
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "mixtral-8x7b",
    "deepseek-v3",
    "deepseek-r1",
    "qwen3-235b-a22b",
    "gpt-oss-120b",
    "kimi-k2",
    "gpt-3-175b",
}

HARDWARE = hardware_catalog()
MODELS = model_catalog()
HW_IDS = sorted(HARDWARE)
MODEL_IDS = sorted(MODELS)


def _raw_rows(filename: str) -> list[dict[str, Any]]:
    text = resources.files("planner.catalog").joinpath(filename).read_text("utf-8")
    rows = yaml.safe_load(text)
    assert isinstance(rows, list)
    return rows


RAW_HARDWARE = _raw_rows("hardware.yaml")
RAW_MODELS = _raw_rows("models.yaml")


# --- both catalogs -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "raw"), [("hardware.yaml", RAW_HARDWARE), ("models.yaml", RAW_MODELS)]
)
def test_ids_are_kebab_case_and_unique(filename: str, raw: list[dict[str, Any]]) -> None:
    ids = [row["id"] for row in raw]
    assert len(ids) == len(set(ids)), f"duplicate ids in {filename}"
    bad = [i for i in ids if not KEBAB_ID.fullmatch(i)]
    assert not bad, f"ids not lower-case kebab-case in {filename}: {bad}"


@pytest.mark.parametrize(
    ("filename", "raw"), [("hardware.yaml", RAW_HARDWARE), ("models.yaml", RAW_MODELS)]
)
def test_every_row_has_source_and_as_of(filename: str, raw: list[dict[str, Any]]) -> None:
    for row in raw:
        assert str(row.get("source", "")).strip(), f"{row['id']}: empty source"
        as_of = row.get("as_of")
        assert isinstance(as_of, dt.date), f"{row['id']}: as_of must be a YAML date"
        assert dt.date(2023, 1, 1) <= as_of <= dt.date.today(), f"{row['id']}: as_of {as_of}"


def test_loader_returns_every_row() -> None:
    assert len(HARDWARE) == len(RAW_HARDWARE)
    assert len(MODELS) == len(RAW_MODELS)


@pytest.mark.parametrize(
    ("filename", "raw"), [("hardware.yaml", RAW_HARDWARE), ("models.yaml", RAW_MODELS)]
)
def test_fast_parser_reads_the_same_values(filename: str, raw: list[dict[str, Any]]) -> None:
    # The catalog is read with libyaml when PyYAML has it; every value (dates, floats
    # such as 1.0e+3, nulls) must equal what the pure-Python safe loader reads.
    text = resources.files("planner.catalog").joinpath(filename).read_text("utf-8")
    fast = yaml.load(text, Loader=catalog_loading._SafeLoader)
    assert repr(fast) == repr(raw)
    assert catalog_loading._SafeLoader is getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def test_fast_parser_reads_the_same_offers() -> None:
    text = resources.files("planner.catalog").joinpath("offers.yaml").read_text("utf-8")
    fast = yaml.load(text, Loader=catalog_loading._SafeLoader)
    assert repr(fast) == repr(yaml.safe_load(text))


def test_rows_reject_unknown_keys() -> None:
    row = dict(RAW_HARDWARE[0], tflops=1.0)
    with pytest.raises(ValidationError):
        HardwareSpec.model_validate(row)
    row = dict(RAW_MODELS[0], params=1.0)
    with pytest.raises(ValidationError):
        ModelSpec.model_validate(row)


# --- hardware ------------------------------------------------------------------------


def test_hardware_coverage() -> None:
    assert set(HARDWARE) >= REQUIRED_HARDWARE, REQUIRED_HARDWARE - set(HARDWARE)
    assert len(HARDWARE) >= 18
    assert len({hw.vendor for hw in HARDWARE.values()}) >= 5
    assert any(i.startswith("tpu-v5") for i in HARDWARE)
    assert any(i.startswith("tpu-v6e") for i in HARDWARE)
    assert any(i.startswith("tpu-ironwood") for i in HARDWARE)
    assert any(i.startswith("trn2") for i in HARDWARE)
    assert any(hw.memory_kind == "sram" for hw in HARDWARE.values())


@pytest.mark.parametrize("hw_id", HW_IDS)
def test_hardware_units_plausible(hw_id: str) -> None:
    hw = HARDWARE[hw_id]
    if hw.peak_tflops_bf16 is not None:
        assert 10 <= hw.peak_tflops_bf16 <= 20_000, "dense bf16 TFLOPS per accelerator"
    assert 0.1 <= hw.memory_gb <= 2000, "GB per accelerator (Rubin Ultra: ~1 TB HBM4e)"
    assert 0 < hw.memory_tbps <= 200, "TB/s per accelerator"
    kw_per_accelerator = hw.power_kw / hw.accelerators
    # up to a four-die Rubin Ultra package with its share of CPUs and switches (~4.2 kW)
    assert 0.05 <= kw_per_accelerator <= 5.0, f"{kw_per_accelerator:.3f} kW per accelerator"
    usd_per_accelerator = hw.price_usd / hw.accelerators
    assert 1_000 <= usd_per_accelerator <= 200_000, f"${usd_per_accelerator:,.0f} per accelerator"
    assert 2018 <= hw.release_year <= 2028
    assert 2018 <= hw.price_year <= 2028
    assert 3 <= hw.lifetime_years <= 8
    assert 0.0 <= hw.mfu_training <= 0.6
    assert 1_000 <= hw.mtbf_hours_per_accelerator <= 1_000_000
    if hw.scale_up_gbps is not None:
        assert 10 <= hw.scale_up_gbps <= 10_000, "GB/s one direction per accelerator"


@pytest.mark.parametrize("hw_id", HW_IDS)
def test_availability_is_sourced_and_successors_come_later(hw_id: str) -> None:
    """Every availability fact carries its source; a successor is a catalog row that
    ships after the part it follows, so the price-hold rule reads a real date."""
    hw = HARDWARE[hw_id]
    facts = (hw.available_from, hw.end_of_sale, hw.first_year_max_units, hw.successor)
    if any(f is not None for f in facts):
        assert hw.availability_source and re.search(r"\d{4}", hw.availability_source)
    if hw.successor is not None:
        after = HARDWARE[hw.successor]
        assert after.vendor == hw.vendor
        assert available_from_year(after) > available_from_year(hw)


def test_the_newest_generations_are_in_the_catalog() -> None:
    """Later years choose among generations: each vendor line with an announced next
    generation carries it (flagged as estimates)."""
    for newest in ("rubin-ultra-nvl576", "mi450x-helios72"):
        assert HARDWARE[newest].price_is_estimate and "ESTIMATE" in HARDWARE[newest].notes
    assert HARDWARE["vr200-nvl144"].successor == "rubin-ultra-nvl576"
    assert HARDWARE["mi355x-oam8"].successor == "mi450x-helios72"


@pytest.mark.parametrize("hw_id", HW_IDS)
def test_precision_ladder(hw_id: str) -> None:
    hw = HARDWARE[hw_id]
    assert hw.peak_tflops("bf16") is not None or hw.peak_tflops("fp8") is not None
    if hw.peak_tflops_bf16 is not None and hw.peak_tflops_fp8 is not None:
        assert hw.peak_tflops_fp8 >= hw.peak_tflops_bf16
    if hw.peak_tflops_fp8 is not None and hw.peak_tflops_fp4 is not None:
        assert hw.peak_tflops_fp4 >= hw.peak_tflops_fp8
    if hw.peak_tflops_bf16 is not None and hw.peak_tflops_fp4 is not None:
        assert hw.peak_tflops_fp4 >= hw.peak_tflops_bf16


@pytest.mark.parametrize("hw_id", HW_IDS)
def test_scale_up_domain_holds_the_unit(hw_id: str) -> None:
    hw = HARDWARE[hw_id]
    assert hw.scale_up_domain >= 1
    if hw.form in ("server", "rack") and hw.accelerators > hw.scale_up_domain:
        assert "scale-up" in hw.notes, "a unit larger than its scale-up domain must say why"


@pytest.mark.parametrize("raw", RAW_HARDWARE, ids=lambda r: r["id"])
def test_price_estimates_are_flagged_and_explained(raw: dict[str, Any]) -> None:
    assert "price_is_estimate" in raw, "state price_is_estimate explicitly"
    if raw["price_is_estimate"]:
        notes = raw.get("notes", "").lower()
        assert "estimate" in notes or "imputed" in notes, "say what the price estimate rests on"


def test_hardware_reference_figures() -> None:
    h100 = HARDWARE["h100-hgx"]
    assert (h100.peak_tflops_bf16, h100.peak_tflops_fp8, h100.peak_tflops_fp4) == (989, 1979, None)
    assert (h100.memory_gb, h100.memory_tbps) == (80, 3.35)
    assert (h100.accelerators, h100.scale_up_domain, h100.scale_up_gbps) == (8, 8, 450)
    assert h100.power_kw == pytest.approx(10.2)
    assert h100.mfu_training == pytest.approx(0.46)  # stage MFU: 43% at 8,192 GPUs / 0.934

    h200 = HARDWARE["h200-hgx"]
    assert h200.peak_tflops_bf16 == h100.peak_tflops_bf16
    assert (h200.memory_gb, h200.memory_tbps) == (141, 4.8)

    b200 = HARDWARE["b200-hgx"]
    assert b200.peak_tflops_fp4 == 9000 and b200.scale_up_gbps == 900

    gb200 = HARDWARE["gb200-nvl72"]
    assert (gb200.accelerators, gb200.scale_up_domain) == (72, 72)
    assert (gb200.peak_tflops_bf16, gb200.peak_tflops_fp8, gb200.peak_tflops_fp4) == (
        2500,
        5000,
        10000,
    )
    assert 120 <= gb200.power_kw <= 135

    assert HARDWARE["gb300-nvl72"].peak_tflops_fp4 == 15000
    assert HARDWARE["gb300-nvl72"].memory_gb == 288

    mi300x = HARDWARE["mi300x-oam8"]
    assert (mi300x.peak_tflops_bf16, mi300x.peak_tflops_fp8, mi300x.memory_gb) == (1307, 2615, 192)
    assert HARDWARE["mi325x-oam8"].memory_gb == 256
    assert HARDWARE["mi355x-oam8"].peak_tflops_fp4 == 10000

    gaudi3 = HARDWARE["gaudi3-oam8"]
    assert gaudi3.peak_tflops_fp8 == 1835 and gaudi3.peak_tflops_fp4 is None

    cpx = HARDWARE["rubin-cpx"]
    assert cpx.prefill_only and cpx.memory_kind == "gddr"
    assert sum(hw.prefill_only for hw in HARDWARE.values()) == 1

    sram = [hw for hw in HARDWARE.values() if hw.memory_kind == "sram"]
    assert all(hw.memory_gb < 1 and hw.memory_tbps >= 50 for hw in sram)


def test_hopper_mtbf_matches_llama3_interruptions() -> None:
    # Llama 3: 419 unexpected interruptions in 54 days on 16,384 H100s.
    llama3_mtbf_hours = 16_384 * 54 * 24 / 419
    assert llama3_mtbf_hours == pytest.approx(50_677, abs=1)
    for hw in HARDWARE.values():
        if hw.family == "hopper":
            assert hw.mtbf_hours_per_accelerator == pytest.approx(llama3_mtbf_hours, rel=0.01)


# --- models --------------------------------------------------------------------------


def test_model_coverage() -> None:
    assert set(MODELS) >= REQUIRED_MODELS, REQUIRED_MODELS - set(MODELS)
    assert len(MODELS) >= 11


@pytest.mark.parametrize("model_id", MODEL_IDS)
def test_model_shapes(model_id: str) -> None:
    m = MODELS[model_id]
    if m.is_moe:
        assert m.active_params_b < m.total_params_b
    else:
        assert m.active_params_b == m.total_params_b
    assert m.attention_heads % m.kv_heads == 0
    # Query width vs residual width: 1 for Llama, 2.29 for DeepSeek-V3 MLA, 1.42 for
    # gpt-oss; 9.1 for DeepSeek-V4, whose 128 query heads of 512 attend to one shared
    # compressed key/value head.
    widest = 10.0 if m.kv_shared_key_value else 2.5
    assert 0.5 <= m.head_dim * m.attention_heads / m.hidden_size <= widest
    assert m.expert_params_b >= 0
    assert m.shared_params_b >= 0
    assert m.shared_params_b + (m.experts or 0) * m.expert_params_b == pytest.approx(
        m.total_params_b
    )
    if m.is_moe:
        active = m.shared_params_b + (m.experts_per_token or 0) * m.expert_params_b
        assert active == pytest.approx(m.active_params_b)
    if m.uses_mla:
        assert m.kv_heads == m.attention_heads
    assert 1_024 <= m.max_context_tokens <= 10_000_000
    if m.training_tokens is not None:
        assert 1e11 <= m.training_tokens <= 1e14


@pytest.mark.parametrize("model_id", [i for i in MODEL_IDS if i.startswith("llama-")])
def test_llama_head_dim_times_heads_is_hidden(model_id: str) -> None:
    m = MODELS[model_id]
    assert m.head_dim * m.attention_heads == m.hidden_size


def test_moe_expert_split_by_hand() -> None:
    # DeepSeek-V3: e = (671 - 37) / (256 - 8) = 2.5565 B per routed expert;
    # shared = 671 - 256 e = 16.548 B (attention, embeddings, dense layers, shared experts).
    v3 = MODELS["deepseek-v3"]
    assert v3.expert_params_b == pytest.approx(2.5565, abs=1e-3)
    assert v3.shared_params_b == pytest.approx(16.548, abs=1e-2)
    # Mixtral 8x7B: e = (46.7 - 12.9) / 6 = 5.633; shared = 46.7 - 8 e = 1.633.
    mixtral = MODELS["mixtral-8x7b"]
    assert mixtral.expert_params_b == pytest.approx(5.6333, abs=1e-3)
    assert mixtral.shared_params_b == pytest.approx(1.6333, abs=1e-3)
    # Dense: everything is shared.
    dense = MODELS["llama-3.1-70b"]
    assert dense.expert_params_b == 0.0
    assert dense.shared_params_b == dense.total_params_b


def test_model_reference_figures() -> None:
    hours = {
        "llama-3.1-8b": 1.46e6,
        "llama-3.1-70b": 7.0e6,
        "llama-3.1-405b": 30.84e6,
    }
    for model_id, expected in hours.items():
        assert MODELS[model_id].training_accelerator_hours == expected, model_id
    assert MODELS["llama-3.1-405b"].training_tokens == 15.6e12
    assert MODELS["llama-3.1-405b"].layers == 126

    v3 = MODELS["deepseek-v3"]
    assert (v3.total_params_b, v3.active_params_b, v3.layers) == (671, 37, 61)
    assert (v3.experts, v3.experts_per_token) == (256, 8)
    assert (v3.training_tokens, v3.training_accelerator_hours) == (14.8e12, 2.788e6)
    for model_id in ("deepseek-v3", "deepseek-r1", "kimi-k2"):
        m = MODELS[model_id]
        assert (m.kv_lora_rank, m.qk_rope_head_dim) == (512, 64), model_id

    architecture = [
        "total_params_b",
        "active_params_b",
        "layers",
        "hidden_size",
        "attention_heads",
        "kv_heads",
        "head_dim",
        "kv_lora_rank",
        "qk_rope_head_dim",
        "experts",
        "experts_per_token",
    ]
    r1 = MODELS["deepseek-r1"]
    assert all(getattr(r1, f) == getattr(v3, f) for f in architecture)

    oss = MODELS["gpt-oss-120b"]
    assert (oss.sliding_window_layers, oss.sliding_window_tokens) == (18, 128)
    assert (oss.experts, oss.experts_per_token, oss.head_dim) == (128, 4, 64)

    qwen = MODELS["qwen3-235b-a22b"]
    assert (qwen.layers, qwen.kv_heads, qwen.experts, qwen.experts_per_token) == (94, 4, 128, 8)

    gpt3 = MODELS["gpt-3-175b"]
    assert (gpt3.kv_heads, gpt3.max_context_tokens, gpt3.training_tokens) == (96, 2048, 300e9)

    # 6·P·T for Llama 3.1 405B is the paper's 3.8e25 FLOPs.
    flops = 6 * MODELS["llama-3.1-405b"].active_params_b * 1e9 * 15.6e12
    assert math.isclose(flops, 3.8e25, rel_tol=0.02)


def test_every_model_names_its_developer() -> None:
    # `planner models list --vendor` filters on it.
    models = model_catalog()
    assert all(m.developer for m in models.values())
    assert models["llama-3.1-405b"].developer == "Meta"
    assert models["deepseek-r1"].developer == "DeepSeek"
