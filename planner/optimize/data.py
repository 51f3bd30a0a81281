"""Model data: the sparse index sets and parameter dicts the optimiser is built from.

Everything the Pyomo model needs is computed here, in plain Python and pandas, from a
validated scenario and the performance model's throughput tables. Only combinations
that exist get an index: a hardware type is absent before its release year and from
sites it may not be installed at, a workload × hardware pair that cannot serve is
absent, a run is absent from hardware it cannot train on. Constraint rules then read
these dicts and never scan collections (DESIGN.md section 7).

Periods come from the scenario's horizon (:mod:`planner.scenario.periods`): each has a
label, a start in fractional years and a length in years, and year-indexed inputs reach
them by that module's rules (rates at the period start, levels held, per-year flows
times the period length). Lifetimes, windows and discounting stay in years whatever the
period length. Internal units keep the model well scaled:

* money in USD millions (:data:`planner.units.USD_SCALE`),
* inference demand and throughput in million tokens per day (Mtok/day),
* training work in ZFLOP (1e21 FLOP),
* power in MW of facility load (IT × PUE).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pandas as pd

from planner import deadline
from planner.catalog.schema import HardwareSpec
from planner.economics import (
    discount_factor,
    energy_usd_per_unit_year,
    facility_usd_per_unit_year,
    period_discount_factors,
    rent_usd_per_unit_year,
    residual_fraction,
    site_pue,
    site_rates,
    tokens_per_day,
    unit_price_usd,
)
from planner.errors import InputError, Problem
from planner.perf.workloads import active_years, serving_workloads
from planner.scenario.periods import (
    Period,
    PeriodLabel,
    flow_in,
    level_at,
    periods_alive,
    rate_at,
)
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import HardwareChoice, Scenario
from planner.units import (
    DAYS_PER_YEAR,
    HOURS_PER_YEAR,
    MTOK,
    RENTED,
    SECONDS_PER_YEAR,
    USD_SCALE,
    ZFLOP,
)

Key = tuple[Any, ...]
"""An index tuple: strings for names, period labels (the year for yearly periods, else
e.g. ``"2027Q3"``) and install years (ints)."""

__all__ = [
    # The unit constants stay importable from here for the optimiser's modules.
    "DAYS_PER_YEAR",
    "HOURS_PER_YEAR",
    "MTOK",
    "RENTED",
    "USD_SCALE",
    "Key",
    "ModelData",
    "Period",
    "PeriodLabel",
    "build_data",
]


@dataclass(frozen=True)
class ModelData:
    """Sparse sets and parameters of one optimisation (units in the module docstring).

    Index conventions: ``h`` hardware, ``s`` site (``RENTED`` for rented capacity),
    ``t``/``v`` period labels (``v`` a purchase vintage), ``i`` the install year of an
    existing-fleet cohort, ``r`` a training run, ``w`` a workload, ``role`` one
    of ``serve`` (colocated), ``prefill``, ``decode`` and ``stage`` one of ``output``,
    ``prefill`` (the two demand rows of a workload).
    """

    scenario_name: str
    relax: bool
    serving: str
    periods: tuple[Period, ...]
    periods_per_year: int
    sites: tuple[str, ...]
    hardware: tuple[str, ...]
    runs: tuple[str, ...]
    workloads: tuple[str, ...]
    wacc: float
    availability: float

    # --- decision index sets -------------------------------------------------------
    buy_index: tuple[Key, ...]
    """(h, s, v): purchases allowed (released, allowed at the site, useful)."""
    existing_index: tuple[Key, ...]
    """(h, s, i, t): existing cohort (h, s, installed in year i) still alive in period t."""
    rent_index: tuple[Key, ...]
    """(h, t): rental offered and hardware released."""
    fleet_index: tuple[Key, ...]
    """(h, s, t): owned capacity can exist (some vintage or cohort alive); the index of
    the ``installed`` stock variable, in period order."""
    train_choice_index: tuple[Key, ...]
    """(r, h, s): run r may sit on hardware h at site s (or rented)."""
    train_index: tuple[Key, ...]
    """(r, h, s, t): units of h at s working on run r in period t (inside its window)."""
    inf_index: tuple[Key, ...]
    """(w, role, h, t): units of h serving workload w's role in period t, wherever they
    are (owned at any site or rented): inference is not tied to a site."""
    pool_index: tuple[Key, ...]
    """(h, t): capacity rows pooling every place h works in t (sites and rentals)."""
    site_train_index: tuple[Key, ...]
    """(h, s, t): training capacity rows per place, where h works in more than one place."""
    demand_index: tuple[Key, ...]
    """(w, t): periods in which workload w has demand."""
    demand_rows: tuple[Key, ...]
    """(w, t, stage): demand rows (stage ``output``; plus ``prefill`` when disaggregated)."""

    # --- lookups (who appears in which row) ----------------------------------------
    vintages_alive: dict[Key, tuple[PeriodLabel, ...]]
    """(h, s, t) → purchase periods v whose units are alive in t."""
    cohorts_alive: dict[Key, tuple[int, ...]]
    """(h, s, t) → install years i of the existing cohorts alive in t."""
    previous_period: dict[PeriodLabel, PeriodLabel]
    """t → the period before it (absent for the first)."""
    fleet_balance: dict[
        Key, tuple[Key | None, tuple[Key, ...], tuple[Key, ...], tuple[Key, ...], tuple[Key, ...]]
    ]
    """(h, s, t) → what changes the stock from the period before: the previous
    ``installed`` key (None if nothing was installed), purchases entering and leaving
    service (buy keys), existing cohorts now and before (kept keys)."""
    places: dict[Key, tuple[str, ...]]
    """(h, t) → where h can work in t: sites with owned units, then ``RENTED``."""
    train_at_unit: dict[Key, tuple[str, ...]]
    """(h, s, t) → runs that may use it."""
    pool_train: dict[Key, tuple[Key, ...]]
    """(h, t) → (r, s) training assignments on h in t, at every place."""
    pool_inf: dict[Key, tuple[Key, ...]]
    """(h, t) → (w, role) inference assignments on h in t."""
    train_terms: dict[str, tuple[Key, ...]]
    """r → (h, s, t) assignment keys."""
    supply_terms: dict[Key, tuple[str, ...]]
    """(h, t) → sites where h may be bought in t."""
    demand_terms: dict[Key, tuple[Key, ...]]
    """(w, t, stage) → (role, h) assignment keys."""
    site_fleet: dict[Key, tuple[str, ...]]
    """(s, t) → hardware installed at s in t."""
    period_fleet: dict[PeriodLabel, tuple[Key, ...]]
    """t → (h, s) pairs with owned capacity in t."""
    period_buys: dict[PeriodLabel, tuple[Key, ...]]
    """t → (h, s) pairs buyable in t."""

    # --- parameters ----------------------------------------------------------------
    period_length: dict[PeriodLabel, float]
    discount_factor: dict[PeriodLabel, float]
    """(1 + wacc)^−(start_t − horizon start), start in fractional years: cash flows are
    booked at the period start (2027Q3 of a horizon from 2026: (1 + wacc)^−1.5)."""
    discount_factor_end: float
    """(1 + wacc)^−(horizon length): discounts the residual value at the horizon end."""
    accelerators: dict[str, int]
    power_kw: dict[str, float]
    vendor: dict[str, str]
    lifetime_years: dict[str, int]
    price_usd: dict[Key, float]
    """(h, v) → unit price in period v, USD."""
    residual_fraction: dict[Key, float]
    """(h, v) → share of the price a unit bought in v still holds at the horizon end."""
    existing_units: dict[Key, int]
    """(h, s, i) → units of the existing cohort installed in year i."""
    existing_price_usd: dict[Key, float]
    """(h, s, i) → catalog price of a cohort unit (its maintenance base), USD."""
    pue: dict[str, float]
    energy_usd_per_unit_year: dict[Key, float]
    """(h, s, t) → power_kw · PUE · utilisation · 8760 · $/kWh."""
    facility_usd_per_unit_year: dict[Key, float]
    """(h, s, t) → power_kw · facility $/kW-year."""
    maintenance_fraction: float
    rent_usd_per_unit_year: dict[Key, float]
    """(h, t) → $/accelerator-hour · 8760 · accelerators."""
    rent_max_units: dict[Key, float]
    power_cap_mw: dict[Key, float]
    """(s, t) → facility MW."""
    budget_usd: dict[PeriodLabel, float]
    """t → capex budget for the period, USD: the year's budget · length (absent = unlimited)."""
    supply_max_units: dict[Key, float]
    """(h, t) → most units bought in the period: per-year cap · length (absent = unlimited)."""
    vendor_share_max: dict[str, float]
    train_zflop: dict[str, float]
    """r → training work required, ZFLOP."""
    train_rate: dict[Key, float]
    """(r, h, t) → ZFLOP one unit delivers over period t (goodput-adjusted)."""
    train_flops_per_s: dict[Key, float]
    """(r, h) → FLOP/s per unit (goodput-adjusted)."""
    train_big_m: dict[Key, float]
    """(r, h, s, t) → most units run r can use in t on h (finishing it inside t)."""
    train_window: dict[str, tuple[PeriodLabel, PeriodLabel]]
    """r → first and last period of the run's window (whole years)."""
    train_window_years: dict[str, tuple[int, int]]
    """r → first and last year of the run's window."""
    train_penalty_period: dict[str, PeriodLabel]
    """r → period whose discount factor prices the run's unmet work (its window's last)."""
    inf_rate: dict[Key, float]
    """(w, role, h) → Mtok/day one unit delivers (output tokens; prefill role: uncached input)."""
    inf_tokens_per_s: dict[Key, float]
    """(w, role, h) → tokens/s per unit, as the perf table gives it."""
    demand_peak: dict[Key, float]
    """(w, t, stage) → peak demand, Mtok/day."""
    demand_tokens_per_day: dict[Key, float]
    """(w, t) → average output tokens/day."""
    peak_to_average: dict[str, float]
    prefill_ratio: dict[str, float]
    """w → uncached input tokens per output token: r_in · (1 − cache hit rate)."""
    penalty_usd_per_mtok: float
    penalty_usd_per_pflop: float

    @property
    def labels(self) -> list[PeriodLabel]:
        return [p.label for p in self.periods]

    @property
    def horizon_end(self) -> float:
        return self.periods[-1].end

    def period(self, label: PeriodLabel) -> Period:
        return self.period_by_label[label]

    @property
    def period_by_label(self) -> dict[PeriodLabel, Period]:
        return {p.label: p for p in self.periods}


