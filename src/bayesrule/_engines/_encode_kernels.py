"""The numba kernels of :mod:`bayesrule.stats.table_codes` (imported only where numba is):
a C-ordered table of small integers encoded in row-major passes (its columns strided)."""

from __future__ import annotations

import numpy as np

from ._kernels import _jit

#: the values a column's window holds in :func:`ranges_marked`
WINDOW = 256


@_jit
def ranges_marked(X, keep, low, high, count, anchor, window):
    """Per column the lowest and highest value and the number of values, NaN (missing)
    and rows with ``keep`` 0 skipped (``keep`` of length 0: every row); and each kept
    value marked in its column's ``window`` row (shape (d, WINDOW)) at ``value -
    anchor[j]`` (``anchor`` the column's first kept value less WINDOW / 2; NaN until
    then). Returns (whole, fits): ``whole`` False, at once, where a kept value is not a
    whole number below 2**52 in magnitude; ``fits`` False where a value fell outside its
    window (the marks then do not say which values occur)."""
    n, d = X.shape
    fits = True
    every = keep.shape[0] == 0
    half = WINDOW // 2
    for i in range(n):
        if not every and keep[i] == 0:
            continue
        for j in range(d):
            v = np.float64(X[i, j])
            if v != v:
                continue
            if not (-4503599627370496.0 < v < 4503599627370496.0) or v != np.floor(v):
                return False, False
            if v < low[j]:
                low[j] = v
            if v > high[j]:
                high[j] = v
            count[j] += 1
            if anchor[j] != anchor[j]:
                anchor[j] = v - half
            at = v - anchor[j]
            if 0.0 <= at < WINDOW:
                window[j, np.int64(at)] = 1
            else:
                fits = False
    return True, fits


@_jit
def int_ranges(X, low, high):
    """Per column the lowest and highest value of an integer table (every row): the loop
    over a row's columns runs on SIMD vectors (no branch, no missing value to skip)."""
    n, d = X.shape
    for i in range(n):
        for j in range(d):
            v = X[i, j]
            low[j] = min(low[j], v)
            high[j] = max(high[j], v)


@_jit
def int_offsets(X, low, starts, present, codes):
    """``codes[j, i]`` (shape (d, n)) = ``X[i, j] - low[j]``, each value marked in
    ``present`` at ``starts[j]`` + that offset."""
    n, d = X.shape
    for i in range(n):
        for j in range(d):
            at = X[i, j] - low[j]
            codes[j, i] = at
            present[starts[j] + at] = 1


@_jit
def mark(X, keep, low, starts, present):
    """``present[starts[j] + X[i, j] - low[j]] = 1`` for the kept values."""
    n, d = X.shape
    every = keep.shape[0] == 0
    for i in range(n):
        if not every and keep[i] == 0:
            continue
        for j in range(d):
            v = np.float64(X[i, j])
            if v == v:
                present[starts[j] + np.int64(v - low[j])] = 1


@_jit
def write(X, keep, low, starts, rank, codes):
    """``codes[j, i]`` (shape (d, n)) = the rank of ``X[i, j]`` among its column's
    values, -1 where missing or the row is not kept."""
    n, d = X.shape
    every = keep.shape[0] == 0
    for i in range(n):
        kept = every or keep[i] != 0
        for j in range(d):
            v = np.float64(X[i, j])
            if kept and v == v:
                codes[j, i] = rank[starts[j] + np.int64(v - low[j])]
            else:
                codes[j, i] = -1
