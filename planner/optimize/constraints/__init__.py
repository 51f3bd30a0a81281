"""Constraint families of the fleet model, one module each (docs/concepts/optimiser.md).

Each module has one public function ``add_<family>(m, data, var)`` whose docstring holds
its maths. They read only the sparse lookups of :class:`ModelData` and the variables
as plain dicts (:class:`planner.optimize.variables.Vars`), compute their rows as data
and declare them with :func:`planner.optimize.linear.add_rows`.
"""

from planner.optimize.constraints.budget import add_budget
from planner.optimize.constraints.capacity import add_capacity
from planner.optimize.constraints.commitments import add_commitments
from planner.optimize.constraints.datacenter import add_datacenter
from planner.optimize.constraints.fleet import add_fleet
from planner.optimize.constraints.inference import add_inference
from planner.optimize.constraints.lost_tokens import add_lost_tokens
from planner.optimize.constraints.period_start import add_period_start
from planner.optimize.constraints.power import add_power
from planner.optimize.constraints.sales import add_sales
from planner.optimize.constraints.supply import add_first_year_supply, add_supply
from planner.optimize.constraints.training import add_training
from planner.optimize.constraints.training_durations import add_training_durations
from planner.optimize.constraints.vendor_share import add_vendor_share

__all__ = [
    "add_budget",
    "add_capacity",
    "add_commitments",
    "add_datacenter",
    "add_first_year_supply",
    "add_fleet",
    "add_inference",
    "add_lost_tokens",
    "add_period_start",
    "add_power",
    "add_sales",
    "add_supply",
    "add_training",
    "add_training_durations",
    "add_vendor_share",
]
