"""The model's size, estimated from the scenario alone, before any work is done.

A scenario file of a few kilobytes can describe a model of billions of nonzeros
(3,000 workloads × 30 years × 12 periods); building it would take hours and run out
of memory long before the solver starts. :func:`estimate_size` counts the model's
main index sets from the validated Scenario — a few loops over its lists, no perf
model — and :func:`check_size` refuses a model above the limit with an InputError
(exit 2) that names the dimensions driving it and how to proceed.

The estimate counts assignments as if every hardware type could serve every workload
and train every run (the perf model may rule some pairs out, which makes it high) and
a few nonzeros per entry (fitted, which may make it low). Against the built models of
the shipped scenarios (551-705 nonzeros), the M/L/XL benchmarks (12,075-812,818) and
wide many-workload scenarios it lay between 0.93× and 1.02× of the true nonzeros;
tiny hand scenarios (7-30 nonzeros) 1.1-1.5× high. With the load shape's lost-tokens
rows (up to 10 nonzeros per workload-period) the shipped scenarios (687-883), M
(14,783) and the wide ones of the tests lie between 0.96× and 1.08×, the tiny ones
(20-26) 1.1-1.3× high. With the start rows of delivered-through periods (an inference
assignment of p in the start row of the period after, where training works: up to
three rows each) the shipped scenarios (743-969), M (17,092) and the wide ones
(22,638-102,158) lie between 1.01× and 1.10×, the tiny ones 1.1-1.46× high.
tests/hostile/test_model_bounds.py
holds it within 0.85×-1.15× (1.0×-1.5× for the tiny ones).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.catalog import offer_catalog
from planner.economics.load_shape import CHORDS
from planner.errors import InputError, Problem
from planner.perf.workloads import active_years, serving_workloads
from planner.scenario.procurement import rent_only as max_units_rent_only
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.units import DAYS_PER_YEAR

DEFAULT_MAX_NONZEROS = 1_000_000
"""Largest model (estimated constraint-matrix nonzeros) a run builds unless told otherwise.

The XL benchmark (bench/generate.py XL: 30 hardware × 60 workloads × 8 sites × 120
months, 0.81 million nonzeros) is the largest model we run: about 25 s and 0.5 GB to
build, and several GB in the solver. Raise the limit with ``planner run
--max-nonzeros N`` on a machine that has the memory and time."""

# Nonzeros per entry of each index set, fitted to the built models (see module doc):
# an inference assignment sits in its pool's capacity row, its demand row and the next
# period's start row where training works (planner.optimize.constraints.period_start); a
# training assignment in its capacity row, its run's completion row and its big-M
# link; an owned (hardware, site, period) in its fleet balance, power, budget, supply,
# capacity and vendor-share rows and the purchase and stock variables.
PER_INFERENCE_ASSIGNMENT = 3.0
PER_TRAINING_ASSIGNMENT = 3.0
PER_FLEET_ENTRY = 8.0
PER_RENTAL_ENTRY = 3.0
PER_DEMAND_ENTRY = 2.0 * (CHORDS + 1)
"""A (workload, period)'s lost-tokens rows: the load shape's chords and its linear part,
two nonzeros each (:mod:`planner.optimize.constraints.lost_tokens`)."""
PER_SALE = 2.7
"""An early-sale option ``sell[h,s,v,p]`` (``finance.sell_early``): its fleet balance
and sales rows, and the purchase's extra term (fitted: 2.3-2.7 on baseline yearly and
quarterly)."""
PER_EXISTING_ENTRY = 4.0
"""An existing or on-order cohort in a period it is alive: its ``kept`` variable in the
fleet balance, the no-return and start rows (fitted: 3.6 on 30 cohorts × 120 months)."""
PER_MENU_CHOICE_BASE = 2.0
"""A cluster choice ``z_train[r,h,s,u,p]`` of a run with ``duration_days``: its choice
and completion terms, plus one per period it covers (its occupancy rows)."""


@dataclass(frozen=True)
class SizeEstimate:
    """Counts of the model's main index sets and the nonzeros they imply."""

    periods: int
    hardware: int
    sites: int
    workloads: int
    runs: int
    inference_assignments: int
    """(workload, role, hardware, period) in the periods each workload has demand."""
    training_assignments: int
    """(run, hardware, place, period) in each run's window; a place is a site or rental."""
    fleet_entries: int
    """(hardware, site, period) where the hardware may be bought."""
    rental_entries: int
    """(hardware, period) with a rental offer."""
    demand_entries: int = 0
    """(workload, period) with demand: one shortfall and its lost tokens each."""
    sale_options: int = 0
    """(hardware, site, purchase period, sale period) with ``finance.sell_early``, plus
    (existing cohort, period)."""
    menu_nonzeros: int = 0
    """Nonzeros of the cluster choices of runs with ``duration_days``: (run, hardware,
    place, size, start) × (:data:`PER_MENU_CHOICE_BASE` + periods each covers)."""
    procurement_nonzeros: int = 0
    """Nonzeros of committed rentals, datacenter blocks and leases: each option in every
    period of its term or life (:func:`_procurement_nonzeros`)."""
    existing_entries: int = 0
    """(existing or on-order cohort, period it is alive in the horizon)."""

    @property
    def nonzeros(self) -> int:
        return round(
            PER_INFERENCE_ASSIGNMENT * self.inference_assignments
            + PER_TRAINING_ASSIGNMENT * self.training_assignments
            + PER_FLEET_ENTRY * self.fleet_entries
            + PER_RENTAL_ENTRY * self.rental_entries
            + PER_DEMAND_ENTRY * self.demand_entries
            + PER_SALE * self.sale_options
            + self.menu_nonzeros
            + self.procurement_nonzeros
            + PER_EXISTING_ENTRY * self.existing_entries
        )

    def drivers(self) -> str:
        """The product behind the largest share of the estimate, in words."""
        shares = {
            f"{self.workloads:,} workloads × {self.hardware:,} hardware × "
            f"{self.periods:,} periods": PER_INFERENCE_ASSIGNMENT * self.inference_assignments
            + PER_DEMAND_ENTRY * self.demand_entries,
            f"{self.runs:,} training runs × {self.hardware:,} hardware × "
            f"{self.sites:,} sites × their windows' periods": PER_TRAINING_ASSIGNMENT
            * self.training_assignments,
            f"{self.hardware:,} hardware × {self.sites:,} sites × "
            f"{self.periods:,} periods": PER_FLEET_ENTRY * self.fleet_entries,
            f"early sales (finance.sell_early) of {self.hardware:,} hardware × "
            f"{self.sites:,} sites × {self.periods:,} purchase periods × their sale "
            "periods": PER_SALE * self.sale_options,
            "the cluster sizes × start periods of runs with duration_days": self.menu_nonzeros,
            "committed rentals, datacenter blocks and leases × their terms' periods": (
                self.procurement_nonzeros
            ),
        }
        return max(shares, key=lambda k: shares[k])


