"""Objective: net present value of the fleet's cash costs, plus penalties for unmet work.

With DF_t = (1 + wacc)^−(start_t − start of horizon) — every cash flow of a period is
booked at the period's start, so the first period is undiscounted; starts are in
fractional years, so with quarters 2027Q3 of a horizon from 2026 has DF = (1 + wacc)^−1.5
— and L_t the period length in years (running costs are per year, times L_t)::

    min  Σ_t DF_t · ( capex_t + L_t · (rent_t + energy_t + facility_t + maintenance_t
                                     + contract_t) )
         − DF_end · residual
         + Σ_{w,t} DF_t · P_inf · L_t · 365.25 · lost_inf[w,t]
         + Σ_r DF_{end of window r} · P_train · unmet_train[r]

* capex_t = Σ share · price[h,v] · buy[h,s,v] over the payments of purchases
  delivered in v that fall in t (cash, not capital recovery): all in v without a lead
  time; with one (``lead_time_months``), ``finance.capex_payment`` splits the price
  between the order period (a lead time before v) and v — see planner.scenario.timing;
* rent_t = Σ rent[h,t] · $/accelerator-hour · 8760 · accelerators;
* energy_t = Σ installed · power_kw · PUE_s · utilisation · 8760 · $/kWh(s,t);
* facility_t = Σ installed · power_kw · $/kW-year(s,t) (0 at a site that pays for its
  capacity: builds, leases or contracts its power);
* contract_t = Σ_s contracted cap_MW[s,t] · 1000 · $/kW-year of the contract: the whole
  cap, used or not, a constant (:func:`constraints.power.power_contract_pv_usd`). The
  Pyomo objective carries it as its constant, the array model as its ``offset``, so
  every objective value (and bound) a solver reports includes it;
* maintenance_t = Σ units · fraction · (price of their vintage; catalog price for the
  existing fleet);
* residual = Σ price[h,v] · buy[h,s,v] · max(0, start_v + life_h − horizon end) / life_h:
  straight-line book value of units still inside their life when the horizon ends,
  discounted from the horizon end (DF_end). The existing fleet is sunk: no capex and no
  residual, only its running costs while kept;
* commitments, datacenter blocks and leases: see :mod:`constraints.commitments` and
  :mod:`constraints.datacenter` (paid over their term inside the horizon; blocks at
  construction start, less their residual value);
* resale proceeds (``finance.sell_early``): a unit sold at the start of p is credited
  ``DF_p · price · share(age)`` (:func:`planner.economics.horizon_end.sale_share`); a
  sold purchase also gives back its residual credit (``+ DF_end · f · price``) and the
  maintenance of its life after p (energy and facility leave with ``installed``,
  an existing unit's maintenance with ``kept``);
* P_inf is ``penalties.unmet_inference_usd_per_mtok`` per Mtok of demand left unserved.
  ``unmet_inf`` is the capacity short of the peak (Mtok/day); the tokens it loses,
  ``lost_inf`` (average Mtok/day), follow the linear load-duration curve implied by
  ``peak_to_average`` (:mod:`constraints.lost_tokens`,
  :mod:`planner.economics.load_shape`): a shortfall at peak loses only the hours whose
  load is above the capacity, not that share of every hour (which ``unmet_inf / p2a``
  assumed). P_train is ``penalties.unmet_training_usd_per_pflop`` per PFLOP not done
  (10⁶ PFLOP per ZFLOP).

With ``horizon.demand_within_period: peak_average`` purchases are delivered uniformly
through their period v and a cohort leaves uniformly through its departure period
v + N (:mod:`planner.optimize.data.deliveries`, which argues why the end-of-period
constraints then hold at every instant). A purchase then runs half of v and half of
v + N (if inside the horizon): its coefficient takes off ``½ · DF_v · L_v`` times its
energy, facility and maintenance of v (``installed`` counts v whole) and adds
``½ · DF_{v+N} · L_{v+N}`` times those of v + N; each payment is discounted at its
period's middle, ``DF(start_t + L_t/2)``, and the residual ages from the middle of v.
Units sold or switched off at t leave through t too: a sale adds
``½ · DF_t · L_t`` times the unit's running costs of t (and takes the departure half
off again; its proceeds stay at t's start), and an existing unit kept in t pays half
of t's and half of the next period's (``installed`` and ``kept`` count t whole), so
``(kept[t−1] + kept[t]) / 2`` units run in t. The opening periods' purchases
(:func:`planner.optimize.data.deliveries.opening_periods`) keep the start timing.

By linearity each variable gets one present-value coefficient, and the model is built
from those, in USD millions: a purchase carries its price, its maintenance over its
life inside the horizon and minus its residual value; each installed unit-period its
energy and facility cost (whoever bought it); each kept existing unit-period its
maintenance; rentals and slacks their own cost. The per-unit rates (energy, facility,
maintenance, rent, residual fraction, discount factors) are :mod:`planner.economics`'s,
the same functions ``planner throughput`` quotes unit costs with.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression

from planner.economics import maintenance_usd_per_unit_year
from planner.economics.horizon_end import sale_proceeds_usd
from planner.optimize.constraints.commitments import commitment_coefficients
from planner.optimize.constraints.datacenter import datacenter_coefficients
from planner.optimize.constraints.power import power_contract_pv_usd
from planner.optimize.data import Key, ModelData
from planner.optimize.data.deliveries import (
    departure_usd_pv,
    running_usd_per_unit_year,
    sold_through_usd_pv,
    switch_off_usd_pv,
)
from planner.optimize.extract import Solution
from planner.optimize.linear import linear
from planner.optimize.variables import Vars
from planner.units import DAYS_PER_YEAR, MTOK, PFLOP, USD_SCALE, ZFLOP


def present_value_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """Each variable's contribution to the objective per unit, present-value USD."""
    df, length = d.discount_factor, d.period_length
    # years_pv[k]: Σ DF·L over the first k periods, so a unit's life in PV-years is a
    # difference of two entries (no loop over the periods it lives in).
    years_pv = [0.0, *itertools.accumulate(df[p.label] * p.length_years for p in d.periods)]
    position = {p.label: p.index for p in d.periods}
    count = len(d.periods)
    buy: dict[Key, float] = {}
    for h, s, v in d.buy_index:
        price = d.price_usd[(h, v)]
        first = position[v]
        last = min(first + round(d.lifetime_years[h] * d.periods_per_year), count)
        paid = sum(share * d.paid_factor(t) for t, share in d.payments(h, v))
        # Delivered through v: it misses half of v's running costs (installed counts
        # them whole) and runs half of its departure period (installed does not).
        missed = (1.0 - d.arrival_share(h, v, v)) * df[v] * length[v]
        buy[(h, s, v)] = (
            paid * price
            - d.discount_factor_end * d.residual_fraction[(h, v)] * price
            + maintenance_usd_per_unit_year(price, d.maintenance_fraction)
            * (years_pv[last] - years_pv[first])
            - missed * running_usd_per_unit_year(d, h, s, v, v)
            + departure_usd_pv(d, h, s, v)
        )
    installed = {
        (h, s, t): df[t]
        * length[t]
        * (d.energy_usd_per_unit_year[(h, s, t)] + d.facility_usd_per_unit_year[(h, s, t)])
        for h, s, t in d.fleet_index
    }
    kept = {
        (h, s, i, t): df[t]
        * length[t]
        * maintenance_usd_per_unit_year(d.existing_price_usd[(h, s, i)], d.maintenance_fraction)
        + switch_off_usd_pv(d, h, s, i, t)
        for h, s, i, t in d.existing_index
    }
    rent = {k: df[k[1]] * length[k[1]] * d.rent_usd_per_unit_year[k] for k in d.rent_index}
    sell: dict[Key, float] = {}
    for h, s, v, p in d.sell_index:
        price = d.price_usd[(h, v)]
        last = min(position[v] + round(d.lifetime_years[h] * d.periods_per_year), count)
        sell[(h, s, v, p)] = (
            -df[p] * sale_proceeds_usd(1.0, price, d.sale_share[(h, s, v, p)])
            + d.discount_factor_end * d.residual_fraction[(h, v)] * price
            - maintenance_usd_per_unit_year(price, d.maintenance_fraction)
            * (years_pv[last] - years_pv[position[p]])
            - departure_usd_pv(d, h, s, v)  # sold: it does not run into its departure
            + sold_through_usd_pv(d, h, s, v, p)
        )
    sell_existing = {
        (h, s, i, p): -df[p]
        * sale_proceeds_usd(
            1.0, d.existing_price_usd[(h, s, i)], d.sale_share_existing[(h, s, i, p)]
        )
        for h, s, i, p in d.sell_existing_index
    }
    lost_inf = {
        (w, t): df[t] * length[t] * DAYS_PER_YEAR * d.penalty_usd_per_mtok
        for w, t in d.demand_index
    }
    unmet_train = {
        r: df[d.train_penalty_period[r]] * d.penalty_usd_per_pflop * ZFLOP / PFLOP for r in d.runs
    }
    return {
        "buy": buy,
        "installed": installed,
        "kept": kept,
        "rent": rent,
        "sell": sell,
        "sell_existing": sell_existing,
        "lost_inf": lost_inf,
        "unmet_train": unmet_train,
        **commitment_coefficients(d),
        **datacenter_coefficients(d),
    }


