"""Problems of a ``hardware:`` or ``models:`` entry that is not in the catalog.

Such an entry is a row of its own, so it needs every field a catalog row has, its
provenance included: ``source`` (where the figures come from) and ``as_of`` (when they
were read). Each missing field is named by its path (``models[3].source``) with what to
write there; an entry that gives nothing but an unknown id is most likely a misspelt
catalog id, and is reported as one by the caller.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from planner.errors import Problem

PROVENANCE = {
    "source": (
        "where the figures come from: a URL, paper or datasheet (at least 3 characters)",
        "e.g. source: https://huggingface.co/ORG/MODEL/blob/main/config.json",
    ),
    "as_of": (
        "the date the figures were read, YYYY-MM-DD",
        "e.g. as_of: 2025-06-30",
    ),
}
"""Fields every catalog row carries, what each holds and an example line."""


def custom_row_problems(
    section: str, index: int, choice: Any, error: ValidationError
) -> list[Problem]:
    """One problem per field of the entry at ``section[index]`` that is missing or wrong
    (``choice`` gives fields of its own, so it is read as a new row, not a catalog id)."""
    problems = []
    for err in error.errors():
        field = ".".join(str(p) for p in err["loc"]) or "id"
        path = f"{section}[{index}].{field}"
        if err["type"] != "missing":
            problems.append(
                Problem(path=path, message=err["msg"], found=repr(err.get("input"))[:80])
            )
            continue
        expected, example = PROVENANCE.get(
            field, (f"a value for {field}", f"see a catalog row: `planner {section} show ID`")
        )
        problems.append(
            Problem(
                path=path,
                message=f"missing: {choice.id!r} is not in the catalog, so its entry needs "
                f"every field a catalog row has, {field} included",
                expected=expected,
                hint=f"add it to {section}[{index}] ({example}), or use a catalog id",
            )
        )
    return problems
