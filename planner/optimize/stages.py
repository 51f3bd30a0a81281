"""The solve recipes as data: which paths ``min_cost`` and ``max_profit`` may take, in
order, and the stages of each — objective, what is held, time share, MIP gap, whether
the run's duals come from it, and what happens when it ends without a plan.

One driver (:func:`planner.optimize.recipe.run_recipe`) walks a recipe: the first path
whose condition holds runs its stages; when a stage whose failure is
:attr:`OnFailure.NEXT_PATH` ends without a plan, its time is lost and the next path
whose condition holds runs in the time left. :func:`recipe_table` prints a recipe as the
decision table the docs show, from these same tuples.

The one-instance stage (:attr:`Goal.LEXICOGRAPHIC`) is itself a fixed sequence on one
HiGHS instance — service LP, cost LP with the service held, rounding, service MILP,
cost MILP, with column generation and a time guard — described step by step in
:mod:`planner.optimize.solvers.lexicographic`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from planner.optimize.paths import SolvePath

SERVICE_GAP = 1e-6
"""Relative MIP gap of a service stage: the plan leaves at most this share more demand
unserved than the limits force."""
MIN_PATH_SECONDS = 1.0
"""A path after a failed one runs only when at least this much of a time limit is left
(without a limit it always runs)."""


class Goal(enum.StrEnum):
    """What a stage minimises."""

    LEXICOGRAPHIC = "service, then NPV cost with it held, in one HiGHS instance"
    COST = "NPV cost (penalties excluded)"
    SERVICE = "priority-weighted unserved share"
    MUST_SERVE = "unserved share of must-serve work"
    PROFIT = "NPV cost + PV of revenue forgone"


class Held(enum.StrEnum):
    """What a stage holds fixed while it minimises its goal."""

    NOTHING = "nothing"
    ALL_SERVED = "every unmet-demand slack at 0"
    PREVIOUS = "the previous stage's objective, at its value"


class OnFailure(enum.StrEnum):
    """What follows when a stage ends without a plan."""

    NEXT_PATH = "its time is lost; the next path runs in the time left"
    KEEP_PREVIOUS = "the previous stage's plan is kept: feasible, cost not minimised"
    NO_PLAN = "no plan"


class When(enum.StrEnum):
    """When a path is taken (the driver tests each in order)."""

    ONE_INSTANCE = (
        "HiGHS (the default), strategy lp-first (auto: from 20,000 variables), not "
        "relaxed, something to serve"
    )
    SERVE_ALL_FIRST = "serve_all_first (the default), and no path before it found no plan"
    NO_MUST_SERVE = "every workload priced, none must-serve"
    ALWAYS = "always"


@dataclass(frozen=True)
class Stage:
    """One solve of a path."""

    goal: Goal
    held: Held = Held.NOTHING
    time_share: float | None = None
    """Share of the time available when the stage starts (None: all of it)."""
    mip_gap: float | None = None
    """The stage's relative MIP gap (None: the run's)."""
    duals: bool = False
    """The run's LP duals (shadow prices) come from this stage."""
    on_failure: OnFailure = OnFailure.NO_PLAN


@dataclass(frozen=True)
class Path:
    """A way to a plan: taken when ``when`` holds, its stages run in order. ``after`` is
    its name when an earlier path ended without a plan."""

    name: SolvePath
    when: When
    stages: tuple[Stage, ...]
    after: SolvePath | None = None


MIN_COST: tuple[Path, ...] = (
    Path(
        SolvePath.ONE_INSTANCE,
        When.ONE_INSTANCE,
        (Stage(Goal.LEXICOGRAPHIC, duals=True, on_failure=OnFailure.NEXT_PATH),),
    ),
    Path(
        SolvePath.ONE_STAGE,
        When.SERVE_ALL_FIRST,
        (Stage(Goal.COST, Held.ALL_SERVED, 0.5, duals=True, on_failure=OnFailure.NEXT_PATH),),
    ),
    Path(
        SolvePath.TWO_STAGES,
        When.ALWAYS,
        (
            Stage(Goal.SERVICE, time_share=0.5, mip_gap=SERVICE_GAP),
            Stage(Goal.COST, Held.PREVIOUS, duals=True, on_failure=OnFailure.KEEP_PREVIOUS),
        ),
        after=SolvePath.TWO_STAGES_AFTER,
    ),
)
"""``objective: min_cost``, lexicographic: serve the most, then cost the least. A plan
of the one stage (every slack at 0) is the lexicographic optimum: an unserved share of 0
is the least there is, so its gap is the gap on cost."""

MAX_PROFIT: tuple[Path, ...] = (
    Path(SolvePath.PROFIT, When.NO_MUST_SERVE, (Stage(Goal.PROFIT, duals=True),)),
    Path(
        SolvePath.MUST_SERVE_FIRST,
        When.ALWAYS,
        (
            Stage(Goal.MUST_SERVE, time_share=0.5, mip_gap=SERVICE_GAP),
            Stage(Goal.PROFIT, Held.PREVIOUS, duals=True, on_failure=OnFailure.KEEP_PREVIOUS),
        ),
    ),
)
"""``objective: max_profit`` (:mod:`planner.optimize.profit`): the must-serve work first,
as ``min_cost`` serves all work, then NPV cost + lost revenue with it held."""


def recipe_table(recipe: tuple[Path, ...]) -> str:
    """``recipe`` as a Markdown table: one row per stage, in the order the driver tries
    them."""
    lines = [
        "| path | taken when | stage | minimises | holds | time share | MIP gap | without a plan |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for path in recipe:
        for number, stage in enumerate(path.stages, 1):
            share = "all left" if stage.time_share is None else f"{stage.time_share:.0%} of left"
            gap = "the run's" if stage.mip_gap is None else f"{stage.mip_gap:g}"
            first = number == 1
            lines.append(
                f"| {path.name.value if first else ''} | {path.when.value if first else ''} "
                f"| {number} | {stage.goal.value} | {stage.held.value} | {share} | {gap} "
                f"| {stage.on_failure.value} |"
            )
    return "\n".join(lines) + "\n"
