"""Unit economics: discounting, capital recovery, unit TCO, $/Mtok, bills (DESIGN.md 4.3).

Pure functions in USD, years and hours. A *unit* is what is bought (a server or rack
holding ``accelerators`` chips). Bills use 365-day years; capacity uses 8,760-hour years.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.errors import InputError, Problem
from planner.perf.training import training_flops
from planner.scenario.resolve import hardware_specs
from planner.scenario.schema import Scenario
from planner.scenario.series import value_at

if TYPE_CHECKING:
    import pandas as pd

HOURS_PER_YEAR = 8760.0
SECONDS_PER_HOUR = 3600.0
DAYS_PER_BILLING_YEAR = 365.0
DAYS_PER_YEAR = 365.25


def capital_recovery_factor(rate: float, years: float) -> float:
    """Share of a price paid each year to repay it with interest over ``years``.

    ``CRF = r (1+r)^n / ((1+r)^n − 1)``; at r = 0 it is ``1 / n``.
    """
    if years <= 0:
        raise ValueError(f"years must be positive, got {years}")
    if rate == 0:
        return 1.0 / years
    growth = (1.0 + rate) ** years
    return rate * growth / (growth - 1.0)


def discount_factor(rate: float, years_from_start: float) -> float:
    """Present value of 1 USD paid ``years_from_start`` years on: ``(1+r)^−t``."""
    return float((1.0 + rate) ** -years_from_start)


def npv(rate: float, cashflows_by_year: Mapping[int, float], base_year: int) -> float:
    """Net present value at ``base_year`` of ``{year: USD}``: ``Σ cf_y · (1+r)^−(y − base)``."""
    return sum(cf * discount_factor(rate, y - base_year) for y, cf in cashflows_by_year.items())


@dataclass(frozen=True)
class UnitCost:
    """Yearly cost of owning and running one unit, USD per year."""

    capital_recovery_usd_per_year: float
    facility_usd_per_year: float
    energy_usd_per_year: float
    maintenance_usd_per_year: float
    total_usd_per_year: float
    accelerators: int
    """Accelerators in the unit."""

    @property
    def usd_per_accelerator_hour(self) -> float:
        """``total / (accelerators · 8760)``."""
        return self.total_usd_per_year / (self.accelerators * HOURS_PER_YEAR)


def unit_cost(
    hw: HardwareSpec,
    *,
    price_usd: float,
    wacc: float,
    pue: float,
    electricity_usd_per_kwh: float,
    facility_usd_per_kw_year: float,
    maintenance_fraction: float,
    utilisation: float,
    lifetime_years: float | None = None,
) -> UnitCost:
    """Yearly cost of one unit of ``hw``.

    * capital recovery ``price · CRF(wacc, life)`` (life: ``lifetime_years`` or the catalog's);
    * facility ``power_kw · facility_usd_per_kw_year`` (per kW of IT load);
    * energy ``power_kw · PUE · utilisation · 8760 h · electricity price``;
    * maintenance ``maintenance_fraction · price``.
    """
    life = lifetime_years if lifetime_years is not None else hw.lifetime_years
    capital = price_usd * capital_recovery_factor(wacc, life)
    facility = hw.power_kw * facility_usd_per_kw_year
    energy = hw.power_kw * pue * utilisation * HOURS_PER_YEAR * electricity_usd_per_kwh
    maintenance = maintenance_fraction * price_usd
    return UnitCost(
        capital_recovery_usd_per_year=capital,
        facility_usd_per_year=facility,
        energy_usd_per_year=energy,
        maintenance_usd_per_year=maintenance,
        total_usd_per_year=capital + facility + energy + maintenance,
        accelerators=hw.accelerators,
    )


def _unknown(kind: str, name: str, known: list[str], path: str) -> InputError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(known)}"
    return InputError(
        None,
        Problem(path=path, message=f"unknown {kind} {name!r}", found=name, hint=hint),
    )


def unit_cost_for_scenario(
    scenario: Scenario, hardware_id: str, year: int, site_name: str | None = None
) -> UnitCost:
    """:func:`unit_cost` of ``hardware_id`` bought in ``year``, with the scenario's inputs.

    Price: the scenario's ``price_usd`` for that hardware (a number, or ``{year: price}``
    interpolated geometrically), else the catalog price. Electricity, PUE and facility
    cost: the site's overrides when ``site_name`` is given, else ``finance``; series
    are read at ``year`` geometrically. Unknown ids raise :class:`InputError`.
    """
    specs = hardware_specs(scenario)
    if hardware_id not in specs:
        raise _unknown("hardware", hardware_id, sorted(specs), "hardware")
    hw = specs[hardware_id]
    choice = next(h for h in scenario.hardware if h.id == hardware_id)
    price = (
        value_at(choice.price_usd, year, "geometric")
        if choice.price_usd is not None
        else hw.price_usd
    )
    finance = scenario.finance
    electricity, pue, facility = (
        finance.electricity_usd_per_kwh,
        finance.pue,
        finance.facility_usd_per_kw_year,
    )
    if site_name is not None:
        sites = {s.name: s for s in scenario.sites}
        if site_name not in sites:
            raise _unknown("site", site_name, sorted(sites), "sites")
        site = sites[site_name]
        electricity = site.electricity_usd_per_kwh or electricity
        pue = site.pue or pue
        facility = (
            facility if site.facility_usd_per_kw_year is None else site.facility_usd_per_kw_year
        )
    return unit_cost(
        hw,
        price_usd=price,
        wacc=finance.wacc,
        pue=pue,
        electricity_usd_per_kwh=value_at(electricity, year, "geometric"),
        facility_usd_per_kw_year=value_at(facility, year, "geometric"),
        maintenance_fraction=finance.maintenance_fraction_of_capex_per_year,
        utilisation=finance.utilisation,
    )


def usd_per_mtok(
    unit_cost_usd_per_year: float, tokens_per_s_per_unit: float, load_factor: float = 1.0
) -> float:
    """USD per million tokens from one unit: ``cost / (tokens/s · 3600 · 8760 · load) · 1e6``.

    ``load_factor`` is the average share of the unit's throughput actually sold.
    """
    tokens_per_year = tokens_per_s_per_unit * SECONDS_PER_HOUR * HOURS_PER_YEAR * load_factor
    return unit_cost_usd_per_year / tokens_per_year * 1e6


@dataclass(frozen=True)
class BlendedPrice:
    """An API price list blended at a workload's input mix and cache-hit rate."""

    usd_per_mtok: float
    """USD per million tokens of all kinds (input and output)."""
    usd_per_output_mtok: float
    """USD per million output tokens, with their input tokens included."""


