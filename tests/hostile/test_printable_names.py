"""Names from a file someone sent cannot forge output lines or hide as other names
(issue 29, item 9): control, format (zero-width, bidi) and line-separator characters
in a name are refused at validation, with the field, the character and exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from planner.text import unprintable

BASELINE = Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("chat\nok other.yaml: everything checked", "U+000A (Cc) at position 4"),
        ("chat\u200b", "U+200B (Cf) at position 4"),
        ("\u202eemag", "U+202E (Cf) at position 0"),
        ("a\u2028b", "U+2028 (Zl) at position 1"),
        ("tab\there", "U+0009 (Cc) at position 3"),
        ("café – 東京", None),
    ],
)
def test_unprintable_names_the_first_hidden_character(text: str, found: str | None) -> None:
    assert unprintable(text) == found


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", '"x\\nok other.yaml: everything checked"'),
        ("sites", '[{name: "texas\\u200b", power_cap_mw: 60}]'),
        ("vendor_share_max", '{"NVIDIA\\u202e": 0.5}'),
    ],
)
def test_validate_refuses_a_hidden_character(tmp_path: Path, field: str, value: str) -> None:
    scenario = tmp_path / "sent.yaml"
    scenario.write_text(f"extends: {BASELINE}\n{field}: {value}\n")
    done = subprocess.run(
        [sys.executable, "-m", "planner", "validate", str(scenario)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "control or invisible characters" in done.stderr
    assert "everything checked" not in done.stdout
    assert "\u200b" not in done.stderr and "\u202e" not in done.stderr
