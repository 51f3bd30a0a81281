"""Several plans side by side: what ``planner compare`` builds and its workbook shows.

Plain data, so the export (which writes it) and the analysis (which builds it, in
:mod:`planner.analysis.compare`) both stand above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from planner.results.plan import Plan
from planner.scenario.schema import Scenario


@dataclass(frozen=True)
class Solved:
    """One scenario of a comparison: its label, where it came from, and its plan."""

    label: str
    source: Path | None
    scenario: Scenario
    plan: Plan


@dataclass(frozen=True)
class Comparison:
    """Side-by-side tables; one value column per scenario, then ``B − A`` differences."""

    labels: list[str]
    headline: pd.DataFrame
    """metric, unit, one column per scenario, differences."""
    fleet: pd.DataFrame
    """period, hardware, owned accelerators per scenario, differences."""
    costs: pd.DataFrame
    """category, present value (USD) per scenario, differences; a total row last."""
    solved: list[Solved]

    @property
    def difference_columns(self) -> list[str]:
        return difference_labels(self.labels)


def difference_labels(labels: Sequence[str]) -> list[str]:
    return [f"{label} − {labels[0]}" for label in labels[1:]]
