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
