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

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from planner.analysis import dask_cluster, results_file
from planner.analysis.lifecycle import sigterm_as_interrupt, stop_workers, worker_initializer
from planner.analysis.results_file import read_results
from planner.analysis.rows import clean
from planner.analysis.tasks import (
    RETRY,
    SOLVED,
    WORKER_LOST,
    Row,
    Task,
    cut_short,
    error_row,
    fingerprint,
    run_task,
    task_key,
    text_keys,
)
from planner.errors import InputError, PlannerError, Problem

TaskFunction = Callable[[Task], Row]
SYSTEMATIC_DEATHS = 3
IN_FLIGHT_PER_WORKER = 2
"""Tasks submitted ahead per worker: tasks are generated as the run needs them."""
PRELOAD = ("planner.analysis.tasks", "planner.perf.inference", "planner.perf.training", "highspy")
"""Modules the fork server imports once, so every worker starts warm."""


@dataclass(frozen=True)
class ExecutorChoice:
    """Where tasks run: ``workers`` local processes (None: one per core; 0: in this
    process), or a Dask ``scheduler`` address, or a Dask LocalCluster of ``dask_local``."""

    workers: int | None = None
    scheduler: str | None = None
    dask_local: int | None = None

    def __post_init__(self) -> None:
        if self.scheduler is not None:
            dask_cluster.parse_address(self.scheduler)  # a malformed address: exit 2 now

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


# --- results to keep -----------------------------------------------------------------------


def _previous(path: Path | None, resume: bool, fresh: bool) -> dict[int, Row]:
    """Rows to keep from an earlier run (``--resume``); the file is checked to be one."""
    if path is None or not results_file.check_results_file(path):
        return {}
    if fresh:
        results_file.discard(path)
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
    return {r["task_id"]: r for r in rows}


def _stale(path: Path | None, count: int) -> InputError:
    return InputError(
        str(path),
        Problem(
            path="",
            message=f"{count} row(s) come from a different run (another scenario, "
            "spec, seed or solver setting)",
            hint="resume with the same command, or use --fresh or another --results file",
        ),
    )


# --- backends ----------------------------------------------------------------------------


def _in_process(tasks: Iterator[Task], fn: TaskFunction) -> Iterator[Row]:
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
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=worker_initializer,
        initargs=(os.getpid(),),
    )


def _local_pool(tasks: Iterator[Task], fn: TaskFunction, workers: int) -> Iterator[Row]:
    """A process pool; tasks in flight when a worker dies are retried one at a time."""
    unstarted: deque[Task] = deque()  # taken from ``tasks`` but never submitted
    suspects: deque[Task] = deque()
    deaths = 0  # workers killed in a row while running one task alone

    def take() -> Task | None:
        if unstarted:
            return unstarted.popleft()
        return next(tasks, None)

    while True:
        isolate = bool(suspects)
        if not isolate:
            first = take()
            if first is None:
                return
            unstarted.appendleft(first)
        limit = 1 if isolate else IN_FLIGHT_PER_WORKER * workers
        pool = _pool(1 if isolate else workers)
        inflight: dict[Future[Row], Task] = {}
        finished = False
        try:
            while True:
                while len(inflight) < limit:
                    task = (suspects.popleft() if suspects else None) if isolate else take()
                    if task is None:
                        break
                    try:
                        inflight[pool.submit(fn, task)] = task
                    except BrokenProcessPool:
                        (suspects if isolate else unstarted).appendleft(task)  # never started
                        raise
                if not inflight:
                    break
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
            finished = True
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
            if finished:
                pool.shutdown(wait=True)
            else:  # interrupted, failed or broken: no worker outlives this
                stop_workers(pool)


def _backend(
    tasks: Iterator[Task], fn: TaskFunction, choice: ExecutorChoice, count: int
) -> Iterator[Row]:
    if choice.scheduler or choice.dask_local:
        return dask_cluster.run(
            tasks, fn, choice.scheduler, choice.dask_local, IN_FLIGHT_PER_WORKER
        )
    if choice.workers == 0:
        return _in_process(tasks, fn)
    workers = min(choice.workers or cpu_count(), max(count, 1))
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