PENALTY_FAMILIES = ("lost_inf", "unmet_train")
"""The objective's variable families that carry a penalty, not a cash cost."""

SERVICE_TOLERANCE = 1e-8
"""How much more weighted unserved share the cost stage may leave than the service
stage found, relative (plus :data:`SERVICE_ABSOLUTE`): solver round-off, not a trade."""
SERVICE_ABSOLUTE = 1e-6
"""The absolute part of that tolerance, in the scaled units of :func:`service_scale`
(where the smallest weight is 1: far below one Mtok/day of any workload)."""


def _terms(
    d: ModelData, var: Any, coefficients: dict[str, dict[Any, float]]
) -> list[tuple[float, Any]]:
    terms = []
    for name, by_key in coefficients.items():
        family = getattr(var, name)
        terms += [(c, family[key]) for key, c in by_key.items() if c]
    return terms


def pv_cost_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """The objective's coefficients, USD millions: family → key → present value."""
    return {
        name: {k: c / USD_SCALE for k, c in by_key.items()}
        for name, by_key in present_value_coefficients(d).items()
    }


def pv_cost_constant(d: ModelData) -> float:
    """The objective's constant, USD millions: the power contracts' present value."""
    return power_contract_pv_usd(d) / USD_SCALE


def with_constant(terms: list[tuple[float, Any]], constant: float) -> Any:
    """``constant + Σ terms`` as one flat expression (no constant term when it is 0, so
    a model without one is unchanged)."""
    expr = linear(terms)
    return LinearExpression([constant, *expr.args]) if constant else expr


