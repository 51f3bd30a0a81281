"""Independent checks of runs with a duration: one constant cluster that covers the FLOPs."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

DAYS_PER_YEAR = 365.25  # the period clock's year, restated: the checker imports no model code
_TOLERANCE = 1e-6


def check_fixed_clusters(
    training: pd.DataFrame, assignment: pd.DataFrame, periods: pd.DataFrame
) -> list[str]:
    """For each run with a duration that ran, from the Plan's tables alone:

    * in every period t its units are ``u · |[start, start + days/365.25] ∩ t| / length(t)``
      (the same u units from start to end, no resizing, no pause) and nowhere else;
    * its rate per unit is one number, and ``u · rate · days · 86,400`` ≥ required − unmet.
    """
    out: list[str] = []
    if "fixed_cluster" not in training.columns:
        return out
    bounds = [
        (str(p), float(s), float(s) + float(n))
        for p, s, n in zip(
            periods["period"], periods["start_year"], periods["length_years"], strict=True
        )
    ]
    for row in training.itertuples(index=False):
        if not bool(row.fixed_cluster) or pd.isna(row.cluster_units):
            continue
        mine = assignment[assignment["run"] == row.run]
        start = float(row.start_year_fraction)
        end = start + float(row.duration_days) / DAYS_PER_YEAR
        units = float(row.cluster_units)
        got = mine.groupby(mine["period"].astype(str))["units"].sum().to_dict()
        for label, lo, hi in bounds:
            expected = units * max(0.0, min(hi, end) - max(lo, start)) / (hi - lo)
            found = float(got.get(label, 0.0))
            if abs(found - expected) > _TOLERANCE * max(1.0, units):
                out.append(
                    f"{row.run}: {found:.6g} units in {label}, but a cluster of {units:g} "
                    f"units from {row.start_date} to {row.end_date} occupies {expected:.6g}"
                )
        rates = mine["flops_per_s_per_unit"].unique()
        if len(rates) > 1:
            out.append(f"{row.run}: the cluster's rate per unit changes over its duration")
        if len(rates):
            covered = units * float(rates[0]) * float(row.duration_days) * 86_400.0
            need = float(row.flops_required) - float(row.unmet_flops)
            if covered < need * (1 - _TOLERANCE):
                out.append(
                    f"{row.run}: {units:g} units for {row.duration_days:.6g} days do "
                    f"{covered:.6g} FLOP < {need:.6g} required"
                )
    return out


def check_whole_clusters(
    training: pd.DataFrame, assignment: pd.DataFrame, available: Callable[[str, str, str], float]
) -> list[str]:
    """A run with a duration needs its whole cluster in every period it works in: the
    fleet is constant inside a period, so ``cluster_units ≤ available(period, h, s)``
    (availability × owned units, or rented + committed units at the rental site)."""
    out: list[str] = []
    if "fixed_cluster" not in training.columns:
        return out
    for row in training.itertuples(index=False):
        if not bool(row.fixed_cluster) or pd.isna(row.cluster_units):
            continue
        mine = assignment[(assignment["run"] == row.run) & (assignment["units"] > 0)]
        for period, h, s in {
            (str(a), str(b), str(c))
            for a, b, c in zip(mine["period"], mine["hardware"], mine["site"], strict=True)
        }:
            limit = available(period, h, s)
            if float(row.cluster_units) > limit * (1 + _TOLERANCE) + _TOLERANCE:
                out.append(
                    f"{row.run}: a cluster of {row.cluster_units:g} units of {h} at {s} in "
                    f"{period}, but only {limit:.6g} are available there"
                )
    return out