class _Keyed:
    """Tasks drawn one at a time, keyed, checked against the kept rows, skipped if done."""

    def __init__(self, tasks: Iterable[Task], previous: dict[int, Row], source: Path | None):
        self.tasks, self.previous, self.source = iter(tasks), previous, source
        self.keys: dict[int, str] = {}
        self.documents: dict[int, str] = {}

    def key_of(self, task: Task) -> str:
        return task_key(task, _document_key(task, self.documents))

    def key(self, task: Task) -> str:
        if task.task_id in self.keys:
            raise ValueError("task ids must be unique")
        key = self.key_of(task)
        self.keys[task.task_id] = key
        kept = self.previous.get(task.task_id)
        if kept is not None and kept.get("task_key") != key:
            raise _stale(self.source, 1)
        return key

    def todo(self) -> Iterator[Task]:
        for task in self.tasks:
            self.key(task)
            kept = self.previous.get(task.task_id)
            if kept is None or kept.get("status") == RETRY or cut_short(kept, task):
                yield task


def run_tasks(
    tasks: Iterable[Task],
    *,
    executor: ExecutorChoice | None = None,
    results: Path | None = None,
    resume: bool = False,
    fresh: bool = False,
    fn: TaskFunction = run_task,
    progress: bool = True,
    title: str = "runs",
    on_row: Callable[[Row], None] | None = None,
    total: int | None = None,
) -> list[Row]:
    """Run ``tasks``; return one row per task, ordered by task id.

    ``tasks`` may be a list or a lazy iterable (then give ``total``, the number it
    yields, for the progress bar): tasks are drawn only as workers free up, a bounded
    number ahead. Rows are appended to ``results`` (see
    :mod:`planner.analysis.results_file`) as they finish, then the file is rewritten in
    task order. ``resume`` keeps rows of an earlier run of the same tasks (it refuses a
    file written by a different run: for a list, before anything runs; for a lazy
    iterable, when the first foreign row's task comes up); ``fresh`` discards them;
    with neither, an existing results file is an error (exit 2), so a forgotten
    ``--resume`` never throws away hours of work. A file that is not a results file is
    refused and left untouched. SIGTERM stops the run like Ctrl-C. ``on_row`` sees
    each new row.
    """
    executor = executor or ExecutorChoice()
    if total is None:
        total = len(tasks) if isinstance(tasks, Sized) else 0
    previous = _previous(results, resume, fresh)
    if isinstance(tasks, Sequence):  # a list: check every kept row before anything runs
        check = _Keyed(tasks, previous, results)
        keys = {t.task_id: check.key_of(t) for t in tasks}
        stale = sum(1 for i, r in previous.items() if keys.get(i) != r.get("task_key"))
        if stale:
            raise _stale(results, stale)
    keyed = _Keyed(tasks, previous, results)
    done = {i: r for i, r in previous.items() if r.get("status") != RETRY}
    appender: results_file.Appender | None = None
    if results is not None:
        if previous:
            results_file.write_rows(results, sorted(done.values(), key=lambda r: r["task_id"]))
        appender = results_file.Appender(results)
    failed = sum(1 for r in done.values() if r.get("status") not in SOLVED)
    bar = _progress(progress, title)
    try:
        with sigterm_as_interrupt(), bar:
            job = bar.add_task(
                title,
                total=total or None,
                completed=len(done),
                failed=failed,
                remaining=max(total - len(done), 0),
            )
            for row in _backend(keyed.todo(), fn, executor, total or cpu_count()):
                row = clean({**row, "task_key": keyed.keys[row["task_id"]]})
                done[row["task_id"]] = row
                if appender is not None:
                    appender.write(row)
                failed += row.get("status") not in SOLVED
                bar.update(job, advance=1, failed=failed, remaining=max(total - len(done), 0))
                if on_row is not None:
                    on_row(row)
    except KeyboardInterrupt:
        if results is not None:
            bar.console.print(
                f"stopped: {len(done)} of {total or len(done)} runs saved in {results}; "
                "run the same command with --resume to finish",
                markup=False,
            )
        raise
    finally:
        if appender is not None:
            appender.close()
    rows = [done[i] for i in sorted(done) if i in keyed.keys]
    if results is not None:
        results_file.write_rows(results, rows)
    return rows


def _document_key(task: Task, cache: dict[int, str]) -> str:
    """Fingerprint of the task's document, computed once per distinct document object."""
    ident = id(task.document)
    if ident not in cache:
        cache[ident] = fingerprint(text_keys(task.document))
    return cache[ident]
