"""Performance models: throughput tables the optimiser reads (docs/concepts/performance.md).

* :mod:`planner.perf.inference` — serving throughput at a latency SLO (roofline physics in
  :mod:`planner.perf.roofline`, efficiency factors in :mod:`planner.perf.efficiency`);
* :mod:`planner.perf.training` — goodput-adjusted training throughput;
* :mod:`planner.perf.calibration` — predicting and fitting measured benchmarks.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from planner import deadline

if TYPE_CHECKING:
    import pandas as pd

    from planner.perf.efficiency import Efficiency, EfficiencyTable
    from planner.scenario.schema import Scenario

__all__ = ["throughput_tables"]


def throughput_tables(
    scenario: Scenario,
    efficiency: Efficiency | EfficiencyTable | None = None,
    calibration_path: str | Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(inference table, training table)`` of ``scenario``.

    The inference table has one row per (serving workload, hardware) with columns
    :data:`planner.perf.inference.INFERENCE_COLUMNS`; the training table one row per
    (training run, hardware) with :data:`planner.perf.training.TRAINING_COLUMNS`.
    ``efficiency`` / ``calibration_path``: see :func:`planner.perf.inference.inference_table`.
    """
    from planner.perf.inference import inference_table
    from planner.perf.training import training_table

    inference = inference_table(scenario, efficiency, calibration_path)
    deadline.check("the perf model (training table)")
    return inference, training_table(scenario)
