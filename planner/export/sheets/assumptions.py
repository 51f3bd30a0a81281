"""``Assumptions``: every input the run used, after defaults, ``extends`` and overrides.

One filterable table: section, parameter, item, period, value, unit, note. A
year-indexed input given as one number is one row (period ``all``); given by year,
it is one row per planning period with the value the optimiser used there
(interpolated or held as the note says). Sites without their own electricity price,
PUE or facility cost point at the ``finance`` rows, so editing a default moves
every site that uses it. Units, fill rules and which site fields default to which
finance fields come from the scenario schema (:mod:`planner.scenario.meta`); rows are
built by :mod:`planner.export.sheets.assumption_rows`.

Cells the formulas read are remembered in ``Book.refs``; scalars get defined names:
``wacc``, ``utilisation``, ``maintenance_fraction``, ``availability``,
``hours_per_year``, ``days_per_year``, ``energy_hours_per_year``, ``horizon_start``,
``horizon_years``, ``horizon_end``, ``penalty_usd_per_mtok``, ``penalty_usd_per_pflop``.
"""

from __future__ import annotations

from typing import Any

from planner.catalog.schema import HardwareSpec
from planner.economics.rates import (
    contract_rate_series,
    decline_start,
    price_decline_per_year,
    unit_price_usd,
)
from planner.export import cells
from planner.export.sheets.assumption_rows import ALL, Entry, Period, Rows, doc, number_format, unit
from planner.export.sheets.book import PERIOD, Book, table
from planner.results import Plan
from planner.scenario.meta import field_meta
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Budget, Finance, HardwareChoice, Rental, Scenario, Site
from planner.units import DAYS_PER_YEAR, HOURS_PER_YEAR

TITLE = "Assumptions"
HEADERS = ("section", "parameter", "item", "period", "value", "unit", "note")
VALUE_COL = 5
SITE_DEFAULTS = {
    name: str(field_meta(Site, name).default_from).removeprefix("finance.")
    for name in Site.model_fields
    if field_meta(Site, name).default_from is not None
}
"""Site field → the finance field it takes when unset (from the schema)."""
REF_NAMES = {
    "pue": "pue",
    "electricity_usd_per_kwh": "electricity",
    "facility_usd_per_kw_year": "facility",
}
"""The Book.refs key by which other sheets read each site default's cells."""


