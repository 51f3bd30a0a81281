"""Semantic checks run on a schema-valid scenario before anything is built.

Each ``check_*`` function returns a list of problems; every message says how to fix
the input. ``check_scenario`` runs them all.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import BYTES_PER_PARAM
from planner.catalog.software import check_software
from planner.errors import Problem
from planner.scenario.custom_rows import custom_row_problems
from planner.scenario.foresight_checks import check_foresight
from planner.scenario.futures import check_uncertainty
from planner.scenario.procurement_checks import check_procurement
from planner.scenario.resolve import hardware_spec, model_spec
from planner.scenario.schema import Scenario
from planner.scenario.series import YearValue, given_years
from planner.scenario.timing_checks import check_timing
from planner.scenario.training_checks import check_rollouts, check_training_durations
from planner.units import NO_CALIBRATION

# Share of accelerator memory usable for weights and KV cache (the rest holds
# activations, the runtime and fragmentation).
USABLE_MEMORY_FRACTION = 0.9


@dataclass(frozen=True)
class Withheld:
    """Entries of the file left out of these checks because they have type problems.

    The checks then run on the rest of the file (:mod:`planner.scenario.salvage`); a
    reference to a withheld entry is not reported as a reference to nothing.
    """

    names: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Per kind (``site``, ``hardware``, ``model``, ``vendor``): names of withheld entries."""
    any_name: frozenset[str] = frozenset()
    """Kinds with a withheld entry whose name cannot be read: no reference of the kind
    is reported."""
    hardware: tuple[str, ...] = ()
    """``hardware[3] 'h100-hgx'`` for each withheld hardware entry (the fit check's note)."""
    horizon: bool = False
    """The horizon itself has a type problem: the year checks are skipped."""

    def lists(self, kind: str, name: str) -> bool:
        """Whether ``name`` may be a withheld entry of ``kind``."""
        return kind in self.any_name or name in self.names.get(kind, frozenset())


NOTHING_WITHHELD = Withheld()


def _did_you_mean(word: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.5)
    return f"did you mean {close[0]!r}?" if close else ""


def _unknown(path: str, kind: str, value: str, options: list[str], section: str) -> Problem:
    hint = _did_you_mean(value, options)
    return Problem(
        path=path,
        message=f"names a {kind} that the scenario does not list",
        found=repr(value),
        expected=f"one of: {', '.join(options) or '(none)'}",
        hint=hint or f"add it under {section}: or correct the name",
    )


def check_unique_names(scenario: Scenario) -> list[Problem]:
    """Ids of sites, hardware, models, runs and workloads are unique within their section."""
    problems = []
    sections: dict[str, list[str]] = {
        "sites": [s.name for s in scenario.sites],
        "hardware": [h.id for h in scenario.hardware],
        "models": [m.id for m in scenario.models],
        "training": [r.name for r in scenario.training],
        "inference": [w.name for w in scenario.inference],
    }
    for section, names in sections.items():
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name in seen:
                problems.append(
                    Problem(
                        path=f"{section}[{i}]",
                        message=f"duplicate name {name!r}",
                        hint="give each entry its own name",
                    )
                )
            seen.add(name)
    run_names = set(sections["training"])
    for i, w in enumerate(scenario.inference):
        if w.name in run_names:
            problems.append(
                Problem(
                    path=f"inference[{i}].name",
                    message=f"{w.name!r} is also a training run name",
                    hint="use distinct names for runs and workloads",
                )
            )
    return problems


def check_catalog_rows(scenario: Scenario) -> list[Problem]:
    """Every hardware and model entry resolves to a valid catalog row (with overrides)."""
    problems = []
    sections: list[tuple[str, Sequence[Any], Mapping[str, object], Callable[[Any], object]]] = [
        ("hardware", scenario.hardware, hardware_catalog(), hardware_spec),
        ("models", scenario.models, model_catalog(), model_spec),
    ]
    for section, choices, catalog, resolve in sections:
        for i, choice in enumerate(choices):
            try:
                resolve(choice)
            except ValidationError as exc:
                if choice.id not in catalog and choice.overrides():  # a row of its own
                    problems += custom_row_problems(section, i, choice, exc)
                    continue
                if choice.id not in catalog:
                    hint = _did_you_mean(choice.id, catalog)
                    problems.append(
                        Problem(
                            path=f"{section}[{i}].id",
                            message=f"{choice.id!r} is not in the catalog and not fully specified",
                            found=repr(choice.id),
                            expected="a catalog id (see `planner "
                            + ("hardware" if section == "hardware" else "models")
                            + " list`) or every architecture field",
                            hint=hint or "use a catalog id or give every field",
                        )
                    )
                    continue
                for err in exc.errors():
                    field = ".".join(str(p) for p in err["loc"]) or "id"
                    problems.append(
                        Problem(
                            path=f"{section}[{i}].{field}",
                            message=err["msg"],
                            found=repr(err.get("input"))[:80],
                        )
                    )
    return problems


