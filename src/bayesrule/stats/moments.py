"""Mergeable sufficient statistics: weighted counts, means and centred scatter per class.

Every Gaussian family is fitted from :class:`ClassMoments`. A block of rows gives its
moments about its *own* class means (exact centring, never ``E[x^2] - E[x]^2``), and two
blocks merge with the pairwise rule of Chan, Golub and LeVeque (1979)::

    n     = n_a + n_b
    mean  = mean_a + (n_b / n) * delta                  delta = mean_b - mean_a
    M     = M_a + M_b + (n_a * n_b / n) * delta delta^T

so ``fit``, ``partial_fit`` and block-wise fitting share one code path. Three scatter
layouts exist, chosen by what the covariance structure needs: ``"full"``, one ``(d, d)``
scatter per class, ``(C, d, d)``; ``"tied"``, the pooled within-class scatter, ``(d,
d)``; ``"diag"``, the diagonal of each class scatter, ``(C, d)``.

Diagonal statistics also take missing values (NaN): a block with NaN counts, averages
and scatters each feature over the rows where it is observed, so its ``count`` is per
class *and* feature, ``(C, d)``; complete blocks keep ``(C,)`` counts, and :func:`merge`
broadcasts one to the other (the rule holds feature by feature).

Examples
--------
>>> import numpy as np
>>> from bayesrule.stats import class_moments, merge
>>> X = np.array([[1.0, 2.0], [3.0, 6.0], [10.0, 0.0], [12.0, 2.0]])
>>> y = np.array([0, 0, 1, 1])
>>> whole = class_moments(X, y, 2, kind="diag")
>>> whole.mean
array([[ 2.,  4.],
       [11.,  1.]])
>>> halves = merge(class_moments(X[::2], y[::2], 2, kind="diag"),
...                class_moments(X[1::2], y[1::2], 2, kind="diag"))
>>> bool(np.allclose(halves.scatter, whole.scatter))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import dsyrk
from scipy.sparse import csc_array

from .._engines.threads import few_columns_blas

KINDS = ("full", "tied", "diag")

#: rows per block when predictions are evaluated; bounds temporary memory.
BLOCK_BYTES = 1 << 25

#: statistics are accumulated in blocks of about this size, so that a block's second
#: pass (its residuals) runs in cache.
STATS_BLOCK_BYTES = 1 << 24

#: diagonal statistics use sums shifted by a reference point; where a class's shifted
#: sum of squares exceeds this multiple of its centred one (a class more than 10 of its
#: standard deviations from the reference; relative error above about 1e-12), that
#: class's block is recomputed exactly about its own mean.
CANCELLATION_LIMIT = 1e2


@dataclass
class ClassMoments:
    """Weighted count, mean and centred scatter of each class.

    Parameters
    ----------
    count : ndarray of shape (C,) or (C, d)
        Sum of sample weights per class; per class and feature, over the rows where the
        feature is observed, once some block had missing values ("diag" only).
    mean : ndarray of shape (C, d)
        Weighted mean per class (zero where there is no weight yet).
    scatter : ndarray
        Centred scatter ``sum_k w_k (x_k - mean)(x_k - mean)^T`` in the layout of ``kind``.
    kind : {"full", "tied", "diag"}
        Scatter layout.
    """

    count: np.ndarray
    mean: np.ndarray
    scatter: np.ndarray
    kind: str

    @property
    def n_classes(self) -> int:
        return self.count.shape[0]

    @property
    def per_feature(self) -> bool:
        """Whether counts are per class and feature (some block had missing values)."""
        return self.count.ndim == 2

    def merge(self, other: ClassMoments) -> ClassMoments:
        """The statistics of both blocks (see :func:`merge`)."""
        return merge(self, other)

    def rounding(self) -> np.ndarray:
        """Per class and feature (C, d): the sum of squares that rounding alone leaves
        about a class mean, ``n (n eps mean)^2`` (the rule of scikit-learn's
        StandardScaler for a constant feature; ``n`` the weighted count). A scatter at or
        below it is a feature constant in that class, whose sums did not cancel exactly
        (weights, a mean far from zero)."""
        n = self.count if self.per_feature else self.count[:, None]
        return n * (n * np.finfo(np.float64).eps * self.mean) ** 2

    def snapped(self) -> np.ndarray:
        """The scatter with the features that are constant in a class up to
        :meth:`rounding` set to exactly 0 (their rows and columns, for full and tied
        layouts; a tied scatter compares with the classes' summed rounding)."""
        floor = self.rounding()
        scatter = np.array(self.scatter, dtype=np.float64, copy=True)
        if self.kind == "diag":
            scatter[scatter <= floor] = 0.0
            return scatter
        flat = scatter[None] if self.kind == "tied" else scatter
        floor = floor.sum(axis=0, keepdims=True) if self.kind == "tied" else floor
        for k, j in np.argwhere(np.einsum("kjj->kj", flat) <= floor):
            flat[k, j, :] = 0.0
            flat[k, :, j] = 0.0
        return scatter

    def total_mean(self) -> np.ndarray:
        """Weighted mean of all (observed) values of each feature, whatever their class."""
        if self.per_feature:
            return _ratio((self.count * self.mean).sum(axis=0), self.count.sum(axis=0))
        return self.count @ self.mean / self.count.sum()

    def total_variance(self) -> np.ndarray:
        """ML variance of each feature over all (observed) values, whatever their class.

        NaN for a feature that has no observed value at all.
        """
        mu = self.total_mean()
        eps = np.finfo(np.float64).eps
        if self.per_feature:
            between = (self.count * (self.mean - mu) ** 2).sum(axis=0)
            total = self.count.sum(axis=0)
            spread = self.scatter.sum(axis=0) + between
            spread[spread <= total * (total * eps * mu) ** 2] = 0.0  # rounding alone
            return _ratio(spread, total)
        between = self.count @ (self.mean - mu) ** 2
        if self.kind == "full":
            within = np.einsum("cjj->j", self.scatter)
        elif self.kind == "tied":
            within = np.diag(self.scatter)
        else:
            within = self.scatter.sum(axis=0)
        total = self.count.sum()
        spread = within + between
        spread[spread <= total * (total * eps * mu) ** 2] = 0.0  # a constant up to rounding
        return spread / total


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, NaN where ``den`` is 0 (no observed value), without warnings."""
    return np.divide(num, den, out=np.full(np.shape(num), np.nan), where=den > 0)


def empty(n_classes: int, n_features: int, kind: str) -> ClassMoments:
    """Statistics of no data: the identity of :func:`merge`."""
    shapes = {
        "full": (n_classes, n_features, n_features),
        "tied": (n_features, n_features),
        "diag": (n_classes, n_features),
    }
    return ClassMoments(
        np.zeros(n_classes), np.zeros((n_classes, n_features)), np.zeros(shapes[kind]), kind
    )


def _block_rows(n_features: int, n_classes: int) -> int:
    return max(256, STATS_BLOCK_BYTES // (8 * max(2 * n_features + n_classes, 1)))


def class_moments(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    sample_weight: np.ndarray | None = None,
    kind: str = "full",
) -> ClassMoments:
    """Statistics of ``X`` grouped by the class indices ``y``.

    Rows are processed in blocks of bounded size (BLAS single-threaded for few columns:
    ``few_columns_blas``), combined with :func:`merge`. Full and tied blocks are centred
    on their own class means; diagonal blocks use shifted sums with an exact fallback
    where they would cancel (``CANCELLATION_LIMIT``). Diagonal statistics take NaN as
    missing (counts per class and feature); full and tied ones refuse it (ValueError).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Class index of each row, in ``range(n_classes)``.
    n_classes : int
    sample_weight : ndarray of shape (n,), optional
        Non-negative weights; integer weights equal duplicated rows.
    kind : {"full", "tied", "diag"}

    Returns
    -------
    ClassMoments
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    n, d = X.shape
    step = min(_block_rows(d, n_classes), max(n, 1))
    work = _Workspace(step, d, n_classes, kind)
    total = empty(n_classes, d, kind)
    with few_columns_blas(d):
        for start in range(0, n, step):
            stop = min(start + step, n)
            w = None if sample_weight is None else sample_weight[start:stop]
            block = _moments_of_block(X[start:stop], y[start:stop], n_classes, w, kind, work)
            total = block if start == 0 else merge(total, block)
    if kind != "diag" and not np.isfinite(total.mean).all() and np.isnan(X).any():
        raise ValueError(
            f"X contains NaN (missing values), which {kind!r} statistics (a dense "
            "covariance) cannot leave out; impute them, or use a diagonal model "
            "(GaussianNB) that marginalises missing features."
        )
    return total


class _Workspace:
    """Buffers reused by every block (no fresh temporaries, no page faults per block)."""

    def __init__(self, rows: int, n_features: int, n_classes: int, kind: str):
        self.resid = np.empty((rows, n_features))
        self.rows = np.arange(rows + 1)
        if kind == "diag":  # shifted sums and squares through a sparse one-hot
            self.squares = np.empty((rows, n_features))
            self.ones = np.ones(rows)
            self.reference = None  # the shift: the first block's mean
        else:  # class sums through a dense one-hot
            self.onehot = np.empty((rows, n_classes))


def _moments_of_block(X, y, n_classes, w, kind, work: _Workspace) -> ClassMoments:
    if w is not None and not (w > 0).all():  # a zero-weight row must not touch the sums
        keep = w > 0
        X, y, w = X[keep], y[keep], w[keep]
    n, d = X.shape
    if n == 0:
        return empty(n_classes, d, kind)
    count = np.bincount(y, weights=w, minlength=n_classes).astype(np.float64)
    if kind == "diag":
        return _diagonal_block(X, y, w, count, work)
    onehot = work.onehot[:n]
    onehot.fill(0.0)
    onehot[work.rows[:n], y] = 1.0 if w is None else w
    sums = onehot.T @ X
    mean = np.divide(sums, count[:, None], out=np.zeros_like(sums), where=count[:, None] > 0)
    resid = work.resid[:n]
    np.take(mean, y, axis=0, out=resid)
    np.subtract(X, resid, out=resid)
    # the corrected two-pass algorithm (Chan, Golub and LeVeque): the residuals' own
    # weighted sums are the rounding error of the means, removed from means and scatter
    # (a constant column far from zero then has scatter 0, not its rounding squared)
    drift = onehot.T @ resid
    correction = np.divide(
        drift, count[:, None], out=np.zeros_like(drift), where=count[:, None] > 0
    )
    mean += correction
    if w is not None:
        resid *= np.sqrt(w)[:, None]
    if kind == "tied":
        scatter = _gram(resid) - np.einsum("cj,ck->jk", drift, correction)
        _clamp_variances(scatter)
        return ClassMoments(count, mean, scatter, kind)
    scatter = -np.einsum("cj,ck->cjk", drift, correction)
    order = np.argsort(y, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(y, minlength=n_classes))))
    resid = resid[order]
    for c in range(n_classes):
        if bounds[c + 1] > bounds[c]:
            scatter[c] += _gram(resid[bounds[c] : bounds[c + 1]])
    _clamp_variances(scatter)
    return ClassMoments(count, mean, scatter, kind)


