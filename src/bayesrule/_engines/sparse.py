"""One-pass compiled kernels for sparse counts, with NumPy/SciPy fallbacks.

With numba installed (``pip install bayesrule[fast]``) the sparse count families
(multinomial, Bernoulli, complement) score and count CSR rows with the small loops below,
compiled once and cached on disk. Without it, or with the environment variable
``BAYESRULE_NO_NUMBA=1``, SciPy's sparse products do the same work. Both add the same
terms in the same order (row by row, non-zeros in storage order), so the scores and the class
sums are the same numbers. For ``predict`` a third loop takes each row's class of highest
joint as it goes (:func:`csr_best_class`), writing no (C, rows) block of scores.

Column indices are read as unsigned integers and checked against the number of columns:
a malformed matrix gets a ValueError, not a read or write outside the arrays.

The kernels release the GIL: the callers' worker threads run them side by side.

Examples
--------
>>> import numpy as np
>>> import scipy.sparse as sp
>>> from bayesrule._engines.sparse import csr_times_t
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
        from . import _kernels
    except ImportError:
        return None
    return _kernels.times_t, _kernels.class_sums, _kernels.best_class


#: fewer non-zeros than this go through SciPy: the same numbers, and no compilation
#: (seconds, once per machine) for a matrix that SciPy scores in microseconds
COMPILED_FROM = 50_000


def enabled(nnz: int | None = None) -> bool:
    """Whether the compiled kernels are in use (numba installed, not disabled), for a
    matrix of ``nnz`` non-zeros if given (small ones take the fallback)."""
    if nnz is not None and nnz < COMPILED_FROM:
        return False
    return os.environ.get(DISABLE_ENV, "") != "1" and _compiled() is not None


def _parts(X):
    """The arrays of the CSR matrix ``X`` as the kernels take them: float64 values,
    column indices and row starts viewed as unsigned integers of one type, and the
    number of columns in that type (the kernels check every index against it, and the
    row starts are checked here: a malformed matrix must not read past its arrays or
    the weights)."""
    check_rows(X)
    indices, indptr = X.indices, X.indptr
    unsigned = np.dtype(indices.dtype.str.replace("i", "u"))
    return (
        np.asarray(X.data, dtype=np.float64),
        indices.view(unsigned),
        indptr.astype(indices.dtype, copy=False).view(unsigned),
        unsigned.type(X.shape[1]),
    )


def check_rows(X) -> None:
    """ValueError unless the row starts of the CSR matrix ``X`` rise from 0 to at most
    its number of stored values (scipy's default check lets such a matrix through, and
    the loops would read past its arrays)."""
    indptr, stored = X.indptr, min(X.indices.size, X.data.size)
    if indptr.size != X.shape[0] + 1 or (
        indptr.size and (indptr[0] != 0 or indptr[-1] > stored or (indptr[1:] < indptr[:-1]).any())
    ):
        raise ValueError(
            "X is not a valid CSR matrix: its row starts (indptr) must rise from 0 to at "
            "most the number of stored values. Rebuild it (scipy's "
            "X.check_format(full_check=True) names the fault)."
        )


def check_csr(X) -> None:
    """ValueError unless ``X``'s row starts and column indices are in range: the check
    the compiled loops make as they go, for the SciPy fallbacks (whose products would
    read past the arrays of a malformed matrix)."""
    check_rows(X)
    indices = X.indices
    _in_range(not indices.size or (indices.min() >= 0 and indices.max() < X.shape[1]), X)


def _in_range(ok: bool, X) -> None:
    if not ok:
        raise ValueError(
            f"X is not a valid CSR matrix: a column index is outside 0 .. {X.shape[1] - 1}. "
            "Rebuild it (scipy's X.check_format(full_check=True) names the fault)."
        )


def csr_times_t(X, W_t: np.ndarray) -> np.ndarray:
    """``(X @ W_t).T`` for a sparse matrix ``X`` (rows, d) and dense ``W_t`` (d, C):
    class-major (C, rows), float64; missing values (NaN) count as 0."""
    X = sp.csr_array(X)
    W_t = np.ascontiguousarray(W_t, dtype=np.float64)
    if not enabled(X.nnz):
        check_csr(X)
        if np.isnan(np.add.reduce(X.data)):
            X = sp.csr_array((np.nan_to_num(X.data, nan=0.0), X.indices, X.indptr), X.shape)
        return np.ascontiguousarray((X @ W_t).T)
    out = np.empty((W_t.shape[1], X.shape[0]))
    _in_range(_compiled()[0](*_parts(X), W_t, out), X)
    return out


def csr_best_class(X, W_t: np.ndarray, intercept, log_prior, out, w32=None):
    """Write into ``out`` (intp, one per row) the class of highest joint
    ``(X @ W_t + intercept) + log_prior`` of each row of the CSR matrix ``X`` (NaN
    counting as 0; the first class on ties), with the compiled kernel and no (C, rows)
    block written: exactly the class that an argmax over :func:`csr_times_t`'s float64
    scores gives, for values ``x >= 0`` (the count families refuse others; a negative
    value shows in the returned minimum, and the caller must then not use ``out``).

    ``w32`` is what :func:`weights32` makes of ``W_t`` (made here if not given): the
    scores are summed from float32 weights where their rounding can be bounded, and a
    row whose two best joints are too close for it to decide is summed again in float64.

    Returns the smallest value that is not NaN, whether some row's joint has a NaN or no
    finite maximum (then ``out`` is not to be trusted and the caller takes the path that
    checks and explains), and the number of rows summed again.
    """
    W_t = np.ascontiguousarray(W_t, dtype=np.float64)
    W32, rel = w32 or weights32(W_t)
    intercept = np.ascontiguousarray(intercept, dtype=np.float64)
    log_prior = np.ascontiguousarray(log_prior, dtype=np.float64)
    finite = np.abs(np.concatenate([intercept, log_prior]))
    extra = 8.0 * float(finite[np.isfinite(finite)].max(initial=0.0))
    low, bad, ok, again = _compiled()[2](
        *_parts(X), W32, W_t, rel, extra, intercept, log_prior, out
    )
    _in_range(ok, X)
    return low, bad, again


def weights32(W_t: np.ndarray, nnz: int | None = None) -> tuple[np.ndarray, float]:
    """The weights (d, C) that :func:`csr_best_class` sums, and the relative bound of
    what that may change (made once per prediction and shared by the blocks; for
    ``nnz`` values to score, fewer than 4 per feature, the float64 weights as they are).

    Where every weight has one sign (multinomial: ``ln theta <= 0``; complement: > 0)
    and the values are >= 0, each class's sum of ``|x_k| |w_k|`` is the magnitude of its
    score, so rounding the weights to float32 (``|w - w32| <= 2^-24 |w|``) moves a score
    by at most ``2^-24`` of its magnitude; the float64 sums of n products (ours and the
    reference) and the two additions after them add ``(n + 3) 2^-52`` of the magnitudes
    of the score, intercept and prior at most: the kernel allows ``2^-22 + n 2^-50`` of
    ``|best| + |second| + extra``, with ``extra`` 8 times the largest finite
    ``|intercept|`` or ``|log prior|``. Otherwise the float64 weights themselves are
    summed (and only near-ties are summed again, to the same result).
    """
    W_t = np.ascontiguousarray(W_t, dtype=np.float64)
    if nnz is not None and nnz < 4 * W_t.shape[0]:  # the copy would cost more than it saves
        return W_t, 0.0
    if W_t.size and np.isfinite(W_t).all() and (W_t.max() <= 0 or W_t.min() >= 0):
        return W_t.astype(np.float32), 2.0**-22
    return W_t, 0.0


def class_sums(X, y, classes: range, offset, w, threshold, total, missing) -> tuple[float, int]:
    """Add the weighted values of the CSR rows of ``X`` whose class ``y`` is in
    ``classes`` into ``total[offset[i] + j]``, and the weights of their NaN into
    ``missing`` (both flat float64), with the compiled kernel; ``offset[i]`` is
    ``y[i] * d``.

    Workers given disjoint ranges of classes write to disjoint parts of ``total``, each
    entry summed in row order. ``threshold`` None sums the values (counts); a number
    counts ``x > threshold`` as 1. Returns the smallest value that is not NaN (inf if
    none) and the number of NaN: the caller needs no other pass to check the values.
    """
    data, indices, indptr, d = _parts(X)
    low, n_nan, ok = _compiled()[1](
        data,
        indices,
        indptr,
        d,
        y,
        classes.start,
        classes.stop,
        offset.astype(np.uint64, copy=False),
        w,
        threshold is not None,
        0.0 if threshold is None else float(threshold),
        total,
        missing,
    )
    _in_range(ok, X)
    return low, n_nan
