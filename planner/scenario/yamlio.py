"""Safe, bounded YAML reading that remembers where every value sits.

``read_yaml`` returns the document and a map from field path (a tuple of keys and list
indices) to its 1-based line, so validation errors can point at a line. It refuses
what would hang or exhaust memory: files over ``MAX_BYTES``, nesting deeper than
``MAX_DEPTH``, and documents that expand (through aliases) to more than ``MAX_NODES``
values — the "billion laughs" attack.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from planner import safe_io
from planner.errors import InputError, Problem
from planner.text import MAX_TEXT_CHARS

MAX_BYTES = 5_000_000
MAX_DEPTH = 40
MAX_NODES = 200_000

Location = tuple[str | int, ...]


class _Loader(yaml.SafeLoader):
    """SafeLoader that also reads YAML 1.2 floats without a dot (``1e9``, ``5E+11``)."""


_CSafeLoader: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_FastLoader: type[yaml.SafeLoader] | None = None
if _CSafeLoader is not None:  # PyYAML built with libyaml

    class _FastLoader(_CSafeLoader):  # type: ignore[no-redef,valid-type,misc]
        """libyaml's parser with the same safe constructor and resolvers as ``_Loader``."""


for _loader in (_Loader, _FastLoader):
    if _loader is not None:
        _loader.add_implicit_resolver(
            "tag:yaml.org,2002:float",
            re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
            list("-+0123456789"),
        )


def _check_size(node: yaml.Node) -> None:
    """Count nodes as they would expand (aliases counted each time) and the depth."""
    count = 0
    stack: list[tuple[yaml.Node, int]] = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ValueError(f"the document expands to more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            raise ValueError(f"values are nested more than {MAX_DEPTH} levels deep")
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in current.value)


def _key_value(key: yaml.ScalarNode, loader: yaml.SafeLoader) -> Any:
    """A mapping key as YAML parses it (``0x7EB``, ``2_027`` and ``2027`` are the int
    2027), or its text when it does not parse; hashable either way."""
    try:
        value = loader.construct_object(key)
        hash(value)
    except Exception:  # an unparsable or unhashable key: compare its text
        return ("text", key.value)
    return value


def _duplicate_keys(root: yaml.Node) -> list[Problem]:
    """A problem for each key given twice in one mapping (YAML would keep the last)."""
    problems: list[Problem] = []
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, str]] = [(root, "")]
    loader = yaml.SafeLoader("")  # parses keys only (scalars: no aliases, no objects)
    while stack:
        node, here = stack.pop()
        if id(node) in seen:  # an alias: already checked
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[Any, tuple[int, str]] = {}
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                path = f"{here}.{key.value}" if here else str(key.value)
                line = key.start_mark.line + 1
                same = _key_value(key, loader)  # 0x7EB and 2027: one key once parsed
                if same in first:
                    line_before, spelled = first[same]
                    also = "" if spelled == key.value else f", spelled {spelled!r}"
                    problems.append(
                        Problem(
                            path=path,
                            message=f"key {key.value!r} is given twice "
                            f"(also on line {line_before}{also})",
                            line=line,
                            hint="keep one of them; YAML would silently drop the first",
                        )
                    )
                else:
                    first[same] = (line, key.value)
                stack.append((value, path))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, f"{here}[{i}]") for i, item in enumerate(node.value))
        elif isinstance(node, yaml.ScalarNode) and len(node.value) > MAX_TEXT_CHARS:
            problems.append(
                Problem(
                    path=here,
                    message=f"text of {len(node.value):,} characters, longer than any field "
                    f"takes ({MAX_TEXT_CHARS:,})",
                    line=node.start_mark.line + 1,
                    hint="shorten it, or keep long notes in a file of their own",
                )
            )
    problems.sort(key=lambda p: p.line or 0)
    return problems


