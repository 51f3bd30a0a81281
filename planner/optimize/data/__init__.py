"""Model data: the sparse index sets and parameter dicts the optimiser is built from.

Everything the Pyomo model needs is computed here, in plain Python and pandas, from a
validated scenario and the performance model's throughput tables. Only combinations
that exist get an index: a hardware type is absent before its release year and from
sites it may not be installed at, a workload × hardware pair that cannot serve is
absent, a run is absent from hardware it cannot train on. Constraint rules then read
these dicts and never scan collections (docs/design.md).

Periods come from the scenario's horizon (:mod:`planner.scenario.periods`): each has a
label, a start in fractional years and a length in years, and year-indexed inputs reach
them by that module's rules (rates at the period start, levels held, per-year flows
times the period length). Lifetimes, windows and discounting stay in years whatever the
period length. Internal units keep the model well scaled:

* money in USD millions (:data:`planner.units.USD_SCALE`),
* inference demand and throughput in million tokens per day (Mtok/day),
* training work in ZFLOP (1e21 FLOP),
* power in MW of facility load (IT × PUE).

One module per concern, each returning a typed part of ModelData: ``rates``
(throughput, discounting), ``fleet`` (purchases, existing cohorts, what is alive),
``sites`` (running costs, power caps, rentals, places), ``work`` (training and
inference rows), ``lookups`` (who appears in which row); ``build`` assembles them.
"""

from planner.optimize.data.build import build_data
from planner.optimize.data.model_data import Key, ModelData
from planner.scenario.periods import Period, PeriodLabel
from planner.units import DAYS_PER_YEAR, HOURS_PER_YEAR, MTOK, RENTED, USD_SCALE

__all__ = [
    # The unit constants stay importable from here for the optimiser's modules.
    "DAYS_PER_YEAR",
    "HOURS_PER_YEAR",
    "MTOK",
    "RENTED",
    "USD_SCALE",
    "Key",
    "ModelData",
    "Period",
    "PeriodLabel",
    "build_data",
]
