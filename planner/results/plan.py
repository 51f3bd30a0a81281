"""The plan an optimisation produced: tidy long DataFrames, headline figures, diagnosis.

A :class:`Plan` is plain data (pandas and Python scalars): nothing here or above
touches Pyomo. Each table carries the rates it was computed from (prices, per-unit
costs, throughputs), so the independent checker (:mod:`planner.results.checker`)
and a spreadsheet can recompute every constraint and the objective from the tables
alone. Money is USD; ``_pv`` columns are present values at the start of the horizon.
Tokens are output tokens unless a column says ``prefill``.

Every table indexed by time has a ``period`` column (the period label as text: ``2027``
for yearly plans, ``2027Q3`` for quarterly ones, see :mod:`planner.scenario.periods`)
and a ``year`` column (the calendar year), so any table rolls up to years with a
group-by on ``year``: flows (costs, purchases, tokens) add up; stocks (units, MW) are
read at the year's last period (:func:`fleet_by_year`). ``costs_by_year`` is the costs
table rolled up to years.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from planner.economics import ANNUITY_CAPITAL
from planner.results.relief_text import SERVED_UNITS, USE_UNITS

TABLE_UNITS: dict[str, str] = {
    "periods": "discount factor: present value of 1 USD booked at the period start (capex "
    "of a period whose purchases arrive through it is discounted at its middle)",
    "purchases": "units; USD",
    "fleet": "units by vintage; MW of facility power; USD per unit-year",
    "rentals": "units (accelerators / accelerators per unit); USD",
    "sales": "units sold at the period start; USD (finance.sell_early)",
    "assignment_training": "units; FLOP",
    "assignment_inference": "units; tokens/s and tokens/day",
    "utilisation": "units; share of available units assigned",
    "served": "tokens/day (output); USD",
    "training": "FLOP; USD",
    "power": "MW of facility power (IT × PUE)",
    "budget": "USD",
    "supply": "units",
    "vendor_share": "accelerators; share of owned accelerators",
    "costs": "USD; usd_pv is discounted to the horizon start",
    "costs_by_year": "USD; the costs table summed over each year's periods",
    "usd_per_mtok": f"USD per million output tokens served; capital: {ANNUITY_CAPITAL}",
    "shadow_prices": "value: present-value USD at the horizon start; value_in_year_usd: "
    "that year's USD; the unit column says per what",
    "revenue": "USD; Mtok of output tokens; usd_pv is discounted to the horizon start",
    "investment": "USD per year (cash); the residual is book value, not cash",
    "investment_by_workload": (
        f"USD per year; USD per million output tokens; cost: {ANNUITY_CAPITAL}"
    ),
    "relief_served": SERVED_UNITS,
    "relief_use": USE_UNITS,
}


@dataclass(frozen=True)
class Plan:
    """Everything a solve produced, as tables and figures (see ``TABLE_UNITS``)."""

    scenario: str
    status: str
    headline: dict[str, Any]
    tables: dict[str, pd.DataFrame]
    diagnosis: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    """Scalars the tables do not repeat per row (availability, penalties, …)."""
    inference_throughput: pd.DataFrame = field(default_factory=pd.DataFrame)
    """The perf model's inference table the plan was solved with (the Throughput sheets
    show it); not one of ``tables``, so not in :meth:`to_json`."""
    training_throughput: pd.DataFrame = field(default_factory=pd.DataFrame)
    """The perf model's training table the plan was solved with."""

    @property
    def ramp_periods(self) -> frozenset[str]:
        """The periods whose purchases arrive through them (deliveries through the period:
        half their running costs, capex paid and priced mid-period); empty otherwise."""
        return frozenset(str(p) for p in self.parameters.get("ramp_periods", ()))

    def __getattr__(self, name: str) -> pd.DataFrame:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(name)

    def to_json(self) -> dict[str, Any]:
        """The plan as one JSON-ready document (NaN becomes null on output)."""
        return {
            "scenario": self.scenario,
            "status": self.status,
            "headline": self.headline,
            "diagnosis": self.diagnosis,
            "parameters": self.parameters,
            "tables": {
                name: frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
                for name, frame in self.tables.items()
            },
        }
