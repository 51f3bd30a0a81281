"""Monte Carlo statistics beyond the percentiles: how sure they are, and what drives them.

* :func:`bootstrap_ci` — a percentile bootstrap confidence interval on P10/P50/P90:
  ``resamples`` draws of the solved runs with replacement (``Generator(PCG64(seed))``),
  the percentile of each, and the 2.5th and 97.5th percentile of those (a 95% interval).
  Its width shrinks roughly as 1/√samples.
* :func:`convergence` — P10/P50/P90 of the first n samples for growing n (the
  convergence chart): flat lines mean enough samples.
* :func:`drivers` — Spearman rank correlation of each uncertain input with the real
  cost, the unmet share and the first year's purchases (units and capex): which input
  drives the spread, and which one changes what is bought.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

PERCENTILES = (10, 50, 90)
RESAMPLES = 1000
CONFIDENCE = 0.95


def bootstrap_ci(
    values: Sequence[float], seed: int, resamples: int = RESAMPLES
) -> dict[str, float]:
    """``p10_ci_low``, ``p10_ci_high``, … for P10/P50/P90 of ``values`` (NaN skipped)."""
    clean = np.array([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if len(clean) < 2:
        return {}
    rng = np.random.Generator(np.random.PCG64(seed))
    draws = clean[rng.integers(0, len(clean), size=(resamples, len(clean)))]
    tails = (100 * (1 - CONFIDENCE) / 2, 100 * (1 + CONFIDENCE) / 2)
    out = {}
    for q, per_draw in zip(PERCENTILES, np.percentile(draws, PERCENTILES, axis=1), strict=True):
        low, high = np.percentile(per_draw, tails)
        out[f"p{q}_ci_low"], out[f"p{q}_ci_high"] = float(low), float(high)
    return out


def sample_counts(total: int) -> list[int]:
    """Sample counts of the convergence chart: 10, 20, 50, 100, 200, … and ``total``."""
    counts, step = [], 10
    while step < total:
        counts += [n for n in (step, 2 * step, 5 * step) if n < total]
        step *= 10
    return sorted({*counts, total})


def convergence(runs: pd.DataFrame, column: str) -> pd.DataFrame:
    """P10/P50/P90 of ``column`` over the first n solved samples, for growing n."""
    values = runs[column].astype(float).dropna().to_numpy()
    records = []
    for n in sample_counts(len(values)):
        p = np.percentile(values[:n], PERCENTILES)
        records.append(
            {"samples": n, **{f"P{q}": float(v) for q, v in zip(PERCENTILES, p, strict=True)}}
        )
    return pd.DataFrame(records, columns=["samples", *(f"P{q}" for q in PERCENTILES)])


def drivers(runs: pd.DataFrame, outputs: dict[str, str]) -> pd.DataFrame:
    """Spearman rank correlation of each ``input:`` column with each output column.

    ``outputs``: column → the name the table gives it. A constant input or output has
    no rank correlation (NaN). Spearman's rho is Pearson's correlation of the ranks
    (ties share their mean rank).
    """
    inputs = [c for c in runs.columns if c.startswith("input:")]
    present = {c: name for c, name in outputs.items() if c in runs.columns}
    records = []
    for column in inputs:
        record: dict[str, object] = {"input": column.removeprefix("input:")}
        x = runs[column].astype(float)
        for out, name in present.items():
            y = runs[out].astype(float)
            ok = x.notna() & y.notna()
            varies = x[ok].nunique() > 1 and y[ok].nunique() > 1
            record[f"rank_corr_{name}"] = (
                float(x[ok].rank().corr(y[ok].rank())) if varies else math.nan
            )
        records.append(record)
    frame = pd.DataFrame(records)
    key = f"rank_corr_{next(iter(present.values()))}" if present else None
    if frame.empty or key is None or key not in frame:
        return frame
    order = frame[key].abs().sort_values(ascending=False, na_position="last").index
    return frame.loc[order].reset_index(drop=True)
