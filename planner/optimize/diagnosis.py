"""Diagnosis in sentences: which limits bind, and what held back any unmet demand.

Works on a plan's tables and the model data (no Pyomo). Estimates of "how far a limit
would have to move" assume that limit alone holds the demand back and that the extra
room goes to the best hardware for the job (most tokens per MW for power, per dollar
for budget); they are estimates, and say so. For an exact answer, re-run with
``--marginal PATH``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from planner.optimize.data import MTOK, ModelData

UNMET_SHARE = 1e-4
"""Unmet shares below this are reported as served."""


def money(usd: float) -> str:
    """``1.2e9`` → ``$1.2B``."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(usd) >= scale:
            return f"${usd / scale:,.3g}{suffix}"
    return f"${usd:,.2f}"


def _years(values: list[int]) -> str:
    return ", ".join(str(v) for v in sorted(values))


def _binding(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["binding"].astype(bool)]


def binding_sentences(tables: dict[str, pd.DataFrame]) -> list[str]:
    """One sentence per limit that binds, with its LP value where there is one."""
    out: list[str] = []
    shadow = tables["shadow_prices"]
    lp = shadow[shadow["method"] == "LP relaxation"]
    power = tables["power"]
    for site, rows in _binding(power).groupby("site"):
        values = lp[(lp["limit"] == "power") & (lp["subject"] == site)].set_index("year")
        worth = [
            f"{money(values.loc[y, 'value_in_year_usd'])} in {y}"
            for y in rows["year"]
            if y in values.index and values.loc[y, "value_in_year_usd"] > 1
        ]
        note = f" (LP relaxation: +1 MW worth {', '.join(worth)})" if worth else ""
        out.append(f"Power binds at {site} in {_years(list(rows['year']))}{note}.")
    budget = tables["budget"]
    binding = _binding(budget)
    if len(binding):
        values = lp[lp["limit"] == "budget"].set_index("year")
        worth = [
            f"${values.loc[y, 'value_in_year_usd']:,.2f} in {y}"
            for y in binding["year"]
            if y in values.index and values.loc[y, "value_in_year_usd"] > 1e-4
        ]
        note = f" (LP relaxation: +$1 of budget saves {', '.join(worth)})" if worth else ""
        out.append(f"The capex budget binds in {_years(list(binding['year']))}{note}.")
    supply = tables["supply"]
    for h, rows in _binding(supply).groupby("hardware"):
        out.append(f"The supply cap of {h} binds in {_years(list(rows['year']))}.")
    share = tables["vendor_share"]
    for v, rows in _binding(share).groupby("vendor"):
        out.append(f"The {v} share cap binds in {_years(list(rows['year']))}.")
    return out


@dataclass(frozen=True)
class _Best:
    hardware: str
    per_unit_demand: float
    """MW, USD or units per Mtok/day of peak demand (per ZFLOP for training)."""


def _best(candidates: dict[str, float]) -> _Best | None:
    if not candidates:
        return None
    h = min(candidates, key=lambda k: candidates[k])
    return _Best(h, candidates[h])


def _serving_hardware(d: ModelData, w: str, t: int) -> dict[str, float]:
    """Hardware that could serve w's output tokens in t → its Mtok/day per unit."""
    buyable = {h for h, _ in d.period_buys.get(t, ())} | {h for h, _ in d.period_fleet.get(t, ())}
    return {
        h: rate
        for (wl, role, h), rate in d.inf_rate.items()
        if wl == w and role in ("serve", "decode") and h in buyable
    }


def _limits_in(tables: dict[str, pd.DataFrame], t: int) -> tuple[list[str], bool, list[str]]:
    power = tables["power"]
    sites = list(power[(power["year"] == t) & power["binding"].astype(bool)]["site"])
    budget = tables["budget"]
    budget_binds = bool(((budget["year"] <= t) & budget["binding"].astype(bool)).any())
    supply = tables["supply"]
    capped = list(
        supply[(supply["year"] <= t) & supply["binding"].astype(bool)]["hardware"].unique()
    )
    return sites, budget_binds, capped


def _moves(
    d: ModelData, t: int, need: dict[str, float], sites: list[str], budget: bool, capped: list[str]
) -> list[str]:
    """Estimated moves of each binding limit; ``need`` maps hardware → units required."""
    moves = []
    for s in sites:
        mw = {h: u * d.power_kw[h] * d.pue[s] / 1000 for h, u in need.items()}
        best = _best(mw)
        if best:
            moves.append(
                f"about {best.per_unit_demand:,.0f} MW more power at {s} (on {best.hardware})"
            )
    if budget:
        usd = {h: u * d.price_usd[(h, t)] for h, u in need.items() if (h, t) in d.price_usd}
        best = _best(usd)
        if best:
            moves.append(
                f"about {money(best.per_unit_demand)} more capex budget by {t} "
                f"(at {best.hardware}'s price)"
            )
    for h in capped:
        if h in need:
            moves.append(f"about {need[h]:,.0f} more units of {h} supply by {t}")
    return moves


