"""The numba kernel of :mod:`bayesrule.stats.set_counts` (imported only where numba is):
the class-conditional counts of attribute subsets, one pass over the rows."""

from __future__ import annotations

import numpy as np

from ._kernels import _jit


@_jit
def add_subsets(columns, y, w, subsets, starts, sizes, out):
    """``out[starts[s] + flat(y, x_a, x_b, ...)] += w`` for each subset ``s`` (a row of
    ``subsets``) and each row whose attributes of it are all observed (codes >= 0);
    ``flat`` row-major over (C, O_a, O_b, ...). ``columns`` are the codes by attribute,
    shape (d, n), so that a subset reads its columns in order and writes one small
    block; ``w`` of length 0: every weight 1."""
    n = columns.shape[1]
    K, m = subsets.shape
    unit = w.shape[0] == 0
    for s in range(K):
        start = starts[s]
        for r in range(n):
            index = y[r]
            for k in range(m):
                a = subsets[s, k]
                x = columns[a, r]
                if x < 0:
                    index = -1
                    break
                index = index * sizes[a] + x
            if index >= 0:
                out[start + index] += 1.0 if unit else w[r]


@_jit
def add_triples(columns, y, w, starts, sizes, out):
    """:func:`add_subsets` for the 3-subsets in ``itertools.combinations`` order
    (``starts`` in that order): each pair's key ``(y, x_a, x_b)`` made once and reused
    for every third attribute after it."""
    d, n = columns.shape
    unit = w.shape[0] == 0
    key = np.empty(n, dtype=np.int64)
    s = 0
    for a in range(d):
        for b in range(a + 1, d):
            if b == d - 1:
                break
            for r in range(n):
                xa, xb = columns[a, r], columns[b, r]
                key[r] = (y[r] * sizes[a] + xa) * sizes[b] + xb if xa >= 0 and xb >= 0 else -1
            for c in range(b + 1, d):
                start, size = starts[s], sizes[c]
                s += 1
                for r in range(n):
                    x = columns[c, r]
                    if key[r] >= 0 and x >= 0:
                        out[start + key[r] * size + x] += 1.0 if unit else w[r]
