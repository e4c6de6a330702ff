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
        import numba
    except ImportError:
        return None
    jit = numba.njit(nogil=True, cache=True)

    @jit
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

    @jit
    def times_t(data, indices, indptr, d, W_t, out):  # out[c, i] = sum_k x_ik W_t[k, c]
        acc = np.empty(W_t.shape[1])
        ok = True
        for i in range(indptr.size - 1):
            acc[:] = 0.0
            ok &= add_row(data, indices, indptr[i], indptr[i + 1], W_t, d, acc)[1]
            out[:, i] = acc
        return ok

    @jit
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

    @jit
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

    @jit
    def class_sums(
        data, indices, indptr, d, y, lo, hi, offset, w, binary, threshold, total, missing
    ):
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

    return times_t, class_sums, best_class


def enabled() -> bool:
    """Whether the compiled kernels are in use (numba installed, not disabled)."""
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
    if not enabled():
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
