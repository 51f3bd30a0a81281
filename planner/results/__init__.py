"""The plan an optimisation produced, as tidy tables; the checker and diagnosis read it.

One module per group of tables, mirroring :mod:`planner.export.sheets`: ``plan`` (the
:class:`Plan` and its table units), ``fleet``, ``work`` (assignments, served, training),
``limits``, ``costs``, ``shadow``, and ``build`` (:func:`build_plan` assembles them).
``checker`` recomputes every constraint from a Plan alone; ``diagnosis`` explains it;
``comparison`` holds several plans side by side.
"""

from planner.results.build import build_plan
from planner.results.costs import COST_CATEGORIES, costs_by_year
from planner.results.fleet import fleet_by_year
from planner.results.plan import TABLE_UNITS, Plan

__all__ = ["COST_CATEGORIES", "TABLE_UNITS", "Plan", "build_plan", "costs_by_year", "fleet_by_year"]
