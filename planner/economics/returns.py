"""Investment measures of a stream of cash flows: NPV, IRR, payback.

A stream is ``{years from the horizon start: USD}`` (fractional years allowed): each
period's flow is booked at its start, as everywhere in the planner, and the residual
credit at the horizon end. So the NPV at ``wacc`` of a plan's profit stream is the PV of
its revenue minus its NPV cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from planner.economics.discounting import discount_factor

IRR_BRACKETS = (-0.99, -0.5, -0.2, 0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0)
"""Rates between which the IRR is searched for a change of sign of the NPV."""
IRR_TOLERANCE = 1e-10
"""Width of the bracket at which the bisection stops (a rate per year)."""


def stream_npv(rate: float, flows: Mapping[float, float]) -> float:
    """``Σ cf_t · (1 + rate)^−t`` over ``{t years: USD}``."""
    return sum(cf * discount_factor(rate, t) for t, cf in flows.items())


def irr(flows: Mapping[float, float]) -> float | None:
    """Internal rate of return: the rate per year at which the stream's NPV is zero.

    None when no rate in (−99%, 10,000%) makes it zero (every flow of one sign), or when
    the NPV changes sign more than once there (several IRRs: none is meaningful).
    """
    values = [stream_npv(r, flows) for r in IRR_BRACKETS]
    changes = [i for i in range(len(values) - 1) if values[i] * values[i + 1] < 0]
    zeros = [r for r, v in zip(IRR_BRACKETS, values, strict=True) if v == 0]
    if len(zeros) == 1 and not changes:
        return zeros[0]
    if len(changes) != 1 or zeros:
        return None
    low, high = IRR_BRACKETS[changes[0]], IRR_BRACKETS[changes[0] + 1]
    low_positive = stream_npv(low, flows) > 0
    while high - low > IRR_TOLERANCE:
        middle = (low + high) / 2
        if (stream_npv(middle, flows) > 0) == low_positive:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def payback_year(cumulative: Sequence[tuple[int, float]]) -> int | None:
    """Year of the first period from which cumulative cash stays at or above zero to the
    horizon end.

    ``cumulative``: (year, cumulative cash at the period's end), one per period in time
    order. None when it ends below zero (no payback inside the horizon).
    """
    if not cumulative or cumulative[-1][1] < 0:
        return None
    year = cumulative[-1][0]
    for y, cash in reversed(cumulative):
        if cash < 0:
            break
        year = y
    return year
