"""Additive count statistics shared by the Bernoulli, multinomial and complement families.

A block of rows gives, per class c and feature j, the weighted sum of the (binarised, for
Bernoulli) values ``feature_sum[c, j]`` and the weighted number of rows where feature j
is observed ``observed[c, j]`` (a NaN, dense or in a sparse matrix's ``.data``, is
missing and counts in neither). Two blocks merge by adding, so ``fit``, ``partial_fit``
and block-wise fitting are one code path.

Counting never densifies a sparse matrix: for CSR input the sums are one weighted
``np.bincount`` over the non-zeros, keyed by ``class * d + column``, in chunks of rows;
dense input goes through a weighted one-hot matrix product, in blocks of rows.

Examples
--------
>>> import numpy as np
>>> import scipy.sparse as sp
>>> from bayesrule.likelihoods.counts import count_statistics
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

import numbers
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._codec import register
from .base import BLOCK_BYTES, Likelihood

#: sparse counting handles about this many non-zeros per chunk (bounded temporaries).
CHUNK_NNZ = 1 << 18

#: per-thread accumulators of sparse counting stay below this many bytes in all.
MAX_ACCUMULATOR_BYTES = 1 << 28

#: how the values of a block are read: raw non-negative counts, or binarised.
COUNTS = "counts"


@register
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
        bad = v < 0
        if bad.any():
            k = int(np.flatnonzero(bad.ravel())[0])
            row, col = where(k)
            raise ValueError(
                f"{name} needs non-negative counts, but feature {col} has the negative value "
                f"{float(v.ravel()[k])!r} (row {row}); pass counts (or frequencies) >= 0, "
                "or use a family for real values (GaussianNB)."
            )
    elif values is None:
        bad = (v != 0) & (v != 1) & ~np.isnan(v)
        if bad.any():
            k = int(np.flatnonzero(bad.ravel())[0])
            row, col = where(k)
            raise ValueError(
                f"binarize=None expects 0/1 data, but feature {col} has the value "
                f"{float(v.ravel()[k])!r} (row {row}); pass binarize=0.0 (values above 0 "
                "count as 1) or another threshold."
            )
    return _has_nan(v)


def locate(X):
    """A function: flat index k of a value of ``X`` (of ``X.data`` if sparse) -> (row, col)."""
    if sp.issparse(X):
        indptr, indices = X.indptr, X.indices
        return lambda k: (int(np.searchsorted(indptr, k, side="right") - 1), int(indices[k]))
    return lambda k: tuple(int(i) for i in np.unravel_index(k, X.shape))


def _has_nan(v: np.ndarray) -> bool:
    # a sum is NaN when any term is (inf cannot occur: X is validated finite or NaN)
    return v.size > 0 and bool(np.isnan(np.add.reduce(v, axis=None)))


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
    nan = check_values(X.data, values, name, locate(X))
    size = n_classes * d
    # the key of a non-zero: class * d + column (int32 where that fits)
    offset = (y * d).astype(np.int32 if size < 2**31 else np.int64)
    # threads pay when each has chunks of non-zeros well above the C * d accumulator
    workers = min(n_threads(), int(X.nnz // (4 * size)), int(MAX_ACCUMULATOR_BYTES // (8 * size)))
    chunk = CHUNK_NNZ if workers <= 1 else max(CHUNK_NNZ, 4 * size)
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


# --------------------------------------------------------------------------- the base family
def n_threads() -> int:
    """Worker threads for sparse evaluation: the CPUs this process may use, at most 8."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


class Undetermined(ValueError):
    """The statistics so far do not determine the parameters (alpha = 0, no data)."""


def check_alpha(alpha) -> float:
    """``alpha`` as a float >= 0, or TypeError/ValueError naming it."""
    if not isinstance(alpha, numbers.Real) or isinstance(alpha, (bool, np.bool_)):
        raise TypeError(f"alpha must be a number >= 0, got {alpha!r}")
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(
            f"alpha must be a finite number >= 0 (1 is Laplace smoothing, 0 the ML "
            f"estimates), got {alpha!r}"
        )
    return float(alpha)


