"""Purchases fixed in advance: the hook behind first-year regret analysis.

:class:`FixedPurchases` is plain data — the calendar year whose purchases are decided,
and the units bought of each (hardware, site, period) in it — that the pipeline's build
step applies to the built model (``extend=`` in :func:`planner.pipeline.plan`)::

    buy[h,s,v] = units[h,s,v]   for every purchase option v ordered in ``year``
                                (0 when not named; v is the delivery period)

With ``finance.sell_early`` the early sales of ``year`` are commitments too, fixed the
same way (``sales``: units by (hardware, site, vintage, period) for purchases and
(hardware, site, install year, period) for existing cohorts, 0 when not named)::

    sell[h,s,v,p] = sales[h,s,v,p],  sell_existing[h,s,i,p] = sales[h,s,i,p]
                                      for every sale option p in ``year``

Everything after ``year`` (and rentals and retirements in it) is left to the optimiser,
so a candidate first-year plan is judged by the best the fleet can do around it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pyomo.environ as pyo

from planner.optimize.data import ModelData

PurchaseKey = tuple[str, str, str]
"""(hardware, site, period as text: ``2026`` or ``2026Q3``)."""
SaleKey = tuple[str, str, str, str]
"""(hardware, site, vintage as text — purchase period or install year —, period sold)."""


@dataclass(frozen=True)
class FixedPurchases:
    """Fix every purchase of ``year`` to ``units`` (0 for a key not named)."""

    year: int
    units: Mapping[PurchaseKey, float] = field(default_factory=dict)
    sales: Mapping[SaleKey, float] = field(default_factory=dict)
    """Units sold early in ``year`` (``finance.sell_early``), 0 for a key not named."""

    def __call__(self, model: pyo.ConcreteModel, data: ModelData) -> None:
        year_of = {str(p.label): p.year for p in data.periods}
        for h, s, v in data.buy_index:
            if year_of[str(data.order_period(h, v))] == self.year:
                model.buy[h, s, v].fix(float(self.units.get((h, s, str(v)), 0.0)))
        for family in (model.sell, model.sell_existing):
            for (h, s, vintage, p), var in family.items():
                if year_of[str(p)] == self.year:
                    var.fix(float(self.sales.get((h, s, str(vintage), str(p)), 0.0)))
