"""Lost tokens under a daily load shape: the linear load-duration curve of peak_to_average.

Capacity is sized against the peak P of a workload's demand; its ``peak_to_average`` a
gives the mean M = P / a. Over a day, sorted by load (x the share of the day), demand is
taken to fall linearly — the simplest shape with that peak and that mean:

* a ≤ 2: from P to m = P · (2/a − 1) over the whole day;
* a > 2: from P to 0 over the share φ = 2/a of the day, and 0 after.

With capacity C = P − u (u the shortfall at peak, 0 ≤ u ≤ P), the demand lost is the
part of the curve above C, on average over the day::

    ℓ(u) = ∫₀¹ (d(x) − C)⁺ dx = u² / (2s)     for u ≤ s
                               = u − s/2       for s ≤ u ≤ P   (only when s < P, a < 2)

where s is the curve's fall over a whole day: s = P − m = 2P(1 − 1/a) for a ≤ 2 and
s = P/φ = P·a/2 for a > 2 (then u ≤ P ≤ s and only the quadratic part is met). So
ℓ(0) = 0, ℓ(P) = M (all demand lost), ℓ is convex, and flat demand (a = 1, s = 0)
gives ℓ = u. Proportional rationing, the former rule, took ℓ = u/a: the shortfall
scaled with the load at every hour, whereas at off-peak hours demand is below the
capacity and nothing is lost.

The optimiser charges the piecewise-linear interpolant of ℓ (:func:`lost_charged`):
:data:`CHORDS` equal chords of the quadratic part over [0, q], q = min(s, P), then the
linear part. It is exact at the breakpoints and on the linear part, and over-estimates
ℓ by at most c·h²/4 = q² / (8 · CHORDS² · s) at a chord's midpoint (c = 1/(2s), chord
width h = q / CHORDS), i.e. by at most M · min(a − 1, 1) / (4 · CHORDS²): 1/64 of the
mean demand with 4 chords. Every figure of lost tokens (penalty, unserved share, lost
revenue, the Plan's tables, the checker, the workbook) uses that interpolant, so the
objective and the reported tokens agree.

All functions are homogeneous: u and P in any one unit (Mtok/day in the model,
tokens/day in the Plan's tables); the result is in that unit, an average over the day.
"""

from __future__ import annotations

from itertools import pairwise

CHORDS = 4
"""Chords of the quadratic part in the optimiser's piecewise-linear ℓ."""

BASIS = "linear load-duration curve from peak_to_average"
"""How unmet tokens are counted: named next to the figures (``unmet_tokens_basis``)."""


def span(peak: float, peak_to_average: float) -> float:
    """s: the curve's fall over a whole day (P − m for a ≤ 2; P · a/2 for a > 2)."""
    a = peak_to_average
    if a <= 2.0:
        return 2.0 * peak * (1.0 - 1.0 / a)
    return peak * a / 2.0


def lost_average(unmet_peak: float, peak: float, peak_to_average: float) -> float:
    """ℓ(u): average demand lost per day when capacity is ``unmet_peak`` short of the peak."""
    u = min(max(unmet_peak, 0.0), peak)
    s = span(peak, peak_to_average)
    if u <= s:
        return u * u / (2.0 * s) if s > 0 else 0.0
    return u - s / 2.0


def lost_lines(peak: float, peak_to_average: float) -> list[tuple[float, float]]:
    """(slope, intercept) of each piece of the optimiser's ℓ: ℓ ≥ slope · u + intercept.

    Chord k of the quadratic over [x_k, x_k+1], x_k = k·q/CHORDS, is the line through
    (x_k, c·x_k²) and (x_k+1, c·x_k+1²): slope c·(x_k + x_k+1), intercept −c·x_k·x_k+1;
    the linear part (s < P) is slope 1, intercept −s/2. Their maximum (with 0) is
    :func:`lost_charged`.
    """
    s = span(peak, peak_to_average)
    q = min(s, peak)
    lines: list[tuple[float, float]] = []
    if q > 0:
        c = 1.0 / (2.0 * s)
        x = [k * q / CHORDS for k in range(CHORDS + 1)]
        lines += [(c * (lo + hi), -c * lo * hi) for lo, hi in pairwise(x)]
    if s < peak:
        lines.append((1.0, -s / 2.0))
    return lines


def lost_charged(unmet_peak: float, peak: float, peak_to_average: float) -> float:
    """The optimiser's ℓ(u): the interpolant of :func:`lost_average` (see the module)."""
    u = min(max(unmet_peak, 0.0), peak)
    return max([0.0, *(slope * u + icpt for slope, icpt in lost_lines(peak, peak_to_average))])


def worst_overcharge(peak: float, peak_to_average: float) -> float:
    """Largest ``lost_charged − lost_average`` over 0 ≤ u ≤ P: q² / (8 · CHORDS² · s)."""
    s = span(peak, peak_to_average)
    q = min(s, peak)
    return q * q / (8.0 * CHORDS**2 * s) if s > 0 else 0.0
