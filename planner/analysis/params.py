"""Parameters of an analysis: which scenario numbers vary, and over what.

A parameter is a dotted path into the scenario (:mod:`planner.scenario.paths`):
``finance.wacc``, ``sites[texas].power_cap_mw.2028``, ``hardware[gb200-nvl72].price_usd``.
It takes values from a list (``values: [0.08, 0.10]``), an even range
(``range: [LOW, HIGH, N]``) or a distribution (``uniform``, ``triangular``, ``normal``,
``lognormal``; normal and lognormal may be truncated to ``[low, high]``).

With ``multiplier: true`` (``PATH*=`` on the command line) a value multiplies the base
value instead of replacing it; that is how a year-indexed series such as
``inference[chat].tokens_per_day`` is varied as a whole. A trailing year varies one year
of a series alone: the series is first written out for every horizon year (so
interpolation does not spread the change), then that year is set.

Paths are checked against the base scenario before anything runs, with a did-you-mean,
and values are applied by :mod:`planner.scenario.variants` (re-exported here: ``Change``,
``prepare``, ``apply_changes``), the same code ``--marginal`` uses. A field the scenario
leaves to the catalog (``hardware[h100-hgx].power_kw``) or to the finance section
(``sites[dc].pue``) is written into the base document first, with the value it already
had, so the base run is unchanged. Distributions: :mod:`planner.analysis.distributions`.

Sampling: one uniform number per (sample, parameter) from
``numpy.random.Generator(PCG64(seed))``, mapped through the distribution's inverse CDF.
Samples depend only on the seed and the spec (not on workers or executors), and the
first N samples of a bigger run are the N samples of a smaller one.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from planner.analysis.distributions import (
    DIST_FIELDS,
    Distribution,
    LogNormal,
    Normal,
    Triangular,
    Uniform,
    make_distribution,
)
from planner.errors import InputError, Problem
from planner.scenario import paths
from planner.scenario.variants import Change, apply_changes, prepare
from planner.scenario.yamlio import Location, read_yaml

__all__ = [
    "DIST_FIELDS",
    "Change",
    "Distribution",
    "LogNormal",
    "Normal",
    "Parameter",
    "Spec",
    "Triangular",
    "Uniform",
    "apply_changes",
    "linspace",
    "make_distribution",
    "merge",
    "parse_dist",
    "parse_spec",
    "parse_vary",
    "prepare",
    "read_spec",
    "sample",
]


# --- parameters and specs --------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One varied scenario number: its path and its values or distribution."""

    path: str
    multiplier: bool = False
    """Values multiply the base value (every year of a series) instead of replacing it."""
    values: tuple[float, ...] = ()
    """Sweep values (lists and ranges)."""
    distribution: Distribution | None = None
    """Monte Carlo distribution."""

    @property
    def label(self) -> str:
        return f"{self.path} ×" if self.multiplier else self.path


@dataclass(frozen=True)
class Spec:
    """Parameters, seed and sample count, from a spec file and/or command-line flags."""

    parameters: tuple[Parameter, ...]
    seed: int | None = None
    samples: int | None = None


def _bad(where: str, message: str, *, hint: str | None = None, line: int | None = None) -> Problem:
    return Problem(path=where, message=message, hint=hint, line=line)


