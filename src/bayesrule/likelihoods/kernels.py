"""One-pass compiled kernels for sparse counts, with NumPy/SciPy fallbacks.

With numba installed (``pip install bayesrule[fast]``) the sparse count families
(multinomial, Bernoulli, complement) score and count CSR rows with the small loops below,
compiled once and cached on disk. Without it, or with the environment variable
``BAYESRULE_NO_NUMBA=1``, SciPy's sparse products do the same work. Both add the same
terms in the same order (row by row, non-zeros in storage order), so the scores and the class
sums are the same numbers.

The kernels release the GIL: the callers' worker threads run them side by side.

Examples
--------
>>> import numpy as np
>>> import scipy.sparse as sp
>>> from bayesrule.likelihoods.kernels import csr_times_t
>>> X = sp.csr_array(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
>>> W_t = np.array([[1.0, -1.0], [0.5, 0.0], [2.0, 1.0]])
>>> csr_times_t(X, W_t)
array([[5. , 1.5],
       [1. , 0. ]])
>>> X[0, 2] = np.nan  # missing: counts as 0
>>> csr_times_t(X, W_t)
array([[ 1. ,  1.5],
       [-1. ,  0. ]])
"""

from __future__ import annotations

import os
from functools import cache

import numpy as np
import scipy.sparse as sp

#: set to "1" to use the NumPy/SciPy fallbacks even where numba is installed
DISABLE_ENV = "BAYESRULE_NO_NUMBA"


@cache
def _compiled():
    """The compiled kernels, or None without numba (imported on first use: numba takes
    a moment to import, which ``import bayesrule`` should not pay)."""
    try:
        import numba
    except ImportError:
        return None
    jit = numba.njit(nogil=True, cache=True)

    @jit
    def times_t(data, indices, indptr, W_t, out):  # out[c, i] = sum_k x_ik W_t[k, c]
        n_classes = W_t.shape[1]
        acc = np.empty(n_classes)
        for i in range(indptr.size - 1):
            acc[:] = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                v = data[k]
                if v != v:  # NaN (missing) counts as 0
                    continue
                row = W_t[indices[k]]
                for c in range(n_classes):
                    acc[c] += v * row[c]
            for c in range(n_classes):
                out[c, i] = acc[c]

    @jit
    def class_sums(data, indices, indptr, y, lo, hi, offset, w, binary, threshold, total, missing):
        low, n_nan = np.inf, 0
        for i in range(indptr.size - 1):
            if y[i] < lo or y[i] >= hi:  # another worker's class
                continue
            base = offset[i]
            wi = w[i]
            for k in range(indptr[i], indptr[i + 1]):
                v = data[k]
                key = base + indices[k]
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
        return low, n_nan

    return times_t, class_sums


def enabled() -> bool:
    """Whether the compiled kernels are in use (numba installed, not disabled)."""
    return os.environ.get(DISABLE_ENV, "") != "1" and _compiled() is not None


def _parts(X):
    """The arrays of the CSR matrix ``X`` as the kernels take them: float64 values,
    row starts in the index type."""
    return (
        np.asarray(X.data, dtype=np.float64),
        X.indices,
        X.indptr.astype(X.indices.dtype, copy=False),
    )


def csr_times_t(X, W_t: np.ndarray) -> np.ndarray:
    """``(X @ W_t).T`` for a sparse matrix ``X`` (rows, d) and dense ``W_t`` (d, C):
    class-major (C, rows), float64; missing values (NaN) count as 0."""
    X = sp.csr_array(X)
    W_t = np.ascontiguousarray(W_t, dtype=np.float64)
    if not enabled():
        if np.isnan(np.add.reduce(X.data)):
            X = sp.csr_array((np.nan_to_num(X.data, nan=0.0), X.indices, X.indptr), X.shape)
        return np.ascontiguousarray((X @ W_t).T)
    out = np.empty((W_t.shape[1], X.shape[0]))
    _compiled()[0](*_parts(X), W_t, out)
    return out


def class_sums(X, y, classes: range, offset, w, threshold, total, missing) -> tuple[float, int]:
    """Add the weighted values of the CSR rows of ``X`` whose class ``y`` is in
    ``classes`` into ``total[offset[i] + j]``, and the weights of their NaN into
    ``missing`` (both flat float64), with the compiled kernel.

    Workers given disjoint ranges of classes write to disjoint parts of ``total``, each
    entry summed in row order. ``threshold`` None sums the values (counts); a number
    counts ``x > threshold`` as 1. Returns the smallest value that is not NaN (inf if
    none) and the number of NaN: the caller needs no other pass to check the values.
    """
    return _compiled()[1](
        *_parts(X),
        y,
        classes.start,
        classes.stop,
        offset,
        w,
        threshold is not None,
        0.0 if threshold is None else float(threshold),
        total,
        missing,
    )
