"""Outputs the pages quote, made by running the commands they show.

Each function returns the Markdown of one generated region. Commands run in-process
in a scratch folder that links the repository's ``scenarios/``, so what they write
(workbooks, results files) never lands in the working tree.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from planner.catalog import hardware_catalog
from planner.cli import cli
from planner.cli.common import run_guarded
from planner.cli.numbers import scaled
from planner.economics.rates import price_decline_start
from planner.optimize.stages import MAX_PROFIT, MIN_COST, recipe_table
from planner.perf.efficiency import calibration_table
from planner.perf.fidelity import fidelity, shipped_benchmark_files
from planner.results import Plan

REPO = Path(__file__).resolve().parents[2]

RUN_BASELINE = "planner run scenarios/baseline.yaml --out exports/baseline.xlsx"
VENDORS = "planner vendors scenarios/vendor_shootout.yaml --workers 0"
VENDOR_COLUMNS = [
    "vendor",
    "npv_cost_usd",
    "vs_all_vendors_usd",
    "shortfall",
    "hardware_bought",
]


@contextmanager
def _scratch() -> Iterator[Path]:
    """A temporary working folder with ``scenarios/`` linked from the repository."""
    before = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="planner-docs-") as folder:
        (Path(folder) / "scenarios").symlink_to(REPO / "scenarios")
        os.chdir(folder)
        try:
            yield Path(folder)
        finally:
            os.chdir(before)


def _run(command: str) -> str:
    """Stdout of ``command`` (a ``planner ...`` line) run in-process; fails loudly."""
    args = shlex.split(command)
    assert args[0] == "planner", command
    with CliRunner().isolation() as (out, err, _):
        code = run_guarded(cli, args[1:])
    if code != 0:
        raise RuntimeError(f"`{command}` exited {code}: {err.getvalue().decode()}")
    return str(out.getvalue().decode())


@cache
def _baseline() -> tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """``planner run`` on baseline: its stdout, the workbook's sheets and the Summary
    sheet's headline rows (item, value or formula, unit)."""
    from openpyxl import load_workbook

    with _scratch() as folder:
        out = _run(RUN_BASELINE)
        book = load_workbook(folder / "exports" / "baseline.xlsx", read_only=True)
        rows = [r[:3] for r in book["Summary"].iter_rows(values_only=True)]
        sheets = tuple(book.sheetnames)
        book.close()
    start = next(i for i, r in enumerate(rows) if r[0] == "Headline figures") + 1
    end = next(i for i, r in enumerate(rows[start:], start=start) if r[0] is None)
    headline = tuple(tuple("" if c is None else str(c) for c in r) for r in rows[start:end])
    return out, sheets, headline


def _console(command: str, output: str, keep: int) -> str:
    """A console block: the command, then the first ``keep`` lines of its output."""
    lines = [line.rstrip() for line in output.splitlines()]
    shown = lines[:keep] + (["..."] if len(lines) > keep else [])
    return "\n".join(["```console", f"$ {command}", *shown, "```"])


def run_baseline() -> str:
    """The plan-a-fleet example: headline, fleet and costs by year."""
    out = _baseline()[0]
    lines = out.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("└")) + 1
    end = next(i for i, line in enumerate(lines[end:], start=end) if line.startswith("└")) + 1
    return _console(RUN_BASELINE, out, end)


def workbook_sheets() -> str:
    """The memo-workbook example: the sheets, and the Summary sheet's headline rows."""
    _, sheets, headline = _baseline()
    rows = ["| item | value | unit or note |", "|---|---|---|"]
    rows += [
        "| " + " | ".join(f"`{c}`" if c.startswith("=") else c for c in r) + " |" for r in headline
    ]
    names = ", ".join(f"**{name}**" for name in sheets)
    return "\n".join([f"Sheets: {names}.", "", "Summary, headline figures:", "", *rows])


def vendors_table() -> str:
    """The compare-vendors example: one row per vendor (columns abridged)."""
    with _scratch():
        out = _run(f"{VENDORS} --format json")
    frame = pd.DataFrame(json.loads(out)["tables"]["Vendors"])[VENDOR_COLUMNS].fillna("")
    for column in ("npv_cost_usd", "vs_all_vendors_usd"):
        frame[column] = [scaled(value, "$") for value in frame[column]]
    header = "| " + " | ".join(VENDOR_COLUMNS) + " |"
    rows = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(False)]
    lines = ["```console", f"$ {VENDORS}", "```", "", header, "|---" * len(VENDOR_COLUMNS) + "|"]
    return "\n".join([*lines, *rows])