def add_objective(m: pyo.ConcreteModel, d: ModelData, var: Vars) -> None:
    """Minimise present-value cost (USD millions) as the module docstring states."""
    expr = with_constant(_terms(d, var, pv_cost_coefficients(d)), pv_cost_constant(d))
    m.cost = pyo.Objective(expr=expr, sense=pyo.minimize)


def service_coefficients(d: ModelData) -> dict[str, dict[Any, float]]:
    """Each slack's weight in the service objective, by ``d.service_measure``.

    ``weighted_share`` (default): the priority-weighted unserved share. A workload's
    unserved share is its unserved output tokens over the horizon divided by its
    demanded tokens; a run's, its undone ZFLOP divided by the ZFLOP it needs. So
    ``lost_inf[w,t]`` (average Mtok/day lost under the load shape) weighs
    ``priority_w · L_t · 10⁶ / Σ_t' L_t' · tokens_per_day[w,t']`` and
    ``unmet_train[r]`` weighs ``priority_r / F_r``; a workload or run left wholly unserved
    adds its priority.
    ``tokens``: ``lost_inf[w,t]`` weighs ``L_t · 10⁶ / D`` with D all workloads' demanded
    tokens (every token alike; all demand unserved adds 1). ``revenue``: it weighs
    ``price_{w,t} · L_t · 10⁶ / R`` with R the revenue of all demand (all of it unserved
    adds 1). Runs weigh ``priority_r / F_r`` under every measure.
    """
    length = d.period_length
    measure = d.service_measure
    demanded: dict[str, float] = {}
    for (w, t), tokens in d.demand_tokens_per_day.items():
        demanded[w] = demanded.get(w, 0.0) + length[t] * tokens
    if measure == "weighted_share":
        lost_inf = {
            (w, t): d.workload_priority[w] * length[t] * MTOK / demanded[w]
            for w, t in d.demand_index
            if demanded.get(w, 0.0) > 0
        }
    else:
        price = {
            (w, t): 1.0 if measure == "tokens" else d.revenue_usd_per_mtok.get((w, t), 0.0)
            for w, t in d.demand_index
        }
        total = sum(
            price[(w, t)] * length[t] * d.demand_tokens_per_day.get((w, t), 0.0)
            for w, t in d.demand_index
        )
        lost_inf = {
            (w, t): price[(w, t)] * length[t] * MTOK / total
            for w, t in d.demand_index
            if total > 0 and price[(w, t)] > 0
        }
    unmet_train = {
        r: d.run_priority[r] / d.train_zflop[r] for r in d.runs if d.train_zflop.get(r, 0.0) > 0
    }
    return {"lost_inf": lost_inf, "unmet_train": unmet_train}


