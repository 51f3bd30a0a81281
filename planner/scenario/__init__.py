"""Scenario files: schema, loading with ``extends``/``overrides``, and semantic checks."""

from planner.scenario.loader import load_scenario
from planner.scenario.resolve import hardware_specs, model_specs
from planner.scenario.schema import InferenceWorkload, Scenario, TrainingRun

__all__ = [
    "InferenceWorkload",
    "Scenario",
    "TrainingRun",
    "hardware_specs",
    "load_scenario",
    "model_specs",
]
