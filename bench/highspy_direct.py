"""The fleet model's LP relaxation built straight from ModelData with highspy's API.

The lower bound of modelling overhead (issue 7, item 3): the same variables, rows and
objective coefficients as ``planner.optimize.build_model`` with purchases and cluster
choices continuous, assembled in plain Python as row-wise sparse arrays (CSR) and
handed to HiGHS in one ``passModel``. No Pyomo, no expression objects, no names.
Its optimum equals the Pyomo LP relaxation's (``python bench/highspy_direct.py FILE``
checks that), so the two builds are comparable.

    python bench/highspy_direct.py scenario.yaml      # build, solve, compare with Pyomo
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import highspy
import numpy as np

from planner.optimize.data import RENTED, USD_SCALE, ModelData
from planner.optimize.objective import present_value_coefficients
from planner.optimize.solve import new_highs

INF = highspy.kHighsInf


@dataclass
class DirectModel:
    """A highspy model of ``ModelData`` and what it took to build it."""

    highs: highspy.Highs
    columns: int
    rows: int
    nonzeros: int
    build_seconds: float


class _Builder:
    """Columns by family and key, and rows as CSR arrays."""

    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.cost: list[float] = []
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []
        self.start: list[int] = [0]
        self.index: list[int] = []
        self.value: list[float] = []

    def columns(self, keys: Any, lower: Any, upper: Any, cost: dict[Any, float]) -> dict[Any, int]:
        """Add one column per key; ``lower``/``upper`` are numbers or key → bound."""
        first = len(self.lower)
        keys = list(keys)
        self.lower += [lower(k) if callable(lower) else lower for k in keys]
        self.upper += [upper(k) if callable(upper) else upper for k in keys]
        self.cost += [cost.get(k, 0.0) / USD_SCALE for k in keys]
        return dict(zip(keys, range(first, first + len(keys)), strict=True))

    def row(self, cols: list[int], coefs: list[float], lower: float, upper: float) -> None:
        self.index += cols
        self.value += coefs
        self.start.append(len(self.index))
        self.row_lower.append(lower)
        self.row_upper.append(upper)

    def highs(self) -> highspy.Highs:
        lp = highspy.HighsLp()
        lp.num_col_ = len(self.lower)
        lp.num_row_ = len(self.row_lower)
        lp.col_cost_ = np.array(self.cost, dtype=np.double)
        lp.col_lower_ = np.array(self.lower, dtype=np.double)
        lp.col_upper_ = np.array(self.upper, dtype=np.double)
        lp.row_lower_ = np.array(self.row_lower, dtype=np.double)
        lp.row_upper_ = np.array(self.row_upper, dtype=np.double)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.num_col_ = lp.num_col_
        lp.a_matrix_.num_row_ = lp.num_row_
        lp.a_matrix_.start_ = np.array(self.start, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(self.index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(self.value, dtype=np.double)
        highs = new_highs()
        highs.passModel(lp)
        return highs


def build_direct(d: ModelData) -> DirectModel:
    """The LP relaxation of ``d`` as a highspy model (see the module docstring)."""
    started = time.perf_counter()
    b = _Builder()
    pv = present_value_coefficients(d)
    buy = b.columns(d.buy_index, 0.0, INF, pv["buy"])
    kept = b.columns(
        d.existing_index, 0.0, lambda k: d.existing_units[(k[0], k[1], k[2])], pv["kept"]
    )
    installed = b.columns(d.fleet_index, 0.0, INF, pv["installed"])
    rent = b.columns(d.rent_index, 0.0, lambda k: d.rent_max_units.get(k, INF), pv["rent"])
    y = b.columns(d.train_choice_index, 0.0, 1.0, {})
    x_train = b.columns(d.train_index, 0.0, INF, {})
    x_inf = b.columns(d.inf_index, 0.0, INF, {})
    unmet_inf = b.columns(
        d.demand_index, 0.0, lambda k: d.demand_peak[(k[0], k[1], "output")], pv["unmet_inf"]
    )
    unmet_train = b.columns(d.runs, 0.0, lambda r: d.train_zflop[r], pv["unmet_train"])

    # fleet: the installed stock balance; existing units never return.
    for key, (before, entering, leaving, cohorts, cohorts_before) in d.fleet_balance.items():
        cols = [installed[key]]
        coefs = [1.0]
        if before is not None:
            cols.append(installed[before])
            coefs.append(-1.0)
        cols += [buy[v] for v in entering] + [buy[v] for v in leaving]
        coefs += [-1.0] * len(entering) + [1.0] * len(leaving)
        cols += [kept[c] for c in cohorts] + [kept[c] for c in cohorts_before]
        coefs += [-1.0] * len(cohorts) + [1.0] * len(cohorts_before)
        b.row(cols, coefs, 0.0, 0.0)
    for h, s, i, t in d.existing_index:
        prev = d.previous_period.get(t)
        if prev is not None and (h, s, i, prev) in kept:
            b.row([kept[(h, s, i, t)], kept[(h, s, i, prev)]], [1.0, -1.0], -INF, 0.0)

    def available(h: str, s: str, t: Any) -> tuple[int, float]:
        return (rent[(h, t)], -1.0) if s == RENTED else (installed[(h, s, t)], -d.availability)

    # capacity pooled per hardware and period; training per place where h has several.
    for h, t in d.pool_index:
        cols = [x_train[(r, h, s, t)] for r, s in d.pool_train.get((h, t), ())]
        cols += [x_inf[(w, o, h, t)] for w, o in d.pool_inf.get((h, t), ())]
        coefs = [1.0] * len(cols)
        for s in d.places[(h, t)]:
            col, coef = available(h, s, t)
            cols.append(col)
            coefs.append(coef)
        b.row(cols, coefs, -INF, 0.0)
    for h, s, t in d.site_train_index:
        cols = [x_train[(r, h, s, t)] for r in d.train_at_unit[(h, s, t)]]
        col, coef = available(h, s, t)
        b.row([*cols, col], [1.0] * len(cols) + [coef], -INF, 0.0)
    # training: completion, one cluster, cluster links.
    for r in d.runs:
        terms = d.train_terms.get(r, ())
        cols = [x_train[(r, h, s, t)] for h, s, t in terms]
        coefs = [d.train_rate[(r, h, t)] for h, s, t in terms]
        b.row([*cols, unmet_train[r]], [*coefs, 1.0], d.train_zflop[r], INF)
    choices: dict[str, list[int]] = defaultdict(list)
    for key in d.train_choice_index:
        choices[key[0]].append(y[key])
    for cols in choices.values():
        b.row(cols, [1.0] * len(cols), -INF, 1.0)
    for key in d.train_index:
        r, h, s, _ = key
        b.row([x_train[key], y[(r, h, s)]], [1.0, -d.train_big_m[key]], -INF, 0.0)
    # inference demand at peak.
    for w, t, stage in d.demand_rows:
        share = 1.0 if stage == "output" else d.prefill_ratio[w]
        terms = d.demand_terms[(w, t, stage)]
        cols = [x_inf[(w, role, h, t)] for role, h in terms]
        coefs = [d.inf_rate[(w, role, h)] for role, h in terms]
        b.row([*cols, unmet_inf[(w, t)]], [*coefs, share], d.demand_peak[(w, t, stage)], INF)
    # power per site and period.
    for (s, t), hardware in d.site_fleet.items():
        cols = [installed[(h, s, t)] for h in hardware]
        coefs = [d.power_kw[h] * d.pue[s] / 1000.0 for h in hardware]
        b.row(cols, coefs, -INF, d.power_cap_mw[(s, t)])
    # capex budget, supply caps.
    for t, limit in d.budget_usd.items():
        pairs = d.period_buys.get(t)
        if pairs:
            cols = [buy[(h, s, t)] for h, s in pairs]
            coefs = [d.price_usd[(h, t)] / USD_SCALE for h, s in pairs]
            b.row(cols, coefs, -INF, limit / USD_SCALE)
    for (h, t), cap in d.supply_max_units.items():
        cols = [buy[(h, s, t)] for s in d.supply_terms[(h, t)]]
        b.row(cols, [1.0] * len(cols), -INF, cap)
    # vendor share: Σ_h a_h/1000 · (1[vendor h = v] − σ_v) · installed ≤ 0.
    for v, sigma in d.vendor_share_max.items():
        for t in d.labels:
            fleet = d.period_fleet.get(t, ())
            if not any(d.vendor[h] == v for h, _ in fleet):
                continue
            cols = [installed[(h, s, t)] for h, s in fleet]
            coefs = [d.accelerators[h] / 1000.0 * ((d.vendor[h] == v) - sigma) for h, s in fleet]
            b.row(cols, coefs, -INF, 0.0)
    highs = b.highs()
    return DirectModel(
        highs=highs,
        columns=len(b.lower),
        rows=len(b.row_lower),
        nonzeros=len(b.value),
        build_seconds=time.perf_counter() - started,
    )


def main(argv: list[str] | None = None) -> int:
    """Build ``FILE``'s LP both ways, solve both and compare the optima."""
    from dataclasses import replace

    from planner.optimize import SolverOptions, build_data, build_model, solve, throughput
    from planner.scenario import load_scenario

    path = Path((argv or sys.argv[1:])[0])
    scenario = load_scenario(path)
    data = build_data(scenario, *throughput(scenario), relax=True)
    direct = build_direct(data)
    print(
        f"direct: {direct.columns:,} columns, {direct.rows:,} rows, {direct.nonzeros:,} "
        f"nonzeros, built in {direct.build_seconds:.3f} s"
    )
    direct.highs.run()
    objective = direct.highs.getInfo().objective_function_value
    result = solve(build_model(replace(data, relax=True)), SolverOptions())
    print(f"objective: direct {objective:,.6f}, Pyomo {result.objective:,.6f} (USD M)")
    return (
        0
        if result.objective is not None
        and abs(objective - result.objective) <= 1e-6 * max(1.0, abs(objective))
        else 1
    )


if __name__ == "__main__":
    raise SystemExit(main())