def periods_for(scenario: Scenario) -> tuple[Period, ...]:
    """The planning periods of ``scenario``'s horizon (see planner.scenario.periods)."""
    return scenario.horizon.periods


def _finite_positive(value: Any) -> bool:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return math.isfinite(number) and number > 0


@dataclass(frozen=True)
class _Context:
    """What every part of ``build_data`` reads."""

    scenario: Scenario
    specs: dict[str, HardwareSpec]
    periods: tuple[Period, ...]
    sites: tuple[str, ...]
    hardware: tuple[str, ...]

    @property
    def per_year(self) -> int:
        return self.scenario.horizon.periods_per_year

    def released(self, h: str, p: Period) -> bool:
        return self.specs[h].release_year <= p.start

    def alive(self, first_index: int, h: str) -> list[Period]:
        """Periods in which a unit of ``h`` installed at the start of period
        ``first_index`` works (``lifetime_years · P`` periods; index arithmetic)."""
        life = self.specs[h].lifetime_years
        return [
            self.periods[k]
            for k in periods_alive(first_index, life, self.per_year, len(self.periods))
        ]

    def choice(self, h: str) -> HardwareChoice:
        return next(c for c in self.scenario.hardware if c.id == h)


Fields = dict[str, Any]


def build_data(
    scenario: Scenario,
    inference: pd.DataFrame,
    training: pd.DataFrame,
    *,
    relax: bool = False,
) -> ModelData:
    """The model data of ``scenario`` given the perf model's throughput tables.

    ``inference`` and ``training`` are the two tables of
    :func:`planner.perf.throughput_tables`.
    """
    if any(s.name == RENTED for s in scenario.sites):
        raise InputError(
            None, Problem(path="sites", message=f"site name {RENTED!r} is reserved for rentals")
        )
    ctx = _Context(
        scenario=scenario,
        specs=hardware_specs(scenario),
        periods=periods_for(scenario),
        sites=tuple(s.name for s in scenario.sites),
        hardware=tuple(h.id for h in scenario.hardware),
    )
    fin = scenario.finance
    f: Fields = {
        "scenario_name": scenario.name,
        "relax": relax,
        "serving": scenario.serving,
        "periods": ctx.periods,
        "periods_per_year": ctx.per_year,
        "sites": ctx.sites,
        "hardware": ctx.hardware,
        "runs": tuple(r.name for r in scenario.training),
        "workloads": tuple(w.name for w in serving_workloads(scenario)),
        "wacc": fin.wacc,
        "availability": fin.availability,
        "maintenance_fraction": fin.maintenance_fraction_of_capex_per_year,
        "penalty_usd_per_mtok": scenario.penalties.unmet_inference_usd_per_mtok,
        "penalty_usd_per_pflop": scenario.penalties.unmet_training_usd_per_pflop,
        "vendor_share_max": dict(scenario.vendor_share_max),
        "accelerators": {h: s.accelerators for h, s in ctx.specs.items()},
        "power_kw": {h: s.power_kw for h, s in ctx.specs.items()},
        "vendor": {h: s.vendor for h, s in ctx.specs.items()},
        "lifetime_years": {h: s.lifetime_years for h, s in ctx.specs.items()},
    }
    f |= _throughput(ctx, inference, training)
    # Hardware that can do some work; nothing else is worth buying or renting.
    useful = {k[2] for k in f["inf_tokens_per_s"]} | {k[1] for k in f["train_flops_per_s"]}
    f |= _discounting(ctx)
    f |= _purchases(ctx, useful)
    f |= _existing(ctx)
    deadline.check("the model data (fleet)")
    f |= _fleet(ctx, f)
    f |= _site_economics(ctx, f)
    f |= _rentals(ctx, useful)
    f |= _places(ctx, f)
    deadline.check("the model data (training)")
    f |= _training(ctx, f)
    deadline.check("the model data (inference)")
    f |= _inference(ctx, f)
    deadline.check("the model data (lookups)")
    f |= _lookups(ctx, f)
    return ModelData(**f)


