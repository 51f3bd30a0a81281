"""What lifting each binding limit would serve: LP re-solves behind the diagnosis.

For a plan that leaves demand unmet while limits bind, the model data is re-solved as an
LP (purchases and cluster choices continuous) by the plan's own lexicographic objective
(serve as much as the limits allow, then minimise cost), a few times:

* each binding limit lifted alone: ``power at texas`` (its cap removed in the periods
  where it binds), ``the capex budget``, ``gb200-nvl72 supply``, ``the nvidia share cap``;
* ``all binding limits`` lifted together: the plan's, and those that bind in the LP
  plans of a single lift (power lifted, a supply cap may then bind), when that is more
  than one limit;
* ``no limit`` lifted: the LP of the plan's own limits (what continuity alone gains).

In that order, so that a large model's time budget goes to the most telling first.

Each re-solve reports two things, as tables the diagnosis reads (the Plan's
``relief_served`` and ``relief_use``): how much of each shortfall its LP plan serves,
and how far its LP plan goes past each lifted cap (MW, USD, units, accelerators), with
the limits that bind in that LP plan though not lifted. These are LP estimates of one
cheapest way to serve the shortfall, not the least relief that would: the cost stage
spends the lifted room where it is cheapest.

The cost is ``2 × (MAX_ALONE + 2)`` LP solves at most (service, then cost), each the
size of the plan's LP relaxation, and no new one after ``BUDGET_S``. On
``power_constrained`` (power binds, and a supply cap once power is lifted): 6 LP solves,
0.2 s on a loaded machine; none on ``baseline``, where all demand is served.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from planner import deadline
from planner.deadline import TimeLimitError
from planner.follow_ups import RELIEF, FollowUps
from planner.optimize import ModelData, Solution
from planner.results.fleet import fleet_table, purchases_table
from planner.results.limits import limits_tables
from planner.results.relief_text import (
    ALL_LIFTED,
    NOTHING_LIFTED,
    SERVED_COLUMNS,
    UNMET_SHARE,
    USE_COLUMNS,
    empty_relief_tables,
)
from planner.units import MTOK

log = logging.getLogger("planner.relief")

Solve = Callable[[ModelData], Solution | None]
"""ModelData (relaxed) → the lexicographic LP's solution, or None when it found none."""

LIFTED_MW = 1.0e6
"""A lifted power cap (MW): far above any fleet the model could build."""
MIN_SECONDS_LEFT = 2.0
"""No re-solve starts with less of the run's time left; those not made are not reported
(the diagnosis says no estimate was made), and the plan is returned as solved."""
BUDGET_S = 30.0
"""No re-solve starts once the re-solves have taken this long (wall clock): on a large
model (the L benchmark's LP takes seconds) the estimates made are kept, the rest not
reported."""
MAX_ALONE = 4
"""At most this many binding limits are lifted one at a time (power first, then the
budget, supply and vendor shares); all of them are still lifted together."""
EXTRA_SHARE = 1e-6
"""Use past a cap smaller than this share of the cap is round-off, not extra."""


@dataclass(frozen=True)
class Lift:
    """One binding limit to lift: ``limit`` is a limits table's name, ``subject`` its
    site, hardware or vendor (None for the budget), ``periods`` the labels (as text)
    where it binds."""

    limit: str
    subject: str | None
    periods: tuple[str, ...]

    @property
    def name(self) -> str:
        return {
            "power": f"power at {self.subject}",
            "budget": "the capex budget",
            "supply": f"{self.subject} supply",
            "vendor_share": f"the {self.subject} share cap",
        }[self.limit]


SUBJECT = {"power": "site", "budget": None, "supply": "hardware", "vendor_share": "vendor"}
"""Each limits table's subject column."""


def binding_lifts(tables: Mapping[str, pd.DataFrame]) -> list[Lift]:
    """The plan's binding limits, one :class:`Lift` per site, hardware, vendor or budget."""
    lifts = []
    for limit, column in SUBJECT.items():
        table = tables[limit]
        binding = table[table["binding"].astype(bool)]
        if column is None:
            if len(binding):
                lifts.append(Lift(limit, None, tuple(str(p) for p in binding["period"])))
            continue
        for subject, rows in binding.groupby(column, sort=True):
            lifts.append(Lift(limit, str(subject), tuple(str(p) for p in rows["period"])))
    return lifts


