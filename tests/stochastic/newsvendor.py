"""The newsvendor trees the stochastic tests solve by hand: one H100 server type bought
only in 2026 at P, 2027's demand a number of units' worth per future, and what owned
units cannot serve rented at ``rate_multiple`` · P a unit-year. Every other cost is 0
(no discounting, residual, facility, maintenance or network; electricity $1e-9/kWh),
so a plan costs P · bought + R · rented unit-years (see test_newsvendor.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from planner.pipeline import throughput
from planner.scenario import load_scenario

P = 250_000.0
HOURS = 8_760
ACCELERATORS = 8
DEMAND = "inference[chat].tokens_per_day.2027"

BODY = """\
name: NAME
horizon: {start: 2026, years: 2, demand_within_period: start}
finance: {wacc: 0.0, pue: 1.0, electricity_usd_per_kwh: 1.0e-9, facility_usd_per_kw_year: 0,
  maintenance_fraction_of_capex_per_year: 0, availability: 1.0, network_and_storage: false,
  horizon_end: none}
sites: [{name: dc, power_cap_mw: 1000}]
hardware:
  - {id: h100-hgx, price_usd: 250000, max_units_per_year: {2026: 1000, 2027: 0}}
rental:
  - {hardware: h100-hgx, usd_per_accelerator_hour: RATE}
models: [{id: llama-3.1-8b}]
inference:
  - {name: chat, model: llama-3.1-8b, tokens_per_day: {2026: 1.0e+9, 2027: BASE},
     slo_tokens_per_s_per_user: 50, peak_to_average: 1.0}
solver: {mip_gap: 0.0, time_limit_s: 60}
uncertainty:
  first_stage_through: 2026
  risk: {cvar_alpha: 0.9, weight: WEIGHT}
  futures:
"""

Future = tuple[str, float, float | None]
"""(name, probability, 2027's demand in units' worth, or None: the base's)."""


def write_tree(
    folder: Path,
    rate_multiple: float,
    futures: Sequence[Future],
    *,
    weight: float = 0.0,
    base_units: float = 5.98,
    name: str = "newsvendor",
) -> Path:
    """The tree as ``folder/<name>.yaml``; demand in units' worth is read off the perf
    model's output tokens/s per unit at the SLO (a probe of the same scenario)."""
    folder.mkdir(parents=True, exist_ok=True)
    rate = rate_multiple * P / (ACCELERATORS * HOURS)
    head = BODY.replace("NAME", name).replace("RATE", f"{rate!r}").replace("WEIGHT", f"{weight!r}")
    probe = folder / "probe.yaml"
    only = "    - {name: only, probability: 1.0}\n"
    probe.write_text(head.replace("BASE", "1.0e+10") + only, encoding="utf-8")
    inference, _ = throughput(load_scenario(probe))
    per_unit_day = float(inference.iloc[0]["output_tokens_per_s_per_unit"]) * 86_400
    text = head.replace("BASE", f"{base_units * per_unit_day:.6e}")
    for future, probability, units in futures:
        edit = "" if units is None else f', set: {{"{DEMAND}": {units * per_unit_day:.6e}}}'
        text += f"    - {{name: {future}, probability: {probability}{edit}}}\n"
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path
