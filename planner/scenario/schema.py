"""The scenario file: the analyst's interface (DESIGN.md section 8).

Models are frozen, reject unknown keys, and parse numbers strictly (``true`` is not
a number; ``"5"`` is not a number; YAML's ``1e9`` is read as a float by the loader).
Each field's docstring says what it means and its unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from planner.catalog.schema import HardwareSpec, ModelSpec, Precision
from planner.scenario.periods import Period, horizon_periods

PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]
Fraction = Annotated[float, Field(ge=0, le=1)]
Year = Annotated[int, Field(ge=1990, le=2100)]
Name = Annotated[str, Field(min_length=1, max_length=200)]
PositiveYearValue = PositiveFloat | dict[Year, PositiveFloat]
NonNegativeYearValue = NonNegativeFloat | dict[Year, NonNegativeFloat]


class _Section(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
        use_attribute_docstrings=True,
    )


class Horizon(_Section):
    start: Year
    """First planning year."""
    years: int = Field(ge=1, le=30)
    """Number of years planned."""
    periods_per_year: Literal[1, 2, 4, 12] = 1
    """Periods per year: 1 yearly, 2 half-years, 4 quarters, 12 months. Inputs stay per
    year; planner.scenario.periods says how each is spread over shorter periods."""

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
    wacc: Fraction = 0.10
    """Discount rate for NPV and capital recovery, per year."""
    pue: float = Field(default=1.25, ge=1.0, le=3.0)
    """Power usage effectiveness: facility power / IT power."""
    electricity_usd_per_kwh: PositiveYearValue = 0.07
    """Electricity price, USD per kWh (sites may override)."""
    facility_usd_per_kw_year: NonNegativeYearValue = 1500.0
    """Data-centre cost per kW of IT load per year (lease or amortised build), USD."""
    maintenance_fraction_of_capex_per_year: Fraction = 0.03
    """Yearly maintenance and support as a fraction of purchase price."""
    utilisation: Fraction = 0.8
    """Average fraction of nameplate IT power drawn (for the energy bill)."""
    availability: Fraction = 0.95
    """Fraction of installed units available for work (maintenance, spares)."""


class Site(_Section):
    name: Name
    """Site id used by existing_fleet rows and in results."""
    power_cap_mw: PositiveYearValue
    """Facility power available (IT × PUE), MW; held from the last given year."""
    electricity_usd_per_kwh: PositiveYearValue | None = None
    """Overrides finance.electricity_usd_per_kwh for this site."""
    pue: float | None = Field(default=None, ge=1.0, le=3.0)
    """Overrides finance.pue for this site."""
    facility_usd_per_kw_year: NonNegativeYearValue | None = None
    """Overrides finance.facility_usd_per_kw_year for this site."""


class Budget(_Section):
    capex_usd: PositiveYearValue | None = None
    """Capital budget per year, USD; held from the last given year; absent = unlimited."""


def _hardware_choice_fields() -> dict[str, Any]:
    """Every catalog field, optional, so a scenario can override any of them."""
    fields: dict[str, Any] = {}
    for name, info in HardwareSpec.model_fields.items():
        if name in ("id", "price_usd"):
            continue
        annotation: Any = info.annotation
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
    price_usd: PositiveYearValue | None = None
    """Price per unit, USD (a number or {year: price}); default: the catalog price."""
    max_units_per_year: PositiveYearValue | None = None
    """Supply cap: most units that can be bought per year (all sites); absent = unlimited."""
    sites: list[Name] | None = None
    """Sites where this hardware may be installed; absent = every site."""

    if TYPE_CHECKING:  # fields created from HardwareSpec above, declared for type checkers
        vendor: str | None

    def overrides(self) -> dict[str, Any]:
        """Catalog fields this choice sets, with scalar values only."""
        skip = {"id", "price_usd", "max_units_per_year", "sites"}
        out = {k: v for k, v in self.model_dump(exclude_none=True).items() if k not in skip}
        if isinstance(self.price_usd, float | int):
            out["price_usd"] = float(self.price_usd)
        return out


class ModelChoice(
    create_model(  # type: ignore[call-overload,misc]
        "_ModelOverrides",
        __base__=_Section,
        **{
            name: (info.annotation | None, Field(default=None))
            for name, info in ModelSpec.model_fields.items()
            if name != "id"
        },
    )
):
    """A model: a catalog id, or a full architecture under a new id."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", max_length=64)]
    """Catalog id (e.g. ``llama-3.1-405b``) or a new id with every architecture field."""

    def overrides(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k != "id"}


class Rental(_Section):
    hardware: str
    """Hardware id (must be listed under ``hardware``)."""
    usd_per_accelerator_hour: PositiveYearValue
    """Rental price, USD per accelerator-hour."""
    max_accelerators: PositiveYearValue | None = None
    """Most accelerators that can be rented in a year; absent = unlimited."""


