"""What a command may write: never over one of its inputs, never over a link or device.

Every command that writes files calls :func:`check_outputs` with the files it reads
(the scenario with its ``extends:`` chain and calibration file, a spec, a benchmark
CSV) and the files it will write, after loading its inputs and before any long work
(perf tables, solves): a refused output costs nothing. The check itself is
:func:`planner.export.atomic.check_target`, which every write repeats.

A default output name that would land on an input gets a ``-plan`` (or the command's)
tag instead: ``planner run exports/baseline.xlsx`` writes ``exports/baseline-plan.xlsx``.

Output names must end in a suffix their writer produces (``--out plan.csv`` on a
command that writes a workbook is refused, not written as xlsx bytes under a CSV name).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import click

from planner.errors import PlannerError
from planner.export.atomic import check_target
from planner.scenario.loader import MAX_EXTENDS_DEPTH
from planner.scenario.yamlio import read_yaml
from planner.units import NO_CALIBRATION

WORKBOOK = (".xlsx",)
TABLE = (".csv", ".parquet")
CSV = (".csv",)
YAML = (".yaml", ".yml")


def _extends_chain(path: Path) -> list[Path]:
    """The files a YAML scenario's ``extends:`` names, each relative to the one naming it.

    Called on a scenario that loaded, so the chain is valid; a file that cannot be read
    again ends the walk (the write checks its own target anyway).
    """
    chain: list[Path] = []
    here = path.resolve()
    seen = {here}
    for _ in range(MAX_EXTENDS_DEPTH + 1):
        try:
            data, _lines = read_yaml(here)
        except PlannerError:
            break
        base = data.get("extends") if isinstance(data, dict) else None
        if not isinstance(base, str):
            break
        here = (here.parent / base).resolve()
        if here in seen:
            break
        seen.add(here)
        chain.append(here)
    return chain


def scenario_inputs(path: Path, calibration: str | None = None) -> list[Path]:
    """The files a scenario at ``path`` was read from: itself, its ``extends:`` chain
    and its calibration file (``scenario.calibration``, resolved by the loader)."""
    inputs = [path]
    if path.suffix.lower() in YAML:
        inputs += _extends_chain(path)
    if calibration not in (None, NO_CALIBRATION):
        inputs.append(Path(calibration))
    return inputs


def require_suffix(path: Path | None, suffixes: Sequence[str], option: str) -> None:
    """Refuse (exit 2) an output name whose suffix is not one its writer produces."""
    if path is not None and path.suffix.lower() not in suffixes:
        raise click.BadParameter(
            f"{path} must end in {' or '.join(suffixes)} (that is the format written)",
            param_hint=option,
        )


def _is_input(path: Path, inputs: Iterable[Path]) -> bool:
    try:
        check_target(path, inputs)
    except PlannerError:
        return True
    return False


def default_output(preferred: Path, inputs: Iterable[Path], tag: str = "plan") -> Path:
    """``preferred``, or ``STEM-TAG.SUFFIX`` (then ``STEM-TAG-2.SUFFIX``, …) beside it
    when ``preferred`` is one of ``inputs`` (or otherwise cannot be written)."""
    inputs = list(inputs)
    candidate, n = preferred, 1
    while _is_input(candidate, inputs) and n < 100:
        suffix = f"-{tag}" if n == 1 else f"-{tag}-{n}"
        candidate = preferred.with_name(f"{preferred.stem}{suffix}{preferred.suffix}")
        n += 1
    return candidate


def check_outputs(inputs: Iterable[Path], *outputs: Path | None) -> None:
    """Refuse (exit 2) before any long work an output that is an input, a link, a
    device, a FIFO, a socket or a directory, or that sits where nothing can be written;
    and two outputs that are the same file."""
    inputs = list(inputs)
    chosen = [o for o in outputs if o is not None]
    for n, output in enumerate(chosen):
        check_target(output, inputs)
        for other in chosen[:n]:
            if output.resolve() == other.resolve():
                raise click.BadParameter(f"{output} is named for two outputs; name two files")