def fidelity_table() -> str:
    """``planner fidelity`` with the shipped data and calibration, as a Markdown table."""
    groups = fidelity(shipped_benchmark_files(), calibration_table(None))
    lines = [
        "| domain | group | rows | median abs. error | bias | worst |",
        "|---|---|---|---|---|---|",
    ]
    for g in groups:
        lines.append(
            f"| {g.domain} | {g.group} | {g.rows} | {g.median_abs_pct:.1f}% "
            f"| {g.bias_pct:+.1f}% | {g.worst_pct:+.1f}% |"
        )
    return "\n".join(lines)


def plan_tables() -> str:
    """Every table of a Plan (what ``--tables DIR`` writes) with its units."""
    from planner.results import TABLE_UNITS

    rows = ["| table | units |", "|---|---|"]
    rows += [f"| `{name}` | {' '.join(unit.split())} |" for name, unit in TABLE_UNITS.items()]
    return "\n".join(rows)


def solve_recipes() -> str:
    """The decision tables of ``min_cost`` and ``max_profit``, from the recipe data the
    solve driver walks (:mod:`planner.optimize.stages`)."""
    return (
        "`objective: min_cost`\n\n"
        + recipe_table(MIN_COST)
        + "\n`objective: max_profit`\n\n"
        + recipe_table(MAX_PROFIT)
    )


def _usd_figures(line: str) -> dict[str, float]:
    """``name $1,234,567`` pairs of one printed line, by name."""
    return {k: float(v.replace(",", "")) for k, v in re.findall(r"(\w+) \$([\d,]+)", line)}


def _baseline_line(start: str) -> str:
    """The line of ``planner run`` on baseline that starts with ``start``."""
    return next(line for line in _baseline()[0].splitlines() if line.startswith(start))


def _baseline_npv() -> float:
    """Baseline's NPV cost, as ``planner run`` prints it."""
    return _usd_figures(_baseline_line("NPV cost $"))["cost"]


def horizon_end_npvs() -> str:
    """Baseline's fleet priced under each horizon-end convention (from the run-baseline run)."""
    figures = _usd_figures(_baseline_line("NPV cost, same fleet"))
    plan = _usd_figures(_baseline_line("NPV cost $"))
    own = next(name for name, usd in figures.items() if usd == plan["cost"])
    parts = [
        f"{name} {scaled(usd, '$')}" + (" (its plan's)" if name == own else "")
        for name, usd in figures.items()
    ]
    command = RUN_BASELINE.split(" --out")[0]
    return f"On baseline (`{command}`): {', '.join(parts)}."


def analysis_band() -> str:
    """The cost band of an analysis run's MIP gap on baseline, against the scenario default."""
    from planner.analysis.figures import DEFAULT_MIP_GAP
    from planner.scenario.schema import Solver

    npv, default = _baseline_npv(), Solver().mip_gap
    return (
        f"Analysis runs default to a MIP gap of {DEFAULT_MIP_GAP:.2%} (or the scenario's, if "
        f"tighter): a band of about {scaled(DEFAULT_MIP_GAP * npv, '$')} on baseline's "
        f"{scaled(npv, '$')}, where the scenario default ({default:.1%}) would leave one of "
        f"{scaled(default * npv, '$')}."
    )


TCO = "planner tco gb200-nvl72"


def tco_gb200() -> str:
    """The three totals of ``planner tco gb200-nvl72``."""
    with _scratch():
        figures = json.loads(_run(f"{TCO} --format json"))
    return (
        f"`{TCO}`: owned ${figures['owned']:.2f}, neocloud-like ${figures['neocloud']:.2f}, "
        f"on-demand ${figures['on_demand']:.2f} per GPU-hour."
    )


def resale_curve() -> str:
    """The default resale curve (:data:`planner.economics.horizon_end.DEFAULT_RESALE_CURVE`)."""
    from planner.economics.horizon_end import DEFAULT_RESALE_CURVE

    ages = sorted(DEFAULT_RESALE_CURVE)
    last = ages[-1]
    parts = ["new" if age == 0 else f"at {age:g} year{'s' * (age != 1)}" for age in ages]
    parts[-1] = f"from {last:g} years"
    shares = [f"{DEFAULT_RESALE_CURVE[age]:.1%}".replace(".0%", "%") for age in ages]
    return (
        "The default resale curve (`DEFAULT_RESALE_CURVE`, sourced in "
        "planner/economics/horizon_end.py), as a share of the new price: "
        + ", ".join(f"{s} {p}" for s, p in zip(shares, parts, strict=True))
        + "; linear between, 0 at or past the lifetime."
    )


