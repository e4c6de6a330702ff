"""``compare --time-limit``: one model's cross-validation in a worker process, stopped at
its deadline.

NumPy and the estimators cannot be interrupted from another thread, so a model that
may run too long runs in a process of its own, which is terminated when the limit has
passed. The worker reports its progress (fold by fold) and its result through a pipe.
The limit counts the model's own work, from the moment the worker has started (its
imports excluded), and a result whose work took longer than the limit is refused as
well. Workers are forked from a clean server process (``forkserver``, where the platform
has it; ``spawn`` elsewhere), never from the command itself, whose threads (BLAS,
OpenMP) a plain ``fork`` would copy in an unknown state.
"""

from __future__ import annotations

import multiprocessing
import time

__all__ = ["in_worker"]

#: seconds a worker may take to start (import bayesrule) before it counts as failed
START_LIMIT = 120.0


def _context():
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        context.set_forkserver_preload(["bayesrule.cli.compare"])
    return context


def _work(connection, evaluate, args) -> None:
    """The worker: ``evaluate(*args, note)``, sending the notes and then the row."""
    connection.send(("started", None))
    try:
        row = evaluate(*args, lambda text, step: connection.send(("note", (text, step))))
    except Exception as exc:  # sent to the command, which reports it as the model's failure
        row = {"error": f"unexpected {type(exc).__name__}: {exc}"}
    connection.send(("row", row))
    connection.close()


def _over(limit: float) -> str:
    return f"over the time limit of {limit:g} s"


def in_worker(evaluate, args, note, limit: float, empty: dict) -> dict:
    """The row ``evaluate(*args, note)`` returns (a module-level function, e.g.
    :func:`bayesrule.cli.compare.evaluate`), computed in a worker process stopped after
    ``limit`` seconds of work: then ``empty`` with ``skipped`` saying so."""
    context = _context()
    receive, send = context.Pipe(duplex=False)
    worker = context.Process(target=_work, args=(send, evaluate, args), daemon=True)
    worker.start()
    send.close()
    deadline = time.monotonic() + START_LIMIT
    started = None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not receive.poll(min(max(left, 0.0), 0.5)):
                if left <= 0:
                    reason = _over(limit) if started else "the worker process did not start"
                    return {**empty, "skipped": reason}
                if not worker.is_alive() and not receive.poll():
                    code = worker.exitcode
                    return {**empty, "error": f"the worker process died ({code})"}
                continue
            try:
                kind, value = receive.recv()
            except EOFError:
                return {**empty, "error": "the worker process died"}
            if kind == "started":
                started = time.monotonic()
                deadline = started + limit
            elif kind == "note":
                note(*value)
            else:
                row = {**empty, **value}
                if row["total_seconds"] > limit:
                    row = {**empty, "skipped": _over(limit)}
                return row
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join(5)
        receive.close()
