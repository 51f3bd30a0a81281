"""A plan found is a plan kept: when the run's time limit is spent after the solve, the
shadow prices, marginals and relief estimates it cuts are skipped and named, the plan
is the same plan, ``planner run`` exits 0, and ``--resume`` re-runs what it cut short."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

import planner.pipeline
from planner import deadline
from planner.analysis.executors import ExecutorChoice, run_tasks
from planner.analysis.report import runs_frame
from planner.analysis.tasks import Row, SolveSettings, Task, base_row, cut_short, task_key
from planner.cli import cli
from planner.deadline import Deadline, TimeLimitError
from planner.errors import SolverError
from planner.follow_ups import MARGINALS, RELIEF, SHADOW_PRICES, FollowUps
from planner.pipeline import plan
from planner.results import Plan
from planner.results.diagnosis_check import check_diagnosis
from planner.results.relief_text import SKIPPED, SKIPPED_HEAD
from planner.scenario import load_scenario

HAND = Path(__file__).resolve().parent / "scenarios"
BUDGET = HAND / "budget_shortfall.yaml"  # demand left unmet, the budget binds
MARGINAL = "budget.capex_usd.2026"


def _spend_the_limit() -> None:
    """The run's time limit, spent now (as a slow follow-up would spend it)."""
    run = deadline.current()
    assert run is not None, "the follow-up runs inside the run's deadline"
    run.end = time.monotonic() - 1.0


def _spent_during(real: Callable[..., Any]) -> Callable[..., Any]:
    """``real``, run after the limit is spent: it meets the deadline like a slow solve."""

    def slow(*args: Any, **kwargs: Any) -> Any:
        _spend_the_limit()
        return real(*args, **kwargs)

    return slow


@pytest.fixture(scope="module")
def full() -> Plan:
    """The plan with every follow-up made (no time limit reached)."""
    return plan(load_scenario(BUDGET), marginals=[MARGINAL])


def _same_plan(kept: Plan, full: Plan) -> None:
    """The same plan, binding flags included (they do not read the duals), and a
    diagnosis the tables bear out, which says what the limit cut."""
    assert kept.status == full.status
    assert kept.headline["npv_cost_usd"] == pytest.approx(full.headline["npv_cost_usd"])
    names = ["purchases", "fleet", "served", "costs", "power", "budget", "supply"]
    for name in [*names, *(["vendor_share"] if "vendor_share" in full.tables else [])]:
        pd.testing.assert_frame_equal(kept.tables[name], full.tables[name])
    assert check_diagnosis(kept) == []
    skipped = "; ".join(kept.headline["follow_ups_skipped"])
    assert kept.diagnosis[-1] == SKIPPED.format(names=skipped)


def test_the_full_plan_has_every_follow_up(full: Plan) -> None:
    assert full.headline["follow_ups_skipped"] == []
    assert not any(s.startswith(SKIPPED_HEAD) for s in full.diagnosis)
    assert len(full.tables["shadow_prices"]) > 0
    assert len(full.tables["relief_served"]) > 0
    assert len(full.tables["marginals"]) == 1


