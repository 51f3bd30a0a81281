"""``Assumptions``: every input the run used, after defaults, ``extends`` and overrides.

One filterable table: section, parameter, item, period, value, unit, note. A
year-indexed input given as one number is one row (period ``all``); given by year,
it is one row per planning period with the value the optimiser used there
(interpolated or held as the note says). Sites without their own electricity price,
PUE or facility cost point at the ``finance`` rows, so editing a default moves
every site that uses it.

Cells the formulas read are remembered in ``Book.refs``; scalars get defined names:
``wacc``, ``utilisation``, ``maintenance_fraction``, ``availability``,
``hours_per_year``, ``days_per_year``, ``energy_hours_per_year``, ``horizon_start``,
``horizon_years``, ``horizon_end``, ``penalty_usd_per_mtok``, ``penalty_usd_per_pflop``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from planner.export import cells
from planner.export.sheets.book import PERIOD, Book, table
from planner.optimize.data import DAYS_PER_YEAR, HOURS_PER_YEAR
from planner.results import Plan
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.scenario.series import Fill, value_at

TITLE = "Assumptions"
HEADERS = ("section", "parameter", "item", "period", "value", "unit", "note")
VALUE_COL = 5
ALL = "all"

UNITS = {
    "wacc": "per year",
    "pue": "facility power / IT power",
    "electricity_usd_per_kwh": "USD/kWh",
    "facility_usd_per_kw_year": "USD per kW of IT load per year",
    "maintenance_fraction_of_capex_per_year": "share of price per year",
    "utilisation": "share of nameplate power",
    "availability": "share of units",
    "start": "year",
    "years": "years",
    "periods_per_year": "periods",
    "power_cap_mw": "MW (facility, IT × PUE)",
    "capex_usd": "USD per year",
    "price_usd": "USD per unit",
    "max_units_per_year": "units per year",
    "usd_per_accelerator_hour": "USD per accelerator-hour",
    "max_accelerators": "accelerators",
    "units": "units",
    "installed": "year",
    "tokens": "tokens",
    "flops": "FLOP",
    "mfu": "share of peak",
    "checkpoint_stall_s": "s",
    "restart_s": "s",
    "mtbf_hours_per_accelerator": "hours",
    "rollout_tokens": "output tokens",
    "rollout_slo_tokens_per_s_per_user": "tokens/s per user",
    "tokens_per_day": "output tokens/day",
    "input_tokens_per_output_token": "input tokens per output token",
    "cache_hit_rate": "share of input tokens",
    "slo_tokens_per_s_per_user": "tokens/s per user",
    "peak_to_average": "peak / average",
    "output_tokens_per_request": "tokens",
    "context_tokens": "tokens",
    "unmet_inference_usd_per_mtok": "USD per million output tokens",
    "unmet_training_usd_per_pflop": "USD per PFLOP",
    "mip_gap": "share",
    "time_limit_s": "s",
    "threads": "threads",
    "window": "year",
}
FRACTIONS = {
    "wacc",
    "maintenance_fraction_of_capex_per_year",
    "utilisation",
    "availability",
    "mfu",
    "cache_hit_rate",
    "mip_gap",
}
SCIENTIFIC = {"tokens", "flops", "rollout_tokens", "tokens_per_day"}
# Year-indexed fields and how a period reads them (planner.scenario.series).
FILLS: dict[str, Fill] = {
    "electricity_usd_per_kwh": "geometric",
    "facility_usd_per_kw_year": "geometric",
    "price_usd": "geometric",
    "usd_per_accelerator_hour": "geometric",
    "tokens_per_day": "geometric",
    "power_cap_mw": "hold",
    "capex_usd": "hold",
    "max_units_per_year": "hold",
    "max_accelerators": "hold",
}
FILL_NOTE = {
    "geometric": "interpolated geometrically between given years, held outside them",
    "hold": "held from the last given year",
}
NAMED = {
    "wacc": "wacc",
    "utilisation": "utilisation",
    "maintenance_fraction_of_capex_per_year": "maintenance_fraction",
    "availability": "availability",
    "unmet_inference_usd_per_mtok": "penalty_usd_per_mtok",
    "unmet_training_usd_per_pflop": "penalty_usd_per_pflop",
}


def number_format(field: str) -> str:
    if field in FRACTIONS:
        return cells.PCT_PRECISE
    if field in SCIENTIFIC:
        return cells.SCIENTIFIC
    if field in ("start", "installed", "window"):
        return cells.YEAR
    if field.endswith("_usd") or field in ("capex_usd", "price_usd"):
        return cells.USD
    if "usd_per" in field:
        return cells.USD_PRECISE
    return cells.GENERAL


@dataclass(frozen=True)
class Period:
    label: Any
    start: float


@dataclass
class Entry:
    """One row of the Assumptions table."""

    section: str
    parameter: str
    item: str
    period: Any
    value: Any
    unit: str = ""
    note: str = ""
    keys: tuple[Hashable, ...] = ()
    """Book.refs keys pointing at this row's value cell."""
    name: str | None = None
    fmt: str | None = None
    formula: str | None = None
    expected: float | None = None


