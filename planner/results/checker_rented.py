"""Independent checks of rented capacity as the plan reports it: the utilisation table's
rented units are the on-demand and committed units together, and the realised $/Mtok
charges rented work what the plan pays for it (on-demand rent and commitments at their
own rates, shared over the units assigned from each hardware's rented pool).

Reads only the plan's tables, like :mod:`planner.results.checker`.
"""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from planner.results.plan import Plan
from planner.units import RENTED

REL = 1e-5


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= REL * max(abs(a), abs(b), scale)


def _by_pool(frames: list[pd.DataFrame | None], column: str) -> dict[tuple, float]:
    out: dict[tuple, float] = defaultdict(float)
    for f in frames:
        if f is None or f.empty:
            continue
        for h, t, v in zip(f["hardware"], f["period"], f[column], strict=True):
            out[(str(h), str(t))] += float(v)
    return out


def check_rented(plan: Plan) -> list[str]:
    """Violations of rented units' utilisation and of their $/Mtok charge."""
    t = plan.tables
    commitments = t.get("commitments")
    units = _by_pool([t["rentals"], commitments], "units")
    paid = _by_pool([t["rentals"], commitments], "cost_usd")
    out = []
    util = t["utilisation"]
    for row in util[util["site"] == RENTED].itertuples(index=False):
        want = units.get((str(row.hardware), str(row.period)), 0.0)
        if not _close(float(row.units), want):
            out.append(
                f"{row.period}: utilisation lists {row.units} rented {row.hardware}, "
                f"on-demand and committed units are {want}"
            )
    per_mtok = t["usd_per_mtok"]
    if "rented_cost_usd" not in per_mtok.columns:
        return out
    work = [f[f["site"] == RENTED] for f in (t["assignment_training"], t["assignment_inference"])]
    assigned = _by_pool(list(work), "units")
    serving = _by_pool([work[1]], "units")
    due: dict[str, float] = defaultdict(float)
    for key, busy in assigned.items():
        if busy > 0:
            due[key[1]] += paid.get(key, 0.0) * serving.get(key, 0.0) / busy
    charged = per_mtok.groupby(per_mtok["period"].astype(str))["rented_cost_usd"].sum()
    for period in sorted(set(due) | set(charged.index)):
        got = float(charged.get(period, 0.0))
        if not _close(got, due.get(period, 0.0)):
            out.append(
                f"{period}: $/Mtok charges rented units {got:,.2f} USD, their share of "
                f"on-demand rent and commitments paid is {due.get(period, 0.0):,.2f}"
            )
    return out
