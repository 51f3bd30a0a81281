"""The plan an optimisation produced: tidy long DataFrames, headline figures, diagnosis.

A :class:`Plan` is plain data (pandas and Python scalars): nothing here or above
touches Pyomo. Each table carries the rates it was computed from (prices, per-unit
costs, throughputs), so the independent checker (:mod:`planner.optimize.checker`)
and a spreadsheet can recompute every constraint and the objective from the tables
alone. Money is USD; ``_pv`` columns are present values at the start of the horizon.
Tokens are output tokens unless a column says ``prefill``.

Every table indexed by time has a ``period`` column (the period label as text: ``2027``
for yearly plans, ``2027Q3`` for quarterly ones, see :mod:`planner.scenario.periods`)
and a ``year`` column (the calendar year), so any table rolls up to years with a
group-by on ``year``: flows (costs, purchases, tokens) add up; stocks (units, MW) are
read at the year's last period (:func:`fleet_by_year`). ``costs_by_year`` is the costs
table rolled up to years.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from planner.economics import (
    ANNUITY_CAPITAL,
    CASH_CAPITAL,
    capital_recovery_factor,
    facility_mw_per_unit,
    maintenance_usd_per_unit_year,
    tokens_over_years,
    tokens_per_day,
)
from planner.optimize.data import ModelData, PeriodLabel
from planner.optimize.extract import Solution
from planner.units import (
    DAYS_PER_YEAR,
    MTOK,
    PFLOP,
    RENTED,
    SECONDS_PER_YEAR,
    USD_SCALE,
    ZFLOP,
)

BINDING_SHARE = 1e-3
"""A limit with less than this share of room left is reported as binding."""
TABLE_UNITS: dict[str, str] = {
    "periods": "discount factor: present value of 1 USD booked at the period start",
    "purchases": "units; USD",
    "fleet": "units by vintage; MW of facility power; USD per unit-year",
    "rentals": "units (accelerators / accelerators per unit); USD",
    "assignment_training": "units; FLOP",
    "assignment_inference": "units; tokens/s and tokens/day",
    "utilisation": "units; share of available units assigned",
    "served": "tokens/day (output); USD",
    "training": "FLOP; USD",
    "power": "MW of facility power (IT × PUE)",
    "budget": "USD",
    "supply": "units",
    "vendor_share": "accelerators; share of owned accelerators",
    "costs": "USD; usd_pv is discounted to the horizon start",
    "costs_by_year": "USD; the costs table summed over each year's periods",
    "usd_per_mtok": f"USD per million output tokens served; capital: {ANNUITY_CAPITAL}",
    "shadow_prices": "see the unit column",
}


@dataclass(frozen=True)
class Plan:
    """Everything a solve produced, as tables and figures (see ``TABLE_UNITS``)."""

    scenario: str
    status: str
    headline: dict[str, Any]
    tables: dict[str, pd.DataFrame]
    diagnosis: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    """Scalars the tables do not repeat per row (availability, penalties, …)."""

    def __getattr__(self, name: str) -> pd.DataFrame:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(name)

    def to_json(self) -> dict[str, Any]:
        """The plan as one JSON-ready document (NaN becomes null on output)."""
        return {
            "scenario": self.scenario,
            "status": self.status,
            "headline": self.headline,
            "diagnosis": self.diagnosis,
            "parameters": self.parameters,
            "tables": {
                name: frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
                for name, frame in self.tables.items()
            },
        }


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns)


WHEN = ["period", "year"]
"""The time columns every period-indexed table starts with."""


def _when(d: ModelData, t: PeriodLabel) -> dict[str, Any]:
    """``{"period": label as text, "year": calendar year}`` of period ``t``."""
    return {"period": str(t), "year": d.period(t).year}


def _vintage(d: ModelData, label: PeriodLabel | int) -> PeriodLabel | int:
    """A vintage as tables show it: the year for yearly plans, else text (a purchase
    period such as ``2027Q3``, or the install year of an existing cohort)."""
    return label if d.periods_per_year == 1 else str(label)


def periods_table(d: ModelData) -> pd.DataFrame:
    return _frame(
        [
            {
                "period": p.name,
                "year": p.year,
                "start_year": p.start,
                "length_years": p.length_years,
                "discount_factor": d.discount_factor[p.label],
            }
            for p in d.periods
        ],
        [*WHEN, "start_year", "length_years", "discount_factor"],
    )


def purchases_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    rows = []
    position = {p.label: p.index for p in d.periods}
    for (h, s, v), units in sorted(sol.buy.items(), key=lambda kv: (position[kv[0][2]], kv[0][0])):
        price = d.price_usd[(h, v)]
        fraction = d.residual_fraction[(h, v)]
        rows.append(
            {
                **_when(d, v),
                "hardware": h,
                "site": s,
                "units": units,
                "price_usd": price,
                "capex_usd": units * price,
                "lifetime_years": d.lifetime_years[h],
                "residual_fraction": fraction,
                "residual_usd": units * price * fraction,
            }
        )
    return _frame(
        rows,
        [
            *WHEN,
            "hardware",
            "site",
            "units",
            "price_usd",
            "capex_usd",
            "lifetime_years",
            "residual_fraction",
            "residual_usd",
        ],
    )


FLEET_COLUMNS = [
    *WHEN,
    "hardware",
    "site",
    "origin",
    "vintage",
    "units",
    "accelerators",
    "power_kw_per_unit",
    "pue",
    "facility_mw",
    "energy_usd_per_unit_year",
    "facility_usd_per_unit_year",
    "maintenance_usd_per_unit_year",
    "length_years",
    "energy_usd",
    "facility_usd",
    "maintenance_usd",
]


def fleet_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    """Owned units by period and vintage (purchase period, or install year of existing)."""
    rows = []

    def row(h: str, s: str, t: PeriodLabel, origin: str, vintage: Any, units: float, base: float):
        length = d.period_length[t]
        energy = d.energy_usd_per_unit_year[(h, s, t)]
        facility = d.facility_usd_per_unit_year[(h, s, t)]
        maintenance = maintenance_usd_per_unit_year(base, d.maintenance_fraction)
        rows.append(
            {
                **_when(d, t),
                "hardware": h,
                "site": s,
                "origin": origin,
                "vintage": _vintage(d, vintage),
                "units": units,
                "accelerators": units * d.accelerators[h],
                "power_kw_per_unit": d.power_kw[h],
                "pue": d.pue[s],
                "facility_mw": units * facility_mw_per_unit(d.power_kw[h], d.pue[s]),
                "energy_usd_per_unit_year": energy,
                "facility_usd_per_unit_year": facility,
                "maintenance_usd_per_unit_year": maintenance,
                "length_years": length,
                "energy_usd": units * energy * length,
                "facility_usd": units * facility * length,
                "maintenance_usd": units * maintenance * length,
            }
        )

    for h, s, t in d.fleet_index:
        for v in d.vintages_alive.get((h, s, t), ()):
            units = sol.buy.get((h, s, v), 0.0)
            if units:
                row(h, s, t, "purchased", v, units, d.price_usd[(h, v)])
        for i in d.cohorts_alive.get((h, s, t), ()):
            units = sol.kept.get((h, s, i, t), 0.0)
            if units:
                row(h, s, t, "existing", i, units, d.existing_price_usd[(h, s, i)])
    return _frame(rows, FLEET_COLUMNS)


def rentals_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    rows = [
        {
            **_when(d, t),
            "hardware": h,
            "units": units,
            "accelerators": units * d.accelerators[h],
            "usd_per_unit_year": d.rent_usd_per_unit_year[(h, t)],
            "max_units": d.rent_max_units.get((h, t), float("nan")),
            "length_years": d.period_length[t],
            "cost_usd": units * d.rent_usd_per_unit_year[(h, t)] * d.period_length[t],
        }
        for (h, t), units in sol.rent.items()
    ]
    columns = [*WHEN, "hardware", "units", "accelerators", "usd_per_unit_year"]
    return _frame(rows, [*columns, "max_units", "length_years", "cost_usd"])


def inference_by_place(d: ModelData, sol: Solution) -> dict[tuple, float]:
    """The model's inference assignments (units of h serving w in t, wherever they are)
    split into places: (w, role, h, s, t) → units.

    Inference is not tied to a site in the model: any plan splits into places by giving
    each place's spare units (available units minus its training) to inference. This
    fills the places in order — the sites in scenario order, then rentals — workload by
    workload; another split would be as valid, and cost the same.
    """
    installed: dict[tuple, float] = defaultdict(float)
    for (h, s, t), vintages in d.vintages_alive.items():
        installed[(h, s, t)] += sum(sol.buy.get((h, s, v), 0.0) for v in vintages)
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
        spare = [
            max(
                0.0,
                (
                    sol.rent.get((h, t), 0.0)
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
    for (r, h, s, t), units in sol.x_train.items():
        per_s = d.train_flops_per_s[(r, h)]
        seconds = SECONDS_PER_YEAR * d.period_length[t]
        train.append(
            {
                **_when(d, t),
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
                **_when(d, t),
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
        _frame(
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
        _frame(
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
    d: ModelData, fleet: pd.DataFrame, rentals: pd.DataFrame, train: pd.DataFrame, inf: pd.DataFrame
) -> pd.DataFrame:
    """Units, units available for work and units assigned, per hardware, site and period."""
    keys = [*WHEN, "hardware", "site"]
    owned = fleet.groupby(keys, as_index=False)["units"].sum()
    owned["available_units"] = owned["units"] * d.availability
    rented = rentals[[*WHEN, "hardware", "units"]].assign(site=RENTED)
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
        unmet_tokens = tokens_over_years(unmet_peak / p2a, length)
        rows.append(
            {
                **_when(d, t),
                "workload": w,
                "tokens_per_day": per_day,
                "peak_to_average": p2a,
                "peak_tokens_per_day": per_day * p2a,
                "capacity_tokens_per_day": capacity[(w, str(t))],
                "prefill_tokens_per_output_token": d.prefill_ratio[w],
                "prefill_capacity_tokens_per_day": prefill[(w, str(t))],
                "unmet_peak_tokens_per_day": unmet_peak,
                "unmet_share": unmet_peak / (per_day * p2a) if per_day > 0 else 0.0,
                "served_tokens": tokens_over_years((per_day * p2a - unmet_peak) / p2a, length),
                "length_years": length,
                "unmet_tokens": unmet_tokens,
                "penalty_usd_per_mtok": d.penalty_usd_per_mtok,
                "penalty_usd": unmet_tokens / MTOK * d.penalty_usd_per_mtok,
            }
        )
    return _frame(rows, SERVED_COLUMNS)


SERVED_COLUMNS = [
    *WHEN,
    "workload",
    "tokens_per_day",
    "peak_to_average",
    "peak_tokens_per_day",
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
]


def training_table(d: ModelData, sol: Solution, train: pd.DataFrame) -> pd.DataFrame:
    """One row per run; the window in years, when it ran in periods and years."""
    rows = []
    position = {p.name: p.index for p in d.periods}
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
            }
        )
    return _frame(rows, TRAINING_COLUMNS)


def _smallest(values: list[float], default: float) -> float:
    return min(values) if values else default


def limits_tables(
    d: ModelData, purchases: pd.DataFrame, fleet: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """Power, budget, supply and vendor-share use against their limits.

    A limit *binds* when the room left is under ``BINDING_SHARE`` of the limit or less
    than one more unit would need (the smallest unit buyable there and then; purchases
    are whole units); relaxed plans use the share alone.
    """
    tiny = BINDING_SHARE
    power_used = fleet.groupby(["period", "site"])["facility_mw"].sum()
    power = []
    for (s, t), cap in d.power_cap_mw.items():
        used = float(power_used.get((str(t), s), 0.0))
        unit_mw = [
            facility_mw_per_unit(d.power_kw[h], d.pue[s])
            for h, site in d.period_buys.get(t, ())
            if site == s
        ]
        room = tiny * cap if d.relax else max(_smallest(unit_mw, 0.0), tiny * cap)
        power.append(
            {
                **_when(d, t),
                "site": s,
                "used_mw": used,
                "cap_mw": cap,
                "slack_mw": cap - used,
                "binding": bool(cap - used < room),
            }
        )
    spend = purchases.groupby("period")["capex_usd"].sum()
    budget = []
    for t in d.labels:
        limit = d.budget_usd.get(t, float("nan"))
        capex = float(spend.get(str(t), 0.0))
        prices = [d.price_usd[(h, t)] for h, _ in d.period_buys.get(t, ())]
        room = tiny * limit if d.relax else max(_smallest(prices, 0.0), tiny * limit)
        budget.append(
            {
                **_when(d, t),
                "capex_usd": capex,
                "budget_usd": limit,
                "slack_usd": limit - capex,
                "binding": bool(t in d.budget_usd and limit - capex < room),
            }
        )
    bought = purchases.groupby(["period", "hardware"])["units"].sum()
    supply = []
    for (h, t), cap in d.supply_max_units.items():
        units = float(bought.get((str(t), h), 0.0))
        room = tiny * cap if d.relax else max(1.0, tiny * cap)
        supply.append(
            {
                **_when(d, t),
                "hardware": h,
                "units_bought": units,
                "max_units": cap,
                "binding": bool(cap - units < room),
            }
        )
    share = []
    owned = fleet.assign(vendor=fleet["hardware"].map(d.vendor))
    by_period = dict(tuple(owned.groupby("period")))
    for t in d.labels:
        here = by_period.get(str(t), owned.iloc[:0])
        total = float(here["accelerators"].sum())
        for v, cap in d.vendor_share_max.items():
            mine = float(here.loc[here["vendor"] == v, "accelerators"].sum())
            share.append(
                {
                    **_when(d, t),
                    "vendor": v,
                    "accelerators": mine,
                    "fleet_accelerators": total,
                    "share": mine / total if total else 0.0,
                    "max_share": cap,
                    "binding": bool(total > 0 and mine > 0 and mine / total > cap - tiny),
                }
            )
    return {
        "power": _frame(power, [*WHEN, "site", "used_mw", "cap_mw", "slack_mw", "binding"]),
        "budget": _frame(budget, [*WHEN, "capex_usd", "budget_usd", "slack_usd", "binding"]),
        "supply": _frame(supply, [*WHEN, "hardware", "units_bought", "max_units", "binding"]),
        "vendor_share": _frame(
            share,
            [
                *WHEN,
                "vendor",
                "accelerators",
                "fleet_accelerators",
                "share",
                "max_share",
                "binding",
            ],
        ),
    }


COST_CATEGORIES = (
    "capex",
    "rent",
    "energy",
    "facility",
    "maintenance",
    "residual",
    "penalty_unmet_inference",
    "penalty_unmet_training",
)


def costs_table(
    d: ModelData,
    purchases: pd.DataFrame,
    fleet: pd.DataFrame,
    rentals: pd.DataFrame,
    served: pd.DataFrame,
    training: pd.DataFrame,
) -> pd.DataFrame:
    """Cash cost by period and category, undiscounted and present value.

    Residual value is a negative cost booked in the last period with the horizon-end
    discount factor; training penalties are booked in the run's last window period.
    """
    amounts: dict[tuple[str, str], float] = defaultdict(float)
    for t, usd in purchases.groupby("period")["capex_usd"].sum().items():
        amounts[(str(t), "capex")] += float(usd)
    for t, usd in rentals.groupby("period")["cost_usd"].sum().items():
        amounts[(str(t), "rent")] += float(usd)
    for category in ("energy", "facility", "maintenance"):
        for t, usd in fleet.groupby("period")[f"{category}_usd"].sum().items():
            amounts[(str(t), category)] += float(usd)
    for t, usd in served.groupby("period")["penalty_usd"].sum().items():
        amounts[(str(t), "penalty_unmet_inference")] += float(usd)
    for t, usd in training.groupby("penalty_period")["penalty_usd"].sum().items():
        amounts[(str(t), "penalty_unmet_training")] += float(usd)
    last = d.periods[-1].name
    amounts[(last, "residual")] -= float(purchases["residual_usd"].sum())
    rows = []
    for p in d.periods:
        for category in COST_CATEGORIES:
            usd = amounts.get((p.name, category), 0.0)
            factor = d.discount_factor_end if category == "residual" else d.discount_factor[p.label]
            rows.append(
                {
                    "period": p.name,
                    "year": p.year,
                    "category": category,
                    "usd": usd,
                    "discount_factor": factor,
                    "usd_pv": usd * factor,
                }
            )
    out = _frame(rows, [*WHEN, "category", "usd", "discount_factor", "usd_pv"])
    out.attrs["capital_convention"] = CASH_CAPITAL
    return out


def costs_by_year(costs: pd.DataFrame) -> pd.DataFrame:
    """The costs table rolled up to years: ``usd`` and ``usd_pv`` summed over each
    year's periods (the discount factor differs by period, so it is not repeated)."""
    out = costs.groupby(["year", "category"], as_index=False, sort=False)[["usd", "usd_pv"]].sum()
    return out.sort_values("year", kind="stable", ignore_index=True)


