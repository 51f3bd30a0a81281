"""What every part of :func:`planner.optimize.data.build_data` reads."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from planner.catalog.schema import HardwareSpec
from planner.scenario.periods import Period, periods_alive
from planner.scenario.schema import HardwareChoice, Scenario
from planner.scenario.timing import EPS_YEARS, available_from_year


def periods_for(scenario: Scenario) -> tuple[Period, ...]:
    """The planning periods of ``scenario``'s horizon (see planner.scenario.periods)."""
    return scenario.horizon.periods


def finite_positive(value: Any) -> bool:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return math.isfinite(number) and number > 0


@dataclass(frozen=True)
class Context:
    """What every part of ``build_data`` reads."""

    scenario: Scenario
    specs: dict[str, HardwareSpec]
    periods: tuple[Period, ...]
    sites: tuple[str, ...]
    hardware: tuple[str, ...]

    @property
    def per_year(self) -> int:
        return self.scenario.horizon.periods_per_year

    def released(self, h: str, p: Period) -> bool:
        """True when units of ``h`` can be delivered (or rented) in ``p``: ``p`` starts
        at or after its ``available_from`` (see planner.scenario.timing)."""
        return available_from_year(self.specs[h]) <= p.start + EPS_YEARS

    def alive(self, first_index: int, h: str) -> list[Period]:
        """Periods in which a unit of ``h`` installed at the start of period
        ``first_index`` works (``lifetime_years · P`` periods; index arithmetic)."""
        life = self.specs[h].lifetime_years
        return [
            self.periods[k]
            for k in periods_alive(first_index, life, self.per_year, len(self.periods))
        ]

    def choice(self, h: str) -> HardwareChoice:
        return next(c for c in self.scenario.hardware if c.id == h)
