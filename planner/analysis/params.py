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

Paths are checked against the base scenario before anything runs, with a did-you-mean.
A field the scenario leaves to the catalog (``hardware[h100-hgx].power_kw``) or to the
finance section (``sites[dc].pue``) is written into the base document first, with the
value it already had, so the base run is unchanged.

Sampling: one uniform number per (sample, parameter) from
``numpy.random.Generator(PCG64(seed))``, mapped through the distribution's inverse CDF.
Samples depend only on the seed and the spec (not on workers or executors), and the
first N samples of a bigger run are the N samples of a smaller one.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from planner.errors import InputError, Problem
from planner.scenario import paths
from planner.scenario.resolve import hardware_specs, model_specs
from planner.scenario.schema import Scenario
from planner.scenario.series import Fill, value_at
from planner.scenario.yamlio import Location, read_yaml

HOLD_FIELDS = frozenset({"power_cap_mw", "capex_usd", "max_units_per_year", "max_accelerators"})
"""Year-indexed fields held forward from the last given year (the rest interpolate)."""
SITE_DEFAULTS = frozenset({"pue", "electricity_usd_per_kwh", "facility_usd_per_kw_year"})
"""Site fields that default to the finance section's value."""
_TINY = 1e-12


# --- distributions -------------------------------------------------------------------


@dataclass(frozen=True)
class Uniform:
    low: float
    high: float

    def ppf(self, u: float) -> float:
        return self.low + u * (self.high - self.low)


@dataclass(frozen=True)
class Triangular:
    low: float
    mode: float
    high: float

    def ppf(self, u: float) -> float:
        width = self.high - self.low
        if width == 0:
            return self.low
        if u < (self.mode - self.low) / width:
            return self.low + math.sqrt(u * width * (self.mode - self.low))
        return self.high - math.sqrt((1 - u) * width * (self.high - self.mode))


@dataclass(frozen=True)
class Normal:
    """Normal(mean, sd), truncated to [low, high] (None: unbounded)."""

    mean: float
    sd: float
    low: float | None = None
    high: float | None = None

    def _bounds(self) -> tuple[NormalDist, float, float]:
        dist = NormalDist(self.mean, self.sd)
        a = 0.0 if self.low is None else dist.cdf(self.low)
        b = 1.0 if self.high is None else dist.cdf(self.high)
        return dist, a, b

    def mass(self) -> float:
        """Probability left between the bounds."""
        _, a, b = self._bounds()
        return b - a

    def ppf(self, u: float) -> float:
        dist, a, b = self._bounds()
        p = min(max(a + u * (b - a), _TINY), 1 - _TINY)
        x = dist.inv_cdf(p)
        return _clip(x, self.low, self.high)


@dataclass(frozen=True)
class LogNormal:
    """exp(Normal(ln median, sigma)), truncated to [low, high] (None: unbounded)."""

    median: float
    sigma: float
    low: float | None = None
    high: float | None = None

    def _log(self) -> Normal:
        return Normal(
            math.log(self.median),
            self.sigma,
            None if self.low is None else math.log(self.low),
            None if self.high is None else math.log(self.high),
        )

    def mass(self) -> float:
        return self._log().mass()

    def ppf(self, u: float) -> float:
        return _clip(math.exp(self._log().ppf(u)), self.low, self.high)


Distribution = Uniform | Triangular | Normal | LogNormal


def _clip(x: float, low: float | None, high: float | None) -> float:
    if low is not None:
        x = max(x, low)
    if high is not None:
        x = min(x, high)
    return x


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


@dataclass(frozen=True)
class Change:
    """Set (or multiply, when ``multiplier``) the number at ``path`` — plain, picklable data."""

    path: str
    value: float
    multiplier: bool = False


def _bad(where: str, message: str, *, hint: str | None = None, line: int | None = None) -> Problem:
    return Problem(path=where, message=message, hint=hint, line=line)


def _did_you_mean(word: str, options: Any) -> str:
    close = difflib.get_close_matches(word, [str(o) for o in options], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def linspace(low: float, high: float, count: int) -> tuple[float, ...]:
    """``count`` evenly spaced values from ``low`` to ``high`` (both included)."""
    if count == 1:
        return (float(low),)
    return tuple(float(low + (high - low) * i / (count - 1)) for i in range(count))


DIST_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "uniform": (("low", "high"), ()),
    "triangular": (("low", "mode", "high"), ()),
    "normal": (("mean", "sd"), ("low", "high")),
    "lognormal": (("median", "sigma"), ("low", "high")),
}
"""Each distribution's required and optional fields."""


def make_distribution(name: str, fields: Mapping[str, float | None]) -> Distribution:
    """Build and check a distribution; raises ValueError with a sentence on bad numbers."""

    def need(key: str) -> float:
        value = fields.get(key)
        if value is None:
            raise ValueError(f"a {name} distribution needs {key}")
        return float(value)

    low, high = fields.get("low"), fields.get("high")
    if low is not None and high is not None and not low < high:
        raise ValueError(f"low ({low:g}) must be below high ({high:g})")
    dist: Distribution
    if name == "uniform":
        dist = Uniform(need("low"), need("high"))
    elif name == "triangular":
        dist = Triangular(need("low"), need("mode"), need("high"))
        if not dist.low <= dist.mode <= dist.high:
            raise ValueError(f"mode ({dist.mode:g}) must lie between low and high")
    elif name == "normal":
        dist = Normal(need("mean"), need("sd"), low, high)
        if not dist.sd > 0:
            raise ValueError("sd must be positive")
    elif name == "lognormal":
        dist = LogNormal(need("median"), need("sigma"), low, high)
        if not dist.median > 0 or not dist.sigma > 0:
            raise ValueError("median and sigma must be positive")
        if low is not None and low <= 0:
            raise ValueError("a lognormal's low bound must be positive")
    else:
        raise ValueError(f"unknown distribution {name!r}; use one of {', '.join(DIST_FIELDS)}")
    if isinstance(dist, Normal | LogNormal) and dist.mass() < 1e-9:
        raise ValueError("the bounds leave (almost) no probability; widen them or move the centre")
    return dist


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
        values = linspace(_float(parts[0], where), _float(parts[1], where), int(parts[2]))
    else:
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


