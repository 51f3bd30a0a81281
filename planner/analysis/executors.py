"""Run many tasks: in this process, on a local process pool, or on a Dask cluster.

* Local pool (default): ``ProcessPoolExecutor`` sized to the machine's cores, workers
  started by a fork server that has imported the planner once (fast, and safe with the
  progress bar's thread). A worker that dies (a solver crash, out of memory) breaks
  the pool: the tasks in flight are retried one at a time on a fresh pool, so only the
  task that kills a worker is recorded as failed.
* ``--scheduler tcp://HOST:PORT``: an existing Dask distributed cluster (its workers
  need the same ``planner`` installed). ``--dask-local N``: a Dask ``LocalCluster`` of
  N single-threaded worker processes. Dask is optional: ``pip install 'planner[dask]'``.
* ``--workers 0``: in this process, one task after another (debugging).

Whatever runs them, tasks carry only plain data and solve with one solver thread; each
row is appended to the results file (JSON lines) as it finishes, and the returned rows
(and the finished file) are ordered by task id, so results do not depend on the
executor, the worker count or the order tasks finished in. ``--resume`` keeps the rows
already in the file (except crashed ones, status ``error``, which run again) and runs
the rest.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from planner.analysis.tasks import (
    RETRY,
    SOLVED,
    Row,
    Task,
    clean,
    error_row,
    fingerprint,
    run_task,
    task_key,
    text_keys,
)
from planner.errors import InputError, PlannerError, Problem

TaskFunction = Callable[[Task], Row]
SYSTEMATIC_DEATHS = 3
CONNECT_TIMEOUT_S = 15.0
"""How long to wait for a Dask scheduler to answer."""
PRELOAD = ("planner.analysis.tasks", "planner.perf.inference", "planner.perf.training", "highspy")
"""Modules the fork server imports once, so every worker starts warm."""
WORKER_LOST = "worker process died while solving this task (a solver crash or out of memory)"


@dataclass(frozen=True)
class ExecutorChoice:
    """Where tasks run: ``workers`` local processes (None: one per core; 0: in this
    process), or a Dask ``scheduler`` address, or a Dask LocalCluster of ``dask_local``."""

    workers: int | None = None
    scheduler: str | None = None
    dask_local: int | None = None

    def describe(self) -> str:
        if self.scheduler:
            return f"Dask cluster at {self.scheduler}"
        if self.dask_local:
            return f"Dask LocalCluster, {self.dask_local} workers"
        if self.workers == 0:
            return "this process"
        return f"local process pool, {self.workers or cpu_count()} workers"


def cpu_count() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# --- results file ----------------------------------------------------------------------


def read_results(path: Path) -> list[Row]:
    """Rows of a JSON-lines results file; a torn last line (a killed run) is skipped."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and "task_id" in row:
            rows.append(row)
    return rows


def _write_rows(path: Path, rows: Sequence[Row]) -> None:
    from planner.export.atomic import write_atomically

    def write(temp: Path) -> None:
        with open(temp, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, sort_keys=False) + "\n")

    write_atomically(path, write)


def _previous(path: Path | None, keys: dict[int, str], resume: bool, fresh: bool) -> dict[int, Row]:
    """Rows to keep from an earlier run (``--resume``), after checking they belong to it."""
    if path is None or not path.exists() or path.stat().st_size == 0:
        return {}
    if fresh:
        path.unlink()
        return {}
    rows = read_results(path)
    if not resume:
        raise InputError(
            str(path),
            Problem(
                path="",
                message=f"the results file already holds {len(rows)} run(s)",
                hint="add --resume to continue that run, --fresh to start again, "
                "or name another file with --results",
            ),
        )
    stale = [r for r in rows if keys.get(r["task_id"]) != r.get("task_key")]
    if stale:
        raise InputError(
            str(path),
            Problem(
                path="",
                message=f"{len(stale)} row(s) come from a different run (another scenario, "
                "spec, seed or solver setting)",
                hint="resume with the same command, or use --fresh or another --results file",
            ),
        )
    return {r["task_id"]: r for r in rows if r.get("status") != RETRY}


# --- backends ----------------------------------------------------------------------------


def _in_process(tasks: Sequence[Task], fn: TaskFunction) -> Iterator[Row]:
    for task in tasks:
        try:
            yield fn(task)
        except Exception as exc:
            yield error_row(task, f"{type(exc).__name__}: {exc}")


def _pool(workers: int) -> ProcessPoolExecutor:
    context: multiprocessing.context.BaseContext
    try:
        server = multiprocessing.get_context("forkserver")
        server.set_forkserver_preload(list(PRELOAD))
        context = server
    except ValueError:  # no fork server on this platform
        context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=context)


