"""Statistics of the observed values of data with missing values (NaN): EM's start.

The first parameters of :func:`bayesrule.stats.missing_em.fit_gaussian_missing` come from
these statistics through the caller's M step: per class, each feature's mean over the
rows where it is observed and the pairwise-available covariances, repaired to be
positive definite.

Examples
--------
>>> import numpy as np
>>> from bayesrule.stats.missing_start import start_moments
>>> X = np.array([[1.0, 2.0], [3.0, np.nan], [np.nan, 6.0], [5.0, 4.0]])
>>> start = start_moments(X, np.zeros(4, dtype=int), 1)
>>> start.mean                                 # over the observed values of each feature
array([[3., 4.]])
>>> start.count
array([4.])
"""

from __future__ import annotations

import numpy as np

from .moments import ClassMoments

#: pairwise-available correlation matrices are repaired below this smallest eigenvalue
START_EIGEN_FLOOR = 1e-3


def check_weights(sample_weight, n: int) -> np.ndarray:
    """``sample_weight`` as n non-negative finite floats (ones when None)."""
    if sample_weight is None:
        return np.ones(n)
    sw = np.asarray(sample_weight, dtype=np.float64)
    if sw.shape != (n,) or not np.isfinite(sw).all() or (sw < 0).any():
        raise ValueError(f"sample_weight must be {n} non-negative finite numbers")
    return sw


def start_moments(X, y, n_classes: int, sample_weight=None) -> ClassMoments:
    """Statistics of the observed values, to start EM from (kind "full").

    Per class: each feature's weighted mean over the rows where it is observed; the
    pairwise-available covariances (each pair over the rows where both are observed,
    about those means), as correlations whose eigenvalues below ``START_EIGEN_FLOOR``
    are raised to it (a positive definite matrix), rescaled to the observed variances;
    ``scatter = count * covariance``. A feature never observed in a class borrows the
    mean and variance of all classes (uncorrelated with the rest).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Class indices in ``range(n_classes)``.
    n_classes : int
    sample_weight : ndarray of shape (n,), optional

    Returns
    -------
    ClassMoments

    Raises
    ------
    ValueError
        A feature with no observed value in any class.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    sw = check_weights(sample_weight, n)
    seen = ~np.isnan(X)
    values = np.where(seen, X, 0.0)
    total = (sw @ seen).astype(np.float64)
    if (total <= 0).any():
        raise ValueError(
            f"features {np.flatnonzero(total <= 0).tolist()} have no observed value (every "
            "value NaN, or only rows of weight 0); drop them."
        )
    grand_mean = sw @ values / total
    grand_var = sw @ np.where(seen, (X - grand_mean) ** 2, 0.0) / total
    count = np.bincount(y, weights=sw, minlength=n_classes).astype(np.float64)
    mean = np.zeros((n_classes, d))
    scatter = np.zeros((n_classes, d, d))
    for c in np.flatnonzero(count > 0):
        rows = y == c
        w, seen_c = sw[rows], seen[rows].astype(np.float64)
        n_j = w @ seen_c
        known = n_j > 0
        mean[c] = np.where(known, (w @ values[rows]) / np.where(known, n_j, 1.0), grand_mean)
        Z = np.where(seen[rows], X[rows] - mean[c], 0.0)
        pairs = (seen_c * w[:, None]).T @ seen_c
        cov = np.divide((Z * w[:, None]).T @ Z, pairs, out=np.zeros((d, d)), where=pairs > 0)
        cov[~known, ~known] = grand_var[~known]
        scatter[c] = count[c] * _positive_definite(cov)
    return ClassMoments(count, mean, scatter, "full")


def _positive_definite(cov: np.ndarray) -> np.ndarray:
    """``cov`` with its correlations' eigenvalues raised to ``START_EIGEN_FLOOR`` (those
    of features with zero variance stay zero)."""
    std = np.sqrt(np.diag(cov))
    live = np.flatnonzero(std > 0)
    out = np.zeros_like(cov)
    if live.size:
        s = std[live]
        R = cov[np.ix_(live, live)] / np.outer(s, s)
        R = 0.5 * (R + R.T)
        np.fill_diagonal(R, 1.0)
        values, vectors = np.linalg.eigh(R)
        if values[0] < START_EIGEN_FLOOR:
            R = (vectors * np.maximum(values, START_EIGEN_FLOOR)) @ vectors.T
            scale = np.sqrt(np.diag(R))
            R = R / np.outer(scale, scale)
        out[np.ix_(live, live)] = R * np.outer(s, s)
    return out
