"""``Purchases``, ``Fleet`` and ``Rentals``: what is bought, owned and rented, and its cost.

Cost columns are live formulas of the inputs: a unit's energy cost per year is
``kW × PUE × energy hours per year × USD/kWh`` with kW from the Hardware sheet and
PUE and the electricity price from Assumptions; facility cost ``kW × USD/kW-year``
(0 at a site that builds or leases: it pays for its capacity instead, on the Costs
sheet's datacenter rows); maintenance ``maintenance fraction × price``; a period's
cost ``units × per-year cost × length``, on the units in service (the period's
average: with deliveries through the period, half a purchase's units in its delivery
period). Capex is
``units × price``; residual value ``capex × the share of life left at the horizon end``
(counted from the average delivery); rent ``units × USD/accelerator-hour × hours ×
accelerators × length``.

The annualised cost of a unit (what the realised $/Mtok charges, the annuity
convention of :func:`planner.economics.unit_cost`) is capital recovery
``price × CRF(wacc, lifetime)`` plus its energy, facility and maintenance per year.
"""

from __future__ import annotations

import pandas as pd

from planner.economics import (
    capital_recovery_factor,
    rental_usd_per_accelerator_hour,
    site_rates,
)
from planner.economics.addons import network_storage_usd_per_unit
from planner.export import cells
from planner.export.sheets.book import PERIOD, Book, Column, Row, table, write_table
from planner.export.sheets.catalog import unit_kw, unit_price
from planner.results import Plan
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.units import KW_PER_MW


def _hw(book: Book, field: str, row: Row) -> str:
    return book.ref(("hw", field, row["hardware"]))


def write_purchases(book: Book, plan: Plan) -> None:
    ws = book.sheet("Purchases")
    frame = table(plan, "purchases")
    label = PERIOD
    periods = table(plan, "periods")
    start = dict(zip(periods[PERIOD], periods["start_year"], strict=True))
    length = dict(zip(periods[PERIOD], periods["length_years"], strict=True))
    ramp = plan.ramp_periods
    frame = frame.assign(
        start_year=frame[label].map(start),
        delivered_year=[  # the average delivery: the middle when arriving through it
            start[v] + (0.5 * length[v] if str(v) in ramp else 0.0) for v in frame[label]
        ],
    )

    if "order_period" not in frame.columns:  # plans from before lead times
        frame = frame.assign(order_period=frame[label], capex_at_order_usd=0.0)
    at_order = {"at_order": 1.0, "split": 0.5}.get(plan.parameters.get("capex_payment", ""), 0.0)

    def price(r: Row) -> str:  # the order period's list price, plus network and storage
        list_price = book.ref(("price", r["hardware"], r["order_period"]))
        return f"={unit_price(book, r['hardware'], list_price)}"

    def paid_at_order(r: Row) -> str:
        share = at_order if r["order_period"] != r[label] else 0.0
        return f"={r.at('capex_usd')}*{share!r}"

    convention = str(plan.headline.get("horizon_end", "straight_line"))

    def residual_share(r: Row) -> str | None:
        if convention != "straight_line":
            return None  # the plan's share under its convention, written as a value
        life = r.at("lifetime_years")
        return f"=MIN(1,MAX(0,{r.at('delivered_year')}+{life}-horizon_end)/{life})"

    columns = [
        Column(label, label, cells.YEAR),
        Column("start_year", "period start (year)", cells.GENERAL),
        Column("hardware", "hardware"),
        Column("site", "site"),
        Column("order_period", "ordered (period)", cells.YEAR),
        Column("units", "units bought", cells.THOUSANDS),
        Column("price_usd", "price (USD per unit)", cells.USD, price),
        Column(
            "capex_usd",
            "capex (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('units')}*{r.at('price_usd')}",
        ),
        Column(
            "capex_at_order_usd",
            "of which paid at order (USD; the rest at delivery)",
            cells.USD_SCALED,
            paid_at_order,
        ),
        Column(
            "lifetime_years",
            "lifetime (years)",
            cells.GENERAL,
            lambda r: f"={_hw(book, 'lifetime_years', r)}",
        ),
        Column(
            "residual_fraction",
            f"share of price credited at horizon end ({convention})",
            cells.PCT,
            residual_share,
        ),
        Column(
            "residual_usd",
            "residual value (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('capex_usd')}*{r.at('residual_fraction')}",
        ),
    ]
    if "sales" in plan.tables and plan.tables["sales"].size:  # credit on units still held
        columns[-1:] = [
            Column("units_sold", "units sold early", cells.THOUSANDS),
            Column(
                "residual_usd",
                "residual value of units held (USD)",
                cells.USD_SCALED,
                lambda r: (
                    f"=({r.at('units')}-{r.at('units_sold')})*{r.at('price_usd')}"
                    f"*{r.at('residual_fraction')}"
                ),
            ),
        ]
    columns.append(Column("delivered_year", "delivered on average (year)", cells.GENERAL))
    write_table(book, ws, "Purchases", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)


