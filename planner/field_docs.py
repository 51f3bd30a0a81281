"""Field docstrings as pydantic field descriptions, read with one parse per module.

A field is documented by the string under it (docs/design.md)::

    class Finance(_Section):
        wacc: Fraction = 0.10
        \"\"\"Discount rate for NPV and capital recovery, per year.\"\"\"

pydantic's ``use_attribute_docstrings`` reads these, but on Python < 3.13 it walks the
call stack and asks :func:`inspect.getmodule` about every frame, for every class: some
0.06 s of each command's start. :class:`DocumentedFields` gives the same descriptions
from one :func:`ast.parse` of the defining module, cached per module: a model base
inherits from it in place of setting ``use_attribute_docstrings``.

As with pydantic's option, a description given with ``Field(description=...)`` wins,
and a class not written in a source file (``create_model``) has no docstrings.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import sys
from functools import cache
from typing import Any, ClassVar

__all__ = ["DocumentedFields", "class_field_docs"]


def _body_docs(body: list[ast.stmt]) -> dict[str, str]:
    """``{field: docstring}`` of an annotated name directly followed by a string."""
    docs: dict[str, str] = {}
    for stmt, after in itertools.pairwise(body):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[stmt.target.id] = inspect.cleandoc(after.value.value)
    return docs


@cache
def _module_docs(module_name: str) -> dict[str, dict[str, str]]:
    """``{class qualname: {field: docstring}}`` of every class written in the module.

    Empty when the module has no readable source (frozen, compiled only). Two classes
    of one qualified name in one module (rare) are both left undocumented rather than
    given each other's docstrings.
    """
    module = sys.modules.get(module_name)
    try:
        source = inspect.getsource(module) if module is not None else ""
    except (OSError, TypeError):
        return {}
    found: dict[str, dict[str, str]] = {}
    twice: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                name = prefix + stmt.name
                if name in found:
                    twice.add(name)
                found[name] = _body_docs(stmt.body)
                visit(stmt.body, name + ".")

    visit(ast.parse(source).body, "")
    return {name: docs for name, docs in found.items() if name not in twice}


def class_field_docs(cls: type) -> dict[str, str]:
    """``{field: docstring}`` of the fields ``cls`` itself declares in its source."""
    docs = _module_docs(cls.__module__).get(cls.__qualname__, {})
    own = inspect.get_annotations(cls)
    return {name: doc for name, doc in docs.items() if name in own}


class DocumentedFields:
    """Mixin for a pydantic model base: each field's docstring becomes its description.

    Descriptions are set once the class is complete; they are documentation (read
    from ``model_fields`` by the workbook template, ``hardware show`` and others) and
    take no part in validation.
    """

    model_fields: ClassVar[dict[str, Any]]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)  # type: ignore[misc]
        for name, doc in class_field_docs(cls).items():
            field = cls.model_fields.get(name)
            if field is not None and field.description is None:
                field.description = doc