def _throughput(ctx: _Context, inference: pd.DataFrame, training: pd.DataFrame) -> Fields:
    """Which (workload, role, hardware) and (run, hardware) pairs exist, and their rates."""
    colocated = ctx.scenario.serving == "colocated"
    roles = ("serve",) if colocated else ("prefill", "decode")
    tokens: dict[Key, float] = {}
    for row in inference.itertuples(index=False):
        spec = ctx.specs.get(row.hardware)
        if spec is None or (colocated and spec.prefill_only):
            continue
        rates = {
            "serve": row.output_tokens_per_s_per_unit if bool(row.servable) else 0.0,
            "prefill": row.prefill_tokens_per_s_per_unit,
            "decode": 0.0 if spec.prefill_only else row.decode_tokens_per_s_per_unit,
        }
        for role in roles:
            if _finite_positive(rates[role]):
                tokens[(row.workload, role, row.hardware)] = float(rates[role])
    flops_per_s: dict[Key, float] = {}
    required: dict[str, float] = {}
    for row in training.itertuples(index=False):
        if _finite_positive(row.flops):
            required[row.run] = float(row.flops)
        if (
            row.hardware in ctx.specs
            and bool(row.feasible)
            and _finite_positive(row.training_flops_per_s_per_unit)
        ):
            flops_per_s[(row.run, row.hardware)] = float(row.training_flops_per_s_per_unit)
    runs = [r.name for r in ctx.scenario.training]
    return {
        "inf_tokens_per_s": tokens,
        "train_flops_per_s": flops_per_s,
        "train_zflop": {r: required.get(r, 0.0) / ZFLOP for r in runs},
    }


