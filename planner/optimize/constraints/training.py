"""Training runs: finished inside their window, each on one hardware type at one site."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData


def add_training(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Completion, one cluster per run, and the link between them.

    Completion of run r (F_r its FLOPs in ZFLOP; ρ[r,h,t] the ZFLOP one unit of h
    delivers over period t: goodput-adjusted FLOP/s from the perf model × seconds in t)::

        Σ_{h,s,t ∈ window(r)} ρ[r,h,t] · x_train[r,h,s,t] + unmet_train[r] ≥ F_r

    A run is one synchronised cluster: one hardware type at one site (or rented)::

        Σ_{h,s} y[r,h,s] ≤ 1

    and only the chosen (h, s) may work on it, with the tightest useful big-M, the units
    that would finish the whole run inside period t alone::

        x_train[r,h,s,t] ≤ (F_r / ρ[r,h,t]) · y[r,h,s]
    """
    m.training_completion = pyo.Constraint(
        list(d.runs),
        rule=lambda m, r: (
            sum(
                d.train_rate[(r, h, t)] * m.x_train[r, h, s, t]
                for h, s, t in d.train_terms.get(r, ())
            )
            + m.unmet_train[r]
            >= d.train_zflop[r]
        ),
    )
    choices: dict[str, list[tuple[str, str]]] = {}
    for r, h, s in d.train_choice_index:
        choices.setdefault(r, []).append((h, s))
    m.training_one_cluster = pyo.Constraint(
        list(choices), rule=lambda m, r: sum(m.y[r, h, s] for h, s in choices[r]) <= 1
    )
    m.training_cluster_link = pyo.Constraint(
        list(d.train_index),
        rule=lambda m, r, h, s, t: (
            m.x_train[r, h, s, t] <= d.train_big_m[(r, h, s, t)] * m.y[r, h, s]
        ),
    )
