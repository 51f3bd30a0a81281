"""Bad scenario files: `planner validate` exits 2 with the field path and line, no traceback.

Each case builds a bad file (mostly by editing scenarios/baseline.yaml as text) and runs
`planner validate FILE` in-process through the same guard the console script uses. The
expected line is found from the text the case wrote, so editing the baseline does not
silently invalidate the assertions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

Make = Callable[[Path, str], Path]

FIT_NOWHERE = """\
name: kimi-on-hopper
horizon: {start: 2026, years: 3}
sites:
  - {name: texas, power_cap_mw: 50}
hardware:
  - id: h100-hgx
models:
  - id: kimi-k2
inference:
  - name: chat
    model: kimi-k2
    precision: bf16
    tokens_per_day: 1.0e10
"""


def edit(text: str, old: str, new: str) -> str:
    """``text`` with the single occurrence of ``old`` replaced (fails if not exactly one)."""
    assert text.count(old) == 1, f"baseline.yaml no longer contains {old!r} exactly once"
    return text.replace(old, new)


def write(tmp_path: Path, text: str | bytes, name: str = "bad.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def baseline_with(*edits: tuple[str, str]) -> Make:
    """A case builder: the baseline with each (old, new) replacement applied."""

    def make(tmp_path: Path, base: str) -> Path:
        for old, new in edits:
            base = edit(base, old, new)
        return write(tmp_path, base)

    return make


def raw(text: str | bytes) -> Make:
    return lambda tmp_path, base: write(tmp_path, text)


def variant(overrides: str, name: str = "variant") -> Make:
    """A file that extends a copy of the baseline with the given ``overrides:`` block."""

    def make(tmp_path: Path, base: str) -> Path:
        write(tmp_path, base, "baseline.yaml")
        return write(tmp_path, f"name: {name}\nextends: baseline.yaml\noverrides:\n{overrides}")

    return make


def _missing(tmp_path: Path, base: str) -> Path:
    return tmp_path / "no-such-scenario.yaml"


def _directory(tmp_path: Path, base: str) -> Path:
    (tmp_path / "a-directory.yaml").mkdir()
    return tmp_path / "a-directory.yaml"


def _huge(tmp_path: Path, base: str) -> Path:
    return write(tmp_path, base + "#" * 5_000_001 + "\n")


def _billion_laughs(tmp_path: Path, base: str) -> Path:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return write(tmp_path, "\n".join(lines) + "\n")


def _extends_cycle(tmp_path: Path, base: str) -> Path:
    write(tmp_path, "name: b\nextends: a.yaml\n", "b.yaml")
    return write(tmp_path, "name: a\nextends: b.yaml\n", "a.yaml")


def _extends_missing(tmp_path: Path, base: str) -> Path:
    return write(tmp_path, "name: orphan\nextends: no-such-base.yaml\n")


@dataclass(frozen=True)
class Bad:
    id: str
    make: Make
    path: str
    """The field path the message must name ("(document)" for the whole file)."""
    says: tuple[str, ...] = ()
    """Text the message must also contain (what was found, expected, did-you-mean)."""
    line_of: str | None = None
    """Text in the written file whose line the message must name; None: no line."""


CASES = [
    # --- not a scenario document at all ---------------------------------------------------
    Bad("empty file", raw(""), "(document)", ("empty",)),
    Bad("only comments", raw("# nothing here\n# at all\n"), "(document)", ("empty",)),
    Bad(
        "tab indentation",
        raw("name: x\nhorizon:\n\tstart: 2026\n"),
        "(document)",
        ("not valid YAML",),
        line_of="\tstart",
    ),
    Bad(
        "unbalanced brackets",
        raw("name: x\nsites: [texas, oregon\nhorizon: {start: 2026}\n"),
        "(document)",
        ("not valid YAML",),
        line_of="horizon",
    ),
    Bad("top-level list", raw("- name: x\n- name: y\n"), "(document)", ("mapping", "list")),
    Bad("plain string", raw("just some words\n"), "(document)", ("mapping", "str")),
    Bad("binary bytes", raw(bytes(range(256)) * 8), "(document)", ("binary",)),
    Bad("non-UTF-8 text", raw("name: caf\xe9\n".encode("latin-1")), "(document)", ("UTF-8",)),
    Bad("billion laughs", _billion_laughs, "(document)", ("expands to more than",)),
    Bad(
        "5000-deep list nesting",
        raw("name: " + "[" * 5000 + "]" * 5000 + "\n"),
        "(document)",
        ("too deep",),
    ),
    Bad(
        "5000-deep mapping nesting",
        raw("name: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n"),
        "(document)",
        ("too deep",),
    ),
    Bad(
        "50-deep nesting",
        raw("name: " + "[" * 50 + "]" * 50 + "\n"),
        "(document)",
        ("nested more than",),
    ),
    Bad("missing file", _missing, "(document)", ("not found",)),
    Bad("a directory", _directory, "(document)", ("directory",)),
    Bad("file over 5 MB", _huge, "(document)", ("bytes", "at most 5,000,000")),
    Bad(
        "duplicate YAML key",
        baseline_with(("serving: colocated", "serving: colocated\nserving: disaggregated")),
        "serving",
        ("given twice",),
        line_of="serving: disaggregated",
    ),
    # --- schema: keys and types -----------------------------------------------------------
    Bad(
        "unknown top-level key",
        baseline_with(("serving: colocated", "servng: colocated")),
        "servng",
        ("unknown key", "did you mean 'serving'?"),
        line_of="servng:",
    ),
    Bad(
        "misspelt nested key",
        baseline_with(("cache_hit_rate: 0.8", "cache_hit_rat: 0.8")),
        "inference[1].cache_hit_rat",
        ("unknown key", "did you mean 'cache_hit_rate'?"),
        line_of="cache_hit_rat:",
    ),
    Bad(
        "misspelt key in a hardware entry",
        baseline_with(("max_units_per_year: 300", "max_unit_per_year: 300")),
        "hardware[4].max_unit_per_year",
        ("did you mean 'max_units_per_year'?",),
        line_of="max_unit_per_year",
    ),
    Bad(
        "required section missing",
        baseline_with(("horizon: {start: 2026, years: 6}\n", "")),
        "horizon",
        ("required",),
    ),
    Bad(
        "cache_hit_rate 1.5",
        baseline_with(("cache_hit_rate: 0.8", "cache_hit_rate: 1.5")),
        "inference[1].cache_hit_rate",
        ("found:    1.5", "less than or equal to 1"),
        line_of="cache_hit_rate: 1.5",
    ),
    Bad(
        "negative tokens",
        baseline_with(("tokens: 1.5e13", "tokens: -1.5e13")),
        "training[0].tokens",
        ("greater than 0",),
        line_of="tokens: -1.5e13",
    ),
    Bad(
        "zero power cap",
        baseline_with(("{2026: 60, 2027: 120, 2028: 200, 2030: 400}", "0")),
        "sites[0].power_cap_mw",
        ("found:    0", "greater than 0"),
        line_of="power_cap_mw",
    ),
    Bad(
        "zero power cap in one year",
        baseline_with(("{2026: 60, 2027: 120,", "{2026: 60, 2027: 0,")),
        "sites[0].power_cap_mw.2027",
        ("greater than 0",),
        line_of="power_cap_mw",
    ),
    Bad(
        "infinite demand",
        baseline_with(("{2026: 1.0e11, 2031: 2.0e12}", ".inf")),
        "inference[1].tokens_per_day",
        ("finite",),
        line_of=".inf",
    ),
    Bad(
        "quoted word where a number belongs",
        baseline_with(("tokens: 1.5e13", 'tokens: "lots"')),
        "training[0].tokens",
        ("'lots'", "a number", "without quotes"),
        line_of='"lots"',
    ),
    Bad(
        "boolean where a number belongs",
        baseline_with(("wacc: 0.10", "wacc: yes")),
        "finance.wacc",
        ("found:    True", "a number"),
        line_of="wacc: yes",
    ),
    Bad(
        "text year key in a {year: value} mapping",
        baseline_with(("{2026: 2.0e9, 2027", "{next: 2.0e9, 2027")),
        "budget.capex_usd.next",
        ("a year",),
        line_of="capex_usd",
    ),
    Bad(
        "unknown precision",
        baseline_with(("precision: bf16", "precision: fp16")),
        "training[0].precision",
        ("'fp16'", "bf16"),
        line_of="fp16",
    ),
    Bad(
        "unknown serving mode",
        baseline_with(("serving: colocated", "serving: disagregated")),
        "serving",
        ("'disagregated'", "colocated"),
        line_of="serving:",
    ),
    Bad(
        "window of one year",
        baseline_with(("window: [2026, 2026]", "window: [2026]")),
        "training[0].window",
        ("at least 2",),
        line_of="window: [2026]",
    ),
    Bad(
        "reversed window",
        baseline_with(("window: [2027, 2028]", "window: [2028, 2027]")),
        "training[1].window",
        ("starts after it ends", "[first year, last year]"),
        line_of="window: [2028, 2027]",
    ),
    # --- semantic checks: references, years, fit ------------------------------------------
    Bad(
        "misspelt model reference",
        baseline_with(("    model: llama-3.1-70b\n", "    model: llama-3.1-7b\n")),
        "inference[0].model",
        ("'llama-3.1-7b'", "did you mean 'llama-3.1-70b'?"),
        line_of="model: llama-3.1-7b",
    ),
    Bad(
        "unknown site in existing_fleet",
        baseline_with(("site: texas", "site: texs")),
        "existing_fleet[0].site",
        ("'texs'", "did you mean 'texas'?"),
        line_of="site: texs",
    ),
    Bad(
        "unknown hardware in rental",
        baseline_with(("{hardware: h200-hgx, usd", "{hardware: h300-hgx, usd")),
        "rental[0].hardware",
        ("'h300-hgx'", "did you mean 'h200-hgx'?"),
        line_of="h300-hgx",
    ),
    Bad(
        "hardware id not in the catalog",
        baseline_with(("- id: b200-hgx", "- id: b200-hgxx")),
        "hardware[2].id",
        ("not in the catalog", "did you mean 'b200-hgx'?"),
        line_of="b200-hgxx",
    ),
    Bad(
        "model id not in the catalog",
        baseline_with(("- id: llama-3.1-70b", "- id: llama-3.1-70bb")),
        "models[1].id",
        ("not in the catalog", "did you mean 'llama-3.1-70b'?"),
        line_of="llama-3.1-70bb",
    ),
    Bad(
        "duplicate workload names",
        baseline_with(("  - name: agentic\n", "  - name: chat\n")),
        "inference[1]",
        ("duplicate name 'chat'",),
        line_of="  - name: chat\n    model: deepseek-v3",
    ),
    Bad(
        "window outside the horizon",
        baseline_with(("window: [2029, 2029]", "window: [2029, 2033]")),
        "training[2].window[1]",
        ("found:    2033", "2026..2031"),
        line_of="window: [2029, 2033]",
    ),
    Bad(
        "year key outside the horizon",
        baseline_with(("{2026: 3.0e11, 2031: 1.5e13}", "{2026: 3.0e11, 2035: 1.5e13}")),
        "inference[0].tokens_per_day.2035",
        ("found:    2035", "2026..2031"),
        line_of="2035: 1.5e13",
    ),
    Bad(
        "existing fleet installed after the horizon starts",
        baseline_with(("installed: 2024", "installed: 2028")),
        "existing_fleet[0].installed",
        ("2028",),
        line_of="installed: 2028",
    ),
    Bad(
        "vendor_share_max names an unknown vendor",
        baseline_with(("serving: colocated", "vendor_share_max: {NVIDA: 0.7}\nserving: colocated")),
        "vendor_share_max.NVIDA",
        ("did you mean 'NVIDIA'?",),
        line_of="vendor_share_max",
    ),
    Bad(
        "model that fits on no listed hardware",
        raw(FIT_NOWHERE),
        "inference[0].model",
        ("fits on no listed hardware", "bf16", "h100-hgx"),
        line_of="model: kimi-k2",
    ),
    # --- extends and overrides ------------------------------------------------------------
    Bad(
        "extends cycle",
        _extends_cycle,
        "extends",
        ("extends itself",),
        line_of="extends:",
    ),
    Bad(
        "extends a missing file",
        _extends_missing,
        "extends",
        ("does not exist", "no-such-base.yaml"),
        line_of="extends:",
    ),
    Bad(
        "extends is not a path",
        raw("name: x\nextends: 5\n"),
        "extends",
        ("file path",),
        line_of="extends:",
    ),
    Bad(
        "override path names no list item",
        variant("  sites[texs].power_cap_mw: 100\n"),
        "overrides.sites[texs].power_cap_mw",
        ("no item named 'texs'", "did you mean 'texas'?"),
        line_of="sites[texs]",
    ),
    Bad(
        "override path names no field",
        variant("  finance.wac.2028: 0.08\n"),
        "overrides.finance.wac.2028",
        ("has no field 'wac'", "did you mean 'wacc'?"),
        line_of="finance.wac",
    ),
    Bad(
        "override creates an unknown key",
        variant("  finance.wac: 0.08\n"),
        "finance.wac",
        ("unknown key", "did you mean 'wacc'?"),
        line_of="finance.wac",
    ),
    Bad(
        "override with a bad value",
        variant("  inference[chat].cache_hit_rate: 2\n"),
        "inference[0].cache_hit_rate",
        ("less than or equal to 1",),
        line_of="cache_hit_rate: 2",
    ),
    Bad(
        "overrides is not a mapping",
        variant("  - finance.wacc\n"),
        "overrides",
        ("mapping",),
        line_of="overrides:",
    ),
]


def test_enough_distinct_cases() -> None:
    assert len(CASES) >= 25
    assert len({c.id for c in CASES}) == len(CASES)


def line_number(file: Path, text: str) -> int:
    """1-based line of the first occurrence of ``text`` in ``file``."""
    content = file.read_text(encoding="utf-8")
    assert text in content, f"{text!r} not in the written file"
    return content[: content.index(text)].count("\n") + 1


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_reported(case: Bad, tmp_path: Path, baseline_text: str, run_cli) -> None:
    file = case.make(tmp_path, baseline_text)
    result = run_cli("validate", file)

    assert result.code == 2, result.err
    assert "Traceback" not in result.err + result.out
    assert "internal error" not in result.err
    assert result.out == "", "an invalid file prints nothing on stdout"
    assert result.err.startswith("invalid ")
    if case.line_of is None:
        assert f": {case.path}: " in result.err, result.err
    else:
        line = line_number(file, case.line_of)
        assert f", line {line}: {case.path}: " in result.err, result.err
    for text in case.says:
        assert text in result.err, f"{text!r} missing from:\n{result.err}"


def test_file_name_is_in_the_message(tmp_path: Path, baseline_text: str, run_cli) -> None:
    file = baseline_with(("cache_hit_rate: 0.8", "cache_hit_rate: 1.5"))(tmp_path, baseline_text)
    result = run_cli("validate", file)
    assert f"{file}, line " in result.err


def test_calibration_file_must_exist(tmp_path: Path, baseline_text: str, run_cli) -> None:
    text = edit(
        baseline_text, "serving: colocated", "calibration: no-such.yaml\nserving: colocated"
    )
    result = run_cli("validate", write(tmp_path, text))
    assert result.code == 2
    assert "calibration: calibration file not found" in result.err
    assert "no-such.yaml" in result.err


def test_schema_problems_are_all_reported_at_once(
    tmp_path: Path, baseline_text: str, run_cli
) -> None:
    file = baseline_with(
        ("wacc: 0.10", "wacc: -1"),
        ("cache_hit_rate: 0.8", "cache_hit_rate: 1.5"),
        ("serving: colocated", "servng: colocated"),
        ("tokens: 1.5e13", 'tokens: "lots"'),
    )(tmp_path, baseline_text)
    result = run_cli("validate", file)
    assert result.code == 2
    assert "4 problem(s)" in result.err
    for path, text in [
        ("finance.wacc", "wacc: -1"),
        ("inference[1].cache_hit_rate", "cache_hit_rate: 1.5"),
        ("servng", "servng:"),
        ("training[0].tokens", '"lots"'),
    ]:
        assert f", line {line_number(file, text)}: {path}: " in result.err


def test_reference_problems_are_all_reported_at_once(
    tmp_path: Path, baseline_text: str, run_cli
) -> None:
    file = baseline_with(
        ("site: texas", "site: texs"),
        ("{hardware: h200-hgx, usd", "{hardware: h300-hgx, usd"),
        ("    model: llama-3.1-70b\n", "    model: llama-3.1-7b\n"),
        ("window: [2029, 2029]", "window: [2029, 2040]"),
    )(tmp_path, baseline_text)
    result = run_cli("validate", file)
    assert result.code == 2
    assert "4 problem(s)" in result.err
    for path in (
        "existing_fleet[0].site",
        "rental[0].hardware",
        "inference[0].model",
        "training[2].window[1]",
    ):
        assert f": {path}: " in result.err


def test_several_files_good_and_bad(tmp_path: Path, baseline_text: str, run_cli) -> None:
    good = write(tmp_path, baseline_text, "good.yaml")
    bad = baseline_with(("cache_hit_rate: 0.8", "cache_hit_rate: 1.5"))(tmp_path, baseline_text)
    result = run_cli("validate", good, bad)
    assert result.code == 2
    assert f"ok {good}" in result.out
    assert str(bad) in result.err and str(bad) not in result.out


def test_bad_file_as_json(tmp_path: Path, baseline_text: str, run_cli) -> None:
    file = baseline_with(("cache_hit_rate: 0.8", "cache_hit_rate: 1.5"))(tmp_path, baseline_text)
    result = run_cli("validate", "--format", "json", file)
    assert result.code == 2
    assert result.err == ""
    doc = json.loads(result.out)
    (entry,) = doc["files"]
    assert entry["valid"] is False
    (problem,) = entry["errors"]
    assert problem["path"] == "inference[1].cache_hit_rate"
    assert problem["line"] == line_number(file, "cache_hit_rate: 1.5")
    assert problem["found"] == "1.5"
    assert set(problem) == {"file", "line", "path", "message", "found", "expected", "hint", "where"}


def test_markup_like_text_is_printed_verbatim(tmp_path: Path, run_cli) -> None:
    """Brackets in messages ([texs], [first year, last year]) are not eaten as markup."""
    result = run_cli("validate", write(tmp_path, "name: x\nextends: '[/bold]'\n"))
    assert result.code == 2
    assert "[/bold]" in result.err
