"""Independent checks stay independent: no shipped data or fitted figure comes from the
measurements kept out of the repository to check the tool from outside (MLPerf Training
v5.1, MLPerf Inference v5.0 and v5.1, the NVIDIA NeMo / Megatron-Bridge performance
summary, the TensorRT-LLM DeepSeek-R1 best-practice blog, vLLM blog posts, SemiAnalysis
InferenceX / InferenceMAX)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = [
    *sorted((ROOT / "planner" / "perf" / "data").rglob("*")),
    *sorted((ROOT / "tests" / "data").rglob("*")),
    *sorted((ROOT / "planner" / "catalog").glob("*.yaml")),
]
FORBIDDEN = (
    "training_results_v5.1",
    "training v5.1",
    "inference_results_v5.0",
    "inference_results_v5.1",
    "inference v5.0",
    "inference v5.1",
    "nemo performance",
    "performance summary",
    "megatron-bridge",
    "best-practice",
    "best practice",
    "blog.vllm",
    "vllm blog",
    "inferencex",
    "inferencemax",
    "semianalysis",
)


# The READMEs name the held-out sources to say they are not used; data files never do.
@pytest.mark.parametrize(
    "path", [p for p in DATA if p.is_file() and p.name != "README.md"], ids=lambda p: p.name
)
def test_no_shipped_data_cites_a_held_out_source(path: Path) -> None:
    text = path.read_text(encoding="utf-8").lower()
    for word in FORBIDDEN:
        assert word not in text, f"{path.relative_to(ROOT)} mentions {word!r}"


def test_every_training_row_is_mlperf_training_v5_0_with_a_date() -> None:
    path = ROOT / "planner" / "perf" / "data" / "benchmarks" / "mlperf-training-v5.0.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    for row in rows:
        assert row["source"].startswith("mlcommons/training_results_v5.0 "), row["source"]
        assert row["date"] == "2025-06-04"
