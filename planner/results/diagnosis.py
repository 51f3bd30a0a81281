"""Diagnosis in sentences: which limits bind, and what held back any unmet demand.

Works on a plan's tables and the model data (no Pyomo). What lifting a binding limit
would serve is read from the plan's ``relief_served`` and ``relief_use`` tables, LP
re-solves made by :mod:`planner.relief` (worded by :mod:`planner.results.relief_text`),
and said to be LP estimates; every sentence is checked against the tables by
:mod:`planner.results.diagnosis_check`. For exact marginal values, re-run with
``--marginal PATH``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from planner.optimize.data import ModelData, PeriodLabel
from planner.results.plan import Plan
from planner.results.relief_text import (
    NO_ESTIMATES,
    SKIPPED,
    UNMET_SHARE,
    estimates_sentence,
    use_sentences,
)
from planner.results.revenue import profit_reason
from planner.results.shadow import PENALTY_PRICED
from planner.results.shortfall import (
    NOTIONAL,
    NOTIONAL_NOTE,
    lost_revenue_by_period,
    service_sentence,
)

NOTHING_BINDS_HERE = (
    "No power, budget or supply limit binds in this period; objective: min_cost serves "
    "all it can before it weighs cost, so limits elsewhere hold it back (units bought for "
    "another period keep their power and budget), or a vendor-share or rental cap does."
)
"""Why demand is unmet where no limit of its own period binds: never the penalty, which
is outside the min_cost objective."""

IMPROVABLE = (
    "The solver stopped before proving this plan optimal ({why}): it may be improvable — "
    "it may leave avoidable demand unmet or cost more than needed — so the sentences "
    "below describe this plan, not the best one. Re-run with a longer --time-limit or a "
    "smaller --mip-gap."
)
"""The first sentence of the diagnosis of a plan that is not proven optimal."""


def money(usd: float) -> str:
    """``1.2e9`` → ``$1.2B``."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(usd) >= scale:
            return f"${usd / scale:,.3g}{suffix}"
    return f"${usd:,.2f}"


def _years(values: list[str], periods: pd.DataFrame) -> str:
    """Period labels in time order, runs of three or more consecutive ones as ``a–b``."""
    order = {p: i for i, p in enumerate(periods["period"])}
    ranked = sorted({str(v) for v in values}, key=lambda v: order.get(v, -1))
    runs: list[list[str]] = []
    for v in ranked:
        if runs and order.get(v, -1) == order.get(runs[-1][-1], -1) + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) >= 3 else ", ".join(r) for r in runs)


def _binding(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["binding"].astype(bool)]


def _penalty_set(values: pd.DataFrame, periods: list[str]) -> list[str]:
    """The periods whose shadow price the unmet-demand penalty sets."""
    return [p for p in periods if str(values.loc[p, "meaning"]).endswith(PENALTY_PRICED)]


def _lp_note(
    values: pd.DataFrame,
    periods: list[str],
    per: str,
    shown: Callable[[float], str],
    floor: float,
    lost: dict[str, float],
    order: pd.DataFrame,
) -> str:
    """The parenthesis after a binding limit: its LP values, each period's labelled when
    the notional penalty sets it; where that shortfall is priced, the revenue it loses
    instead of any penalty-set value (:mod:`planner.results.shortfall`)."""
    quoted = [
        p for p in periods if p in values.index and values.loc[p, "value_in_year_usd"] > floor
    ]
    penalty = _penalty_set(values, quoted)
    priced = [p for p in penalty if lost.get(p, 0.0) > 0]
    worth = [
        f"{shown(values.loc[p, 'value_in_year_usd'])} in {p}" for p in quoted if p not in priced
    ]
    parts = []
    if worth:
        label = f"; {NOTIONAL_NOTE}" if set(penalty) - set(priced) else ""
        parts.append(f"{per} {', '.join(worth)}{label}")
    if priced:
        revenue = sum(lost[p] for p in priced)
        parts.append(
            f"in {_years(priced, order)} its value is set by the {NOTIONAL} and not quoted: "
            f"the demand left unmet then loses revenue of {money(revenue)} (undiscounted)"
        )
    return f" (LP relaxation: {'; '.join(parts)})" if parts else ""


