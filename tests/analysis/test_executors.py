"""Executors: the same rows whatever runs the tasks; failures recorded; runs resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from analysis_helpers import kills_worker_on_task_1, small_montecarlo, without_timing

from planner.analysis import dask_cluster
from planner.analysis.executors import ExecutorChoice, read_results, run_tasks
from planner.analysis.tasks import Row, Task, run_task
from planner.errors import InputError


@pytest.fixture(scope="module")
def reference() -> list[Row]:
    """An uninterrupted run in this process: what every other way must reproduce."""
    return run_tasks(small_montecarlo(), executor=ExecutorChoice(workers=0), progress=False)


def test_reference_run_solves_every_sample(reference: list[Row]) -> None:
    assert [r["task_id"] for r in reference] == list(range(12))
    assert all(r["status"] == "optimal" for r in reference)
    assert len({r["objective_usd"] for r in reference}) == 12  # the samples differ


def test_dask_cluster_and_local_pool_give_identical_results(
    reference: list[Row], dask_address: str, tmp_path: Path
) -> None:
    tasks = small_montecarlo()
    on_dask = run_tasks(
        tasks,
        executor=ExecutorChoice(scheduler=dask_address),
        results=tmp_path / "dask.jsonl",
        progress=False,
    )
    pooled = run_tasks(
        tasks,
        executor=ExecutorChoice(workers=2),
        results=tmp_path / "pool.jsonl",
        progress=False,
    )
    assert without_timing(on_dask) == without_timing(pooled) == without_timing(reference)
    # the finished files are in task order and hold the same rows
    for name in ("dask.jsonl", "pool.jsonl"):
        stored = read_results(tmp_path / name)
        assert without_timing(stored) == without_timing(on_dask)


def _fails_on_task_3(task: Task) -> Row:
    if task.task_id == 3:
        raise RuntimeError("solver exploded")
    return run_task(task)


def test_a_failing_task_is_recorded_and_resume_reruns_it(
    reference: list[Row], tmp_path: Path
) -> None:
    results = tmp_path / "mc.jsonl"
    tasks = small_montecarlo()
    first = run_tasks(
        tasks,
        executor=ExecutorChoice(workers=0),
        results=results,
        fn=_fails_on_task_3,
        progress=False,
    )
    assert [r["status"] for r in first].count("error") == 1
    assert first[3]["error"] == "RuntimeError: solver exploded"
    assert sum(r["status"] == "optimal" for r in first) == 11  # the run went on
    solved: list[int] = []
    resumed = run_tasks(
        tasks,
        executor=ExecutorChoice(workers=0),
        results=results,
        resume=True,
        progress=False,
        on_row=lambda row: solved.append(row["task_id"]),
    )
    assert solved == [3]  # only the failed task ran again
    assert without_timing(resumed) == without_timing(reference)


def test_stopping_the_process_midway_and_resuming_loses_nothing(
    reference: list[Row], tmp_path: Path
) -> None:
    results = tmp_path / "killed.jsonl"
    script = (
        "import sys, time\n"
        "from analysis_helpers import small_montecarlo\n"
        "from planner.analysis.executors import ExecutorChoice, run_tasks\n"
        "from planner.analysis.tasks import run_task\n"
        "def slow(task):\n"
        "    time.sleep(0.3)\n"
        "    return run_task(task)\n"
        "if __name__ == '__main__':\n"
        "    run_tasks(small_montecarlo(), executor=ExecutorChoice(workers=0),\n"
        "              results=__import__('pathlib').Path(sys.argv[1]), fn=slow, progress=False)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(results)],
        cwd=Path(__file__).parent,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= 5:  # header + 4
            break
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    with results.open("a") as handle:
        handle.write('{"task_id": 11, "lab')  # a row torn by the kill
    kept = read_results(results)
    assert 4 <= len(kept) < 12
    ran: list[int] = []
    resumed = run_tasks(
        small_montecarlo(),
        executor=ExecutorChoice(workers=2),
        results=results,
        resume=True,
        progress=False,
        on_row=lambda row: ran.append(row["task_id"]),
    )
    assert sorted(ran) == sorted(set(range(12)) - {r["task_id"] for r in kept})
    assert without_timing(resumed) == without_timing(reference)
    header, *lines = results.read_text().splitlines()
    assert json.loads(header) == {"format": "planner-analysis-results", "version": 2}
    assert [json.loads(line)["task_id"] for line in lines] == list(range(12))


def test_an_existing_results_file_needs_resume_or_fresh(tmp_path: Path) -> None:
    results = tmp_path / "mc.jsonl"
    tasks = small_montecarlo(samples=2)
    run_tasks(tasks, executor=ExecutorChoice(workers=0), results=results, progress=False)
    with pytest.raises(InputError, match="--resume"):
        run_tasks(tasks, executor=ExecutorChoice(workers=0), results=results, progress=False)
    other = small_montecarlo(samples=2, seed=8)
    with pytest.raises(InputError, match="different run"):
        run_tasks(
            other, executor=ExecutorChoice(workers=0), results=results, resume=True, progress=False
        )
    fresh = run_tasks(
        other, executor=ExecutorChoice(workers=0), results=results, fresh=True, progress=False
    )
    assert len(read_results(results)) == 2 and fresh[0]["task_key"] != tasks[0].label


def test_a_worker_that_dies_fails_only_its_own_task(tmp_path: Path) -> None:
    rows = run_tasks(
        small_montecarlo(samples=4),
        executor=ExecutorChoice(workers=2),
        fn=kills_worker_on_task_1,
        progress=False,
    )
    statuses = [r["status"] for r in rows]
    assert statuses == ["optimal", "error", "optimal", "optimal"], [r["error"] for r in rows]
    assert "worker process died" in rows[1]["error"]


def test_dask_missing_is_a_clear_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(InputError, match=r"planner\[dask\]") as caught:
        run_tasks(
            small_montecarlo(samples=1), executor=ExecutorChoice(dask_local=1), progress=False
        )
    assert caught.value.exit_code == 2


def test_an_unreachable_scheduler_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dask_cluster, "CONNECT_TIMEOUT_S", 0.5)
    with pytest.raises(InputError, match="could not reach"):
        run_tasks(
            small_montecarlo(samples=1),
            executor=ExecutorChoice(scheduler="tcp://127.0.0.1:9"),
            progress=False,
        )