def test_a_limit_spent_during_the_shadow_prices_keeps_the_plan(
    full: Plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(planner.pipeline, "lp_duals", _spent_during(planner.pipeline.lp_duals))
    kept = plan(load_scenario(BUDGET), marginals=[MARGINAL], time_limit_s=60)
    _same_plan(kept, full)
    # everything after the shadow prices was cut too: the limit stays spent
    assert kept.headline["follow_ups_skipped"] == [SHADOW_PRICES, MARGINALS, RELIEF]
    assert kept.tables["shadow_prices"].empty
    assert kept.tables["relief_served"].empty
    assert not any("LP estimates (purchases continuous)" in s for s in kept.diagnosis)


def test_a_limit_spent_during_the_marginals_keeps_the_shadow_prices(
    full: Plan, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        planner.pipeline, "finite_differences", _spent_during(planner.pipeline.finite_differences)
    )
    kept = plan(load_scenario(BUDGET), marginals=[MARGINAL], time_limit_s=60)
    _same_plan(kept, full)
    assert kept.headline["follow_ups_skipped"] == [MARGINALS, RELIEF]
    duals = full.tables["shadow_prices"]
    duals = duals[duals["limit"] != "marginal"]  # the --marginal rows were cut
    pd.testing.assert_frame_equal(kept.tables["shadow_prices"], duals)


def test_follow_ups_skip_only_for_lack_of_time() -> None:
    follow = FollowUps()
    assert follow.run("a", lambda: 1) == 1  # no run deadline: runs
    with Deadline(60):
        assert follow.run("b", lambda: None) is None  # no answer, time left: not skipped

        def fails() -> None:
            raise SolverError("no plan")

        with pytest.raises(SolverError):  # a real failure with time left is not hidden
            follow.run("c", fails)
        _spend_the_limit()
        ran: list[str] = []
        assert follow.run("d", lambda: ran.append("d")) is None
        assert ran == []  # the limit was spent before it: never started
        assert follow.run("c", fails) is None  # out of time: skipped, not raised

        def times_out() -> None:
            raise TimeLimitError("spent")

        follow.run("e", times_out)
    assert follow.skipped == ["d", "c", "e"]


def _run(tmp_path: Path, *options: str) -> tuple[Any, Path]:
    """``planner run`` on the budget scenario, its workbook in ``tmp_path``."""
    out = tmp_path / "budget.xlsx"
    result = CliRunner().invoke(cli, ["run", str(BUDGET), "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return result, out


def _summary(workbook: Path) -> dict[Any, Any]:
    """The Summary sheet's item → value."""
    sheet = load_workbook(workbook, read_only=True)["Summary"]
    return {row[0]: row[1] for row in sheet.iter_rows(values_only=True) if row}


def test_planner_run_exits_0_with_the_plan_and_names_what_it_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(planner.pipeline, "lp_duals", _spent_during(planner.pipeline.lp_duals))
    result, out = _run(tmp_path, "--format", "json")
    document = json.loads(result.stdout)
    assert document["headline"]["follow_ups_skipped"] == [SHADOW_PRICES, RELIEF]
    assert "the plan is kept; skipped shadow prices" in result.stderr
    # the workbook is written within the export's grace
    assert _summary(out)["follow-ups skipped"] == f"{SHADOW_PRICES}, {RELIEF}"
    csv, _ = _run(tmp_path, "--format", "csv")  # the list is one plain-text cell
    rows = pd.read_csv(io.StringIO(csv.stdout)).set_index("item")["value"]
    assert rows["follow_ups_skipped"] == f"{SHADOW_PRICES}; {RELIEF}"


def test_planner_run_without_a_cut_says_none_skipped(tmp_path: Path) -> None:
    result, out = _run(tmp_path)
    assert "skipped" not in result.stderr
    assert _summary(out)["follow-ups skipped"] == "none"


def test_an_m_size_run_at_a_tiny_limit_keeps_its_plan(tmp_path: Path) -> None:
    """No monkeypatching: bench/generate.py's M (5,097 variables; its service MILP alone
    would take 60 s) under a 10 s limit (a plan takes about 3 s of CPU, so a loaded
    machine still finds one). The solve uses the limit, a plan is found and kept, the
    follow-ups are skipped and named, and the checker finds nothing wrong with the plan
    or its diagnosis (``planner run``'s exit 0 with such a plan is tested above)."""
    import importlib.util
    import sys

    from planner.results.checker import check_plan

    script = Path(__file__).resolve().parents[1] / "bench" / "generate.py"
    spec = importlib.util.spec_from_file_location("bench_generate_m", script)
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generate
    spec.loader.exec_module(generate)
    scenario = tmp_path / "m.yaml"
    scenario.write_text(generate.generate("M", 0))
    kept = plan(load_scenario(scenario), time_limit_s=10)
    assert kept.status in ("feasible", "optimal")
    assert SHADOW_PRICES in kept.headline["follow_ups_skipped"]
    skipped = "; ".join(kept.headline["follow_ups_skipped"])
    assert kept.diagnosis[-1] == SKIPPED.format(names=skipped)
    assert check_plan(kept) == []


# --- sweeps: rows record the cut, and --resume re-runs it under a larger limit ----------


def _tasks(limit: float | None) -> list[Task]:
    document = load_scenario(BUDGET).model_dump(mode="json")
    settings = SolveSettings(time_limit_s=limit)
    return [Task(i, f"run {i}", document, settings=settings) for i in range(3)]


def _cut_on_task_1(task: Task) -> Row:
    """Task 1 stopped early by its limit (a plan, the solve not finished); the others
    optimal."""
    row = base_row(task)
    row.update(status="feasible" if task.task_id == 1 else "optimal", error=None, timing={})
    return row


def test_the_time_limit_is_not_part_of_a_tasks_key() -> None:
    short, long = _tasks(10)[0], _tasks(100)[0]
    assert task_key(short) == task_key(long)
    assert task_key(_tasks(None)[0]) == task_key(short)


def test_resume_with_a_larger_limit_reruns_the_runs_it_cut_short(tmp_path: Path) -> None:
    results = tmp_path / "runs.jsonl"
    first = run_tasks(
        _tasks(10),
        executor=ExecutorChoice(workers=0),
        results=results,
        fn=_cut_on_task_1,
        progress=False,
    )
    assert [r["time_limit_s"] for r in first] == [10, 10, 10]
    ran: list[int] = []

    def resume(limit: float | None) -> list[Row]:
        ran.clear()
        return run_tasks(
            _tasks(limit),
            executor=ExecutorChoice(workers=0),
            results=results,
            resume=True,
            fn=_cut_on_task_1,
            progress=False,
            on_row=lambda r: ran.append(r["task_id"]),
        )

    resume(10)
    assert ran == []  # the same limit: nothing would change
    resume(5)
    assert ran == []  # less time: the kept plan is at least as good
    rows = resume(100)
    assert ran == [1]  # only the run the limit cut short
    assert [r["time_limit_s"] for r in rows] == [10, 100, 10]


def test_a_cut_row_is_rerun_only_when_the_limit_stopped_it() -> None:
    task = _tasks(100)[0]
    before = {"time_limit_s": 10}
    assert cut_short({**before, "status": "feasible"}, task)
    assert cut_short({**before, "status": "optimal", "follow_ups_skipped": [RELIEF]}, task)
    assert not cut_short({**before, "status": "optimal", "follow_ups_skipped": []}, task)
    assert not cut_short({**before, "status": "invalid", "error": "wacc above 1"}, task)
    assert not cut_short({"status": "feasible"}, task)  # a row from before limits were kept
    assert cut_short({**before, "status": "feasible"}, _tasks(None)[0])  # no limit: more


def test_a_sweep_row_keeps_the_plan_and_names_the_skipped_estimates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from planner import relief
    from planner.analysis.tasks import run_task

    monkeypatch.setattr(relief, "_estimate", _spent_during(relief._estimate))
    row = run_task(_tasks(60)[0])
    assert row["status"] == "optimal"
    assert row["follow_ups_skipped"] == [RELIEF]
    frame = runs_frame([row])
    assert frame.loc[0, "follow_ups_skipped"] == RELIEF
    assert frame.loc[0, "npv_cost_usd"] > 0  # the plan's figures, not a blank
