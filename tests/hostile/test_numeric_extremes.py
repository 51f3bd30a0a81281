"""Every numeric field at its validated extremes: refused with a message, or run to a plan.

The fields are found by walking the scenario schema (:mod:`numeric_fields`), with the
bounds pydantic enforces, so a new numeric field or a changed bound is tried here
without editing this file (and a new field the walk finds but this file cannot place
fails :func:`test_every_numeric_field_is_walked`). Each field is set, on a one-year
one-hardware scenario made here, to the smallest and the largest value its bounds
accept (1e-300 above an open 0, ±1e300 or ±10**300 where a side is unbounded), then:

* ``planner validate`` exits 0, or 2 naming the field's path (never an internal error);
* when validation accepts it, ``planner run`` exits 0 or 2, never 3 (an internal error,
  or a solver or time-limit failure on a one-year plan of one hardware type).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from numeric_fields import NumericField, walk

from planner.scenario.schema import Scenario

CliResult = Any  # tests/conftest.py's, by duck type (conftest modules shadow each other)
RunCli = Callable[..., Any]  # tests/conftest.py's run_cli fixture


TIME_LIMIT_S = 5
"""``--time-limit`` of each run (the tiny plan takes about 0.4 s)."""

BASE: dict[str, Any] = {
    "name": "extremes",
    "calibration": "none",
    "horizon": {"start": 2026, "years": 1},
    "finance": {"availability": 1.0, "network_and_storage": False},
    "sites": [{"name": "dc", "power_cap_mw": 10.0}],
    "hardware": [{"id": "h100-hgx", "price_decline_per_year": 0.0}],
    "models": [{"id": "llama-3.1-8b"}],
    "inference": [
        {
            "name": "chat",
            "model": "llama-3.1-8b",
            "tokens_per_day": 1.0e10,
            "slo_tokens_per_s_per_user": 50.0,
        }
    ],
}
"""One site, one hardware type, one model, one workload, one year (about 0.4 s to run)."""

ADD_ONS: dict[str, dict[str, Any]] = {
    "sites[0].build": {
        "sites": [{"name": "dc", "power_cap_mw": 10.0, "build": {"block_mw_it": 1.0}}]
    },
    "sites[0].lease": {"sites": [{"name": "dc", "power_cap_mw": 10.0, "lease": {}}]},
    "rental[0]": {
        "rental": [
            {
                "hardware": "h100-hgx",
                "usd_per_accelerator_hour": 2.5,
                "commitments": [{"term_years": 1, "usd_per_accelerator_hour": 2.0}],
            }
        ]
    },
    "existing_fleet[0]": {
        "existing_fleet": [{"hardware": "h100-hgx", "site": "dc", "units": 1, "installed": 2025}]
    },
    "on_order[0]": {
        "on_order": [{"hardware": "h100-hgx", "site": "dc", "units": 1, "delivery": 2026}]
    },
    "training[0]": {
        "training": [
            {
                "name": "ft",
                "model": "llama-3.1-8b",
                "tokens": 1.0e9,
                "kind": "lora",
                "window": [2026, 2026],
            }
        ]
    },
    "models[0].compressed_attention": {
        "models": [
            {"id": "llama-3.1-8b", "compressed_attention": [{"layers": 1, "tokens_per_entry": 4}]}
        ]
    },
    "budget": {"budget": {"capex_usd": 1.0e9}},
    "finance.resale_curve": {"finance": {"resale_curve": {1.0: 0.5}}},
    "vendor_share_max": {"vendor_share_max": {"NVIDIA": 0.9}},
    "uncertainty": {
        "uncertainty": {
            "first_stage_through": 2026,
            "futures": [
                {
                    "name": "only",
                    "probability": 1.0,
                    "scale": {"inference[chat].tokens_per_day": 1.0},
                }
            ],
        }
    },
}
"""Sections the base lacks, added where a field under them is tried (merged: what the
document already has is kept)."""

COMPANIONS: dict[str, dict[str, Any]] = {
    "sites[0].contract_usd_per_kw_year": {"power_cost": "contracted"},
    "models[0].kv_lora_rank": {"qk_rope_head_dim": 64},
    "models[0].qk_rope_head_dim": {"kv_lora_rank": 512},
    "models[0].experts": {"experts_per_token": 1},
    "models[0].experts_per_token": {"experts": 8},
    "models[0].sliding_window_layers": {"sliding_window_tokens": 4096},
    "training[0].rollout_slo_tokens_per_s_per_user": {"rollout_tokens": 1.0e8},
    "training[0].cluster_menu_sizes": {"duration_days": 30.0},
    "inference[0].price_input_usd_per_mtok": {"price_output_usd_per_mtok": 1.0},
    "inference[0].price_cached_input_usd_per_mtok": {
        "price_input_usd_per_mtok": 1.0,
        "price_output_usd_per_mtok": 1.0,
    },
    "inference[0].price_output_usd_per_mtok": {"price_input_usd_per_mtok": 1.0},
}
"""Fields that mean something only beside another: the other, set in the same item."""

SERIES = ("{year}", "[year]", "{key}", "[key]")
"""Path tails of a mapping's key and value (see :mod:`numeric_fields`)."""

