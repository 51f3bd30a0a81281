"""Check every diagnosis sentence against the Plan's tables (the checker's last part).

Each sentence :mod:`planner.results.diagnosis` writes is read back and its claims —
which limits bind and when, the unmet shares and peaks, the existing units switched
off, the LP estimates of lifting limits — are compared with the tables they come from
(``power``, ``budget``, ``supply``, ``vendor_share``, ``served``, ``training``,
``fleet``, ``shadow_prices``, ``relief_served``, ``relief_use``). A sentence of no known
form is itself a violation: no claim goes unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

from planner.results.diagnosis import IMPROVABLE, NOTHING_BINDS_HERE, money
from planner.results.plan import Plan
from planner.results.relief_text import (
    ESTIMATES,
    NO_ESTIMATES,
    NOTHING_LIFTED,
    RELIEF,
    SHADOW_PRICES,
    SKIPPED,
    SKIPPED_HEAD,
    UNMET_SHARE,
    use_sentences,
)
from planner.results.shadow import PENALTY_PRICED
from planner.results.shortfall import (
    NOTIONAL_NOTE,
    SERVICE_HEAD,
    lost_revenue_by_period,
    service_sentence,
)

REL = 1e-6
"""Relative tolerance of the relief tables' own arithmetic."""

ALL_SERVED = "All inference demand is served and every training run finishes inside its window."
BINDS = re.compile(
    r"^(?:Power binds at (?P<site>\S+)|The capex budget binds|The supply cap of (?P<hw>\S+) "
    r"binds|The (?P<vendor>\S+) share cap binds) in (?P<when>[^(]+?)(?: \((?P<lp>LP .*)\))?\.$"
)
WORTH = re.compile(r"(\$[\d.,]+[kMBT]?) in (\S+?)(?=,|;|$)")
RETIRED = re.compile(
    r"^(?P<off>[\d,]+) of the (?P<units>[\d,]+) existing (?P<h>\S+) at (?P<s>\S+) "
    r"\(installed (?P<i>\S+)\) are switched off from (?P<t>\S+), before the end of their life"
)
SHORT = re.compile(
    r"^(?P<when>\S+?|\d{4} \((?P<n>\d+) of \d+ periods; worst (?P<worst>\S+)\)): "
    r"(?P<pct>\d+)% of (?P<w>\S+) demand left unmet \((?P<peak>\S+) tokens/day at peak\)\. "
    r"(?P<rest>.*)$"
)
RUN = re.compile(
    r"^(?P<r>\S+): (?P<pct>\d+)% of its (?P<flop>\S+) FLOP done in (?P<a>\d+)-(?P<b>\d+)\. "
    r"(?P<rest>.*)$"
)
PRICED = re.compile(
    r"^objective: max_profit serves priced work only where it pays: at (?P<price>.+?), "
    r"serving more of (?P<w>\S+) would cost more than it earns, or a limit holds it back "
    r"\(revenue forgone \$(?P<lost>[\d,]+)\)\.$"
)
LOSES = re.compile(
    r"in (?P<when>.+?) its value is set by the .+? and not quoted: the demand left unmet "
    r"then loses revenue of (?P<usd>\$[\d.,]+[kMBT]?) \(undiscounted\)"
)
HELD = re.compile(r"^Binding: (?P<names>.+?)\. (?P<tail>.*)$")
LIFTED = re.compile(r"(\d+)% with (.+?) lifted")
LP_USE = "LP estimate with "
ESTIMATES_HEAD = ESTIMATES.split("{parts}")[0]


def _expand(text: str, order: list[str]) -> set[str]:
    """``2027, 2029–2031`` → the period labels it names (runs by the periods' order)."""
    out: set[str] = set()
    for part in text.split(", "):
        if "–" in part and part.split("–")[0] in order:
            a, b = part.split("–")
            out.update(order[order.index(a) : order.index(b) + 1])
        else:
            out.add(part)
    return out


def _binding(t: dict[str, pd.DataFrame], table: str, column: str | None, name: str | None) -> set:
    frame = t[table]
    rows = frame[frame["binding"].astype(bool)]
    if column is not None:
        rows = rows[rows[column] == name]
    return set(map(str, rows["period"]))