def fleet_by_year(
    fleet: pd.DataFrame, periods: pd.DataFrame, keys: tuple[str, ...] = ("hardware",)
) -> pd.DataFrame:
    """Units owned at each year's end (in its last period), per ``keys``: long format
    with columns ``year``, the keys and ``units``. A stock, so it is read, not summed;
    ``periods`` is the plan's periods table (which period ends each year)."""
    columns = ["year", *keys, "units"]
    year_end = set(periods.groupby("year")["period"].last())
    at_end = fleet[fleet["period"].isin(year_end)]
    if at_end.empty:
        return pd.DataFrame(columns=columns)
    return at_end.groupby(["year", *keys], as_index=False)["units"].sum()[columns]


def usd_per_mtok_table(
    d: ModelData, inference_split: dict[tuple, float], fleet: pd.DataFrame, served: pd.DataFrame
) -> pd.DataFrame:
    """Realised cost per Mtok served, per workload and period.

    Each unit assigned to a workload (divided by availability, to carry its share of
    spares) is charged its annualised cost: capital recovery of its vintage's price
    (wacc, lifetime) plus energy, facility and maintenance; rented units their rent.
    Divided by the Mtok actually served in the period.

    Capital convention: **capital recovery (annuity, wacc, life)**, ``price · CRF``
    each year, as :func:`planner.economics.unit_cost` and ``planner throughput``
    charge it — the $/Mtok an operator would quote. The objective and the costs table
    instead book cash capex at purchase less a straight-line residual value at the
    horizon end (``planner.economics.CASH_CAPITAL``); over a whole life both recover
    the price, but period by period they differ. The table's
    ``attrs["capital_convention"]`` names the convention (``ANNUITY_CAPITAL``).
    """
    fleet = fleet.assign(
        annual=fleet["units"]
        * (
            fleet["energy_usd_per_unit_year"]
            + fleet["facility_usd_per_unit_year"]
            + fleet["maintenance_usd_per_unit_year"]
        )
    )
    capital = []
    for row in fleet.itertuples(index=False):
        price = (
            d.price_usd[(row.hardware, row.vintage)]
            if row.origin == "purchased"
            else d.existing_price_usd[(row.hardware, row.site, int(row.vintage))]
        )
        crf = capital_recovery_factor(d.wacc, d.lifetime_years[row.hardware])
        capital.append(row.units * price * crf)
    fleet = fleet.assign(
        annual=fleet["annual"] + pd.Series(capital, index=fleet.index, dtype=float)
    )
    grouped = fleet.groupby(["hardware", "site", "period"])[["annual", "units"]].sum()
    per_unit = (grouped["annual"] / grouped["units"]).to_dict()
    cost: dict[tuple[str, str], float] = defaultdict(float)
    for (w, _, h, s, t), units in inference_split.items():
        if s == RENTED:
            rate = d.rent_usd_per_unit_year[(h, t)]
            cost[(w, str(t))] += units * rate * d.period_length[t]
        else:
            rate = per_unit.get((h, s, str(t)), 0.0)
            cost[(w, str(t))] += units / d.availability * rate * d.period_length[t]
    rows = []
    for row in served.itertuples(index=False):
        mtok = row.served_tokens / MTOK
        usd = cost.get((row.workload, row.period), 0.0)
        rows.append(
            {
                "period": row.period,
                "year": row.year,
                "workload": row.workload,
                "served_mtok": mtok,
                "cost_usd": usd,
                "usd_per_mtok": usd / mtok if mtok > 0 else float("nan"),
            }
        )
    out = _frame(rows, [*WHEN, "workload", "served_mtok", "cost_usd", "usd_per_mtok"])
    out.attrs["capital_convention"] = ANNUITY_CAPITAL
    return out


