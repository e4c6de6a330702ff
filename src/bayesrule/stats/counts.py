"""Additive count statistics shared by the Bernoulli, multinomial and complement families.

A block of rows gives, per class c and feature j, the weighted sum of the (binarised, for
Bernoulli) values ``feature_sum[c, j]`` and the weighted number of rows where feature j
is observed ``observed[c, j]`` (a NaN, dense or in a sparse matrix's ``.data``, is
missing and counts in neither). Two blocks merge by adding, so ``fit``, ``partial_fit``
and block-wise fitting are one code path.

Counting never densifies a sparse matrix. For CSR input each non-zero gets the key
``class * d + column`` and the sums are one scatter-add over the non-zeros, in chunks of
rows: ``np.add.at`` into one accumulator, or, with several CPUs and enough non-zeros,
per worker thread a sparse matrix-vector product ``Z @ w`` (Z the re-keyed non-zeros as
a (C d, rows) CSC matrix), which scipy runs without the GIL. With numba
(:mod:`~bayesrule._engines.sparse`) one compiled pass does the scatter-add instead,
each worker thread taking the rows of its own classes. Dense input goes through a
weighted one-hot matrix product, in blocks of rows.

Examples
--------
>>> import numpy as np
>>> import scipy.sparse as sp
>>> from bayesrule.stats.counts import count_statistics
>>> X = np.array([[2.0, 0.0, 1.0], [0.0, np.nan, 3.0], [1.0, 1.0, 0.0]])
>>> y = np.array([0, 0, 1])
>>> s = count_statistics(sp.csr_array(X), y, 2)
>>> s.feature_sum
array([[2., 0., 4.],
       [1., 1., 0.]])
>>> s.observed
array([[2., 1., 2.],
       [1., 1., 1.]])
>>> both = count_statistics(X[:2], y[:2], 2).merge(count_statistics(X[2:], y[2:], 2))
>>> bool(np.array_equal(both.feature_sum, s.feature_sum))
True
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._blocks import BLOCK_BYTES
from .._engines import sparse as kernels
from .._engines.threads import n_threads

#: sparse counting handles about this many non-zeros per chunk (bounded temporaries);
#: worker threads take chunks of at least THREAD_CHUNK_NNZ and of C * d non-zeros.
CHUNK_NNZ = 1 << 18
THREAD_CHUNK_NNZ = 1 << 20

#: per-thread accumulators of sparse counting stay below this many bytes in all.
MAX_ACCUMULATOR_BYTES = 1 << 28

#: how the values of a block are read: raw non-negative counts, or binarised.
COUNTS = "counts"


@dataclass
class CountStats:
    """Weighted per-class sums of a block of rows; they add with :meth:`merge`.

    Attributes
    ----------
    class_weight : ndarray of shape (C,)
        Weighted number of rows of each class.
    feature_sum : ndarray of shape (C, d)
        Weighted sum of each feature's (binarised) values over the rows of each class.
    observed : ndarray of shape (C, d)
        Weighted number of rows of each class where the feature is not missing.
    """

    class_weight: np.ndarray
    feature_sum: np.ndarray
    observed: np.ndarray

    def merge(self, other: CountStats) -> CountStats:
        """The statistics of both blocks together."""
        if self.feature_sum.shape != other.feature_sum.shape:
            raise ValueError(
                f"cannot merge count statistics of shapes {self.feature_sum.shape} and "
                f"{other.feature_sum.shape} (classes, features); the blocks must have the "
                "same classes and features."
            )
        return CountStats(
            self.class_weight + other.class_weight,
            self.feature_sum + other.feature_sum,
            self.observed + other.observed,
        )


def count_statistics(X, y, n_classes, sample_weight=None, *, values=COUNTS, name="Multinomial"):
    """:class:`CountStats` of a block of rows (dense array or CSR matrix).

    ``values`` is ``"counts"`` (non-negative counts, summed as they are), a float
    threshold (Bernoulli: ``x > threshold`` counts as 1) or None (Bernoulli on data that
    are already 0/1). ``name`` is the family's name for messages.
    """
    y = np.asarray(y, dtype=np.intp)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    class_weight = np.bincount(y, weights=w, minlength=n_classes).astype(np.float64)
    if sp.issparse(X):
        feature_sum, missing = _sparse_sums(X, y, n_classes, w, values, name)
    else:
        feature_sum, missing = _dense_sums(np.asarray(X), y, n_classes, w, values, name)
    observed = np.empty_like(feature_sum)
    observed[...] = class_weight[:, None]
    if missing is not None:
        observed -= missing
        # rounding must not leave a tiny positive weight where every row was missing
        observed[missing >= class_weight[:, None] * (1 - 1e-12)] = 0.0
    return CountStats(class_weight, feature_sum, observed)


def check_values(v: np.ndarray, values, name: str, where) -> bool:
    """ValueError for a negative count or a non-0/1 value where binary data are due.

    ``where(k)`` gives (row, column) of the k-th entry of ``v`` (flat index). Returns
    whether ``v`` may hold NaN (False: it holds none).
    """
    if v.size == 0:
        return False
    if isinstance(values, str):
        low = np.min(v)  # NaN when anything is missing: then the smallest observed value
        nan = bool(np.isnan(low))
        if nan:
            low = np.fmin.reduce(v, axis=None)
        if not low < 0:
            return nan
        _refuse(
            v < 0,
            v,
            where,
            f"Negative values in data: {name} needs counts >= 0, but feature {{col}} has the "
            "negative value {value!r} (row {row}); pass counts (or frequencies) >= 0, or use "
            "a family for real values (GaussianNB).",
        )
    elif values is None:
        _refuse(
            (v != 0) & (v != 1) & ~np.isnan(v),
            v,
            where,
            "binarize=None expects 0/1 data, but feature {col} has the value {value!r} "
            "(row {row}); pass binarize=0.0 (values above 0 count as 1) or another threshold.",
        )
    return _has_nan(v)


def _refuse(bad: np.ndarray, v: np.ndarray, where, message: str) -> None:
    """ValueError ``message`` (formatted with the ``row``, ``col`` and ``value`` of the
    first flagged entry of ``v``; ``where`` as in check_values) if any entry is flagged."""
    if bad.any():
        k = int(np.flatnonzero(bad.ravel())[0])
        row, col = where(k)
        raise ValueError(message.format(row=row, col=col, value=float(v.ravel()[k])))


def locate(X):
    """A function: flat index k of a value of ``X`` (of ``X.data`` if sparse) -> (row, col)."""
    if sp.issparse(X):
        indptr, indices = X.indptr, X.indices
        return lambda k: (int(np.searchsorted(indptr, k, side="right") - 1), int(indices[k]))
    return lambda k: tuple(int(i) for i in np.unravel_index(k, X.shape))


def _has_nan(v: np.ndarray) -> bool:
    # a sum is NaN when any term is (inf cannot occur: X is validated finite or NaN); a
    # sum of huge values may overflow, to inf or, with both signs, to NaN: look closer
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(v, axis=None) if v.size else 0.0
    return bool(np.isnan(total)) and bool(np.isnan(v).any())


def _dense_sums(X, y, n_classes, w, values, name):
    n, d = X.shape
    nan = check_values(X, values, name, locate(X)) and bool(np.isnan(X).any())
    feature_sum = np.zeros((n_classes, d))
    missing = np.zeros((n_classes, d)) if nan else None
    step = max(256, BLOCK_BYTES // (8 * (2 * d + n_classes)))
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        onehot = np.zeros((rows.stop - start, n_classes))
        onehot[np.arange(rows.stop - start), y[rows]] = 1.0 if w is None else w[rows]
        block = X[rows]
        if values is not None and not isinstance(values, str):
            vals = np.greater(block, values).astype(np.float64)
        else:
            vals = block.astype(np.float64, copy=nan)  # a copy only when NaN are zeroed
        if nan:
            mask = np.isnan(block)
            vals[mask] = 0.0
            missing += onehot.T @ mask.astype(np.float64)
        feature_sum += onehot.T @ vals
    return feature_sum, missing


def _sparse_sums(X, y, n_classes, w, values, name):
    binary = values is not None and not isinstance(values, str)
    if X.format != "csr":
        X = sp.csr_array(X)
    if binary and not X.has_canonical_format:  # duplicates are summed before binarising
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    if binary and values < 0:
        raise ValueError(
            f"binarize={values!r} is negative: every implicit zero of a sparse matrix would "
            "count as 1. Use binarize >= 0, or pass a dense array."
        )
    size = n_classes * d
    # the key of a non-zero: class * d + column (int32 where that fits)
    offset = (y * d).astype(np.int32 if size < 2**31 else np.int64)
    if kernels.enabled(X.nnz):
        if values is None:  # 0/1 data: checked apart (the kernel checks only counts)
            check_values(X.data, values, name, locate(X))
        return _compiled_sums(X, y, offset, w, values, name, n_classes, d)
    kernels.check_csr(X)  # the compiled kernel checks as it goes
    nan = check_values(X.data, values, name, locate(X))
    # threads pay when each has chunks of more non-zeros than the C * d accumulator
    workers = min(n_threads(), int(X.nnz // (2 * size)), int(MAX_ACCUMULATOR_BYTES // (8 * size)))
    chunk = CHUNK_NNZ if workers <= 1 else max(THREAD_CHUNK_NNZ, size)
    bounds = _row_bounds(X.indptr, chunk)
    chunks = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    feature_sum = np.zeros(size)
    missing = np.zeros(size) if nan else None
    if workers <= 1 or len(chunks) < 2:
        for start, stop in chunks:  # one scatter-add (np.add.at) into one accumulator
            key, vals, mask, _ = _keyed(X, offset, start, stop, values, nan)
            if w is not None:
                row_w = np.repeat(w[start:stop], np.diff(X.indptr[start : stop + 1]))
                vals = vals * row_w
            if mask is not None:
                np.add.at(missing, key[mask], 1.0 if w is None else row_w[mask])
            np.add.at(feature_sum, key, vals)
    else:
        w = np.ones(n) if w is None else w
        with ThreadPoolExecutor(workers) as pool:
            parts = np.array_split(np.arange(len(chunks)), workers)
            jobs = [
                pool.submit(
                    _threaded_sums, X, offset, [chunks[k] for k in part], w, values, nan, size
                )
                for part in parts
            ]
            for job in jobs:
                total, miss = job.result()
                feature_sum += total
                if miss is not None:
                    missing += miss
    shape = (n_classes, d)
    return feature_sum.reshape(shape), None if missing is None else missing.reshape(shape)


def _compiled_sums(X, y, offset, w, values, name, n_classes: int, d: int):
    """``_sparse_sums`` by the compiled kernel: one pass over the non-zeros, which also
    finds the NaN and the smallest value (refused if < 0). Each worker sums the rows of
    its own classes, about the same number of non-zeros each, into its own part of one
    accumulator: no per-worker copies, and every sum in row order."""
    w = np.ones(X.shape[0]) if w is None else w
    threshold = values if values is not None and not isinstance(values, str) else None
    per_class = np.cumsum(np.bincount(y, weights=np.diff(X.indptr), minlength=n_classes))
    workers = max(1, min(n_threads(), n_classes, X.nnz // THREAD_CHUNK_NNZ))
    cuts = np.searchsorted(per_class, per_class[-1] * np.arange(1, workers) / workers)
    bounds = np.unique(np.concatenate([[0], cuts + 1, [n_classes]]).clip(0, n_classes))
    groups = [range(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    # one accumulator each; np.zeros leaves the pages of ``missing`` unused if no NaN
    total, missing = np.zeros(n_classes * d), np.zeros(n_classes * d)

    offset = offset.astype(np.uint64)  # once for all workers (the kernels' key type)

    def run(classes: range):
        return kernels.class_sums(X, y, classes, offset, w, threshold, total, missing)

    if len(groups) > 1:
        with ThreadPoolExecutor(len(groups)) as pool:
            results = list(pool.map(run, groups))
    else:
        results = [run(g) for g in groups]
    if isinstance(values, str) and min(r[0] for r in results) < 0:
        check_values(X.data, values, name, locate(X))  # raises, naming the entry
    nan = sum(r[1] for r in results) > 0
    shape = (n_classes, d)
    return total.reshape(shape), missing.reshape(shape) if nan else None


def _row_bounds(indptr, chunk: int) -> np.ndarray:
    """Row boundaries of chunks of about ``chunk`` non-zeros each (at least one row)."""
    targets = np.arange(chunk, int(indptr[-1]), chunk)
    cuts = np.searchsorted(indptr, targets)
    return np.unique(np.concatenate([[0], cuts, [len(indptr) - 1]])).astype(np.intp)


def _keyed(X, offset, start: int, stop: int, values, nan: bool):
    """Keys (class * d + column), values to sum (NaN as 0), missing mask (or None) and
    row starts of the non-zeros of rows ``start:stop``."""
    indptr = X.indptr
    lo, hi = int(indptr[start]), int(indptr[stop])
    starts = indptr[start : stop + 1] - lo
    key = np.repeat(offset[start:stop], np.diff(starts))
    key += X.indices[lo:hi]
    raw = vals = X.data[lo:hi]
    if values is not None and not isinstance(values, str):
        vals = np.greater(raw, values).astype(np.float64)  # NaN > t is False
    mask = None
    if nan:
        mask = np.isnan(raw)
        if mask.any():
            vals = np.where(mask, 0.0, vals)
        else:
            mask = None
    return key, vals, mask, starts


def _threaded_sums(X, offset, chunks, w, values, nan: bool, size: int):
    """One worker's sums over its chunks of rows, by sparse matrix-vector products.

    The re-keyed non-zeros of a chunk form a (C d, rows) CSC matrix Z; the weighted sums
    are ``Z @ w``, a scatter-add that scipy runs without the GIL.
    """
    total, missing = np.zeros(size), None
    for start, stop in chunks:
        key, vals, mask, starts = _keyed(X, offset, start, stop, values, nan)
        shape = (size, stop - start)
        total += sp.csc_array((vals, key, starts), shape=shape) @ w[start:stop]
        if mask is not None:
            miss = sp.csc_array((mask.astype(np.float64), key, starts), shape=shape)
            missing = (0.0 if missing is None else missing) + miss @ w[start:stop]
    return total, missing