LOAD_SHAPE_CASES = ((1.1, 0.30), (2.0, 0.61))
"""(peak_to_average, shortfall as a share of the peak) of the load-shape comparison: the
first is tests/scenarios/load_shape_shortfall.yaml's."""


def load_shape_ratios() -> str:
    """How many times fewer tokens the load-duration curve loses than the former ``u / a``."""
    from planner.economics.load_shape import lost_average

    (a1, u1), (a2, u2) = LOAD_SHAPE_CASES
    r1, r2 = ((u / a) / lost_average(u, 1.0, a) for a, u in LOAD_SHAPE_CASES)
    return (
        f"The curve counts {r1:.1f}× fewer lost tokens than the former rule on "
        f"`tests/scenarios/load_shape_shortfall.yaml` (a = {a1:g}, {u1:.0%} short at peak, "
        f"every hour short) and, at a = {a2:g} and {u2:.0%} short, {r2:.1f}× fewer."
    )


SOFTWARE_ROWS = (
    ("gb200-nvl72", ""),
    ("mi355x-oam8", ""),
    ("mi355x-oam8", "AMD=rocm7-amd-claim"),
    ("tpu-ironwood-slice256", ""),
    ("tpu-ironwood-slice256", "Google=pre-jetstream"),
)
THROUGHPUT = "planner throughput scenarios/vendor_shootout.yaml --only inference --format json"


def software_rows() -> str:
    """Chat rows of ``planner throughput`` on the shoot-out with and without stacks."""
    with _scratch():
        tables = {
            stack: json.loads(_run(THROUGHPUT + (f" --software {stack}" if stack else "")))
            for stack in dict.fromkeys(stack for _, stack in SOFTWARE_ROWS)
        }
    rows = ["| hardware | software | tokens/s per unit | $/Mtok |", "|---|---|---|---|"]
    for hardware, stack in SOFTWARE_ROWS:
        found = next(
            r
            for r in tables[stack]["inference"]
            if r["workload"] == "chat" and r["hardware"] == hardware
        )
        rows.append(
            f"| {hardware} | {found['software']} | {found['output_tokens_per_s_per_unit']:,.0f} "
            f"| ${found['usd_per_mtok_output']:.3f} |"
        )
    return "\n".join(rows)


MYOPIC = REPO / "tests" / "scenarios" / "myopic_price_rise.yaml"


@cache
def _myopic_plans() -> tuple[tuple[str, float, dict[int, float]], ...]:
    """(foresight, NPV, units bought by year) of myopic_price_rise.yaml, perfect then as
    written (myopic)."""
    import yaml

    import planner

    doc = yaml.safe_load(MYOPIC.read_text(encoding="utf-8"))
    perfect = {**doc, "solver": {**doc["solver"], "foresight": "perfect"}}
    out = []
    with _scratch() as folder:
        for name, scenario in (("perfect", perfect), ("myopic", doc)):
            (folder / "s.yaml").write_text(yaml.safe_dump(scenario), encoding="utf-8")
            plan = planner.plan(folder / "s.yaml")
            bought = plan.tables["purchases"].groupby("year")["units"].sum()
            out.append((name, plan.headline["npv_cost_usd"], dict(bought[bought > 0])))
    return tuple(out)


def myopic_example() -> str:
    """Perfect against myopic (1-year window) foresight on myopic_price_rise.yaml."""
    (_, npv_p, buy_p), (_, npv_m, buy_m) = _myopic_plans()

    def bought(units: dict[int, float]) -> str:
        return " then ".join(f"{u:g} in {y}" for y, u in sorted(units.items()))

    return (
        f"On `tests/scenarios/myopic_price_rise.yaml` (prices rising, demand tripling in "
        f"2028) perfect foresight buys {bought(buy_p)} (NPV {scaled(npv_p, '$')}), a "
        f"1-year window buys {bought(buy_m)} ({scaled(npv_m, '$')})."
    )


DURATION = "tests/scenarios/llama_405b_duration.yaml"


