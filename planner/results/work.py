"""Plan tables of the work: assignments, utilisation, inference served, training runs."""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from planner.economics import (
    tokens_over_years,
    tokens_per_day,
)
from planner.optimize.data import ModelData
from planner.optimize.extract import Solution
from planner.results.sales import purchased_units_held
from planner.results.tables import WHEN, frame, when
from planner.results.training_runs import SCHEDULE_COLUMNS, chosen_clusters, run_schedules
from planner.units import (
    MTOK,
    PFLOP,
    RENTED,
    SECONDS_PER_YEAR,
    ZFLOP,
)


def inference_by_place(d: ModelData, sol: Solution) -> dict[tuple, float]:
    """The model's inference assignments (units of h serving w in t, wherever they are)
    split into places: (w, role, h, s, t) → units.

    Inference is not tied to a site in the model: any plan splits into places by giving
    each place's spare units (available units minus its training) to inference. This
    fills the places in order — the sites in scenario order, then rentals — workload by
    workload; another split would be as valid, and cost the same.
    """
    installed: dict[tuple, float] = defaultdict(float)
    for (h, s, _, t), units in purchased_units_held(d, sol).items():
        installed[(h, s, t)] += units
    for (h, s, _, t), units in sol.kept.items():
        installed[(h, s, t)] += units
    training: dict[tuple, float] = defaultdict(float)
    for (_, h, s, t), units in sol.x_train.items():
        training[(h, s, t)] += units
    by_pool: dict[tuple, list[tuple[str, str, float]]] = defaultdict(list)
    for (w, role, h, t), units in sol.x_inf.items():
        by_pool[(h, t)].append((w, role, units))
    out: dict[tuple, float] = defaultdict(float)
    for (h, t), assignments in by_pool.items():
        places = d.places[(h, t)]
        committed = sum(sol.commit.get(k, 0.0) for k in d.commit_active.get((h, t), ()))
        spare = [
            max(
                0.0,
                (
                    sol.rent.get((h, t), 0.0) + committed
                    if s == RENTED
                    else d.availability * installed[(h, s, t)]
                )
                - training[(h, s, t)],
            )
            for s in places
        ]
        k = 0
        for w, role, units in assignments:
            left = units
            while left > 0:
                while k < len(places) - 1 and spare[k] <= 1e-9 * max(1.0, left):
                    k += 1
                take = left if k == len(places) - 1 else min(left, spare[k])
                out[(w, role, h, places[k], t)] += take
                spare[k] -= take
                left -= take
    return dict(out)


