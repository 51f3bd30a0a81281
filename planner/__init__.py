"""planner: fleet-scale TCO and scenario planning for AI compute.

The notebook API (:mod:`planner.api`) is re-exported here on first use, so
``import planner`` stays light (no pandas, Pyomo or openpyxl until a function is used)::

    import planner
    plan = planner.plan(planner.load("scenarios/baseline.yaml"))
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

API = (
    "Plan",
    "Scenario",
    "TABLE_UNITS",
    "binding",
    "cost_by_year",
    "fleet_by_year",
    "load",
    "plan",
    "shadow_prices",
    "table_names",
    "table_files",
    "throughput",
    "with_changes",
    "write_tables",
    "write_workbook",
    "yearly",
)
"""Names of :mod:`planner.api` available as ``planner.NAME``."""


def __getattr__(name: str) -> Any:
    if name in API:
        # planner.api sits at the top of the data flow; importing it here eagerly would
        # load the whole package (and pandas, Pyomo) for `import planner`.
        return getattr(importlib.import_module("planner.api"), name)
    raise AttributeError(f"module 'planner' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