def scenario_vendors(scenario: Scenario) -> set[str]:
    """The vendors of the scenario's hardware (catalog rows and its own)."""
    catalog = hardware_catalog()
    vendors = {catalog[h.id].vendor for h in scenario.hardware if h.id in catalog}
    return vendors | {h.vendor for h in scenario.hardware if h.vendor}


def check_references(scenario: Scenario, withheld: Withheld = NOTHING_WITHHELD) -> list[Problem]:
    """Runs, workloads, rentals and fleet rows name models, hardware and sites that exist."""
    vendors = scenario_vendors(scenario)
    listed: dict[str, list[str]] = {
        "site": [s.name for s in scenario.sites],
        "hardware": [h.id for h in scenario.hardware],
        "model": [m.id for m in scenario.models],
        "vendor": sorted(vendors),
    }
    section = {"site": "sites", "hardware": "hardware", "model": "models", "vendor": "hardware"}
    refs: list[tuple[str, str, str]] = []  # (path, kind, name)
    refs += [(f"training[{i}].model", "model", r.model) for i, r in enumerate(scenario.training)]
    refs += [(f"inference[{i}].model", "model", w.model) for i, w in enumerate(scenario.inference)]
    refs += [
        (f"rental[{i}].hardware", "hardware", r.hardware) for i, r in enumerate(scenario.rental)
    ]
    for i, f in enumerate(scenario.existing_fleet):
        refs += [(f"existing_fleet[{i}].hardware", "hardware", f.hardware)]
        refs += [(f"existing_fleet[{i}].site", "site", f.site)]
    for i, o in enumerate(scenario.on_order):
        refs += [(f"on_order[{i}].hardware", "hardware", o.hardware)]
        refs += [(f"on_order[{i}].site", "site", o.site)]
    for i, h in enumerate(scenario.hardware):
        refs += [(f"hardware[{i}].sites[{j}]", "site", s) for j, s in enumerate(h.sites or [])]
    refs += [(f"vendor_share_max.{v}", "vendor", v) for v in scenario.vendor_share_max]
    return [
        _unknown(path, kind, name, listed[kind], section[kind])
        for path, kind, name in refs
        if name not in listed[kind] and not withheld.lists(kind, name)
    ]


def check_years(scenario: Scenario, withheld: Withheld = NOTHING_WITHHELD) -> list[Problem]:
    """Windows and year-indexed keys lie inside the horizon; fleets are installed by its start."""
    if withheld.horizon:
        return []
    problems = []
    start, end = scenario.horizon.start, scenario.horizon.end
    span = f"{start}..{end}"
    for i, run in enumerate(scenario.training):
        for j, year in enumerate(run.window):
            if not start <= year <= end:
                problems.append(
                    Problem(
                        path=f"training[{i}].window[{j}]",
                        message="window year outside the horizon",
                        found=str(year),
                        expected=f"a year in {span}",
                        hint="move the window or extend horizon.years",
                    )
                )
    for i, f in enumerate(scenario.existing_fleet):
        if f.installed > start:
            problems.append(
                Problem(
                    path=f"existing_fleet[{i}].installed",
                    message="existing fleet must be installed by the horizon start",
                    found=str(f.installed),
                    expected=f"a year <= {start}",
                    hint="planned purchases are the optimiser's decision; drop the row or the year",
                )
            )
    series: list[tuple[str, YearValue | None]] = [
        ("finance.electricity_usd_per_kwh", scenario.finance.electricity_usd_per_kwh),
        ("finance.facility_usd_per_kw_year", scenario.finance.facility_usd_per_kw_year),
        ("budget.capex_usd", scenario.budget.capex_usd),
    ]
    for i, s in enumerate(scenario.sites):
        series += [
            (f"sites[{i}].power_cap_mw", s.power_cap_mw),
            (f"sites[{i}].electricity_usd_per_kwh", s.electricity_usd_per_kwh),
            (f"sites[{i}].facility_usd_per_kw_year", s.facility_usd_per_kw_year),
        ]
    for i, h in enumerate(scenario.hardware):
        series += [
            (f"hardware[{i}].price_usd", h.price_usd),
            (f"hardware[{i}].max_units_per_year", h.max_units_per_year),
        ]
    for i, r in enumerate(scenario.rental):
        series += [
            (f"rental[{i}].usd_per_accelerator_hour", r.usd_per_accelerator_hour),
            (f"rental[{i}].max_accelerators", r.max_accelerators),
        ]
    for i, w in enumerate(scenario.inference):
        series.append((f"inference[{i}].tokens_per_day", w.tokens_per_day))
    for path, value in series:
        for year in given_years(value):
            if not start <= year <= end:
                problems.append(
                    Problem(
                        path=f"{path}.{year}",
                        message="year outside the horizon",
                        found=str(year),
                        expected=f"a year in {span}",
                        hint="drop that year or extend the horizon",
                    )
                )
    return problems


