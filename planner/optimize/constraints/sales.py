"""Early sales (``finance.sell_early``): units sold are units held."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_sales(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """No more units are sold than are held, of each purchase vintage and existing cohort.

    A purchase vintage (h, s, v) is sold over the later periods p of its life, never
    more than was bought (the fleet balance of :mod:`constraints.fleet` then holds
    ``buy − Σ_{p ≤ t} sell`` of it in t, never negative)::

        Σ_p sell[h,s,v,p] ≤ buy[h,s,v]

    An existing cohort (h, s, i) sold at the start of t leaves the units kept in t; what
    is neither kept nor sold is retired (for nothing). This row replaces the cohort's
    no-return row ``kept[t] ≤ kept[t−1]``, and in the first period of the horizon the
    cohort holds its ``units``::

        kept[h,s,i,t] + sell_existing[h,s,i,t] ≤ kept[h,s,i,t−1]   (units in the first period)

    Proceeds (price · resale share at the age at sale) and the costs no longer paid are
    the objective's (:mod:`planner.optimize.objective`). No rows without ``sell_early``.
    """
    if not d.sell_early:
        return
    sold: dict[tuple, Row] = {}
    for key, sells in d.sales_of.items():
        sold[key] = (None, [(1.0, var.sell[k]) for k in sells] + [(-1.0, var.buy[key])], 0.0)
    add_rows(m, "sold_purchases", sold, "units of a purchase sold ≤ units bought")
    held: dict[tuple, Row] = {}
    for h, s, i, t in d.sell_existing_index:
        terms = [(1.0, var.kept[(h, s, i, t)]), (1.0, var.sell_existing[(h, s, i, t)])]
        last = d.previous_period.get(t)
        if last is not None and (h, s, i, last) in var.kept:
            held[(h, s, i, t)] = (None, [*terms, (-1.0, var.kept[(h, s, i, last)])], 0.0)
        else:
            held[(h, s, i, t)] = (None, terms, float(d.existing_units[(h, s, i)]))
    add_rows(m, "sold_existing", held, "existing units kept + sold ≤ units kept before")