def _entries(scenario: Scenario, plan: Plan, periods: list[Period]) -> Rows:
    rows = Rows(scenario, periods)
    rows.add(Entry("scenario", "name", "", ALL, scenario.name))
    rows.add(Entry("scenario", "serving", "", ALL, scenario.serving, "", doc(Scenario, "serving")))
    rows.add(
        Entry(
            "scenario",
            "calibration",
            "",
            ALL,
            scenario.calibration or "shipped default (planner/perf/data/serving-calibration.yaml)",
            "",
            doc(Scenario, "calibration"),
        )
    )
    _horizon(rows, scenario, plan)
    _finance(rows, scenario)
    _sites(rows, scenario)
    _budget(rows, scenario)
    _hardware(rows, scenario, plan)
    for offer in scenario.rental:
        rows.fields("rental", offer.hardware, offer, skip={"hardware", "usd_per_accelerator_hour"})
        rows.series(
            "rental",
            Rental,
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
        note = doc(Scenario, "vendor_share_max")
        share_unit = unit(Scenario, "vendor_share_max")
        rows.add(Entry("vendor share", "max share", vendor, ALL, share, share_unit, note))
        rows.entries[-1].fmt = cells.PCT_PRECISE
    rows.fields("penalties", "", scenario.penalties)
    rows.fields("solver", "", scenario.solver)
    return rows


def _horizon(rows: Rows, scenario: Scenario, plan: Plan) -> None:
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


def _finance(rows: Rows, scenario: Scenario) -> None:
    fin = scenario.finance
    note = " Default for sites that do not set their own."
    rows.fields("finance", "", fin, skip=set(SITE_DEFAULTS.values()))
    for field in SITE_DEFAULTS.values():
        key = REF_NAMES[field]
        value, text = getattr(fin, field), doc(Finance, field) + note
        if field_meta(Finance, field).fill is None:
            keys = tuple((key, None, p.label) for p in rows.periods)
            rows.add(Entry("finance", field, "", ALL, value, unit(Finance, field), text, keys))
            continue
        rows.series("finance", Finance, field, "", value, text)
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


def _sites(rows: Rows, scenario: Scenario) -> None:
    for site in scenario.sites:
        s = site.name
        rows.series(
            "sites",
            Site,
            "power_cap_mw",
            s,
            site.power_cap_mw if site.power_cap_mw is not None else 0.0,
            doc(Site, "power_cap_mw"),
            key="power_cap",
        )
        for field in SITE_DEFAULTS:
            key = REF_NAMES[field]
            value = getattr(site, field)
            if value is None:
                for p in rows.periods:
                    rows.aliases[(key, s, p.label)] = (key, None, p.label)
                rows.add(Entry("sites", field, s, ALL, "finance default", "", doc(Site, field)))
            elif field_meta(Site, field).fill is None:
                keys = tuple((key, s, p.label) for p in rows.periods)
                rows.add(
                    Entry("sites", field, s, ALL, value, unit(Site, field), doc(Site, field), keys)
                )
            else:
                rows.series("sites", Site, field, s, value, doc(Site, field), key=key)
        if site.contracted:
            _contract(rows, scenario, site)


def _contract(rows: Rows, scenario: Scenario, site: Site) -> None:
    """A contracted site's ``power_cost`` and its rate by period (Book.refs key
    ``("contract", site, period)``, which the Costs sheet's ``power_contract`` row reads
    with the cap); a rate not given is shown as the facility rate ÷ PUE it defaults to."""
    s = site.name
    rows.add(Entry("sites", "power_cost", s, ALL, site.power_cost, "", doc(Site, "power_cost")))
    note = doc(Site, "contract_usd_per_kw_year")
    if site.contract_usd_per_kw_year is None:
        note = f"Not given: the site's facility rate ÷ its PUE. {note}"
    rate = contract_rate_series(scenario, site)
    rows.series("sites", Site, "contract_usd_per_kw_year", s, rate, note, key="contract")


def _budget(rows: Rows, scenario: Scenario) -> None:
    capex = scenario.budget.capex_usd
    note = type(scenario.budget).model_fields["capex_usd"].description or ""
    if capex is None:
        rows.add(Entry("budget", "capex_usd", "", ALL, "unlimited", "", note))
    else:
        rows.series("budget", Budget, "capex_usd", "", capex, note, key="budget")


def _order_offsets(plan: Plan, periods: list[Period]) -> dict[Any, float]:
    """Period → years from its start to its orders' average date: the middle of a
    period whose purchases arrive through it (``ramp_periods``), else its start."""
    through = plan.ramp_periods
    return {p.label: p.length_years / 2 if str(p.label) in through else 0.0 for p in periods}


def _catalog_price(
    rows: Rows,
    choice: HardwareChoice,
    spec: HardwareSpec,
    specs: dict[str, HardwareSpec],
    offsets: dict[Any, float],
) -> None:
    """The catalog price, held until the successor ships and declined by
    ``price_decline_per_year`` after it (:func:`planner.economics.rates.unit_price_usd`):
    the catalog price, the decline and the year it starts as cells, then one row per
    period whose price is a formula of those three at the period's average order date
    (``offsets``, as the optimiser charges it), so editing the decline or its start moves
    every price and what reads it. Without a successor the price holds: one row."""
    h = choice.id
    decline = price_decline_per_year(choice, spec)
    start = decline_start(choice, spec, specs)
    fmt = number_format("price_usd")
    what = field_meta(HardwareChoice, "price_usd")
    rate_note = doc(HardwareChoice, "price_decline_per_year")
    if start is None:
        note = (
            f"Catalog price {spec.price_usd:,.0f} USD in {spec.price_year} (Hardware sheet), "
            "held: no successor in the catalog, so no decline applies."
        )
        rows.series("hardware", HardwareChoice, "price_usd", h, spec.price_usd, note, key="price")
        rows.add(
            Entry(
                "hardware", "price_decline_per_year", h, ALL, decline, "fraction a year", rate_note
            )
        )
        return
    base = ("catalog_price", h)
    rate = ("price_decline", h)
    since = ("price_decline_from", h)
    rows.add(
        Entry(
            "hardware",
            "catalog price_usd",
            h,
            spec.price_year,
            spec.price_usd,
            what.unit,
            "The catalog's list price (Hardware sheet).",
            (base,),
            fmt=fmt,
        )
    )
    rows.add(
        Entry(
            "hardware",
            "price_decline_per_year",
            h,
            ALL,
            decline,
            "fraction a year",
            rate_note,
            (rate,),
        )
    )
    rows.add(
        Entry(
            "hardware",
            "price_decline_from",
            h,
            ALL,
            start,
            "year",
            (
                f"When {spec.successor} can be delivered (its available_from, else its "
                "release year), not before the price year: the list price holds until then."
                if spec.successor is not None
                else "The price year: no successor in the catalog, and the scenario sets "
                "its own decline, which runs from the catalog price."
            ),
            (since,),
            fmt=cells.GENERAL,
        )
    )
    note = f"Catalog price held until price_decline_from, then declined by {decline:.0%} a year."
    for p in rows.periods:
        at = p.start + offsets[p.label]
        price = unit_price_usd(choice, spec, at, specs)

        def formula(book: Any, at: float = at) -> str:
            return f"={book.ref(base)}*(1-{book.ref(rate)})^MAX(0,{at!r}-{book.ref(since)})"

        keys = (("price", h, p.label),)
        rows.add(
            Entry(
                "hardware",
                "price_usd",
                h,
                p.label,
                None,
                what.unit,
                note,
                keys,
                fmt=fmt,
                formula=formula,
                expected=price,
            )
        )


def _hardware(rows: Rows, scenario: Scenario, plan: Plan) -> None:
    specs = hardware_specs(scenario)
    for choice in scenario.hardware:
        h = choice.id
        price = choice.price_usd
        if price is None:
            _catalog_price(rows, choice, specs[h], specs, _order_offsets(plan, rows.periods))
        else:
            note = doc(HardwareChoice, "price_usd")
            rows.series("hardware", HardwareChoice, "price_usd", h, price, note, key="price")
        cap = choice.max_units_per_year
        note = doc(HardwareChoice, "max_units_per_year")
        if cap is None:
            rows.add(Entry("hardware", "max_units_per_year", h, ALL, "unlimited", "", note))
        else:
            rows.series("hardware", HardwareChoice, "max_units_per_year", h, cap, note)
        sites = ", ".join(choice.sites) if choice.sites else "every site"
        rows.add(Entry("hardware", "sites", h, ALL, sites, "", doc(HardwareChoice, "sites")))
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
    return [
        Period(r[label], float(r["start_year"]), float(r["length_years"]))
        for r in frame.to_dict(orient="records")
    ]


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
            text = e.formula if isinstance(e.formula, str) else e.formula(book)
            book.formula(ws, i, VALUE_COL, text, e.expected, e.fmt)
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
