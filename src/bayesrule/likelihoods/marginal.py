"""Exact Gaussian log-densities of rows with missing values (NaN), and EM's responsibilities.

A row with missing coordinates is scored by the density of what was seen: the
Gaussian ``N(mu_o, S_oo)`` of its observed coordinates, the missing ones dropped from the
mean and the covariance (integrated out exactly). Rows are grouped by missingness
pattern so that each pattern factorises each covariance's observed block once (a
Cholesky factor, then triangular solves in row blocks of bounded size; never an
inverse); see :mod:`bayesrule.stats.conditional`, the core shared with the E step of
:mod:`bayesrule.stats.missing_em`. A complete row gets the ordinary log-density and a row
with nothing observed gets 0 (the density of no coordinates).

Examples
--------
>>> import numpy as np
>>> from scipy.stats import multivariate_normal
>>> from bayesrule.likelihoods.marginal import log_density_observed
>>> mean, cov = np.array([[0.0, 1.0, 2.0]]), np.array([[[2.0, 0.5, 0.0],
...                                                    [0.5, 1.0, 0.3],
...                                                    [0.0, 0.3, 1.5]]])
>>> X = np.array([[0.5, np.nan, 1.0], [np.nan, np.nan, np.nan], [0.5, 2.0, 1.0]])
>>> out = log_density_observed(X, mean, cov)
>>> out.shape
(1, 3)
>>> keep = [0, 2]                                # row 0 sees coordinates 0 and 2
>>> bool(np.isclose(out[0, 0], multivariate_normal(mean[0, keep],
...                                               cov[0][np.ix_(keep, keep)]).logpdf([0.5, 1.0])))
True
>>> float(out[0, 1])                             # nothing observed
0.0
>>> bool(np.isclose(out[0, 2], multivariate_normal(mean[0], cov[0]).logpdf(X[2])))
True
"""

from __future__ import annotations

import numpy as np

from ..stats.conditional import (
    Conditioned,
    check_gaussians,
    missing_patterns,
    normalise,
    row_chunks,
)


def log_density_observed(X, means, covariances) -> np.ndarray:
    """Log-density of each row's observed coordinates under each of K Gaussians.

    Parameters
    ----------
    X : array-like of shape (n, d)
        NaN marks a missing value.
    means : array-like of shape (K, d)
    covariances : array-like of shape (K, d, d)
        Symmetric; the block of every pattern's observed coordinates positive definite
        (only the lower triangle is read).

    Returns
    -------
    ndarray of shape (K, n)
        ``ln N(x_o; mu_o, S_oo)`` for each component and row: the ordinary log-density
        for a complete row, 0 for a row with every coordinate missing.

    Raises
    ------
    ValueError
        Shapes that do not match, infinite values, or an observed block that is not
        positive definite.
    """
    X, means, covariances = check_gaussians(X, means, covariances)
    K, d = means.shape
    out = np.empty((K, X.shape[0]))
    for observed, rows in missing_patterns(X):
        pattern = Conditioned(means, covariances, observed, marginal=True)
        for chunk in row_chunks(rows, d):
            block = X[chunk]
            for k in range(K):
                out[k, chunk] = pattern.log_density(k, block)
    return out


def responsibilities(X, weights, means, covariances) -> tuple[np.ndarray, np.ndarray]:
    """The E step of a Gaussian mixture on rows with missing values.

    Responsibilities ``P(k | x_o)`` from the marginal densities of the observed
    coordinates (:func:`log_density_observed`), with each row's log-evidence
    ``ln sum_k pi_k N(x_o; mu_k, S_k)``. With the responsibilities (times any sample
    weights), :func:`bayesrule.stats.missing_em.expected_moments` gives the M step's
    statistics; :func:`bayesrule.stats.missing_em.mixture_e_step` does both in one pass.

    Parameters
    ----------
    X : array-like of shape (n, d)
        NaN marks a missing value.
    weights : array-like of shape (K,)
        Mixing weights (non-negative, summing to 1).
    means : array-like of shape (K, d)
    covariances : array-like of shape (K, d, d)

    Returns
    -------
    resp : ndarray of shape (n, K)
        Rows sum to 1; a row with nothing observed gets ``weights``.
    log_evidence : ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.marginal import responsibilities
    >>> means = np.array([[-2.0, 0.0], [2.0, 0.0]])
    >>> covs = np.array([np.eye(2), np.eye(2)])
    >>> X = np.array([[-3.0, np.nan], [np.nan, 0.0]])
    >>> resp, log_evidence = responsibilities(X, [0.5, 0.5], means, covs)
    >>> resp.round(4)              # row 1 sees only the coordinate that does not separate
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    log_prob = log_density_observed(X, means, covariances)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (log_prob.shape[0],) or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(
            f"weights must be {log_prob.shape[0]} non-negative mixing weights, got {weights}"
        )
    with np.errstate(divide="ignore"):  # a weight of 0: ln 0 = -inf, responsibility 0
        log_prob += np.log(weights / weights.sum())[:, None]
    resp, log_evidence = normalise(log_prob)
    return resp.T, log_evidence


LOG_2PI = np.log(2.0 * np.pi)


def diagonal_observed(like, X) -> np.ndarray:
    """Log-densities (C, rows) of a fitted diagonal Gaussian family ``like`` over each
    row's observed features (NaN drops out).

    The expansion of ``Structure.mahalanobis`` on centred data with missing entries
    set to 0, the terms that do not depend on x (and the normalisers) summed over
    observed features only; classes far from the reference are evaluated directly.
    """
    observed = ~np.isnan(X)
    mask = observed.astype(np.float64)
    P, M = like.precisions_cholesky_, like.projected_means_
    Xc = np.subtract(X, like.reference_, dtype=np.float64)
    np.copyto(Xc, 0.0, where=~observed)
    out = (-2.0 * M) @ Xc.T
    out += ((like.means_ - like.reference_) * M) @ mask.T
    out += P @ (Xc * Xc).T
    for c in like.exact_classes_:
        diff = np.subtract(X, like.means_[c], dtype=np.float64)
        diff *= diff
        np.copyto(diff, 0.0, where=~observed)
        out[c] = diff @ P[0 if P.shape[0] == 1 else c]
    out *= -0.5
    out += (0.5 * (np.log(P) - LOG_2PI)) @ mask.T  # each observed feature's normaliser
    return out
