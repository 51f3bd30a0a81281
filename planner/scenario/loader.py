"""Read a scenario file: YAML → ``extends`` + ``overrides`` → pydantic → semantic checks.

Every failure becomes an :class:`InputError` naming the file, the line, the field
path, what was found, what was expected and, for misspelt keys, a did-you-mean.
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
    data_at,
    format_path,
    origin_of,
    validation_problems,
)
from planner.scenario.schema import Scenario
from planner.scenario.yamlio import read_yaml

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
    if not isinstance(data, dict):
        raise InputError(
            file,
            Problem(
                path="",
                message="a scenario must be a mapping of sections",
                found=type(data).__name__,
                expected="keys such as name, horizon, sites, hardware, models",
                line=1,
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
        base_path = (path.parent / base_name).resolve()
        if not base_path.exists():
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
    years = _horizon_years(data)
    for dotted, value in overrides.items():
        line = lines.get(("overrides", dotted))
        before = data
        try:
            data = paths.set_value(data, str(dotted), copy.deepcopy(value), years)
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
        loc = paths.locate(data, str(dotted))
        origins = {k: o for k, o in origins.items() if k[: len(loc)] != loc}
        origins[loc] = (file, line)
        if len(loc) > 1 and isinstance(data_at(before, loc[:-1])[1], int | float):
            origins[loc[:-1]] = (file, line)  # one year set: the number became a mapping
        for sub, sub_line in lines.items():
            if sub[:2] == ("overrides", dotted) and len(sub) > 2:
                origins[(*loc, *sub[2:])] = (file, sub_line)
    return data, origins


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
        raise InputError(file, validation_problems(exc, data, origins)) from None
    problems = check_scenario(scenario, base_dir=path.parent)
    if problems:
        located = []
        for p in problems:
            loc = tuple(int(s) if s.isdigit() else s for s in _split(p.path))
            pfile, line = origin_of(origins, loc)
            located.append(
                Problem(**{**p.__dict__, "line": p.line or line, "file": p.file or pfile})
            )
        raise InputError(file, located)
    if scenario.calibration is not None:
        # Relative to the scenario file, so the scenario runs from any directory.
        calibration = str((path.parent / scenario.calibration).resolve())
        scenario = scenario.model_copy(update={"calibration": calibration})
    return scenario


def _split(path: str) -> list[str]:
    return [s for s in path.replace("[", ".").replace("]", "").split(".") if s]
