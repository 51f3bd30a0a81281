"""Decision variables (docs/concepts/optimiser.md), each over its sparse index from ModelData.

Units: purchases, existing units kept, installed units, rentals and assignments in
units (servers or racks); unmet inference in Mtok/day at peak; unmet training in ZFLOP.

* ``buy[h,s,v]`` integer units bought in period v (continuous when ``relax``).
* ``kept[h,s,i,t]`` whole units of the existing cohort installed in year i still in
  service in t, at most the cohort size (continuous when ``relax``).
* ``installed[h,s,t]`` units owned at site s in period t: purchases inside their
  lifetime plus the existing units kept. A stock defined by the fleet balance (see
  :mod:`constraints.fleet`), whole whenever purchases and kept units are; continuous.
* ``rent[h,t]`` units rented through period t (continuous: billed by the hour), at
  most ``max_accelerators / accelerators``.
* ``y[r,h,s]`` binary: run r sits on hardware h at site s (``(rented)`` for cloud).
* ``x_train[r,h,s,t]`` continuous units of h at s training run r in t (a share of the
  period's unit-time; replicas are not rounded at fleet scale).
* ``z_train[r,h,s,u,p]`` binary: run r with a duration runs on u units of h at s from
  period p, the same units for its whole duration (continuous when ``relax``).
* ``x_inf[w,role,h,t]`` continuous units of h serving workload w's role in t, wherever
  they are: inference is not tied to a site, so its units come from h's pool (every
  site with h, and rentals). Any pooled plan splits back into sites (each site's spare
  units after training); the plan's tables show one such split (planner.results).
* ``unmet_inf[w,t]``, ``unmet_train[r]`` the slacks, bounded by the demand itself:
  ``unmet_inf`` is the capacity short of the peak, Mtok/day.
* ``lost_inf[w,t]`` the demand that shortfall loses, average Mtok/day over the day
  (:mod:`constraints.lost_tokens`: at most the mean demand D[w,t] / p2a_w).
* ``commit[h,k,v]`` rented units of h committed for k years from period v (continuous);
  ``dc_build[s,v]`` whole datacenter blocks powering on at s in v (continuous when
  ``relax``); ``dc_lease[s,v]`` kW of critical IT leased at s from v (continuous); see
  :mod:`planner.optimize.data.procurement`.
* ``sell[h,s,v,p]`` whole units bought at s in period v sold at the start of period p;
  ``sell_existing[h,s,i,p]`` whole units of the existing cohort installed in year i
  sold at the start of p (continuous when ``relax``; both empty unless
  ``finance.sell_early``, see :mod:`constraints.sales`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyomo.environ as pyo
from pyomo.core.base.var import VarData

from planner.optimize.data import ModelData
from planner.optimize.linear import variables
from planner.optimize.roles import ROLES, Kind

VarDict = dict[Any, VarData]


@dataclass(frozen=True)
class Vars:
    """Each variable family as a plain dict, index → variable: the constraint families
    look terms up here (a dict lookup), not through the indexed component."""

    buy: VarDict
    kept: VarDict
    installed: VarDict
    rent: VarDict
    y: VarDict
    x_train: VarDict
    z_train: VarDict
    x_inf: VarDict
    unmet_inf: VarDict
    lost_inf: VarDict
    unmet_train: VarDict
    commit: VarDict
    dc_build: VarDict
    dc_lease: VarDict
    sell: VarDict
    sell_existing: VarDict


@dataclass(frozen=True)
class ColumnFamily:
    """One variable family: its name (a key of :data:`planner.optimize.roles.ROLES`),
    its sparse index and each index's bounds ((0, None) when ``bounds`` is None)."""

    name: str
    keys: list[Any]
    bounds: Callable[[Any], tuple[float, float | None]] | None = None


def column_families(d: ModelData) -> list[ColumnFamily]:
    """Every variable family of ``d``'s model, in declaration (column) order."""
    return [
        ColumnFamily("buy", list(d.buy_index)),
        ColumnFamily(
            "kept", list(d.existing_index), lambda k: (0, d.existing_units[(k[0], k[1], k[2])])
        ),
        ColumnFamily("installed", list(d.fleet_index)),
        ColumnFamily("rent", list(d.rent_index), lambda k: (0, d.rent_max_units.get(k))),
        ColumnFamily("y", list(d.train_choice_index)),
        ColumnFamily("x_train", list(d.train_index)),
        ColumnFamily("z_train", list(d.train_menu_index)),
        ColumnFamily("x_inf", list(d.inf_index)),
        ColumnFamily(
            "unmet_inf", list(d.demand_index), lambda k: (0, d.demand_peak[(*k, "output")])
        ),
        ColumnFamily(
            "lost_inf",
            list(d.demand_index),
            lambda k: (0, d.demand_peak[(*k, "output")] / d.peak_to_average[k[0]]),
        ),
        ColumnFamily("unmet_train", list(d.runs), lambda r: (0, d.train_zflop[r])),
        ColumnFamily("commit", list(d.commit_index)),
        ColumnFamily("dc_build", list(d.dc_build_index)),
        ColumnFamily("dc_lease", list(d.dc_lease_index)),
        ColumnFamily("sell", list(d.sell_index)),
        ColumnFamily(
            "sell_existing",
            list(d.sell_existing_index),
            lambda k: (0, d.existing_units[(k[0], k[1], k[2])]),
        ),
    ]


def domain(name: str, relax: bool) -> Any:
    """The Pyomo domain of family ``name``: its kind in :data:`ROLES`, continuous when
    ``relax`` (a choice then in [0, 1])."""
    kind = ROLES[name].kind
    if kind == Kind.CONTINUOUS:
        return pyo.NonNegativeReals
    if kind == Kind.CHOICE:
        return pyo.UnitInterval if relax else pyo.Binary
    return pyo.NonNegativeReals if relax else pyo.NonNegativeIntegers


def add_variables(m: pyo.ConcreteModel, d: ModelData) -> Vars:
    """Declare every decision variable on ``m`` (:func:`column_families`, each family's
    domain from its kind in :data:`planner.optimize.roles.ROLES`); return them as
    plain dicts."""
    for family in column_families(d):
        bounds = family.bounds
        rule = None if bounds is None else (lambda _, *k, f=bounds: f(k[0] if len(k) == 1 else k))
        setattr(
            m, family.name, pyo.Var(family.keys, domain=domain(family.name, d.relax), bounds=rule)
        )
    return Vars(**{name: variables(getattr(m, name)) for name in Vars.__dataclass_fields__})
