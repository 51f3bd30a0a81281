"""Pydantic validation errors as problems: field path, file and line, expected, did-you-mean.

Shared by the YAML loader (:mod:`planner.scenario.loader`, which knows each value's
file and line) and the workbook reader (:mod:`planner.scenario.workbook`, which knows
each value's sheet, row and column).
"""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from planner.errors import Problem
from planner.scenario.meta import field_at, model_in
from planner.scenario.schema import Scenario
from planner.scenario.yamlio import Location

# Where each value of a merged document came from: path → (file, line).
Origins = dict[Location, tuple[str, int | None]]


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


def origin_of(origins: Origins, loc: Location) -> tuple[str | None, int | None]:
    for n in range(len(loc), -1, -1):
        if loc[:n] in origins:
            return origins[loc[:n]]
    return None, None


def data_at(data: Any, loc: Location) -> tuple[Location, Any]:
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
    steps = [str(part) for part in loc[:-1] if not isinstance(part, int)]
    if not steps:
        return Scenario
    try:
        model, name = field_at(Scenario, steps)
    except KeyError:
        return None
    return model_in(model.model_fields[name].annotation)


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
            and isinstance(data_at(data, raw_loc[:-1])[1], dict)
        ):
            continue
        loc, node = data_at(data, raw_loc)
        if raw_loc[-1] == "[key]" and len(raw_loc) >= 2:  # a bad key of {year: value}
            msg = err["msg"] if err["type"] != "int_type" else "Input should be a year, e.g. 2028"
            err = {**err, "type": "year_key", "msg": msg}
            node = raw_loc[-2]
        if err["type"] == "extra_forbidden":
            loc = data_at(data, raw_loc)[0]
        err = {**err, "_node": node, "_dict_branch": any("dict[" in str(p) for p in raw_loc)}
        grouped.setdefault(loc, []).append(err)
    problems: list[Problem] = []
    for loc, errors in grouped.items():
        node = errors[0]["_node"]
        branch = [e for e in errors if e["_dict_branch"] == isinstance(node, dict)] or errors
        first = branch[0]
        file, line = origin_of(origins, loc)
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
