"""Map a function over items, round after round, on one executor kept open.

:func:`planner.analysis.executors.run_tasks` runs one batch of analysis tasks and
closes its pool or cluster; an iterative method (progressive hedging,
:mod:`planner.stochastic.hedging`) maps a solve over the same futures many times, so
it opens the executor once (:func:`open_session`) and calls the session per round.
The executor is the one the analyses use (:class:`ExecutorChoice`): the local process
pool (workers started warm by the fork server), a Dask cluster or LocalCluster, or this
process. Results come back in the items' order whatever ran them, so a deterministic
function gives the same results on every executor.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from planner.analysis import dask_cluster
from planner.analysis.executors import ExecutorChoice, _pool, cpu_count
from planner.analysis.lifecycle import stop_workers
from planner.errors import PlannerError

Session = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]
"""``session(fn, items)``: ``[fn(item) for item in items]``, run on the executor."""


@contextmanager
def open_session(choice: ExecutorChoice, most: int) -> Iterator[Session]:
    """A :data:`Session` on ``choice`` (a local pool of at most ``most`` workers), closed
    on leaving the block; the pool's workers are killed if the block fails."""
    if choice.scheduler or choice.dask_local:
        with _dask(choice) as on_dask:
            yield on_dask
        return
    if choice.workers == 0:
        yield lambda fn, items: [fn(item) for item in items]
        return
    pool = _pool(max(1, min(choice.workers or cpu_count(), most)))
    finished = False

    def pooled(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        try:
            return list(pool.map(fn, items))
        except BrokenProcessPool:
            raise PlannerError(
                "a worker process died (a solver crash or out of memory, or it could not "
                "start: a script must guard its entry point with "
                "`if __name__ == '__main__':`); --workers 0 runs in this process"
            ) from None

    try:
        yield pooled
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            stop_workers(pool)


@contextmanager
def _dask(choice: ExecutorChoice) -> Iterator[Session]:
    distributed = dask_cluster._dask_modules()
    client, cluster = dask_cluster._client(distributed, choice.scheduler, choice.dask_local)
    token = f"{os.getpid()}-{time.time_ns()}"
    rounds = [0]

    def session(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        rounds[0] += 1
        keys = [f"planner-{token}-{rounds[0]}-{i}" for i in range(len(items))]
        futures = [
            client.submit(fn, item, key=key, pure=False)
            for item, key in zip(items, keys, strict=True)
        ]
        return list(client.gather(futures))

    try:
        yield session
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
