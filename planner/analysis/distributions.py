"""Distributions of Monte Carlo parameters, each sampled through its inverse CDF.

``uniform``, ``triangular``, ``normal`` and ``lognormal``; normal and lognormal may be
truncated to ``[low, high]``. :func:`make_distribution` builds and checks one from the
fields a spec file or a ``--dist`` flag gives (:data:`DIST_FIELDS`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist

_TINY = 1e-12


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