def lifted_data(d: ModelData, lifts: Sequence[Lift]) -> ModelData:
    """``d`` as an LP with each lift's cap removed where it binds."""
    power, budget = dict(d.power_cap_mw), dict(d.budget_usd)
    supply, share = dict(d.supply_max_units), dict(d.vendor_share_max)
    for lift in lifts:
        if lift.limit == "power":
            for s, t in power:
                if s == lift.subject and str(t) in lift.periods:
                    power[(s, t)] = LIFTED_MW
        elif lift.limit == "budget":
            budget = {t: v for t, v in budget.items() if str(t) not in lift.periods}
        elif lift.limit == "supply":
            supply = {
                (h, t): v
                for (h, t), v in supply.items()
                if not (h == lift.subject and str(t) in lift.periods)
            }
        else:  # the vendor-share cap is one share for the whole horizon
            share.pop(str(lift.subject), None)
    return replace(
        d,
        relax=True,
        power_cap_mw=power,
        budget_usd=budget,
        supply_max_units=supply,
        vendor_share_max=share,
    )


def shortfalls(tables: Mapping[str, pd.DataFrame]) -> list[tuple[str, str, str, int | None, float]]:
    """(kind, subject, period, year, unmet share) of every shortfall in the plan."""
    served = tables["served"]
    out: list[tuple[str, str, str, int | None, float]] = [
        ("inference", str(r.workload), str(r.period), int(r.year), float(r.unmet_share))
        for r in served[served["unmet_share"] > UNMET_SHARE].itertuples(index=False)
    ]
    training = tables["training"]
    for r in training[training["completion"] < 1 - UNMET_SHARE].itertuples(index=False):
        out.append(("training", str(r.run), "", None, 1.0 - float(r.completion)))
    return out


def _unmet_share(d: ModelData, sol: Solution, kind: str, subject: str, period: str) -> float:
    if kind == "training":
        need = d.train_zflop[subject]
        return sol.unmet_train.get(subject, 0.0) / need if need > 0 else 0.0
    t = next(label for label in d.labels if str(label) == period)
    peak = d.demand_peak[(subject, t, "output")] * MTOK
    return sol.unmet_inf.get((subject, t), 0.0) * MTOK / peak if peak > 0 else 0.0


def _use_rows(d: ModelData, sol: Solution, name: str, lifts: Sequence[Lift]) -> list[dict]:
    """Use past each lifted cap, and the limits not lifted that bind, in this LP plan."""
    relaxed = replace(d, relax=True)  # the plan's own caps, measured on the LP plan
    limits = limits_tables(relaxed, purchases_table(relaxed, sol), fleet_table(relaxed, sol))
    lifted = {(lift.limit, lift.subject, p) for lift in lifts for p in lift.periods}
    rows: list[dict] = []
    specs = {
        "power": ("site", "cap_mw", "used_mw", "MW"),
        "budget": (None, "budget_usd", "capex_usd", "USD"),
        "supply": ("hardware", "max_units", "units_bought", "units"),
    }
    for limit, (column, cap_col, used_col, unit) in specs.items():
        for r in limits[limit].to_dict(orient="records"):
            subject = None if column is None else str(r[column])
            cap, used = float(r[cap_col]), float(r[used_col])
            is_lifted = (limit, subject, str(r["period"])) in lifted
            extra = used - cap
            if is_lifted and extra > EXTRA_SHARE * max(abs(cap), 1.0):
                rows.append(_use(name, limit, subject, r, cap, used, extra, unit, True))
            elif not is_lifted and bool(r["binding"]):
                rows.append(_use(name, limit, subject, r, cap, used, 0.0, unit, False))
    for r in limits["vendor_share"].to_dict(orient="records"):
        vendor = str(r["vendor"])
        cap = float(r["max_share"]) * float(r["fleet_accelerators"])
        used = float(r["accelerators"])
        if any(lift.limit == "vendor_share" and lift.subject == vendor for lift in lifts):
            if used - cap > EXTRA_SHARE * max(cap, 1.0):
                rows.append(
                    _use(
                        name, "vendor_share", vendor, r, cap, used, used - cap, "accelerators", True
                    )
                )
        elif bool(r["binding"]):
            rows.append(
                _use(name, "vendor_share", vendor, r, cap, used, 0.0, "accelerators", False)
            )
    return rows