def npv_cost(model: pyo.ConcreteModel, d: ModelData) -> Any:
    """The model's cash-cost NPV (USD millions) without the penalty terms."""
    pv = {
        name: {k: c / USD_SCALE for k, c in by_key.items()}
        for name, by_key in present_value_coefficients(d).items()
        if name not in PENALTY_FAMILIES
    }
    return with_constant(_terms(d, model, pv), pv_cost_constant(d))


def service_scale(d: ModelData) -> float:
    """What the service objective is multiplied by for the solver: its smallest weight
    becomes 1 (weights near 10⁻⁸ per Mtok/day would sit below the solver's optimality
    tolerances, which would then call a plan leaving demand unserved optimal)."""
    weights = [c for by_key in service_coefficients(d).values() for c in by_key.values() if c]
    return 1.0 / min(weights) if weights else 1.0


def unserved_share(model: pyo.ConcreteModel, d: ModelData) -> Any:
    """The priority-weighted unserved share (see :func:`service_coefficients`), times
    :func:`service_scale`."""
    scale = service_scale(d)
    coefficients = {
        name: {k: c * scale for k, c in by_key.items()}
        for name, by_key in service_coefficients(d).items()
    }
    return linear(_terms(d, model, coefficients))


@dataclass(frozen=True)
class ServiceFirst:
    """The service stage of ``objective: min_cost``: minimise the weighted unserved share.

    A build hook (``extend=`` of :func:`planner.pipeline.build_and_solve`); the model's
    ``cost`` objective is deactivated, not removed, so the solution's cost is still read
    from it.
    """

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        model.cost.deactivate()
        model.service = pyo.Objective(expr=unserved_share(model, data), sense=pyo.minimize)


@dataclass(frozen=True)
class CostWithServiceHeld:
    """The cost stage of ``objective: min_cost``: minimise the NPV cost (no penalties)
    with the weighted unserved share at most ``unserved`` (the service stage's
    objective, scaled as it was by :func:`service_scale`, plus
    :data:`SERVICE_TOLERANCE`). When the service stage served everything, every slack's
    upper bound is set to 0 instead (no row, no tolerance)."""

    unserved: float
    start: Solution | None = None
    """The service stage's plan: its whole-unit decisions start the cost stage's MIP
    (it meets the held service, and the MIP's own heuristics rarely find such a plan)."""

    @property
    def cap(self) -> float:
        return self.unserved * (1 + SERVICE_TOLERANCE) + SERVICE_ABSOLUTE

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        if self.unserved <= SERVICE_ABSOLUTE:
            # Everything can be served: no slack may be used, not even the tolerance's.
            for family in (model.unmet_inf, model.lost_inf, model.unmet_train):
                for slack in family.values():
                    slack.setub(0.0)
        elif any(service_coefficients(data).values()):
            model.service_held = pyo.Constraint(expr=unserved_share(model, data) <= self.cap)
        model.cost.deactivate()
        model.npv = pyo.Objective(expr=npv_cost(model, data), sense=pyo.minimize)
        if self.start is not None and not data.relax:
            for family in ("buy", "kept", "y", "sell", "sell_existing"):
                given = getattr(self.start, family)
                for key, var in getattr(model, family).items():
                    var.set_value(given.get(key, 0.0), skip_validation=True)