def _discounting(ctx: _Context) -> Fields:
    first = ctx.periods[0].start
    wacc = ctx.scenario.finance.wacc
    labels = [p.label for p in ctx.periods]
    return {
        "period_length": {p.label: p.length_years for p in ctx.periods},
        "discount_factor": period_discount_factors(
            wacc, {p.label: p.start for p in ctx.periods}, first
        ),
        "discount_factor_end": discount_factor(wacc, ctx.periods[-1].end - first),
        "previous_period": dict(zip(labels[1:], labels, strict=False)),
    }


def _purchases(ctx: _Context, useful: set[str]) -> Fields:
    """Purchases of useful hardware, from its release year, at the sites it may go to."""
    horizon_end = ctx.periods[-1].end
    buy_index: list[Key] = []
    price: dict[Key, float] = {}
    residual: dict[Key, float] = {}
    for h in ctx.hardware:
        if h not in useful:
            continue
        choice = ctx.choice(h)
        allowed = choice.sites or list(ctx.sites)
        life = ctx.specs[h].lifetime_years
        for p in ctx.periods:
            if not ctx.released(h, p):
                continue
            price[(h, p.label)] = unit_price_usd(choice, ctx.specs[h], p.start)
            residual[(h, p.label)] = residual_fraction(p.start, life, horizon_end)
            buy_index += [(h, s, p.label) for s in ctx.sites if s in allowed]
    return {"buy_index": tuple(buy_index), "price_usd": price, "residual_fraction": residual}


