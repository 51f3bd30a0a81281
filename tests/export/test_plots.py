"""``planner run --plots DIR``: the workbook's charts as titled, labelled PNG files."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from planner.export import plots
from planner.export.charts import CHARTS
from planner.pipeline import plan
from planner.scenario import load_scenario

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "tests" / "scenarios" / "rental_spike.yaml"
PNG = b"\x89PNG\r\n\x1a\n"

needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib not installed (pip install 'planner[plots]')",
)


@needs_matplotlib
def test_run_writes_titled_pngs(run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "plots"
    result = run_cli("run", SCENARIO, "--out", tmp_path / "plan.xlsx", "--plots", folder)
    assert result.code == 0, result.err
    written = sorted(p.name for p in folder.iterdir())
    assert written == sorted(spec.file for spec in CHARTS)
    for name in written:
        data = (folder / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 10_000, name


@needs_matplotlib
def test_each_figure_has_a_title_and_axis_labels_with_units() -> None:
    result = plan(load_scenario(SCENARIO))
    for spec in CHARTS:
        axes = plots._draw(spec, result).axes[0]
        assert axes.get_title() == f"{spec.title} — rental-spike"
        assert axes.get_xlabel() == "period"
        assert axes.get_ylabel() == spec.y_title
        assert any(unit in spec.y_title for unit in ("USD", "MW", "tokens", "accelerators"))
        assert axes.get_legend() is not None


def test_missing_matplotlib_is_a_clear_error_before_solving(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def hide(name: str, *args: object):
        return None if name == "matplotlib" else real(name, *args)

    monkeypatch.setattr(plots.importlib.util, "find_spec", hide)
    out = tmp_path / "plan.xlsx"
    result = run_cli("run", SCENARIO, "--out", out, "--plots", tmp_path / "plots")
    assert result.code == 2
    assert "pip install 'planner[plots]'" in result.err.replace("\n", " ")
    assert not out.exists() and not (tmp_path / "plots").exists()