def _did_you_mean(word: str, options: Any) -> str:
    close = difflib.get_close_matches(word, [str(o) for o in options], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


MAX_RUNS = 100_000
"""Most optimisations one analysis may ask for (a sweep's runs, a Monte Carlo's samples).

At about a second per small solve that is a day of one core; the tasks, rows and
results file of so many runs stay within a few hundred MB. Above it the command stops
before building anything (exit 2): split the analysis, or coarsen its steps. Checked
here while a parameter is parsed (no more values are built than an analysis may run)
and again for the whole analysis by planner.analysis.tasks.check_run_count.
"""


def _too_many_values(count: int, where: str, line: int | None = None) -> Problem | None:
    """A problem when one parameter asks for more values than an analysis may run."""
    if count <= MAX_RUNS:
        return None
    return _bad(
        where,
        f"asks for {count:,} values, so at least {count + 1:,} runs (with the base run); "
        f"an analysis may have at most {MAX_RUNS:,}",
        hint="use fewer values (coarser steps), or split the analysis into several runs",
        line=line,
    )


def linspace(low: float, high: float, count: int) -> tuple[float, ...]:
    """``count`` evenly spaced values from ``low`` to ``high`` (both included)."""
    if count == 1:
        return (float(low),)
    return tuple(float(low + (high - low) * i / (count - 1)) for i in range(count))


def _parse_parameter(path: str, body: Any, lines: dict[Location, int]) -> list[Problem] | Parameter:
    """One ``parameters:`` entry of a spec file."""
    here = ("parameters", path)
    where = f"parameters.{path}"
    line = lines.get(here)
    problems: list[Problem] = []
    try:
        paths.parse(path)
    except paths.PathError as exc:
        return [_bad(where, str(exc), line=line)]
    if not isinstance(body, dict):
        return [
            _bad(
                where,
                "expected a mapping such as {values: [...]}, {range: [LOW, HIGH, N]} "
                "or {distribution: uniform, low: ..., high: ...}",
                line=line,
            )
        ]
    known = {"values", "range", "distribution", "multiplier", "low", "high", "mode"}
    known |= {"mean", "sd", "median", "sigma"}
    for key in body:
        if key not in known:
            problems.append(
                _bad(
                    f"{where}.{key}",
                    f"unknown key {key!r}{_did_you_mean(str(key), known)}",
                    line=lines.get((*here, key)),
                )
            )
    multiplier = body.get("multiplier", False)
    if not isinstance(multiplier, bool):
        problems.append(_bad(f"{where}.multiplier", "expected true or false", line=line))
    kinds = [k for k in ("values", "range", "distribution") if k in body]
    if len(kinds) != 1:
        problems.append(_bad(where, "give exactly one of values, range or distribution", line=line))
    if problems:
        return problems
    kind = kinds[0]
    if kind == "values":
        values = body["values"]
        if not isinstance(values, list) or not values or not all(_number(v) for v in values):
            return [_bad(f"{where}.values", "expected a list of numbers", line=line)]
        return Parameter(path, multiplier, tuple(float(v) for v in values))
    if kind == "range":
        rng = body["range"]
        ok = isinstance(rng, list) and len(rng) == 3 and all(_number(v) for v in rng)
        if not ok or not isinstance(rng[2], int) or rng[2] < 1:
            return [_bad(f"{where}.range", "expected [LOW, HIGH, N] with N ≥ 1 whole", line=line)]
        if too_many := _too_many_values(rng[2], f"{where}.range", line):
            return [too_many]
        return Parameter(path, multiplier, linspace(rng[0], rng[1], rng[2]))
    name = body["distribution"]
    if name not in DIST_FIELDS:
        return [
            _bad(
                f"{where}.distribution",
                f"unknown distribution {name!r}{_did_you_mean(str(name), DIST_FIELDS)}",
                hint=f"use one of {', '.join(DIST_FIELDS)}",
                line=line,
            )
        ]
    required, optional = DIST_FIELDS[name]
    fields: dict[str, float | None] = {}
    for key in (*required, *optional):
        value = body.get(key)
        if value is None and key in required:
            problems.append(_bad(f"{where}.{key}", f"a {name} distribution needs {key}", line=line))
        elif value is not None and not _number(value):
            problems.append(
                _bad(f"{where}.{key}", f"expected a number, found {value!r}", line=line)
            )
        else:
            fields[key] = None if value is None else float(value)
    extra = set(body) - {*required, *optional, "distribution", "multiplier"}
    if extra:
        problems.append(
            _bad(
                where,
                f"{', '.join(sorted(extra))} do not apply to a {name} distribution",
                line=line,
            )
        )
    if problems:
        return problems
    try:
        return Parameter(path, multiplier, distribution=make_distribution(name, fields))
    except ValueError as exc:
        return [_bad(where, str(exc), line=line)]


def parse_spec(data: Any, file: str | None, lines: dict[Location, int] | None = None) -> Spec:
    """A spec from a parsed YAML document; raises InputError listing every problem."""
    lines = lines or {}
    if not isinstance(data, dict):
        raise InputError(
            file, "a spec is a mapping with parameters: (and optionally seed:, samples:)"
        )
    problems: list[Problem] = []
    for key in data:
        if key not in ("parameters", "seed", "samples"):
            hint = _did_you_mean(str(key), ("parameters", "seed", "samples"))
            problems.append(_bad(str(key), f"unknown key {key!r}{hint}", line=lines.get((key,))))
    for key in ("seed", "samples"):
        value = data.get(key)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            problems.append(_bad(key, "expected a whole number ≥ 0", line=lines.get((key,))))
    body = data.get("parameters")
    parameters: list[Parameter] = []
    if not isinstance(body, dict) or not body:
        problems.append(
            _bad(
                "parameters",
                "expected a mapping of dotted paths to values or distributions",
                hint="e.g. parameters: {finance.wacc: {values: [0.08, 0.10, 0.12]}}",
                line=lines.get(("parameters",)),
            )
        )
    else:
        for path, entry in body.items():
            parsed = _parse_parameter(str(path), entry, lines)
            if isinstance(parsed, Parameter):
                parameters.append(parsed)
            else:
                problems += parsed
    if problems:
        raise InputError(file, problems)
    return Spec(tuple(parameters), data.get("seed"), data.get("samples"))


def read_spec(path: str | Path) -> Spec:
    """Read a spec YAML file (see the module docstring for its keys)."""
    data, lines = read_yaml(Path(path))
    return parse_spec(data, str(path), lines)


def _split_flag(text: str, option: str) -> tuple[str, bool, str]:
    """``PATH=REST`` or ``PATH*=REST`` → (path, multiplier, rest)."""
    path, sep, rest = text.partition("=")
    if not sep or not path.strip() or not rest.strip():
        raise InputError(
            None,
            _bad(
                f"{option} {text}",
                "expected PATH=VALUES (or PATH*=VALUES for multipliers)",
                hint=f"e.g. {option} finance.wacc=0.08:0.12:3",
            ),
        )
    multiplier = path.endswith("*")
    return path.rstrip("*").strip(), multiplier, rest.strip()


def _float(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(None, _bad(where, f"{text!r} is not a number")) from None
    if not math.isfinite(value):
        raise InputError(None, _bad(where, f"{text!r} is not a finite number"))
    return value


def parse_vary(text: str) -> Parameter:
    """``--vary PATH=LOW:HIGH:N`` or ``PATH=V1,V2,...`` (``PATH*=`` for multipliers)."""
    path, multiplier, rest = _split_flag(text, "--vary")
    where = f"--vary {text}"
    if ":" in rest:
        parts = rest.split(":")
        if len(parts) != 3 or not parts[2].strip().isdigit() or int(parts[2]) < 1:
            raise InputError(None, _bad(where, "expected LOW:HIGH:N with N a whole number ≥ 1"))
        if too_many := _too_many_values(int(parts[2]), where):
            raise InputError(None, too_many)
        values = linspace(_float(parts[0], where), _float(parts[1], where), int(parts[2]))
    else:
        if too_many := _too_many_values(rest.count(",") + 1, where):
            raise InputError(None, too_many)
        values = tuple(_float(v, where) for v in rest.split(","))
    return Parameter(path, multiplier, values)


def parse_dist(text: str) -> Parameter:
    """``--dist PATH=NAME:A:B[:C[:D]]``: uniform:LOW:HIGH, triangular:LOW:MODE:HIGH,
    normal:MEAN:SD[:LOW:HIGH], lognormal:MEDIAN:SIGMA[:LOW:HIGH] (empty = unbounded)."""
    path, multiplier, rest = _split_flag(text, "--dist")
    where = f"--dist {text}"
    name, *numbers = rest.split(":")
    if name not in DIST_FIELDS:
        raise InputError(
            None,
            _bad(
                where,
                f"unknown distribution {name!r}{_did_you_mean(name, DIST_FIELDS)}",
                hint="uniform:LOW:HIGH, triangular:LOW:MODE:HIGH, normal:MEAN:SD[:LOW:HIGH], "
                "lognormal:MEDIAN:SIGMA[:LOW:HIGH]",
            ),
        )
    required, optional = DIST_FIELDS[name]
    keys = (*required, *optional)
    if not len(required) <= len(numbers) <= len(keys):
        raise InputError(None, _bad(where, f"{name} takes {':'.join(k.upper() for k in keys)}"))
    fields = {
        key: (_float(v, where) if v.strip() else None)
        for key, v in zip(keys, numbers, strict=False)
    }
    if any(fields.get(k) is None for k in required):
        raise InputError(None, _bad(where, f"{name} needs {', '.join(required)}"))
    try:
        return Parameter(path, multiplier, distribution=make_distribution(name, fields))
    except ValueError as exc:
        raise InputError(None, _bad(where, str(exc))) from None


def merge(spec: Spec | None, flags: Sequence[Parameter]) -> tuple[Parameter, ...]:
    """Spec-file parameters, then flags; a flag replaces a spec entry for the same path."""
    out = {p.path: p for p in (spec.parameters if spec else ())}
    for p in flags:
        out[p.path] = p
    return tuple(out.values())


def sample(parameters: Sequence[Parameter], samples: int, seed: int) -> list[tuple[float, ...]]:
    """``samples`` draws of every parameter's distribution (rows: samples).

    One uniform per (sample, parameter) from ``Generator(PCG64(seed))``, in row order,
    through the inverse CDF: the draws depend only on the seed and the spec.
    """
    missing = [p.path for p in parameters if p.distribution is None]
    if missing:
        raise InputError(
            None,
            [
                _bad(
                    path,
                    "needs a distribution for Monte Carlo",
                    hint="e.g. --dist PATH=uniform:LOW:HIGH",
                )
                for path in missing
            ],
        )
    uniforms = np.random.Generator(np.random.PCG64(seed)).random((samples, len(parameters)))
    return [
        tuple(float(p.distribution.ppf(float(u))) for p, u in zip(parameters, row, strict=True))  # type: ignore[union-attr]
        for row in uniforms
    ]