def assignment_tables(
    d: ModelData, sol: Solution, inference_split: dict[tuple, float]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Units at work: training by run and place, inference as :func:`inference_by_place`
    splits it."""
    train = []
    fixed = chosen_clusters(d, sol)  # a run with a duration works at its size's rate
    for (r, h, s, t), units in sol.x_train.items():
        per_s = fixed[(r, h, s)]["flops_per_s_per_unit"] if (r, h, s) in fixed else None
        per_s = per_s or d.train_flops_per_s[(r, h)]
        seconds = SECONDS_PER_YEAR * d.period_length[t]
        train.append(
            {
                **when(d, t),
                "run": r,
                "hardware": h,
                "site": s,
                "units": units,
                "flops_per_s_per_unit": per_s,
                "seconds": seconds,
                "flops": units * per_s * seconds,
            }
        )
    inference = []
    for (w, role, h, s, t), units in inference_split.items():
        tps = d.inf_tokens_per_s[(w, role, h)]
        inference.append(
            {
                **when(d, t),
                "workload": w,
                "role": role,
                "hardware": h,
                "site": s,
                "units": units,
                "tokens_per_s_per_unit": tps,
                "tokens_per_day": units * tokens_per_day(tps),
            }
        )
    return (
        frame(
            train,
            [
                *WHEN,
                "run",
                "hardware",
                "site",
                "units",
                "flops_per_s_per_unit",
                "seconds",
                "flops",
            ],
        ),
        frame(
            inference,
            [
                *WHEN,
                "workload",
                "role",
                "hardware",
                "site",
                "units",
                "tokens_per_s_per_unit",
                "tokens_per_day",
            ],
        ),
    )


def utilisation_table(
    d: ModelData,
    fleet: pd.DataFrame,
    rentals: pd.DataFrame,
    train: pd.DataFrame,
    inf: pd.DataFrame,
    commitments: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Units, units available for work and units assigned, per hardware, site and period.

    The rented place's units are the on-demand rentals plus the committed units running
    (``commitments``, the procurement table, when the scenario offers commitments)."""
    keys = [*WHEN, "hardware", "site"]
    owned = fleet.groupby(keys, as_index=False)["units"].sum()
    owned["available_units"] = owned["units"] * d.availability
    parts = [p for p in (rentals, commitments) if p is not None and not p.empty]
    pooled = pd.concat([p[[*WHEN, "hardware", "units"]] for p in parts]) if parts else rentals
    pooled = pooled[[*WHEN, "hardware", "units"]]
    rented = pooled.groupby([*WHEN, "hardware"], as_index=False, sort=False)["units"].sum()
    rented = rented.assign(site=RENTED)
    rented["available_units"] = rented["units"]
    capacity = pd.concat([owned, rented], ignore_index=True)
    assigned = pd.concat([train[[*keys, "units"]], inf[[*keys, "units"]]], ignore_index=True)
    assigned = assigned.groupby(keys, as_index=False)["units"].sum()
    out = capacity.merge(assigned.rename(columns={"units": "assigned_units"}), on=keys, how="outer")
    out[["units", "available_units", "assigned_units"]] = out[
        ["units", "available_units", "assigned_units"]
    ].fillna(0.0)
    avail = out["available_units"].where(out["available_units"] > 0)
    out["utilisation"] = (out["assigned_units"] / avail).fillna(0.0)
    order = out["period"].map({p.name: p.index for p in d.periods})
    out = out.assign(_order=order).sort_values(["_order", "hardware", "site"], ignore_index=True)
    columns = [*keys, "units", "available_units", "assigned_units"]
    return out[[*columns, "utilisation"]]


def served_table(d: ModelData, sol: Solution, inf: pd.DataFrame) -> pd.DataFrame:
    capacity: dict[tuple[str, str], float] = defaultdict(float)
    prefill: dict[tuple[str, str], float] = defaultdict(float)
    for row in inf.itertuples(index=False):
        target = prefill if row.role == "prefill" else capacity
        target[(row.workload, row.period)] += row.tokens_per_day
    rows = []
    for w, t in d.demand_index:
        per_day = d.demand_tokens_per_day[(w, t)]
        p2a = d.peak_to_average[w]
        unmet_peak = sol.unmet_inf.get((w, t), 0.0) * MTOK
        length = d.period_length[t]
        # the load shape's lost average tokens/day (planner.economics.load_shape)
        unmet_tokens = tokens_over_years(sol.lost_inf.get((w, t), 0.0) * MTOK, length)
        peak = d.demand_peak[(w, t, "output")] * MTOK
        rows.append(
            {
                **when(d, t),
                "workload": w,
                "tokens_per_day": per_day,
                "peak_to_average": p2a,
                "peak_tokens_per_day": peak,
                "peak_tokens_per_day_at_end": peak * d.demand_end_share.get((w, t), 1.0),
                "capacity_tokens_per_day": capacity[(w, str(t))],
                "prefill_tokens_per_output_token": d.prefill_ratio[w],
                "prefill_capacity_tokens_per_day": prefill[(w, str(t))],
                "unmet_peak_tokens_per_day": unmet_peak,
                "unmet_share": unmet_peak / peak if peak > 0 else 0.0,
                "served_tokens": max(tokens_over_years(per_day, length) - unmet_tokens, 0.0),
                "length_years": length,
                "unmet_tokens": unmet_tokens,
                "penalty_usd_per_mtok": d.penalty_usd_per_mtok,
                "penalty_usd": unmet_tokens / MTOK * d.penalty_usd_per_mtok,
            }
        )
    return frame(rows, SERVED_COLUMNS)


SERVED_COLUMNS = [
    *WHEN,
    "workload",
    "tokens_per_day",
    "peak_to_average",
    "peak_tokens_per_day",
    "peak_tokens_per_day_at_end",
    "capacity_tokens_per_day",
    "prefill_tokens_per_output_token",
    "prefill_capacity_tokens_per_day",
    "unmet_peak_tokens_per_day",
    "unmet_share",
    "served_tokens",
    "length_years",
    "unmet_tokens",
    "penalty_usd_per_mtok",
    "penalty_usd",
]
TRAINING_COLUMNS = [
    "run",
    "window_start",
    "window_end",
    "flops_required",
    "flops_done",
    "unmet_flops",
    "completion",
    "hardware",
    "site",
    "first_period",
    "finish_period",
    "first_year",
    "finish_year",
    "penalty_period",
    "penalty_year",
    "penalty_usd_per_pflop",
    "penalty_usd",
    *SCHEDULE_COLUMNS,
]


def training_table(d: ModelData, sol: Solution, train: pd.DataFrame) -> pd.DataFrame:
    """One row per run; the window in years, when it ran in periods and years."""
    rows = []
    position = {p.name: p.index for p in d.periods}
    schedules = run_schedules(d, sol)
    for r in d.runs:
        mine = train[train["run"] == r]
        required = d.train_zflop[r] * ZFLOP
        unmet = sol.unmet_train.get(r, 0.0) * ZFLOP
        chosen = mine.groupby(["hardware", "site"])["flops"].sum()
        hardware, site = chosen.idxmax() if len(chosen) else ("", "")
        ran = sorted(mine["period"], key=position.__getitem__)
        penalty = d.train_penalty_period[r]
        rows.append(
            {
                "run": r,
                "window_start": d.train_window_years[r][0],
                "window_end": d.train_window_years[r][1],
                "flops_required": required,
                "flops_done": float(mine["flops"].sum()),
                "unmet_flops": unmet,
                "completion": 1.0 - unmet / required if required > 0 else 1.0,
                "hardware": hardware,
                "site": site,
                "first_period": ran[0] if ran else None,
                "finish_period": ran[-1] if ran else None,
                "first_year": int(mine["year"].min()) if len(mine) else None,
                "finish_year": int(mine["year"].max()) if len(mine) else None,
                "penalty_period": str(penalty),
                "penalty_year": d.period(penalty).year,
                "penalty_usd_per_pflop": d.penalty_usd_per_pflop,
                "penalty_usd": unmet / PFLOP * d.penalty_usd_per_pflop,
                **schedules[r],
            }
        )
    return frame(rows, TRAINING_COLUMNS)