def _clamp_variances(scatter: np.ndarray) -> None:
    """Sums of squares below 0 by the correction's rounding set to 0, in place
    (``(..., d, d)``: the diagonals)."""
    diagonal = np.einsum("...jj->...j", scatter)  # a writable view
    np.maximum(diagonal, 0.0, out=diagonal)


def _diagonal_block(X, y, w, count, work: _Workspace) -> ClassMoments:
    """Per-class means and sums of squared deviations of one block.

    Sums of ``x - r`` and ``(x - r)^2`` for a fixed reference ``r`` give the centred sums
    as ``S2 - S1^2 / n``; classes where that subtraction would lose more than about two
    digits are recomputed exactly, so the result is accurate to about 1e-12 whatever the
    offset of the data. A block with NaN (its sums are NaN) is redone over the observed
    values only, with counts per class and feature.
    """
    n, d = X.shape
    if work.reference is None:
        ref = np.asarray(X.mean(axis=0), dtype=np.float64)
        if np.isnan(ref).any():  # missing values: the mean of the observed ones
            observed = ~np.isnan(X)
            ref = _ratio(np.where(observed, X, 0.0).sum(axis=0), observed.sum(axis=0))
            ref[np.isnan(ref)] = 0.0
        work.reference = ref
    ref = work.reference
    shifted, squares = work.resid[:n], work.squares[:n]
    np.subtract(X, ref, out=shifted)
    np.square(shifted, out=squares)
    # the (C, n) one-hot matrix of the weights: one entry per sample, so a CSC matrix
    # needs no sorting, and its products are per-class sums in one pass (not C passes)
    onehot = csc_array(
        (work.ones[:n] if w is None else w, y, work.rows[: n + 1]), shape=(len(count), n)
    )
    s1 = onehot @ shifted
    observed = None
    if np.isnan(s1).any() and np.isnan(X).any():  # missing values: observed ones only
        observed = ~np.isnan(X)
        np.copyto(shifted, 0.0, where=~observed)
        np.copyto(squares, 0.0, where=~observed)
        s1 = onehot @ shifted
        count = onehot @ observed.astype(np.float64)
    s2 = onehot @ squares
    present = count > 0
    if observed is None:
        present = np.broadcast_to(present[:, None], s1.shape)
    shifted_mean = np.divide(
        s1, count.reshape(len(count), -1), out=np.zeros_like(s1), where=present
    )
    scatter = s2 - s1 * shifted_mean
    unsafe = ((scatter * CANCELLATION_LIMIT <= s2) & (s2 > 0)) | ~np.isfinite(scatter)
    mean = np.where(present, shifted_mean + ref, 0.0)
    for c in np.flatnonzero(unsafe.any(axis=1) & present.any(axis=1)):  # exact two-pass
        rows = y == c
        weights = np.ones((int(rows.sum()), 1)) if w is None else w[rows][:, None]
        values = X[rows]
        if observed is None:
            mean[c] = (weights * values).sum(axis=0) / count[c]
            resid = values - mean[c]
        else:
            weights = weights * observed[rows]
            values = np.where(observed[rows], values, 0.0)
            mean[c] = _ratio((weights * values).sum(axis=0), count[c])
            mean[c, ~present[c]] = 0.0
            resid = np.where(observed[rows], values - mean[c], 0.0)
        drift = (weights * resid).sum(axis=0)  # the corrected two-pass algorithm
        correction = np.divide(drift, count[c], out=np.zeros(d), where=count[c] > 0)
        mean[c] += correction
        scatter[c] = np.maximum((weights * resid * resid).sum(axis=0) - drift * correction, 0.0)
    return ClassMoments(count, mean, scatter, "diag")


