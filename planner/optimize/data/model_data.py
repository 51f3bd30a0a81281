"""ModelData: the one frozen object the Pyomo model is built from (units: see the package)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from planner.scenario.periods import Period, PeriodLabel

Key = tuple[Any, ...]
"""An index tuple: strings for names, period labels (the year for yearly periods, else
e.g. ``"2027Q3"``) and install years (ints)."""


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
    """(s, t) → facility MW the site has without building or leasing."""
    contract_usd_per_kw_year: dict[Key, float]
    """(s, t) → take-or-pay $/kW-year of the cap, sites with ``power_cost: contracted``."""
    contract_usd_per_year: dict[Key, float]
    """(s, t) → the contract's USD a year: cap MW · 1000 · $/kW-year (contracted sites)."""
    # --- procurement (planner.optimize.data.procurement) ----------------------------
    commit_index: tuple[Key, ...]
    """(h, k, v): rented units of h committed for k years from period v."""
    commit_usd_per_unit_year: dict[Key, float]
    """(h, k, v) → committed $/accelerator-hour · 8760 · accelerators (price of v)."""
    commit_periods: dict[Key, tuple[PeriodLabel, ...]]
    """(h, k, v) → periods of the horizon the commitment runs (and is paid)."""
    commit_active: dict[Key, tuple[Key, ...]]
    """(h, t) → commitment keys running in t."""
    dc_build_index: tuple[Key, ...]
    """(s, v): whole datacenter blocks powering on at the start of period v."""
    dc_block_mw_it: dict[str, float]
    dc_block_capex_usd: dict[str, float]
    """s → capex of one block, USD (paid when construction starts)."""
    dc_build_paid_period: dict[Key, PeriodLabel]
    """(s, v) → the period construction starts (lead time before v)."""
    dc_build_residual_fraction: dict[Key, float]
    dc_om_usd_per_block_year: dict[str, float]
    dc_lead_time_years: dict[str, int]
    dc_life_years: dict[str, int]
    dc_lease_term_years: dict[str, int]
    dc_build_online: dict[Key, tuple[Key, ...]]
    """(s, t) → build keys online in t."""
    dc_build_periods: dict[Key, tuple[PeriodLabel, ...]]
    dc_grid_rows: dict[Key, tuple[tuple[Key, ...], float]]
    """(s, year) → (build keys powering on that year, most facility MW added)."""
    dc_max_blocks: dict[str, int]
    dc_lease_index: tuple[Key, ...]
    """(s, v): kW of critical IT leased from period v for the lease term."""
    dc_lease_usd_per_kw_year: dict[str, float]
    dc_lease_periods: dict[Key, tuple[PeriodLabel, ...]]
    dc_lease_active: dict[Key, tuple[Key, ...]]
    """(s, t) → lease keys running in t."""
    dc_lease_max_kw: dict[Key, float]
    """(s, t) → most kW under lease in t."""
    dc_sites: tuple[str, ...]
    """Sites that build or lease (they pay for capacity, not installed kW)."""
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
    demand_end_share: dict[Key, float]
    """(w, t) → the demand at t's end over t's peak (1 for a growing series; only with
    deliveries through the period): the share of t's assignment the start of the
    period after needs (planner.optimize.constraints.period_start)."""
    demand_tokens_per_day: dict[Key, float]
    """(w, t) → average output tokens/day."""
    peak_to_average: dict[str, float]
    prefill_ratio: dict[str, float]
    """w → uncached input tokens per output token: r_in · (1 − cache hit rate)."""
    penalty_usd_per_mtok: float
    penalty_usd_per_pflop: float
    workload_priority: dict[str, float]
    """w → weight of its unserved share of tokens in the service objective."""
    run_priority: dict[str, float]
    """r → weight of its undone share of work in the service objective."""
    horizon_end_convention: str = "straight_line"
    """The horizon-end convention ``residual_fraction`` is priced under."""
    price_held_usd: dict[Key, float] = field(default_factory=dict)
    """(h, v) → the unit's price with catalog list prices held (no decline; a price the
    scenario gives as given): the capex of the same fleet with prices held."""
    price_convention: str = ""
    """The price path in one sentence (:func:`planner.economics.rates.price_convention`)."""
    residual_by_convention: dict[str, dict[Key, float]] = field(default_factory=dict)
    """convention → (h, v) → share of the price credited at the horizon end under it
    (planner.economics.horizon_end): the same plan re-priced under each."""
    resale_curve: tuple[tuple[float, float], ...] = ()
    """The scenario's resale curve, (age in years, share of price) pairs (empty: the
    planner's default curve)."""
    sell_early: bool = False
    """``finance.sell_early``: owned units may be sold early (planner.optimize.data.sales)."""
    sell_index: tuple[Key, ...] = ()
    """(h, s, v, p): units of h bought at s in period v sold at the start of period p
    (a later period of their life)."""
    sell_existing_index: tuple[Key, ...] = ()
    """(h, s, i, p): units of the existing cohort (h, s, installed in year i) sold at the
    start of period p (a period it is alive in)."""
    sale_share: dict[Key, float] = field(default_factory=dict)
    """(h, s, v, p) → share of the vintage's price a sale fetches (resale curve at its age)."""
    sale_share_existing: dict[Key, float] = field(default_factory=dict)
    """(h, s, i, p) → share of the catalog price a sale of an existing unit fetches."""
    sales_at: dict[Key, tuple[Key, ...]] = field(default_factory=dict)
    """(h, s, t) → sell keys of purchases sold at the start of t."""
    sales_of: dict[Key, tuple[Key, ...]] = field(default_factory=dict)
    """(h, s, v) → sell keys of the purchase vintage v, every period it may be sold in."""
    objective: str = "min_cost"
    """The scenario's ``objective``: ``min_cost`` or ``max_profit``."""
    service_measure: str = "weighted_share"
    """The scenario's ``service_measure``: what the service stage counts."""
    revenue_usd_per_mtok: dict[Key, float] = field(default_factory=dict)
    """(w, t) → revenue per served output Mtok, USD (absent: the workload has no price;
    see planner.economics.revenue)."""
    run_value_usd: dict[str, float] = field(default_factory=dict)
    """r → what finishing the run is worth, USD (absent: no value given)."""
    train_duration_runs: tuple[str, ...] = ()
    """Runs with ``duration_days``: a fixed cluster from a menu, for a fixed time."""
    train_menu_index: tuple[Key, ...] = ()
    """(r, h, s, u, p): run r on u units of h at s, starting in period p."""
    train_menu_cover: dict[Key, tuple[tuple[PeriodLabel, float], ...]] = field(default_factory=dict)
    """(r, h, s, u, p) → ((t, units occupied on average over t), …)."""
    train_menu_start: dict[Key, float] = field(default_factory=dict)
    """(r, h, s, u, p) → start, fractional years."""
    train_menu_size: dict[Key, Any] = field(default_factory=dict)
    """(r, h, u) → :class:`planner.perf.training_menu.MenuSize` (goodput, days, FLOP/s)."""

    must_serve_workloads: frozenset[str] = frozenset()
    """Workloads ``max_profit`` serves as much as the limits allow (no price)."""
    must_finish_runs: frozenset[str] = frozenset()
    """Runs ``max_profit`` does as much of as the limits allow (no value, or must_finish)."""

    buy_order_period: dict[Key, PeriodLabel] = field(default_factory=dict)
    """(h, v) → period the units delivered in v are ordered (absent: v itself, no lead
    time; see planner.scenario.timing)."""
    capex_payments: dict[Key, tuple[tuple[PeriodLabel, float], ...]] = field(default_factory=dict)
    """(h, v) → (period paid, share of the price) pairs (absent: all in v)."""
    first_year_rows: dict[str, tuple[tuple[PeriodLabel, ...], float]] = field(default_factory=dict)
    """h → (delivery periods in the 12 months from available_from, most units)."""

    capex_payment: str = "at_delivery"
    """``finance.capex_payment``: ``at_delivery``, ``at_order`` or ``split``."""
    lead_time_months: dict[str, int] = field(default_factory=dict)
    """h → months from order to delivery."""
    available_from_year: dict[str, float] = field(default_factory=dict)
    """h → first delivery date, fractional years (a quarter's start)."""
    end_of_sale: dict[str, int] = field(default_factory=dict)
    """h → last year it can be ordered (absent: no end of sale)."""
    first_year_max_units: dict[str, float] = field(default_factory=dict)
    """h → most units delivered in the 12 months from available_from (absent: no cap)."""

    deliveries_through_period: bool = False
    """Purchases arrive uniformly through their period and leave through their
    departure period (``peak_average``; planner.optimize.data.deliveries)."""
    ramp_periods: frozenset[PeriodLabel] = frozenset()
    """Periods whose purchases arrive through them (all but the opening periods of
    planner.optimize.data.deliveries, with deliveries through the period)."""
    period_start_units: dict[Key, tuple] = field(default_factory=dict)
    """(h, s, t) → the units of h at s at the start of a delivered-through period t
    (planner.optimize.data.period_start: the period before's installed key, purchases
    and cohorts leaving at once, cohorts arriving at once)."""
    payment_discount_factor: dict[PeriodLabel, float] = field(default_factory=dict)
    """t → discount factor of a purchase payment in t: at the period's middle with
    deliveries through the period, at its start otherwise (absent: the start's)."""
    departure_period: dict[Key, PeriodLabel] = field(default_factory=dict)
    """(h, s, v) → the period a cohort delivered through v leaves through (its life
    ends inside the horizon; only with deliveries through the period)."""

    def order_period(self, h: str, v: PeriodLabel) -> PeriodLabel:
        """The period units of ``h`` delivered in ``v`` are ordered."""
        return self.buy_order_period.get((h, v), v)

    @cached_property
    def existing_keys(self) -> frozenset[Key]:
        """``existing_index`` as a set."""
        return frozenset(self.existing_index)

    @cached_property
    def next_period(self) -> dict[PeriodLabel, PeriodLabel]:
        """t → the period after t."""
        return {b: a for a, b in self.previous_period.items()}

    def paid_factor(self, t: PeriodLabel) -> float:
        """Discount factor of a purchase payment made in ``t``."""
        return self.payment_discount_factor.get(t, self.discount_factor[t])

    def arrival_share(self, h: str, v: PeriodLabel, t: PeriodLabel) -> float:
        """Average share of period ``t`` a unit delivered in ``v`` is in service (while
        alive): half of ``v`` when ``v``'s purchases arrive through it, else all."""
        return 0.5 if t == v and v in self.ramp_periods else 1.0

    def payments(self, h: str, v: PeriodLabel) -> tuple[tuple[PeriodLabel, float], ...]:
        """When the price of a unit of ``h`` delivered in ``v`` is paid: (period, share)."""
        return self.capex_payments.get((h, v), ((v, 1.0),))

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