def blended_usd_per_mtok(
    input_usd_per_mtok: float,
    output_usd_per_mtok: float,
    cached_input_usd_per_mtok: float,
    input_per_output: float,
    cache_hit_rate: float,
) -> BlendedPrice:
    """Blend input, cached-input and output prices.

    Per output token come r = ``input_per_output`` input tokens, a share h of them
    cache hits: per million output tokens ``out + r · ((1−h) · in + h · cached)``;
    per million tokens of all kinds that divided by ``1 + r``.
    """
    per_output = output_usd_per_mtok + input_per_output * (
        (1.0 - cache_hit_rate) * input_usd_per_mtok + cache_hit_rate * cached_input_usd_per_mtok
    )
    return BlendedPrice(
        usd_per_mtok=per_output / (1.0 + input_per_output), usd_per_output_mtok=per_output
    )


def daily_bill_usd(tokens_per_day: float, usd_per_mtok: float) -> float:
    """USD per day for ``tokens_per_day`` tokens at ``usd_per_mtok``."""
    return tokens_per_day / 1e6 * usd_per_mtok


def yearly_bill_usd(
    tokens_per_day: float, usd_per_mtok: float, days_per_year: float = DAYS_PER_BILLING_YEAR
) -> float:
    """USD per year: the daily bill times ``days_per_year`` (365 by default)."""
    return daily_bill_usd(tokens_per_day, usd_per_mtok) * days_per_year


def yearly_query_bill_usd(
    queries_per_day: float, usd_per_query: float, days_per_year: float = DAYS_PER_BILLING_YEAR
) -> float:
    """USD per year for ``queries_per_day`` queries priced per query."""
    return queries_per_day * usd_per_query * days_per_year


def inference_flops_per_token(active_params_b: float) -> float:
    """FLOPs to generate or read one token: ``2 · P_active`` (attention ignored)."""
    return 2.0 * active_params_b * 1e9


@dataclass(frozen=True)
class Crossover:
    """When cumulative inference compute equals a model's training compute."""

    training_flops: float
    training_basis: str
    """How ``training_flops`` was found: ``tokens`` (6·P·T) or ``accelerator-hours``."""
    inference_flops_per_day: float
    tokens_per_day: float
    """Tokens generated per day (questions × (answer + reasoning tokens))."""
    days: float
    years: float
    """``days / 365.25``."""


