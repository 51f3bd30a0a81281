"""``TCO``: the $/accelerator-hour build-up of every listed system, as live formulas.

One row per hardware system of the scenario, at the first site's electricity and PUE
and the horizon-start price, as :func:`planner.economics.tco.tco_for_scenario` computes
it (``planner tco`` prints the same): server, network and storage capital at the WACC
over the system's life, the datacenter share (capex per MW of critical IT over the
facility life), energy, facility O&M and maintenance, and the totals owned,
neocloud-like (the same build-up at a GPU cloud's cost of capital) and on-demand.
Network, storage and datacenter inputs come from the offers catalog (or the site's
``build``) and are plain values on this sheet; the rest read Assumptions and Hardware.
"""

from __future__ import annotations

import math

import pandas as pd

from planner.economics.tco import COMPONENTS, tco_for_scenario
from planner.export import cells
from planner.export.sheets.book import Book, Column, Row, as_period, write_table
from planner.export.sheets.fleet import crf_formula
from planner.scenario.schema import Scenario
from planner.units import KW_PER_MW

TITLE = "TCO"


def _crf_at(rate: str, life: str) -> str:
    """Capital recovery factor at the cell ``rate`` over ``life`` years."""
    return f"IF({rate}=0,1/{life},{rate}*(1+{rate})^{life}/((1+{rate})^{life}-1))"


def tco_frame(scenario: Scenario) -> pd.DataFrame:
    """The build-up of each listed system (values the sheet's formulas reproduce)."""
    rows = []
    start = scenario.horizon.start
    for choice in scenario.hardware:
        t = tco_for_scenario(scenario, choice.id)
        rows.append(
            {
                "hardware": choice.id,
                "purchasable": t.purchasable,
                "accelerators": t.accelerators,
                "price_usd": t.price_usd,
                "network_usd_per_accelerator": t.network_usd_per_accelerator,
                "storage_usd_per_accelerator": t.storage_usd_per_accelerator,
                "network_storage_kw_per_accelerator": t.network_storage_kw_per_accelerator,
                "it_kw_per_accelerator": t.it_kw_per_accelerator,
                "datacenter_usd_per_mw_it": t.datacenter_usd_per_mw_it,
                "facility_life_years": t.facility_life_years,
                "fixed_om_usd_per_kw_year": t.fixed_om_usd_per_kw_year,
                "neocloud_wacc": t.neocloud_wacc,
                "server": t.server,
                "network": t.network,
                "storage": t.storage,
                "datacenter": t.datacenter,
                "energy": t.energy,
                "facility_om": t.facility_om,
                "maintenance": t.maintenance,
                "owned": t.owned,
                "neocloud": t.neocloud,
                "on_demand": None if math.isnan(t.on_demand) else t.on_demand,
                "year": start,
            }
        )
    return pd.DataFrame(rows)


