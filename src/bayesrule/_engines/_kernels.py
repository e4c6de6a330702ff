"""The numba kernels of :mod:`bayesrule._engines.sparse` (imported only where numba is).

They are module-level functions, not closures, so that numba's on-disk cache
(``cache=True``) finds them again in the next process: a closure's cache key includes
its captured dispatchers, whose identity changes from run to run, which made every new
process compile them again (seconds per ``predict`` of a text model). The cache lies
beside this file (``__pycache__``) where that is writable, else in numba's per-user cache
folder (``NUMBA_CACHE_DIR`` overrides both); where neither is writable, the kernels are
compiled in memory for the process.
"""

from __future__ import annotations

import numba
import numpy as np


def _jit(function):
    """``numba.njit(nogil=True, cache=True)``, without the disk cache where no cache
    folder is writable (numba refuses ``cache=True`` there)."""
    try:
        return numba.njit(nogil=True, cache=True)(function)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(function)


@_jit
def add_row(data, indices, start, stop, W_t, d, acc):
    """acc[c] += x_k W_t[j_k, c] over the non-zeros k of one row, in storage order,
    NaN (missing) skipped; returns the smallest value seen (inf if none) and whether
    every column index was below ``d``. Indices (and ``d``) arrive unsigned: no
    negative-index wraparound in the loop."""
    n_classes = W_t.shape[1]
    low, ok = np.inf, True
    for k in range(start, stop):
        v = data[k]
        j = indices[k]
        if v != v or j >= d:
            ok = ok and j < d
            continue
        low = min(low, v)
        row = W_t[j]
        for c in range(n_classes):
            acc[c] += v * row[c]
    return low, ok


@_jit
def times_t(data, indices, indptr, d, W_t, out):  # out[c, i] = sum_k x_ik W_t[k, c]
    acc = np.empty(W_t.shape[1])
    ok = True
    for i in range(indptr.size - 1):
        acc[:] = 0.0
        ok &= add_row(data, indices, indptr[i], indptr[i + 1], W_t, d, acc)[1]
        out[:, i] = acc
    return ok


@_jit
def top_two(acc, intercept, log_prior):
    """(best, second best, first class of the best) of the joints
    ``(acc + intercept) + log_prior``, and whether one of them is NaN."""
    best, second, where, nan = -np.inf, -np.inf, 0, False
    for c in range(acc.size):
        s = (acc[c] + intercept[c]) + log_prior[c]
        if s != s:
            nan = True
        elif s > best:
            best, second, where = s, best, c
        elif s > second:
            second = s
    return best, second, where, nan


@_jit
def best_class(data, indices, indptr, d, W32, W_t, rel, extra, intercept, log_prior, out):
    """out[i] = the first c of highest ``(sum_k x_ik W_t[k, c] + intercept[c]) +
    log_prior[c]`` as float64 arithmetic gives it, computed from ``W32`` (a float32
    copy of ``W_t``, half the bytes to gather, or ``W_t`` itself) and certified: a row
    whose two best joints lie within ``(rel + n 2^-50) (|best| + |second| + extra)``
    for its n stored values (the largest possible difference from the float64 sums,
    see :func:`weights32`) is summed again with ``W_t``. Returns the smallest value
    that is not NaN, whether a row's joint has a NaN or no finite maximum, whether
    every index was below ``d``, and the number of rows summed again."""
    acc = np.empty(W_t.shape[1])
    low, bad, ok, again = np.inf, False, True, 0
    for i in range(indptr.size - 1):
        start, stop = indptr[i], indptr[i + 1]
        acc[:] = 0.0
        row_low, row_ok = add_row(data, indices, start, stop, W32, d, acc)
        low, ok = min(low, row_low), ok and row_ok
        best, second, where, nan = top_two(acc, intercept, log_prior)
        tol = (rel + (stop - start) * 2.0**-50) * (abs(best) + abs(second) + extra)
        if not best - second > tol:
            again += 1
            acc[:] = 0.0
            add_row(data, indices, start, stop, W_t, d, acc)
            best, second, where, nan = top_two(acc, intercept, log_prior)
        bad |= nan or best == np.inf or best == -np.inf
        out[i] = where
    return low, bad, ok, again


@_jit
def class_sums(data, indices, indptr, d, y, lo, hi, offset, w, binary, threshold, total, missing):
    low, n_nan, ok = np.inf, 0, True
    for i in range(indptr.size - 1):
        if y[i] < lo or y[i] >= hi:  # another worker's class
            continue
        base = offset[i]  # unsigned 64-bit: base + j never wraps
        wi = w[i]
        for k in range(indptr[i], indptr[i + 1]):
            v = data[k]
            j = indices[k]
            if j >= d:
                ok = False
                continue
            key = base + j
            if v != v:  # NaN: missing, counted apart
                missing[key] += wi
                n_nan += 1
                continue
            low = min(low, v)
            if binary:
                if v > threshold:
                    total[key] += wi
            else:
                total[key] += v * wi
    return low, n_nan, ok
