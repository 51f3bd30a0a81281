"""Scale-out network and storage per unit, when the scenario counts them with the unit.

With ``finance.network_and_storage: true`` every unit bought costs its price plus its
accelerators' network and storage capex from the offers catalog (and is maintained on
that), and every unit installed draws their IT power too. The optimiser's model data and
the unit-cost quotes both read these functions, so they charge the same.
"""

from __future__ import annotations

from collections.abc import Mapping

from planner.catalog import offer_catalog
from planner.catalog.schema import HardwareSpec
from planner.scenario.schema import Scenario


def network_storage_usd_per_unit(scenario: Scenario, spec: HardwareSpec) -> float:
    """Network and storage capex of one unit, USD (0 unless the scenario counts them)."""
    offer = offer_catalog().get(spec.id)
    if not scenario.finance.network_and_storage or offer is None:
        return 0.0
    return spec.accelerators * offer.network_storage_usd_per_accelerator


def network_storage_kw_per_unit(scenario: Scenario, spec: HardwareSpec) -> float:
    """Network and storage IT power of one unit, kW (0 unless the scenario counts them)."""
    offer = offer_catalog().get(spec.id)
    if not scenario.finance.network_and_storage or offer is None:
        return 0.0
    return spec.accelerators * offer.network_storage_kw_per_accelerator


def with_network_storage_power(
    scenario: Scenario, specs: Mapping[str, HardwareSpec]
) -> dict[str, HardwareSpec]:
    """``specs`` with each unit's ``power_kw`` raised by its network and storage power."""
    out = {}
    for h, spec in specs.items():
        kw = network_storage_kw_per_unit(scenario, spec)
        out[h] = spec.model_copy(update={"power_kw": spec.power_kw + kw}) if kw else spec
    return out
