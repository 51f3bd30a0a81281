"""Write a realistic benchmark scenario of size S, M, L, XL or H (hyperscaler).

    python bench/generate.py M --seed 1 --out /tmp/m.yaml

S is scenarios/baseline.yaml re-emitted; M, L and XL are drawn from ``random.Random(seed)``
and sized against the perf model so that power caps bind (see bench/README.md).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from planner.catalog import HardwareSpec, hardware_catalog, model_catalog, offer_catalog
from planner.perf import throughput_tables
from planner.perf.workloads import DAYS_PER_YEAR, active_years, serving_workloads
from planner.scenario.schema import Scenario
from planner.scenario.series import value_at
from planner.scenario.yamlio import read_yaml

BASELINE = Path(__file__).resolve().parents[1] / "scenarios" / "baseline.yaml"
START = 2026


class Size(NamedTuple):
    years: int
    periods_per_year: int
    hardware: int  # hardware types
    workloads: int  # inference workloads
    sites: int
    runs: int  # training runs
    mip_gap: float
    time_limit_s: float


SIZES: dict[str, Size] = {
    "M": Size(6, 4, 12, 10, 2, 3, 0.005, 120.0),
    "L": Size(10, 4, 24, 30, 4, 6, 0.01, 120.0),
    "XL": Size(10, 12, 30, 60, 8, 10, 0.02, 600.0),
    # hyperscaler: 20 sites x 30 hardware x 60 workloads x quarterly x 10 years
    "H": Size(10, 4, 30, 60, 20, 10, 0.02, 1200.0),
}

# Most relevant first (h100-hgx: the existing fleet); the rest of the catalog follows.
FIRST_HARDWARE = (
    *("h100-hgx", "h200-hgx", "b200-hgx", "gb200-nvl72", "gb300-nvl72", "mi355x-oam8"),
    *("b300-hgx", "vr200-nvl144", "mi300x-oam8", "tpu-v6e-pod256", "trn2-ultraserver64"),
    "tpu-ironwood-slice256",
)
ADDED_LATER = ("rubin-ultra-nvl576", "mi450x-helios72")
"""Catalog rows added after the sizes were defined (the announced next generations):
left out, so a size stays the same problem as the catalog grows and its timings stay
comparable across versions."""
# Demand is sized on the best of these (throughput per kW); every M+ list holds them.
REFERENCE_HARDWARE = FIRST_HARDWARE[1:]
RENTABLE = ("h200-hgx", "b200-hgx", "mi300x-oam8", "tpu-v6e-pod256", "h100-hgx")
SITE_NAMES = (
    *("texas", "ohio", "quebec", "norway", "arizona", "georgia", "iowa", "oregon"),
    *("virginia", "nevada", "utah", "wyoming", "finland", "sweden", "ireland", "denmark"),
    *("alberta", "nebraska", "indiana", "mississippi"),
)

# Inference profiles: (low, high) ranges of start tokens/day (drawn log-uniformly), then
# input per output token, cache hit rate, SLO tok/s, peak/average, output tokens/request.
PROFILES: dict[str, tuple[tuple[float, float], ...]] = {
    "chat":    ((1e11, 5e11), (2, 4),   (0.3, 0.6), (30, 50), (1.4, 1.8), (500, 1000)),
    "agentic": ((3e10, 2e11), (15, 30), (0.7, 0.9), (20, 30), (1.2, 1.4), (1500, 3000)),
    "code":    ((2e10, 1e11), (8, 15),  (0.5, 0.8), (50, 80), (1.3, 1.6), (800, 1500)),
    "batch":   ((5e10, 3e11), (1, 5),   (0.0, 0.3), (5, 10),  (1.0, 1.1), (1000, 4000)),
}  # fmt: skip
CONTEXT_TOKENS = {"chat": 32768, "agentic": 131072, "code": 65536, "batch": 32768}
PRETRAIN_MODELS = {"llama-3.1-405b": "bf16", "deepseek-v3": "fp8", "kimi-k2": "fp8"}
PRETRAIN_MODELS |= {"qwen3-235b-a22b": "bf16", "llama-4-maverick": "bf16"}
RL_MODELS = {"deepseek-r1": "fp8", "kimi-k2": "fp8", "qwen3-235b-a22b": "fp8"}  # model: precision


CAP_FIRST, CAP_LAST = 1.0, 0.95
"""The total power cap as a share of the estimated need, first and last year."""
BENCH_MODELS = (
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "llama-4-maverick",
    "deepseek-v3",
    "deepseek-r1",
    "kimi-k2",
    "qwen3-235b-a22b",
    "qwen3-32b",
    "gpt-oss-120b",
    "gpt-oss-20b",
)
"""The long-context catalog models the workloads are drawn from, in catalog order: a
fixed list, so a catalog addition leaves the instances as they were."""
SUPPLY_SHARE = 0.6
"""A supply-capped system may add, per year, the units that draw 0.2–0.5 × this share of
the year's total power cap."""


