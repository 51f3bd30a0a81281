"""Is a plan's time resolution honest? Its fleet against the peaks of finer sub-periods.

A plan made with periods of 1/P years holds its fleet for a whole period; demand keeps
growing inside it. :func:`resolution_check` cuts every plan period t into the P'/P
sub-periods s of a finer horizon (P' a multiple of P, see
:mod:`planner.scenario.periods`) and asks whether the units the plan has in t serve
each sub-period's peak.

Notation, for a plan period t and a sub-period s ⊂ t:

* D[w,s] = max_{y∈s} tokens_per_day_w(y) · peak_to_average_w / 86,400 — the peak of
  workload w inside s, output tokens/s (:func:`peak_rate_in`; a growing series' value
  at the end of s).
* Streams k of w: ``serve`` (colocated), or ``decode`` and ``prefill``
  (disaggregated); q[w,k] = 1, except q[w,prefill] = uncached input tokens per output
  token. Stream k needs q[w,k] · D[w,s] tokens/s.
* x[w,k,h,t] units of hardware h the plan assigns to stream k in t (all sites and
  rentals), τ[w,k,h] tokens/s per unit it used, and the plan's own shares
  a[w,k,h] = x·τ / Σ_h' x·τ (a stream the plan serves on nothing has no shares).
* U[h,s] = availability · owned units of h at the end of s + rented units of h in t (on
  demand and committed) −
  units of h training in t: the units free for inference (training is taken to hold
  its units for the whole period). Owned units are the plan's for t, except with
  deliveries through the period (``peak_average``,
  :mod:`planner.optimize.data.deliveries`): then each cohort changes linearly inside
  t, from what it held at t's start to what it holds at t's end, so at the end of s it
  holds the previous period's units plus the share of t's deliveries arrived by then,
  less the share of a departing cohort gone (:func:`owned_at`).
* With deliveries through the period, the shares move with the fleet: at the end of
  s, the share φ of the way through t, they are those of x = (1 − φ) · x[·,t−1] +
  φ · x[·,t] (the plan's assignment at t's start and at its end; linear like the
  fleet, so it fits the fleet whenever training does).
* The units stream k of w needs on h in s, keeping the plan's shares:
  n[w,k,h,s] = a[w,k,h] · q[w,k] · D[w,s] / τ[w,k,h]; N[h,s] = Σ_{w,k} n[w,k,h,s].

Each pool h is split among the streams it serves in proportion to need (in proportion
to the plan's x when N[h,s] = 0): u[w,k,h,s] = U[h,t] · n[w,k,h,s] / N[h,s]. This is one
real assignment of the installed units, the same for every workload at once, so

    capacity C[w,s] = min_k Σ_h u[w,k,h,s] · τ[w,k,h] / q[w,k]      (output tokens/s)
    shortfall_share = max(0, 1 − C[w,s] / D[w,s])                   (0 when D = 0)
    meets           = shortfall_share ≤ 1e-6  (solver feasibility tolerance)

The check is conservative: "meets" means that assignment serves w's peak (and all the
workloads marked "meets" in s are served by it together). It never moves a stream to
hardware the plan did not use for it, nor re-times training inside a period, so it may
report a shortfall that another assignment of the same fleet would avoid — never the
opposite. Under ``horizon.demand_within_period: start`` a growing series is read at
each period's start, so the later sub-periods fall short; under ``peak_average`` the
plan meets each period's end peak with the fleet at its end and the previous
period's end with the fleet at its start, and both fleet and peaks move inside the
period as the deliveries module says (fleet linear, demand convex), so it meets every
sub-period's peak too. The units free for inference may fall across a period boundary
(training holds its units for a whole period and rentals change at period starts, so
where a plan puts more units of a type on training in t than in t − 1, or rents fewer,
the start of t has fewer free units than the end of t − 1 while t's purchases are still
arriving); the start rows of :mod:`planner.optimize.constraints.period_start` hold
that instant, so the check passes there too (a quarterly baseline checked by month was
short in 7 of 156 workload-months before them, worst agentic 22% in 2026-04; now in
none).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import pandas as pd

from planner.errors import InputError, Problem
from planner.perf.workloads import serving_workloads
from planner.results.checker_procurement import rented_with_commitments
from planner.results.plan import Plan
from planner.scenario.periods import PERIODS_PER_YEAR, Period, make_periods, peak_rate_in
from planner.scenario.schema import Scenario
from planner.units import SECONDS_PER_DAY

COLUMNS = [
    "period",
    "sub_period",
    "workload",
    "peak_tokens_per_s",
    "capacity_tokens_per_s",
    "meets",
    "shortfall_share",
]
MEETS_TOLERANCE = 1e-6
"""A shortfall below this share of the peak is the solver's tolerance, not a shortfall."""