def _held_back(sites: list[str], budget: bool, capped: list[str], need: dict[str, float]) -> str:
    names = [f"power at {s}" for s in sites]
    names += ["the capex budget"] if budget else []
    names += [f"{h} supply" for h in capped if h in need]
    return f"Binding: {', '.join(names)}."


def _sizes(moves: list[str]) -> str:
    return (
        f"Size of the shortfall (estimate, one limit at a time): {', or '.join(moves)}; "
        "re-run with --marginal for exact values."
    )


def unmet_inference_sentences(d: ModelData, tables: dict[str, pd.DataFrame]) -> list[str]:
    out = []
    served = tables["served"]
    short = served[served["unmet_share"] > UNMET_SHARE].sort_values(["year", "workload"])
    for row in short.itertuples(index=False):
        w, t = row.workload, int(row.year)
        head = (
            f"{t}: {row.unmet_share:.0%} of {w} demand left unmet "
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
        unmet = row.unmet_peak_tokens_per_day / MTOK
        need = {h: unmet / (rate * d.availability) for h, rate in can_serve.items()}
        sites, budget, capped = _limits_in(tables, t)
        moves = _moves(d, t, need, sites, budget, [h for h in capped if h in need])
        if moves:
            out.append(f"{head} {_held_back(sites, budget, capped, need)} {_sizes(moves)}")
        else:
            out.append(
                f"{head} No power, budget or supply limit binds: serving it would cost more than "
                f"the penalty of ${d.penalty_usd_per_mtok:,.0f}/Mtok "
                "(penalties.unmet_inference_usd_per_mtok), or a vendor-share or rental cap "
                "holds it back."
            )
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
        rates: dict[str, float] = {}
        for (run, h, _), zflop in d.train_rate.items():
            if run == r:
                rates[h] = rates.get(h, 0.0) + zflop
        if not rates:
            out.append(
                f"{head} Cause: no listed hardware can train it inside its window "
                "(see the perf model's training table)."
            )
            continue
        unmet = row.unmet_flops / 1e21
        need = {h: unmet / (z * d.availability) for h, z in rates.items()}
        sites, budget, capped = set(), False, set()
        for t in (t for t in d.labels if first <= t <= last):
            s, b, c = _limits_in(tables, t)
            sites |= set(s)
            budget |= b
            capped |= set(c)
        moves = _moves(d, last, need, sorted(sites), budget, sorted(capped & set(need)))
        if moves:
            limits = _held_back(sorted(sites), budget, sorted(capped), need)
            out.append(f"{head} {limits} {_sizes(moves)}")
        else:
            out.append(
                f"{head} No power, budget or supply limit binds: finishing it would cost more "
                f"than the penalty of ${d.penalty_usd_per_pflop:g}/PFLOP "
                "(penalties.unmet_training_usd_per_pflop)."
            )
    return out


def retirement_sentences(d: ModelData, tables: dict[str, pd.DataFrame]) -> list[str]:
    """Existing cohorts switched off before the end of their life."""
    fleet = tables["fleet"]
    existing = fleet[fleet["origin"] == "existing"]
    kept = existing.groupby(["hardware", "site", "vintage", "year"])["units"].sum().to_dict()
    alive: dict[tuple[str, str, int], list[int]] = {}
    for h, s, i, t in d.existing_index:
        alive.setdefault((h, s, i), []).append(t)
    out = []
    for (h, s, i), years in alive.items():
        units = d.existing_units[(h, s, i)]
        for t in years:
            left = float(kept.get((h, s, i, t), 0.0))
            if left < units - 1e-6:
                out.append(
                    f"{units - left:,.0f} of the {units:,} existing {h} at {s} (installed {i}) "
                    f"are switched off from {t}, before the end of their life: running them "
                    "costs more than they are worth to the plan (or their power serves newer "
                    "hardware better)."
                )
                break
    return out


def diagnose(d: ModelData, tables: dict[str, pd.DataFrame]) -> list[str]:
    """Sentences for the analyst: binding limits, early retirements, then unmet demand."""
    unmet = unmet_inference_sentences(d, tables) + unmet_training_sentences(d, tables)
    binding = binding_sentences(tables) + retirement_sentences(d, tables)
    if not unmet:
        binding.append(
            "All inference demand is served and every training run finishes inside its window."
        )
    return binding + unmet