def training_flops_from_hours(
    accelerator_hours: float, peak_tflops: float, utilisation: float
) -> float:
    """Training FLOPs from accelerator-hours: ``hours · 3600 · peak · 1e12 · utilisation``."""
    return accelerator_hours * SECONDS_PER_HOUR * peak_tflops * 1e12 * utilisation


def crossover(
    model: ModelSpec,
    *,
    questions_per_day: float,
    tokens_per_question: float,
    reasoning_tokens: float = 0.0,
    hardware: HardwareSpec | None = None,
    utilisation: float | None = None,
    training_accelerator_hours: float | None = None,
    precision: str = "bf16",
) -> Crossover:
    """Days of serving until inference compute equals training compute.

    Inference: ``questions · (tokens + reasoning) · 2 · P_active`` FLOPs per day.
    Training: with ``hardware``, ``hours · peak(precision) · utilisation`` (hours:
    ``training_accelerator_hours`` or the model's reported hours; utilisation: the
    given one or the hardware's training MFU); without, ``6 · P_active · T`` from the
    model's reported training tokens. Missing inputs raise :class:`InputError`.
    """
    if training_accelerator_hours is not None and hardware is None:
        raise InputError(
            None, "training accelerator-hours need a hardware type to convert hours to FLOPs"
        )
    if hardware is not None:
        hours = training_accelerator_hours or model.training_accelerator_hours
        if hours is None:
            raise InputError(
                None,
                f"model {model.id!r} has no reported training accelerator-hours; "
                "give them (--training-gpu-hours)",
            )
        peak = hardware.peak_tflops(precision)
        if peak is None:
            raise InputError(None, f"hardware {hardware.id!r} has no peak at {precision}")
        util = utilisation if utilisation is not None else hardware.mfu_training
        total, basis = training_flops_from_hours(hours, peak, util), "accelerator-hours"
    else:
        if model.training_tokens is None:
            raise InputError(
                None,
                f"model {model.id!r} has no reported training tokens; give a hardware "
                "type and training accelerator-hours instead",
            )
        total, basis = training_flops(model.active_params_b, model.training_tokens), "tokens"
    tokens_per_day = questions_per_day * (tokens_per_question + reasoning_tokens)
    per_day = tokens_per_day * inference_flops_per_token(model.active_params_b)
    days = total / per_day
    return Crossover(
        training_flops=total,
        training_basis=basis,
        inference_flops_per_day=per_day,
        tokens_per_day=tokens_per_day,
        days=days,
        years=days / DAYS_PER_YEAR,
    )


def price_inference_table(scenario: Scenario, inference: pd.DataFrame, year: int) -> pd.DataFrame:
    """``inference`` (the perf model's table) plus unit economics in ``year``.

    ``usd_per_accelerator_hour``: the unit's yearly cost per accelerator-hour;
    ``usd_per_mtok_output``: that yearly cost over the output tokens the unit serves in a
    year at full load (colocated, prefill included); ``usd_per_mtok_all_tokens`` spreads
    the same cost over input and output tokens (``÷ (1 + input per output)``). Empty
    (NA) for pairs that cannot be served.
    """
    import pandas as pd

    from planner.perf.workloads import serving_workloads

    ratio = {w.name: w.input_tokens_per_output_token for w in serving_workloads(scenario)}
    costs = {h.id: unit_cost_for_scenario(scenario, h.id, year) for h in scenario.hardware}
    per_hour: list[float] = []
    output: list[float | None] = []
    blended: list[float | None] = []
    for row in inference.itertuples(index=False):
        cost = costs[row.hardware]
        per_hour.append(cost.usd_per_accelerator_hour)
        if row.servable and row.output_tokens_per_s_per_unit > 0:
            usd = usd_per_mtok(cost.total_usd_per_year, row.output_tokens_per_s_per_unit)
            output.append(usd)
            blended.append(usd / (1.0 + ratio[row.workload]))
        else:
            output.append(None)
            blended.append(None)
    return inference.assign(
        usd_per_accelerator_hour=per_hour,
        usd_per_mtok_output=pd.array(output, dtype="Float64"),
        usd_per_mtok_all_tokens=pd.array(blended, dtype="Float64"),
    )