def binding_sentences(tables: dict[str, pd.DataFrame]) -> list[str]:
    """One sentence per limit that binds, with its LP value where there is one."""
    out: list[str] = []
    periods = tables["periods"]
    shadow = tables["shadow_prices"]
    lp = shadow[shadow["method"] == "LP relaxation"]
    lost = lost_revenue_by_period(tables.get("revenue"))
    power = tables["power"]
    for site, rows in _binding(power).groupby("site"):
        values = lp[(lp["limit"] == "power") & (lp["subject"] == site)].set_index("period")
        note = _lp_note(values, list(rows["period"]), "+1 MW worth", money, 1, lost, periods)
        out.append(f"Power binds at {site} in {_years(list(rows['period']), periods)}{note}.")
    budget = tables["budget"]
    binding = _binding(budget)
    if len(binding):
        values = lp[lp["limit"] == "budget"].set_index("period")
        note = _lp_note(
            values,
            list(binding["period"]),
            "+$1 of budget saves",
            lambda v: f"${v:,.2f}",
            1e-4,
            lost,
            periods,
        )
        out.append(f"The capex budget binds in {_years(list(binding['period']), periods)}{note}.")
    supply = tables["supply"]
    for h, rows in _binding(supply).groupby("hardware"):
        out.append(f"The supply cap of {h} binds in {_years(list(rows['period']), periods)}.")
    share = tables["vendor_share"]
    for v, rows in _binding(share).groupby("vendor"):
        out.append(f"The {v} share cap binds in {_years(list(rows['period']), periods)}.")
    return out


def _serving_hardware(d: ModelData, w: str, t: PeriodLabel) -> set[str]:
    """Hardware that could serve w's output tokens in t."""
    buyable = {h for h, _ in d.period_buys.get(t, ())} | {h for h, _ in d.period_fleet.get(t, ())}
    return {
        h
        for (wl, role, h) in d.inf_rate
        if wl == w and role in ("serve", "decode") and h in buyable
    }


@dataclass(frozen=True)
class _Limits:
    """The limits that bind in a period, or (budget, supply) before it."""

    sites: list[str]
    budget: bool
    supply: list[str]
    vendors: list[str]

    def named(self, hardware: set[str]) -> list[str]:
        """The binding limits that can hold back work on ``hardware``."""
        names = [f"power at {s}" for s in self.sites]
        names += ["the capex budget"] if self.budget else []
        names += [f"{h} supply" for h in self.supply if h in hardware]
        names += [f"the {v} share cap" for v in self.vendors]
        return names


def _limits_in(d: ModelData, tables: dict[str, pd.DataFrame], t: PeriodLabel) -> _Limits:
    """Sites whose power binds in ``t``; whether the budget, and which supply caps, bind
    in ``t`` or before it; which vendor-share caps bind in ``t``."""
    position = {p.name: p.index for p in d.periods}
    now = d.period(t).index
    power = tables["power"]
    sites = list(power[(power["period"] == str(t)) & power["binding"].astype(bool)]["site"])
    budget = tables["budget"]
    by_now = budget["period"].map(position) <= now
    budget_binds = bool((by_now & budget["binding"].astype(bool)).any())
    supply = tables["supply"]
    by_now = supply["period"].map(position) <= now
    capped = list(supply[by_now & supply["binding"].astype(bool)]["hardware"].unique())
    share = tables["vendor_share"]
    vendors = list(share[(share["period"] == str(t)) & share["binding"].astype(bool)]["vendor"])
    return _Limits(sites, budget_binds, capped, vendors)


def _held_back(
    names: list[str], tables: dict[str, pd.DataFrame], kind: str, subject: str, period: str
) -> str:
    """``Binding: power at texas.`` and the LP estimates of lifting them."""
    served = tables.get("relief_served")
    estimate = None if served is None else estimates_sentence(served, kind, subject, period)
    return f"Binding: {', '.join(names)}. {estimate or NO_ESTIMATES}"


def unmet_inference_sentences(d: ModelData, tables: dict[str, pd.DataFrame]) -> list[str]:
    """One sentence per workload and period with unmet demand — with sub-year periods,
    per workload and year, about the year's worst period — and what held it back."""
    out = []
    label = {p.name: p.label for p in d.periods}
    served = tables["served"]
    short = served[served["unmet_share"] > UNMET_SHARE]
    short = short.assign(_order=short["period"].map({p.name: p.index for p in d.periods}))
    counts: dict[tuple[str, int], int] = {}
    if d.periods_per_year > 1:  # the worst period of each workload and year speaks for it
        counts = short.groupby(["workload", "year"]).size().to_dict()
        worst = short.sort_values("unmet_share", ascending=False, kind="stable")
        short = worst.drop_duplicates(["workload", "year"])
    for row in short.sort_values(["_order", "workload"]).itertuples(index=False):
        w, t = row.workload, label[row.period]
        when = str(t)
        if counts:
            n = counts[(w, row.year)]
            when = f"{row.year} ({n} of {d.periods_per_year} periods; worst {t})"
        head = (
            f"{when}: {row.unmet_share:.0%} of {w} demand left unmet "
            f"({row.unmet_peak_tokens_per_day:.3g} tokens/day at peak)."
        )
        can_serve = _serving_hardware(d, w, t)
        if not can_serve:
            ever = any(k[0] == w for k in d.inf_rate)
            reason = (
                f"no hardware that can serve {w} is available by {t}"
                if ever
                else f"no listed hardware can serve {w} at its SLO"
            )
            out.append(f"{head} Cause: {reason}; add hardware that fits the model and SLO.")
            continue
        if (priced := profit_reason(d, tables, w, row.period)) is not None:
            out.append(f"{head} {priced}")
            continue
        names = _limits_in(d, tables, t).named(can_serve)
        if names:
            out.append(f"{head} {_held_back(names, tables, 'inference', w, str(t))}")
        else:
            out.append(f"{head} {NOTHING_BINDS_HERE}")
    return out