def _doc(model: type[BaseModel], name: str) -> str:
    info = model.model_fields.get(name)
    return (info.description or "") if info is not None else ""


class _Rows:
    """Collects the Assumptions rows of one scenario."""

    def __init__(self, scenario: Scenario, periods: list[Period]) -> None:
        self.scenario = scenario
        self.periods = periods
        self.entries: list[Entry] = []
        self.aliases: dict[Hashable, Hashable] = {}
        """Key → the key whose cell it reads (a site using the finance default)."""

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)

    def series(
        self,
        section: str,
        field: str,
        item: str,
        value: Any,
        note: str,
        key: str | None = None,
        fmt: str | None = None,
    ) -> None:
        """A year-indexed input: one row, or one row per period with the value used."""
        fmt = fmt or number_format(field)
        unit = UNITS.get(field, "")
        keyed = key is not None
        if not isinstance(value, Mapping):
            keys = tuple((key, item, p.label) for p in self.periods) if keyed else ()
            self.add(Entry(section, field, item, ALL, value, unit, note, keys, fmt=fmt))
            return
        given = ", ".join(f"{y}: {v:g}" for y, v in sorted(value.items()))
        fill = FILLS[field]
        for p in self.periods:
            self.add(
                Entry(
                    section,
                    field,
                    item,
                    p.label,
                    value_at(dict(value), p.start, fill),
                    unit,
                    f"{note} Given {{{given}}}, {FILL_NOTE[fill]}.",
                    ((key, item, p.label),) if keyed else (),
                    fmt=fmt,
                )
            )

    def fields(
        self,
        section: str,
        item: str,
        model: BaseModel,
        skip: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        """Every field of ``model`` (a scenario section or item) not in ``skip``."""
        kind = type(model)
        for name in kind.model_fields:
            if name in skip:
                continue
            value = getattr(model, name)
            note = _doc(kind, name)
            if name in FILLS:
                if value is None:
                    self.add(Entry(section, name, item, ALL, "not set", "", note))
                else:
                    self.series(section, name, item, value, note)
                continue
            if name == "window":
                for which, year in zip(("first", "last"), value, strict=True):
                    self.add(
                        Entry(section, f"window ({which} year)", item, ALL, year, "year", note)
                    )
                continue
            shown = "not set" if value is None else value
            if isinstance(value, list):
                shown = ", ".join(str(v) for v in value) or "none"
            named = NAMED.get(name)
            self.add(
                Entry(
                    section,
                    name,
                    item,
                    ALL,
                    shown,
                    UNITS.get(name, ""),
                    note,
                    (named,) if named else (),
                    name=named,
                    fmt=number_format(name),
                )
            )


def _entries(scenario: Scenario, plan: Plan, periods: list[Period]) -> _Rows:
    rows = _Rows(scenario, periods)
    rows.add(Entry("scenario", "name", "", ALL, scenario.name))
    rows.add(Entry("scenario", "serving", "", ALL, scenario.serving, "", _doc(Scenario, "serving")))
    rows.add(
        Entry(
            "scenario",
            "calibration",
            "",
            ALL,
            scenario.calibration or "built-in efficiency factors",
            "",
            _doc(Scenario, "calibration"),
        )
    )
    _horizon(rows, scenario, plan)
    _finance(rows, scenario)
    _sites(rows, scenario)
    _budget(rows, scenario)
    _hardware(rows, scenario)
    for offer in scenario.rental:
        rows.fields("rental", offer.hardware, offer, skip={"hardware", "usd_per_accelerator_hour"})
        rows.series(
            "rental",
            "usd_per_accelerator_hour",
            offer.hardware,
            offer.usd_per_accelerator_hour,
            "Rental price.",
            key="rent_rate",
        )
    for cohort in scenario.existing_fleet:
        label = f"{cohort.hardware} at {cohort.site}, installed {cohort.installed}"
        rows.fields("existing fleet", label, cohort, skip={"hardware", "site"})
    for model in scenario.models:
        rows.add(Entry("models", "id", model.id, ALL, model.id, "", "architecture: Models sheet"))
    for run in scenario.training:
        rows.fields("training", run.name, run, skip={"name"})
    for workload in scenario.inference:
        rows.fields("inference", workload.name, workload, skip={"name"})
    for vendor, share in sorted(scenario.vendor_share_max.items()):
        note = _doc(Scenario, "vendor_share_max")
        rows.add(Entry("vendor share", "max share", vendor, ALL, share, "share", note))
        rows.entries[-1].fmt = cells.PCT_PRECISE
    rows.fields("penalties", "", scenario.penalties)
    rows.fields("solver", "", scenario.solver)
    return rows


def _horizon(rows: _Rows, scenario: Scenario, plan: Plan) -> None:
    h = scenario.horizon
    rows.fields("horizon", "", h)
    for entry in rows.entries:
        if entry.section == "horizon" and entry.parameter in ("start", "years"):
            entry.name = f"horizon_{entry.parameter}"
            entry.keys = (entry.name,)
    periods = table(plan, "periods")
    end = float(periods["start_year"].iloc[-1] + periods["length_years"].iloc[-1])
    rows.add(
        Entry(
            "horizon",
            "end",
            "",
            ALL,
            None,
            "year",
            "End of the last period (residual value is valued here).",
            ("horizon_end",),
            name="horizon_end",
            fmt=cells.GENERAL,
            formula="=horizon_start+horizon_years",
            expected=end,
        )
    )


def _finance(rows: _Rows, scenario: Scenario) -> None:
    fin = scenario.finance
    note = " Default for sites that do not set their own."
    rows.fields(
        "finance", "", fin, skip={"pue", "electricity_usd_per_kwh", "facility_usd_per_kw_year"}
    )
    rows.add(Entry("finance", "pue", "", ALL, fin.pue, UNITS["pue"], _doc(type(fin), "pue") + note))
    rows.entries[-1].keys = tuple(("pue", None, p.label) for p in rows.periods)
    for field, key in (
        ("electricity_usd_per_kwh", "electricity"),
        ("facility_usd_per_kw_year", "facility"),
    ):
        rows.series("finance", field, "", getattr(fin, field), _doc(type(fin), field) + note)
        for entry in rows.entries:
            if entry.section == "finance" and entry.parameter == field:
                labels = [p.label for p in rows.periods] if entry.period == ALL else [entry.period]
                entry.keys = tuple((key, None, label) for label in labels)
    rows.add(
        Entry(
            "constants",
            "hours per year",
            "",
            ALL,
            HOURS_PER_YEAR,
            "h",
            "Hours in a billing year (energy and rentals).",
            ("hours_per_year",),
            name="hours_per_year",
            fmt=cells.THOUSANDS,
        )
    )
    rows.add(
        Entry(
            "constants",
            "days per year",
            "",
            ALL,
            DAYS_PER_YEAR,
            "days",
            "Days in a demand year (tokens/day × days = tokens served in a year).",
            ("days_per_year",),
            name="days_per_year",
            fmt=cells.DECIMAL2,
        )
    )
    rows.add(
        Entry(
            "constants",
            "energy hours per year",
            "",
            ALL,
            None,
            "h at nameplate power",
            "hours per year × utilisation: what one kW of IT load bills in a year.",
            ("energy_hours_per_year",),
            name="energy_hours_per_year",
            fmt=cells.THOUSANDS,
            formula="=hours_per_year*utilisation",
            expected=HOURS_PER_YEAR * fin.utilisation,
        )
    )


def _sites(rows: _Rows, scenario: Scenario) -> None:
    for site in scenario.sites:
        s = site.name
        rows.series(
            "sites",
            "power_cap_mw",
            s,
            site.power_cap_mw,
            _doc(type(site), "power_cap_mw"),
            key="power_cap",
        )
        for field, key in (
            ("pue", "pue"),
            ("electricity_usd_per_kwh", "electricity"),
            ("facility_usd_per_kw_year", "facility"),
        ):
            value = getattr(site, field)
            if value is None:
                for p in rows.periods:
                    rows.aliases[(key, s, p.label)] = (key, None, p.label)
                rows.add(
                    Entry("sites", field, s, ALL, "finance default", "", _doc(type(site), field))
                )
            elif field == "pue":
                keys = tuple((key, s, p.label) for p in rows.periods)
                rows.add(
                    Entry(
                        "sites", field, s, ALL, value, UNITS[field], _doc(type(site), field), keys
                    )
                )
            else:
                rows.series("sites", field, s, value, _doc(type(site), field), key=key)


def _budget(rows: _Rows, scenario: Scenario) -> None:
    capex = scenario.budget.capex_usd
    note = type(scenario.budget).model_fields["capex_usd"].description or ""
    if capex is None:
        rows.add(Entry("budget", "capex_usd", "", ALL, "unlimited", "", note))
    else:
        rows.series("budget", "capex_usd", "", capex, note, key="budget")


def _hardware(rows: _Rows, scenario: Scenario) -> None:
    specs = hardware_specs(scenario)
    for choice in scenario.hardware:
        h = choice.id
        price = choice.price_usd
        if price is None:
            note = "Catalog price (Hardware sheet)."
            rows.series("hardware", "price_usd", h, specs[h].price_usd, note, key="price")
        else:
            rows.series(
                "hardware", "price_usd", h, price, _doc(type(choice), "price_usd"), key="price"
            )
        cap = choice.max_units_per_year
        doc = _doc(type(choice), "max_units_per_year")
        if cap is None:
            rows.add(Entry("hardware", "max_units_per_year", h, ALL, "unlimited", "", doc))
        else:
            rows.series("hardware", "max_units_per_year", h, cap, doc)
        sites = ", ".join(choice.sites) if choice.sites else "every site"
        rows.add(Entry("hardware", "sites", h, ALL, sites, "", _doc(type(choice), "sites")))
        overrides = choice.overrides()
        overrides.pop("price_usd", None)
        if overrides:
            shown = ", ".join(f"{k}={v}" for k, v in sorted(overrides.items()))
            rows.add(
                Entry(
                    "hardware",
                    "catalog overrides",
                    h,
                    ALL,
                    shown,
                    "",
                    "Applied on the Hardware sheet.",
                )
            )


def periods_of(plan: Plan) -> list[Period]:
    frame = table(plan, "periods")
    label = PERIOD
    return [Period(r[label], float(r["start_year"])) for r in frame.to_dict(orient="records")]


def write_assumptions(book: Book, plan: Plan, scenario: Scenario) -> None:
    """Fill the Assumptions sheet and remember the cells formulas elsewhere read."""
    ws = book.sheet(TITLE)
    rows = _entries(scenario, plan, periods_of(plan))
    for j, header in enumerate(HEADERS, start=1):
        book.text(ws, 1, j, header)
    cells.style_header_row(ws, 1, len(HEADERS))
    for i, e in enumerate(rows.entries, start=2):
        for j, text in enumerate((e.section, e.parameter, e.item), start=1):
            book.text(ws, i, j, text)
        book.value(ws, i, 4, e.period, cells.YEAR if isinstance(e.period, int) else None)
        if e.formula is not None:
            book.formula(ws, i, VALUE_COL, e.formula, e.expected, e.fmt)
        else:
            book.value(ws, i, VALUE_COL, e.value, e.fmt)
        book.text(ws, i, 6, e.unit)
        book.text(ws, i, 7, e.note, track=False)
        for key in e.keys:
            book.remember(key, ws, i, VALUE_COL)
        if e.name:
            book.define(e.name, ws, i, VALUE_COL)
    for alias, target in rows.aliases.items():
        if target in book.refs:
            book.refs[alias] = book.refs[target]
    last = max(len(rows.entries) + 1, 2)
    cells.add_table(ws, f"A1:G{last}", "Assumptions")
    cells.freeze_header(ws)
    book.fit_widths(ws)
    ws.column_dimensions["G"].width = 80