Stream = tuple[str, str]  # (workload, role)


def require_finer(plan_periods_per_year: int, finer: int, path: str) -> None:
    """Raise InputError (at ``path``) unless ``finer`` periods a year cut the plan's."""
    if finer in PERIODS_PER_YEAR and finer % plan_periods_per_year == 0:
        return
    allowed = [p for p in PERIODS_PER_YEAR if p % plan_periods_per_year == 0]
    raise InputError(
        None,
        Problem(
            path=path,
            message="sub-periods must cut the plan's periods evenly",
            found=str(finer),
            expected=f"one of {', '.join(map(str, allowed))} (plan: "
            f"{plan_periods_per_year} period(s) a year)",
            hint="pass periods per year that are a multiple of horizon.periods_per_year",
        ),
    )


def resolution_check(
    plan: Plan,
    scenario: Scenario,
    finer_periods_per_year: int,
    path: str = "finer_periods_per_year",
) -> pd.DataFrame:
    """Every sub-period's peak against the plan's serving capacity (module docstring).

    One row per served workload, plan period and sub-period (``COLUMNS``); tokens/s
    are output tokens.
    """
    horizon = scenario.horizon
    require_finer(horizon.periods_per_year, finer_periods_per_year, path)
    subs = make_periods(horizon.start, horizon.years, finer_periods_per_year)
    plan_periods = make_periods(horizon.start, horizon.years, horizon.periods_per_year)
    workloads = {w.name: w for w in serving_workloads(scenario)}
    served = plan.tables["served"]
    assignment = plan.tables["assignment_inference"]
    ramp = plan.ramp_periods
    rows = []
    before: Period | None = None
    for period in plan_periods:
        previous, before = before, period
        demand = served[served["period"] == period.name]
        if demand.empty:
            continue
        now = assignment[assignment["period"] == period.name]
        then = assignment[assignment["period"] == getattr(previous, "name", None)]
        for sub in _inside(subs, period):
            through = (sub.end - period.start) / period.length_years
            free = free_units(plan, through)
            units = now
            if str(period.name) in ramp and len(then):  # the assignment moves with the fleet
                units = pd.concat(
                    [
                        then.assign(units=then["units"] * (1.0 - through)),
                        now.assign(units=now["units"] * through),
                    ]
                )
            peaks = {
                row.workload: peak_rate_in(workloads[row.workload].tokens_per_day, sub)
                * row.peak_to_average
                / SECONDS_PER_DAY
                for row in demand.itertuples(index=False)
            }
            ratio = dict(
                zip(demand["workload"], demand["prefill_tokens_per_output_token"], strict=True)
            )
            capacity = sub_period_capacity(units, peaks, ratio, free.get(period.name, {}))
            for w, peak in peaks.items():
                have = capacity.get(w, 0.0)
                short = max(0.0, 1.0 - have / peak) if peak > 0 else 0.0
                rows.append(
                    {
                        "period": period.name,
                        "sub_period": sub.name,
                        "workload": w,
                        "peak_tokens_per_s": peak,
                        "capacity_tokens_per_s": have,
                        "meets": bool(short <= MEETS_TOLERANCE),
                        "shortfall_share": short,
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def _inside(subs: Iterable[Period], period: Period) -> list[Period]:
    eps = 1e-9  # monthly starts are not exact floats
    return [s for s in subs if period.start - eps <= s.start < period.end - eps]


def free_units(plan: Plan, through: float = 1.0) -> dict[str, dict[str, float]]:
    """U[h,t]: period → hardware → units free for inference (module docstring), at the
    share ``through`` of each period (1: its end; it matters only with deliveries
    through the period)."""
    availability = float(plan.parameters.get("availability", 1.0))
    free: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in plan.tables["fleet"].itertuples(index=False):
        free[row.period][row.hardware] += availability * owned_at(row, through)
    for (period, h), units in rented_with_commitments(plan.tables["rentals"], plan).items():
        free[period][h] += units  # on demand and committed
    for row in plan.tables["assignment_training"].itertuples(index=False):
        free[row.period][row.hardware] -= row.units
    return {t: {h: max(u, 0.0) for h, u in pools.items()} for t, pools in free.items()}


def owned_at(row: Any, through: float) -> float:
    """Units of a fleet-table row held at the share ``through`` of its period: linear
    from the units at its start, ``2 · units_in_service − units`` (the table's
    in-service units are the mean of start and end), to ``units`` at its end."""
    end = float(row.units)
    start = 2.0 * float(getattr(row, "units_in_service", end)) - end
    return start + through * (end - start)


def sub_period_capacity(
    units: pd.DataFrame,
    peaks: dict[str, float],
    prefill_ratio: dict[str, float],
    free: dict[str, float],
) -> dict[str, float]:
    """C[w,s] for one sub-period: the plan period's inference assignment ``units``
    (assignment_inference rows), the peaks D[w,s] in output tokens/s, q[w,prefill] and
    the free units U[h,t] by hardware."""
    x: dict[tuple[str, str, str], float] = defaultdict(float)
    tau: dict[tuple[str, str, str], float] = {}
    for row in units.itertuples(index=False):
        x[(row.workload, row.role, row.hardware)] += row.units
        tau[(row.workload, row.role, row.hardware)] = row.tokens_per_s_per_unit
    stream_total: dict[Stream, float] = defaultdict(float)
    for (w, k, h), n in x.items():
        stream_total[(w, k)] += n * tau[(w, k, h)]
    need: dict[tuple[str, str, str], float] = {}
    for (w, k, h), n in x.items():
        total = stream_total[(w, k)]
        share = n * tau[(w, k, h)] / total if total > 0 else 0.0
        q = prefill_ratio.get(w, 0.0) if k == "prefill" else 1.0
        need[(w, k, h)] = share * q * peaks.get(w, 0.0) / tau[(w, k, h)] if share else 0.0
    pool_need: dict[str, float] = defaultdict(float)
    pool_x: dict[str, float] = defaultdict(float)
    for (_, _, h), n in need.items():
        pool_need[h] += n
    for (_, _, h), n in x.items():
        pool_x[h] += n
    delivered: dict[Stream, float] = defaultdict(float)
    for (w, k, h), n in x.items():
        if pool_need[h] > 0:
            weight = need[(w, k, h)] / pool_need[h]
        else:
            weight = n / pool_x[h] if pool_x[h] > 0 else 0.0
        delivered[(w, k)] += free.get(h, 0.0) * weight * tau[(w, k, h)]
    capacity: dict[str, float] = {}
    for (w, k), tokens in delivered.items():
        q = prefill_ratio.get(w, 0.0) if k == "prefill" else 1.0
        output = tokens / q if q > 0 else float("inf")
        capacity[w] = min(capacity.get(w, float("inf")), output)
    return {w: c for w, c in capacity.items() if c != float("inf")}


SUB_PERIOD_NAMES = {1: "year", 2: "half-year", 4: "quarter", 12: "month"}

SUMMARY_COLUMNS = [
    "period",
    "worst_sub_period",
    "worst_workload",
    "worst_shortfall_share",
    "sub_periods_short",
]


def resolution_summary(check: pd.DataFrame) -> pd.DataFrame:
    """One row per plan period of a :func:`resolution_check`: its worst sub-period and
    workload, that shortfall share, and how many of its sub-periods fall short."""
    rows = []
    for period, part in check.groupby("period", sort=False):
        worst = part.loc[part["shortfall_share"].idxmax()]
        short = part.loc[~part["meets"], "sub_period"].nunique()
        rows.append(
            {
                "period": period,
                "worst_sub_period": worst["sub_period"],
                "worst_workload": worst["workload"],
                "worst_shortfall_share": float(worst["shortfall_share"]),
                "sub_periods_short": int(short),
            }
        )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def resolution_verdict(
    check: pd.DataFrame, finer_periods_per_year: int, demand_within_period: str | None = None
) -> str:
    """One sentence: the plan meets every sub-period's peak, or which fall short (and,
    for a plan that read demand at each period's start, the setting that sizes it to the
    peaks instead)."""
    name = SUB_PERIOD_NAMES[finer_periods_per_year]
    if check.empty:
        return f"no demand to check by {name}"
    short = check[~check["meets"]]
    if short.empty:
        return f"meets every {name}'s peak"
    worst = short.sort_values("shortfall_share", ascending=False).drop_duplicates("sub_period")
    listed = ", ".join(
        f"{r.sub_period} ({r.workload} {r.shortfall_share:.1%} short)"
        for r in worst.sort_values("sub_period").itertuples(index=False)
    )
    verdict = f"falls short of the peak in {len(worst)} {name}(s): {listed}"
    if demand_within_period == "start":
        verdict += (
            "; the plan read demand at each period's start (horizon.demand_within_period:"
            " start); peak_average sizes the fleet to each period's peak"
        )
    return verdict


__all__ = [
    "COLUMNS",
    "SUMMARY_COLUMNS",
    "free_units",
    "require_finer",
    "resolution_check",
    "resolution_summary",
    "resolution_verdict",
]
