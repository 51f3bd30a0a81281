"""build_data: the scenario and its throughput tables → one ModelData, part by part."""

from __future__ import annotations

import pandas as pd

from planner import deadline
from planner.economics.addons import with_network_storage_power
from planner.errors import InputError, Problem
from planner.optimize.data.context import Context, periods_for
from planner.optimize.data.deliveries import deliveries, departure_keys
from planner.optimize.data.fleet import existing, fleet, purchases
from planner.optimize.data.lookups import lookups
from planner.optimize.data.model_data import ModelData
from planner.optimize.data.period_start import period_start_units
from planner.optimize.data.procurement import commitments, datacenter
from planner.optimize.data.rates import discounting, throughput_rates
from planner.optimize.data.sales import sales
from planner.optimize.data.sites import places, rentals, site_economics
from planner.optimize.data.training_menu import training_menu
from planner.optimize.data.value import service_value
from planner.optimize.data.work import inference, training
from planner.perf.workloads import serving_workloads
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.scenario.timing import available_from_year
from planner.units import RENTED


def build_data(
    scenario: Scenario,
    inference_table: pd.DataFrame,
    training_table: pd.DataFrame,
    *,
    relax: bool = False,
) -> ModelData:
    """The model data of ``scenario`` given the perf model's throughput tables.

    ``inference_table`` and ``training_table`` are the two tables of
    :func:`planner.perf.throughput_tables`.
    """
    if any(s.name == RENTED for s in scenario.sites):
        raise InputError(
            None, Problem(path="sites", message=f"site name {RENTED!r} is reserved for rentals")
        )
    ctx = Context(
        scenario=scenario,
        specs=with_network_storage_power(scenario, hardware_specs(scenario)),
        periods=periods_for(scenario),
        sites=tuple(s.name for s in scenario.sites),
        hardware=tuple(h.id for h in scenario.hardware),
    )
    rates = throughput_rates(ctx, inference_table, training_table)
    # Hardware that can do some work; nothing else is worth buying or renting.
    useful = {k[2] for k in rates["inf_tokens_per_s"]} | {k[1] for k in rates["train_flops_per_s"]}
    bought = purchases(ctx, useful)
    cohorts = existing(ctx)
    deadline.check("the model data (fleet)")
    owned = fleet(ctx, bought["buy_index"], cohorts["existing_index"])
    delivered = deliveries(ctx, bought["buy_index"])
    departing = departure_keys(delivered["departure_period"])
    rented = rentals(ctx, useful)
    where = places(ctx, owned["fleet_index"], rented["rent_index"])
    deadline.check("the model data (training)")
    train = training(ctx, rates["train_flops_per_s"], rates["train_zflop"], where["places"])
    menu = training_menu(ctx, train["train_index"])
    deadline.check("the model data (inference)")
    serve = inference(ctx, rates["inf_tokens_per_s"], where["places"])
    deadline.check("the model data (lookups)")
    rows = lookups(
        ctx,
        buy_index=bought["buy_index"],
        fleet_index=owned["fleet_index"],
        train_index=train["train_index"],
        inf_index=serve["inf_index"],
        demand_rows=serve["demand_rows"],
        places=where["places"],
    )
    fin = scenario.finance
    specs = ctx.specs
    return ModelData(
        scenario_name=scenario.name,
        relax=relax,
        serving=scenario.serving,
        periods=ctx.periods,
        periods_per_year=ctx.per_year,
        sites=ctx.sites,
        hardware=ctx.hardware,
        runs=tuple(r.name for r in scenario.training),
        workloads=tuple(w.name for w in serving_workloads(scenario)),
        wacc=fin.wacc,
        availability=fin.availability,
        maintenance_fraction=fin.maintenance_fraction_of_capex_per_year,
        penalty_usd_per_mtok=scenario.penalties.unmet_inference_usd_per_mtok,
        penalty_usd_per_pflop=scenario.penalties.unmet_training_usd_per_pflop,
        workload_priority={w.name: w.priority for w in serving_workloads(scenario)},
        run_priority={r.name: r.priority for r in scenario.training},
        vendor_share_max=dict(scenario.vendor_share_max),
        accelerators={h: s.accelerators for h, s in specs.items()},
        power_kw={h: s.power_kw for h, s in specs.items()},
        vendor={h: s.vendor for h, s in specs.items()},
        lifetime_years={h: s.lifetime_years for h, s in specs.items()},
        capex_payment=fin.capex_payment,
        lead_time_months={h: s.lead_time_months for h, s in specs.items()},
        available_from_year={h: available_from_year(s) for h, s in specs.items()},
        end_of_sale={h: s.end_of_sale for h, s in specs.items() if s.end_of_sale is not None},
        first_year_max_units={
            h: s.first_year_max_units
            for h, s in specs.items()
            if s.first_year_max_units is not None
        },
        **rates,
        **discounting(ctx),
        **bought,
        **cohorts,
        **owned,
        **sales(ctx, bought["buy_index"], cohorts["existing_index"]),
        **site_economics(ctx, tuple(dict.fromkeys(owned["fleet_index"] + departing))),
        **delivered,
        **period_start_units(
            ctx, delivered["ramp_periods"], owned["vintages_alive"], owned["cohorts_alive"]
        ),
        **rented,
        **commitments(ctx, rented["rent_index"]),
        **datacenter(ctx),
        **where,
        **train,
        **menu,
        **serve,
        **rows,
        **service_value(ctx),
    )
