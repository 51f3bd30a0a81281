"""Physical and money constants and shared labels, defined once for all of ``planner``.

Two year lengths are in use, on purpose, and each constant says which it follows:

* the **billing year** of 365 days (8,760 hours): energy bills, facility and rental
  charges, $/accelerator-hour and full-load $/Mtok (how utilities and clouds bill);
* the **calendar year** of 365.25 days (the Julian year): work done over time —
  tokens served in a period, training seconds in a window, rollout tokens per day.

Changing either moves every number the planner prints; keep them as they are.
"""

from __future__ import annotations

from typing import Final

# --- time ---------------------------------------------------------------------------
SECONDS_PER_HOUR: Final = 3600.0
"""Seconds in an hour."""
SECONDS_PER_DAY: Final = 86_400.0
"""Seconds in a day (24 × 3600)."""
HOURS_PER_DAY: Final = 24.0
"""Hours in a day."""
DAYS_PER_BILLING_YEAR: Final = 365.0
"""Days in a billing year: yearly bills are daily bills × 365."""
HOURS_PER_YEAR: Final = HOURS_PER_DAY * DAYS_PER_BILLING_YEAR
"""Hours in a billing year, 8,760 (365 × 24): energy, rentals, per-accelerator-hour
prices and the full-load capacity of a unit over a year."""
DAYS_PER_YEAR: Final = 365.25
"""Days in a calendar (Julian) year: tokens and work done over periods and windows."""
SECONDS_PER_YEAR: Final = DAYS_PER_YEAR * SECONDS_PER_DAY
"""Seconds in a calendar year (365.25 × 86,400): training work over a period."""

# --- power --------------------------------------------------------------------------
KW_PER_MW: Final = 1000.0
"""Kilowatts in a megawatt: facility power is reported and capped in MW."""

# --- counts and compute ----------------------------------------------------------------
BILLION: Final = 1e9
"""Parameters in a billion (catalog parameter counts are in billions)."""
TERA: Final = 1e12
"""FLOP/s in a TFLOP/s (catalog peaks are in TFLOPS)."""
GB: Final = 1e9
"""Bytes in a gigabyte (decimal, as vendors quote memory and link bandwidth)."""
GIB: Final = 2.0**30
"""Bytes in a gibibyte (binary, as software limits such as vLLM's 70 GiB are set)."""
TB: Final = 1e12
"""Bytes in a terabyte (decimal, as vendors quote memory bandwidth in TB/s)."""
MTOK: Final = 1e6
"""Tokens in a million tokens (Mtok): prices per Mtok, demand in Mtok/day."""
PFLOP: Final = 1e15
"""FLOP in a PFLOP: the training penalty is priced per PFLOP."""
ZFLOP: Final = 1e21
"""FLOP in a ZFLOP: the optimiser's unit of training work."""

# --- money ----------------------------------------------------------------------------
USD_SCALE: Final = 1e6
"""The optimiser's money unit: one million USD (objective and budget rows)."""

# --- labels ---------------------------------------------------------------------------
RENTED: Final = "(rented)"
"""Virtual site of rented capacity: no power cap, no facility, billed per hour."""
NO_CALIBRATION: Final = "none"
"""A scenario's ``calibration`` or ``--calibration`` asking for the inference model's
built-in efficiency priors instead of the shipped default calibration (not a file)."""

# --- solvers --------------------------------------------------------------------------
SOLVER_NAMES: Final = (
    "highs",
    "highs-pyomo",
    "gurobi_direct",
    "gurobi_persistent",
    "scip_direct",
    "scip_persistent",
    "cbc",
    "glpk",
    "cplex",
    "cplex_direct",
    "gurobi",
    "scip",
    "xpress",
    "mosek",
)
"""The allow-list of solvers a scenario (``solver.name``), the workbook's ``solver`` sheet
or ``--solver`` may name, default first; nothing else is ever run (a path or any other
program is refused). ``highs``: HiGHS through highspy; ``highs-pyomo``: HiGHS through
Pyomo's interface; ``*_direct``/``*_persistent``: Pyomo's ``pyomo.contrib.solver``
in-process interfaces; the rest: classic Pyomo solvers found on the PATH under that
fixed name."""
