"""Start-up time of the CLI: median wall time of `planner --help` and `planner validate`.

Run from the repository root::

    PYTHONPATH=$PWD python bench/startup.py [--runs 9] [--top 12]

Each command runs ``--runs`` times in a fresh interpreter (as the console script would);
the median and the fastest wall time are printed with the median CPU time (user +
system) of the process, then the ``python -X importtime`` modules with the largest
cumulative import time for each command. Wall time depends on the load of the machine,
CPU time much less: compare runs made the same way, not with a fixed threshold.

The planner's modules run from bytecode, as in an installed package (pip compiles on
install): compiled once into a temporary ``PYTHONPYCACHEPREFIX`` by a warm-up run, even
when ``PYTHONDONTWRITEBYTECODE`` is set. ``--no-bytecode`` measures compiling each time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path.cwd()  # the tree measured: `python -m planner` imports the planner found here
COMMANDS = {
    "planner --help": ["--help"],
    "planner validate scenarios/baseline.yaml": ["validate", "scenarios/baseline.yaml"],
}


def bytecode_env(cache_dir: str | None) -> dict[str, str]:
    """The environment of the measured runs: bytecode cached in ``cache_dir`` (None: none)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache_dir
    return env


def times(args: list[str], runs: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each of ``runs`` runs of ``python -m planner ARGS``."""
    wall, cpu = [], []
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "planner", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall.append(time.perf_counter() - start)
        cpu.append(usage.ru_utime + usage.ru_stime)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"planner {' '.join(args)} failed")
    return wall, cpu


def top_imports(args: list[str], top: int, env: dict[str, str]) -> list[tuple[float, str]]:
    """The ``top`` modules by cumulative import time (seconds), from ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "planner", *args],
        cwd=ROOT,
        env=env,
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
    parser.add_argument("--no-bytecode", action="store_true", help="compile on every run")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planner-bench-pyc-") as cache_dir:
        env = bytecode_env(None if options.no_bytecode else cache_dir)
        for label, args in COMMANDS.items():
            times(args, 1, env)  # warm-up: writes the bytecode, fills the OS file cache
            wall, cpu = times(args, options.runs, env)
            print(
                f"{label}: median {statistics.median(wall):.3f} s wall "
                f"(fastest {min(wall):.3f} s), median {statistics.median(cpu):.3f} s CPU "
                f"over {options.runs} runs"
            )
            for seconds, name in top_imports(args, options.top, env):
                print(f"    {seconds:7.3f} s  {name}")


if __name__ == "__main__":
    main()