def llama_duration() -> str:
    """The Llama 3.1 405B run with ``duration_days``, against its model card's hours."""
    import planner
    from planner.catalog import model_catalog

    scenario = planner.load(REPO / DURATION)
    run = scenario.training[0]
    row = planner.plan(scenario).tables["training"].iloc[0]
    card = model_catalog()[run.model].training_accelerator_hours
    assert card is not None and run.tokens is not None and run.duration_days is not None
    hours = row["accelerator_hours"]
    return (
        f"Llama 3.1 405B ({run.tokens / 1e12:.1f}T tokens, {run.precision}) given "
        f"{run.duration_days:g} days on H100s gets {row['cluster_units']:,} units = "
        f"{row['cluster_accelerators']:,} GPUs at goodput {row['goodput']:.3f} for "
        f"{row['duration_days']:.1f} days: {hours / 1e6:.1f}M GPU-hours, "
        f"{abs(hours / card - 1):.1%} {'under' if hours < card else 'over'} the "
        f"{card / 1e6:.2f}M of Meta's model card."
    )


V4_CURVE = (
    "planner curve --model deepseek-v4 --hardware gb300-nvl72 --precision fp4 "
    "--interactivity 50 --mtp 1:0.85"
)
V4_RATE_USD_PER_GPU_HOUR = 2.65
"""The GB300 cloud rate SemiAnalysis's comparison states."""
V4_REPORTED_USD_PER_MTOK = 0.156
"""SemiAnalysis, "DeepSeekV4 1.6T Day 0 to Day 43 Performance Over Time", 2026-06-09."""


def deepseek_v4_point() -> str:
    """DeepSeek-V4-Pro on GB300 NVL72 at 50 tok/s/user, against the reported $/Mtok."""
    with _scratch():
        point = json.loads(_run(f"{V4_CURVE} --format json"))["points"][0]
    per_gpu = point["output_tokens_per_s_per_accelerator"]
    at_rate = V4_RATE_USD_PER_GPU_HOUR / (per_gpu * 3600) * 1e6
    return (
        f"gives {point['layout']} at {per_gpu:,.0f} output tokens/s per GPU. The command's "
        f"own `usd_per_mtok_output` is ${point['usd_per_mtok_output']:.2f}, at the catalog "
        f"price with default finance; at **${V4_RATE_USD_PER_GPU_HOUR:.2f} per GPU-hour** "
        f"(the GB300 cloud rate this comparison states) it is **${at_rate:.2f} per million "
        f"output tokens**, {at_rate / V4_REPORTED_USD_PER_MTOK:.1f}x the "
        f"${V4_REPORTED_USD_PER_MTOK} SemiAnalysis reported for the same point after 43 days "
        """of software work ("DeepSeekV4 1.6T Day 0 to Day 43 Performance Over Time", """
        "2026-06-09)."
    )


