#!/usr/bin/env python3
"""Build planner/perf/data/benchmarks/mlperf-training-v5.0.csv from MLPerf Training v5.0.

Usage:
    python scripts/mlperf_training_csv.py GIT_DIR [--out PATH]

GIT_DIR is a git directory (bare or not) of mlcommons/training_results_v5.0; only HEAD
is read, through the git command line. Run it with the project's venv (it takes the
required columns from planner.perf.training_bench).

For every closed-division submission (submitter x system) of llama31_405b (pre-training)
and llama2_70b_lora (LoRA fine-tuning), each `result_*.txt` MLLOG file gives

    tokens/s = samples_count(run_stop) * sequence_tokens / (t(run_stop) - t(run_start))

where samples_count is the training-sample counter in run_stop's metadata (a multiple
of global_batch_size; evaluation samples are not counted) and sequence_tokens is the
log's `max_sequence_length` (llama31_405b) or 8192 (llama2_70b_lora: not logged; the
packed GovReport sequences are 8192 tokens and no submitter overrides MAX_SEQLEN). The
interval includes the periodic evaluations (taken out of tokens_per_s_per_accelerator
where the log marks eval_start; time_to_train_tokens_per_s_per_accelerator keeps them),
but not initialisation or compilation warm-up (those precede run_start). The
submission's figure is the median over its runs that ended with status "success",
divided by the accelerator count of `<submitter>/systems/<system>.json`
(number_of_nodes x accelerators_per_node).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from planner.export.atomic import write_atomically
from planner.export.cells import csv_text
from planner.perf.training_bench import TRAINING_REQUIRED_COLUMNS

BENCHMARKS = {
    # benchmark dir: (catalog model id, kind)
    "llama31_405b": ("llama-3.1-405b", "pretrain"),
    "llama2_70b_lora": ("llama-2-70b", "lora"),
}
# Sequence length when the log has no max_sequence_length key (llama2_70b_lora).
DEFAULT_SEQ_TOKENS = {"llama2_70b_lora": 8192}

# accelerator_model_name pattern -> catalog hardware id (planner/catalog/hardware.yaml).
# Order matters: GB200 before B200, GB300 before B300.
HARDWARE_PATTERNS = [
    (r"\bGB300\b", "gb300-nvl72"),
    (r"\bGB200\b", "gb200-nvl72"),
    (r"\bB300\b", "b300-hgx"),
    (r"\bB200\b", "b200-hgx"),
    (r"\bH100[- ]?SXM", "h100-hgx"),
    (r"\bH200[- ]?SXM", "h200-hgx"),
    (r"\bMI300X\b", "mi300x-oam8"),
    (r"\bMI325X\b", "mi325x-oam8"),
    (r"\bMI355X\b", "mi355x-oam8"),
    (r"\bMI350X\b", "mi350x-oam8"),
    (r"TPU.*(v6e|Trillium)", "tpu-v6e-pod256"),
    (r"Gaudi ?3", "gaudi3-oam8"),
]

SOURCE_REPO = "mlcommons/training_results_v5.0"
# MLPerf Training v5.0 publication date; the repository itself states none (its single
# commit is dated 2025-05-30).
DATE = "2025-06-04"
HEADER = [
    *TRAINING_REQUIRED_COLUMNS,  # the columns planner's reader requires, in its order
    "time_to_train_tokens_per_s_per_accelerator",
    "eval_excluded",
    "submitter",
    "system",
    "source",
    "date",
    "notes",
]
RESULT_RE = re.compile(r"^([^/]+)/results/([^/]+)/([^/]+)/result_\d+\.txt$")
FP8_RE = re.compile(r"^\s*(?:export\s+)?FP8=[\"']?(\w+)", re.MULTILINE)


class Git:
    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir

    def _run(self, *args: str) -> str:
        out = subprocess.run(
            ["git", f"--git-dir={self.git_dir}", *args],
            capture_output=True,
            check=True,
        )
        return out.stdout.decode("utf-8", errors="replace")

    def files(self) -> list[str]:
        return self._run("ls-tree", "-r", "--name-only", "HEAD").splitlines()

    def show(self, path: str) -> str:
        return self._run("show", f"HEAD:{path}")


@dataclass
class Run:
    path: str
    ok: bool
    samples: int = 0
    gbs: int = 0
    seq: int | None = None
    seconds: float = 0.0
    eval_seconds: float | None = None
    n_evals: int = 0
    division: str = ""

    @property
    def tokens_per_s(self) -> float:
        return self.samples * (self.seq or 0) / self.seconds


@dataclass
class Submission:
    submitter: str
    system: str
    benchmark: str
    runs: list[Run] = field(default_factory=list)


def parse_mllog(text: str) -> list[dict]:
    events = []
    for line in text.splitlines():
        i = line.find(":::MLLOG ")
        if i < 0:
            continue
        try:
            events.append(json.loads(line[i + len(":::MLLOG ") :]))
        except json.JSONDecodeError:
            continue
    return events


def parse_run(path: str, text: str) -> Run:
    events = parse_mllog(text)
    first: dict[str, dict] = {}
    for e in events:
        first.setdefault(e["key"], e)
    starts = [e for e in events if e["key"] == "run_start"]
    stops = [e for e in events if e["key"] == "run_stop"]
    if not starts or not stops:
        return Run(path, ok=False)
    stop = stops[-1]
    md = stop.get("metadata", {})
    if md.get("status") != "success" or "samples_count" not in md:
        return Run(path, ok=False)
    run = Run(path, ok=True)
    run.samples = int(md["samples_count"])
    run.gbs = int(first["global_batch_size"]["value"])
    seq = first.get("max_sequence_length")
    run.seq = int(seq["value"]) if seq else None
    run.division = str(first.get("submission_division", {}).get("value", ""))
    t0 = starts[0]["time_ms"]
    run.seconds = (stop["time_ms"] - t0) / 1000.0
    if run.seconds <= 0:
        raise ValueError(f"{path}: run_stop is not after run_start ({run.seconds} s)")
    # Evaluation wall time, where eval_start / eval_stop pairs are logged.
    ev_start = [e["time_ms"] for e in events if e["key"] == "eval_start"]
    ev_stop = [e["time_ms"] for e in events if e["key"] == "eval_stop"]
    run.n_evals = len(ev_stop)
    if ev_start and len(ev_start) == len(ev_stop):
        run.eval_seconds = sum(b - a for a, b in zip(ev_start, ev_stop, strict=True)) / 1000.0
        if not 0 <= run.eval_seconds < run.seconds:
            raise ValueError(f"{path}: evaluation {run.eval_seconds} s of a {run.seconds} s run")
    # Sanity: the counter must be whole steps and no event may report more samples.
    if run.samples % run.gbs:
        raise ValueError(f"{path}: samples_count {run.samples} not a multiple of GBS {run.gbs}")
    top = max(
        (
            int(e["metadata"]["samples_count"])
            for e in events
            if "samples_count" in (e.get("metadata") or {})
        ),
        default=0,
    )
    if top > run.samples:
        raise ValueError(f"{path}: an event reports {top} samples > run_stop {run.samples}")
    return run


def map_hardware(accelerator_name: str) -> str | None:
    for pattern, hw in HARDWARE_PATTERNS:
        if re.search(pattern, accelerator_name, re.IGNORECASE):
            return hw
    return None


def fp8_evidence(git: Git, files: list[str], submitter: str, system: str, benchmark: str):
    """FP8= settings in the submitter's launch configs for this benchmark.

    Looks at config*.sh under the implementation directory named after the system if
    there is one, otherwise under the submitter's whole benchmark directory (vendored
    NeMo / Megatron trees hold no config*.sh at that level of interest).
    """
    roots = [f"{submitter}/benchmarks/{benchmark}/", f"{submitter}/benchmark/{benchmark}/"]
    configs = [
        f
        for f in files
        if any(f.startswith(r) for r in roots)
        and re.search(r"/config[^/]*\.sh$", f)
        and "/NeMo/" not in f
        and "/Megatron-LM/" not in f
    ]
    own = [f for f in configs if f"/implementations/{system}/" in f]
    chosen = own or configs
    values = []
    for f in chosen:
        values += [v.lower() for v in FP8_RE.findall(git.show(f))]
    if own:
        where = f"{submitter}/benchmarks/{benchmark}/implementations/{system}"
    else:
        where = next((r.rstrip("/") for r in roots if any(f.startswith(r) for f in chosen)), "")
    return values, len(chosen), where


def sig4(x: float) -> str:
    """x to 4 significant figures, trailing zeros kept (299.0, 4793, 12340)."""
    s = f"{x:#.4g}"
    if "e" in s:
        s = str(round(float(s)))
    return s.rstrip(".")


def build(git_dir: str) -> tuple[list[dict], list[str]]:
    git = Git(git_dir)
    files = git.files()
    subs: dict[tuple[str, str, str], Submission] = {}
    for f in files:
        m = RESULT_RE.match(f)
        if not m or m.group(3) not in BENCHMARKS:
            continue
        key = (m.group(1), m.group(2), m.group(3))
        subs.setdefault(key, Submission(*key)).runs.append(parse_run(f, git.show(f)))

    rows, skipped = [], []
    for (submitter, system, bench), sub in sorted(subs.items()):
        sysj = json.loads(git.show(f"{submitter}/systems/{system}.json"))
        name = str(sysj.get("accelerator_model_name", ""))
        nodes = int(sysj["number_of_nodes"])
        per_node = int(sysj["accelerators_per_node"])
        accel = nodes * per_node
        division = str(sysj.get("division", "")).lower()
        ok = [r for r in sub.runs if r.ok]
        path = f"{submitter}/results/{system}/{bench}"
        if division != "closed" or any(r.division != "closed" for r in ok):
            skipped.append(f"{path}: not closed division ({division})")
            continue
        hw = map_hardware(name)
        if hw is None:
            skipped.append(f"{path}: {accel} x {name} (no catalog hardware match)")
            continue
        if not ok:
            skipped.append(f"{path}: no successful run")
            continue
        gbs_set = {r.gbs for r in ok}
        seqs = {r.seq for r in ok}
        if len(gbs_set) != 1 or len(seqs) != 1:
            raise ValueError(f"{path}: GBS {gbs_set} or sequence length {seqs} differ")
        gbs = gbs_set.pop()
        seq_logged = seqs.pop()
        seq = seq_logged or DEFAULT_SEQ_TOKENS[bench]
        for r in ok:
            r.seq = seq
        tps = statistics.median(r.tokens_per_s for r in ok) / accel
        samples = sorted({r.samples for r in ok})
        steps = sorted({r.samples // gbs for r in ok})
        eval_share = [r.eval_seconds / r.seconds for r in ok if r.eval_seconds is not None]
        if eval_share and len(eval_share) < len(ok):  # a median of a subset is not the row's
            raise ValueError(
                f"{submitter} {system} {bench}: {len(eval_share)} of {len(ok)} runs log "
                "their evaluation time"
            )
        excl = [
            r.samples * seq / (r.seconds - r.eval_seconds) for r in ok if r.eval_seconds is not None
        ]

        fp8_vals, n_cfg, where = fp8_evidence(git, files, submitter, system, bench)
        if fp8_vals and all(v in ("true", "1") for v in fp8_vals):
            precision = "fp8"
            prec_note = (
                f"fp8: all {len(fp8_vals)} FP8= settings True in {n_cfg} config*.sh under {where}"
            )
        elif fp8_vals and all(v in ("false", "0") for v in fp8_vals):
            precision = "bf16"
            prec_note = (
                f"bf16: all {len(fp8_vals)} FP8= settings False in {n_cfg} config*.sh under {where}"
            )
        else:  # a guessed precision would feed the fit: refuse instead
            raise ValueError(
                f"{submitter} {system} {bench}: precision undetermined "
                f"(FP8= values {sorted(set(fp8_vals))} under {where})"
            )

        model, kind = BENCHMARKS[bench]
        span = f"{samples[0]}" if len(samples) == 1 else f"{samples[0]}-{samples[-1]}"
        step_span = f"{steps[0]}" if len(steps) == 1 else f"{steps[0]}-{steps[-1]}"
        notes = [
            f"median of {len(ok)} runs"
            + (
                f" ({len(sub.runs) - len(ok)} without successful run_stop dropped)"
                if len(ok) < len(sub.runs)
                else ""
            ),
            f"samples = run_stop samples_count ({span} = {step_span} steps x GBS {gbs})",
            f"wall = run_start to run_stop incl. {max(r.n_evals for r in ok)} evals",
        ]
        if eval_share:
            notes.append(
                f"eval {100 * statistics.median(eval_share):.1f}% of wall"
                f" (excl. eval {sig4(statistics.median(excl) / accel)} tok/s/acc)"
            )
        else:
            notes.append("eval_start not logged")
        notes.append(
            "seq from log max_sequence_length"
            if seq_logged
            else "seq not logged: 8192 = packed GovReport length (MAX_SEQLEN default)"
        )
        notes.append(f"{nodes} node(s) x {per_node} {name}")
        if hw == "gb200-nvl72" and accel < 72:
            notes.append(f"uses {accel} of an NVL72 domain's 72 GPUs")
        notes.append(prec_note)
        rows.append(
            {
                "hardware": hw,
                "model": model,
                "precision": precision,
                "kind": kind,
                "accelerators": accel,
                "global_batch_sequences": gbs,
                "sequence_tokens": seq,
                # training throughput: evaluation time taken out where the log marks it
                "tokens_per_s_per_accelerator": sig4(
                    statistics.median(excl) / accel if eval_share else tps
                ),
                "time_to_train_tokens_per_s_per_accelerator": sig4(tps),
                "eval_excluded": "yes" if eval_share else "no",
                "submitter": submitter,
                "system": system,
                "source": f"{SOURCE_REPO} {path}",
                "date": DATE,
                "notes": "; ".join(notes),
            }
        )
    rows.sort(key=lambda r: (r["kind"], r["hardware"], r["accelerators"], r["submitter"]))
    return rows, skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir", help="git directory of mlcommons/training_results_v5.0")
    shipped = "planner/perf/data/benchmarks/mlperf-training-v5.0.csv"
    default_out = Path(__file__).resolve().parents[1] / shipped
    ap.add_argument("--out", default=str(default_out))
    args = ap.parse_args(argv)
    rows, skipped = build(args.git_dir)

    def write(temp: Path) -> None:
        with open(temp, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=HEADER, lineterminator="\n")
            w.writeheader()
            # cells copied from a third-party repository never start a formula
            w.writerows({k: csv_text(v) for k, v in r.items()} for r in rows)

    write_atomically(args.out, write)  # a temp file beside it, then renamed over it
    counts: dict[tuple, list[int]] = defaultdict(list)
    for r in rows:
        counts[(r["hardware"], r["model"], r["precision"], r["kind"])].append(r["accelerators"])
    print(f"wrote {len(rows)} rows to {args.out}")
    for k, acc in sorted(counts.items()):
        print(f"  {','.join(k)}: {len(acc)} rows, accelerators {min(acc)}-{max(acc)}")
    for s in skipped:
        print(f"  skipped {s}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
