"""Every numeric field of the scenario schema, found by walking its pydantic models.

A field's path is written as in scenario files and error messages, with ``[0]`` for
the first item of a list, ``{year}`` for the year key and ``[year]`` for the value of
a ``{year: value}`` series, ``{key}``/``[key]`` for another mapping's key and value.
Its bounds are read from the constraints pydantic enforces (``Field(gt=...)``,
``Annotated[float, Field(ge=...)]``), so a bound added or dropped in the schema moves
the extremes the hostile tests try.
"""

from __future__ import annotations

import math
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

HUGE = 1e300
"""Stands for "no upper bound" (and -HUGE for "no lower bound") on a float."""
HUGE_INT = 10**300
"""Stands for "no upper bound" on an integer (still a float's size when converted)."""


@dataclass(frozen=True)
class NumericField:
    """One numeric leaf: where it sits, its type and its bounds (None: unbounded)."""

    path: tuple[str | int, ...]
    kind: type
    """``int`` or ``float`` (``Literal`` choices of numbers are ``int``)."""
    low: float | None = None
    low_open: bool = False
    high: float | None = None
    high_open: bool = False
    choices: tuple[int | float, ...] = ()

    @property
    def name(self) -> str:
        out = ""
        for part in self.path:
            out += (
                f"[{part}]" if isinstance(part, int) else (part if part[0] in "{[" else f".{part}")
            )
        return out.lstrip(".")

    def extremes(self) -> list[int | float]:
        """The smallest and largest value validation should accept (one if they are equal)."""
        if self.choices:
            values = [min(self.choices), max(self.choices)]
        else:
            values = [self._end(low=True), self._end(low=False)]
        return list(dict.fromkeys(values))

    def _end(self, *, low: bool) -> int | float:
        bound, is_open = (self.low, self.low_open) if low else (self.high, self.high_open)
        step = 1 if low else -1
        if self.kind is int:
            if bound is None:
                return -HUGE_INT if low else HUGE_INT
            whole = math.ceil(bound) if low else math.floor(bound)
            return whole + step if is_open and whole == bound else int(whole)
        if bound is None:
            return -HUGE if low else HUGE
        if not is_open:
            return float(bound)
        if bound == 0 and low:
            return 1e-300  # above 0: far below any meaningful value, 1/x still finite
        return math.nextafter(float(bound), math.inf if low else -math.inf)


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in metadata:
        if isinstance(item, FieldInfo):
            out.update(_bounds(item.metadata))
        elif isinstance(item, annotated_types.Gt):
            out.update(low=item.gt, low_open=True)
        elif isinstance(item, annotated_types.Ge):
            out.update(low=item.ge, low_open=False)
        elif isinstance(item, annotated_types.Lt):
            out.update(high=item.lt, high_open=True)
        elif isinstance(item, annotated_types.Le):
            out.update(high=item.le, high_open=False)
    return out


def _unwrap(annotation: Any, metadata: list[Any]) -> tuple[Any, list[Any]]:
    while get_origin(annotation) is Annotated:
        base, *extra = get_args(annotation)
        annotation, metadata = base, [*metadata, *extra]
    return annotation, metadata


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _leaves(
    annotation: Any, metadata: list[Any], path: tuple[str | int, ...]
) -> Iterator[NumericField]:
    annotation, metadata = _unwrap(annotation, metadata)
    if _is_union(annotation):
        arms = [a for a in get_args(annotation) if a is not type(None)]
        scalar = [a for a in arms if get_origin(_unwrap(a, [])[0]) is not dict]
        for arm in arms:
            if get_origin(_unwrap(arm, [])[0]) is dict and scalar:  # a {year: value} series
                key, value = get_args(_unwrap(arm, [])[0])
                yield from _leaves(key, [], (*path, "{year}"))
                yield from _leaves(value, [], (*path, "[year]"))
            else:
                yield from _leaves(arm, metadata, path)
        return
    origin = get_origin(annotation)
    if origin is Literal:
        values = get_args(annotation)
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            yield NumericField(path, int, choices=tuple(values))
        return
    if origin in (list, tuple):
        yield from _leaves(get_args(annotation)[0], [], (*path, 0))
        return
    if origin is dict:
        key, value = get_args(annotation)
        yield from _leaves(key, [], (*path, "{key}"))
        yield from _leaves(value, [], (*path, "[key]"))
        return
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield from walk(annotation, path)
        return
    if annotation is float or (annotation is int):
        yield NumericField(path, annotation, **_bounds(metadata))


def walk(model: type[BaseModel], path: tuple[str | int, ...] = ()) -> Iterator[NumericField]:
    """Every numeric leaf of ``model`` and the models it holds, in field order."""
    for name, info in model.model_fields.items():
        yield from _leaves(info.annotation, list(info.metadata), (*path, name))