def check_diagnosis(plan: Plan) -> list[str]:
    """Every diagnosis sentence whose claims the tables contradict (or that no check reads)."""
    t = plan.tables
    out = []
    checks: list[Callable[[Plan, str], list[str] | None]] = [
        _check_improvable,
        _check_binds,
        _check_retired,
        _check_all_served,
        _check_short,
        _check_run,
        _check_use,
        _check_skipped,
        _check_service,
    ]
    for sentence in plan.diagnosis:
        for check in checks:
            found = check(plan, sentence)
            if found is not None:
                out += [f"diagnosis {sentence[:60]!r}…: {v}" for v in found]
                break
        else:
            out.append(f"diagnosis sentence of no known form, not checked: {sentence!r}")
    out += _check_relief_tables(t)
    return out


def _check_service(plan: Plan, sentence: str) -> list[str] | None:
    """The service-measure sentence names the plan's own measure."""
    if not sentence.startswith(SERVICE_HEAD):
        return None
    measure = str(plan.parameters.get("service_measure", "weighted_share"))
    if sentence != service_sentence(measure):
        return [f"the plan's service_measure is {measure}"]
    return []


def _check_skipped(plan: Plan, sentence: str) -> list[str] | None:
    """The time-limit sentence names the headline's skipped follow-ups, and the tables
    hold nothing they would have made."""
    if not sentence.startswith(SKIPPED_HEAD):
        return None
    skipped = plan.headline.get("follow_ups_skipped") or []
    out = []
    if sentence != SKIPPED.format(names="; ".join(skipped)):
        out.append(f"the headline's skipped follow-ups are {skipped}")
    shadow = plan.tables["shadow_prices"]
    if SHADOW_PRICES in skipped and (shadow["limit"] != "marginal").any():
        out.append("shadow prices were made")
    if RELIEF in skipped and len(plan.tables.get("relief_served", [])):
        out.append("LP estimates were made")
    return out


def _check_improvable(plan: Plan, sentence: str) -> list[str] | None:
    if not sentence.startswith(IMPROVABLE.split("(")[0]):
        return None
    return ["the plan is optimal"] if plan.status == "optimal" else []


def _check_binds(plan: Plan, sentence: str) -> list[str] | None:
    m = BINDS.match(sentence)
    if not m:
        return None
    t = plan.tables
    order = list(map(str, t["periods"]["period"]))
    if m["site"]:
        table, column, name, limit = "power", "site", m["site"], "power"
    elif m["hw"]:
        table, column, name, limit = "supply", "hardware", m["hw"], "supply"
    elif m["vendor"]:
        table, column, name, limit = "vendor_share", "vendor", m["vendor"], "vendor_share"
    else:
        table, column, name, limit = "budget", None, None, "budget"
    out = []
    if _expand(m["when"], order) != _binding(t, table, column, name):
        out.append(f"the {table} table binds in {sorted(_binding(t, table, column, name))}")
    shadow = t["shadow_prices"]
    lp = shadow[(shadow["method"] == "LP relaxation") & (shadow["limit"] == limit)]
    if name is not None:
        lp = lp[lp["subject"] == name]
    values = dict(zip(map(str, lp["period"]), lp["value_in_year_usd"], strict=True))
    note = m["lp"] or ""
    quoted = WORTH.findall(note.split(" saves ")[-1].split(" worth ")[-1].split("; in ")[0])
    for said, period in quoted:
        value = values.get(period)
        shown = None if value is None else (money(value) if limit == "power" else f"${value:,.2f}")
        if shown != said:
            out.append(f"shadow price in {period} is {shown}, the sentence says {said}")
    return out + _check_penalty_values(plan, lp, quoted, note, order)


def _check_penalty_values(
    plan: Plan, lp: pd.DataFrame, quoted: list[tuple[str, str]], note: str, order: list[str]
) -> list[str]:
    """A value the notional penalty sets is labelled, and never quoted where the
    shortfall is priced: there the revenue lost is (recomputed from the revenue table)."""
    out = []
    lost = lost_revenue_by_period(plan.tables.get("revenue"))
    meaning = dict(zip(map(str, lp["period"]), lp["meaning"].astype(str), strict=True))
    for said, period in quoted:
        if not meaning.get(period, "").endswith(PENALTY_PRICED):
            continue
        if lost.get(period, 0.0) > 0:
            out.append(f"{said} in {period} is set by the penalty, where the shortfall is priced")
        elif NOTIONAL_NOTE not in note:
            out.append(f"{said} in {period} is set by the penalty and not labelled so")
    said_lost = LOSES.search(note)
    if said_lost:
        periods = _expand(said_lost["when"], order)
        shown = money(sum(lost.get(p, 0.0) for p in periods))
        if shown != said_lost["usd"]:
            said = said_lost["usd"]
            out.append(f"revenue lost in {sorted(periods)} is {shown}, the sentence says {said}")
    return out


