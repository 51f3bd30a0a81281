"""Inference demand at peak, colocated or with prefill and decode placed separately."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData


def add_inference(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Serve each workload's peak demand in every period it is active.

    Peak demand D[w,t] = tokens_per_day(t) · peak_to_average, in Mtok/day of output;
    τ[w,role,h] is the Mtok/day one unit of h delivers at the workload's SLO (perf
    model, 86,400 s/day). Colocated serving (role ``serve``: decode and prefill share
    replicas, τ counts both)::

        Σ_{h,s} τ[w,serve,h] · x_inf[w,serve,h,s,t] + unmet_inf[w,t] ≥ D[w,t]

    Disaggregated serving places decode and prefill separately; with
    q_w = input_tokens_per_output_token · (1 − cache_hit_rate) uncached input tokens
    per output token (τ of role ``prefill`` counts those)::

        Σ_{h,s} τ[w,decode,h]  · x_inf[w,decode,h,s,t]  +       unmet_inf[w,t] ≥       D[w,t]
        Σ_{h,s} τ[w,prefill,h] · x_inf[w,prefill,h,s,t] + q_w · unmet_inf[w,t] ≥ q_w · D[w,t]

    so one slack, in output tokens, releases both stages of the unserved requests.
    """

    def row(m: pyo.ConcreteModel, w: str, t: int, stage: str) -> pyo.Expression:
        share = 1.0 if stage == "output" else d.prefill_ratio[w]
        served = sum(
            d.inf_rate[(w, role, h)] * m.x_inf[w, role, h, s, t]
            for role, h, s in d.demand_terms[(w, t, stage)]
        )
        return served + share * m.unmet_inf[w, t] >= d.demand_peak[(w, t, stage)]

    m.demand = pyo.Constraint(list(d.demand_rows), rule=row)
