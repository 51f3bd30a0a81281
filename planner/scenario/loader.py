"""Read a scenario file: YAML → ``extends`` + ``overrides`` → pydantic → semantic checks.

Every failure becomes an :class:`InputError` naming the file, the line, the field
path, what was found, what was expected and, for misspelt keys, a did-you-mean.
"""

from __future__ import annotations

import copy
import difflib
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from planner.errors import InputError, Problem
from planner.scenario import paths
from planner.scenario.checks import check_scenario
from planner.scenario.schema import Scenario
from planner.scenario.yamlio import Location, read_yaml

# Where each value of a merged document came from: path → (file, line).
Origins = dict[Location, tuple[str, int | None]]

MAX_EXTENDS_DEPTH = 10


def format_path(loc: Location, data: Any = None) -> str:
    """``('inference', 1, 'cache_hit_rate')`` → ``inference[1].cache_hit_rate``.

    Given the document, an integer that is a mapping key (a year) is written as
    ``.2028``, as dotted paths write it: ``sites[0].power_cap_mw.2028``.
    """
    out = ""
    node = data
    for part in loc:
        if isinstance(part, int) and not isinstance(node, dict):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
        try:
            node = node[part] if isinstance(node, dict | list) else None  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            node = None
    return out


def _origin(origins: Origins, loc: Location) -> tuple[str | None, int | None]:
    for n in range(len(loc), -1, -1):
        if loc[:n] in origins:
            return origins[loc[:n]]
    return None, None


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
        if len(loc) > 1 and isinstance(_data_at(before, loc[:-1])[1], int | float):
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


def _data_at(data: Any, loc: Location) -> tuple[Location, Any]:
    """Keep the parts of a pydantic error location that index ``data`` (drop union tags)."""
    kept: list[str | int] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
            kept.append(part)
        elif (
            isinstance(node, dict)
            and isinstance(part, str)
            and part.isdigit()
            and int(part) in node
        ):
            node = node[int(part)]
            kept.append(int(part))
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
            kept.append(part)
    return tuple(kept), node


def _model_at(loc: Location) -> type[BaseModel] | None:
    """The pydantic model class that holds the last key of ``loc``."""
    current: Any = Scenario
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = current.model_fields.get(str(part))
        if field is None:
            return None
        current = _unwrap(field.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin in (list, typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            annotation = models[0] if models else args[0]
            continue
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
            continue
        return annotation


def _expected(message: str) -> str:
    """pydantic's "Input should be greater than 0" → "a value greater than 0"."""
    if message.startswith("Value error, "):
        return message[len("Value error, ") :]
    prefix = "Input should be "
    if not message.startswith(prefix):
        return message
    rest = message[len(prefix) :]
    return rest if rest.startswith(("a ", "an ")) else f"a value {rest}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def validation_problems(exc: ValidationError, data: Any, origins: Origins) -> list[Problem]:
    """Turn pydantic errors into problems with paths, lines and did-you-means."""
    grouped: dict[Location, list[dict[str, Any]]] = {}
    all_errors: list[dict[str, Any]] = [dict(e) for e in exc.errors()]
    # Fields given as a {year: value} mapping whose mapping branch has errors: the
    # "not a number" error of the plain-number branch is noise there.
    dict_fields = {
        tuple(e["loc"][:i])
        for e in all_errors
        for i, part in enumerate(e["loc"])
        if isinstance(part, str) and part.startswith("dict[")
    }
    for err in all_errors:
        raw_loc = tuple(err["loc"])
        if (
            raw_loc[:-1] in dict_fields
            and isinstance(raw_loc[-1], str)
            and not raw_loc[-1].startswith("dict[")
            and isinstance(_data_at(data, raw_loc[:-1])[1], dict)
        ):
            continue
        loc, node = _data_at(data, raw_loc)
        if raw_loc[-1] == "[key]" and len(raw_loc) >= 2:  # a bad key of {year: value}
            msg = err["msg"] if err["type"] != "int_type" else "Input should be a year, e.g. 2028"
            err = {**err, "type": "year_key", "msg": msg}
            node = raw_loc[-2]
        if err["type"] == "extra_forbidden":
            loc = _data_at(data, raw_loc)[0]
        err = {**err, "_node": node, "_dict_branch": any("dict[" in str(p) for p in raw_loc)}
        grouped.setdefault(loc, []).append(err)
    problems: list[Problem] = []
    for loc, errors in grouped.items():
        node = errors[0]["_node"]
        branch = [e for e in errors if e["_dict_branch"] == isinstance(node, dict)] or errors
        first = branch[0]
        file, line = _origin(origins, loc)
        hint = None
        expected = "; or ".join(dict.fromkeys(_expected(e["msg"]) for e in branch))
        if first["type"] == "extra_forbidden":
            model = _model_at(loc)
            known = list(model.model_fields) if model else []
            close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else None
            expected = "one of: " + ", ".join(known) if known else "no such key"
            problems.append(
                Problem(
                    path=format_path(loc, data),
                    message=f"unknown key {loc[-1]!r}",
                    expected=expected,
                    hint=hint or "remove it",
                    line=line,
                    file=file,
                )
            )
            continue
        if first["type"] == "missing":
            problems.append(
                Problem(
                    path=format_path((*loc, first["loc"][-1]), data),
                    message="required field is missing",
                    line=line,
                    file=file,
                    hint="add it (see scenarios/baseline.yaml for an example)",
                )
            )
            continue
        if any(e["type"] in ("float_type", "int_type") for e in branch) and not isinstance(
            node, dict
        ):
            expected = "a number, or a {year: number} mapping" if len(errors) > 1 else "a number"
            if isinstance(node, str):
                hint = "write the number without quotes, e.g. 1.0e9"
        problems.append(
            Problem(
                path=format_path(loc, data),
                message="invalid value",
                found=_short(node),
                expected=expected,
                hint=hint,
                line=line,
                file=file,
            )
        )
    return problems


def load_scenario(path: str | Path) -> Scenario:
    """Load, validate and check the scenario at ``path``; raise InputError on any problem.

    An ``.xlsx`` path is an assumptions workbook (``planner template``); its errors
    name the sheet, row and column.
    """
    path = Path(path)
    if path.suffix.lower() == ".xlsx":
        from planner.scenario.workbook import load_scenario_workbook  # imports this module

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
            pfile, line = _origin(origins, loc)
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