def estimate_size(scenario: Scenario) -> SizeEstimate:
    """Count the model's index sets from ``scenario`` (no perf model, no model data)."""
    horizon = scenario.horizon
    per_year = horizon.periods_per_year
    periods = horizon.period_count
    sites = [s.name for s in scenario.sites]
    rented = {offer.hardware for offer in scenario.rental}
    offers = offer_catalog()
    cloud_only = {  # rented on demand or committed for 1 or 3 years, never owned
        h.id
        for h in scenario.hardware
        if h.id in offers and not offers[h.id].purchasable and h.purchasable is not True
    }
    never_owned = cloud_only | {  # and those the scenario allows no purchase of
        h.id for h in scenario.hardware if max_units_rent_only(h.max_units_per_year)
    }
    held_at = {(c.hardware, c.site) for c in scenario.existing_fleet}  # owned, not bought
    held_at |= {(c.hardware, c.site) for c in scenario.on_order}
    site_count = {
        h.id: sum(1 for s in (h.sites or sites) if (h.id, s) in held_at)
        if h.id in never_owned
        else len(h.sites or sites)
        for h in scenario.hardware
    }
    places = sum(n + (h in rented or h in never_owned) for h, n in site_count.items())
    bought = {h: 0 if h in never_owned else n for h, n in site_count.items()}
    roles = 2 if scenario.serving == "disaggregated" else 1
    workloads = serving_workloads(scenario)
    demand_periods = sum(
        per_year * sum(1 for y in active_years(w, scenario) if horizon.start <= y <= horizon.end)
        for w in workloads
    )
    window_periods = sum(
        per_year * (min(r.window[1], horizon.end) - max(r.window[0], horizon.start) + 1)
        for r in scenario.training
    )
    return SizeEstimate(
        sale_options=_sale_options(scenario, bought) if scenario.finance.sell_early else 0,
        menu_nonzeros=_menu_nonzeros(scenario, places),
        procurement_nonzeros=_procurement_nonzeros(scenario),
        existing_entries=_existing_entries(scenario),
        periods=periods,
        hardware=len(scenario.hardware),
        sites=len(sites),
        workloads=len(workloads),
        runs=len(scenario.training),
        inference_assignments=demand_periods * roles * len(scenario.hardware),
        training_assignments=max(0, window_periods) * places,
        fleet_entries=sum(site_count.values()) * periods,
        rental_entries=len(rented | cloud_only) * periods,  # commitments: procurement
        demand_entries=demand_periods,
    )