def _gram(A: np.ndarray) -> np.ndarray:
    """``A.T @ A`` through the symmetric rank-k update (half the flops of a GEMM)."""
    upper = dsyrk(1.0, np.asarray(A.T, order="F"), trans=0, lower=0)
    return np.triu(upper) + np.triu(upper, 1).T


def merge(a: ClassMoments, b: ClassMoments) -> ClassMoments:
    """Combine the statistics of two disjoint blocks (associative and exact).

    Parameters
    ----------
    a, b : ClassMoments
        Statistics with the same classes, features and kind; per-class counts merge with
        per-class-and-feature ones (diagonal statistics with missing values).

    Returns
    -------
    ClassMoments
    """
    if a.kind != b.kind or a.mean.shape != b.mean.shape:
        raise ValueError(
            f"cannot merge statistics of kind {a.kind!r} with shape {a.mean.shape} "
            f"and kind {b.kind!r} with shape {b.mean.shape}"
        )
    count_a, count_b = a.count, b.count
    if count_a.ndim != count_b.ndim:  # per-class counts meet per-feature ones
        count_a, count_b = (
            np.broadcast_to(c.reshape(len(c), -1), a.mean.shape) for c in (count_a, count_b)
        )
    n = count_a + count_b
    safe = np.where(n > 0, n, 1.0)
    delta = b.mean - a.mean
    if n.ndim == 2:  # per class and feature (diagonal statistics with missing values)
        mean = a.mean + delta * (count_b / safe)
        scatter = a.scatter + b.scatter + (count_a * count_b / safe) * delta * delta
        return ClassMoments(n, mean, scatter, a.kind)
    mean = a.mean + delta * (b.count / safe)[:, None]
    f = a.count * b.count / safe
    if a.kind == "diag":
        scatter = a.scatter + b.scatter + f[:, None] * delta * delta
    elif a.kind == "tied":
        scatter = a.scatter + b.scatter + (delta * f[:, None]).T @ delta
    else:
        scatter = a.scatter + b.scatter + f[:, None, None] * (delta[:, :, None] * delta[:, None, :])
    return ClassMoments(n, mean, scatter, a.kind)