# --- paths against the scenario -------------------------------------------------------


def _split_year(path: str) -> tuple[str, int | None]:
    """``a.b.2028`` → (``a.b``, 2028); a path without a trailing year → (path, None)."""
    steps = paths.parse(path)
    if len(steps) > 1 and steps[-1].isdigit():
        return path[: path.rfind(".")], int(steps[-1])
    return path, None


def _fill(parent: str) -> Fill:
    return "hold" if paths.parse(parent)[-1] in HOLD_FIELDS else "geometric"


def _inherited(doc: dict[str, Any], scenario: Scenario, path: str) -> Any:
    """The number an unset field takes from the catalog or the finance section.

    Raises PathError (with a did-you-mean over every field the item may set) when
    ``path`` is not such a field.
    """
    steps = paths.parse(path)
    if len(steps) != 3 or not steps[1].startswith("["):
        raise paths.PathError("not an inherited field")
    section, field = steps[0], steps[2]
    item = doc[section][paths.locate(doc, path.rsplit(".", 1)[0])[1]]
    if section in ("hardware", "models"):
        specs = hardware_specs(scenario) if section == "hardware" else model_specs(scenario)
        spec = specs[item["id"]]
        if field not in type(spec).model_fields:
            known = [*type(spec).model_fields, "max_units_per_year"]
            raise paths.PathError(
                f"{section}[{item['id']}] has no field {field!r}{_did_you_mean(field, known)}"
            )
        return getattr(spec, field)
    if section == "sites" and field in SITE_DEFAULTS:
        return doc["finance"][field]
    raise paths.PathError("not an inherited field")


def _resolve(doc: dict[str, Any], scenario: Scenario, path: str) -> tuple[dict[str, Any], Any]:
    """The value at ``path``, writing an inherited value into ``doc`` when unset."""
    try:
        return doc, paths.get(doc, path)
    except paths.PathError as missing:
        try:
            value = _inherited(doc, scenario, path)
        except paths.PathError as inherited:
            if "not an inherited field" in str(inherited):
                raise missing from None
            raise
        if value is None:
            raise paths.PathError(
                f"{path} is not set and inherits no number; set it in the scenario first"
            ) from None
        return paths.set_value(doc, path, value), value


def prepare(
    scenario: Scenario, parameters: Sequence[Parameter], source: str | None = None
) -> tuple[dict[str, Any], dict[str, float | None]]:
    """The base document (inherited values written out) and each path's base value.

    The document is ``scenario.model_dump`` without unset (None) fields, so list items
    are found by their ``name`` or ``id``. ``source`` names where the parameters came
    from (a spec file) for the error. The base value of a multiplier on a whole series
    is None (it has one per year). Raises InputError, with a did-you-mean, for any path
    that names no number.
    """
    doc = scenario.model_dump(mode="python", exclude_none=True)
    years = scenario.horizon.year_list
    base: dict[str, float | None] = {}
    problems: list[Problem] = []
    for p in parameters:
        parent, year = _split_year(p.path)
        try:
            doc, node = _resolve(doc, scenario, parent)
        except paths.PathError as exc:
            hint = None if "did you mean" in str(exc) else "write a path such as finance.wacc"
            problems.append(_bad(p.path, str(exc), hint=hint))
            continue
        if _number(node):
            value: float | None = float(node)
        elif isinstance(node, dict) and node and all(_number(v) for v in node.values()):
            value = None
        else:
            found = "true/false" if isinstance(node, bool) else repr(node)[:60]
            problems.append(_bad(p.path, f"names no number (found {found})"))
            continue
        if year is not None:
            if year not in years:
                problems.append(
                    _bad(p.path, f"{year} is outside the horizon {years[0]}-{years[-1]}")
                )
                continue
            value = value_at(node, year, _fill(parent))
        elif value is None and not p.multiplier:
            problems.append(
                _bad(
                    p.path,
                    "this value differs by year",
                    hint=f"vary one year ({p.path}.{years[0]}) or the whole series as a "
                    f"multiplier ({p.path}*=0.8:1.2:3, or multiplier: true in a spec)",
                )
            )
            continue
        base[p.path] = value
    if problems:
        raise InputError(source, problems)
    return doc, base


def apply_changes(doc: dict[str, Any], changes: Sequence[Change], years: list[int]) -> dict:
    """A copy of ``doc`` with ``changes`` applied in order (paths already checked).

    A whole-number field (units, years) gets the nearest whole number.
    """
    for change in changes:
        parent, year = _split_year(change.path)
        current = paths.get(doc, parent)
        if year is not None:
            fill = _fill(parent)
            series = {y: value_at(current, y, fill) for y in years}
            series[year] = series[year] * change.value if change.multiplier else change.value
            doc = paths.set_value(doc, parent, series)
            continue
        if isinstance(current, dict):
            new: Any = {y: v * change.value for y, v in current.items()}
        else:
            new = current * change.value if change.multiplier else change.value
            if isinstance(current, int) and not isinstance(current, bool):
                new = round(new)
        doc = paths.set_value(doc, parent, new)
    return doc


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