def _use(
    name: str,
    limit: str,
    subject: str | None,
    row: Mapping[str, object],
    cap: float,
    used: float,
    extra: float,
    unit: str,
    lifted: bool,
) -> dict[str, object]:
    return {
        "relief": name,
        "limit": limit,
        "subject": subject,
        "period": str(row["period"]),
        "year": row["year"],
        "cap": cap,
        "lp_used": used,
        "lp_extra": extra,
        "unit": unit,
        "lifted": lifted,
    }


class _BudgetSpent(Exception):
    """The estimates' own budget (:data:`BUDGET_S`) is spent; the run's limit is not."""


def relief_tables(
    d: ModelData,
    tables: Mapping[str, pd.DataFrame],
    solve: Solve,
    follow_ups: FollowUps | None = None,
) -> dict[str, pd.DataFrame]:
    """``relief_served`` and ``relief_use`` (see the module docstring); empty tables when
    nothing is short, no limit binds, or the run has too little time left (then
    ``follow_ups`` records the estimates as skipped, with how many were made)."""
    empty = empty_relief_tables()
    short = shortfalls(tables)
    lifts = binding_lifts(tables)
    if not short or not lifts:
        return empty
    served: list[dict[str, object]] = []
    use: list[dict[str, object]] = []
    stop = time.monotonic() + BUDGET_S
    try:  # most telling first: each limit alone, all together, then none lifted
        for lift in lifts[:MAX_ALONE]:
            _estimate(d, solve, short, lift.name, [lift], served, use, stop)
        # Together: the plan's binding limits and those that bind once one is lifted.
        together = _merge(lifts, [_lift_of(row) for row in use if not row["lifted"]])
        if len(together) > 1:
            _estimate(d, solve, short, ALL_LIFTED, together, served, use, stop)
        _estimate(d, solve, short, NOTHING_LIFTED, [], served, use, stop)
    except (TimeLimitError, _BudgetSpent) as cut:  # keep the estimates done, drop the rest
        made = len({row["relief"] for row in served})
        log.warning("time ran out for the LP estimates of lifting limits: %d made", made)
        if follow_ups is not None and isinstance(cut, TimeLimitError):  # the run's limit
            follow_ups.skip(RELIEF + (f" ({made} made)" if made else ""))
    return {
        "relief_served": pd.DataFrame(served, columns=SERVED_COLUMNS),
        "relief_use": pd.DataFrame(use, columns=USE_COLUMNS),
    }


def _lift_of(row: Mapping[str, object]) -> Lift:
    subject = row["subject"]
    return Lift(str(row["limit"]), None if subject is None else str(subject), (str(row["period"]),))


def _merge(first: Sequence[Lift], more: Sequence[Lift]) -> list[Lift]:
    """The lifts of ``first`` and ``more``, one per limit and subject, periods merged."""
    periods: dict[tuple[str, str | None], list[str]] = {}
    for lift in [*first, *more]:
        mine = periods.setdefault((lift.limit, lift.subject), [])
        mine += [p for p in lift.periods if p not in mine]
    return [Lift(limit, subject, tuple(p)) for (limit, subject), p in periods.items()]


def _estimate(
    d: ModelData,
    solve: Solve,
    short: Sequence[tuple[str, str, str, int | None, float]],
    name: str,
    chosen: Sequence[Lift],
    served: list[dict[str, object]],
    use: list[dict[str, object]],
    stop: float,
) -> None:
    """Re-solve with ``chosen`` lifted; append its rows to ``served`` and ``use``.
    Raise TimeLimitError instead when the run's time is near, _BudgetSpent when ``stop``
    (monotonic) has passed."""
    left = deadline.remaining()
    if left is not None and left < MIN_SECONDS_LEFT:
        raise TimeLimitError(f"{left:.1f} s left for the LP estimates")
    if time.monotonic() > stop:
        raise _BudgetSpent(f"the LP estimates took their {BUDGET_S:g} s")
    sol = solve(lifted_data(d, chosen))
    if sol is None:
        log.warning("LP with %s lifted found no plan: no estimate for it", name)
        return
    for kind, subject, period, year, share in short:
        lp = min(max(_unmet_share(d, sol, kind, subject, period), 0.0), 1.0)
        served.append(
            {
                "relief": name,
                "kind": kind,
                "subject": subject,
                "period": period,
                "year": year,
                "unmet_share_plan": share,
                "unmet_share_lp": lp,
                "shortfall_served_share": max(0.0, 1.0 - lp / share) if share > 0 else 1.0,
            }
        )
    use += _use_rows(d, sol, name, chosen)
