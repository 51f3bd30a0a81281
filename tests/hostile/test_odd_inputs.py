"""Inputs a careful attacker would try end in a clear error or are skipped, never in an
internal error (issue 29, item 9): an ``extends:`` with a NUL byte or an over-long name,
one key spelled two ways (``0x7EB`` and ``2027``), and result rows no planner writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.analysis.results_file import HEADER_LINE, read_results
from planner.errors import InputError
from planner.scenario import load_scenario

BASELINE = Path(__file__).resolve().parents[2] / "scenarios" / "baseline.yaml"


@pytest.mark.parametrize(
    ("base", "why"),
    [
        ('"base\\0.yaml"', "NUL byte"),
        ("a" * 305 + ".yaml", "longer than 255 bytes"),
        ('""', "NUL byte or be empty"),
    ],
)
def test_an_unusable_extends_is_a_clear_error(tmp_path: Path, base: str, why: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"extends: {base}\nname: x\n")
    with pytest.raises(InputError, match=why) as refused:
        load_scenario(path)
    assert refused.value.problems[0].path == "extends"


def test_one_key_spelled_two_ways_is_refused(tmp_path: Path) -> None:
    """0x7EB is 2027 once YAML parses it: one of the two values would be dropped."""
    path = tmp_path / "s.yaml"
    path.write_text(
        f"extends: {BASELINE}\n"
        "inference:\n"
        "  - name: chat\n"
        "    model: llama-3.1-70b\n"
        "    tokens_per_day: {2026: 3.0e11, 0x7EB: 5.0e11, 2027: 6.0e11}\n"
    )
    with pytest.raises(InputError, match=r"given twice \(also on line 5, spelled '0x7EB'\)"):
        load_scenario(path)


def test_rows_no_planner_writes_are_skipped(tmp_path: Path) -> None:
    good = {"task_id": 0, "task_key": "k", "status": "optimal"}
    lines = [
        HEADER_LINE.strip(),
        "[" * 5000 + "]" * 5000,  # deeper than the JSON decoder recurses
        json.dumps({"task_id": [1], "task_key": "k"}),  # an unhashable id
        json.dumps({"task_id": True, "task_key": "k"}),
        json.dumps({"task_id": 2}),  # no key
        json.dumps(good),
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert read_results(path) == [good]


@pytest.mark.parametrize("field", ["description", "name"])
def test_text_longer_than_any_field_takes_is_refused(tmp_path: Path, field: str) -> None:
    """A 10 MB description took 29 s to lay out in the Summary; text over 20,000
    characters is refused when the file is read, naming the field."""
    path = tmp_path / "s.yaml"
    path.write_text(f"extends: {BASELINE}\n{field}: {'a' * 30_000}\n")
    with pytest.raises(InputError, match="longer than any field takes") as refused:
        load_scenario(path)
    assert refused.value.problems[0].path == field


def test_a_long_description_within_the_bound_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    text = ("word " * 4_000).strip()  # 19,999 characters
    path.write_text(f"extends: {BASELINE}\ndescription: {text}\n")
    assert load_scenario(path).description == text


@pytest.mark.parametrize("part", ["xl/styles.xml", "xl/sharedStrings.xml"])
def test_a_workbook_part_read_whole_is_bounded_before_parsing(tmp_path: Path, part: str) -> None:
    """Styles and shared strings are parsed whole even when streaming (a 2.5 MB
    workbook with them at the general limit took 69 s and 1.6 GB): over their own
    limits the workbook is refused before openpyxl sees it, naming the part."""
    import zipfile

    from planner.scenario.workbook_open import PART_LIMITS, check_zip

    path = tmp_path / "book.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", "<Types/>")
        filler = "<x>" + "ab" * (PART_LIMITS[part] // 2) + "</x>"
        book.writestr(part, filler)
    with pytest.raises(InputError, match=part.replace(".", r"\.") + " unpacks to"):
        check_zip(path.read_bytes(), str(path))