SHADOW_COLUMNS = [
    "limit",
    *WHEN,
    "subject",
    "value",
    "unit",
    "value_in_year_usd",
    "method",
    "meaning",
]
LP = "LP relaxation"
FD = "MILP finite difference"


def shadow_price_table(d: ModelData, duals: dict[str, dict[Any, float]] | None) -> pd.DataFrame:
    """Duals of the LP relaxation (purchases continuous) in business terms.

    ``value`` is present-value USD; ``value_in_year_usd`` the same in that year's
    money (divided by the year's discount factor).
    """
    rows: list[dict[str, Any]] = []
    if not duals:
        return _frame(rows, SHADOW_COLUMNS)
    df = d.discount_factor
    span = "year" if d.periods_per_year == 1 else "period"
    for (s, t), dual in sorted(duals.get("power", {}).items(), key=lambda kv: (kv[0][1], kv[0][0])):
        value = -dual * USD_SCALE
        rows.append(
            {
                "limit": "power",
                **_when(d, t),
                "subject": s,
                "value": value,
                "unit": "USD (PV) per MW",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost saved by 1 MW more facility power at {s} in {t} "
                f"(that {span} only)",
            }
        )
    for t, dual in sorted(duals.get("budget", {}).items()):
        rows.append(
            {
                "limit": "budget",
                **_when(d, t),
                "subject": "capex",
                "value": -dual,
                "unit": "USD (PV) per USD",
                "value_in_year_usd": -dual / df[t],
                "method": LP,
                "meaning": f"cost saved by 1 USD more capex budget in {t}",
            }
        )
    for (h, t), dual in sorted(
        duals.get("supply", {}).items(), key=lambda kv: (kv[0][1], kv[0][0])
    ):
        value = -dual * USD_SCALE
        rows.append(
            {
                "limit": "supply",
                **_when(d, t),
                "subject": h,
                "value": value,
                "unit": "USD (PV) per unit",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost saved if one more {h} could be bought in {t}",
            }
        )
    demand = duals.get("demand", {})
    for w, t in d.demand_index:
        dual = demand.get((w, t, "output"), 0.0)
        dual += d.prefill_ratio[w] * demand.get((w, t, "prefill"), 0.0)
        value = dual * d.peak_to_average[w] * USD_SCALE
        rows.append(
            {
                "limit": "demand",
                **_when(d, t),
                "subject": w,
                "value": value,
                "unit": "USD (PV) per Mtok/day",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost of serving 1 Mtok/day more {w} demand through {t} "
                f"(≈ {value / df[t] / (DAYS_PER_YEAR * d.period_length[t]):,.2f} USD per Mtok)",
            }
        )
    return _frame(rows, SHADOW_COLUMNS)