def _check_retired(plan: Plan, sentence: str) -> list[str] | None:
    m = RETIRED.match(sentence)
    if not m:
        return None
    fleet = plan.tables["fleet"]
    mine = fleet[
        (fleet["origin"] == "existing")
        & (fleet["hardware"] == m["h"])
        & (fleet["site"] == m["s"])
        & (fleet["vintage"].astype(str) == m["i"])
        & (fleet["period"].astype(str) == m["t"])
    ]
    kept = float(mine["units"].sum())
    off = float(m["off"].replace(",", ""))
    units = float(m["units"].replace(",", ""))
    return [] if f"{units - kept:,.0f}" == m["off"] else [f"{units - kept:,.0f} are off, not {off}"]


def _check_all_served(plan: Plan, sentence: str) -> list[str] | None:
    if sentence != ALL_SERVED:
        return None
    served, training = plan.tables["served"], plan.tables["training"]
    short = (served["unmet_share"] > UNMET_SHARE).any() or (
        training["completion"] < 1 - UNMET_SHARE
    ).any()
    return ["the served or training table shows unmet demand"] if short else []


def _check_short(plan: Plan, sentence: str) -> list[str] | None:
    m = SHORT.match(sentence)
    if not m:
        return None
    t = plan.tables
    served = t["served"]
    period = m["worst"] or m["when"]
    rows = served[(served["workload"] == m["w"]) & (served["period"].astype(str) == period)]
    if len(rows) != 1:
        return [f"the served table has no row for {m['w']} in {period}"]
    row = rows.iloc[0]
    out = []
    if f"{row['unmet_share']:.0%}" != f"{m['pct']}%":
        out.append(f"the served table's unmet share is {row['unmet_share']:.0%}")
    if f"{row['unmet_peak_tokens_per_day']:.3g}" != m["peak"]:
        out.append(f"the served table's unmet peak is {row['unmet_peak_tokens_per_day']:.3g}")
    if m["n"]:
        year = served[(served["workload"] == m["w"]) & (served["year"] == row["year"])]
        short = year[year["unmet_share"] > UNMET_SHARE]
        if len(short) != int(m["n"]) or short["unmet_share"].max() > row["unmet_share"]:
            out.append(f"{len(short)} periods of {row['year']} are short, {period} not the worst")
    order = list(map(str, t["periods"]["period"]))
    return out + _check_rest(
        t, m["rest"], "inference", m["w"], period, order[: order.index(period) + 1]
    )


def _check_run(plan: Plan, sentence: str) -> list[str] | None:
    m = RUN.match(sentence)
    if not m:
        return None
    t = plan.tables
    rows = t["training"][t["training"]["run"] == m["r"]]
    if len(rows) != 1:
        return [f"the training table has no run {m['r']}"]
    row = rows.iloc[0]
    out = []
    if f"{row['completion']:.0%}" != f"{m['pct']}%" or f"{row['flops_required']:.3g}" != m["flop"]:
        out.append(
            f"the training table says {row['completion']:.0%} of {row['flops_required']:.3g}"
        )
    if (int(row["window_start"]), int(row["window_end"])) != (int(m["a"]), int(m["b"])):
        out.append(f"the window is {row['window_start']}-{row['window_end']}")
    periods = t["periods"]
    window = periods[(periods["year"] >= int(m["a"])) & (periods["year"] <= int(m["b"]))]
    # budget and supply count up to the window's end (purchases before it serve it),
    # power and vendor shares in the window, as the diagnosis names them
    order = list(map(str, periods["period"]))
    in_window = list(map(str, window["period"]))
    to_end = order[: order.index(in_window[-1]) + 1] if in_window else []
    return out + _check_rest(t, m["rest"], "training", m["r"], "", to_end, in_window)


