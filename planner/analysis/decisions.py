"""What the runs buy, year by year: the decision an analysis informs, not just its cost.

* :func:`purchases_by_year` — per (year, hardware): the share of solved runs that buy
  it and the units bought (P10/P50/P90, mean), so "what is safe to buy in 2026" reads
  off the first year's rows.
* :func:`first_year_plans` — the distinct first-year purchase plans across the runs,
  most frequent first, with their share of runs: the first decision's stability (one
  plan in 90% of runs is a stable decision; ten plans of 10% each is not).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from planner.analysis.figures import SOLVED
from planner.analysis.rows import Row

PERCENTILES = (10, 50, 90)


def purchases_by_year(rows: Sequence[Row]) -> pd.DataFrame:
    """Per year and hardware: runs buying, share of runs, units P10/P50/P90 and mean."""
    solved = [r for r in rows if r["status"] in SOLVED]
    keys = sorted(
        {(y, h) for r in solved for y, b in (r.get("units_by_year") or {}).items() for h in b}
    )
    records = []
    for year, h in keys:
        units = np.array(
            [float(((r.get("units_by_year") or {}).get(year) or {}).get(h, 0.0)) for r in solved]
        )
        p = np.percentile(units, PERCENTILES)
        records.append(
            {
                "year": int(year),
                "hardware": h,
                "runs_buying": int((units > 0).sum()),
                "share_of_runs": float((units > 0).mean()),
                **{f"units_p{q}": float(v) for q, v in zip(PERCENTILES, p, strict=True)},
                "units_mean": float(units.mean()),
            }
        )
    columns = ["year", "hardware", "runs_buying", "share_of_runs"]
    columns += [*(f"units_p{q}" for q in PERCENTILES), "units_mean"]
    return pd.DataFrame(records, columns=columns)


def plan_text(buys: dict[str, float]) -> str:
    """A first-year plan as text, by hardware: ``gb200-nvl72 × 120, h100-hgx × 4``."""
    by_hardware: dict[str, float] = {}
    for key, units in buys.items():
        hardware = key.split("|", 1)[0]
        by_hardware[hardware] = by_hardware.get(hardware, 0.0) + units
    return ", ".join(f"{h} × {u:g}" for h, u in sorted(by_hardware.items())) or "nothing"


def first_year_plans(rows: Sequence[Row]) -> pd.DataFrame:
    """The distinct first-year plans (by hardware, site and period), most frequent first."""
    solved = [r for r in rows if r["status"] in SOLVED and "first_year_buys" in r]
    counts: dict[str, list[Row]] = {}
    for r in solved:
        counts.setdefault(plan_key(r["first_year_buys"]), []).append(r)
    records = [
        {
            "first_year": group[0].get("first_year"),
            "plan": plan_text(group[0]["first_year_buys"]),
            "runs": len(group),
            "share_of_runs": len(group) / len(solved),
            "example_run": group[0]["label"],
        }
        for group in counts.values()
    ]
    frame = pd.DataFrame(
        records, columns=["first_year", "plan", "runs", "share_of_runs", "example_run"]
    )
    return frame.sort_values(["runs", "plan"], ascending=[False, True], ignore_index=True)


def plan_key(buys: dict[str, float]) -> str:
    """A first-year plan's identity: its purchases, sorted."""
    return ";".join(f"{k}={v:g}" for k, v in sorted(buys.items()) if v)
