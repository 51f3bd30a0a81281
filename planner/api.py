"""The Python API for notebooks and scripts: load, vary, plan, read tables, export.

These names are stable; the CLI (``planner run``) is built on them, so a notebook gets
the same numbers as the command line::

    import planner

    scenario = planner.load("scenarios/baseline.yaml")          # or a dict
    cheaper = planner.with_changes(scenario, {"finance.wacc": 0.08})
    plan = planner.plan(cheaper)                                # a planner.results.Plan
    plan.tables["costs"]                                        # tidy DataFrames
    planner.cost_by_year(plan)                                  # the printed roll-ups
    planner.write_workbook(plan, cheaper, "exports/cheaper.xlsx")  # the workbook

Every function raises :class:`planner.errors.PlannerError` subclasses on bad input
(``InputError`` lists every problem with its field path and how to fix it) and
``SolverError`` when no plan is found; nothing here prints.

The roll-ups (:func:`fleet_by_year`, :func:`cost_by_year`, :func:`binding`,
:func:`shadow_prices`) are the tables ``planner run`` prints: with sub-year periods
(``horizon.periods_per_year``) they roll up to years unless ``by_period=True``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from planner import deadline
from planner.errors import InputError, PlannerError
from planner.export import excel
from planner.export.atomic import check_workbook_target, write_atomically
from planner.export.cells import csv_safe
from planner.pipeline import plan as _optimise
from planner.pipeline import throughput
from planner.results import TABLE_UNITS, Plan
from planner.results import fleet_by_year as _stock_at_year_end
from planner.scenario import Scenario, load_scenario
from planner.scenario.checks import check_scenario
from planner.scenario.problems import validation_problems
from planner.scenario.variants import Change, apply_changes, prepare

__all__ = [
    "TABLE_UNITS",
    "Plan",
    "Scenario",
    "binding",
    "cost_by_year",
    "fleet_by_year",
    "load",
    "plan",
    "shadow_prices",
    "table_files",
    "table_names",
    "throughput",
    "with_changes",
    "write_tables",
    "write_workbook",
    "yearly",
]


def load(source: str | Path | Mapping[str, Any] | Scenario) -> Scenario:
    """A validated, checked scenario from a file (``.yaml`` or ``.xlsx``) or a dict.

    A dict is the document a scenario file holds (no ``extends``); a relative
    ``calibration`` path in it is read from the current directory. A Scenario is
    returned as it is. Raises InputError listing every problem.
    """
    if isinstance(source, Scenario):
        return source
    if isinstance(source, str | Path):
        return load_scenario(source)
    data = dict(source)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise InputError(None, validation_problems(exc, data, {})) from None
    problems = check_scenario(scenario)
    if problems:
        raise InputError(None, problems)
    return scenario


def with_changes(scenario: Scenario, changes: Mapping[str, float]) -> Scenario:
    """A copy of ``scenario`` with each number at a path set to a new value.

    Paths are those of sweeps and ``--marginal`` (:mod:`planner.scenario.variants`):
    ``finance.wacc``, ``sites[texas].power_cap_mw.2028`` (one year of a series),
    ``hardware[gb200-nvl72].price_usd``. A path naming no number raises InputError
    with a did-you-mean; the changed scenario is validated and checked again.
    """
    edits = [Change(path, float(value)) for path, value in changes.items()]
    doc, _ = prepare(scenario, edits)
    changed = apply_changes(doc, edits, scenario.horizon.year_list)
    return load(changed)


def plan(
    scenario: Scenario | str | Path | Mapping[str, Any],
    *,
    relax: bool = False,
    mip_gap: float | None = None,
    time_limit_s: float | None = None,
    solver: str | None = None,
    threads: int | None = None,
    strategy: str | None = None,
    marginals: tuple[str, ...] = (),
    max_nonzeros: int | None = None,
) -> Plan:
    """Optimise the fleet of ``scenario`` (a Scenario, file or dict): a :class:`Plan`.

    Options as ``planner run``'s (see :func:`planner.pipeline.plan`); the time limit
    bounds the whole call. Raises SolverError (no plan) or TimeLimitError.
    """
    return _optimise(
        load(scenario),
        relax=relax,
        mip_gap=mip_gap,
        time_limit_s=time_limit_s,
        solver=solver,
        threads=threads,
        strategy=strategy,
        marginals=marginals,
        max_nonzeros=max_nonzeros,
    )


def table_names(plan: Plan) -> list[str]:
    """The names of ``plan.tables`` (each a tidy DataFrame; units in ``TABLE_UNITS``)."""
    return list(plan.tables)


def write_workbook(
    plan: Plan, scenario: Scenario, path: str | Path, *, source: str | Path | None = None
) -> Path:
    """Write the analyst workbook of ``plan`` to ``path`` (atomically); return the path.

    ``source`` names the scenario file on the Summary sheet. The Curves sheet's
    throughput-interactivity points are computed here (the perf model at a grid of
    tok/s/user, :func:`planner.perf.curves.scenario_curves`), within the export's grace;
    a scenario with more points than :data:`planner.perf.curves.CURVE_POINT_BUDGET`
    draws, per workload, only the hardware the plan serves it with (the sheet says so).
    As on the command line, a ``path`` not ending in ``.xlsx``, or that is ``source``
    (or a link, folder or device), is refused before anything is computed
    (ExportError, exit 2).
    """
    from planner.perf.curves import curve_selection, scenario_curves  # heavy; import late

    check_workbook_target(path, source)  # before the curves: never over the scenario
    served = plan.tables.get("assignment_inference")
    served_by: dict[str, set[str]] = {}
    if served is not None:
        for row in served[served["units"] > 0].itertuples(index=False):
            served_by.setdefault(str(row.workload), set()).add(str(row.hardware))
    with deadline.export_grace():
        chosen, note = curve_selection(scenario, served_by)
        curves = scenario_curves(scenario, hardware_for=chosen)
        curves.attrs["hardware_note"] = note
        return excel.write_workbook(plan, scenario, path, source=source, curves=curves)


TABLE_FORMATS = ("csv", "parquet")
PARQUET_EXTRA = "parquet"
"""The optional extra that installs pyarrow: ``pip install 'planner[parquet]'``."""


class TableFormatUnavailable(PlannerError):
    """Parquet was asked for and pyarrow is not installed (exit 2)."""

    exit_code = 2


def require_table_format(table_format: str) -> None:
    """Raise unless ``table_format`` is known and, for parquet, pyarrow imports."""
    if table_format not in TABLE_FORMATS:
        raise InputError(None, f"table format {table_format!r}: use one of {TABLE_FORMATS}")
    if table_format == "parquet" and importlib.util.find_spec("pyarrow") is None:
        raise TableFormatUnavailable(
            "--table-format parquet needs pyarrow, which is not installed: "
            f"pip install 'planner[{PARQUET_EXTRA}]' (or pip install pyarrow), "
            "or write CSV with --table-format csv"
        )


def table_files(folder: str | Path, names: Iterable[str], table_format: str = "csv") -> list[Path]:
    """The file each table ``names`` is written to in ``folder``: ``NAME.csv``."""
    return [Path(folder) / f"{name}.{table_format}" for name in names]


def write_tables(plan: Plan, folder: str | Path, table_format: str = "csv") -> list[Path]:
    """Write every table of ``plan`` to ``folder`` as ``NAME.csv`` (or ``.parquet``).

    Each file is written atomically; CSV cells that a spreadsheet would run as a
    formula are neutralised (:func:`planner.export.cells.csv_safe`). Parquet needs
    pyarrow (TableFormatUnavailable, exit 2, otherwise). Units: ``TABLE_UNITS``.
    """
    require_table_format(table_format)
    written = []
    for name, frame in plan.tables.items():
        (path,) = table_files(folder, [name], table_format)
        written.append(write_atomically(path, _table_writer(frame, table_format)))
    return written


def _table_writer(frame: pd.DataFrame, table_format: str) -> Callable[[Path], None]:
    if table_format == "csv":
        safe = csv_safe(frame)
        return lambda tmp: safe.to_csv(tmp, index=False)
    return lambda tmp: frame.to_parquet(tmp)


def yearly(plan: Plan) -> bool:
    """Whether the plan has one period per year (no roll-up needed)."""
    return int(plan.parameters.get("periods_per_year", 1)) == 1


def fleet_by_year(plan: Plan, by_period: bool = False) -> pd.DataFrame:
    """Units per hardware (rows) by year end or by period (columns, as text)."""
    fleet = plan.tables["fleet"]
    if fleet.empty:
        return pd.DataFrame(columns=["hardware"])
    column = "period" if by_period else "year"
    if not by_period:
        fleet = _stock_at_year_end(fleet, plan.tables["periods"])
    wide = fleet.pivot_table(index="hardware", columns=column, values="units", aggfunc="sum")
    wide.columns = [str(c) for c in wide.columns]
    return wide.fillna(0.0).reset_index()


def cost_by_year(plan: Plan, by_period: bool = False) -> pd.DataFrame:
    """Cash cost (USD) per category by year (summed over its periods) or by period,
    with ``total_pv``: the category's present value over the horizon."""
    costs = plan.tables["costs"]
    wide = costs.pivot_table(
        index="category",
        columns="period" if by_period else "year",
        values="usd",
        aggfunc="sum",
        sort=False,
    )
    wide.columns = [str(c) for c in wide.columns]
    wide["total_pv"] = costs.groupby("category", sort=False)["usd_pv"].sum()
    wide = wide.reset_index()
    wide.attrs["unit"] = "USD"  # every number column (tables print them as $K/$M/$B)
    return wide