WALKED = 166
"""Numeric leaves of the scenario schema (a new one must be placed here, see above)."""

GROUP_SIZE = 20
"""Extremes of different fields run together in one plan (each alone when it fails)."""

Case = tuple[NumericField, float]


def _merge(into: Any, extra: Any) -> None:
    """Add what ``extra`` has and ``into`` lacks (mappings by key, lists by position)."""
    if isinstance(into, dict):
        for key, value in extra.items():
            if key in into and isinstance(value, dict | list):
                _merge(into[key], value)
            elif key not in into:
                into[key] = copy.deepcopy(value)
    else:
        for n, value in enumerate(extra):
            if n < len(into) and isinstance(value, dict | list):
                _merge(into[n], value)
            elif n < len(into):
                continue
            else:
                into.append(copy.deepcopy(value))


def apply(doc: dict[str, Any], field: NumericField, value: float) -> None:
    """Set ``field`` to ``value`` in ``doc``, with the sections and companions it needs."""
    for prefix in sorted(ADD_ONS, key=len):
        name = field.name
        if name == prefix or name.startswith((f"{prefix}.", f"{prefix}[", f"{prefix}{{")):
            _merge(doc, ADD_ONS[prefix])
    path = list(field.path)
    tail = path.pop() if path[-1] in SERIES else None
    *head, last = path
    parent: Any = doc
    for n, part in enumerate(head):
        after = [*head, last][n + 1]
        if isinstance(part, int):
            parent = parent[part]
        else:
            parent = parent.setdefault(part, [] if isinstance(after, int) else {})
    if isinstance(last, int):  # an item of a list of numbers (a window): every item
        parent[:] = [value] * max(len(parent), 2)
        return
    old = parent.get(last)
    if tail == "{year}":
        parent[last] = {value: old if isinstance(old, int | float) else 1.0}
    elif tail == "[year]":
        parent[last] = {BASE["horizon"]["start"]: value}
    elif tail == "{key}":
        parent[last] = {value: 0.5}
    elif tail == "[key]":
        parent[last] = {next(iter(old)): value}
    else:
        parent[last] = value
    for key, companion in COMPANIONS.get(field.name.removesuffix(tail or ""), {}).items():
        parent.setdefault(key, companion)


def document(*cases: Case) -> dict[str, Any]:
    """The base scenario with each case's field set to its value."""
    doc = copy.deepcopy(BASE)
    for field, value in cases:
        apply(doc, field, value)
    return doc


def all_cases() -> list[Case]:
    return [(field, value) for field in walk(Scenario) for value in field.extremes()]


def _shown(cases: list[Case]) -> str:
    return ", ".join(f"{field.name} = {value!r:.40}" for field, value in cases)


class Planner:
    """``validate`` and ``run`` of documents in a scratch folder, in this process."""

    def __init__(self, run_cli: RunCli, folder: Path) -> None:
        self.run_cli, self.folder = run_cli, folder

    def _write(self, doc: dict[str, Any]) -> Path:
        path = self.folder / "s.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        return path

    def validate(self, cases: list[Case]) -> CliResult:
        checked = self.run_cli("validate", self._write(document(*cases)))
        assert checked.code in (0, 2), (_shown(cases), checked.code, checked.err)
        assert "internal error" not in checked.err, (_shown(cases), checked.err)
        return checked

    def run(self, cases: list[Case]) -> CliResult:
        scenario = self._write(document(*cases))
        out = self.folder / "s.xlsx"
        return self.run_cli("run", scenario, "--out", out, "--time-limit", TIME_LIMIT_S)


