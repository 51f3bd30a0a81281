"""Installed fleet: purchase vintages retire at end of life; existing cohorts never return."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_fleet(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """The installed stock by period, and early decommissioning of the existing fleet.

    Units of hardware h at site s in period t are the purchases still inside their life
    plus the existing units kept::

        installed[h,s,t] = Σ_{v : start_v ≤ start_t < start_v + life_h} buy[h,s,v]
                         + Σ_{i : i ≤ start_t < i + life_h} kept[h,s,i,t]

    (life in years whatever the period length: a unit bought in period v works
    ``life_h · P`` periods, then retires; no resale — its residual value counts only if
    it is alive at the horizon end, see the objective). Written as a stock balance, so
    each row holds a handful of terms instead of every live vintage::

        installed[h,s,t] = installed[h,s,t−1] + Σ_{v entering} buy[h,s,v]
                         − Σ_{v leaving} buy[h,s,v] + Σ_i kept[h,s,i,t] − Σ_i kept[h,s,i,t−1]

    (entering: the vintage bought in t; leaving: the one whose life ended; the previous
    stock is absent when nothing was installed in t−1). The optimiser may switch
    existing units off early (to free power or meet a vendor share) but never back on::

        kept[h,s,i,t] ≤ kept[h,s,i,t−1]      for t after the first period alive

    With ``finance.sell_early`` a purchase may also leave early, sold at the start of a
    later period p of its life (:mod:`constraints.sales`): the units sold at the start
    of t leave the stock, and a vintage ending its life takes away only what was not
    sold before::

        installed[h,s,t] = … − Σ_v sell[h,s,v,t]
                         + Σ_{v leaving} Σ_p sell[h,s,v,p]

    (existing units sold leave through ``kept``, whose no-return row is then the sale
    row of :mod:`constraints.sales`).
    """
    buy, kept, installed = var.buy, var.kept, var.installed
    rows: dict = {}
    for key, (before, entering, leaving, cohorts, cohorts_before) in d.fleet_balance.items():
        terms = [(1.0, installed[key])]
        if before is not None:
            terms.append((-1.0, installed[before]))
        terms += [(-1.0, buy[v]) for v in entering]
        terms += [(1.0, buy[v]) for v in leaving]
        terms += [(-1.0, kept[c]) for c in cohorts]
        terms += [(1.0, kept[c]) for c in cohorts_before]
        terms += [(1.0, var.sell[k]) for k in d.sales_at.get(key, ())]
        terms += [(-1.0, var.sell[k]) for v in leaving for k in d.sales_of.get(v, ())]
        rows[key] = (0.0, terms, 0.0)
    add_rows(m, "fleet_balance", rows, "installed stock: last period's plus bought minus retired")
    no_return: dict[tuple, Row] = {}
    for h, s, i, t in d.existing_index:
        if (h, s, i, t) in var.sell_existing:
            continue  # the sale row kept[t] + sell[t] ≤ kept[t−1] implies it
        last = d.previous_period.get(t)
        if last is not None and (h, s, i, last) in kept:
            no_return[(h, s, i, t)] = (
                None,
                [(1.0, kept[(h, s, i, t)]), (-1.0, kept[(h, s, i, last)])],
                0.0,
            )
    add_rows(m, "existing_no_return", no_return, "existing units switched off stay off")
