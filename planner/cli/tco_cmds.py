"""``planner tco``: the $/accelerator-hour build-up of one hardware system."""

from __future__ import annotations

import difflib
import math
from pathlib import Path

import click
import pandas as pd

from planner.cli.common import emit_json, print_frame
from planner.cli.options import format_option
from planner.errors import InputError, Problem
from planner.scenario import Scenario, load_scenario

LINES = {
    "server": "server capital (CRF at the WACC over its life)",
    "network": "scale-out network capital",
    "storage": "storage capital",
    "datacenter": "datacenter share (capex per MW of critical IT, CRF over facility life)",
    "energy": "energy (IT kW incl. network/storage x PUE x utilisation)",
    "facility_om": "facility fixed O&M",
    "maintenance": "maintenance (share of server + network + storage capex)",
    "owned": "TOTAL owned, at the scenario's WACC",
    "neocloud": "TOTAL neocloud-like, at a GPU cloud's cost of capital (no margin)",
    "on_demand": "TOTAL on-demand rental (public list price)",
}


def _default_scenario(hardware_id: str) -> Scenario:
    """A one-site scenario with default finance, for a build-up without a scenario file."""
    from planner.catalog import model_catalog

    return Scenario.model_validate(
        {
            "name": "tco",
            "horizon": {"start": 2026, "years": 1},
            "sites": [{"name": "default", "power_cap_mw": 1.0}],
            "hardware": [{"id": hardware_id}],
            "models": [{"id": next(iter(model_catalog()))}],
        }
    )


def _unknown(what: str, name: str, known: list[str], path: str) -> InputError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(known)}"
    return InputError(None, Problem(path=path, message=f"unknown {what} {name!r}", hint=hint))


@click.command("tco")
@click.argument("hardware_id", metavar="HARDWARE")
@click.option("--site", "site_name", help="Site of the scenario (electricity, PUE, build costs).")
@click.option(
    "--scenario",
    "scenario_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Scenario file whose finance and sites to use (default: default finance).",
)
@format_option
def tco(hardware_id: str, site_name: str | None, scenario_file: Path | None, fmt: str) -> None:
    """$/accelerator-hour build-up of HARDWARE: capital, energy, O&M, total by tier.

    \b
    Example:
      planner tco gb200-nvl72 --scenario scenarios/baseline.yaml --site texas
    """
    from planner.catalog import hardware_catalog
    from planner.economics.tco import tco_for_scenario

    if scenario_file is None:
        if hardware_id not in hardware_catalog():
            raise _unknown("hardware", hardware_id, sorted(hardware_catalog()), "HARDWARE")
        scenario = _default_scenario(hardware_id)
    else:
        scenario = load_scenario(scenario_file)
    listed = [h.id for h in scenario.hardware]
    if hardware_id not in listed:
        raise _unknown("hardware", hardware_id, listed, "HARDWARE")
    sites = [s.name for s in scenario.sites]
    if site_name is not None and site_name not in sites:
        raise _unknown("site", site_name, sites, "--site")
    result = tco_for_scenario(scenario, hardware_id, site_name)
    values = result.as_dict()
    if fmt == "json":
        emit_json({**values, "site_usd_per_mw_it_year": result.site_usd_per_mw_year})
        return
    rows = [
        {
            "line": LINES[k],
            "usd_per_accelerator_hour": None if math.isnan(v) else round(v, 4),  # type: ignore[arg-type]
        }
        for k, v in values.items()
        if k in LINES
    ]
    title = f"{hardware_id}: USD per accelerator-hour"
    if not result.purchasable:
        title += " (cloud-only: owned tiers use the catalog's imputed price)"
    print_frame(pd.DataFrame(rows), fmt, title=title)
