"""The scenario file: the analyst's interface (docs/reference/scenario.md).

Models are frozen, reject unknown keys, and parse numbers strictly (``true`` is not
a number; ``"5"`` is not a number; YAML's ``1e9`` is read as a float by the loader).
Each field's docstring says what it means and its unit.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from planner.catalog.schema import AvailableFrom, HardwareSpec, ModelSpec, PositiveInt, Precision
from planner.field_docs import DocumentedFields
from planner.scenario.meta import meta
from planner.scenario.periods import Period, horizon_periods
from planner.scenario.procurement import (
    Commitment,
    DatacenterBuild,
    DatacenterLease,
    complete_procurement,
)
from planner.scenario.uncertainty import Uncertainty
from planner.text import MAX_TEXT_CHARS, printable_name
from planner.units import SOLVER_NAMES

PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
Fraction = Annotated[float, Field(ge=0, le=1)]
Year = Annotated[int, Field(ge=1990, le=2100)]
Name = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable_name)]
PositiveYearValue = PositiveFloat | dict[Year, PositiveFloat]
NonNegativeYearValue = NonNegativeFloat | dict[Year, NonNegativeFloat]
# Ranges that keep every stage finite (issue 29): a value that passes validation runs.
Availability = Annotated[float, Field(gt=0, le=1)]
"""Share of owned units in service: above 0 (at 0 no unit ever works, and the cluster
and rate arithmetic divides by it), at most 1."""
TOKENS_PER_DAY_RANGE = (1.0, 1e18)
"""Least and most output tokens a day of an inference workload (and of rollouts)."""
TokensPerDay = Annotated[float, Field(ge=TOKENS_PER_DAY_RANGE[0], le=TOKENS_PER_DAY_RANGE[1])]
"""At least one token a day (below it the lost-token rows underflow to NaN) and at most
1e18 (about a million times 2025's largest deployments)."""
TokensYearValue = TokensPerDay | dict[Year, TokensPerDay]
UsdPerMtok = Annotated[float, Field(ge=0, le=1e6)]
"""A token price of at most a million dollars per million tokens (larger ones overflow
the workbook's revenue and IRR cells)."""
UsdPerMtokYearValue = UsdPerMtok | dict[Year, UsdPerMtok]
UsdPerKwh = Annotated[float, Field(gt=0, le=100)]
"""An electricity price above 0 and at most 100 USD/kWh (a hundred times the dearest
grid price)."""
UsdPerKwhYearValue = UsdPerKwh | dict[Year, UsdPerKwh]
TtftSeconds = Annotated[float, Field(gt=0, le=86_400)]
"""A time-to-first-token target above 0 and at most a day (a longer one is no target:
leave it out); beyond it the chunked-prefill budget is not finite."""
TrainingTokens = Annotated[float, Field(gt=0, le=1e18)]
"""Training tokens: at most 1e18 (about 60,000 times Llama 3's 15.6T); beyond it the
step count of the training perf model is no longer a finite integer."""
Priority = Annotated[float, Field(ge=1e-6, le=1e6)]
"""A service weight from 1e-6 to 1e6: twelve orders of magnitude between the least and
the most important work, within what the solver's tolerances tell apart (a weight of
1e-300 beside another extreme made HiGHS refuse the model)."""
DurationDays = Annotated[float, Field(ge=0.01, le=36_500)]
"""A run's wall-clock days: from a quarter of an hour to a century."""
SequenceTokens = Annotated[float, Field(gt=0, le=1e8)]
"""Tokens of one training sequence: at most 1e8 (a hundred times the longest context
trained today)."""
TrainingFlops = Annotated[float, Field(ge=1e15, le=1e32)]
"""Training FLOPs: at least 1e15 (a second of one accelerator: below it the run's rows
hold coefficients under the solver's tolerances, and HiGHS refused such a model) and
at most 1e32 (about ten million times the largest run of 2025);
beyond it the optimiser's training rows hold numbers no solver accepts."""
Multiplier = Annotated[float, Field(gt=0, le=100)]
"""A multiplier on modelled throughput: above 0 and at most 100 (a hundred times the
model; beyond it the optimiser's rows hold numbers no solver accepts)."""
PUE_UNIT = "facility power / IT power"
FACILITY_UNIT = "USD per kW of IT load per year"
CONTRACT_UNIT = "USD per kW of facility cap per year"


class _Section(DocumentedFields, BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class Horizon(_Section):
    start: Annotated[Year, meta(perf=False, unit="year")]
    """First planning year."""
    years: Annotated[int, meta(perf=False, unit="years")] = Field(ge=1, le=30)
    """Number of years planned."""
    periods_per_year: Annotated[Literal[1, 2, 4, 12], meta(perf=False, unit="periods")] = 1
    """Periods per year: 1 yearly, 2 half-years, 4 quarters, 12 months. Inputs stay per
    year; planner.scenario.periods says how each is spread over shorter periods."""
    demand_within_period: Annotated[
        Literal["start", "peak_average"], meta(perf=False, unit="choice")
    ] = "peak_average"
    """How demand is read inside a period: ``peak_average`` (the default) — capacity
    meets the highest value inside the period (a growing series' end value) ×
    peak_to_average, while tokens served, energy and revenue use the period's average,
    and purchases arrive through the period (planner.optimize.data.deliveries);
    ``start`` — its value at the period's start (capacity and tokens alike), purchases
    in service for the whole period they are bought in."""

    @property
    def year_list(self) -> list[int]:
        return list(range(self.start, self.start + self.years))

    @property
    def end(self) -> int:
        """Last planning year (inclusive)."""
        return self.start + self.years - 1

    @property
    def period_count(self) -> int:
        """Number of planning periods (years · periods_per_year)."""
        return self.years * self.periods_per_year

    @property
    def period_length_years(self) -> float:
        """Length of one period in years (0.25 for quarters)."""
        return 1.0 / self.periods_per_year

    @property
    def periods(self) -> tuple[Period, ...]:
        """The planning periods, first to last (see planner.scenario.periods)."""
        return horizon_periods(self)


class Finance(_Section):
    wacc: Annotated[Fraction, meta(perf=False, unit="per year")] = 0.10
    """Discount rate for NPV and capital recovery, per year."""
    pue: Annotated[float, meta(perf=False, unit=PUE_UNIT)] = Field(default=1.25, ge=1.0, le=3.0)
    """Power usage effectiveness: facility power / IT power."""
    electricity_usd_per_kwh: Annotated[
        UsdPerKwhYearValue, meta(perf=False, unit="USD/kWh", fill="geometric")
    ] = 0.07
    """Electricity price, USD per kWh (sites may override)."""
    facility_usd_per_kw_year: Annotated[
        NonNegativeYearValue, meta(perf=False, unit=FACILITY_UNIT, fill="geometric")
    ] = 1500.0
    """Data-centre cost per kW of IT load per year (lease or amortised build), USD."""
    maintenance_fraction_of_capex_per_year: Annotated[
        Fraction, meta(perf=False, unit="share of price per year")
    ] = 0.03
    """Yearly maintenance and support as a fraction of purchase price."""
    utilisation: Annotated[Fraction, meta(perf=False, unit="share of nameplate power")] = 0.8
    """Average fraction of nameplate IT power drawn (for the energy bill)."""
    network_and_storage: Annotated[bool, meta(perf=False)] = True
    """Count the offers catalog's scale-out network and storage per accelerator with each
    unit: in its price (capex, maintenance) and its IT power. On by default, because a
    fleet cannot run without them (they add about 11% to baseline's NPV); ``false``
    costs a unit at its list price and power alone (the hand-worked test scenarios do,
    to keep their arithmetic short). ``planner tco`` always counts them."""
    availability: Annotated[Availability, meta(perf=True, unit="share of units")] = 0.95
    """Fraction of installed units available for work (maintenance, spares); the perf
    model also shortens each training window by it."""
    capex_payment: Annotated[
        Literal["at_delivery", "at_order", "split"], meta(perf=False, unit="choice")
    ] = "at_delivery"
    """When a purchase is paid: ``at_delivery`` (default; with no lead time the same as
    ordering), ``at_order`` (the whole price when the order is placed, a lead time before
    delivery), or ``split`` (50% at order, 50% at delivery). The objective, the budget and
    the costs table book each payment in its period, discounted there."""
    horizon_end: Annotated[
        Literal["straight_line", "annuity", "none", "resale_curve"], meta(perf=False)
    ] = "straight_line"
    """What a purchase is still worth at the horizon end: ``straight_line`` book value,
    ``annuity`` (capital charged as CRF(wacc, life) per year, only the years inside the
    horizon), ``none``, or ``resale_curve`` (market resale value by age); see "Horizon
    end" in docs/concepts/economics.md."""
    resale_curve: Annotated[
        dict[NonNegativeFloat, Fraction] | None, meta(perf=False, unit="share of price by age")
    ] = None
    """Resale value by age in years as a share of the purchase price, linear between the
    given ages (1 at age 0 unless given); absent = the planner's sourced default
    (planner.economics.horizon_end). Used by ``horizon_end: resale_curve`` and by the
    proceeds of ``sell_early``."""
    sell_early: Annotated[bool, meta(perf=False)] = False
    """Let the optimiser sell owned units (bought in the horizon or existing) at the start
    of any period they would still work in, for ``units × price × resale_curve(age)``
    (0 at or past the lifetime: an early retirement). A sold unit costs nothing after
    the sale and earns no horizon-end credit. Off: units live their whole life."""


class Site(_Section):
    name: Annotated[Name, meta(perf=False)]
    """Site id used by existing_fleet rows and in results."""
    power_cap_mw: Annotated[
        PositiveYearValue | None, meta(perf=False, unit="MW (facility, IT × PUE)", fill="hold")
    ] = None
    """Facility power available (IT × PUE), MW; held from the last given year. With
    ``build`` or ``lease`` it is the capacity the site already has (absent = none)."""
    electricity_usd_per_kwh: Annotated[
        UsdPerKwhYearValue | None,
        meta(
            perf=False,
            unit="USD/kWh",
            fill="geometric",
            default_from="finance.electricity_usd_per_kwh",
        ),
    ] = None
    """Overrides finance.electricity_usd_per_kwh for this site."""
    pue: Annotated[float | None, meta(perf=False, unit=PUE_UNIT, default_from="finance.pue")] = (
        Field(default=None, ge=1.0, le=3.0)
    )
    """Overrides finance.pue for this site."""
    facility_usd_per_kw_year: Annotated[
        NonNegativeYearValue | None,
        meta(
            perf=False,
            unit=FACILITY_UNIT,
            fill="geometric",
            default_from="finance.facility_usd_per_kw_year",
        ),
    ] = None
    """Overrides finance.facility_usd_per_kw_year for this site (on installed kW; a
    site with ``build`` or ``lease`` pays for its built and contracted kW instead)."""
    power_cost: Annotated[Literal["installed", "contracted"], meta(perf=False, unit="choice")] = (
        "installed"
    )
    """How the site pays for its power and space: ``installed`` (default) — the facility
    rate on the kW of IT in use, idle MW of the cap cost nothing; ``contracted`` — a
    take-or-pay contract: ``contract_usd_per_kw_year`` on every kW of ``power_cap_mw``
    (facility kW, as the cap is written) in every period, used or not, *instead of* the
    facility rate on installed kW. Instead, not in addition: the contract is what the
    site's space and power cost, so a unit installed there adds only its energy and
    maintenance (charging both would bill the same kW twice). The contract is a
    constant of the plan's NPV (it moves no decision by its size) but makes the
    contracted MW free to fill. Not with ``build`` or ``lease`` (their capacity is
    already paid as built or leased)."""
    contract_usd_per_kw_year: Annotated[
        NonNegativeYearValue | None,
        meta(perf=False, unit=CONTRACT_UNIT, fill="geometric"),
    ] = None
    """Take-or-pay price of ``power_cost: contracted``, USD per kW of the facility cap
    (IT × PUE) per year; absent = the site's facility rate (its own, else
    ``finance.facility_usd_per_kw_year``) ÷ its PUE, so a full site costs what
    ``installed`` charges and each idle kW of the cap costs the same. Only with
    ``power_cost: contracted``."""
    build: DatacenterBuild | None = None
    """Datacenter capacity the optimiser may build here (MW blocks of critical IT)."""
    lease: DatacenterLease | None = None
    """Critical IT capacity the optimiser may lease here (take-or-pay, $/kW-month)."""

    @model_validator(mode="after")
    def _has_capacity(self) -> Site:
        if self.power_cap_mw is None and self.build is None and self.lease is None:
            raise ValueError(
                "a site needs power_cap_mw (facility MW it has), build or lease; "
                "add power_cap_mw: {year: MW} or a build: / lease: section"
            )
        return self

    @model_validator(mode="after")
    def _contract(self) -> Site:
        if self.power_cost == "contracted" and self.builds_or_leases:
            raise ValueError(
                "power_cost: contracted charges the given power_cap_mw; a site that builds "
                "or leases already pays for its capacity that way. Drop power_cost, or model "
                "the contract as a lease: section"
            )
        if self.power_cost == "installed" and self.contract_usd_per_kw_year is not None:
            raise ValueError(
                "contract_usd_per_kw_year prices power_cost: contracted only; add "
                "power_cost: contracted or drop the rate"
            )
        return self

    @property
    def builds_or_leases(self) -> bool:
        """True for a site with ``build`` or ``lease`` (datacenter capacity as a decision)."""
        return self.build is not None or self.lease is not None

    @property
    def contracted(self) -> bool:
        """True for ``power_cost: contracted``: the whole cap is paid, used or not."""
        return self.power_cost == "contracted"

    @property
    def pays_for_capacity(self) -> bool:
        """True for a site that pays for capacity, not for installed kW: one with
        ``build`` or ``lease`` (built and leased kW; its given ``power_cap_mw`` is
        capacity already paid for) or with ``power_cost: contracted`` (its whole cap)."""
        return self.builds_or_leases or self.contracted


class Budget(_Section):
    capex_usd: Annotated[
        PositiveYearValue | None, meta(perf=False, unit="USD per year", fill="hold")
    ] = None
    """Capital budget per year, USD; held from the last given year; absent = unlimited."""


def _bounded(annotation: Any, metadata: list[Any]) -> Any:
    """A catalog field's type with its constraints (``gt``, ``le``, lengths) attached, so
    an override is held to the catalog's bounds where the scenario is parsed."""
    return Annotated[(annotation, *metadata)] if metadata else annotation  # type: ignore[misc]


def _hardware_choice_fields() -> dict[str, Any]:
    """Every catalog field, optional, so a scenario can override any of them."""
    fields: dict[str, Any] = {}
    for name, info in HardwareSpec.model_fields.items():
        if name in ("id", "price_usd", "price_decline_per_year"):
            continue
        annotation: Any = _bounded(info.annotation, info.metadata)
        fields[name] = (annotation | None, Field(default=None, description=info.description))
    return fields


_HardwareOverrides = create_model(  # type: ignore[call-overload]
    "_HardwareOverrides", __base__=_Section, **_hardware_choice_fields()
)


class HardwareChoice(_HardwareOverrides):  # type: ignore[misc,valid-type]
    """A candidate hardware system: a catalog id, plus any overridden catalog fields.

    An id that is not in the catalog defines a new system; then every required catalog
    field must be given.
    """

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", max_length=64)]
    """Catalog id, e.g. ``gb200-nvl72``."""
    price_usd: Annotated[
        PositiveYearValue | None, meta(perf=False, unit="USD per unit", fill="geometric")
    ] = None
    """Price per unit, USD (a number or {year: price}); default: the catalog price."""
    max_units_per_year: Annotated[
        NonNegativeYearValue | None, meta(perf=False, unit="units per year", fill="hold")
    ] = None
    """Supply cap: most units that can be bought per year (all sites); absent = unlimited;
    0 = rent only (cloud-only systems get 0 from the offers catalog)."""
    sites: Annotated[list[Name] | None, meta(perf=False)] = None
    """Sites where this hardware may be installed; absent = every site."""
    purchasable: Annotated[bool | None, meta(perf=False)] = None
    """Whether the lab can buy it; absent = the offers catalog's (false for cloud-only
    systems, which are then rented only). ``true`` models a direct purchase deal."""
    price_decline_per_year: Annotated[
        float | None, Field(ge=0, lt=1), meta(perf=False, unit="fraction per year")
    ] = None
    """List-price decline of this SKU per year, e.g. 0.1: from when its successor ships
    (the catalog's ``successor``), or, for a part with no successor, from the catalog
    ``price_year`` when given here; absent = the catalog's rate (default 0.20 a year,
    sourced in ``planner.catalog.schema.DEFAULT_PRICE_DECLINE_PER_YEAR``), applied only
    once a successor ships; 0 holds the catalog price. Applies to the catalog price
    only, never to a given ``price_usd`` path."""

    if TYPE_CHECKING:  # fields created from HardwareSpec above, declared for type checkers
        vendor: str | None
        available_from: AvailableFrom | None

    def overrides(self) -> dict[str, Any]:
        """Catalog fields this choice sets, with scalar values only."""
        skip = {
            "id",
            "price_usd",
            "max_units_per_year",
            "sites",
            "purchasable",
            "price_decline_per_year",
        }
        out = {k: v for k, v in self.model_dump(exclude_none=True).items() if k not in skip}
        if isinstance(self.price_usd, float | int):
            out["price_usd"] = float(self.price_usd)
        return out


def _as_written(annotation: Any) -> Any:
    """A catalog field's type as a scenario file writes it: a YAML list for a tuple (the
    catalog keeps tuples, which hash; scenario sections are strict, and a strict tuple
    refuses a list)."""
    if get_origin(annotation) is tuple:
        return list[get_args(annotation)[0]]  # type: ignore[index,misc]
    return annotation


class ModelChoice(
    create_model(  # type: ignore[call-overload,misc]
        "_ModelOverrides",
        __base__=_Section,
        **{
            name: (
                _bounded(_as_written(info.annotation), info.metadata) | None,
                Field(default=None),
            )
            for name, info in ModelSpec.model_fields.items()
            if name != "id"
        },
    )
):
    """A model: a catalog id, or a full architecture under a new id."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", max_length=64)]
    """Catalog id (e.g. ``llama-3.1-405b``) or a new id with every architecture field."""

    @model_validator(mode="before")
    @classmethod
    def _empty_lists_are_unset(cls, data: Any) -> Any:
        """An empty list (``compressed_attention: []``) is the catalog default, as a
        blank workbook cell is: read both as unset. A tuple (a catalog row dumped to a
        dict) is read as the list a file would write."""
        if isinstance(data, dict):
            return {
                k: list(v) if isinstance(v, tuple) else v
                for k, v in data.items()
                if not (isinstance(v, list | tuple) and not v)
            }
        return data

    def overrides(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k != "id"}


class Rental(_Section):
    hardware: Annotated[str, meta(perf=False)]
    """Hardware id (listed under ``hardware`` as rent-only when it is not there)."""
    usd_per_accelerator_hour: Annotated[
        PositiveYearValue, meta(perf=False, unit="USD per accelerator-hour", fill="geometric")
    ]
    """On-demand rental price, USD per accelerator-hour; default: the offers catalog's."""
    max_accelerators: Annotated[
        PositiveYearValue | None, meta(perf=False, unit="accelerators", fill="hold")
    ] = None
    """Most accelerators that can be rented in a year (on demand and committed together);
    absent = unlimited."""
    commitments: list[Commitment] = []
    """Committed terms offered (1 or 3 years, reserved and paid for the whole term)."""


class ExistingFleet(_Section):
    hardware: Annotated[str, meta(perf=False)]
    """Hardware id (must be listed under ``hardware``)."""
    site: Annotated[str, meta(perf=False)]
    """Site name."""
    units: Annotated[int, meta(perf=False, unit="units")] = Field(ge=1)
    """Units installed."""
    installed: Annotated[Year, meta(perf=False, unit="year")]
    """Year installed; units retire after the hardware's lifetime_years."""


class OnOrder(_Section):
    """Units ordered before the horizon starts, with a fixed delivery inside it.

    They were ordered and paid before the horizon (sunk, like ``existing_fleet``: no
    capex, no residual value, only their running costs from delivery) and join the fleet
    in the first period starting at or after ``delivery``, then live the hardware's
    ``lifetime_years``.
    """

    hardware: Annotated[str, meta(perf=False)]
    """Hardware id (must be listed under ``hardware``)."""
    site: Annotated[str, meta(perf=False)]
    """Site name."""
    units: Annotated[int, meta(perf=False, unit="units")] = Field(ge=1)
    """Units on order."""
    delivery: Annotated[Year | date, meta(perf=False, unit="year or date")]
    """Delivery year (``2027``: its start) or date (``2027-07-01``)."""

    @field_validator("delivery", mode="before")
    @classmethod
    def _iso_delivery(cls, value: object) -> object:
        return _as_date(value) or value


def _as_date(value: object) -> date | None:
    """A date, or an ISO ``YYYY-MM-DD`` string read as one; anything else: None."""
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


class TrainingRun(_Section):
    name: Annotated[Name, meta(perf=True)]
    """Run id."""
    model: str
    """Model id (must be listed under ``models``)."""
    tokens: Annotated[TrainingTokens, meta(perf=True, unit="tokens")]
    """Training tokens."""
    precision: Precision = "bf16"
    """Compute precision (bf16, fp8, fp4)."""
    window: Annotated[list[Year], meta(perf=True, unit="year")] = Field(min_length=2, max_length=2)
    """[first year, last year]: the run must finish inside these years."""
    kind: Annotated[Literal["pretrain", "full", "lora"], meta(perf=True, unit="choice")] = (
        "pretrain"
    )
    """``pretrain`` or ``full`` fine-tuning (6 · active params FLOPs a token, weights,
    gradients and optimizer state for every parameter) or ``lora`` fine-tuning (4 ·
    params a token: no weight gradients or optimizer state for the frozen weights)."""
    global_batch_tokens: Annotated[PositiveFloat | None, meta(perf=True, unit="tokens")] = None
    """Tokens in one optimiser step across the cluster (default: 16,777,216 = 2,048 ×
    8,192, Llama 3 405B's main-stage batch, for pretrain and full; 65,536 = 8 × 8,192,
    MLPerf's Llama 2 70B LoRA batch, for lora). At a fixed batch a larger cluster gives
    each accelerator less work a step, so its rate falls (planner.perf.training_scale)."""
    sequence_tokens: Annotated[SequenceTokens, meta(perf=True, unit="tokens")] = 8192.0
    """Tokens in one training sequence (one pipeline microbatch)."""
    flops: Annotated[TrainingFlops | None, meta(perf=True, unit="FLOP")] = None
    """Total training FLOPs; overrides 6 · active params · tokens (4 · for lora)."""
    mfu: Annotated[Fraction | None, meta(perf=True, unit="share of peak")] = None
    """Stage model-FLOPs utilisation (one pipeline stage's matrix work, before the
    bubble, gradient synchronisation and expert traffic of planner.perf.training_scale);
    overrides the hardware's catalog default."""
    checkpoint_stall_s: Annotated[PositiveFloat, meta(perf=True, unit="s")] = 20.0
    """Seconds training stalls to write one checkpoint (δ)."""
    restart_s: Annotated[PositiveFloat, meta(perf=True, unit="s")] = 444.0
    """Seconds to detect a failure, restart and reload (R)."""
    mtbf_hours_per_accelerator: Annotated[PositiveFloat | None, meta(perf=True, unit="hours")] = (
        None
    )
    """Overrides the hardware's per-accelerator MTBF, hours."""
    rollout_tokens: Annotated[PositiveFloat | None, meta(perf=True, unit="output tokens")] = None
    """RL post-training: output tokens generated by rollouts, served inside the window."""
    rollout_slo_tokens_per_s_per_user: Annotated[
        PositiveFloat, meta(perf=True, unit="tokens/s per user")
    ] = 20.0
    """Interactivity the rollouts need, tokens/s per sequence."""
    priority: Annotated[Priority, meta(perf=False, unit="weight")] = 1.0
    """Weight of this run's undone share in the service stage of ``objective: min_cost``
    (its rollouts carry the same weight): with too little capacity for everything, work
    of a higher priority is served first."""
    value_usd: Annotated[NonNegativeFloat | None, meta(perf=False, unit="USD")] = None
    """What finishing the run is worth, USD, earned pro rata to the work done and booked
    in the window's last period; ``objective: max_profit`` does the run only where its
    value pays for it. Absent: no revenue, and max_profit treats the run as must-finish."""
    must_finish: Annotated[bool, meta(perf=False)] = False
    """Under ``objective: max_profit``, do as much of the run as the limits allow whatever
    it costs (as ``min_cost`` does), even when ``value_usd`` is given."""
    duration_days: Annotated[DurationDays | None, meta(perf=True, unit="days")] = None
    """Wall-clock days the run may take: the optimiser then picks its start and a fixed
    cluster from a menu of sizes that finish within it (absent: the run spreads over
    its window, any units in any period)."""
    earliest_start: Annotated[date | None, meta(perf=False, unit="date")] = None
    """With ``duration_days``: the first day the run may start (default: 1 January of
    the window's first year)."""
    deadline: Annotated[date | None, meta(perf=False, unit="date")] = None
    """With ``duration_days``: the last day of the run (default: 31 December of the
    window's last year)."""
    cluster_menu_sizes: Annotated[int, meta(perf=True, unit="sizes")] = Field(default=3, ge=1, le=8)
    """With ``duration_days``: how many cluster sizes the optimiser chooses from, the
    smallest powers of two in units that finish within the duration."""

    @model_validator(mode="before")
    @classmethod
    def _window_from_dates(cls, data: Any) -> Any:
        """A run given by earliest start and deadline needs no window: it is their years."""
        if isinstance(data, dict) and "window" not in data:
            first, last = (_as_date(data.get(k)) for k in ("earliest_start", "deadline"))
            if first is not None and last is not None:
                return {**data, "window": [first.year, last.year]}
        return data

    @field_validator("earliest_start", "deadline", mode="before")
    @classmethod
    def _iso_date(cls, value: object) -> object:
        return _as_date(value) or value

    @field_validator("window")
    @classmethod
    def _window_ordered(cls, window: list[int]) -> list[int]:
        if window[0] > window[1]:
            raise ValueError(
                f"window starts after it ends ({window[0]} > {window[1]}); "
                "write [first year, last year]"
            )
        return window


class InferenceWorkload(_Section):
    name: Name
    """Workload id."""
    model: str
    """Model id (must be listed under ``models``)."""
    precision: Precision = "fp8"
    """Weight precision (bf16, fp8, fp4)."""
    kv_precision: Precision | None = None
    """KV-cache precision; default: the weight precision (fp8 when weights are fp4)."""
    tokens_per_day: Annotated[
        TokensYearValue, meta(perf=False, unit="output tokens/day", fill="geometric")
    ]
    """Output tokens per day (reasoning included); interpolated geometrically."""
    input_tokens_per_output_token: Annotated[
        NonNegativeFloat, meta(perf=True, unit="input tokens per output token")
    ] = 3.0
    """Input (prompt) tokens per output token."""
    cache_hit_rate: Annotated[Fraction, meta(perf=True, unit="share of input tokens")] = 0.0
    """Share of input tokens served from the prefix cache (skip prefill)."""
    slo_tokens_per_s_per_user: Annotated[
        PositiveFloat, meta(perf=True, unit="tokens/s per user")
    ] = 30.0
    """Minimum decode speed each user sees, output tokens/s."""
    slo_ttft_s: Annotated[TtftSeconds | None, meta(perf=True, unit="s")] = None
    """Longest mean time to first token, seconds (absent: no TTFT target). Colocated
    serving then pushes prompts through a chunked-prefill budget per decode step;
    disaggregated serving sizes the prefill pool so prompts finish within it."""
    max_running_sequences: Annotated[PositiveInt | None, meta(perf=True, unit="sequences")] = None
    """Most sequences one engine scheduler runs at once (a replica, or each attention
    data-parallel rank of an expert-parallel replica); absent: vLLM's defaults, 1,024 on
    parts with 70 GiB of memory or more and 256 below (planner.perf.serving)."""
    peak_to_average: Annotated[float, meta(perf=False, unit="peak / average")] = Field(
        default=1.5, ge=1.0, le=10.0
    )
    """Peak demand over average demand; capacity is sized for the peak, and the tokens a
    shortfall at peak loses follow the linear load-duration curve it implies ("Unmet tokens and the
    load shape" in docs/concepts/time-and-procurement.md)."""
    output_tokens_per_request: Annotated[PositiveFloat, meta(perf=True, unit="tokens")] = 1000.0
    """Mean output tokens per request (sets the decode context length)."""
    context_tokens: Annotated[PositiveFloat | None, meta(perf=True, unit="tokens")] = None
    """Longest sequence a replica must hold; default: the model's max context."""
    draft_tokens: Annotated[int, meta(perf=True, unit="tokens per step")] = Field(
        default=0, ge=0, le=16
    )
    """Speculative decoding / multi-token prediction: tokens drafted per decode step
    (0: off; DeepSeek-V3's MTP module drafts 1)."""
    draft_acceptance_rate: Annotated[Fraction, meta(perf=True, unit="share of drafts")] = 0.0
    """Probability a drafted token is accepted (DeepSeek-V3 reports 85-90% for its MTP)."""
    priority: Annotated[Priority, meta(perf=False, unit="weight")] = 1.0
    """Weight of this workload's unserved share of tokens in the service stage of
    ``objective: min_cost``: with too little capacity for everything, demand of a higher
    priority is served first."""
    price_usd_per_mtok: Annotated[
        UsdPerMtokYearValue | None,
        meta(perf=False, unit="USD per million output tokens", fill="geometric"),
    ] = None
    """Blended price per million output tokens, their prompts included (instead of the
    three split prices). Absent with them: no revenue; ``objective: max_profit`` then
    serves this workload as much as the limits allow (must-serve)."""
    price_input_usd_per_mtok: Annotated[
        UsdPerMtokYearValue | None,
        meta(perf=False, unit="USD per million input tokens", fill="geometric"),
    ] = None
    """Price per million uncached input (prompt) tokens; given with
    ``price_output_usd_per_mtok``."""
    price_cached_input_usd_per_mtok: Annotated[
        UsdPerMtokYearValue | None,
        meta(perf=False, unit="USD per million input tokens", fill="geometric"),
    ] = None
    """Price per million input tokens read from the prefix cache (``cache_hit_rate``);
    default: the uncached input price."""
    price_output_usd_per_mtok: Annotated[
        UsdPerMtokYearValue | None,
        meta(perf=False, unit="USD per million output tokens", fill="geometric"),
    ] = None
    """Price per million output tokens; given with ``price_input_usd_per_mtok``."""

    @model_validator(mode="after")
    def _one_price_form(self) -> InferenceWorkload:
        split = {
            "price_input_usd_per_mtok": self.price_input_usd_per_mtok,
            "price_cached_input_usd_per_mtok": self.price_cached_input_usd_per_mtok,
            "price_output_usd_per_mtok": self.price_output_usd_per_mtok,
        }
        given = [name for name, value in split.items() if value is not None]
        if self.price_usd_per_mtok is not None and given:
            raise ValueError(
                "one price form: price_usd_per_mtok (blended) or the split prices, not "
                f"both (found both with {', '.join(given)}); delete one of them"
            )
        pair = (self.price_input_usd_per_mtok, self.price_output_usd_per_mtok)
        if given and None in pair:
            raise ValueError(
                "split prices with both price_input_usd_per_mtok and "
                "price_output_usd_per_mtok (price_cached_input_usd_per_mtok is optional), "
                "or one blended price_usd_per_mtok"
            )
        return self

    @property
    def priced(self) -> bool:
        """Whether the workload carries a price (blended or split)."""
        return self.price_usd_per_mtok is not None or self.price_output_usd_per_mtok is not None

    @property
    def kv_precision_resolved(self) -> Precision:
        if self.kv_precision is not None:
            return self.kv_precision
        return "fp8" if self.precision == "fp4" else self.precision


class Solver(_Section):
    name: Annotated[str, meta(perf=False)] = SOLVER_NAMES[0]
    """Registered solver name (planner.units.SOLVER_NAMES; highs by default), never a path."""
    mip_gap: Annotated[Fraction, meta(perf=False, unit="share")] = 0.005
    """Relative MIP gap at which to stop."""
    time_limit_s: Annotated[PositiveFloat, meta(perf=False, unit="s")] = 120.0
    """Wall-clock limit of a whole run (perf model, build, solve, export), seconds."""
    threads: Annotated[int | None, meta(perf=False, unit="threads")] = Field(
        default=None, ge=1, le=256
    )
    """Solver threads; default: the solver's own choice."""
    strategy: Annotated[Literal["auto", "direct", "lp-first"], meta(perf=False)] = "auto"
    """``direct``: solve the MILP as built. ``lp-first``: solve its LP relaxation, round
    it to whole units and keep that plan if it is within ``mip_gap`` of the relaxation's
    bound, else start the MILP from it (HiGHS only). ``auto``: ``lp-first`` for models of
    20,000 variables or more, else ``direct`` (see planner.optimize.strategy)."""
    foresight: Annotated[Literal["perfect", "myopic"], meta(perf=False)] = "perfect"
    """``perfect``: one solve over the whole horizon. ``myopic``: a rolling horizon that
    decides ``step_years`` at a time seeing only ``window_years`` ahead, then evaluates
    the whole horizon with those decisions fixed (planner.optimize.foresight)."""
    window_years: Annotated[int, meta(perf=False, unit="years")] = Field(default=2, ge=1, le=30)
    """Myopic foresight: years each rolling solve sees (from the first undecided year)."""
    step_years: Annotated[int, meta(perf=False, unit="years")] = Field(default=1, ge=1, le=30)
    """Myopic foresight: years decided and fixed by each rolling solve (≤ window_years)."""

    @field_validator("name")
    @classmethod
    def _registered(cls, name: str) -> str:
        """Only registered names: Pyomo would run a path (or any program) named here."""
        if name not in SOLVER_NAMES:
            raise ValueError(
                "a registered solver name, one of " + ", ".join(SOLVER_NAMES) + " (a path "
                "or any other program is never run); set solver.name to one of them, e.g. "
                + SOLVER_NAMES[0]
            )
        return name


class Penalties(_Section):
    """Prices of unmet work, reported next to the unmet demand they price.

    With ``objective: min_cost`` (the default, solved lexicographically) they no longer
    steer the plan: it first serves as much demand as the limits allow (weighted by
    ``priority``), then minimises the NPV cost with that service held. The penalties
    only value the shortfall in the Costs table (penalty rows, outside the objective).
    """

    unmet_inference_usd_per_mtok: Annotated[
        PositiveFloat, meta(perf=False, unit="USD per million output tokens")
    ] = 1000.0
    """Cost of one million output tokens of demand left unserved, USD."""
    unmet_training_usd_per_pflop: Annotated[
        PositiveFloat, meta(perf=False, unit="USD per PFLOP")
    ] = 5.0
    """Cost of one PFLOP of training compute left undone, USD."""


class ThroughputScale(_Section):
    """Multipliers on the performance model's throughput: 1 takes it as computed. Monte
    Carlo's ``--perf-error`` samples them from the model's measured error, so a plan's
    spread includes the model's own uncertainty."""

    training: Annotated[Multiplier, meta(perf=True, unit="multiplier")] = 1.0
    """Scales every training run's sustained rate (a run then needs more or fewer units)."""
    inference: Annotated[Multiplier, meta(perf=True, unit="multiplier")] = 1.0
    """Scales every serving rate (output, decode and prefill tokens/s per unit)."""


class Scenario(_Section):
    name: Name
    """Scenario id (shown in results)."""
    description: Annotated[str, Field(max_length=MAX_TEXT_CHARS)] = ""
    """What this scenario represents."""
    extends: str | None = None
    """Path of a base scenario (relative to this file); ``overrides`` apply on top."""
    horizon: Horizon
    finance: Finance = Finance()
    sites: list[Site] = Field(min_length=1)
    budget: Budget = Budget()
    hardware: list[HardwareChoice] = Field(min_length=1)
    rental: list[Rental] = []
    existing_fleet: list[ExistingFleet] = []
    on_order: list[OnOrder] = []
    """Units ordered (and paid) before the horizon, delivered inside it."""
    models: list[ModelChoice] = Field(min_length=1)
    training: list[TrainingRun] = []
    inference: list[InferenceWorkload] = []
    serving: Annotated[Literal["colocated", "disaggregated"], meta(perf=False)] = "colocated"
    """Serve prefill and decode on the same replicas, or place them separately."""
    vendor_share_max: Annotated[dict[Name, Fraction], meta(perf=False, unit="share")] = {}
    """Optional cap on each vendor's share of installed accelerators, e.g. {NVIDIA: 0.7}."""
    objective: Annotated[Literal["min_cost", "max_profit"], meta(perf=False)] = "min_cost"
    """``min_cost``: serve as much demand as the limits allow — the priority-weighted
    unserved share of every inference workload's tokens and training run's work is
    minimised first — then minimise the NPV of cash costs with that service held (the
    reported gap is the gap on cost). ``max_profit``: serve priced demand and valued runs
    only where they pay — maximise the NPV of revenue minus cash costs — after serving
    the must-serve work (workloads without a price, runs without ``value_usd`` or with
    ``must_finish``) as much as the limits allow (see planner.optimize.profit)."""
    service_measure: Annotated[Literal["weighted_share", "tokens", "revenue"], meta(perf=False)] = (
        "weighted_share"
    )
    """What "most demand served" counts in the service stage of ``objective: min_cost``
    (and the must-serve stage of ``max_profit``). ``weighted_share`` (default): each
    workload's unserved share of its tokens, times its ``priority`` — every workload
    counts, however small, so a small high-priority one is served before a large one.
    ``tokens``: unserved output tokens, every token alike (priorities ignored; the most
    tokens served). ``revenue``: unserved tokens at their price (the most revenue served;
    every inference workload needs a price). Training runs keep their priority-weighted
    undone share, a whole run weighing as much as all inference demand."""
    penalties: Penalties = Penalties()
    solver: Solver = Solver()
    calibration: Annotated[str | None, meta(perf=True)] = None
    """Path of a calibration YAML from ``planner calibrate`` (relative to this file)."""
    throughput_scale: ThroughputScale = ThroughputScale()
    """Multipliers on modelled throughput (see ThroughputScale)."""
    software: Annotated[dict[Name, Name], meta(perf=True)] = {}
    """Serving software stack per vendor, e.g. ``{AMD: rocm7-amd-claim}``: its dated,
    sourced throughput factor (``planner software`` lists them) multiplies the vendor's
    inference throughput; vendors not named use their default stack."""
    overrides: dict[str, Any] = {}
    """Dotted-path overrides applied on top of ``extends`` (already applied once loaded)."""
    uncertainty: Uncertainty | None = None
    """Named futures with probabilities for a two-stage plan (``planner stochastic``):
    the first stage's irreversible decisions are shared, the rest is each future's
    (:mod:`planner.scenario.uncertainty`). ``planner run`` plans the base scenario."""

    @model_validator(mode="before")
    @classmethod
    def _procurement(cls, data: Any) -> Any:
        return complete_procurement(data)

    @field_validator("service_measure")
    @classmethod
    def _revenue_needs_prices(cls, measure: str, info: ValidationInfo) -> str:
        unpriced = [w.name for w in info.data.get("inference", []) if not w.priced]
        if measure == "revenue" and unpriced:
            raise ValueError(
                "service_measure: revenue counts unserved tokens at their price, so every "
                f"inference workload needs one; {', '.join(unpriced)} has none. Give it "
                "price_usd_per_mtok (or split prices), or set service_measure: "
                "weighted_share or tokens"
            )
        return measure

    @property
    def sets_ttft(self) -> bool:
        """Some inference workload sets ``slo_ttft_s`` (throughput tables then show the
        TTFT columns; without a target they are left out to keep the tables narrow)."""
        return any(w.slo_ttft_s is not None for w in self.inference)
