"""The ``uncertainty:`` section: a scenario tree of named futures for a two-stage plan.

Each future is the base scenario with its own edits (``set``: dotted path → value, as
``overrides`` writes them; ``scale``: dotted path → multiplier of the number or every
year of the series there), and a probability. Decisions the lab cannot undo (orders,
kept units, commitments, datacenter builds and leases, early sales) taken in the years
up to ``first_stage_through`` are the first stage, shared by every future; everything
later, and all operations, is each future's recourse (:mod:`planner.stochastic`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from planner.field_docs import DocumentedFields
from planner.scenario.meta import meta
from planner.text import printable_name

FutureName = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable_name)]

FIXED_ROOTS = frozenset(
    {"name", "description", "extends", "overrides", "horizon", "solver", "uncertainty"}
)
"""Top-level fields a future may not edit: they define the tree itself (its horizon,
its solve, its name), not what is uncertain."""

PROBABILITY_TOLERANCE = 1e-6
"""How far the futures' probabilities may sum from 1."""


class _Section(DocumentedFields, BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class Future(_Section):
    """One future of the tree."""

    name: FutureName
    """The future's name, e.g. ``high-demand``."""
    probability: Annotated[float, Field(gt=0, le=1), meta(perf=False, unit="probability")]
    """Its probability; the futures' probabilities sum to 1."""
    set: dict[str, Any] = {}
    """Dotted path → value, applied to the base scenario as ``overrides`` are, e.g.
    ``hardware[vr200-nvl144].available_from: 2027Q1``."""
    scale: dict[
        str, Annotated[float, Field(gt=0, le=1000), meta(perf=False, unit="multiplier")]
    ] = {}
    """Dotted path → multiplier of the number there (every year of a series), e.g.
    ``inference[chat].tokens_per_day: 1.8``."""


class Risk(_Section):
    """Risk aversion of the cost stage: expected cost + ``weight`` · CVaR at ``cvar_alpha``."""

    cvar_alpha: Annotated[float, Field(ge=0, lt=1), meta(perf=False, unit="probability")] = 0.9
    """CVaR level α: the mean cost of the worst 1 − α of probability."""
    weight: Annotated[float, Field(ge=0, le=1000), meta(perf=False, unit="multiplier")] = 0.0
    """λ in expected cost + λ · CVaR_α (0: expected cost alone)."""


class Uncertainty(_Section):
    """A two-stage plan over named futures (``planner stochastic``)."""

    first_stage_through: Annotated[int, Field(ge=1990, le=2100), meta(perf=False, unit="year")]
    """Last year whose irreversible decisions (orders by order year, kept units,
    commitments, datacenter builds and leases, sales) are the first stage, taken before
    the future is known and shared by every future; must be a horizon year."""
    futures: list[Future] = Field(min_length=1, max_length=64)
    """The futures, each with its probability and edits of the base scenario."""
    risk: Risk = Risk()
    """Risk aversion of the cost stage (default: expected cost alone)."""