REFUSAL = re.compile(r"s\.yaml(, line \d+)?: [a-z_]+(\[\d+\])?[.:\[ ]")
"""A refusal names the file and the path of a field."""


def failures(planner: Planner, cases: list[Case]) -> list[tuple[str, int, str]]:
    """The cases that end ``run`` in exit 3 alone, found by halving ``cases``.

    A group that fails only together (each half runs) is no single field's extreme
    and is not reported here: the extremes are each field's, the rest of the scenario
    sensible.
    """
    ran = planner.run(cases)
    if ran.code == 0 or (ran.code == 2 and len(cases) == 1):
        return []
    if len(cases) == 1:
        return [(_shown(cases), ran.code, ran.err[-2000:])]
    half = len(cases) // 2
    return failures(planner, cases[:half]) + failures(planner, cases[half:])


def test_every_numeric_field_is_walked() -> None:
    """The walk finds every numeric leaf, and each can be placed in the base scenario."""
    found = list(walk(Scenario))
    assert len(found) == WALKED, [f.name for f in found]
    for field in found:
        assert any(document((field, v)) != BASE for v in field.extremes()), field.name


def test_validated_extremes_run_or_are_refused(run_cli: RunCli, tmp_path: Path) -> None:
    planner = Planner(run_cli, tmp_path)
    accepted: list[Case] = []
    for case in all_cases():
        checked = planner.validate([case])
        if checked.code == 2:
            assert REFUSAL.search(checked.err), (_shown([case]), checked.err)
        else:
            accepted.append(case)
    groups: list[list[Case]] = []
    for case in accepted:
        for group in groups[-3:]:
            names = {field.name for field, _ in group}
            fits = len(group) < GROUP_SIZE and case[0].name not in names
            if fits and planner.validate([*group, case]).code == 0:
                group.append(case)
                break
        else:
            groups.append([case])
    failed = [failure for group in groups for failure in failures(planner, group)]
    assert not failed, failed
    assert len(accepted) > len(all_cases()) // 2  # most extremes are values, not refusals


def outside(field: NumericField) -> list[float]:
    """Values just past each bound of ``field`` (the bound itself where it is open)."""
    if field.choices:
        return [min(field.choices) - 1, max(field.choices) + 1]
    values: list[float] = []
    for bound, is_open, step in ((field.low, field.low_open, -1), (field.high, field.high_open, 1)):
        if bound is None:
            continue
        if is_open:
            values.append(bound)
        elif field.kind is int:
            values.append(int(bound) + step)
        else:
            values.append(math.nextafter(float(bound), math.inf * step))
    return values


def test_values_past_a_bound_are_refused_naming_the_field(run_cli: RunCli, tmp_path: Path) -> None:
    planner = Planner(run_cli, tmp_path)
    tried = 0
    for field in walk(Scenario):
        named = field.name.split("{")[0].split("[year]")[0].split("[key]")[0]
        for value in outside(field):
            tried += 1
            refused = planner.validate([(field, value)])
            assert refused.code == 2, (field.name, value, refused.out)
            assert named in refused.err, (field.name, value, refused.err)
    assert tried > WALKED  # most fields are bounded on both sides


PAIRS = [
    {"training[0].priority": 1e-6, "training[0].duration_days": 0.01},
    {"models[0].max_context_tokens": 1_000_000_000, "training[0].flops": 1e15},
    {"inference[0].tokens_per_day": 1e18, "inference[0].priority": 1e-6},
]
"""Extremes that once ran only together into a model HiGHS refused (priority 1e-300
with a 1e-300-day run; a 1e9-token context with 1e-300 FLOPs; 1e18 tokens a day at
priority 1e-300), now at the bounds that replaced them."""


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: " + ".join(p))
def test_extremes_that_failed_together_run_or_are_refused(
    pair: dict[str, float], run_cli: RunCli, tmp_path: Path
) -> None:
    fields = {f.name: f for f in walk(Scenario)}
    cases = [(fields[name], value) for name, value in pair.items()]
    planner = Planner(run_cli, tmp_path)
    assert planner.validate(cases).code == 0, _shown(cases)
    ran = planner.run(cases)
    assert ran.code in (0, 2), (_shown(cases), ran.code, ran.err[-2000:])
