"""Read a scenario file: YAML → ``extends`` + ``overrides`` → pydantic → semantic checks.

Every failure becomes an :class:`InputError` naming the file, the line, the field
path, what was found, what was expected and, for misspelt keys, a did-you-mean. All
problems of a file come in one report: with type problems, the semantic checks still
run on the entries without them (:mod:`planner.scenario.salvage`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import planner.scenario.paths as paths
from planner.errors import InputError, Problem
from planner.scenario.checks import check_scenario
from planner.scenario.problems import (
    Origins,
    format_path,
    origin_of,
    validation_problems,
)
from planner.scenario.salvage import salvage
from planner.scenario.schema import Scenario
from planner.scenario.yamlio import Location, read_yaml
from planner.units import NO_CALIBRATION

__all__ = ["format_path", "load_scenario", "validation_problems"]

MAX_EXTENDS_DEPTH = 10


def _read_merged(path: Path, chain: tuple[Path, ...]) -> tuple[dict[str, Any], Origins]:
    """The document at ``path`` with its ``extends`` base merged and overrides applied."""
    file = str(path)
    if len(chain) > MAX_EXTENDS_DEPTH:
        raise InputError(file, "extends: chain is longer than 10 files")
    data, lines = read_yaml(path)
    if data is None:
        raise InputError(
            file,
            Problem(
                path="",
                message="the file is empty",
                expected="a scenario mapping with name, horizon, sites, hardware, models",
                hint="copy scenarios/baseline.yaml and edit it",
            ),
        )
    if not isinstance(data, dict) or not any(key in Scenario.model_fields for key in data):
        # Not a scenario at all (a key file, a password list): say so, never quote it.
        raise InputError(
            file,
            Problem(
                path="",
                message="is not a scenario file (its content is not shown)",
                found="a mapping without scenario sections"
                if isinstance(data, dict)
                else f"a {type(data).__name__}, not a mapping",
                expected="a YAML mapping of sections such as name, horizon, sites, hardware, "
                "models",
                hint="name a scenario file; copy scenarios/baseline.yaml to start one",
            ),
        )
    origins: Origins = {loc: (file, line) for loc, line in lines.items()}
    base_name = data.get("extends")
    if base_name is not None:
        if not isinstance(base_name, str):
            raise InputError(
                file,
                Problem(
                    path="extends", message="expected a file path", line=lines.get(("extends",))
                ),
            )
        unusable = None
        if "\0" in base_name or not base_name.strip():
            unusable = "a file path cannot hold a NUL byte or be empty"
        elif any(len(part.encode("utf-8", "replace")) > 255 for part in Path(base_name).parts):
            unusable = "a file name longer than 255 bytes cannot exist"
        if unusable is not None:
            raise InputError(
                file,
                Problem(
                    path="extends",
                    message=unusable,
                    found=repr(base_name)[:80],
                    line=lines.get(("extends",)),
                    hint="extends: is a path relative to this file, e.g. baseline.yaml",
                ),
            )
        try:
            base_path = (path.parent / base_name).resolve()
            found = base_path.exists()
        except (OSError, ValueError):
            found = False
            base_path = path.parent / base_name
        if not found:
            raise InputError(
                file,
                Problem(
                    path="extends",
                    message="the base scenario file does not exist",
                    found=str(base_path),
                    line=lines.get(("extends",)),
                    hint="extends: is a path relative to this file, e.g. baseline.yaml",
                ),
            )
        if base_path in chain:
            raise InputError(
                file,
                Problem(
                    path="extends",
                    message=f"extends itself through {base_name}",
                    line=lines.get(("extends",)),
                    hint="break the cycle of extends: between these files",
                ),
            )
        base, base_origins = _read_merged(base_path, (*chain, base_path))
        merged = {k: v for k, v in base.items() if k not in ("overrides", "extends")}
        kept = {loc: o for loc, o in base_origins.items() if loc and loc[0] not in data}
        for key, value in data.items():
            merged[key] = value
        origins = {**kept, **origins}
        data = merged
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise InputError(
            file,
            Problem(
                path="overrides",
                message="expected a mapping of dotted paths to values",
                found=type(overrides).__name__,
                line=lines.get(("overrides",)),
            ),
        )
    if overrides:
        data, origins = _apply_overrides(data, overrides, lines, origins, file)
    return data, origins


def _apply_overrides(
    data: dict[str, Any],
    overrides: dict[Any, Any],
    lines: dict[Location, int],
    origins: Origins,
    file: str,
) -> tuple[dict[str, Any], Origins]:
    """``data`` with ``overrides`` applied in order, and where each value now comes from.

    Linear in the number of overrides: the document is copied once and each edit
    touches only its path; the origins of replaced values are dropped in one pass.
    """
    years = _horizon_years(data)
    data = copy.deepcopy(data)
    below: dict[Any, list[tuple[Location, int]]] = {}
    for sub, sub_line in lines.items():  # lines inside each override's value
        if len(sub) > 2 and sub[0] == "overrides":
            below.setdefault(sub[1], []).append((sub[2:], sub_line))
    latest: dict[Location, int] = {}  # location → index of the last override setting it
    added: list[tuple[Location, tuple[str, int | None], int]] = []
    for n, (dotted, value) in enumerate(overrides.items()):
        line = lines.get(("overrides", dotted))
        try:
            parent = paths.get(data, str(dotted).rsplit(".", 1)[0]) if "." in str(dotted) else None
            loc = paths.assign(data, str(dotted), copy.deepcopy(value), years)
        except paths.PathError as exc:
            raise InputError(
                file,
                Problem(
                    path=f"overrides.{dotted}",
                    message=str(exc),
                    line=line,
                    hint="write a dotted path such as finance.wacc or sites[texas].power_cap_mw",
                ),
            ) from None
        # Errors in an overridden value point at the override, not at the base file.
        latest[loc] = n
        added.append((loc, (file, line), n))
        if len(loc) > 1 and isinstance(parent, int | float) and not isinstance(parent, bool):
            added.append((loc[:-1], (file, line), n))  # one year set: the number became a mapping
        for sub, sub_line in below.get(dotted, []):
            added.append(((*loc, *sub), (file, sub_line), n))

    def replaced(key: Location, after: int) -> bool:
        """Whether an override later than ``after`` set ``key`` or a value holding it."""
        return any(latest.get(key[:d], -1) > after for d in range(1, len(key) + 1))

    kept: Origins = {k: o for k, o in origins.items() if not replaced(k, -1)}
    for key, origin, n in added:
        if not replaced(key, n):
            kept[key] = origin
    return data, kept


def _horizon_years(data: dict[str, Any]) -> list[int]:
    horizon = data.get("horizon")
    if isinstance(horizon, dict):
        start, years = horizon.get("start"), horizon.get("years")
        if isinstance(start, int) and isinstance(years, int) and 0 < years <= 100:
            return list(range(start, start + years))
    return []


def load_scenario(path: str | Path) -> Scenario:
    """Load, validate and check the scenario at ``path``; raise InputError on any problem.

    An ``.xlsx`` path is an assumptions workbook (``planner template``); its errors
    name the sheet, row and column.
    """
    path = Path(path)
    if path.suffix.lower() == ".xlsx":
        # openpyxl only for workbooks: a YAML scenario loads without it (fast start)
        from planner.scenario.workbook import load_scenario_workbook

        return load_scenario_workbook(path)
    file = str(path)
    data, origins = _read_merged(path, (path.resolve(),))
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        # Type problems, and the reference, year and fit problems of the sound rest.
        problems = validation_problems(exc, data, origins)
        rest = salvage(exc, data)
        if rest is not None:
            found = check_scenario(rest.scenario, base_dir=path.parent, withheld=rest.withheld)
            problems += _located([rest.in_file(p) for p in found], origins)
        raise InputError(file, problems) from None
    problems = check_scenario(scenario, base_dir=path.parent)
    if problems:
        raise InputError(file, _located(problems, origins))
    if scenario.calibration not in (None, NO_CALIBRATION):
        # Relative to the scenario file, so the scenario runs from any directory.
        calibration = str((path.parent / scenario.calibration).resolve())
        scenario = scenario.model_copy(update={"calibration": calibration})
    return scenario


def _located(problems: list[Problem], origins: Origins) -> list[Problem]:
    """``problems`` with the file and line their field path came from."""
    located = []
    for p in problems:
        loc = tuple(int(s) if s.isdigit() else s for s in _split(p.path))
        pfile, line = origin_of(origins, loc)
        located.append(Problem(**{**p.__dict__, "line": p.line or line, "file": p.file or pfile}))
    return located


def _split(path: str) -> list[str]:
    return [s for s in path.replace("[", ".").replace("]", "").split(".") if s]
