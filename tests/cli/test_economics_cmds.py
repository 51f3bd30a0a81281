"""``planner crossover`` and ``planner price`` through click's test runner."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import click
import pytest
from click.testing import CliRunner

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.cli import economics_cmds
from planner.cli.common import run_guarded

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
def cli(monkeypatch: pytest.MonkeyPatch) -> click.Group:
    """A group with only these commands, reading a two-row test catalog."""
    monkeypatch.setattr(economics_cmds, "model_catalog", lambda: {LLAMA_405B.id: LLAMA_405B})
    monkeypatch.setattr(economics_cmds, "hardware_catalog", lambda: {H100.id: H100})

    @click.group()
    def group() -> None:
        """Test group."""

    economics_cmds.register(group)
    return group


def invoke(cli: click.Group, args: list[str]) -> Any:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def guarded(cli: click.Group, args: list[str]) -> tuple[int, str, str]:
    """Run as ``planner`` does (library errors → message + exit code); capture both streams."""
    with CliRunner().isolation() as (out, err, _):
        code = run_guarded(cli, args)
    return code, out.getvalue().decode(), err.getvalue().decode()


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


def test_crossover_json(cli: click.Group) -> None:
    # 30.84M H100-hours at 30 % of 989 TFLOPS vs 1e9 × 1,500 tokens × 810 GFLOP/day: ~27 days.
    document = json.loads(invoke(cli, [*CROSSOVER, "--format", "json"]).stdout)
    assert document["training_basis"] == "accelerator-hours"
    assert document["training_flops"] == pytest.approx(30.84e6 * 3600 * 989e12 * 0.3)
    assert document["inference_flops_per_day"] == pytest.approx(1e9 * 1500 * 810e9)
    assert 20 <= document["days"] <= 40
    assert document["years"] == pytest.approx(document["days"] / 365.25)


def test_crossover_reasoning_and_formats(cli: click.Group) -> None:
    base = json.loads(invoke(cli, [*CROSSOVER, "--format", "json"]).stdout)
    longer = json.loads(
        invoke(cli, [*CROSSOVER, "--reasoning-tokens", "8000", "--format", "json"]).stdout
    )
    assert base["days"] / longer["days"] == pytest.approx(9500 / 1500)
    csv = invoke(cli, [*CROSSOVER, "--format", "csv"]).stdout.splitlines()
    assert csv[0].split(",")[:3] == ["model", "training_basis", "training_flops"]
    table = invoke(cli, CROSSOVER).stdout
    assert "days" in table and "years" in table


def test_crossover_from_catalog_tokens(cli: click.Group) -> None:
    args = ["crossover", "--model", "llama-3.1-405b", "--tokens-per-question", "1500"]
    document = json.loads(
        invoke(cli, [*args, "--questions-per-day", "1e9", "--format", "json"]).stdout
    )
    assert document["training_basis"] == "tokens"
    assert document["training_flops"] == pytest.approx(6 * 405e9 * 15.6e12)


def test_crossover_unknown_ids(cli: click.Group) -> None:
    args = ["--tokens-per-question", "1500", "--questions-per-day", "1000"]
    code, out, err = guarded(cli, ["crossover", "--model", "llama-3.1-405", *args])
    assert code == 2
    assert out == ""
    assert "unknown model id 'llama-3.1-405'" in err
    assert "did you mean 'llama-3.1-405b'" in err
    code, _, err = guarded(
        cli, ["crossover", "--model", "llama-3.1-405b", *args, "--hardware", "h100-hgz"]
    )
    assert code == 2
    assert "did you mean 'h100-hgx'" in err


def test_crossover_hours_need_hardware(cli: click.Group) -> None:
    args = ["--tokens-per-question", "1", "--questions-per-day", "1"]
    code, _, err = guarded(
        cli, ["crossover", "--model", "llama-3.1-405b", *args, "--training-gpu-hours", "1e6"]
    )
    assert code == 2
    assert "hardware" in err


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


def test_price_json(cli: click.Group) -> None:
    # Anthropic Claude Opus 4.5 list prices ($5 / $25 / $0.50 cached per Mtok), 300 input
    # tokens per output token, 90 % cache hits: ≈ $1/Mtok blended (realised ≈ $0.99).
    document = json.loads(invoke(cli, [*PRICE, "--format", "json"]).stdout)
    assert document["usd_per_mtok"] == pytest.approx(1.0, rel=0.05)
    assert document["usd_per_output_mtok"] == pytest.approx(310.0)
    assert "daily_bill_usd" not in document


def test_price_with_bill(cli: click.Group) -> None:
    args = [*PRICE, "--output-tokens-per-day", "1e6", "--format", "json"]
    document = json.loads(invoke(cli, args).stdout)
    assert document["daily_bill_usd"] == pytest.approx(310.0)
    assert document["yearly_bill_usd"] == pytest.approx(310.0 * 365)
    table = invoke(cli, [*PRICE, "--output-tokens-per-day", "1e6"]).stdout
    assert "yearly_bill_usd" in table


def test_price_rejects_bad_rate(cli: click.Group) -> None:
    bad = [*PRICE[:-1], "1.5"]
    result = CliRunner().invoke(cli, bad)
    assert result.exit_code == 2
    assert "cache-hit-rate" in result.output


@pytest.mark.parametrize("command", ["crossover", "price"])
def test_help_has_example(cli: click.Group, command: str) -> None:
    result = invoke(cli, [command, "--help"])
    assert "Example:" in result.output
    assert f"planner {command} --" in result.output


def test_registered_on_main_cli() -> None:
    from planner.cli import cli as main_cli

    if "price" not in main_cli.commands:
        pytest.skip("economics_cmds is not yet registered in planner/cli/__init__.py")
    result = CliRunner().invoke(main_cli, [*PRICE, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["usd_per_output_mtok"] == pytest.approx(310.0)