def catalog_availability() -> str:
    """Each catalog part's availability, successor and price path, from the catalog."""
    catalog = hardware_catalog()
    lines = [
        "| hardware | available from | end of sale | successor | price decline from | "
        "list price (year) | source |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec in catalog.values():
        start = price_decline_start(spec)
        lines.append(
            f"| {spec.id} | {spec.available_from or spec.release_year} "
            f"| {spec.end_of_sale or ''} | {spec.successor or 'none: price held'} "
            f"| {'' if start is None else f'{start:g}'} "
            f"| ${spec.price_usd:,.0f} ({spec.price_year}) "
            f"| {spec.availability_source or ''} |"
        )
    return "\n".join(lines)


FRONTIER = "scenarios/frontier_lab.yaml"


@cache
def frontier_lab_plan() -> Plan:
    """The plan of the shipped frontier_lab scenario (one solve, shared by its region and
    by tests/test_frontier_lab.py)."""
    import planner

    return planner.plan(REPO / FRONTIER)


def _it_mw_by_year(solved: Plan) -> dict[int, float]:
    """MW of IT in use by year: each site's facility MW used over its PUE."""
    import planner

    scenario = planner.load(REPO / FRONTIER)
    pue = {site.name: site.pue or scenario.finance.pue for site in scenario.sites}
    power = solved.tables["power"]
    it = power["used_mw"] / power["site"].map(pue)
    return {int(y): float(mw) for y, mw in it.groupby(power["year"]).sum().items()}


def frontier_lab_capex() -> str:
    """frontier_lab's capex per GW of IT in use: the capex of the whole horizon over the
    peak IT power its fleet draws at nameplate."""
    solved = frontier_lab_plan()
    head = solved.headline
    hardware, held = head["capex_usd"], head["capex_usd_prices_held"]
    blocks = head.get("datacenter_capex_usd", 0.0)
    it = _it_mw_by_year(solved)
    peak_year = max(it, key=lambda y: it[y])
    gw = it[peak_year] / 1000
    years = f"{min(it)}-{max(it)}"
    return (
        f"`planner run {FRONTIER}` ({head['status']}, gap {head['mip_gap']:.2%}): capex over "
        f"{years} of {scaled(hardware + blocks, '$')}, of which {scaled(hardware, '$')} "
        f"hardware on the plan's price path and {scaled(blocks, '$')} datacenter blocks at "
        f"the second site; peak IT in use {gw:.2f} GW ({peak_year}, facility MW over PUE). "
        f"**{scaled((hardware + blocks) / gw, '$')} per GW of IT**, "
        f"{scaled(hardware / gw, '$')} of it hardware; with every price held at its list "
        f"price the hardware alone would be {scaled(held / gw, '$')} per GW."
    )


TRTLLM_FILE = "trtllm-perf-overview.csv"


def _k(tokens: str) -> str:
    return f"{round(int(tokens) / 1024)}k"


def trtllm_rows() -> str:
    """How far the model is from the TensorRT-LLM perf-overview rows, by default and with
    ``kv_overlap: 0`` added to the shipped calibration."""
    from planner.perf.benchmarks import read_benchmarks
    from planner.perf.calibration import predict
    from planner.perf.efficiency import calibration_table

    path = next(p for p in shipped_benchmark_files() if p.name == TRTLLM_FILE)
    rows = read_benchmarks(path).rows
    shipped = calibration_table(None)
    ratios = {}
    for name, table in (
        ("default", shipped),
        ("apart", shipped.with_entry(None, "", {"kv_overlap": 0.0})),
    ):
        found = [(row, predict(row, table).tokens_per_s_per_accelerator) for row in rows]
        ratios[name] = [
            (row, p / row.measured_tokens_per_s_per_accelerator)
            for row, p in found
            if p is not None
        ]
    default = ratios["default"]
    by_shape: dict[str, list[float]] = {}
    for row, ratio in default:
        shape = f"{_k(row.cells['input_tokens'])}/{_k(row.cells['output_tokens'])}"
        by_shape.setdefault(shape, []).append(ratio)
    shapes = sorted(by_shape, key=lambda s: -statistics.median(by_shape[s]))
    oss = max(
        r for row, r in default if "gpt-oss" in row.model.id and row.hardware.family == "hopper"
    )

    def median_error(name: str, moe: bool) -> str:
        errors = [abs(r - 1) for row, r in ratios[name] if row.model.is_moe == moe]
        return f"{statistics.median(errors):.0%}"

    return (
        f"On the {len(default)} TensorRT-LLM perf-overview rows (`{TRTLLM_FILE}`) the model "
        "is too fast, most at short prompts with long outputs (median predicted over "
        "measured by prompt/output length: "
        + ", ".join(f"{s} {statistics.median(by_shape[s]):.1f}x" for s in shapes)
        + f") and for gpt-oss on Hopper (up to {oss:.1f}x: its MXFP4 weights run there "
        "without fp4 or fp8 tensor cores, which the row's `fp8` label hides). With "
        "`kv_overlap: 0` the dense median absolute error on these rows goes from "
        f"{median_error('default', False)} to {median_error('apart', False)} and the MoE "
        f"median from {median_error('default', True)} to {median_error('apart', True)}."
    )


LLAMA3_GPUS = 16_384
"""Llama 3's pre-training cluster (Llama 3 paper: 419 unexpected interruptions in 54 days
on 16,384 H100, the basis of the H100 catalog MTBF)."""


def llama3_goodput() -> str:
    """Goodput of a 16,384-H100 cluster at the catalog MTBF and the default δ and R."""
    from planner.perf.training import goodput
    from planner.scenario.schema import TrainingRun

    mtbf = hardware_catalog()["h100-hgx"].mtbf_hours_per_accelerator
    fields = TrainingRun.model_fields
    stall = fields["checkpoint_stall_s"].default
    restart = fields["restart_s"].default
    assert mtbf is not None
    value = goodput(LLAMA3_GPUS, mtbf, stall, restart)
    return (
        f"Llama 3's cluster ({LLAMA3_GPUS:,} H100, 419 unexpected interruptions in 54 days, "
        f"so `M_a` ≈ {mtbf:,.0f} h in the catalog) with the default δ = {stall:g} s and "
        f"R = {restart:g} s ({restart / 60:.1f} min) gets goodput {value:.3f}, against the "
        'reported "> 90%".'
    )