def _check_rest(
    t: dict[str, pd.DataFrame],
    rest: str,
    kind: str,
    subject: str,
    period: str,
    when: list[str],
    now: list[str] | None = None,
) -> list[str]:
    """The cause part of a shortfall sentence: binding limits, LP estimates. Budget and
    supply count when they bind in ``when`` (every period up to the shortfall's), power
    and vendor shares in ``now`` (the period; a run's window), default ``when``'s last."""
    if rest.startswith("Cause: "):
        return []  # no hardware can serve it: a fact of the model data, not of the tables
    if (priced := PRICED.match(rest)) is not None:
        return _check_priced(t, priced, subject, period if kind == "inference" else None)
    now = when[-1:] if now is None else now
    if rest == NOTHING_BINDS_HERE:
        found = [x for x in ("power", "budget", "supply") if _binding(t, x, None, None) & set(now)]
        return [f"{', '.join(found)} binds there"] if found else []
    m = HELD.match(rest)
    if not m:
        return [f"unknown cause {rest!r}"]
    out = []
    for name in m["names"].split(", "):
        if name.startswith("power at "):
            ok = _binding(t, "power", "site", name.removeprefix("power at ")) & set(now)
        elif name == "the capex budget":
            ok = _binding(t, "budget", None, None) & set(when)
        elif name.endswith(" supply"):
            ok = _binding(t, "supply", "hardware", name.removesuffix(" supply")) & set(when)
        else:
            vendor = name.removeprefix("the ").removesuffix(" share cap")
            ok = _binding(t, "vendor_share", "vendor", vendor) & set(now)
        if not ok:
            out.append(f"{name} does not bind there")
    tail = m["tail"]
    if tail == NO_ESTIMATES:
        return out
    if not tail.startswith(ESTIMATES_HEAD):
        return [*out, f"unknown estimate {tail!r}"]
    served = t["relief_served"]
    mine = served[
        (served["kind"] == kind) & (served["subject"] == subject) & (served["period"] == period)
    ]
    shares = {str(r.relief): f"{r.shortfall_served_share:.0%}" for r in mine.itertuples()}
    said = LIFTED.findall(tail.removeprefix(ESTIMATES_HEAD))
    if {relief: f"{pct}%" for pct, relief in said} != shares:
        out.append(f"the relief_served table says {shares}")
    return out


def _check_priced(
    t: dict[str, pd.DataFrame], m: re.Match[str], subject: str, period: str | None
) -> list[str]:
    """A max_profit cause: the work's own revenue row shows it priced, not must-serve,
    with the price and the revenue forgone the sentence quotes."""
    revenue = t["revenue"]
    rows = revenue[revenue["work"] == subject]
    if period is not None:
        rows = rows[rows["period"].astype(str) == period]
    if m["w"] != subject or rows.empty or bool(rows["must_serve"].iloc[0]):
        return [f"the revenue table does not show {subject} as priced work"]
    row = rows.iloc[0]
    price = (
        f"${row['revenue_usd_per_mtok']:,.4g} per output Mtok"
        if row["kind"] == "inference"
        else f"a value of ${row['value_usd']:,.0f}"
    )
    out = [] if price == m["price"] else [f"the revenue table's price is {price}"]
    if f"{row['lost_revenue_usd']:,.0f}" != m["lost"]:
        out.append(f"the revenue table's revenue forgone is ${row['lost_revenue_usd']:,.0f}")
    return out


def _check_use(plan: Plan, sentence: str) -> list[str] | None:
    if not sentence.startswith(LP_USE):
        return None
    relief = sentence.removeprefix(LP_USE).split(" lifted: ")[0]
    use = plan.tables["relief_use"]
    expected = use_sentences(use[use["relief"] == relief])
    return [] if expected == [sentence] else [f"the relief_use table reads {expected}"]


def _check_relief_tables(t: dict[str, pd.DataFrame]) -> list[str]:
    """The relief tables' own arithmetic, and their plan figures are the plan's."""
    out = []
    served = t["served"].assign(period=lambda f: f["period"].astype(str))
    plan_share = served.set_index(["workload", "period"])["unmet_share"].to_dict()
    runs = t["training"].set_index("run")["completion"].to_dict()
    for r in t["relief_served"].itertuples(index=False):
        mine = plan_share.get((r.subject, r.period)) if r.kind == "inference" else None
        if r.kind == "training":
            mine = 1.0 - runs[r.subject] if r.subject in runs else None
        if mine is None or abs(mine - r.unmet_share_plan) > REL:
            out.append(f"relief_served: {r.subject} {r.period} plan share is not the plan's")
        expected = max(0.0, 1.0 - r.unmet_share_lp / r.unmet_share_plan)
        if abs(expected - r.shortfall_served_share) > REL:
            out.append(f"relief_served: {r.relief}, {r.subject} {r.period} served share")
    for r in t["relief_use"].itertuples(index=False):
        scale = max(abs(r.cap), 1.0)
        extra = r.lp_used - r.cap if r.lifted else 0.0
        if abs(extra - r.lp_extra) > REL * scale or (r.lifted and r.relief == NOTHING_LIFTED):
            out.append(f"relief_use: {r.relief}, {r.limit} {r.subject} {r.period}")
        if not r.lifted and r.lp_used > r.cap + REL * scale:
            out.append(f"relief_use: {r.relief} goes past {r.limit} {r.subject} unlifted")
    return out
