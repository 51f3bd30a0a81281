"""What rented capacity costs the plan: on-demand rent and commitments, as paid.

A hardware's rented pool in a period is its on-demand units (``rentals``) plus the
committed units running then (``commitments``). The plan pays each at its own rate —
on-demand rent, or the committed rate for the whole term whether used or not — so the
realised $/Mtok charges the work done on the pool the pool's cash cost: that cost
shared over the units assigned from it (inference and training), so committed units
are never priced at the on-demand rate and idle committed units are paid by the work
the pool does. Owned units keep their own convention
(:func:`planner.results.costs.usd_per_mtok_table`).
"""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from planner.units import RENTED

RENTED_CONVENTION = (
    "rented units: the cash cost of the hardware's rented pool in the period (on-demand "
    "rent plus the commitments running, paid whether used or not) shared over the units "
    "assigned from it"
)
"""How rented units are charged in the $/Mtok table (its ``attrs["rented_convention"]``)."""

Pool = tuple[str, str]
"""(hardware, period label as text)."""


def pool_cost(rentals: pd.DataFrame, commitments: pd.DataFrame | None) -> dict[Pool, float]:
    """(hardware, period) → USD paid in the period: on-demand rent plus commitments."""
    cost: dict[Pool, float] = defaultdict(float)
    for part in (rentals, commitments):
        if part is None or part.empty:
            continue
        for row in part.itertuples(index=False):
            cost[(row.hardware, str(row.period))] += float(row.cost_usd)
    return dict(cost)


def assigned_rented(train: pd.DataFrame, inference: pd.DataFrame) -> dict[Pool, float]:
    """(hardware, period) → rented units assigned to work (training and inference)."""
    assigned: dict[Pool, float] = defaultdict(float)
    for part in (train, inference):
        at = part[part["site"] == RENTED]
        for row in at.itertuples(index=False):
            assigned[(row.hardware, str(row.period))] += float(row.units)
    return dict(assigned)


def rented_usd_per_unit_year(
    rentals: pd.DataFrame,
    commitments: pd.DataFrame | None,
    train: pd.DataFrame,
    inference: pd.DataFrame,
    length_years: dict[str, float],
) -> dict[Pool, float]:
    """(hardware, period) → USD per assigned unit-year of the rented pool: its cash cost
    over the unit-years assigned from it (:data:`RENTED_CONVENTION`). Pools with no work
    assigned have no rate (their cost is charged to no workload)."""
    cost = pool_cost(rentals, commitments)
    assigned = assigned_rented(train, inference)
    return {
        key: cost.get(key, 0.0) / (units * length_years[key[1]])
        for key, units in assigned.items()
        if units > 0
    }
