"""The plan an optimisation produced: tidy long DataFrames, headline figures, diagnosis.

A :class:`Plan` is plain data (pandas and Python scalars): nothing here or above
touches Pyomo. Each table carries the rates it was computed from (prices, per-unit
costs, throughputs), so the independent checker (:mod:`planner.optimize.checker`)
and a spreadsheet can recompute every constraint and the objective from the tables
alone. Money is USD; ``_pv`` columns are present values at the start of the horizon.
Tokens are output tokens unless a column says ``prefill``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from planner.economics import capital_recovery_factor
from planner.optimize.data import (
    DAYS_PER_YEAR,
    MTOK,
    RENTED,
    SECONDS_PER_DAY,
    SECONDS_PER_YEAR,
    USD_SCALE,
    ZFLOP,
    ModelData,
)
from planner.optimize.extract import Solution

PFLOP = 1e15
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
    "usd_per_mtok": "USD per million output tokens served (annualised capital cost)",
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


def periods_table(d: ModelData) -> pd.DataFrame:
    return _frame(
        [
            {
                "year": p.label,
                "start_year": p.start,
                "length_years": p.length_years,
                "discount_factor": d.discount_factor[p.label],
            }
            for p in d.periods
        ],
        ["year", "start_year", "length_years", "discount_factor"],
    )


def purchases_table(d: ModelData, sol: Solution) -> pd.DataFrame:
    rows = []
    for (h, s, v), units in sorted(sol.buy.items(), key=lambda kv: (kv[0][2], kv[0][0])):
        price = d.price_usd[(h, v)]
        fraction = d.residual_fraction[(h, v)]
        rows.append(
            {
                "year": v,
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
            "year",
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
    "year",
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
    """Owned units by period and vintage (purchase year, or install year of existing)."""
    rows = []

    def row(h: str, s: str, t: int, origin: str, vintage: int, units: float, base: float):
        length = d.period_length[t]
        energy = d.energy_usd_per_unit_year[(h, s, t)]
        facility = d.facility_usd_per_unit_year[(h, s, t)]
        maintenance = d.maintenance_fraction * base
        rows.append(
            {
                "year": t,
                "hardware": h,
                "site": s,
                "origin": origin,
                "vintage": vintage,
                "units": units,
                "accelerators": units * d.accelerators[h],
                "power_kw_per_unit": d.power_kw[h],
                "pue": d.pue[s],
                "facility_mw": units * d.power_kw[h] * d.pue[s] / 1000.0,
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
            "year": t,
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
    columns = ["year", "hardware", "units", "accelerators", "usd_per_unit_year"]
    return _frame(rows, [*columns, "max_units", "length_years", "cost_usd"])


def assignment_tables(d: ModelData, sol: Solution) -> tuple[pd.DataFrame, pd.DataFrame]:
    train = []
    for (r, h, s, t), units in sol.x_train.items():
        per_s = d.train_flops_per_s[(r, h)]
        seconds = SECONDS_PER_YEAR * d.period_length[t]
        train.append(
            {
                "year": t,
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
    for (w, role, h, s, t), units in sol.x_inf.items():
        tps = d.inf_tokens_per_s[(w, role, h)]
        inference.append(
            {
                "year": t,
                "workload": w,
                "role": role,
                "hardware": h,
                "site": s,
                "units": units,
                "tokens_per_s_per_unit": tps,
                "tokens_per_day": units * tps * SECONDS_PER_DAY,
            }
        )
    return (
        _frame(
            train,
            [
                "year",
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
                "year",
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
    """Units, units available for work and units assigned, per hardware, site and year."""
    owned = fleet.groupby(["year", "hardware", "site"], as_index=False)["units"].sum()
    owned["available_units"] = owned["units"] * d.availability
    rented = rentals[["year", "hardware", "units"]].assign(site=RENTED)
    rented["available_units"] = rented["units"]
    capacity = pd.concat([owned, rented], ignore_index=True)
    assigned = pd.concat(
        [train[["year", "hardware", "site", "units"]], inf[["year", "hardware", "site", "units"]]],
        ignore_index=True,
    )
    assigned = assigned.groupby(["year", "hardware", "site"], as_index=False)["units"].sum()
    out = capacity.merge(
        assigned.rename(columns={"units": "assigned_units"}),
        on=["year", "hardware", "site"],
        how="outer",
    )
    out[["units", "available_units", "assigned_units"]] = out[
        ["units", "available_units", "assigned_units"]
    ].fillna(0.0)
    avail = out["available_units"].where(out["available_units"] > 0)
    out["utilisation"] = (out["assigned_units"] / avail).fillna(0.0)
    columns = ["year", "hardware", "site", "units", "available_units", "assigned_units"]
    return out[[*columns, "utilisation"]].sort_values(
        ["year", "hardware", "site"], ignore_index=True
    )


def served_table(d: ModelData, sol: Solution, inf: pd.DataFrame) -> pd.DataFrame:
    capacity: dict[tuple[str, int], float] = defaultdict(float)
    prefill: dict[tuple[str, int], float] = defaultdict(float)
    for row in inf.itertuples(index=False):
        target = prefill if row.role == "prefill" else capacity
        target[(row.workload, row.year)] += row.tokens_per_day
    rows = []
    for w, t in d.demand_index:
        per_day = d.demand_tokens_per_day[(w, t)]
        p2a = d.peak_to_average[w]
        unmet_peak = sol.unmet_inf.get((w, t), 0.0) * MTOK
        length = d.period_length[t]
        unmet_tokens = unmet_peak / p2a * DAYS_PER_YEAR * length
        rows.append(
            {
                "year": t,
                "workload": w,
                "tokens_per_day": per_day,
                "peak_to_average": p2a,
                "peak_tokens_per_day": per_day * p2a,
                "capacity_tokens_per_day": capacity[(w, t)],
                "prefill_tokens_per_output_token": d.prefill_ratio[w],
                "prefill_capacity_tokens_per_day": prefill[(w, t)],
                "unmet_peak_tokens_per_day": unmet_peak,
                "unmet_share": unmet_peak / (per_day * p2a) if per_day > 0 else 0.0,
                "served_tokens": (per_day * p2a - unmet_peak) / p2a * DAYS_PER_YEAR * length,
                "length_years": length,
                "unmet_tokens": unmet_tokens,
                "penalty_usd_per_mtok": d.penalty_usd_per_mtok,
                "penalty_usd": unmet_tokens / MTOK * d.penalty_usd_per_mtok,
            }
        )
    return _frame(rows, SERVED_COLUMNS)


SERVED_COLUMNS = [
    "year",
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
    "first_year",
    "finish_year",
    "penalty_year",
    "penalty_usd_per_pflop",
    "penalty_usd",
]


def training_table(d: ModelData, sol: Solution, train: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in d.runs:
        mine = train[train["run"] == r]
        required = d.train_zflop[r] * ZFLOP
        unmet = sol.unmet_train.get(r, 0.0) * ZFLOP
        chosen = mine.groupby(["hardware", "site"])["flops"].sum()
        hardware, site = chosen.idxmax() if len(chosen) else ("", "")
        rows.append(
            {
                "run": r,
                "window_start": d.train_window[r][0],
                "window_end": d.train_window[r][1],
                "flops_required": required,
                "flops_done": float(mine["flops"].sum()),
                "unmet_flops": unmet,
                "completion": 1.0 - unmet / required if required > 0 else 1.0,
                "hardware": hardware,
                "site": site,
                "first_year": int(mine["year"].min()) if len(mine) else None,
                "finish_year": int(mine["year"].max()) if len(mine) else None,
                "penalty_year": d.train_penalty_period[r],
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
    power_used = fleet.groupby(["year", "site"])["facility_mw"].sum()
    power = []
    for (s, t), cap in d.power_cap_mw.items():
        used = float(power_used.get((t, s), 0.0))
        unit_mw = [
            d.power_kw[h] * d.pue[s] / 1000 for h, site in d.period_buys.get(t, ()) if site == s
        ]
        room = tiny * cap if d.relax else max(_smallest(unit_mw, 0.0), tiny * cap)
        power.append(
            {
                "year": t,
                "site": s,
                "used_mw": used,
                "cap_mw": cap,
                "slack_mw": cap - used,
                "binding": bool(cap - used < room),
            }
        )
    spend = purchases.groupby("year")["capex_usd"].sum()
    budget = []
    for t in d.labels:
        limit = d.budget_usd.get(t, float("nan"))
        capex = float(spend.get(t, 0.0))
        prices = [d.price_usd[(h, t)] for h, _ in d.period_buys.get(t, ())]
        room = tiny * limit if d.relax else max(_smallest(prices, 0.0), tiny * limit)
        budget.append(
            {
                "year": t,
                "capex_usd": capex,
                "budget_usd": limit,
                "slack_usd": limit - capex,
                "binding": bool(t in d.budget_usd and limit - capex < room),
            }
        )
    bought = purchases.groupby(["year", "hardware"])["units"].sum()
    supply = []
    for (h, t), cap in d.supply_max_units.items():
        units = float(bought.get((t, h), 0.0))
        room = tiny * cap if d.relax else max(1.0, tiny * cap)
        supply.append(
            {
                "year": t,
                "hardware": h,
                "units_bought": units,
                "max_units": cap,
                "binding": bool(cap - units < room),
            }
        )
    share = []
    owned = fleet.assign(vendor=fleet["hardware"].map(d.vendor))
    for t in d.labels:
        here = owned[owned["year"] == t]
        total = float(here["accelerators"].sum())
        for v, cap in d.vendor_share_max.items():
            mine = float(here.loc[here["vendor"] == v, "accelerators"].sum())
            share.append(
                {
                    "year": t,
                    "vendor": v,
                    "accelerators": mine,
                    "fleet_accelerators": total,
                    "share": mine / total if total else 0.0,
                    "max_share": cap,
                    "binding": bool(total > 0 and mine > 0 and mine / total > cap - tiny),
                }
            )
    return {
        "power": _frame(power, ["year", "site", "used_mw", "cap_mw", "slack_mw", "binding"]),
        "budget": _frame(budget, ["year", "capex_usd", "budget_usd", "slack_usd", "binding"]),
        "supply": _frame(supply, ["year", "hardware", "units_bought", "max_units", "binding"]),
        "vendor_share": _frame(
            share,
            [
                "year",
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
    """Cash cost by year and category, undiscounted and present value.

    Residual value is a negative cost booked in the last year with the horizon-end
    discount factor; training penalties are booked in the run's last window year.
    """
    amounts: dict[tuple[int, str], float] = defaultdict(float)
    for t, usd in purchases.groupby("year")["capex_usd"].sum().items():
        amounts[(int(t), "capex")] += float(usd)
    for t, usd in rentals.groupby("year")["cost_usd"].sum().items():
        amounts[(int(t), "rent")] += float(usd)
    for category in ("energy", "facility", "maintenance"):
        for t, usd in fleet.groupby("year")[f"{category}_usd"].sum().items():
            amounts[(int(t), category)] += float(usd)
    for t, usd in served.groupby("year")["penalty_usd"].sum().items():
        amounts[(int(t), "penalty_unmet_inference")] += float(usd)
    for t, usd in training.groupby("penalty_year")["penalty_usd"].sum().items():
        amounts[(int(t), "penalty_unmet_training")] += float(usd)
    last = d.labels[-1]
    amounts[(last, "residual")] -= float(purchases["residual_usd"].sum())
    rows = []
    for t in d.labels:
        for category in COST_CATEGORIES:
            usd = amounts.get((t, category), 0.0)
            factor = d.discount_factor_end if category == "residual" else d.discount_factor[t]
            rows.append(
                {
                    "year": t,
                    "category": category,
                    "usd": usd,
                    "discount_factor": factor,
                    "usd_pv": usd * factor,
                }
            )
    return _frame(rows, ["year", "category", "usd", "discount_factor", "usd_pv"])


def usd_per_mtok_table(
    d: ModelData, sol: Solution, fleet: pd.DataFrame, served: pd.DataFrame
) -> pd.DataFrame:
    """Realised cost per Mtok served, per workload and year.

    Each unit assigned to a workload (divided by availability, to carry its share of
    spares) is charged its annualised cost: capital recovery of its vintage's price
    (wacc, lifetime) plus energy, facility and maintenance; rented units their rent.
    Divided by the Mtok actually served in the year. Cash capex is lumpy, so this uses
    capital recovery — the $/Mtok an operator would quote.
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
            else d.existing_price_usd[(row.hardware, row.site, row.vintage)]
        )
        crf = capital_recovery_factor(d.wacc, d.lifetime_years[row.hardware])
        capital.append(row.units * price * crf)
    fleet = fleet.assign(
        annual=fleet["annual"] + pd.Series(capital, index=fleet.index, dtype=float)
    )
    grouped = fleet.groupby(["hardware", "site", "year"])[["annual", "units"]].sum()
    per_unit = (grouped["annual"] / grouped["units"]).to_dict()
    cost: dict[tuple[str, int], float] = defaultdict(float)
    for (w, _, h, s, t), units in sol.x_inf.items():
        if s == RENTED:
            rate = d.rent_usd_per_unit_year[(h, t)]
            cost[(w, t)] += units * rate * d.period_length[t]
        else:
            rate = per_unit.get((h, s, t), 0.0)
            cost[(w, t)] += units / d.availability * rate * d.period_length[t]
    rows = []
    for row in served.itertuples(index=False):
        mtok = row.served_tokens / MTOK
        usd = cost.get((row.workload, row.year), 0.0)
        rows.append(
            {
                "year": row.year,
                "workload": row.workload,
                "served_mtok": mtok,
                "cost_usd": usd,
                "usd_per_mtok": usd / mtok if mtok > 0 else float("nan"),
            }
        )
    return _frame(rows, ["year", "workload", "served_mtok", "cost_usd", "usd_per_mtok"])


SHADOW_COLUMNS = [
    "limit",
    "year",
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
    for (s, t), dual in sorted(duals.get("power", {}).items(), key=lambda kv: (kv[0][1], kv[0][0])):
        value = -dual * USD_SCALE
        rows.append(
            {
                "limit": "power",
                "year": t,
                "subject": s,
                "value": value,
                "unit": "USD (PV) per MW",
                "value_in_year_usd": value / df[t],
                "method": LP,
                "meaning": f"cost saved by 1 MW more facility power at {s} in {t} (that year only)",
            }
        )
    for t, dual in sorted(duals.get("budget", {}).items()):
        rows.append(
            {
                "limit": "budget",
                "year": t,
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
                "year": t,
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
                "year": t,
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
    train, inf = assignment_tables(d, sol)
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
        "usd_per_mtok": usd_per_mtok_table(d, sol, fleet, served),
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