def build_plan(
    d: ModelData,
    sol: Solution,
    *,
    status: str,
    headline: dict[str, Any],
    duals: dict[str, dict[Any, float]] | None = None,
    marginals: pd.DataFrame | None = None,
) -> Plan:
    """Assemble the plan's tables and headline figures (diagnosis added by the caller)."""
    purchases = purchases_table(d, sol)
    fleet = fleet_table(d, sol)
    rentals = rentals_table(d, sol)
    split = inference_by_place(d, sol)
    train, inf = assignment_tables(d, sol, split)
    served = served_table(d, sol, inf)
    training = training_table(d, sol, train)
    limits = limits_tables(d, purchases, fleet)
    costs = costs_table(d, purchases, fleet, rentals, served, training)
    shadow = shadow_price_table(d, duals)
    if marginals is not None and len(marginals):
        shadow = pd.concat([shadow, marginals[SHADOW_COLUMNS]], ignore_index=True)
    tables = {
        "periods": periods_table(d),
        "purchases": purchases,
        "fleet": fleet,
        "rentals": rentals,
        "assignment_training": train,
        "assignment_inference": inf,
        "utilisation": utilisation_table(d, fleet, rentals, train, inf),
        "served": served,
        "training": training,
        **limits,
        "costs": costs,
        "costs_by_year": costs_by_year(costs),
        "usd_per_mtok": usd_per_mtok_table(d, split, fleet, served),
        "shadow_prices": shadow,
    }
    if marginals is not None and len(marginals):
        tables["marginals"] = marginals
    penalty = costs["category"].str.startswith("penalty")
    figures = {
        "npv_cost_usd": float(costs.loc[~penalty, "usd_pv"].sum()),
        "penalties_usd_pv": float(costs.loc[penalty, "usd_pv"].sum()),
        "undiscounted_cost_usd": float(costs.loc[~penalty, "usd"].sum()),
        "capex_usd": float(purchases["capex_usd"].sum()),
        "unmet_inference_tokens": float(served["unmet_tokens"].sum()),
        "unmet_training_flops": float(training["unmet_flops"].sum()),
    }
    parameters = {
        "periods_per_year": d.periods_per_year,
        "availability": d.availability,
        "relax": d.relax,
        "serving": d.serving,
        "wacc": d.wacc,
        "discount_factor_end": d.discount_factor_end,
        "penalty_usd_per_mtok": d.penalty_usd_per_mtok,
        "penalty_usd_per_pflop": d.penalty_usd_per_pflop,
        "vendor_of_hardware": dict(d.vendor),
        "accelerators_per_unit": dict(d.accelerators),
    }
    return Plan(
        scenario=d.scenario_name,
        status=status,
        headline={**headline, **figures},
        tables=tables,
        parameters=parameters,
    )
