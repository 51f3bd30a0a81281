"""``planner run --resolution-check P``: the plan's fleet against finer sub-periods' peaks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from planner.cli.common import echo_err, frame_records, print_frame, stdout_console
from planner.results import Plan
from planner.results.resolution import (
    SUB_PERIOD_NAMES,
    require_finer,
    resolution_check,
    resolution_summary,
    resolution_verdict,
)
from planner.scenario.schema import Scenario

OPTION = "--resolution-check"


def require_resolution(scenario: Scenario, finer: int | None) -> None:
    """Refuse a bad ``--resolution-check`` before solving (exit 2 at the option)."""
    if finer is not None:
        require_finer(scenario.horizon.periods_per_year, finer, OPTION)


@dataclass(frozen=True)
class ResolutionReport:
    """A plan's :func:`resolution_check` by ``finer`` sub-periods a year."""

    check: pd.DataFrame
    finer: int
    demand_within_period: str | None = None

    @classmethod
    def of(cls, plan: Plan, scenario: Scenario, finer: int | None) -> ResolutionReport | None:
        """The report, or None when the option was not given."""
        if finer is None:
            return None
        check = resolution_check(plan, scenario, finer, path=OPTION)
        return cls(check, finer, scenario.horizon.demand_within_period)

    def json_part(self) -> dict[str, Any]:
        """The check as it joins ``planner run --format json``'s document."""
        return {
            "resolution_check": {
                "periods_per_year": self.finer,
                "verdict": resolution_verdict(self.check, self.finer, self.demand_within_period),
                "summary": frame_records(resolution_summary(self.check)),
                "rows": frame_records(self.check),
            }
        }

    def print(self, fmt: str) -> None:
        """Per plan period the worst shortfall, then the verdict, on stdout; with csv or
        json (whose stdout is the plan) only the verdict, on stderr."""
        said = resolution_verdict(self.check, self.finer, self.demand_within_period)
        verdict = f"resolution check: {said}"
        if fmt != "table":
            echo_err(verdict)
            return
        title = f"Resolution check: fleet against each {SUB_PERIOD_NAMES[self.finer]}'s peak"
        print_frame(resolution_summary(self.check), "table", title=title)
        stdout_console().print(verdict, markup=False, soft_wrap=True)
