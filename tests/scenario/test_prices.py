"""Prices in a scenario file: one form per workload, bad values exit 2 naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

PRICED = Path(__file__).resolve().parents[1] / "scenarios" / "one_purchase_priced.yaml"
SPLIT_INPUT = "    price_input_usd_per_mtok: 0.04\n"
SPLIT_OUTPUT = "    price_output_usd_per_mtok: 0.08\n"


@pytest.mark.parametrize(
    ("old", "new", "path", "says"),
    [
        (
            SPLIT_INPUT,
            "    price_usd_per_mtok: 0.3\n" + SPLIT_INPUT,
            "inference[0]",
            "one price form",
        ),
        (SPLIT_OUTPUT, "", "inference[0]", "split prices with both"),
        (
            SPLIT_OUTPUT,
            "    price_output_usd_per_mtok: -1\n",
            "inference[0].price_output_usd_per_mtok",
            "greater than or equal to 0",
        ),
        (
            SPLIT_OUTPUT,
            SPLIT_OUTPUT + "    objective_value: 1\n",
            "inference[0].objective_value",
            "unknown",
        ),
    ],
    ids=["blended and split", "input without output", "negative price", "unknown price key"],
)
def test_bad_prices_exit_2_with_the_field_path(
    old: str, new: str, path: str, says: str, tmp_path: Path, run_cli
) -> None:
    text = PRICED.read_text(encoding="utf-8")
    assert text.count(old) == 1
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new), encoding="utf-8")
    result = run_cli("validate", bad)
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    assert f": {path}: " in result.err, result.err
    assert says in result.err, result.err


def test_max_profit_and_training_values_are_accepted(tmp_path: Path, run_cli) -> None:
    text = PRICED.read_text(encoding="utf-8") + "objective: max_profit\n"
    text += "training:\n  - {name: ft, model: llama-3.1-8b, tokens: 1.0e9, window: [2026, 2026],"
    text += " value_usd: 5.0e5, must_finish: true}\n"
    good = tmp_path / "good.yaml"
    good.write_text(text, encoding="utf-8")
    result = run_cli("validate", good)
    assert result.code == 0, result.err
