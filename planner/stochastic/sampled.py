"""Futures sampled from Monte Carlo distributions, reduced to a few representatives.

``planner stochastic --dist PATH=SPEC --samples N --seed S --futures K`` draws N samples
of the distributions exactly as ``planner montecarlo`` does (:func:`sample`: one uniform
per sample and parameter from ``PCG64(seed)``, through the inverse CDF), then keeps K of
them by **fast forward selection** (Heitsch and Römisch, 2003) on the draws standardised
per parameter: starting from none, each step adds the sample that most lowers
``Σ_i p_i · min_{j kept} ‖x_i − x_j‖``, the probability-weighted distance of every sample
to its nearest kept one. Each kept sample becomes a future whose probability is the
share of samples nearest to it (the optimal redistribution for that distance); its edit
is the sampled value (``set``) or multiplier (``scale``) at each path.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from planner.analysis.params import Parameter, sample
from planner.scenario.uncertainty import Future


def forward_selection(points: np.ndarray, keep: int) -> list[int]:
    """The indices of ``keep`` rows of ``points`` (equally likely samples) chosen by fast
    forward selection (module docstring), in the order chosen."""
    count = len(points)
    keep = min(keep, count)
    distance = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    nearest = np.full(count, np.inf)
    chosen: list[int] = []
    for _ in range(keep):
        # total distance to the kept set if candidate j joined it, for every j
        with_j = np.minimum(nearest[:, None], distance).sum(axis=0)
        with_j[chosen] = np.inf
        best = int(np.argmin(with_j))
        chosen.append(best)
        nearest = np.minimum(nearest, distance[:, best])
    return chosen


def sampled_futures(
    parameters: Sequence[Parameter], samples: int, seed: int, keep: int
) -> list[Future]:
    """``keep`` futures representing ``samples`` draws of ``parameters`` (module
    docstring), named ``sample-<n>`` by the draw they keep."""
    draws = np.array(sample(parameters, samples, seed), dtype=float).reshape(samples, -1)
    spread = draws.std(axis=0)
    scaled = (draws - draws.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    chosen = forward_selection(scaled, keep)
    distance = np.sqrt(((scaled[:, None, :] - scaled[None, chosen, :]) ** 2).sum(axis=2))
    owner = np.argmin(distance, axis=1)
    counts = np.bincount(owner, minlength=len(chosen))
    kept = [(index, int(count)) for index, count in zip(chosen, counts, strict=True) if count]
    futures: list[Future] = []
    for n, (index, count) in enumerate(kept):
        values = draws[index]
        set_ = {
            p.path: float(v) for p, v in zip(parameters, values, strict=True) if not p.multiplier
        }
        scale = {p.path: float(v) for p, v in zip(parameters, values, strict=True) if p.multiplier}
        probability = float(count) / samples
        if n == len(kept) - 1:  # the shares sum to 1 exactly
            probability = 1.0 - sum(f.probability for f in futures)
        futures.append(
            Future(name=f"sample-{index}", probability=probability, set=set_, scale=scale)
        )
    return futures