def _existing(ctx: _Context) -> Fields:
    """Existing cohorts (hardware, site, year installed) and the periods they live in."""
    units: dict[Key, int] = defaultdict(int)
    for row in ctx.scenario.existing_fleet:
        units[(row.hardware, row.site, row.installed)] += row.units
    start = ctx.scenario.horizon.start
    index = [
        (h, s, installed, p.label)
        for (h, s, installed) in units
        for p in ctx.alive((installed - start) * ctx.per_year, h)
    ]
    return {
        "existing_units": dict(units),
        "existing_price_usd": {e: ctx.specs[e[0]].price_usd for e in units},
        "existing_index": tuple(index),
    }


def _fleet(ctx: _Context, f: Fields) -> Fields:
    """Owned capacity: which purchase vintages and existing cohorts are alive when."""
    position = {p.label: p.index for p in ctx.periods}
    vintages: dict[Key, list[PeriodLabel]] = defaultdict(list)
    for h, s, v in f["buy_index"]:
        for p in ctx.alive(position[v], h):
            vintages[(h, s, p.label)].append(v)
    cohorts: dict[Key, list[int]] = defaultdict(list)
    for h, s, installed, t in f["existing_index"]:
        cohorts[(h, s, t)].append(installed)
    index = sorted(set(vintages) | set(cohorts), key=lambda k: (position[k[2]], k[0], k[1]))
    previous = {b.label: a.label for a, b in itertools.pairwise(ctx.periods)}
    balance: dict[Key, Any] = {}
    for h, s, t in index:
        deadline.check("the model data (fleet)")
        before = previous.get(t)
        was = (h, s, before)
        now_v, then_v = vintages.get((h, s, t), []), vintages.get(was, [])
        now_c, then_c = cohorts.get((h, s, t), []), cohorts.get(was, [])
        balance[(h, s, t)] = (
            was if was in vintages or was in cohorts else None,
            tuple((h, s, v) for v in now_v if v not in then_v),
            tuple((h, s, v) for v in then_v if v not in now_v),
            tuple((h, s, i, t) for i in now_c),
            tuple((h, s, i, before) for i in then_c),
        )
    return {
        "fleet_index": tuple(index),
        "vintages_alive": {k: tuple(v) for k, v in vintages.items()},
        "cohorts_alive": {k: tuple(v) for k, v in cohorts.items()},
        "fleet_balance": balance,
    }


def _site_economics(ctx: _Context, f: Fields) -> Fields:
    """Energy and facility cost per unit-year, PUE and power caps, per site and period."""
    utilisation = ctx.scenario.finance.utilisation
    rows = {s.name: s for s in ctx.scenario.sites}
    pue = {s: site_pue(ctx.scenario, rows[s]) for s in ctx.sites}
    period = {p.label: p for p in ctx.periods}
    energy: dict[Key, float] = {}
    facility: dict[Key, float] = {}
    for h, s, t in f["fleet_index"]:
        rates = site_rates(ctx.scenario, rows[s], period[t].start)
        kw = ctx.specs[h].power_kw
        energy[(h, s, t)] = energy_usd_per_unit_year(
            kw, rates.pue, utilisation, rates.electricity_usd_per_kwh
        )
        facility[(h, s, t)] = facility_usd_per_unit_year(kw, rates.facility_usd_per_kw_year)
    return {
        "pue": pue,
        "energy_usd_per_unit_year": energy,
        "facility_usd_per_unit_year": facility,
        "power_cap_mw": {
            (s, p.label): level_at(rows[s].power_cap_mw, p) for s in ctx.sites for p in ctx.periods
        },
    }


