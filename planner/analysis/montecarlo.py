"""Monte Carlo: seeded samples of the uncertain inputs, one optimisation per sample.

Samples come from :func:`planner.analysis.params.sample` (``Generator(PCG64(seed))``),
so the same seed and spec give the same samples — and, solved with one thread each, the
same results — whichever executor runs them and however many workers it has.

Summaries are over the runs that produced a plan: P10/P50/P90 (mean, min, max, and a
bootstrap 95% interval on each percentile) of the real cost (NPV of cash costs), the
shortfall (unmet share and tokens, lost revenue where priced, penalties) apart from it,
capex, peak MW and each workload's $/Mtok; the same percentiles per year for capex and
MW (the fan charts, the power fan with the sites' cap); purchases by year and hardware
and the first year's plans (the decision); a convergence chart; the inputs' rank
correlations with cost, shortfall and first-year purchases (drivers); how often each
limit binds. With ``regret`` candidates, :mod:`planner.analysis.regret` adds the regret
of committing to each first-year plan.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from planner.analysis.decisions import first_year_plans, purchases_by_year
from planner.analysis.formats import MW
from planner.analysis.mcstats import bootstrap_ci, convergence, drivers
from planner.analysis.params import Parameter, sample
from planner.analysis.report import Analysis, ChartSpec, runs_frame
from planner.analysis.tasks import SOLVED, Row, SolveSettings, Task
from planner.export import cells
from planner.scenario.schema import Scenario
from planner.scenario.series import value_at
from planner.scenario.variants import Change, prepare

PERCENTILES = (10, 50, 90)
HISTOGRAM_BINS = 20


def montecarlo_tasks(
    scenario: Scenario,
    parameters: Sequence[Parameter],
    *,
    samples: int,
    seed: int,
    settings: SolveSettings | None = None,
    source: str | None = None,
) -> list[Task]:
    """One task per sample (ids 0..samples−1); paths are checked before sampling."""
    doc, _ = prepare(scenario, parameters, source)
    draws = sample(parameters, samples, seed)
    settings = settings or SolveSettings()
    return [
        Task(
            i,
            f"sample {i}",
            doc,
            tuple(Change(p.path, v, p.multiplier) for p, v in zip(parameters, draw, strict=True)),
            settings,
        )
        for i, draw in enumerate(draws)
    ]


def _stats(name: str, values: Sequence[float]) -> dict[str, float | str | int]:
    clean = np.array([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    record: dict[str, float | str | int] = {"metric": name, "runs": len(clean)}
    if len(clean) == 0:
        return record
    for q, value in zip(PERCENTILES, np.percentile(clean, PERCENTILES), strict=True):
        record[f"p{q}"] = float(value)
    record |= {"mean": float(clean.mean()), "min": float(clean.min()), "max": float(clean.max())}
    return record


METRICS = (
    "npv_cost_usd",
    "unmet_inference_share",
    "unmet_inference_tokens",
    "lost_revenue_usd",
    "penalties_usd_pv",
    "capex_usd",
    "peak_mw",
    "cost_band_usd",
)
"""The figures summarised, real cost first and the shortfall apart from it."""


def statistics(runs: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Percentiles (with bootstrap intervals) of every headline figure over solved runs."""
    solved = runs[runs["status"].isin(SOLVED)]
    metrics = [m for m in METRICS if m in runs.columns]
    metrics += [c for c in runs.columns if c.startswith("usd_per_mtok[")]
    records = []
    for m in metrics:
        values = solved[m].astype(float).tolist()
        records.append({**_stats(m, values), **bootstrap_ci(values, seed)})
    return pd.DataFrame(records)


