"""How many threads bayesrule's own thread pools use.

The sparse count models and the EM passes share rows between worker threads of their
own (BLAS threads do not help them). They take the CPUs this process may use, capped by
``OMP_NUM_THREADS`` when set, by a ``threadpoolctl`` limit in force on the BLAS
libraries (so ``with threadpool_limits(1): ...`` makes bayesrule single-threaded too), and
by :data:`MAX_THREADS`.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext

from threadpoolctl import ThreadpoolController

#: at most this many threads in one pool
MAX_THREADS = 8


#: (number of imported modules, the BLAS libraries' controller) of the last look
_found: tuple[int, ThreadpoolController] | None = None


def _blas_limit() -> int | None:
    """The fewest threads any loaded BLAS library is set to now, or None if there is
    none. Finding the libraries takes 1-2 ms, so it is done again only after new
    modules were imported (a library loaded by them counts too); asking the found
    libraries for their setting takes microseconds."""
    global _found
    if _found is None or _found[0] != len(sys.modules):
        _found = (len(sys.modules), ThreadpoolController().select(user_api="blas"))
    counts = [lib["num_threads"] for lib in _found[1].info()]
    return min(counts) if counts else None


def n_threads() -> int:
    """Worker threads for one pool (see the module docstring), at least 1.

    Examples
    --------
    >>> 1 <= n_threads() <= MAX_THREADS
    True

    Under ``threadpool_limits(limits=1, user_api="blas")`` it is 1
    (``tests/test_threads.py``).
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        cpus = min(cpus, int(env))
    # inside :func:`one_blas_thread` the limit in force is bayesrule's own (for BLAS
    # only): the one before it counts for the threads here
    blas = _BLAS["outer"] if _BLAS["depth"] > 0 else _blas_limit()
    if blas is not None and blas > 0:
        cpus = min(cpus, blas)
    return max(1, min(cpus, MAX_THREADS))


def in_order(work: Callable, items: Iterable, workers: int) -> Iterator[tuple]:
    """``(item, work(item))`` for each item, in order, computed by ``workers`` threads
    (in this thread for 1) with at most ``2 * workers + 1`` items in flight, so that the
    memory held stays bounded by a few items' results; each runs in a copy of the
    caller's context variables. Called from any thread but the main one (a Dask worker's,
    another pool's) it runs in that thread: pools inside pools would oversubscribe the
    cores."""
    if workers <= 1 or threading.current_thread() is not threading.main_thread():
        for item in items:
            yield item, work(item)
        return
    pool = _pool(workers)
    pending = deque()
    try:
        for item in items:  # each in a copy of the caller's context (_text's class labels)
            pending.append((item, pool.submit(contextvars.copy_context().run, work, item)))
            if len(pending) > 2 * workers:
                done, future = pending.popleft()
                yield done, future.result()
        while pending:
            done, future = pending.popleft()
            yield done, future.result()
    finally:  # a caller that stops early (an error) leaves nothing running behind it
        for _, future in pending:
            future.cancel()
        for _, future in pending:
            if not future.cancelled():
                future.exception()


#: the pools of :func:`in_order`, one per number of workers, kept between calls:
#: starting threads took milliseconds a call (a fit and a prediction make several)
_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    with _POOLS_LOCK:
        if workers not in _POOLS:
            _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="bayesrule")
        return _POOLS[workers]


def _forget_pools() -> None:
    """In a forked child the pools' threads do not exist: new pools are made there."""
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


#: the state of :func:`one_blas_thread`: its nesting depth, the limiter in force, and
#: the BLAS limit before it ("outer", what :func:`n_threads` honours meanwhile)
_BLAS = {"lock": threading.Lock(), "depth": 0, "limiter": None, "controller": None, "outer": None}


def few_columns_blas(n_features: int):
    """:func:`one_blas_thread` for data of at most :data:`FEW_COLUMNS` features, else a
    context that changes nothing. A fit's products are then skinny or d x d: BLAS's
    threads cannot share them out, and they spin against any other busy process
    (measured on a 2-core machine beside one busy process, medians of 5: QDA's fit of
    1,000,000 x 50 rows took 0.48 s with one BLAS thread and 0.95 s with two; of 20,000
    x 5 rows 4.3 ms and 5.6 ms)."""
    return one_blas_thread() if n_features <= FEW_COLUMNS else nullcontext()


#: at most this many features, fits run BLAS single-threaded (:func:`few_columns_blas`)
FEW_COLUMNS = 64


@contextmanager
def one_blas_thread():
    """A context in which BLAS runs single-threaded. The blocks are small, and BLAS's
    own threads (numpy's and scipy's pools spinning against each other, and against the
    EM threads) made fits and evaluations several times slower.

    The limit is process-wide; nested and concurrent uses share it (a counter under a
    lock), and the last to leave restores the original settings."""
    with _BLAS["lock"]:
        if _BLAS["depth"] == 0:
            if _BLAS["controller"] is None:
                _BLAS["controller"] = ThreadpoolController()
            _BLAS["outer"] = _blas_limit()
            _BLAS["limiter"] = _BLAS["controller"].limit(limits=1, user_api="blas")
        _BLAS["depth"] += 1
    try:
        yield
    finally:
        with _BLAS["lock"]:
            _BLAS["depth"] -= 1
            if _BLAS["depth"] == 0:
                _BLAS["limiter"].restore_original_limits()
                _BLAS["limiter"] = None