def _local_pool(tasks: Sequence[Task], fn: TaskFunction, workers: int) -> Iterator[Row]:
    """A process pool; tasks in flight when a worker dies are retried one at a time."""
    pending: deque[Task] = deque(tasks)
    suspects: deque[Task] = deque()
    deaths = 0  # workers killed in a row while running one task alone
    while pending or suspects:
        isolate = bool(suspects)
        queue = suspects if isolate else pending
        limit = 1 if isolate else 2 * workers
        pool = _pool(1 if isolate else workers)
        inflight: dict[Future[Row], Task] = {}
        try:
            while queue or inflight:
                while queue and len(inflight) < limit:
                    task = queue.popleft()
                    try:
                        inflight[pool.submit(fn, task)] = task
                    except BrokenProcessPool:
                        queue.appendleft(task)  # never started: not a suspect
                        raise
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for future in done:
                    task = inflight.pop(future)
                    try:
                        row = future.result()
                        deaths = 0
                    except BrokenProcessPool:
                        inflight[future] = task
                        raise
                    except Exception as exc:
                        row = error_row(task, f"{type(exc).__name__}: {exc}")
                    yield row
        except BrokenProcessPool:
            lost = list(inflight.values())
            if isolate:  # one task in flight: it killed the worker
                deaths += 1
                if deaths >= SYSTEMATIC_DEATHS:
                    raise PlannerError(
                        f"{deaths} worker processes in a row died: they cannot start or "
                        "every task kills them. A script that runs an analysis must guard "
                        "its entry point with `if __name__ == '__main__':`; "
                        "--workers 0 runs tasks in this process to see the error"
                    ) from None
                for task in lost:
                    yield error_row(task, WORKER_LOST)
            else:
                suspects.extend(sorted(lost, key=lambda t: t.task_id))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def _dask_modules() -> Any:
    try:
        import distributed
    except ImportError:
        raise InputError(
            None,
            Problem(
                path="--scheduler / --dask-local",
                message="Dask is not installed",
                hint="pip install 'planner[dask]' (or dask[distributed]), "
                "or drop the option to use the local process pool",
            ),
        ) from None
    return distributed


def _dask(tasks: Sequence[Task], fn: TaskFunction, choice: ExecutorChoice) -> Iterator[Row]:
    distributed = _dask_modules()
    import logging

    cluster = None
    try:
        if choice.scheduler:
            client = distributed.Client(choice.scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
        else:
            cluster = distributed.LocalCluster(
                n_workers=choice.dask_local,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            )
            client = distributed.Client(cluster)
    except OSError as exc:
        if cluster is not None:
            cluster.close()
        raise PlannerError(
            f"could not reach the Dask scheduler {choice.scheduler}: {exc}"
        ) from None
    token = f"{os.getpid()}-{time.time_ns()}"
    try:
        futures = {
            client.submit(fn, task, key=f"planner-{token}-{task.task_id}", pure=False): task
            for task in tasks
        }
        for future in distributed.as_completed(futures):
            task = futures[future]
            try:
                yield future.result()
            except Exception as exc:  # KilledWorker (worker lost) or an exception in fn
                name = type(exc).__name__
                reason = WORKER_LOST if name == "KilledWorker" else f"{name}: {exc}"
                yield error_row(task, reason)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _backend(tasks: Sequence[Task], fn: TaskFunction, choice: ExecutorChoice) -> Iterator[Row]:
    if choice.scheduler or choice.dask_local:
        return _dask(tasks, fn, choice)
    if choice.workers == 0:
        return _in_process(tasks, fn)
    workers = min(choice.workers or cpu_count(), max(len(tasks), 1))
    return _local_pool(tasks, fn, workers)


# --- the driver ----------------------------------------------------------------------------


def _progress(enabled: bool, title: str) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}  remaining {task.fields[remaining]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not enabled,
        transient=False,
    )


def run_tasks(
    tasks: Sequence[Task],
    *,
    executor: ExecutorChoice | None = None,
    results: Path | None = None,
    resume: bool = False,
    fresh: bool = False,
    fn: TaskFunction = run_task,
    progress: bool = True,
    title: str = "runs",
    on_row: Callable[[Row], None] | None = None,
) -> list[Row]:
    """Run ``tasks``; return one row per task, ordered by task id.

    Rows are appended to ``results`` (JSON lines) as they finish, then the file is
    rewritten in task order. ``resume`` keeps rows of an earlier run of the same tasks
    (it refuses a file written by a different run); ``fresh`` discards them; with
    neither, an existing non-empty file is an error (exit 2), so a forgotten
    ``--resume`` never throws away hours of work. ``on_row`` sees each new row.
    """
    executor = executor or ExecutorChoice()
    ids = [t.task_id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError("task ids must be unique")
    document_keys: dict[int, str] = {}
    keys = {t.task_id: task_key(t, _document_key(t, document_keys)) for t in tasks}
    done = _previous(results, keys, resume, fresh)
    todo = [t for t in tasks if t.task_id not in done]
    handle: IO[str] | None = None
    if results is not None:
        if done:
            _write_rows(results, sorted(done.values(), key=lambda r: r["task_id"]))
        results.parent.mkdir(parents=True, exist_ok=True)
        handle = open(results, "a", encoding="utf-8")  # noqa: SIM115 (closed below)
    failed = sum(1 for r in done.values() if r.get("status") not in SOLVED)
    bar = _progress(progress, title)
    try:
        with bar:
            job = bar.add_task(
                title, total=len(tasks), completed=len(done), failed=failed, remaining=len(todo)
            )
            for row in _backend(todo, fn, executor):
                row = clean({**row, "task_key": keys[row["task_id"]]})
                done[row["task_id"]] = row
                if handle is not None:
                    handle.write(json.dumps(row) + "\n")
                    handle.flush()
                failed += row.get("status") not in SOLVED
                bar.update(job, advance=1, failed=failed, remaining=len(tasks) - len(done))
                if on_row is not None:
                    on_row(row)
    except KeyboardInterrupt:
        if results is not None:
            bar.console.print(
                f"stopped: {len(done)} of {len(tasks)} runs saved in {results}; "
                "run the same command with --resume to finish",
                markup=False,
            )
        raise
    finally:
        if handle is not None:
            handle.close()
    rows = [done[i] for i in sorted(done)]
    if results is not None:
        _write_rows(results, rows)
    return rows


def _document_key(task: Task, cache: dict[int, str]) -> str:
    """Fingerprint of the task's document, computed once per distinct document object."""
    ident = id(task.document)
    if ident not in cache:
        cache[ident] = fingerprint(text_keys(task.document))
    return cache[ident]