def write_tco(book: Book, scenario: Scenario) -> None:
    ws = book.sheet(TITLE)
    frame = tco_frame(scenario)
    period = as_period(scenario.horizon.periods[0].label)
    site = scenario.sites[0].name

    def ref(*key: object) -> str | None:
        return book.refs.get(key if len(key) > 1 else key[0])

    def hw(r: Row, field: str) -> str | None:
        return ref("hw", field, r["hardware"])

    def price(r: Row) -> str | None:
        return ref("price", r["hardware"], period)

    def capital(r: Row, amount: str, rate: str = "wacc") -> str | None:
        life = hw(r, "lifetime_years")
        if life is None:
            return None
        crf = crf_formula(life) if rate == "wacc" else _crf_at(rate, life)
        return f"{amount}*{crf}/hours_per_year"

    def server(r: Row, rate: str = "wacc") -> str | None:
        p, acc = price(r), hw(r, "accelerators")
        if p is None or acc is None:
            return None
        return capital(r, f"{p}/{acc}", rate)

    def it_kw(r: Row) -> str | None:
        kw, acc = hw(r, "power_kw"), hw(r, "accelerators")
        if kw is None or acc is None:
            return None
        return f"({kw}/{acc}+{r.at('network_storage_kw_per_accelerator')})"

    def datacenter(r: Row, rate: str = "wacc") -> str | None:
        kw = it_kw(r)
        if kw is None:
            return None
        life = r.at("facility_life_years")
        crf = crf_formula(life) if rate == "wacc" else _crf_at(rate, life)
        dc = r.at("datacenter_usd_per_mw_it")
        return f"{dc}*{kw}/{KW_PER_MW:g}*{crf}/hours_per_year"

    def energy(r: Row) -> str | None:
        kw, pue, usd = it_kw(r), ref("pue", site, period), ref("electricity", site, period)
        if kw is None or pue is None or usd is None:
            return None
        return f"{kw}*{pue}*energy_hours_per_year*{usd}/hours_per_year"

    def om(r: Row) -> str | None:
        kw = it_kw(r)
        return None if kw is None else f"{r.at('fixed_om_usd_per_kw_year')}*{kw}/hours_per_year"

    def maintenance(r: Row) -> str | None:
        p, acc = price(r), hw(r, "accelerators")
        if p is None or acc is None:
            return None
        extra = f"{r.at('network_usd_per_accelerator')}+{r.at('storage_usd_per_accelerator')}"
        return f"maintenance_fraction*({p}/{acc}+{extra})/hours_per_year"

    def owned(r: Row) -> str:
        return "=" + "+".join(r.at(k) for k in COMPONENTS)

    def neocloud(r: Row, rate: str) -> str | None:
        parts = [
            server(r, rate),
            capital(r, r.at("network_usd_per_accelerator"), rate),
            capital(r, r.at("storage_usd_per_accelerator"), rate),
            datacenter(r, rate),
            energy(r),
            om(r),
            maintenance(r),
        ]
        return None if any(p is None for p in parts) else "=" + "+".join(parts)  # type: ignore[arg-type]

    def live(make):  # type: ignore[no-untyped-def]
        def formula(r: Row) -> str | None:
            text = make(r)
            return None if text is None else f"={text}"

        return formula

    usd_h = cells.USD_PRECISE
    columns = [
        Column("hardware", "hardware"),
        Column("purchasable", "purchasable"),
        Column(
            "accelerators",
            "accelerators per unit",
            cells.THOUSANDS,
            live(lambda r: hw(r, "accelerators")),
        ),
        Column("price_usd", "price (USD per unit)", cells.USD, live(price)),
        Column("network_usd_per_accelerator", "network (USD per accelerator)", cells.USD),
        Column("storage_usd_per_accelerator", "storage (USD per accelerator)", cells.USD),
        Column(
            "network_storage_kw_per_accelerator",
            "network + storage (kW per accelerator)",
            cells.DECIMAL2,
        ),
        Column(
            "it_kw_per_accelerator", "IT power (kW per accelerator)", cells.DECIMAL2, live(it_kw)
        ),
        Column(
            "datacenter_usd_per_mw_it", "datacenter capex (USD per MW of critical IT)", cells.USD
        ),
        Column("facility_life_years", "facility life (years)", cells.THOUSANDS),
        Column("fixed_om_usd_per_kw_year", "facility O&M (USD per kW-year)", cells.USD),
        Column("neocloud_wacc", "neocloud cost of capital (per year)", cells.PCT),
        Column("server", "server capital (USD per acc-hour)", usd_h, live(server)),
        Column(
            "network",
            "network capital (USD per acc-hour)",
            usd_h,
            live(lambda r: capital(r, r.at("network_usd_per_accelerator"))),
        ),
        Column(
            "storage",
            "storage capital (USD per acc-hour)",
            usd_h,
            live(lambda r: capital(r, r.at("storage_usd_per_accelerator"))),
        ),
        Column("datacenter", "datacenter share (USD per acc-hour)", usd_h, live(datacenter)),
        Column("energy", "energy (USD per acc-hour)", usd_h, live(energy)),
        Column("facility_om", "facility O&M (USD per acc-hour)", usd_h, live(om)),
        Column("maintenance", "maintenance (USD per acc-hour)", usd_h, live(maintenance)),
        Column("owned", "TOTAL owned at the WACC (USD per acc-hour)", usd_h, owned),
        Column(
            "neocloud",
            "TOTAL neocloud-like (USD per acc-hour)",
            usd_h,
            lambda r: neocloud(r, r.at("neocloud_wacc")),
        ),
        Column("on_demand", "TOTAL on-demand list price (USD per acc-hour)", usd_h),
    ]
    table = write_table(book, ws, "TCO", frame, columns)
    book.note(
        ws,
        table.last_row + 2,
        f"Per accelerator-hour over the 8,760-hour year, at {site}'s electricity and PUE and "
        "horizon-start prices; network, storage and datacenter figures from the offers "
        "catalog (planner/catalog/offers.yaml) with their sources. `planner tco` prints a row.",
    )
    cells.freeze_header(ws, 1, 2)
    book.fit_widths(ws)
