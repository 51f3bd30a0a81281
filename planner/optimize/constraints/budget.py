"""Capex budget per period."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyomo.environ as pyo

from planner.optimize.data import USD_SCALE, ModelData
from planner.optimize.linear import Row, Term, add_rows
from planner.optimize.variables import Vars


def add_budget(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Purchases and datacenter blocks paid in a period cost at most the period's capex
    budget (USD millions)::

        Σ_{h,s,v: (t, share) ∈ pay(h,v)} share · price[h,v] · buy[h,s,v]
            + Σ_{s,v: paid(s,v)=t} capex_block[s] · dc_build[s,v]  ≤ budget[t] · length_t

    A purchase delivered in v is paid per ``finance.capex_payment`` (``pay(h,v)``: all
    in v without a lead time; at order, a lead time before v, or half and half).
    A block's capex is paid when construction starts, a lead time before it powers on
    (``paid(s,v)``), as the objective charges it. The yearly budget is a flow: held from
    the last year given, and each period gets its share (a quarter a quarter of the
    year's); absent = no row. Rentals, leases and running costs are opex and sit outside
    this budget.
    """
    buy = var.buy
    terms: dict[Any, list[Term]] = defaultdict(list)
    for h, s, v in d.buy_index:
        for t, share in d.payments(h, v):
            terms[t].append((share * d.price_usd[(h, v)] / USD_SCALE, buy[(h, s, v)]))
    for key in d.dc_build_index:
        capex = d.dc_block_capex_usd[key[0]] / USD_SCALE
        terms[d.dc_build_paid_period[key]].append((capex, var.dc_build[key]))
    rows: dict[object, Row] = {
        t: (None, terms[t], d.budget_usd[t] / USD_SCALE) for t in d.budget_usd if terms.get(t)
    }
    add_rows(m, "budget", rows, "capex in the period ≤ its budget (USD millions)")