def check_models_fit(scenario: Scenario, withheld: Withheld = NOTHING_WITHHELD) -> list[Problem]:
    """Each served model's weights fit in the scale-up domain of at least one listed system.

    A coarse memory check (weights at the workload's precision within
    ``USABLE_MEMORY_FRACTION`` of the domain's memory); the performance model does the
    full replica sizing with the KV cache.
    """
    problems = []
    # A row with its own problem (unknown id, bad override: check_catalog_rows reports
    # it) is left out, so the other rows are still checked in the same pass.
    specs, broken = [], list(withheld.hardware)
    for i, h in enumerate(scenario.hardware):
        try:
            specs.append(hardware_spec(h))
        except ValidationError:
            broken.append(f"hardware[{i}] {h.id!r}")
    models = {}
    for m in scenario.models:
        try:
            models[m.id] = model_spec(m)
        except ValidationError:
            continue
    if broken:
        which = "which has its own problem" if len(broken) == 1 else "which have their own problems"
        not_counting = f" (not counting {', '.join(broken)}, {which})"
    else:
        not_counting = ""
    for i, w in enumerate(scenario.inference):
        model = models.get(w.model)
        if model is None:
            continue
        weight_gb = model.total_params_b * BYTES_PER_PARAM[w.precision]
        room = {
            h.id: h.scale_up_domain * h.memory_gb * USABLE_MEMORY_FRACTION
            for h in specs
            if not h.prefill_only
        }
        if not any(gb >= weight_gb for gb in room.values()):
            best = max(room.items(), key=lambda kv: kv[1], default=("none", 0.0))
            problems.append(
                Problem(
                    path=f"inference[{i}].model",
                    message=f"model {w.model!r} fits on no listed hardware{not_counting}",
                    found=f"{weight_gb:,.0f} GB of weights at {w.precision}; "
                    f"largest scale-up domain listed holds {best[1]:,.0f} GB ({best[0]})",
                    expected="a system whose scale-up domain holds the weights",
                    hint="add larger-memory hardware (e.g. gb200-nvl72) or a lower precision",
                )
            )
    return problems


def check_calibration_file(scenario: Scenario, base_dir: Path) -> list[Problem]:
    """A named calibration file exists and is a regular file (``none``: the built-in
    efficiency priors, no file)."""
    if scenario.calibration in (None, NO_CALIBRATION):
        return []
    path = base_dir / scenario.calibration
    hint = "run `planner calibrate BENCH.csv --out FILE` or remove the key"
    if not path.exists():
        return [
            Problem(
                path="calibration", message="calibration file not found", found=str(path), hint=hint
            )
        ]
    if not path.is_file():  # links are followed: a link to /dev/zero is a device
        return [
            Problem(
                path="calibration",
                message="is a device, pipe or folder; only regular files are read",
                found=str(path),
                hint=hint,
            )
        ]
    return []


def check_scenario(
    scenario: Scenario, base_dir: Path = Path("."), withheld: Withheld = NOTHING_WITHHELD
) -> list[Problem]:
    """Run every semantic check; return all problems found, in one pass.

    ``withheld``: entries of the file with type problems, already left out of
    ``scenario`` (see :mod:`planner.scenario.salvage`).
    """
    problems = check_unique_names(scenario) + check_catalog_rows(scenario)
    problems += check_references(scenario, withheld) + check_years(scenario, withheld)
    problems += check_calibration_file(scenario, base_dir) + check_training_durations(scenario)
    problems += check_rollouts(scenario)
    if not withheld.horizon:  # terms and lead times are read against the horizon
        problems += check_procurement(scenario) + check_timing(scenario)
    # A vendor the scenario has no hardware of may be named (a vendors analysis drops
    # the others' hardware); a misspelt one is refused, as no stacks list it.
    problems += check_foresight(scenario) + check_software(scenario.software)
    problems += check_uncertainty(scenario)
    return problems + check_models_fit(scenario, withheld)  # all in one pass
