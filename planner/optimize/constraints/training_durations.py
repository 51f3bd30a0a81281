"""Training runs with a duration: one fixed cluster from a menu, for the run's whole time."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.constraints.capacity import place_available
from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_training_durations(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """The chosen size and start fix the run's units in every period; done means chosen.

    With z[r,h,s,u,p] the binary choice of u units of h at s from period p's start and
    c[r,h,s,u,p,t] the units it occupies on average over period t (see
    :mod:`planner.optimize.data.training_menu`), for each run r with a duration::

        Σ_{u,p} z[r,h,s,u,p] = y[r,h,s]                         (one size, one start)
        x_train[r,h,s,t] = Σ_{u,p} c[r,h,s,u,p,t] · z[r,h,s,u,p]  (the same units throughout)
        F_r · Σ_{h,s} y[r,h,s] + unmet_train[r] ≥ F_r          (a menu size finishes F_r)

    and, because the installed fleet is constant inside a period, the whole cluster must
    exist in every period the run touches, not only its average share (a 78-day run on
    2,048 units in a yearly period needs 2,048 units available, though it occupies
    2,048 · 78/365.25 unit-years of them)::

        Σ_{u,p : choice covers t} u · z[r,h,s,u,p] ≤ α · installed[h,s,t]   (owned site s)
        Σ_{u,p : choice covers t} u · z[r,(rented),u,p] ≤ rent[h,t] + committed units

    (per run: two runs in one period may follow each other, so their clusters are not
    summed; their unit-time is, in ``training_capacity``).

    Every size on the menu finishes the run's F_r FLOPs in its time, so the run is done
    exactly when a choice is made; ``training_one_cluster`` keeps Σ y ≤ 1.
    """
    z, y, x_train, unmet = var.z_train, var.y, var.x_train, var.unmet_train
    choice: dict[tuple, Row] = {key: (0.0, [(-1.0, y[key])], 0.0) for key in _menu_keys(d)}
    occupancy: dict[tuple, Row] = {
        (r, h, s, t): (0.0, [(-1.0, x_train[(r, h, s, t)])], 0.0)
        for r, h, s, t in d.train_index
        if r in d.train_duration_runs
    }
    for key in d.train_menu_index:
        r, h, s, _, _ = key
        choice[(r, h, s)][1].append((1.0, z[key]))
        for t, units in d.train_menu_cover[key]:
            occupancy[(r, h, s, t)][1].append((units, z[key]))
    add_rows(m, "training_menu_choice", choice, "one size and one start, on the chosen cluster")
    add_rows(m, "training_fixed_cluster", occupancy, "units in t = the chosen cluster's share")
    completion: dict[str, Row] = {
        r: (d.train_zflop[r], [(1.0, unmet[r])], None) for r in d.train_duration_runs
    }
    for r, h, s in choice:
        completion[r][1].append((d.train_zflop[r], y[(r, h, s)]))
    add_rows(m, "training_duration_completion", completion, "a chosen size + unmet ≥ required")
    whole: dict[tuple, Row] = {}
    for key in d.train_menu_index:
        r, h, s, units, _ = key
        for t, _share in d.train_menu_cover[key]:
            row = whole.setdefault((r, h, s, t), (None, place_available(d, var, h, s, t), 0.0))
            row[1].append((float(units), z[key]))
    add_rows(m, "training_whole_cluster", whole, "the chosen cluster exists in each period")


def _menu_keys(d: ModelData) -> list[tuple]:
    """(r, h, s) of runs with a duration: y of a place with no menu choice is held at 0."""
    fixed = set(d.train_duration_runs)
    return [key for key in d.train_choice_index if key[0] in fixed]