class ExistingFleet(_Section):
    hardware: str
    """Hardware id (must be listed under ``hardware``)."""
    site: str
    """Site name."""
    units: int = Field(ge=1)
    """Units installed."""
    installed: Year
    """Year installed; units retire after the hardware's lifetime_years."""


class TrainingRun(_Section):
    name: Name
    """Run id."""
    model: str
    """Model id (must be listed under ``models``)."""
    tokens: PositiveFloat
    """Training tokens."""
    precision: Precision = "bf16"
    """Compute precision (bf16, fp8, fp4)."""
    window: list[Year] = Field(min_length=2, max_length=2)
    """[first year, last year]: the run must finish inside these years."""
    flops: PositiveFloat | None = None
    """Total training FLOPs; overrides 6 · active params · tokens."""
    mfu: Fraction | None = None
    """Model-FLOPs utilisation; overrides the hardware's catalog default."""
    checkpoint_stall_s: PositiveFloat = 20.0
    """Seconds training stalls to write one checkpoint (δ)."""
    restart_s: PositiveFloat = 444.0
    """Seconds to detect a failure, restart and reload (R)."""
    mtbf_hours_per_accelerator: PositiveFloat | None = None
    """Overrides the hardware's per-accelerator MTBF, hours."""
    rollout_tokens: PositiveFloat | None = None
    """RL post-training: output tokens generated by rollouts, served inside the window."""
    rollout_slo_tokens_per_s_per_user: PositiveFloat = 20.0
    """Interactivity the rollouts need, tokens/s per sequence."""

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
    tokens_per_day: PositiveYearValue
    """Output tokens per day (reasoning included); interpolated geometrically."""
    input_tokens_per_output_token: NonNegativeFloat = 3.0
    """Input (prompt) tokens per output token."""
    cache_hit_rate: Fraction = 0.0
    """Share of input tokens served from the prefix cache (skip prefill)."""
    slo_tokens_per_s_per_user: PositiveFloat = 30.0
    """Minimum decode speed each user sees, output tokens/s."""
    peak_to_average: float = Field(default=1.5, ge=1.0, le=10.0)
    """Peak demand over average demand; capacity is sized for the peak."""
    output_tokens_per_request: PositiveFloat = 1000.0
    """Mean output tokens per request (sets the decode context length)."""
    context_tokens: PositiveFloat | None = None
    """Longest sequence a replica must hold; default: the model's max context."""

    @property
    def kv_precision_resolved(self) -> Precision:
        if self.kv_precision is not None:
            return self.kv_precision
        return "fp8" if self.precision == "fp4" else self.precision


class Solver(_Section):
    name: str = "highs"
    """Pyomo solver name (highs by default)."""
    mip_gap: Fraction = 0.005
    """Relative MIP gap at which to stop."""
    time_limit_s: PositiveFloat = 120.0
    """Wall-clock limit for one solve, seconds."""
    threads: int | None = Field(default=None, ge=1, le=256)
    """Solver threads; default: the solver's own choice."""
    strategy: Literal["auto", "direct", "lp-first"] = "auto"
    """``direct``: solve the MILP as built. ``lp-first``: solve its LP relaxation, round
    it to whole units and keep that plan if it is within ``mip_gap`` of the relaxation's
    bound, else start the MILP from it (HiGHS only). ``auto``: ``lp-first`` for models of
    20,000 variables or more, else ``direct`` (see planner.optimize.strategy)."""


class Penalties(_Section):
    unmet_inference_usd_per_mtok: PositiveFloat = 1000.0
    """Cost of one million output tokens of demand left unserved, USD."""
    unmet_training_usd_per_pflop: PositiveFloat = 5.0
    """Cost of one PFLOP of training compute left undone, USD."""


class Scenario(_Section):
    name: Name
    """Scenario id (shown in results)."""
    description: str = ""
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
    models: list[ModelChoice] = Field(min_length=1)
    training: list[TrainingRun] = []
    inference: list[InferenceWorkload] = []
    serving: Literal["colocated", "disaggregated"] = "colocated"
    """Serve prefill and decode on the same replicas, or place them separately."""
    vendor_share_max: dict[str, Fraction] = {}
    """Optional cap on each vendor's share of installed accelerators, e.g. {NVIDIA: 0.7}."""
    penalties: Penalties = Penalties()
    solver: Solver = Solver()
    calibration: str | None = None
    """Path of a calibration YAML from ``planner calibrate`` (relative to this file)."""
    overrides: dict[str, Any] = {}
    """Dotted-path overrides applied on top of ``extends`` (already applied once loaded)."""
