"""Ledoit-Wolf shrinkage of each class's covariance, pooled: the tied Gaussian's
``shrinkage="auto"``.

scikit-learn's ``_cov(X, "auto")`` per class, pooled, in two passes over the data so that
it also runs block by block: the full class moments (count, mean, centred scatter) give
every term but one, the weighted sum of ``||z||^4`` over the class's standardised rows
``z = (x - mean) / scale``, which adds over blocks once the means and scales are known.
``fit`` in memory is one block.
"""

from __future__ import annotations

import numpy as np

from ..stats.moments import STATS_BLOCK_BYTES, ClassMoments, class_moments

__all__ = [
    "ledoit_wolf_class",
    "ledoit_wolf_fit",
    "ledoit_wolf_pooled",
    "ledoit_wolf_scales",
    "ledoit_wolf_sums",
]


def ledoit_wolf_scales(stats: ClassMoments) -> np.ndarray:
    """The (C, d) standard deviations that standardise each class (1 for a constant
    feature), from full class moments.

    A feature counts as constant in a class when its variance is within the rounding
    error of the two-pass variance (``n eps var + (n eps mean)^2``, Chan, Golub and
    LeVeque; scikit-learn's StandardScaler rule, with the weighted count as ``n``).
    """
    n = stats.count[:, None]
    var = np.einsum("cjj->cj", stats.scatter) / np.where(n > 0, n, 1.0)
    eps = np.finfo(np.float64).eps
    constant = var <= n * eps * var + (n * stats.mean * eps) ** 2
    return np.where(constant, 1.0, np.sqrt(np.maximum(var, 0.0)))  # rounding: var < 0


def ledoit_wolf_sums(X, y, n_classes, sample_weight, means, scales) -> np.ndarray:
    """Per class, ``sum_i w_i ||z_i||^4`` over the rows of a block (shape (C,)), where
    ``z_i = (x_i - means[y_i]) / scales[y_i]``; the sums of blocks add."""
    n, d = X.shape
    step = max(1, STATS_BLOCK_BYTES // (8 * max(d, 1)))
    sums = np.zeros(n_classes)
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        yb = y[rows]
        Z = np.subtract(X[rows], means[yb], dtype=np.float64)
        Z /= scales[yb]
        Z *= Z
        norm2 = Z.sum(axis=1)
        norm2 *= norm2
        if sample_weight is not None:
            norm2 *= sample_weight[rows]
        sums += np.bincount(yb, weights=norm2, minlength=n_classes)
    return sums


def ledoit_wolf_pooled(stats: ClassMoments, beta_sums: np.ndarray) -> np.ndarray:
    """Pooled covariance with Ledoit-Wolf shrinkage applied to each class.

    ``stats`` are the full class moments of all the data and ``beta_sums`` the sums of
    :func:`ledoit_wolf_sums` over all of it (with ``stats.mean`` and
    :func:`ledoit_wolf_scales`). The classes' covariances of :func:`ledoit_wolf_class`
    are pooled with weights ``n_c / n``. With unit weights this equals scikit-learn's
    ``LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")``.
    """
    counts = stats.count
    pooled = np.zeros(stats.scatter.shape[1:])
    for c in range(counts.shape[0]):
        part = slice(c, c + 1)
        one = ClassMoments(counts[part], stats.mean[part], stats.scatter[part], "full")
        pooled += (counts[c] / counts.sum()) * ledoit_wolf_class(one, beta_sums[c])
    return pooled


def ledoit_wolf_class(stats: ClassMoments, beta_sum: float) -> np.ndarray:
    """One class's Ledoit-Wolf covariance (d, d) from its full moments (one class) and
    its sum of :func:`ledoit_wolf_sums`: the centred data standardised, shrunk towards
    ``mu * I`` with the Ledoit-Wolf (2004) intensity (weighted sums in place of sample
    sums), and rescaled."""
    total, scale = stats.count[0], ledoit_wolf_scales(stats)[0]
    d = scale.size
    cov = stats.scatter[0] / (total * scale[:, None] * scale[None, :])
    emp_trace = np.diag(cov)
    mu = emp_trace.sum() / d
    if d == 1:
        shrink = 0.0
    else:
        delta_sum = (cov**2).sum()
        beta = (beta_sum / total - delta_sum) / (d * total)
        delta = (delta_sum - 2.0 * mu * emp_trace.sum() + d * mu**2) / d
        beta = min(beta, delta)
        shrink = 0.0 if beta == 0 else beta / delta
    shrunk = (1.0 - shrink) * cov + shrink * mu * np.eye(d)
    return scale[:, None] * shrunk * scale[None, :]


def ledoit_wolf_fit(X, y, n_classes, sample_weight, check) -> tuple[ClassMoments, np.ndarray]:
    """Tied moments and the Ledoit-Wolf pooled covariance of data in memory, one class
    at a time (one d x d scatter in memory, not C of them); ``check(stats)`` vets the
    class counts first. The same terms as :func:`ledoit_wolf_pooled` over blocks."""
    d = X.shape[1]
    w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    counts = np.bincount(y, weights=w, minlength=n_classes)
    means, scatter, pooled = np.zeros((n_classes, d)), np.zeros((d, d)), np.zeros((d, d))
    check(ClassMoments(counts, means, scatter, "tied"))
    for c in range(n_classes):
        rows = np.flatnonzero(y == c)
        Xc, wc = X[rows], None if sample_weight is None else sample_weight[rows]
        zeros = np.zeros(rows.size, dtype=np.intp)
        one = class_moments(Xc, zeros, 1, wc, kind="full")
        beta = ledoit_wolf_sums(Xc, zeros, 1, wc, one.mean, ledoit_wolf_scales(one))
        means[c], scatter = one.mean[0], scatter + one.scatter[0]
        pooled += (counts[c] / counts.sum()) * ledoit_wolf_class(one, beta[0])
    return ClassMoments(counts, means, scatter, "tied"), pooled
