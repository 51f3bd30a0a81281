"""``service_measure``: what "most demand served" counts. Two workloads share one
rented unit (the rental cap): a small 70B workload and a large 8B one. Per unit of
capacity, a 70B unit serves fewer tokens (tau_70 < tau_8), but each of them is a larger
share of its small demand (tau_70 / D_70 > tau_8 / D_8). So ``weighted_share`` serves
the small workload first and ``tokens`` the large one, serving more tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from planner.errors import InputError
from planner.pipeline import plan
from planner.results import Plan
from planner.scenario import load_scenario

SMALL, LARGE = 2.0e8, 5.0e10  # tokens per day

DOC = {
    "name": "two-workloads",
    "horizon": {"start": 2026, "years": 1},
    "finance": {"wacc": 0.10, "availability": 1.0, "network_and_storage": False},
    "sites": [{"name": "dc", "power_cap_mw": 10}],
    "rental": [{"hardware": "h200-hgx", "usd_per_accelerator_hour": 2.5, "max_accelerators": 8}],
    "models": [{"id": "llama-3.1-8b"}, {"id": "llama-3.1-70b"}],
    "inference": [
        {
            "name": "big",
            "model": "llama-3.1-70b",
            "tokens_per_day": SMALL,
            "slo_tokens_per_s_per_user": 20,
            "peak_to_average": 1.0,
        },
        {
            "name": "many",
            "model": "llama-3.1-8b",
            "tokens_per_day": LARGE,
            "slo_tokens_per_s_per_user": 20,
            "peak_to_average": 1.0,
        },
    ],
    "solver": {"mip_gap": 0.0, "time_limit_s": 30},
}


def _solve(tmp_path: Path, **extra: str) -> Plan:
    path = tmp_path / f"{'-'.join(extra.values()) or 'default'}.yaml"
    path.write_text(yaml.safe_dump({**DOC, **extra}))
    return plan(load_scenario(path))


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Plan]:
    tmp = Path(tmp_path_factory.mktemp("measure"))
    return {
        "default": _solve(tmp),
        "weighted_share": _solve(tmp, service_measure="weighted_share"),
        "tokens": _solve(tmp, service_measure="tokens"),
    }


def _served(p: Plan) -> dict[str, float]:
    s = p.tables["served"]
    return dict(zip(s["workload"], s["unmet_share"], strict=True))


def test_weighted_share_and_tokens_choose_differently(plans: dict[str, Plan]) -> None:
    rates = plans["weighted_share"].tables["assignment_inference"]
    tau = rates.groupby("workload")["tokens_per_s_per_unit"].first()
    # the premise, worked by hand from the two rates and demands
    assert tau["big"] < tau["many"]
    assert tau["big"] / SMALL > tau["many"] / LARGE
    share, tokens = _served(plans["weighted_share"]), _served(plans["tokens"])
    assert share["big"] == pytest.approx(0.0, abs=1e-6)  # the small workload first
    assert share["many"] > 0.5
    assert tokens["big"] == pytest.approx(1.0, abs=1e-6)  # every token alike: 8B first
    served = {k: float(p.tables["served"]["served_tokens"].sum()) for k, p in plans.items()}
    assert served["tokens"] > served["weighted_share"]


def test_default_is_weighted_share_and_stated(plans: dict[str, Plan]) -> None:
    assert _served(plans["default"]) == pytest.approx(_served(plans["weighted_share"]))
    for measure in ("weighted_share", "tokens"):
        p = plans[measure]
        assert p.headline["service_measure"] == measure
        assert any(f"service_measure: {measure} (" in s for s in p.diagnosis)


def test_revenue_needs_every_workload_priced(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**DOC, "service_measure": "revenue"}))
    with pytest.raises(InputError, match="service_measure") as caught:
        load_scenario(path)
    assert "price_usd_per_mtok" in str(caught.value)