def fleet_frame(plan: Plan, scenario: Scenario) -> pd.DataFrame:
    """The fleet table plus the input rates its cost formulas read (the site's rates at
    the period start, as :func:`planner.economics.site_rates` gives them to the optimiser)."""
    fleet = table(plan, "fleet")
    periods = table(plan, "periods")
    start = dict(zip(periods[PERIOD], periods["start_year"].astype(float), strict=True))
    sites = {s.name: s for s in scenario.sites}
    rates = [
        site_rates(scenario, sites[s], start[t])
        for s, t in zip(fleet["site"], fleet[PERIOD], strict=True)
    ]
    purchases = table(plan, "purchases")
    bought = dict(
        zip(
            zip(purchases["hardware"], purchases[PERIOD], strict=True),
            purchases["price_usd"],
            strict=True,
        )
    )
    specs = hardware_specs(scenario)
    basis = [
        bought[(h, v)]
        if origin == "purchased"
        else specs[h].price_usd + network_storage_usd_per_unit(scenario, specs[h])
        for h, v, origin in zip(fleet["hardware"], fleet["vintage"], fleet["origin"], strict=True)
    ]
    wacc = float(plan.parameters["wacc"])
    life = fleet["hardware"].map(lambda h: float(specs[h].lifetime_years)).astype(float)
    crf = life.map(lambda years: capital_recovery_factor(wacc, years)).astype(float)
    capital = pd.Series(basis, index=fleet.index, dtype=float) * crf
    per_unit_year = (
        capital
        + fleet["energy_usd_per_unit_year"]
        + fleet["facility_usd_per_unit_year"]
        + fleet["maintenance_usd_per_unit_year"]
    )
    return fleet.assign(
        electricity_usd_per_kwh=pd.Series(
            [r.electricity_usd_per_kwh for r in rates], index=fleet.index, dtype=float
        ),
        facility_usd_per_kw_year=pd.Series(
            [
                0.0 if sites[s].pays_for_capacity else r.facility_usd_per_kw_year
                for s, r in zip(fleet["site"], rates, strict=True)
            ],
            index=fleet.index,
            dtype=float,
        ),
        price_basis_usd=pd.Series(basis, index=fleet.index, dtype=float),
        lifetime_years=life,
        capital_usd_per_unit_year=capital,
        annualised_usd_per_unit_year=per_unit_year,
        annualised_usd_per_year=fleet["units"] * per_unit_year,
    )


def crf_formula(life: str) -> str:
    """Capital recovery factor at the ``wacc`` over ``life`` years (``1/life`` at 0)."""
    return f"IF(wacc=0,1/{life},wacc*(1+wacc)^{life}/((1+wacc)^{life}-1))"


