"""Text from a file someone sent, made safe to print: names may not hold characters that
change what a terminal shows.

A scenario name holding a newline could print a forged ``ok other.yaml: everything
checked`` line under ``planner validate``; zero-width and bidirectional-override
characters can make two different names look alike, or reorder what is shown. Names
(and vendors) are therefore refused at validation when they hold a control character
(Unicode category Cc: newline, tab, escape, …), a format character (Cf: zero-width
spaces and joiners, bidi overrides, …) or a line or paragraph separator (Zl, Zp).
"""

from __future__ import annotations

import unicodedata

MAX_TEXT_CHARS = 20_000
"""The longest text a scenario file may hold in one field (a description, a source, a
note): ten pages; longer text only makes every stage that prints or wraps it slow (a
10 MB description took 29 s to lay out in the workbook's Summary)."""

UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp"})
"""Unicode categories a name may not hold."""


def unprintable(text: str) -> str | None:
    """The first character of ``text`` a terminal would not show as itself, described
    (``U+000A (Cc) at position 5``), or None when every character is printable."""
    for position, character in enumerate(text):
        category = unicodedata.category(character)
        if category in UNPRINTABLE:
            return f"U+{ord(character):04X} ({category}) at position {position}"
    return None


def printable_name(text: str) -> str:
    """``text`` if it holds no :data:`UNPRINTABLE` character; ValueError naming the
    first one otherwise (a pydantic validator)."""
    found = unprintable(text)
    if found is not None:
        raise ValueError(
            f"a name may not hold control or invisible characters (newline, tab, "
            f"zero-width, bidi override); found {found}"
        )
    return text