def sig(x: float, digits: int = 3) -> float:
    """``x`` rounded to ``digits`` significant figures (short, stable YAML)."""
    return float(f"{x:.{digits}g}")


def hardware_rows(size: Size, rng: random.Random) -> list[dict[str, Any]]:
    """The first ``size.hardware`` catalog ids that can both train and serve (no prefill-
    or inference-only parts); past the catalog, fully specified variants of them."""
    catalog = hardware_catalog()
    ordered = [*FIRST_HARDWARE, *(i for i in catalog if i not in FIRST_HARDWARE)]
    ids = [
        i
        for i in ordered
        if not catalog[i].prefill_only and catalog[i].mfu_training > 0 and i not in ADDED_LATER
    ]
    rows: list[dict[str, Any]] = [{"id": i} for i in ids[: size.hardware]]
    for n in range(size.hardware - len(rows)):
        row = catalog[ids[n % len(ids)]].model_dump(exclude_none=True)
        row.update(
            id=f"{row['id']}-v{2 + n // len(ids)}",
            name=f"{row['name']} (bench variant)",
            price_usd=sig(row["price_usd"] * rng.uniform(0.85, 1.1)),
            power_kw=sig(row["power_kw"] * rng.uniform(0.92, 1.08)),
            source=f"Synthetic benchmark variant of catalog row {row['id']} (bench/generate.py)",
        )
        rows.append(row)
    return rows


def workload_rows(size: Size, rng: random.Random, years: list[int]) -> list[dict[str, Any]]:
    """Workloads cycling through the profiles, spread over :data:`BENCH_MODELS`."""
    models = list(BENCH_MODELS)
    rng.shuffle(models)
    rows = []
    for i in range(size.workloads):
        profile = list(PROFILES)[i % len(PROFILES)]
        (low, high), inputs, cache, slo, peak, output = PROFILES[profile]
        model = models[i % len(models)]
        level = low * (high / low) ** rng.random()
        growth = rng.uniform(2.0, 3.0)  # first-year growth; the excess shrinks 15 % a year
        series = {}
        for k, year in enumerate(years):
            series[year] = sig(level)
            level *= 1 + (growth - 1) * 0.85**k
        row: dict[str, Any] = {"name": f"{profile}-{i + 1:02d}", "model": model}
        row["precision"] = rng.choices(["fp8", "fp4", "bf16"], weights=[6, 2, 2])[0]
        row["tokens_per_day"] = series
        row["input_tokens_per_output_token"] = sig(rng.uniform(*inputs), 2)
        row["cache_hit_rate"] = round(rng.uniform(*cache), 2)
        row["slo_tokens_per_s_per_user"] = float(round(rng.uniform(*slo)))
        row["peak_to_average"] = round(rng.uniform(*peak), 2)
        row["output_tokens_per_request"] = float(round(rng.uniform(*output), -2))
        context = min(CONTEXT_TOKENS[profile], model_catalog()[model].max_context_tokens)
        row["context_tokens"] = float(context)
        rows.append(row)
    return rows


def training_rows(size: Size, rng: random.Random, years: list[int]) -> list[dict[str, Any]]:
    """Every third run is RL post-training with rollouts; the rest pre-train, larger later."""
    rows = []
    for i in range(size.runs):
        rl = i % 3 == 2
        first = rng.randint(years[0], years[-1] - (0 if rl else 1))
        last = min(years[-1], first + (0 if rl else rng.randint(0, 1)))
        model, precision = rng.choice(list((RL_MODELS if rl else PRETRAIN_MODELS).items()))
        row: dict[str, Any] = {"name": f"{'rl' if rl else 'pretrain'}-{i + 1:02d}"}
        row |= {"model": model, "precision": precision, "window": [first, last]}
        later = 1.3 ** (first - years[0])  # frontier runs grow about 30 % a year
        row["tokens"] = sig((rng.uniform(1e12, 3e12) if rl else rng.uniform(1e13, 3e13)) * later)
        if rl:
            row["rollout_tokens"] = sig(rng.uniform(1e13, 3e13) * later)
        rows.append(row)
    return rows


