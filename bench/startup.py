"""Start-up time of the CLI: median wall time of `planner --help` and `planner validate`.

Run from the repository root::

    PYTHONPATH=$PWD python bench/startup.py [--runs 9] [--top 12]

Each command runs ``--runs`` times in a fresh interpreter (as the console script would);
the median and the fastest run are printed, then the ``python -X importtime`` modules
with the largest cumulative import time for each command. Numbers depend on the load of
the machine: compare runs made the same way, not with a fixed threshold.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path.cwd()  # the tree measured: `python -m planner` imports the planner found here
COMMANDS = {
    "planner --help": ["--help"],
    "planner validate scenarios/baseline.yaml": ["validate", "scenarios/baseline.yaml"],
}


def wall_times(args: list[str], runs: int) -> list[float]:
    """Seconds of wall time of each of ``runs`` runs of ``python -m planner ARGS``."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "planner", *args], cwd=ROOT, check=True, capture_output=True
        )
        out.append(time.perf_counter() - start)
    return out


def top_imports(args: list[str], top: int) -> list[tuple[float, str]]:
    """The ``top`` modules by cumulative import time (seconds), from ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "planner", *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
        rows.append((int(cumulative) / 1e6, name))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--top", type=int, default=12)
    options = parser.parse_args()
    for label, args in COMMANDS.items():
        times = wall_times(args, options.runs)
        print(
            f"{label}: median {statistics.median(times):.3f} s, "
            f"fastest {min(times):.3f} s over {options.runs} runs"
        )
        for seconds, name in top_imports(args, options.top):
            print(f"    {seconds:7.3f} s  {name}")


if __name__ == "__main__":
    main()
