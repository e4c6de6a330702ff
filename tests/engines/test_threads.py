"""The size of bayesrule's own thread pools follows the CPUs, OMP_NUM_THREADS and a
threadpoolctl limit on BLAS."""

import subprocess
import sys

from bayesrule._engines import threads


def test_a_blas_limit_and_omp_num_threads_cap_the_pools(monkeypatch):
    monkeypatch.setattr(threads, "_blas_limit", lambda: 1)
    assert threads.n_threads() == 1
    monkeypatch.setattr(threads, "_blas_limit", lambda: None)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert threads.n_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "64")
    assert 1 <= threads.n_threads() <= threads.MAX_THREADS


def test_threadpool_limits_reach_the_pools_in_a_fresh_process():
    # a fresh process: OpenBLAS called from many threads before (e.g. a Dask EM fit) can
    # stop reporting the limit threadpoolctl sets, which n_threads reads
    code = (
        "from threadpoolctl import threadpool_limits\n"
        "import numpy\n"
        "from bayesrule._engines.threads import n_threads\n"
        "with threadpool_limits(limits=1, user_api='blas'):\n"
        "    print(n_threads())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


def test_bayesrules_own_blas_limit_leaves_its_pools_alone():
    # fits run BLAS single-threaded (one_blas_thread); the pools inside them must not
    # read that as a user's limit (AODE's pair counts ran in one thread); a user's limit
    # around them still counts, in a fresh process (see above)
    code = (
        "from threadpoolctl import threadpool_limits\n"
        "import numpy\n"
        "from bayesrule._engines.threads import n_threads, one_blas_thread\n"
        "free = n_threads()\n"
        "with one_blas_thread():\n"
        "    inside = n_threads()\n"
        "with threadpool_limits(limits=1, user_api='blas'), one_blas_thread():\n"
        "    limited = n_threads()\n"
        "print(free, inside, limited, n_threads())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    free, inside, limited, after = map(int, out.stdout.split())
    assert (inside, limited, after) == (free, 1, free)


def test_in_order_keeps_the_order_the_context_and_a_bound_on_work_in_flight():
    import contextvars
    import threading
    import time

    from bayesrule._engines.threads import in_order

    label = contextvars.ContextVar("label", default="none")
    label.set("caller")
    running, most = [0], [0]
    lock = threading.Lock()

    def work(i):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.002 * (i % 3))  # later items may finish first
        with lock:
            running[0] -= 1
        return i * i, label.get(), threading.current_thread().name

    for workers in (1, 2, 3):
        got = list(in_order(work, range(12), workers))
        assert [i for i, _ in got] == list(range(12))
        assert [r[0] for _, r in got] == [i * i for i in range(12)]
        assert {r[1] for _, r in got} == {"caller"}  # the caller's context in every thread
        assert most[0] <= workers
        assert (len({r[2] for _, r in got}) > 1) is (workers > 1)


def test_kernel_blocks_in_threads_give_the_numbers_of_one_thread(monkeypatch):
    """Two threads whatever the machine's CPUs, against one."""
    import numpy as np

    from bayesrule import KernelNB
    from bayesrule.likelihoods import kernel

    rng = np.random.default_rng(0)
    X = rng.normal(size=(160_000, 4)) + np.repeat([[0.0], [1.5]], 80_000, axis=0)
    y = np.repeat(["a", "b"], 80_000)
    model = KernelNB().fit(X, y)
    like = model.likelihood_
    assert X.size >= kernel.THREADED_VALUES and like._row_block(4) < len(X)  # several blocks
    results = {}
    for workers in (2, 1):
        monkeypatch.setattr(kernel, "n_threads", lambda workers=workers: workers)
        assert like._workers(*X.shape) == workers
        results[workers] = model.predict_joint_log_proba(X)
    np.testing.assert_array_equal(results[2], results[1])


def test_in_order_runs_in_the_calling_thread_away_from_the_main_one():
    import threading

    from bayesrule._engines.threads import in_order

    seen = []

    def inner():
        caller = threading.current_thread().name
        names = {r for _, r in in_order(lambda i: threading.current_thread().name, range(6), 4)}
        seen.append(names == {caller})

    worker = threading.Thread(target=inner)
    worker.start()
    worker.join()
    assert seen == [True]


def test_in_order_reuses_its_threads_and_works_after_a_fork():
    """The pools outlive a call (no threads started per call), one per number of workers;
    a forked child (multiprocessing's "fork") gets pools of its own, which run."""
    import os
    import threading

    def who(_):
        return threading.get_ident()

    first = {ident for _, ident in threads.in_order(who, range(8), 2)}
    again = {ident for _, ident in threads.in_order(who, range(8), 2)}
    pool = {thread.ident for thread in threads._POOLS[2]._threads}
    assert first | again <= pool and len(pool) <= 2  # the same two threads, both calls
    assert threading.get_ident() not in first
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: in_order must run, not hang on the parent's threads
        try:
            done = [x * x for _, x in threads.in_order(lambda x: x, range(5), 2)]
            os.write(write, repr(done).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    assert os.read(read, 100).decode() == "[0, 1, 4, 9, 16]"