class CountLikelihood(Likelihood):
    """What the count families share: statistics, pending parameters, sparse blocks."""

    input_kind = "sparse"
    #: how the family reads values: "counts" or a Bernoulli threshold (see count_statistics)
    _values = COUNTS

    def _check_params(self):
        check_alpha(self.alpha)

    def statistics(self, X, y, n_classes, sample_weight=None) -> CountStats:
        """Additive statistics of a block of rows (see :class:`CountStats`)."""
        self._check_params()
        return count_statistics(
            X, y, n_classes, sample_weight, values=self._values, name=type(self).__name__
        )

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        """Add a block of data to the statistics and re-derive the parameters."""
        stats = self.statistics(X, y, n_classes, sample_weight)
        if getattr(self, "stats_", None) is not None:
            stats = self.stats_.merge(stats)
        try:
            return self.set_statistics(stats)
        except Undetermined as exc:  # e.g. alpha = 0 and a class without data so far
            self.stats_, self.pending_ = stats, str(exc)
            return self

    def _start(self, stats: CountStats) -> float:
        """Validate parameters and statistics at set_statistics; returns alpha."""
        self._check_params()
        if not isinstance(stats, CountStats):
            raise TypeError(f"statistics must be CountStats, got {type(stats).__name__}")
        return check_alpha(self.alpha)

    def _finish(self, stats: CountStats):
        self.stats_, self.pending_ = stats, None
        return self

    def check_ready(self) -> None:
        """ValueError while ``partial_fit`` has not yet seen enough data for parameters."""
        if getattr(self, "pending_", None):
            raise ValueError(
                f"the statistics seen so far do not determine the parameters yet: "
                f"{self.pending_} Call partial_fit with more data, or use alpha > 0."
            )

    @property
    def n_classes_(self) -> int:
        return self.stats_.class_weight.shape[0]

    @property
    def feature_count_(self) -> np.ndarray:
        """Weighted sum of each feature (binarised for Bernoulli) per class, (C, d)."""
        return self.stats_.feature_sum

    def _row_block(self, n_features: int) -> int:
        return max(64, BLOCK_BYTES // (8 * (2 * n_features + 4 * self.n_classes_)))

    def class_major_blocks(self, X, *, relative: bool):
        """Row slices and log-likelihoods (C, rows), in row order.

        Sparse blocks are sized by their non-zeros, taken as views (no copy), and
        evaluated by worker threads (scipy's sparse products release the GIL) while the
        caller turns the previous blocks into posteriors.
        """
        self.check_ready()
        n, d = X.shape
        if not sp.issparse(X):
            yield from super().class_major_blocks(X, relative=relative)
            return
        per_row = 16 * self.n_classes_ + 12 * X.nnz / max(n, 1) + 64
        step = max(64, min(int(BLOCK_BYTES / per_row), n))
        slices = [slice(s, min(s + step, n)) for s in range(0, n, step)]
        workers = min(len(slices), n_threads())
        if workers <= 1:
            for rows in slices:
                yield rows, self._sparse_block(X, rows, relative)
            return
        with ThreadPoolExecutor(workers) as pool:
            pending = deque()
            for rows in slices:
                pending.append((rows, pool.submit(self._sparse_block, X, rows, relative)))
                if len(pending) > 2 * workers:  # bounded memory: a few blocks in flight
                    done, future = pending.popleft()
                    yield done, future.result()
            while pending:
                done, future = pending.popleft()
                yield done, future.result()

    def _sparse_block(self, X, rows: slice, relative: bool) -> np.ndarray:
        """``_class_major`` of the CSR rows ``rows`` (views of X's arrays)."""
        lo, hi = int(X.indptr[rows.start]), int(X.indptr[rows.stop])
        block = sp.csr_array(
            (X.data[lo:hi], X.indices[lo:hi], X.indptr[rows.start : rows.stop + 1] - lo),
            shape=(rows.stop - rows.start, X.shape[1]),
        )
        with np.errstate(over="ignore", invalid="ignore"):
            return self._class_major(block, relative)

    # ----------------------------------------------------------------- helpers
    def _feature_lines(self, title: str, table: np.ndarray, classes, names) -> list[str]:
        """``title`` and one block per class of the first 20 features of ``table``."""
        from ..summary import block

        shown = min(20, table.shape[1])
        lines = [f"{title}; features {', '.join(map(str, names[:shown]))}"]
        for c, label in enumerate(classes):
            lines += block(f"class {label}", table[c, :shown])
        if table.shape[1] > shown:
            lines.append(f"  ... ({table.shape[1] - shown} more features)")
        return lines


def zero_nan(X):
    """``X`` (dense or CSR block) with missing values as 0, and the missing-value
    indicator (same layout, float), or None when nothing is missing."""
    if sp.issparse(X):
        data = X.data
        if not _has_nan(data):
            return X, None
        mask = np.isnan(data)
        clean = sp.csr_array((np.where(mask, 0.0, data), X.indices, X.indptr), shape=X.shape)
        return clean, sp.csr_array((mask.astype(np.float64), X.indices, X.indptr), shape=X.shape)
    if not _has_nan(X):
        return X, None
    mask = np.isnan(X)
    return np.where(mask, 0.0, X), mask.astype(np.float64)


def matmul_t(X, W_t: np.ndarray) -> np.ndarray:
    """``(X @ W_t).T`` for a dense or CSR block: class-major (C, rows), float64."""
    if sp.issparse(X):
        return (X @ W_t).T
    return W_t.T @ X.T if X.dtype == np.float64 else W_t.T @ X.T.astype(np.float64)


def row_dense(X, i: int) -> np.ndarray:
    """Row ``i`` of a dense or sparse block as a 1-D float array."""
    if sp.issparse(X):
        return np.asarray(X[[i]].toarray(), dtype=np.float64).ravel()
    return np.asarray(X[i], dtype=np.float64)


def impossible_message(family, X) -> str | None:
    """The message of ``describe_impossible``: for the row of ``X`` with the most classes
    of zero probability, a feature of zero probability in every class (or per class).

    ``family._impossible(x) -> (C, d) bool`` says where feature j of row x has
    probability 0 in class c.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        lik = family._class_major(X, False)
    zero = (lik == -np.inf).sum(axis=0)
    if zero.size == 0 or zero.max() == 0:
        return None
    i = int(np.argmax(zero))
    x = row_dense(X, i)
    imp = family._impossible(x)
    every = np.flatnonzero(imp.all(axis=0))
    name = type(family).__name__
    fix = (
        "with alpha=0 (maximum likelihood) what never occurred in training has probability "
        "0; set alpha > 0 (e.g. alpha=1, Laplace smoothing)."
    )
    if every.size:
        j = int(every[0])
        return (
            f"{name}: a sample has feature {j} = {x[j]:g}, which has probability 0 in every "
            f"class; {fix}"
        )
    per_class = ", ".join(
        f"class position {c}: feature {int(np.flatnonzero(imp[c])[0])}"
        for c in range(imp.shape[0])
        if imp[c].any()
    )
    return (
        f"{name}: a sample has a feature of probability 0 in {int(zero[i])} classes "
        f"({per_class}); {fix}"
    )
