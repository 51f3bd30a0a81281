"""Rental commitments: reserved capacity at the rented place, within the rental cap.

A commitment ``commit[h,k,v]`` adds rented units of h in every period of its term
(:mod:`planner.optimize.data.procurement`); the capacity rows count them next to the
on-demand rentals (:func:`committed_terms`), and the objective charges them every
period of the term whether they are used or not (:func:`commitment_coefficients`).
"""

from __future__ import annotations

from typing import Any

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, Term, add_rows
from planner.optimize.variables import Vars


def committed_terms(d: ModelData, var: Vars, h: str, t: Any) -> list[Term]:
    """Committed units of h running in t, as capacity (−1 each, beside −rent)."""
    return [(-1.0, var.commit[k]) for k in d.commit_active.get((h, t), ())]


def add_commitments(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """On-demand and committed units together stay within the rental cap::

        rent[h,t] + Σ_{k,v: v ≤ t < v + k} commit[h,k,v] ≤ max_accelerators[h,t] / acc_h

    Rows only where a cap and a commitment exist (``rent``'s own bound covers the rest).
    """
    rows: dict[tuple, Row] = {}
    for (h, t), cap in d.rent_max_units.items():
        committed = committed_terms(d, var, h, t)
        if committed:
            terms = [(1.0, var.rent[(h, t)]), *((-c, v) for c, v in committed)]
            rows[(h, t)] = (None, terms, cap)
    add_rows(m, "rental_cap", rows, "on-demand + committed units ≤ the rental cap")


def commitment_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """Present-value USD per committed unit: ``Σ_{t in term} DF_t · L_t · rate_unit_year``."""
    df, length = d.discount_factor, d.period_length
    return {
        "commit": {
            k: sum(df[t] * length[t] for t in d.commit_periods[k]) * d.commit_usd_per_unit_year[k]
            for k in d.commit_index
        }
    }
