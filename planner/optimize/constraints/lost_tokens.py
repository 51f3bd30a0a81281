"""Demand lost to a shortfall at peak, under the linear load-duration curve."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.economics.load_shape import lost_lines
from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_lost_tokens(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Lost average demand over the convex piecewise-linear epigraph of the peak shortfall.

    With P = D[w,t] the peak (Mtok/day of output), a = p2a_w, M = P / a the mean and
    u = unmet_inf[w,t] the capacity short of the peak, demand sorted by load over a day
    falls linearly (:mod:`planner.economics.load_shape`): from P to P·(2/a − 1) for
    a ≤ 2, from P to 0 over a share 2/a of the day for a > 2. The demand lost on
    average over the day is ℓ(u) = u²/(2s) up to u = s and u − s/2 after (s = 2P(1 − 1/a)
    for a ≤ 2, P·a/2 for a > 2): convex, ℓ(0) = 0, ℓ(P) = M, ℓ = u for flat demand.

    ``lost_inf[w,t]`` lies above each chord k of the quadratic part (breakpoints
    x_k = k·q/K, q = min(s, P), K = :data:`~planner.economics.load_shape.CHORDS`,
    c = 1/(2s)) and above the linear part when s < P::

        lost_inf[w,t] − c·(x_k + x_k+1) · unmet_inf[w,t] ≥ −c · x_k · x_k+1     k < K
        lost_inf[w,t] −                    unmet_inf[w,t] ≥ −s/2                (s < P)

    Every objective puts a positive weight on ``lost_inf`` (penalty, unserved share,
    revenue forgone), so at an optimum it sits on the interpolant: exact at the
    breakpoints, at most M·min(a − 1, 1)/(4K²) above ℓ (1/64 of M with K = 4). Flat
    demand (a = 1) needs one row (lost = u); K rows for a ≥ 2, K + 1 below.
    """

    rows: dict[tuple, Row] = {}
    for w, t in d.demand_index:
        peak = d.demand_peak[(w, t, "output")]
        lost, unmet = var.lost_inf[(w, t)], var.unmet_inf[(w, t)]
        for k, (slope, intercept) in enumerate(lost_lines(peak, d.peak_to_average[w])):
            rows[(w, t, k)] = (intercept, [(1.0, lost), (-slope, unmet)], None)
    add_rows(m, "lost_tokens", rows, "lost average demand ≥ each piece of ℓ(peak shortfall)")
