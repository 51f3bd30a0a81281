"""Inference demand at peak, colocated or with prefill and decode placed separately."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData
from planner.optimize.linear import Row, add_rows
from planner.optimize.variables import Vars


def add_inference(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Serve each workload's peak demand in every period it is active.

    Peak demand D[w,t] = max_{y∈t} tokens_per_day(y) · peak_to_average (for a growing
    series its value at the period's end), in Mtok/day of output;
    τ[w,role,h] is the Mtok/day one unit of h delivers at the workload's SLO (perf
    model, 86,400 s/day). Colocated serving (role ``serve``: decode and prefill share
    replicas, τ counts both)::

        Σ_h τ[w,serve,h] · x_inf[w,serve,h,t] + unmet_inf[w,t] ≥ D[w,t]

    Disaggregated serving places decode and prefill separately; with
    q_w = input_tokens_per_output_token · (1 − cache_hit_rate) uncached input tokens
    per output token (τ of role ``prefill`` counts those)::

        Σ_h τ[w,decode,h]  · x_inf[w,decode,h,t]  +       unmet_inf[w,t] ≥       D[w,t]
        Σ_h τ[w,prefill,h] · x_inf[w,prefill,h,t] + q_w · unmet_inf[w,t] ≥ q_w · D[w,t]

    so one slack, in output tokens, releases both stages of the unserved requests.
    """

    x_inf, unmet = var.x_inf, var.unmet_inf
    rows: dict[tuple, Row] = {}
    for w, t, stage in d.demand_rows:
        share = 1.0 if stage == "output" else d.prefill_ratio[w]
        terms = [
            (d.inf_rate[(w, role, h)], x_inf[(w, role, h, t)])
            for role, h in d.demand_terms[(w, t, stage)]
        ]
        rows[(w, t, stage)] = (
            d.demand_peak[(w, t, stage)],
            [*terms, (share, unmet[(w, t)])],
            None,
        )
    add_rows(m, "demand", rows, "peak demand served + unmet ≥ peak demand")
