"""The scenario-file reference, from the pydantic schema and each field's metadata.

Every section (a pydantic model reachable from :class:`Scenario`) gets a table of its
fields: type, default, unit, how years are filled, which finance field a site field
defaults to, and the field's docstring. Nothing here is typed twice: change a field's
docstring or :func:`planner.scenario.meta.meta` and regenerate.
"""

from __future__ import annotations

import datetime
import types
import typing
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from planner.catalog.schema import HardwareSpec, ModelSpec
from planner.scenario.meta import field_meta, model_in
from planner.scenario.schema import Scenario

TITLES = {"Scenario": "Top level"}
"""Section titles that differ from the model's name."""

_BASIC = {
    float: "number",
    int: "integer",
    str: "text",
    bool: "true/false",
    datetime.date: "date",
    type(None): "null",
    typing.Any: "any",
}

_FILL = {
    "geometric": "geometric between given years, held outside",
    "hold": "held from the last given year",
}


def _anchor(model: type[BaseModel]) -> str:
    return TITLES.get(model.__name__, model.__name__).lower().replace(" ", "-")


def type_text(annotation: Any) -> str:
    """A field's type as an analyst reads it: ``number | {year: number}``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_text(args[0])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(dict.fromkeys(type_text(a) for a in args))
    if origin is typing.Literal:
        return " | ".join(f"`{a}`" for a in args)
    if origin in (list, tuple):
        return f"list of {type_text(args[0])}"
    if origin is dict:
        key = typing.get_args(args[0])[0] if typing.get_origin(args[0]) else args[0]
        key_text = "year" if key is int else type_text(args[0])
        return f"{{{key_text}: {type_text(args[1])}}}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{TITLES.get(annotation.__name__, annotation.__name__)}](#{_anchor(annotation)})"
    return _BASIC.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _bounds(info: FieldInfo) -> str:
    """The field's own numeric and length limits, e.g. ``≥ 1, ≤ 30``."""
    words: dict[type, tuple[str, str]] = {
        annotated_types.Ge: ("ge", "≥ {}"),
        annotated_types.Gt: ("gt", "> {}"),
        annotated_types.Le: ("le", "≤ {}"),
        annotated_types.Lt: ("lt", "< {}"),
        annotated_types.MinLen: ("min_length", "length ≥ {}"),
        annotated_types.MaxLen: ("max_length", "length ≤ {}"),
    }
    found = []
    for item in info.metadata:
        for kind, (attribute, text) in words.items():
            if isinstance(item, kind):
                found.append(text.format(getattr(item, attribute)))
    return ", ".join(found)


def default_text(info: FieldInfo) -> str:
    """The default as a scenario file would write it; *required* when there is none."""
    if info.is_required():
        return "*required*"
    value = info.get_default(call_default_factory=True)
    if value is PydanticUndefined or value is None:
        return "absent"
    if isinstance(value, BaseModel):
        return "see section"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value == "":
        return '`""`'
    if isinstance(value, list | dict) and not value:
        return f"`{value!r}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    """``text`` on one table row: newlines joined, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _description(model: type[BaseModel], name: str, info: FieldInfo) -> str:
    if info.description:
        return info.description
    inner = model_in(info.annotation)
    if inner is not None:
        return (inner.__doc__ or "").strip().split("\n\n")[0] or "See its section."
    for spec in (HardwareSpec, ModelSpec):
        source = spec.model_fields.get(name)
        if model.__name__ == "ModelChoice" and spec is ModelSpec and source is not None:
            return source.description or ""
    return ""


def sections() -> list[type[BaseModel]]:
    """Every model reachable from :class:`Scenario`, in the order the file reads."""
    found: list[type[BaseModel]] = []

    def visit(model: type[BaseModel]) -> None:
        if model in found:
            return
        found.append(model)
        for info in model.model_fields.values():
            inner = model_in(info.annotation)
            if inner is not None:
                visit(inner)

    visit(Scenario)
    return found


def _section(model: type[BaseModel]) -> list[str]:
    title = TITLES.get(model.__name__, model.__name__)
    lines = [f"## {title}", ""]
    doc = (model.__doc__ or "").strip()
    if doc and model is not Scenario and not doc.startswith("!!!"):
        lines += [" ".join(doc.split("\n\n")[0].split()), ""]
    lines += [
        "| field | type | default | unit | years filled | site default | meaning |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, info in model.model_fields.items():
        meta = field_meta(model, name)
        kind = type_text(info.annotation)
        bounds = _bounds(info)
        if bounds:
            kind += f" ({bounds})"
        cells = [
            f"`{name}`",
            kind,
            default_text(info),
            meta.unit,
            _FILL.get(meta.fill or "", ""),
            f"`{meta.default_from}`" if meta.default_from else "",
            _description(model, name, info),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return [*lines, ""]


def scenario_reference() -> str:
    """The whole scenario-file reference page (Markdown)."""
    lines = [
        "<!-- generated by `python -m planner.docs_gen` from planner/scenario/schema.py;"
        " do not edit -->",
        "",
        "# Scenario file reference",
        "",
        "Every key a scenario file (YAML, or the assumptions workbook of `planner template`)",
        "may hold, section by section, from the schema in `planner/scenario/schema.py`.",
        "*Years filled* applies to year-indexed values (a number, the same every year, or",
        "a mapping `{year: value}`); *site default* names the finance field a site field",
        "takes when left out. Units are those of the field name; the *unit* column says",
        "what one of the value is. Unknown keys are refused.",
        "",
    ]
    for model in sections():
        lines += _section(model)
    return "\n".join(lines).rstrip() + "\n"


def scenario_fields() -> list[str]:
    """``Section.field`` for every field of every section (for the completeness test)."""
    return [f"{m.__name__}.{name}" for m in sections() for name in m.model_fields]
