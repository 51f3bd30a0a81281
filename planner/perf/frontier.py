"""The throughput–interactivity frontier of a replica: time-sharing between whole batches.

Under continuous batching the batch of a replica is not a fixed integer: requests arrive
and finish at random, so the number of sequences decoded together is a time average. A
replica whose mean concurrency lies between two whole batches ``B₁ < B₂`` spends a share
``α`` of its time at ``B₁`` and ``1 − α`` at ``B₂``. Its decode rate is then
``α D₁ + (1 − α) D₂`` (``D_B = B τ / t_step(B)`` tokens/s), its output rate
``α y₁ + (1 − α) y₂`` (``y_B`` colocated, prefill included, per accelerator) and its
mean concurrency ``N = α B₁ + (1 − α) B₂``: all linear in ``α``, the chord between the
two points in (concurrency, throughput). By Little's law a sequence's mean decode speed
is the decode rate over the concurrency, ``(α D₁ + (1 − α) D₂) / N`` — not the time
average of the two speeds, since the larger batch holds more of the sequences. The SLO
``s`` then reads ``α u₁ + (1 − α) u₂ ≥ 0`` with the slack ``u_B = D_B − s B``: a point
with ``u ≥ 0`` (fast enough alone) time-shares with a slower, larger batch up to
``α = −u₂ / (u₁ − u₂)``, where the mean speed is exactly ``s``.

So at a required speed ``s`` a layout serves at the best such chord (or the best point
fast enough alone): the upper concave envelope of its whole-batch points in
(concurrency, throughput) cut by the SLO line ``D = s N``. The layout served is the one
highest at ``s``. Layouts are not mixed: a fleet split between a fast and a slow layout
meets the target only on average over users, and the SLO is per user. Past a layout's
batch-1 speed it serves nothing; past the fastest layout's the point is not servable.

Near the latency floor this matters: for MoE models the experts a batch touches grow
like ``E (1 − (1 − k/E)^B)`` — quickly at small ``B`` and then flat — so the step time
first rises steeply and then flattens, throughput ``B τ / t(B)`` is convex over that
range, and the chord from a small batch to the one that touches every expert lies
above the integer points: the integer-batch curve falls several-fold within 10
tok/s/user, the time-shared one does not. For a dense model ``t_step`` is nearly affine
in ``B``, throughput concave, and time-sharing gains nothing.

Kept cheap: batches ``1 … 16`` and then a geometric grid (ratio
:data:`BATCH_GRID_RATIO`) up to the memory limit are evaluated with numpy at once for
all layouts, and only layouts whose largest batch beats the whole-batch search's best
are paired (the points themselves are cached per case without its SLO, so a curve
evaluates them once). The caller keeps the better of the chord and the exact largest integer
batch meeting ``s`` (a batch the grid skips), so the result never falls below the
integer-batch search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import NDArray

from planner.perf.layouts import Layout
from planner.perf.roofline import DecodeStep

BATCH_GRID_RATIO = 1.08
"""Spacing of the batch grid above :data:`DENSE_BATCHES` (8%; the exact whole-batch
optimum is kept beside it)."""
DENSE_BATCHES = 16
"""Every batch up to this is an operating point."""


@dataclass(frozen=True)
class OperatingPoint:
    """One integer configuration: ``layout`` decoding ``batch`` sequences a step."""

    layout: Layout
    batch: int
    step_s: float
    speed: float
    """Tokens/s per user, ``τ / t_step(B)``."""
    per_accelerator: float
    """Colocated output tokens/s per accelerator (prefill included)."""


@dataclass(frozen=True)
class Mix:
    """A time-shared operating point of one layout: ``share`` of the time at ``low`` (the faster,
    smaller batch), the rest at ``high``; ``low is high`` on a vertex."""

    low: OperatingPoint
    high: OperatingPoint
    share: float
    speed: float
    per_accelerator: float

    @property
    def mean_batch(self) -> float:
        """Time-averaged sequences per replica."""
        return self.share * self.low.batch + (1.0 - self.share) * self.high.batch


def _master_grid() -> NDArray[np.int64]:
    dense = np.arange(1, DENSE_BATCHES + 1)
    steps = int(np.ceil(np.log(1e8 / DENSE_BATCHES) / np.log(BATCH_GRID_RATIO)))
    sparse = np.round(DENSE_BATCHES * BATCH_GRID_RATIO ** np.arange(1, steps + 1))
    grid = np.unique(np.concatenate([dense, sparse])).astype(np.int64)
    grid.flags.writeable = False
    return grid


MASTER_GRID = _master_grid()


def batch_grid(limit: int) -> NDArray[np.int64]:
    """``1 … min(limit, 16)``, then an 8% geometric grid, then ``limit`` itself."""
    below = MASTER_GRID[: int(np.searchsorted(MASTER_GRID, limit))]
    return np.concatenate([below, [limit]]).astype(np.int64)


def stacked_steps(steps: Sequence[DecodeStep]) -> DecodeStep:
    """One :class:`DecodeStep` whose numeric fields are columns (one row per step), so
    :meth:`DecodeStep.time` evaluates every layout's batches in one numpy pass. All
    steps must share ``experts`` and ``experts_per_token`` (one model)."""
    first = steps[0]
    columns = {
        f.name: np.array([[getattr(x, f.name)] for x in steps], dtype=float)
        for f in fields(DecodeStep)
        if f.name not in ("experts", "experts_per_token", "accelerators")
    }
    return DecodeStep(
        accelerators=first.accelerators,
        experts=first.experts,
        experts_per_token=first.experts_per_token,
        **columns,  # type: ignore[arg-type]
    )


@dataclass(frozen=True)
class Frontier:
    """Operating points of several layouts on one batch grid, ``(layouts, batches)``
    arrays; ``usable`` marks a row's points from batch 1 up to its highest (past its
    memory limit a row repeats the limit, which is not usable again)."""

    layouts: tuple[Layout, ...]
    batch: NDArray[np.int64]
    step_s: NDArray[np.float64]
    speed: NDArray[np.float64]
    per_accelerator: NDArray[np.float64]
    usable: NDArray[np.bool_]

    def rows(self, index: NDArray[np.int64]) -> Frontier:
        """The frontier of rows ``index`` only."""
        return Frontier(
            tuple(self.layouts[i] for i in index),
            self.batch[index],
            self.step_s[index],
            self.speed[index],
            self.per_accelerator[index],
            self.usable[index],
        )

    def point(self, row: int, column: int) -> OperatingPoint:
        return OperatingPoint(
            self.layouts[row],
            int(self.batch[row, column]),
            float(self.step_s[row, column]),
            float(self.speed[row, column]),
            float(self.per_accelerator[row, column]),
        )


def frontier(
    steps: Sequence[DecodeStep],
    layouts: Sequence[Layout],
    memory_limits: Sequence[int],
    tokens_per_step: float,
    prefill_share_s: float,
) -> Frontier:
    """Each layout's points on :func:`batch_grid` up to its memory limit,
    ``x_B = τ / t(B)`` and ``y_B = 1 / (t(B) / (B τ) + r_in (1 − h) p / g) / g``
    (``prefill_share_s`` = ``r_in (1 − h) p``, accelerator-seconds of prefill per
    output token), in one numpy pass for all layouts (rows) and batches (columns)."""
    limits = np.asarray(memory_limits, dtype=np.int64)
    grid = batch_grid(int(limits.max()))
    batches = np.minimum(grid[None, :], limits[:, None])
    seconds = stacked_steps(steps).time(batches)
    g = np.asarray([x.accelerators for x in layouts], dtype=float)[:, None]
    speed = tokens_per_step / seconds
    rate = 1.0 / (seconds / (batches * tokens_per_step) + prefill_share_s / g) / g
    columns = np.arange(batches.shape[1])[None, :]
    usable = columns <= np.argmax(rate, axis=1)[:, None]
    usable[:, 1:] &= batches[:, 1:] > batches[:, :-1]
    return Frontier(tuple(layouts), batches, seconds, speed, rate, usable)


def best_at_speed(front: Frontier, speed: float, beat: float = 0.0) -> Mix | None:
    """The best time-shared point of any layout at ``speed`` tok/s/user (ties: the
    earlier row); None if no layout is that fast.

    A row's best is that of its points fast enough alone (slack ``u = D − s B ≥ 0``) and
    of the chords from such a point ``f`` to a slower one ``q`` at the share
    ``α = −u_q / (u_f − u_q)`` of the time at ``f`` (module doc): every pair at once, in
    numpy. A chord's rate lies between its ends', so only slower points above ``beat``
    and above the best fast point need pairing."""
    keep = front.per_accelerator.max(axis=1) > beat * (1 + 1e-9)  # rows that can beat it
    if not keep.any():
        return None
    if not keep.all():
        front = front.rows(np.flatnonzero(keep))
    x, y = front.speed, front.per_accelerator
    fast = front.usable & (x >= speed)
    if not fast.any():
        return None
    alone = np.where(fast, y, -np.inf)  # [row, f]: a point fast enough by itself
    row, column = np.unravel_index(int(np.argmax(alone)), alone.shape)
    low = front.point(int(row), int(column))
    best = Mix(low, low, 1.0, low.speed, low.per_accelerator)
    slow = front.usable & (x < speed) & (y > max(beat, best.per_accelerator))
    if not slow.any():
        return best
    # speed falls along a row: fast points are a prefix of columns, slow ones follow
    f_end = int(np.flatnonzero(fast.any(axis=0))[-1]) + 1
    q_start = int(np.flatnonzero(slow.any(axis=0))[0])
    slack = front.batch * (x - speed)  # D_B − s B, decode tokens/s beyond the SLO
    uf, yf = slack[:, :f_end, None], y[:, :f_end, None]
    uq, yq = slack[:, None, q_start:], y[:, None, q_start:]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = -uq / (uf - uq)  # [row, f, q]: the time share at f
        chord = yq + share * (yf - yq)
    chord = np.where(fast[:, :f_end, None] & slow[:, None, q_start:], chord, -np.inf)
    row, f, q = np.unravel_index(int(np.argmax(chord)), chord.shape)
    if chord[row, f, q] <= best.per_accelerator:
        return best
    low, high = front.point(int(row), int(f)), front.point(int(row), int(q) + q_start)
    return Mix(low, high, float(share[row, f, q]), speed, float(chord[row, f, q]))