def _rentals(ctx: _Context, useful: set[str]) -> Fields:
    index: list[Key] = []
    cost: dict[Key, float] = {}
    cap: dict[Key, float] = {}
    for offer in ctx.scenario.rental:
        h = offer.hardware
        if h not in useful:
            continue
        acc = ctx.specs[h].accelerators
        for p in ctx.periods:
            if not ctx.released(h, p):
                continue
            index.append((h, p.label))
            rate = rate_at(offer.usd_per_accelerator_hour, p)
            cost[(h, p.label)] = rent_usd_per_unit_year(rate, acc)
            if offer.max_accelerators is not None:
                cap[(h, p.label)] = level_at(offer.max_accelerators, p) / acc
    return {"rent_index": tuple(index), "rent_usd_per_unit_year": cost, "rent_max_units": cap}


def _places(ctx: _Context, f: Fields) -> Fields:
    """Where units of each hardware can work in each period: sites with owned units
    (in site order), then ``RENTED`` where rentals are offered."""
    places: dict[Key, list[str]] = defaultdict(list)
    order = {s: i for i, s in enumerate(ctx.sites)}
    for h, s, t in sorted(f["fleet_index"], key=lambda k: order[k[1]]):
        places[(h, t)].append(s)
    for h, t in f["rent_index"]:
        places[(h, t)].append(RENTED)
    return {"places": {k: tuple(v) for k, v in places.items()}}


def _training(ctx: _Context, f: Fields) -> Fields:
    """Assignment keys of training runs, their rates per unit-period and tight big-Ms."""
    rate: dict[Key, float] = {}
    index: list[Key] = []
    big_m: dict[Key, float] = {}
    choice: dict[Key, None] = {}  # ordered, with O(1) membership
    windows: dict[str, tuple[PeriodLabel, PeriodLabel]] = {}
    years: dict[str, tuple[int, int]] = {}
    for run in ctx.scenario.training:
        r = run.name
        window = [p for p in ctx.periods if run.window[0] <= p.year <= run.window[1]]
        windows[r] = (window[0].label, window[-1].label)
        years[r] = (run.window[0], run.window[1])
        for h in ctx.hardware:
            deadline.check("the model data (training)")
            if (r, h) not in f["train_flops_per_s"]:
                continue
            for p in window:
                per_unit = f["train_flops_per_s"][(r, h)] * SECONDS_PER_YEAR * p.length_years
                rate[(r, h, p.label)] = per_unit / ZFLOP
                for s in f["places"].get((h, p.label), ()):
                    index.append((r, h, s, p.label))
                    big_m[(r, h, s, p.label)] = f["train_zflop"][r] / rate[(r, h, p.label)]
                    choice[(r, h, s)] = None
    return {
        "train_rate": rate,
        "train_index": tuple(index),
        "train_big_m": big_m,
        "train_choice_index": tuple(choice),
        "train_window": windows,
        "train_window_years": years,
        "train_penalty_period": {r: w[1] for r, w in windows.items()},
    }