def write_fleet(book: Book, plan: Plan, scenario: Scenario) -> None:
    ws = book.sheet("Fleet")
    frame = fleet_frame(plan, scenario)
    sites = {s.name: s for s in scenario.sites}
    label = PERIOD
    purchases = table(plan, "purchases")
    ordered = (
        dict(
            zip(
                zip(
                    purchases["hardware"],
                    purchases["site"],
                    purchases[label].astype(str),
                    strict=True,
                ),
                purchases["order_period"],
                strict=True,
            )
        )
        if "order_period" in purchases.columns
        else {}
    )

    def site_ref(kind: str, r: Row) -> str:
        return f"={book.ref((kind, r['site'], r[label]))}"

    def basis(r: Row) -> str:
        if r["origin"] == "purchased":  # priced in its order period, as Purchases
            key = (r["hardware"], r["site"], str(r["vintage"]))
            list_price = book.ref(("price", r["hardware"], ordered.get(key, r["vintage"])))
        else:
            list_price = _hw(book, "price_usd", r)
        return f"={unit_price(book, r['hardware'], list_price)}"

    def cost(per_year: str):
        return lambda r: f"={r.at('units_in_service')}*{r.at(per_year)}*{r.at('length_years')}"

    columns = [
        Column(label, label, cells.YEAR),
        Column("hardware", "hardware"),
        Column("site", "site"),
        Column("origin", "origin"),
        Column("vintage", "vintage (bought or installed)", cells.YEAR),
        Column("units", "units", cells.DECIMAL1),
        Column(
            "accelerators",
            "accelerators",
            cells.THOUSANDS,
            lambda r: f"={r.at('units')}*{_hw(book, 'accelerators', r)}",
        ),
        Column(
            "power_kw_per_unit",
            "IT power (kW per unit)",
            cells.DECIMAL2,
            lambda r: f"={unit_kw(book, r['hardware'])}",
        ),
        Column("pue", "PUE", cells.DECIMAL2, lambda r: site_ref("pue", r)),
        Column(
            "facility_mw",
            "facility power (MW)",
            cells.DECIMAL2,
            lambda r: f"={r.at('units')}*{r.at('power_kw_per_unit')}*{r.at('pue')}/{KW_PER_MW:g}",
        ),
        Column(
            "electricity_usd_per_kwh",
            "electricity (USD/kWh)",
            cells.USD_PRECISE,
            lambda r: site_ref("electricity", r),
        ),
        Column(
            "energy_usd_per_unit_year",
            "energy (USD per unit-year)",
            cells.USD,
            lambda r: (
                f"={r.at('power_kw_per_unit')}*{r.at('pue')}*energy_hours_per_year"
                f"*{r.at('electricity_usd_per_kwh')}"
            ),
        ),
        Column(
            "facility_usd_per_kw_year",
            "facility (USD per kW-year)",
            cells.USD,
            # a site that builds or leases pays for its capacity (Costs: datacenter
            # rows), not per installed kW: 0 there, as the optimiser charges it
            lambda r: None if sites[r["site"]].pays_for_capacity else site_ref("facility", r),
        ),
        Column(
            "facility_usd_per_unit_year",
            "facility (USD per unit-year)",
            cells.USD,
            lambda r: f"={r.at('power_kw_per_unit')}*{r.at('facility_usd_per_kw_year')}",
        ),
        Column("price_basis_usd", "price paid (USD per unit)", cells.USD, basis),
        Column(
            "maintenance_usd_per_unit_year",
            "maintenance (USD per unit-year)",
            cells.USD,
            lambda r: f"=maintenance_fraction*{r.at('price_basis_usd')}",
        ),
        Column("units_in_service", "units in service (period average)", cells.DECIMAL1),
        Column("length_years", "period length (years)", cells.GENERAL),
        Column("energy_usd", "energy (USD)", cells.USD_SCALED, cost("energy_usd_per_unit_year")),
        Column(
            "facility_usd", "facility (USD)", cells.USD_SCALED, cost("facility_usd_per_unit_year")
        ),
        Column(
            "maintenance_usd",
            "maintenance (USD)",
            cells.USD_SCALED,
            cost("maintenance_usd_per_unit_year"),
        ),
        Column(
            "lifetime_years",
            "lifetime (years)",
            cells.GENERAL,
            lambda r: f"={_hw(book, 'lifetime_years', r)}",
        ),
        Column(
            "capital_usd_per_unit_year",
            "capital recovery (USD per unit-year)",
            cells.USD,
            lambda r: f"={r.at('price_basis_usd')}*{crf_formula(r.at('lifetime_years'))}",
        ),
        Column(
            "annualised_usd_per_unit_year",
            "annualised cost (USD per unit-year)",
            cells.USD,
            lambda r: (
                f"={r.at('capital_usd_per_unit_year')}+{r.at('energy_usd_per_unit_year')}"
                f"+{r.at('facility_usd_per_unit_year')}+{r.at('maintenance_usd_per_unit_year')}"
            ),
        ),
        Column(
            "annualised_usd_per_year",
            "annualised cost (USD per year)",
            cells.USD_SCALED,
            lambda r: f"={r.at('units')}*{r.at('annualised_usd_per_unit_year')}",
        ),
    ]
    write_table(book, ws, "Fleet", frame, columns)
    cells.freeze_header(ws, 1, 3)
    book.fit_widths(ws)


def write_rentals(book: Book, plan: Plan, scenario: Scenario) -> None:
    ws = book.sheet("Rentals")
    frame = table(plan, "rentals")
    label = PERIOD
    periods = table(plan, "periods")
    start = dict(zip(periods[PERIOD], periods["start_year"].astype(float), strict=True))
    rates = [
        rental_usd_per_accelerator_hour(scenario, h, start[t])
        for h, t in zip(frame["hardware"], frame[label], strict=True)
    ]
    frame = frame.assign(usd_per_accelerator_hour=pd.Series(rates, index=frame.index, dtype=float))

    def rate(r: Row) -> str:
        return f"={book.ref(('rent_rate', r['hardware'], r[label]))}"

    columns = [
        Column(label, label, cells.YEAR),
        Column("hardware", "hardware"),
        Column("units", "units rented (average)", cells.DECIMAL2),
        Column(
            "accelerators",
            "accelerators",
            cells.THOUSANDS,
            lambda r: f"={r.at('units')}*{_hw(book, 'accelerators', r)}",
        ),
        Column(
            "usd_per_accelerator_hour", "price (USD per accelerator-hour)", cells.USD_PRECISE, rate
        ),
        Column(
            "usd_per_unit_year",
            "cost (USD per unit-year)",
            cells.USD,
            lambda r: (
                f"={r.at('usd_per_accelerator_hour')}*hours_per_year*{_hw(book, 'accelerators', r)}"
            ),
        ),
        Column("max_units", "most units (cap)", cells.THOUSANDS),
        Column("length_years", "period length (years)", cells.GENERAL),
        Column(
            "cost_usd",
            "rent (USD)",
            cells.USD_SCALED,
            lambda r: f"={r.at('units')}*{r.at('usd_per_unit_year')}*{r.at('length_years')}",
        ),
    ]
    write_table(book, ws, "Rentals", frame, columns)
    cells.freeze_header(ws)
    book.fit_widths(ws)
