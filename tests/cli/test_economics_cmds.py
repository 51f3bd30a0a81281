"""``planner crossover`` and ``planner price``, run in-process as the console script runs them."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import pytest

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.cli import economics_cmds

AS_OF = dt.date(2025, 1, 1)

# NVIDIA H100 datasheet: 989 dense BF16 TFLOPS. Meta Llama 3.1 model card: 405B trained on
# 15.6T tokens with 30.84M H100 GPU-hours.
H100 = HardwareSpec(
    id="h100-hgx",
    name="HGX H100",
    vendor="NVIDIA",
    family="hopper",
    form="server",
    accelerators=8,
    peak_tflops_bf16=989.0,
    peak_tflops_fp8=1979.0,
    memory_gb=80.0,
    memory_tbps=3.35,
    scale_up_domain=8,
    power_kw=10.2,
    price_usd=250_000.0,
    price_year=2024,
    release_year=2023,
    mfu_training=0.40,
    mtbf_hours_per_accelerator=50_000.0,
    source="NVIDIA H100 datasheet",
    as_of=AS_OF,
)
LLAMA_405B = ModelSpec(
    id="llama-3.1-405b",
    total_params_b=405.0,
    active_params_b=405.0,
    layers=126,
    hidden_size=16_384,
    attention_heads=128,
    kv_heads=8,
    head_dim=128,
    max_context_tokens=131_072,
    training_tokens=15.6e12,
    training_accelerator_hours=30.84e6,
    source="Meta Llama 3.1 model card",
    as_of=AS_OF,
)


@pytest.fixture
def run(run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``run_cli`` with the economics commands reading the two-row catalog above."""
    monkeypatch.setattr(economics_cmds, "model_catalog", lambda: {LLAMA_405B.id: LLAMA_405B})
    monkeypatch.setattr(economics_cmds, "hardware_catalog", lambda: {H100.id: H100})
    return run_cli


def ok(run: Callable[..., Any], *args: str) -> str:
    """Standard output of a run that must exit 0."""
    result = run(*args)
    assert result.code == 0, result.err
    return result.out


CROSSOVER = [
    "crossover",
    "--model",
    "llama-3.1-405b",
    "--tokens-per-question",
    "1500",
    "--questions-per-day",
    "1e9",
    "--hardware",
    "h100-hgx",
    "--utilisation",
    "0.3",
    "--training-gpu-hours",
    "30.84e6",
]


def test_crossover_json(run) -> None:
    # 30.84M H100-hours at 30 % of 989 TFLOPS vs 1e9 × 1,500 tokens × 810 GFLOP/day: ~27 days.
    document = json.loads(ok(run, *CROSSOVER, "--format", "json"))
    training_flops = 30.84e6 * 3600 * 989e12 * 0.3
    flops_per_day = 1e9 * 1500 * 2 * 405e9
    assert document["training_basis"] == "accelerator-hours"
    assert document["training_flops"] == pytest.approx(training_flops)
    assert document["inference_flops_per_day"] == pytest.approx(flops_per_day)
    assert document["days"] == pytest.approx(training_flops / flops_per_day)  # 27.1 days
    assert document["years"] == pytest.approx(document["days"] / 365.25)


def test_crossover_reasoning_and_formats(run) -> None:
    base = json.loads(ok(run, *CROSSOVER, "--format", "json"))
    longer = json.loads(ok(run, *CROSSOVER, "--reasoning-tokens", "8000", "--format", "json"))
    assert base["days"] / longer["days"] == pytest.approx(9500 / 1500)
    csv = ok(run, *CROSSOVER, "--format", "csv").splitlines()
    assert csv[0].split(",")[:3] == ["model", "training_basis", "training_flops"]
    table = ok(run, *CROSSOVER)
    assert "days" in table and "years" in table


def test_crossover_from_catalog_tokens(run) -> None:
    args = ["crossover", "--model", "llama-3.1-405b", "--tokens-per-question", "1500"]
    document = json.loads(ok(run, *args, "--questions-per-day", "1e9", "--format", "json"))
    assert document["training_basis"] == "tokens"
    assert document["training_flops"] == pytest.approx(6 * 405e9 * 15.6e12)


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (
            ["--model", "llama-3.1-405"],
            "error: --model: unknown model id 'llama-3.1-405'\n"
            "    fix:      did you mean 'llama-3.1-405b'?\n",
        ),
        (
            ["--model", "llama-3.1-405b", "--hardware", "h100-hgz"],
            "error: --hardware: unknown hardware id 'h100-hgz'\n"
            "    fix:      did you mean 'h100-hgx'?\n",
        ),
    ],
    ids=["model", "hardware"],
)
def test_crossover_unknown_ids(run, ids: list[str], message: str) -> None:
    result = run("crossover", *ids, "--tokens-per-question", "1500", "--questions-per-day", "1000")
    assert (result.code, result.out, result.err) == (2, "", message)


def test_crossover_hours_need_hardware(run) -> None:
    args = ["--tokens-per-question", "1", "--questions-per-day", "1"]
    result = run("crossover", "--model", "llama-3.1-405b", *args, "--training-gpu-hours", "1e6")
    assert result.code == 2
    assert result.err == (
        "error: (document): training accelerator-hours need a hardware type to convert hours "
        "to FLOPs\n"
    )


PRICE = [
    "price",
    "--input-usd-per-mtok",
    "5",
    "--output-usd-per-mtok",
    "25",
    "--cached-input-usd-per-mtok",
    "0.5",
    "--input-per-output",
    "300",
    "--cache-hit-rate",
    "0.9",
]


def test_price_json(run) -> None:
    # Anthropic Claude Opus 4.5 list prices ($5 / $25 / $0.50 cached per Mtok), 300 input
    # tokens per output token, 90 % cache hits: ≈ $1/Mtok blended (realised ≈ $0.99).
    document = json.loads(ok(run, *PRICE, "--format", "json"))
    assert document["usd_per_mtok"] == pytest.approx(1.0, rel=0.05)
    assert document["usd_per_output_mtok"] == pytest.approx(310.0)
    assert "daily_bill_usd" not in document


def test_price_with_bill(run) -> None:
    document = json.loads(ok(run, *PRICE, "--output-tokens-per-day", "1e6", "--format", "json"))
    assert document["daily_bill_usd"] == pytest.approx(310.0)
    assert document["yearly_bill_usd"] == pytest.approx(310.0 * 365)
    assert "yearly_bill_usd" in ok(run, *PRICE, "--output-tokens-per-day", "1e6")


def test_price_rejects_bad_rate(run) -> None:
    result = run(*PRICE[:-1], "1.5")
    assert result.code == 2 and result.out == ""
    assert result.err.endswith(
        "Error: Invalid value for '--cache-hit-rate': 1.5 is not in the range 0<=x<=1.\n"
    )


@pytest.mark.parametrize("command", ["crossover", "price"])
def test_help_has_example(run, command: str) -> None:
    text = ok(run, command, "--help")
    assert "Example:" in text
    assert f"planner {command} --" in text


def test_price_on_the_shipped_catalog(run_cli) -> None:
    result = run_cli(*PRICE, "--format", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["usd_per_output_mtok"] == pytest.approx(310.0)
