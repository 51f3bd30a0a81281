"""Scenario YAML read by libyaml gives the same values, lines and errors as the pure parser."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import InputError
from planner.scenario import yamlio

pytestmark = [
    pytest.mark.filterwarnings("error"),
    pytest.mark.skipif(yamlio._FastLoader is None, reason="PyYAML without libyaml"),
]
REPO = Path(__file__).resolve().parents[2]


def _read(text: str) -> object:
    try:
        return yamlio.parse_yaml(text, "f.yaml")
    except InputError as exc:
        return str(exc)


TEXTS = [
    *(p.read_text(encoding="utf-8") for p in sorted((REPO / "scenarios").glob("*.yaml"))),
    "a: 1e9\nb: 5E+11\nc: 2024-01-01\nd: yes\ne: ~\nf: .inf\n",  # YAML 1.2 floats too
    "k: &a [1, 2]\nj: *a\n<<: {m: 1}\n",
    "a: 1\na: 2\n",  # a duplicate key
    "a: [1, 2\n",  # not valid YAML
    "---\na: 1\n---\nb: 2\n",  # two documents
    "x: \x07\n",  # a control character
    "[" * 60 + "]" * 60,  # deeper than MAX_DEPTH: never composed by libyaml
]


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_same_result_with_and_without_libyaml(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _read(text)
    monkeypatch.setattr(yamlio, "_FastLoader", None)
    assert fast == _read(text)


def test_libyaml_reads_the_baseline_and_refuses_deep_nesting() -> None:
    baseline = (REPO / "scenarios" / "baseline.yaml").read_text(encoding="utf-8")
    assert yamlio._shallow(baseline)
    loader, _ = yamlio._compose(baseline)
    assert isinstance(loader, yamlio._FastLoader)
    loader.dispose()
    assert not yamlio._shallow("[" * (yamlio.MAX_DEPTH + 1) + "]" * (yamlio.MAX_DEPTH + 1))
    assert yamlio._shallow("[" * yamlio.MAX_DEPTH + "]" * yamlio.MAX_DEPTH)
    assert not yamlio._shallow("a: [1,\n")
    data, lines = yamlio.parse_yaml("a:\n  b: [1, 2]\n", "f.yaml")
    assert data == {"a": {"b": [1, 2]}}
    assert lines == {(): 1, ("a",): 1, ("a", "b"): 2, ("a", "b", 0): 2, ("a", "b", 1): 2}
