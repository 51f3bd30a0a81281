"""A warm process that forks one child per hostile CLI run.

Every hostile case runs ``planner ARGS`` in its own process with a memory limit and a
timeout, as a user's shell would. Starting a fresh interpreter costs about two seconds of
CPU per case (pandas, Pyomo, openpyxl, HiGHS), which dominated the suite. The zygote
imports them once and forks a child per case: the child is a separate process with its
own address-space limit, working folder, environment, standard streams and exit code, and
runs the same entry point as ``python -m planner`` (:func:`planner.cli.main`). The
zygote is single-threaded when it forks (it only reads requests), so forking is safe.

Protocol: one JSON request per line on the zygote's stdin (``args``, ``cwd``, ``env``,
``out``, ``err``, ``timeout_s``, ``memory_limit``); one JSON reply per line on its stdout
(``code``, or ``timeout: true`` after the child was killed). A child's output goes to the
files named in the request. The zygote exits when its stdin closes.
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import signal
import sys
import time

PRELOAD = (
    "planner.cli",
    "planner.cli.run_cmds",
    "planner.cli.scenario_cmds",
    "planner.cli.analysis_cmds",
    "planner.pipeline",
    "planner.export.excel",
    "pandas",
    "pyomo.environ",
    "highspy",
    "openpyxl",
)


def _child(request: dict[str, object]) -> None:
    """In the forked child: become the CLI run of ``request`` and exit with its code."""
    code = 1
    try:
        limit = int(request["memory_limit"])  # type: ignore[call-overload]
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update(request["env"])  # type: ignore[call-overload]
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(str(request["out"]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(str(request["err"]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for source, target in ((null, 0), (out, 1), (err, 2)):
            os.dup2(source, target)
            os.close(source)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        sys.argv = ["planner", *map(str, request["args"])]  # type: ignore[call-overload]
        from planner.cli import main

        try:
            main()
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        atexit._run_exitfuncs()
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                code = code or 1
        os._exit(code)


def _wait(pid: int, timeout_s: float) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return {"code": os.waitstatus_to_exitcode(status)}
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"timeout": True}
        time.sleep(0.005)


def serve() -> None:
    for name in PRELOAD:
        __import__(name)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        print(json.dumps(_wait(pid, float(request["timeout_s"]))), flush=True)


if __name__ == "__main__":
    serve()