def unmet_training_sentences(d: ModelData, tables: dict[str, pd.DataFrame]) -> list[str]:
    out = []
    training = tables["training"]
    for row in training[training["completion"] < 1 - UNMET_SHARE].itertuples(index=False):
        r = row.run
        first, last = int(row.window_start), int(row.window_end)
        head = (
            f"{r}: {row.completion:.0%} of its {row.flops_required:.3g} FLOP done in "
            f"{first}-{last}."
        )
        hardware = {h for (run, h, _) in d.train_rate if run == r}
        if not hardware:
            out.append(
                f"{head} Cause: no listed hardware can train it inside its window "
                "(see the perf model's training table)."
            )
            continue
        if (priced := profit_reason(d, tables, r, row.penalty_period)) is not None:
            out.append(f"{head} {priced}")
            continue
        names: list[str] = []
        for p in (p for p in d.periods if first <= p.year <= last):
            names += [n for n in _limits_in(d, tables, p.label).named(hardware) if n not in names]
        if names:
            out.append(f"{head} {_held_back(names, tables, 'training', r, '')}")
        else:
            out.append(f"{head} {NOTHING_BINDS_HERE}")
    return out


def retirement_sentences(d: ModelData, tables: dict[str, pd.DataFrame]) -> list[str]:
    """Existing cohorts switched off before the end of their life."""
    fleet = tables["fleet"]
    existing = fleet[fleet["origin"] == "existing"]
    existing = existing.assign(vintage=existing["vintage"].astype(str))
    kept = existing.groupby(["hardware", "site", "vintage", "period"])["units"].sum().to_dict()
    alive: dict[tuple[str, str, int], list[PeriodLabel]] = {}
    for h, s, i, t in d.existing_index:
        alive.setdefault((h, s, i), []).append(t)
    out = []
    for (h, s, i), years in alive.items():
        units = d.existing_units[(h, s, i)]
        for t in years:
            left = float(kept.get((h, s, str(i), str(t)), 0.0))
            if left < units - 1e-6:
                out.append(
                    f"{units - left:,.0f} of the {units:,} existing {h} at {s} (installed {i}) "
                    f"are switched off from {t}, before the end of their life: running them "
                    "costs more than they are worth to the plan (or their power serves newer "
                    "hardware better)."
                )
                break
    return out


def diagnose(
    d: ModelData,
    tables: dict[str, pd.DataFrame],
    status: str = "optimal",
    headline: dict[str, object] | None = None,
) -> list[str]:
    """Sentences for the analyst: binding limits, early retirements, then unmet demand.

    A plan not proven optimal (``status``) opens with :data:`IMPROVABLE`, naming the
    gap on cost and whether the service stage stopped early (from ``headline``).
    """
    unmet = unmet_inference_sentences(d, tables) + unmet_training_sentences(d, tables)
    binding = binding_sentences(tables) + retirement_sentences(d, tables)
    if "relief_use" in tables:
        unmet += use_sentences(tables["relief_use"])
    if not unmet:
        binding.append(
            "All inference demand is served and every training run finishes inside its window."
        )
    if unmet:
        unmet.insert(0, service_sentence(d.service_measure))
    skipped = (headline or {}).get("follow_ups_skipped")
    if isinstance(skipped, list) and skipped:
        unmet.append(SKIPPED.format(names="; ".join(map(str, skipped))))
    if status == "optimal":
        return binding + unmet
    return [IMPROVABLE.format(why=_why_improvable(status, headline or {})), *binding, *unmet]


def _why_improvable(status: str, headline: dict[str, object]) -> str:
    parts = [f"status {status}"]
    gap = headline.get("mip_gap")
    parts.append(f"gap on cost {gap:.2%}" if isinstance(gap, float) else "gap on cost unknown")
    service = headline.get("service_status")
    if service == "feasible":  # stopped early (not optimal, nor skipped: all served)
        parts.append(f"the service stage ended {service}")
    return ", ".join(parts)


def with_relief(d: ModelData, plan: Plan, relief: dict[str, pd.DataFrame]) -> Plan:
    """``plan`` with the relief tables of :mod:`planner.relief` and its diagnosis
    rewritten to read them."""
    tables = {**plan.tables, **relief}
    return replace(plan, tables=tables, diagnosis=diagnose(d, tables, plan.status, plan.headline))