def _sale_options(scenario: Scenario, site_count: dict[str, int]) -> int:
    """Early-sale options: each purchase period's later periods inside the unit's life
    (:mod:`planner.optimize.data.sales`), and each existing cohort in each period."""
    per_year = scenario.horizon.periods_per_year
    periods = scenario.horizon.period_count
    specs = hardware_specs(scenario)
    count = 0
    for h, sites in site_count.items():
        life = max(1, round(specs[h].lifetime_years * per_year))
        count += sites * sum(max(0, min(life, periods - v) - 1) for v in range(periods))
    return count + len(scenario.existing_fleet) * periods


def _menu_nonzeros(scenario: Scenario, places: int) -> int:
    """Nonzeros of the (size, start) choices of runs with ``duration_days``
    (:mod:`planner.optimize.data.training_menu`): at most ``cluster_menu_sizes`` sizes
    on every place, from every period of the window, each covering its duration."""
    horizon = scenario.horizon
    per_year = horizon.periods_per_year
    total = 0.0
    for run in scenario.training:
        if run.duration_days is None:
            continue
        years = min(run.window[1], horizon.end) - max(run.window[0], horizon.start) + 1
        covered = math.ceil(run.duration_days / DAYS_PER_YEAR * per_year) + 1
        choices = run.cluster_menu_sizes * places * max(0, years) * per_year
        total += choices * (PER_MENU_CHOICE_BASE + covered)
    return round(total)


def _existing_entries(scenario: Scenario) -> int:
    """Each existing cohort's periods alive inside the horizon (installed year plus the
    hardware's life), and each on-order cohort's from its delivery to the horizon end."""
    horizon = scenario.horizon
    per_year = horizon.periods_per_year
    periods = horizon.period_count
    specs = hardware_specs(scenario)
    count = 0
    for cohort in scenario.existing_fleet:
        spec = specs.get(cohort.hardware)
        life = spec.lifetime_years if spec is not None else horizon.years
        alive = (cohort.installed + life - horizon.start) * per_year
        count += max(0, min(periods, round(alive)))
    for order in scenario.on_order:
        year = order.delivery if isinstance(order.delivery, int) else order.delivery.year
        count += max(0, min(periods, (horizon.end - max(year, horizon.start) + 1) * per_year))
    return count


def _procurement_nonzeros(scenario: Scenario) -> int:
    """Nonzeros of the options of :mod:`planner.optimize.data.procurement`, each starting
    in any period: a commitment in one row in every period of its term (measured), a
    datacenter block in its site's power rows over its life and
    its grid and block-count rows, a lease in its power rows over its term and its cap."""
    per_year = scenario.horizon.periods_per_year
    periods = scenario.horizon.period_count

    def spans(years: float, first: int = 0) -> int:
        length = max(1, round(years * per_year))
        return sum(min(length, periods - v) for v in range(first, periods))

    total = 0
    for offer in scenario.rental:
        for c in offer.commitments:
            if c.usd_per_accelerator_hour is not None:
                total += spans(c.term_years)
    for site in scenario.sites:
        if site.build is not None:
            lead = round(site.build.lead_time_years * per_year)
            total += spans(site.build.facility_life_years, lead) + 2 * max(0, periods - lead)
        if site.lease is not None:
            total += spans(site.lease.term_years) + periods
    return total


def check_size(scenario: Scenario, max_nonzeros: int | None = None) -> SizeEstimate:
    """The estimate of ``scenario``'s model; InputError when it exceeds ``max_nonzeros``.

    ``max_nonzeros``: the limit (default :data:`DEFAULT_MAX_NONZEROS`).
    """
    limit = DEFAULT_MAX_NONZEROS if max_nonzeros is None else max_nonzeros
    estimate = estimate_size(scenario)
    if estimate.nonzeros > limit:
        raise InputError(
            scenario.name,
            Problem(
                path="(model size)",
                message=(
                    f"the model would have about {estimate.nonzeros:,} nonzeros, above the "
                    f"limit of {limit:,}; most of them come from {estimate.drivers()}"
                ),
                found=(
                    f"{estimate.workloads:,} workloads, {estimate.runs:,} training runs, "
                    f"{estimate.hardware:,} hardware, {estimate.sites:,} sites, "
                    f"{estimate.periods:,} periods ({scenario.horizon.years} years × "
                    f"{scenario.horizon.periods_per_year} a year)"
                ),
                expected=f"at most {limit:,} estimated nonzeros",
                hint=(
                    "use coarser periods (horizon.periods_per_year), a shorter horizon, "
                    "fewer workloads or hardware; or, on a machine with the memory and "
                    f"time, raise the limit with --max-nonzeros {estimate.nonzeros}"
                ),
            ),
        )
    return estimate