def demand_mw(doc: dict[str, Any], pue: float) -> dict[int, float]:
    """Facility MW per year to serve peak demand (at the year's end under peak_average,
    in its last period under start: where demand is highest) and finish every run on
    the best reference hardware (throughput per kW), with no caps: a lower bound on
    the need."""
    yearly = {"start": doc["horizon"]["start"], "years": doc["horizon"]["years"]}
    # The year's highest demand: its end under peak_average (the default), else the
    # start of its last period (with sub-year periods, the highest start).
    if doc["horizon"].get("demand_within_period", "peak_average") == "peak_average":
        last_period = 1.0
    else:
        last_period = 1.0 - 1.0 / doc["horizon"].get("periods_per_year", 1)
    hardware = [{"id": h} for h in REFERENCE_HARDWARE]
    reference = doc | {"horizon": yearly, "hardware": hardware, "rental": []}
    scenario = Scenario.model_validate(reference)
    inference, training = throughput_tables(scenario)
    kw = {h: hardware_catalog()[h].power_kw for h in REFERENCE_HARDWARE}
    inference = inference[inference["servable"]]
    per_kw = inference["output_tokens_per_s_per_unit"] / inference["hardware"].map(kw)
    best_serve = per_kw.groupby(inference["workload"]).max()
    training = training[training["feasible"]]
    per_kw = training["training_flops_per_s_per_unit"] / training["hardware"].map(kw)
    best_train = per_kw.groupby(training["run"]).max()
    it_kw = dict.fromkeys(scenario.horizon.year_list, 0.0)
    availability = scenario.finance.availability
    for w in serving_workloads(scenario):
        if w.name not in best_serve:
            raise ValueError(f"workload {w.name} is servable on no reference hardware")
        for year in active_years(w, scenario):
            tokens_per_day = value_at(w.tokens_per_day, year + last_period, "geometric")
            tokens_per_s = tokens_per_day * w.peak_to_average / 86_400.0
            it_kw[year] += tokens_per_s / best_serve[w.name] / availability
    for run in scenario.training:
        first, last = run.window
        seconds = (last + 1 - first) * DAYS_PER_YEAR * 86_400.0
        flops = float(training.loc[training["run"] == run.name, "flops"].iloc[0])
        for year in range(first, last + 1):
            it_kw[year] += flops / seconds / best_train[run.name] / availability
    return {year: kw * pue / 1000.0 for year, kw in it_kw.items()}