def _lines(node: yaml.Node, here: Location, out: dict[Location, int], depth: int = 0) -> None:
    out.setdefault(here, node.start_mark.line + 1)
    if depth > MAX_DEPTH:
        return
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = key.value
            if isinstance(k, str) and k.isdigit():
                k = int(k)
            out[(*here, k)] = key.start_mark.line + 1
            _lines(value, (*here, k), out, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _lines(item, (*here, i), out, depth + 1)


def _shallow(text: str) -> bool:
    """Whether libyaml reads ``text`` without error, nested at most ``MAX_DEPTH`` deep.

    libyaml's events come one by one (no recursion); its node composer recurses once
    per level, in C, so it only ever sees documents that passed this scan.
    """
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_FastLoader):
            if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return False
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return False
    return True


def _compose(text: str) -> tuple[yaml.SafeLoader, yaml.Node | None]:
    """A loader and the document's node graph (None: no document).

    libyaml parses a shallow, well-formed document (some 5x faster, the same nodes and
    values); anything else, errors included, goes to the pure-Python parser, which
    gives every error and limit its usual wording.
    """
    if _FastLoader is not None and _shallow(text):
        fast = _FastLoader(text)
        try:
            return fast, fast.get_single_node()
        except yaml.YAMLError:  # e.g. two documents: reported by the parser below
            fast.dispose()
    loader = _Loader(text)
    try:
        return loader, loader.get_single_node()
    except BaseException:
        loader.dispose()
        raise


def parse_yaml(text: str, file: str) -> tuple[Any, dict[Location, int]]:
    """Parse ``text``; return the data and a path → line map. Raises InputError."""
    try:
        loader, node = _compose(text)
        try:
            if node is None:
                return None, {}
            _check_size(node)
            duplicates = _duplicate_keys(node)
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise InputError(
            file,
            Problem(
                path="",
                message=f"not valid YAML: {exc.problem or exc.context}",
                line=line,
                hint="check indentation, colons and quotes near that line",
            ),
        ) from None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        reason = "nesting is too deep" if isinstance(exc, RecursionError) else str(exc)
        raise InputError(
            file,
            Problem(
                path="",
                message=f"cannot read this YAML: {reason}",
                hint="a scenario is a plain mapping of sections; remove deep nesting or aliases",
            ),
        ) from None
    if duplicates:
        raise InputError(file, duplicates)
    lines: dict[Location, int] = {}
    _lines(node, (), lines)
    return data, lines


ZIP_MAGIC = b"PK\x03\x04"
WORKBOOK_SUFFIXES = (".xlsm", ".xls", ".xlsb", ".xltx", ".xltm", ".ods", ".numbers")
"""Spreadsheet files the planner does not read: only ``.xlsx`` workbooks are scenarios."""


def read_text(path: Path) -> str:
    """Read a UTF-8 scenario file: a regular file of at most ``MAX_BYTES`` (planner.safe_io).

    A workbook (other than ``.xlsx``) or any zip archive is refused as not YAML.
    """
    file = str(path)
    if path.suffix.lower() in WORKBOOK_SUFFIXES:
        raise InputError(
            file,
            Problem(
                path="",
                message=f"a {path.suffix} file is not read: scenarios are YAML files "
                "or .xlsx workbooks",
                hint="save the workbook as 'Excel Workbook (.xlsx)' (macros are never run), "
                "or write one with `planner template`",
            ),
        )
    raw = safe_io.read_bytes(path, limit=MAX_BYTES, what="scenario file")
    if raw.startswith(ZIP_MAGIC):
        raise InputError(
            file,
            Problem(
                path="",
                message="is a zip archive (a workbook?), not a YAML scenario file",
                hint="a workbook must be named *.xlsx to be read as one",
            ),
        )
    return safe_io.decode_text(raw, file, "scenario file")


def read_yaml(path: Path) -> tuple[Any, dict[Location, int]]:
    """Read and parse a YAML file; see :func:`parse_yaml`."""
    return parse_yaml(read_text(path), str(path))