def binding(plan: Plan, by_period: bool = False) -> pd.DataFrame:
    """Binding limits (power, budget, supply); with sub-year periods rolled up to years,
    with how many of the year's periods bind (``periods``: "3 of 4")."""
    rows = []
    for name, subject in (("power", "site"), ("budget", None), ("supply", "hardware")):
        frame = plan.tables[name]
        for row in frame[frame["binding"].astype(bool)].itertuples(index=False):
            rows.append(
                {
                    "limit": name,
                    "period": row.period,
                    "year": row.year,
                    "subject": getattr(row, subject) if subject else "",
                }
            )
    frame = pd.DataFrame(rows, columns=["limit", "period", "year", "subject"])
    if yearly(plan) or by_period:
        return frame.drop(columns="year" if by_period and not yearly(plan) else "period")
    per_year = plan.parameters["periods_per_year"]
    out = frame.groupby(["limit", "year", "subject"], as_index=False, sort=False)["period"].count()
    out["periods"] = out.pop("period").map(lambda n: f"{n} of {per_year}")
    return out


def shadow_prices(plan: Plan, by_period: bool = False) -> tuple[pd.DataFrame, str]:
    """Non-zero shadow prices and a title saying what the value is; with sub-year
    periods, their mean over each year's periods. Asked-for marginals show even at 0."""
    shadow = plan.tables["shadow_prices"]
    asked = shadow["limit"] == "marginal"
    shown = shadow[asked | (shadow["value"].fillna(0).abs() > 1e-9)]
    title = (
        "Shadow prices (value_in_year_usd: that year's USD; positive = saved per +1 of a "
        "limit, cost per +1 of demand)"
    )
    if yearly(plan) or by_period:
        when = "year" if yearly(plan) else "period"
        return shown[["limit", when, "subject", "value_in_year_usd", "unit", "method"]], title
    keys = ["limit", "year", "subject", "unit", "method"]
    out = shown.groupby(keys, as_index=False, sort=False, dropna=False)["value_in_year_usd"].mean()
    title = (
        "Shadow prices (mean over each year's periods, that year's USD; positive = saved "
        "per +1 of a limit, cost per +1 of demand)"
    )
    return out[["limit", "year", "subject", "value_in_year_usd", "unit", "method"]], title