def by_year(runs: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """P10/P50/P90 per year of ``capex_usd.YEAR`` or ``mw.YEAR`` columns (fan chart)."""
    solved = runs[runs["status"].isin(SOLVED)]
    columns = [c for c in runs.columns if c.startswith(f"{prefix}.")]
    records = []
    for column in columns:
        stats = _stats(column, solved[column].astype(float).tolist())
        records.append(
            {"year": column.split(".", 1)[1], **{f"p{q}": stats.get(f"p{q}") for q in PERCENTILES}}
        )
    return pd.DataFrame(records, columns=["year", *(f"p{q}" for q in PERCENTILES)])


def buy_frequency(rows: Sequence[Row]) -> pd.DataFrame:
    """Per hardware: share of solved runs that buy it, and units bought (P10/P50/P90)."""
    solved = [r for r in rows if r["status"] in SOLVED]
    names = sorted({h for r in solved for h in (r.get("units_bought") or {})})
    records = []
    for h in names:
        units = [float((r.get("units_bought") or {}).get(h, 0.0)) for r in solved]
        stats = _stats(h, units)
        records.append(
            {
                "hardware": h,
                "runs_buying": sum(1 for u in units if u > 0),
                "share_of_runs": sum(1 for u in units if u > 0) / len(solved),
                **{f"units_p{q}": stats.get(f"p{q}") for q in PERCENTILES},
                "units_mean": stats.get("mean"),
            }
        )
    columns = ["hardware", "runs_buying", "share_of_runs", "units_p10", "units_p50", "units_p90"]
    return pd.DataFrame(records, columns=[*columns, "units_mean"]).sort_values(
        ["share_of_runs", "hardware"], ascending=[False, True], ignore_index=True
    )


def binding_frequency(rows: Sequence[Row]) -> pd.DataFrame:
    """Per limit (``power[dc].2027``, …): how many solved runs it binds in."""
    solved = [r for r in rows if r["status"] in SOLVED]
    counts: dict[str, int] = {}
    for r in solved:
        for name in r.get("binding") or []:
            counts[name] = counts.get(name, 0) + 1
    records = [
        {"limit": name, "runs_binding": n, "share_of_runs": n / len(solved)}
        for name, n in counts.items()
    ]
    frame = pd.DataFrame(records, columns=["limit", "runs_binding", "share_of_runs"])
    return frame.sort_values(["share_of_runs", "limit"], ascending=[False, True], ignore_index=True)


def histogram(values: Sequence[float], bins: int = HISTOGRAM_BINS) -> pd.DataFrame:
    """Counts of ``values`` in equal-width bins (for the histogram chart)."""
    clean = np.array([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if len(clean) == 0:
        return pd.DataFrame(columns=["bin", "runs", "from_usd", "to_usd"])
    counts, edges = np.histogram(clean, bins=min(bins, max(len(clean), 1)))
    return pd.DataFrame(
        {
            "bin": [f"{a / 1e6:,.1f}–{b / 1e6:,.1f} M" for a, b in itertools.pairwise(edges)],
            "runs": counts.astype(int),
            "from_usd": edges[:-1],
            "to_usd": edges[1:],
        }
    )


def power_fan(runs: pd.DataFrame, scenario: Scenario) -> pd.DataFrame:
    """The MW fan with the sites' total power cap of each year (the cap line)."""
    fan = by_year(runs, "mw")
    caps = []
    for year in fan["year"]:
        total = 0.0
        for site in scenario.sites:
            total += float(value_at(site.power_cap_mw, int(year), "hold"))
        caps.append(total)
    return fan.assign(**{"power cap (all sites)": caps})


def montecarlo_analysis(
    scenario: Scenario,
    parameters: Sequence[Parameter],
    rows: Sequence[Row],
    *,
    samples: int,
    seed: int,
) -> Analysis:
    """The Monte Carlo's tables and charts."""
    runs = runs_frame(rows)
    solved = runs[runs["status"].isin(SOLVED)] if len(runs) else runs
    first = str(scenario.horizon.start)
    outputs = {
        "npv_cost_usd": "npv_cost",
        "unmet_inference_share": "unmet_share",
        f"capex_usd.{first}": f"capex_{first}",
    }
    solved = solved.assign(
        **{
            f"units_bought_{first}": solved[
                [c for c in solved.columns if c.startswith(f"units_bought.{first}[")]
            ].sum(axis=1)
        }
    )
    outputs[f"units_bought_{first}"] = f"units_{first}"
    fans = {
        "Capex fan": by_year(runs, "capex_usd").rename(columns=_HUMAN),
        "MW fan": power_fan(runs, scenario).rename(columns=_HUMAN),
    }
    for name, fmt in (("Capex fan", cells.USD_SCALED), ("MW fan", MW)):
        fans[name].attrs["formats"] = {c: fmt for c in fans[name].columns if c != "year"}
    trend = convergence(solved, "npv_cost_usd")
    trend.attrs["formats"] = {c: cells.USD_SCALED for c in trend.columns if c != "samples"}
    frames = {
        "Statistics": statistics(runs, seed),
        "Purchases by year": purchases_by_year(rows),
        "First-year plans": first_year_plans(rows),
        "Drivers": drivers(solved, outputs),
        "Buy frequency": buy_frequency(rows),
        "Binding frequency": binding_frequency(rows),
        **fans,
        "Convergence": trend,
        "NPV cost histogram": histogram(
            solved["npv_cost_usd"].astype(float).tolist() if len(solved) else []
        ),
        "Runs": runs,
    }
    return Analysis(
        kind="montecarlo",
        scenario=scenario.name,
        rows=list(rows),
        frames=frames,
        settings={
            "seed": seed,
            "samples": samples,
            "sampling": "numpy Generator(PCG64(seed)); inverse CDF of one uniform per "
            "sample and parameter",
            "parameters": "; ".join(f"{p.label}: {p.distribution}" for p in parameters),
            "cost summarised": "NPV of cash costs; unmet demand and penalties on their own rows",
            "percentile intervals": "bootstrap, 1,000 resamples, 95%",
        },
        charts=[
            ChartSpec("columns", "NPV cost histogram", "NPV cost across samples", "runs", series=1),
            ChartSpec("steps", "Capex fan", "Capex by year: P10, P50, P90", "USD"),
            ChartSpec(
                "steps",
                "MW fan",
                "Facility power by year: P10, P50, P90, and the power cap",
                "MW",
                cap_column="power cap (all sites)",
            ),
            ChartSpec(
                "lines",
                "Convergence",
                "NPV cost percentiles against the number of samples",
                "USD",
                x_title="samples",
            ),
        ],
    )


_HUMAN = {"p10": "P10", "p50": "P50 (median)", "p90": "P90"}
