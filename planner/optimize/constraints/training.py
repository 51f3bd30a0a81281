"""Training runs: finished inside their window, each on one hardware type at one site."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_training(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Completion, one cluster per run, and the link between them.

    Completion of run r (F_r its FLOPs in ZFLOP; ρ[r,h,t] the ZFLOP one unit of h
    delivers over period t: goodput-adjusted FLOP/s from the perf model × seconds in t)::

        Σ_{h,s,t ∈ window(r)} ρ[r,h,t] · x_train[r,h,s,t] + unmet_train[r] ≥ F_r

    A run is one synchronised cluster: one hardware type at one site (or rented)::

        Σ_{h,s} y[r,h,s] ≤ 1

    and only the chosen (h, s) may work on it, with the tightest useful big-M, the units
    that would finish the whole run inside period t alone::

        x_train[r,h,s,t] ≤ (F_r / ρ[r,h,t]) · y[r,h,s]

    Runs with a duration take their completion and link rows from
    :func:`planner.optimize.constraints.training_durations.add_training_durations`.
    """
    x_train, y, unmet = var.x_train, var.y, var.unmet_train
    completion: dict[str, Row] = {}
    fixed = set(d.train_duration_runs)  # completion and link: training_durations
    for r in d.runs:
        if r in fixed:
            continue
        terms = [
            (d.train_rate[(r, h, t)], x_train[(r, h, s, t)]) for h, s, t in d.train_terms.get(r, ())
        ]
        completion[r] = (d.train_zflop[r], [*terms, (1.0, unmet[r])], None)
    add_rows(m, "training_completion", completion, "FLOP done in the window + unmet ≥ required")
    choices: dict[str, Row] = {}
    for r, h, s in d.train_choice_index:
        choices.setdefault(r, (None, [], 1.0))[1].append((1.0, y[(r, h, s)]))
    add_rows(m, "training_one_cluster", choices, "one hardware type at one place per run")
    link: dict[tuple, Row] = {
        (r, h, s, t): (None, [(1.0, x_train[(r, h, s, t)]), (-big_m, y[(r, h, s)])], 0.0)
        for (r, h, s, t), big_m in d.train_big_m.items()
        if r not in fixed
    }
    add_rows(m, "training_cluster_link", link, "only the chosen cluster works on the run")