def _inference(ctx: _Context, f: Fields) -> Fields:
    """Demand rows at peak and the assignment keys that can serve them."""
    disaggregated = ctx.scenario.serving == "disaggregated"
    roles = ("prefill", "decode") if disaggregated else ("serve",)
    demand_index: list[Key] = []
    rows: list[Key] = []
    peak: dict[Key, float] = {}
    per_day: dict[Key, float] = {}
    index: list[Key] = []
    rate: dict[Key, float] = {}
    p2a: dict[str, float] = {}
    ratio: dict[str, float] = {}
    for wl in serving_workloads(ctx.scenario):
        w = wl.name
        p2a[w] = wl.peak_to_average
        ratio[w] = wl.input_tokens_per_output_token * (1 - wl.cache_hit_rate)
        stages = {"output": 1.0}
        if disaggregated and ratio[w] > 0:
            stages["prefill"] = ratio[w]
        years = set(active_years(wl, ctx.scenario))
        for p in ctx.periods:
            deadline.check("the model data (inference)")
            if p.year not in years:
                continue
            tpd = rate_at(wl.tokens_per_day, p)  # a rate: per day whatever the period length
            demand_index.append((w, p.label))
            per_day[(w, p.label)] = tpd
            for stage, share in stages.items():
                rows.append((w, p.label, stage))
                peak[(w, p.label, stage)] = tpd * share * wl.peak_to_average / MTOK
            for role in roles:
                if role == "prefill" and "prefill" not in stages:
                    continue
                for h in ctx.hardware:
                    tps = f["inf_tokens_per_s"].get((w, role, h))
                    if tps is None:
                        continue
                    rate[(w, role, h)] = tokens_per_day(tps) / MTOK
                    if (h, p.label) in f["places"]:
                        index.append((w, role, h, p.label))
    return {
        "demand_index": tuple(demand_index),
        "demand_rows": tuple(rows),
        "demand_peak": peak,
        "demand_tokens_per_day": per_day,
        "inf_index": tuple(index),
        "inf_rate": rate,
        "peak_to_average": p2a,
        "prefill_ratio": ratio,
    }


def _lookups(ctx: _Context, f: Fields) -> Fields:
    """Which variables appear in which constraint row; budget and supply limits."""
    train_at_unit: dict[Key, list[str]] = defaultdict(list)
    train_terms: dict[str, list[Key]] = defaultdict(list)
    pool_train: dict[Key, list[Key]] = defaultdict(list)
    for r, h, s, t in f["train_index"]:
        train_at_unit[(h, s, t)].append(r)
        train_terms[r].append((h, s, t))
        pool_train[(h, t)].append((r, s))
    pool_inf: dict[Key, list[Key]] = defaultdict(list)
    demand_terms: dict[Key, list[Key]] = {row: [] for row in f["demand_rows"]}
    for w, role, h, t in f["inf_index"]:
        pool_inf[(h, t)].append((w, role))
        demand_terms[(w, t, "prefill" if role == "prefill" else "output")].append((role, h))
    position = {p.label: p.index for p in ctx.periods}
    pool_index = sorted(set(pool_train) | set(pool_inf), key=lambda k: (position[k[1]], k[0]))
    # A pool with one place is its own training row; otherwise each place needs one.
    site_train = [(h, s, t) for h, s, t in train_at_unit if len(f["places"][(h, t)]) > 1]
    supply_terms: dict[Key, list[str]] = defaultdict(list)
    period_buys: dict[PeriodLabel, list[Key]] = defaultdict(list)
    for h, s, t in f["buy_index"]:
        supply_terms[(h, t)].append(s)
        period_buys[t].append((h, s))
    site_fleet: dict[Key, list[str]] = defaultdict(list)
    period_fleet: dict[PeriodLabel, list[Key]] = defaultdict(list)
    for h, s, t in f["fleet_index"]:
        site_fleet[(s, t)].append(h)
        period_fleet[t].append((h, s))

    period = {p.label: p for p in ctx.periods}
    budget: dict[PeriodLabel, float] = {}
    capex = ctx.scenario.budget.capex_usd
    if capex is not None:
        budget = {p.label: flow_in(capex, p) for p in ctx.periods}
    supply: dict[Key, float] = {}
    for h, t in supply_terms:
        cap = ctx.choice(h).max_units_per_year
        if cap is not None:
            supply[(h, t)] = flow_in(cap, period[t])

    def frozen(d: dict[Any, list[Any]]) -> dict[Any, tuple[Any, ...]]:
        return {k: tuple(v) for k, v in d.items()}

    return {
        "train_at_unit": frozen(train_at_unit),
        "train_terms": frozen(train_terms),
        "pool_index": tuple(pool_index),
        "pool_train": frozen(pool_train),
        "pool_inf": frozen(pool_inf),
        "site_train_index": tuple(site_train),
        "demand_terms": frozen(demand_terms),
        "supply_terms": frozen(supply_terms),
        "period_buys": frozen(period_buys),
        "site_fleet": frozen(site_fleet),
        "period_fleet": frozen(period_fleet),
        "budget_usd": budget,
        "supply_max_units": supply,
    }