def build(size: Size, rng: random.Random, periods_per_year: int) -> dict[str, Any]:
    """The scenario document of ``size``; ``rng`` draws every choice."""
    years = list(range(START, START + size.years))
    sites: list[dict[str, Any]] = []
    for name in SITE_NAMES[: size.sites]:  # power caps are set once demand is known
        sites.append({"name": name, "power_cap_mw": {}, "pue": round(rng.uniform(1.1, 1.35), 2)})
        sites[-1]["electricity_usd_per_kwh"] = round(rng.uniform(0.04, 0.09), 3)
    hardware = hardware_rows(size, rng)
    inference = workload_rows(size, rng, years)
    training = training_rows(size, rng, years)
    models = dict.fromkeys(row["model"] for row in [*inference, *training])
    doc: dict[str, Any] = {
        "name": f"bench-{size.years}y-{len(hardware)}hw-{size.workloads}w-{size.sites}s",
        "description": f"Benchmark scenario, {periods_per_year} periods a year, {size.runs} runs.",
        "horizon": {"start": START, "years": size.years, "periods_per_year": periods_per_year},
    }
    electricity = {years[0]: 0.07, years[-1]: sig(rng.uniform(0.07, 0.09))}
    doc["finance"] = {"wacc": 0.10, "pue": 1.25, "electricity_usd_per_kwh": electricity}
    doc |= {"sites": sites, "budget": {}, "hardware": hardware, "rental": []}
    doc |= {"existing_fleet": [], "models": [{"id": m} for m in models]}
    doc |= {"training": training, "inference": inference, "serving": "colocated"}
    doc["solver"] = {"name": "highs", "mip_gap": size.mip_gap, "time_limit_s": size.time_limit_s}
    pue = sum(s["pue"] for s in sites) / len(sites)
    need = demand_mw(doc, pue)

    # Total cap from 90 % of the need down to 70 % by the last year, never falling. The
    # first site is the established campus; the others come online later and ramp up
    # over three years (before that, a 5 MW pilot hall). No site's cap ever falls.
    weight = [2.0] + [rng.uniform(0.5, 1.5) for _ in sites[1:]]
    onset = [0] + [rng.randint(0, len(years) // 2) for _ in sites[1:]]
    total, held = {}, 0.0
    for k, year in enumerate(years):
        share = CAP_FIRST + (CAP_LAST - CAP_FIRST) * k / max(1, len(years) - 1)
        held = total[year] = max(held, need[year] * share)
        ramp = [min(1.0, max(0.05, (k - o + 1) / 3)) for o in onset]
        shares = [w * r for w, r in zip(weight, ramp, strict=True)]
        for site, share in zip(sites, shares, strict=True):
            cap = sig(held * share / sum(shares))
            site["power_cap_mw"][year] = max(cap, site["power_cap_mw"].get(year - 1, 5.0))

    variants = [HardwareSpec.model_validate(row) for row in hardware if "name" in row]
    specs = hardware_catalog() | {spec.id: spec for spec in variants}

    def units_per_mw(h: str, site_pue: float = pue) -> float:
        return 1000.0 / (specs[h].power_kw * site_pue)

    # Existing fleet at the first site: a third or so of its first-year cap.
    first = sites[0]
    fleet = [("h100-hgx", years[0] - 2, rng.uniform(0.25, 0.4))]
    if size.sites >= 4:
        fleet.append(("h200-hgx", years[0] - 1, rng.uniform(0.1, 0.2)))
    existing_mw = 0.0
    for h, installed, share in fleet:
        units = round(share * first["power_cap_mw"][years[0]] * units_per_mw(h, first["pue"]))
        row = {"hardware": h, "site": first["name"], "units": units, "installed": installed}
        doc["existing_fleet"].append(row)
        existing_mw += units / units_per_mw(h, first["pue"])

    # Capex budget: 110-150 % of what the year's new capacity (at least a fifth of the
    # cap) costs at the reference hardware's mean price per MW: it binds after power.
    usd_per_mw = sum(specs[h].price_usd * units_per_mw(h) for h in REFERENCE_HARDWARE)
    usd_per_mw /= len(REFERENCE_HARDWARE)
    budget, before = {}, existing_mw
    for year in years:
        new_mw = max(total[year] - before, 0.2 * total[year])
        budget[year] = sig(rng.uniform(1.1, 1.5) * usd_per_mw * new_mw)
        before = total[year]
    doc["budget"] = {"capex_usd": budget}

    # Supply caps on rack- and pod-scale systems and some others; some prices fall.
    for row in hardware:
        h = row["id"]
        if h in offer_catalog() and not offer_catalog()[h].purchasable:
            row["purchasable"] = True  # bench models buy every type, cloud-only included
        if specs[h].form in ("rack", "pod-slice") or rng.random() < 0.3:
            per_mw = rng.uniform(0.2, 0.5) * SUPPLY_SHARE * units_per_mw(h)
            row["max_units_per_year"] = {y: max(1, round(per_mw * total[y])) for y in years}
        if "name" not in row and rng.random() < 0.5:
            start_price = sig(specs[h].price_usd * rng.uniform(0.9, 1.0))
            end_price = sig(specs[h].price_usd * rng.uniform(0.5, 0.8))
            row["price_usd"] = {years[0]: start_price, years[-1]: end_price}

    # Rentals of 2-4 types: about 1.5x the cost of owning over three years, falling;
    # capped at a few percent of the power cap's worth of accelerators.
    listed = [row["id"] for row in hardware]
    for h in [r for r in RENTABLE if r in listed][: 2 + size.sites // 4]:
        chips = specs[h].accelerators
        hourly = sig(specs[h].price_usd / chips / (3 * 8760) * rng.uniform(1.4, 1.9))
        price = {years[0]: hourly, years[-1]: sig(hourly * rng.uniform(0.45, 0.7))}
        share = rng.uniform(0.03, 0.08)
        most = {y: sig(share * total[y] * units_per_mw(h) * chips, 2) for y in years}
        offer = {"hardware": h, "usd_per_accelerator_hour": price, "max_accelerators": most}
        doc["rental"].append(offer)
    return doc


def generate(size: str, seed: int = 0, periods_per_year: int | None = None) -> str:
    """The YAML text of a scenario of ``size`` (S, M, L, XL) drawn from ``seed``."""
    if size == "S":
        doc = read_yaml(BASELINE)[0]
        if periods_per_year is not None:
            doc["horizon"]["periods_per_year"] = periods_per_year
        how = "scenarios/baseline.yaml re-emitted (the seed is not used)"
    else:
        spec = SIZES[size]
        doc = build(spec, random.Random(seed), periods_per_year or spec.periods_per_year)
        how = "drawn from the seed and sized against the perf model (see bench/README.md)"
    periods = "" if periods_per_year is None else f", --periods-per-year {periods_per_year}"
    header = f"# Benchmark scenario size {size}, seed {seed}{periods}: {how}.\n"
    return header + yaml.safe_dump(doc, sort_keys=False, width=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("size", type=str.upper, choices=("S", *SIZES), help="scenario size")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--out", type=Path, help="file to write (default: standard output)")
    parser.add_argument("--periods-per-year", type=int, help="override (M, L, H: 4; XL: 12; S: 1)")
    args = parser.parse_args(argv)
    write = args.out.write_text if args.out else sys.stdout.write
    write(generate(args.size, args.seed, args.periods_per_year))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
