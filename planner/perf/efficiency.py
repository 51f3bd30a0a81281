"""Efficiency factors of the inference performance model, their defaults and calibration files.

The roofline in :mod:`planner.perf.inference` divides bytes by *achieved* bandwidth and
FLOPs by *achieved* compute. The factors that turn spec-sheet peaks into achieved rates:

``eta_bw`` (η_bw)
    Share of peak memory bandwidth a decode step achieves (weight and KV-cache reads).
``eta_c`` (η_c)
    Share of dense peak FLOP/s the decode GEMMs and attention achieve.
``prefill_mfu``
    Model-FLOPs utilisation of prefill (compute-bound, large token batches).
``t_overhead_s``
    Fixed time per decode step, seconds: scheduling, sampling, kernel launches, host sync.
``eta_moe``
    Grouped-GEMM kernels (routing, token permutation, expert GEMMs) reach this share of
    the dense GEMM efficiency; multiplies the expert compute of decode (on top of the
    tile efficiency ``m / (m + 64)`` at ``m`` tokens per expert) and ``prefill_mfu``,
    for MoE models only. It never derates memory bandwidth.
``eta_comm``
    Share of the scale-up (``scale_up_gbps``) and scale-out (``scale_out_gbps``) link
    bandwidth that collectives reach: tensor-parallel all-reduce and expert-parallel
    all-to-all.
``t_layer_s``
    Launch and synchronisation time per layer of every decode step (kernel boundaries
    that CUDA graphs do not hide), seconds.
``expert_imbalance``
    Tokens of the busiest accelerator's experts over the mean under expert parallelism
    (EPLB-balanced deployments report 1.1-1.3); multiplies expert compute.

The default: the shipped calibration
------------------------------------
Unless told otherwise, every command and library call uses the calibration shipped in
``planner/perf/data/serving-calibration.yaml`` (:func:`default_calibration`), which
``planner calibrate`` fits from the built-in priors below on the two benchmark files in
``tests/data`` (MLPerf Inference v4.1 closed and published DeepSeek-V3/R1 serving
points); a test re-runs that fit and requires the shipped file back. A scenario's
``calibration`` key or ``--calibration FILE`` replaces it; ``calibration: none`` and
``--calibration none`` (:data:`~planner.units.NO_CALIBRATION`; :data:`BUILTIN_PRIORS`
in the library) give the raw priors.
Families and precisions the benchmark files have no rows for keep their priors.

Where the priors come from
--------------------------
They are engineering priors, the starting point of ``planner calibrate`` (on the
MLPerf Inference v4.1 fixture in ``tests/data`` they give a median absolute error of
~13% before calibration, ~7% after):

* ``eta_bw`` 0.80 on NVIDIA HBM parts: bandwidth microbenchmarks reach ~90% of the
  H100/H200 spec; memory-bound decode GEMV and paged-attention kernels lose a little more.
  AMD CDNA 0.65: published MI300X microbenchmarks reach a lower share of its 5.3 TB/s,
  and its decode kernels are less tuned.
* ``eta_c`` 0.55 (NVIDIA), 0.40 (AMD, Gaudi, Trainium): large decode batches are
  skinny GEMMs plus attention; dense training MFU on the same parts is ~0.4-0.5.
* ``prefill_mfu``: 0.50 at bf16, lower at fp8 / fp4 (0.40 / 0.30) because the
  non-GEMM work does not speed up with the narrower format. Where the narrower format
  has no faster units (Trainium3 runs MXFP4 at the MXFP8 rate, Gaudi 3 FP8 at the BF16
  rate) nothing speeds up, so that family keeps the wider format's MFU.
* ``t_overhead_s`` 2 ms: per-step CPU and launch overhead of vLLM / SGLang /
  TensorRT-LLM with CUDA graphs is 1-3 ms.
* ``eta_moe`` 0.70: grouped-GEMM kernels over uneven per-expert batches (DeepGEMM
  reports 1,000-1,350 fp8 TFLOPS for grouped GEMMs on H800 at large M, ~55-70% of the
  dense peak, and less at small M); refit by ``planner calibrate`` on MoE rows.
* ``t_layer_s`` 10 µs per layer and ``expert_imbalance`` 1.2: engineering priors
  (per-layer kernel boundaries of 5-15 µs under CUDA graphs; DeepSeek's EPLB balances
  experts to within ~20%).
* ``eta_comm`` 0.75: DeepEP reports ~150 GB/s of all-to-all over H800 NVLink
  (~200 GB/s per direction) and 40-58 GB/s over 50 GB/s InfiniBand.
* ``kv_overlap`` 1: KV reads and attention FLOPs hide behind the GEMMs (one max over
  all bytes and all FLOPs). 0 times a layer's attention kernel after its GEMMs, each
  bound by its own bytes or FLOPs: on TensorRT-LLM's perf-overview rows, which nothing
  is fitted on, ``shared: {kv_overlap: 0}`` in a calibration file takes the dense
  median error from 21% to 11% and the MoE median from 74% to 42% (planner fidelity);
  not yet the default, because it moves every plan the tests pin by hand.

Calibration file (YAML)
-----------------------
Written by ``planner calibrate``; named by a scenario's ``calibration`` key::

    format: planner-calibration/1
    note: fitted on bench.csv (10 rows)     # free text, optional
    shared:                                 # optional: every family and precision
      eta_bw: 0.78
    families:                               # optional: per hardware family
      hopper:
        all: {t_overhead_s: 0.0015}         # any precision of this family
        fp8: {eta_bw: 0.81, eta_c: 0.47, prefill_mfu: 0.42, eta_moe: 0.5}

Every entry may give any subset of the factors. A factor for (family, precision) is
looked up most specific last: built-in shared, built-in family, built-in (family,
precision), then the file's shared, family and (family, precision) entries.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from planner import safe_io
from planner.catalog.schema import PRECISIONS
from planner.errors import InputError, Problem
from planner.scenario.yamlio import parse_yaml
from planner.units import NO_CALIBRATION

CALIBRATION_FORMAT = "planner-calibration/1"
ANY_PRECISION = "all"

# (lower, upper) bound of each factor; a calibration file outside them is rejected.
FACTOR_BOUNDS: dict[str, tuple[float, float]] = {
    "eta_bw": (0.01, 1.0),
    "eta_c": (0.01, 1.0),
    "prefill_mfu": (0.01, 1.0),
    "t_overhead_s": (0.0, 1.0),
    "eta_moe": (0.01, 1.0),
    "eta_comm": (0.01, 1.0),
    "t_layer_s": (0.0, 0.001),
    "expert_imbalance": (1.0, 4.0),
    "kv_overlap": (0.0, 1.0),
}
_ZERO_ALLOWED = ("t_overhead_s", "t_layer_s", "kv_overlap")


@dataclass(frozen=True)
class Efficiency:
    """Achieved shares of peak for one hardware family and precision (see module doc)."""

    eta_bw: float = 0.75
    """Share of peak memory bandwidth achieved in decode."""
    eta_c: float = 0.50
    """Share of dense peak FLOP/s achieved in decode GEMMs and attention."""
    prefill_mfu: float = 0.45
    """Model-FLOPs utilisation of prefill."""
    t_overhead_s: float = 0.002
    """Fixed time per decode step, s."""
    eta_moe: float = 0.70
    """Grouped-GEMM (expert) kernels' share of dense-GEMM efficiency; also scales MoE
    prefill MFU (MoE models only). Never scales memory bandwidth."""
    eta_comm: float = 0.75
    """Share of scale-up and scale-out link bandwidth achieved by collectives."""
    t_layer_s: float = 10e-6
    """Launch and synchronisation overhead per layer per decode step, s."""
    expert_imbalance: float = 1.2
    """Busiest accelerator's expert tokens over the mean under expert parallelism."""
    kv_overlap: float = 1.0
    """Share of a decode step's attention phase (KV reads, score FLOPs) hidden behind its
    GEMM phase: 1 (the raw roofline's assumption) takes one max over all bytes and all
    FLOPs, 0 times a layer's attention kernel after its GEMMs, each bound by its own
    bytes or FLOPs (set it in a calibration file's ``shared`` entry)."""

    def __post_init__(self) -> None:
        for name, (low, high) in FACTOR_BOUNDS.items():
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value)):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            if not low <= value <= high or (name not in _ZERO_ALLOWED and value <= 0):
                raise ValueError(f"{name} must lie in [{low}, {high}], got {value}")

    def replace(self, **changes: float) -> Efficiency:
        """A copy with some factors changed."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in dataclasses.fields(self)}


FACTOR_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Efficiency))

# Partial overrides: {factor: value}.
Layer = dict[str, float]


def _precision_layers(bf16: float, fp8: float, fp4: float) -> dict[str, Layer]:
    return {
        "bf16": {"prefill_mfu": bf16},
        "fp8": {"prefill_mfu": fp8},
        "fp4": {"prefill_mfu": fp4},
    }


_NVIDIA: dict[str, Layer] = {
    ANY_PRECISION: {"eta_bw": 0.80, "eta_c": 0.55, "t_overhead_s": 0.002},
    **_precision_layers(0.50, 0.40, 0.30),
}
_LESS_TUNED: dict[str, Layer] = {
    ANY_PRECISION: {"eta_bw": 0.70, "eta_c": 0.40, "t_overhead_s": 0.003},
    **_precision_layers(0.40, 0.32, 0.25),
}

BUILTIN_SHARED: Layer = Efficiency().as_dict()
"""Shared fallback for families without their own defaults."""

BUILTIN_FAMILIES: dict[str, dict[str, Layer]] = {
    "hopper": _NVIDIA,
    "blackwell": _NVIDIA,
    "blackwell-ultra": _NVIDIA,
    "rubin": _NVIDIA,
    "rubin-cpx": _NVIDIA,
    "ada": _NVIDIA,
    "cdna3": {**_LESS_TUNED, ANY_PRECISION: {"eta_bw": 0.65, "eta_c": 0.40, "t_overhead_s": 0.003}},
    "cdna4": _LESS_TUNED,
    "gaudi": {**_LESS_TUNED, "fp8": _LESS_TUNED["bf16"]},  # FP8 at the BF16 rate
    "trainium": _LESS_TUNED,
    "trainium3": {**_LESS_TUNED, "fp4": _LESS_TUNED["fp8"]},  # MXFP4 at the MXFP8 rate
    "tpu": {
        ANY_PRECISION: {"eta_bw": 0.75, "eta_c": 0.50, "t_overhead_s": 0.002},
        **_precision_layers(0.50, 0.40, 0.30),
    },
}


@dataclass(frozen=True)
class EfficiencyTable:
    """Efficiency factors by hardware family and precision: built-ins plus a calibration.

    ``shared`` and ``families`` are the calibration's entries (empty: built-ins only);
    ``families[family][precision or "all"]`` is a partial override.
    """

    shared: Layer = field(default_factory=dict)
    families: Mapping[str, Mapping[str, Layer]] = field(default_factory=dict)
    note: str = ""

    def lookup(self, family: str, precision: str) -> Efficiency:
        """The factors for ``family`` at ``precision`` (most specific entry wins)."""
        builtin = BUILTIN_FAMILIES.get(family, {})
        calibrated = self.families.get(family, {})
        layers = [
            BUILTIN_SHARED,
            builtin.get(ANY_PRECISION, {}),
            builtin.get(precision, {}),
            self.shared,
            calibrated.get(ANY_PRECISION, {}),
            calibrated.get(precision, {}),
        ]
        values: dict[str, float] = {}
        for layer in layers:
            values.update(layer)
        return Efficiency(**values)

    def with_entry(self, family: str | None, precision: str, values: Layer) -> EfficiencyTable:
        """A copy with one entry set (``family=None``: the shared entry)."""
        if family is None:
            return dataclasses.replace(self, shared={**self.shared, **values})
        families = {f: dict(p) for f, p in self.families.items()}
        families.setdefault(family, {})[precision] = {
            **families.get(family, {}).get(precision, {}),
            **values,
        }
        return dataclasses.replace(self, families=families)

    def to_document(self) -> dict[str, Any]:
        """The YAML document of this calibration (see module doc for the format)."""
        doc: dict[str, Any] = {"format": CALIBRATION_FORMAT}
        if self.note:
            doc["note"] = self.note
        if self.shared:
            doc["shared"] = {k: _round(v) for k, v in self.shared.items()}
        if self.families:
            doc["families"] = {
                fam: {p: {k: _round(v) for k, v in layer.items()} for p, layer in precs.items()}
                for fam, precs in self.families.items()
            }
        return doc


def _round(value: float) -> float:
    return float(f"{value:.4g}")


BUILTIN_PRIORS = EfficiencyTable()
"""The built-in priors alone, no calibration (``--calibration none``); what
``planner calibrate`` fits from."""


DEFAULT_CALIBRATION_FILE = "data/serving-calibration.yaml"
"""The shipped default calibration, relative to the ``planner.perf`` package."""


@lru_cache(maxsize=1)
def default_calibration() -> EfficiencyTable:
    """The shipped calibration (:data:`DEFAULT_CALIBRATION_FILE`): the default wherever no
    calibration is named (see module doc)."""
    source = resources.files("planner.perf").joinpath(DEFAULT_CALIBRATION_FILE)
    return parse_calibration(source.read_text("utf-8"), f"planner/perf/{DEFAULT_CALIBRATION_FILE}")


def calibration_table(path: str | Path | None) -> EfficiencyTable:
    """The calibration a ``--calibration`` value or a scenario's ``calibration`` names:
    None → :func:`default_calibration`, ``"none"`` (:data:`~planner.units.NO_CALIBRATION`)
    → :data:`BUILTIN_PRIORS`, else the file (:func:`load_calibration`)."""
    if path is None:
        return default_calibration()
    if str(path) == NO_CALIBRATION:
        return BUILTIN_PRIORS
    return load_calibration(path)


def calibration_file(path: str | Path | None) -> Path | None:
    """The file a ``--calibration`` value names; None for the default and for ``none``."""
    return None if path is None or str(path) == NO_CALIBRATION else Path(path)


def calibration_label(path: str | Path | None) -> str:
    """What a command says it used: the file named, ``none (built-in priors)``, or the
    shipped default (where a family and precision have no fitted entry, its priors)."""
    if path is None:
        return (
            f"the shipped default (planner/perf/{DEFAULT_CALIBRATION_FILE}, fitted on MLPerf "
            "Inference v4.1 and DeepSeek-V3/R1 serving points; priors elsewhere)"
        )
    file = calibration_file(path)
    return str(file) if file else f"{NO_CALIBRATION} (built-in priors)"


def resolve_efficiency(
    efficiency: Efficiency | EfficiencyTable | None, family: str, precision: str
) -> Efficiency:
    """One set of factors: a fixed ``Efficiency`` as given, else looked up by family in
    ``efficiency`` (None: the shipped :func:`default_calibration`)."""
    if isinstance(efficiency, Efficiency):
        return efficiency
    table = default_calibration() if efficiency is None else efficiency
    return table.lookup(family, precision)


def save_calibration(table: EfficiencyTable, path: str | Path) -> None:
    """Write ``table`` as a calibration YAML file."""
    header = (
        "# planner calibration: efficiency factors of the inference model.\n"
        "# Format: see planner/perf/efficiency.py. Name this file in a scenario's\n"
        "# `calibration:` key, or pass it to `planner perf-check --calibration`.\n"
    )
    text = yaml.safe_dump(table.to_document(), sort_keys=False)
    Path(path).write_text(header + text, encoding="utf-8")


def _layer(raw: Any, where: str, file: str) -> Layer:
    if not isinstance(raw, dict):
        raise InputError(
            file,
            Problem(
                path=where,
                message="expected a mapping of factor names to numbers",
                found=repr(raw)[:80],
                expected="e.g. {eta_bw: 0.8, eta_c: 0.5}",
            ),
        )
    out: Layer = {}
    for key, value in raw.items():
        if key not in FACTOR_NAMES:
            close = difflib.get_close_matches(str(key), FACTOR_NAMES, n=1)
            raise InputError(
                file,
                Problem(
                    path=f"{where}.{key}",
                    message=f"unknown efficiency factor {key!r}",
                    expected="one of: " + ", ".join(FACTOR_NAMES),
                    hint=f"did you mean {close[0]!r}?" if close else None,
                ),
            )
        low, high = FACTOR_BOUNDS[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(
                file,
                Problem(path=f"{where}.{key}", message="expected a number", found=repr(value)),
            )
        if not (math.isfinite(value) and low <= value <= high) or (
            key not in _ZERO_ALLOWED and value <= 0
        ):
            raise InputError(
                file,
                Problem(
                    path=f"{where}.{key}",
                    message="value out of range",
                    found=repr(value),
                    expected=f"a number in ({low}, {high}]",
                ),
            )
        out[str(key)] = float(value)
    return out


MAX_CALIBRATION_BYTES = 1_000_000
"""The largest calibration file read (a fitted one holds a few kilobytes)."""


def load_calibration(path: str | Path) -> EfficiencyTable:
    """Read a calibration YAML file; raise :class:`InputError` naming the bad entry."""
    text = safe_io.read_text(path, limit=MAX_CALIBRATION_BYTES, what="calibration file")
    return parse_calibration(text, str(path))


def parse_calibration(text: str, file: str) -> EfficiencyTable:
    """The calibration in ``text`` (read from ``file``, named in errors)."""
    not_calibration = Problem(
        path="",
        message="is not a calibration file (its content is not shown)",
        expected="a YAML mapping with keys format, note, shared, families",
        hint="run `planner calibrate BENCH.csv --out FILE` to make one",
    )
    try:
        doc = parse_yaml(text, file)[0]  # bounded: no alias bombs, no deep nesting
    except InputError:
        raise InputError(file, not_calibration) from None
    if not isinstance(doc, dict) or not set(doc) <= {"format", "note", "shared", "families"}:
        raise InputError(file, not_calibration)
    if doc.get("format", CALIBRATION_FORMAT) != CALIBRATION_FORMAT:
        raise InputError(
            file,
            Problem(
                path="format",
                message="unsupported format",
                found=repr(doc.get("format")),
                expected=CALIBRATION_FORMAT,
            ),
        )
    shared = _layer(doc.get("shared") or {}, "shared", file)
    families: dict[str, dict[str, Layer]] = {}
    raw_families = doc.get("families") or {}
    if not isinstance(raw_families, dict):
        raise InputError(file, Problem(path="families", message="expected a mapping of families"))
    allowed = (ANY_PRECISION, *PRECISIONS)
    for family, precisions in raw_families.items():
        if not isinstance(precisions, dict):
            raise InputError(
                file,
                Problem(
                    path=f"families.{family}",
                    message="expected a mapping of precisions",
                    expected=", ".join(allowed),
                ),
            )
        families[str(family)] = {}
        for precision, raw in precisions.items():
            if precision not in allowed:
                raise InputError(
                    file,
                    Problem(
                        path=f"families.{family}.{precision}",
                        message=f"unknown precision {precision!r}",
                        expected="one of: " + ", ".join(allowed),
                    ),
                )
            where = f"families.{family}.{precision}"
            families[str(family)][str(precision)] = _layer(raw, where, file)
    return EfficiencyTable(shared=shared, families=families, note=str(doc.get("note") or ""))
