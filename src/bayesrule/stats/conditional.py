"""Gaussians conditioned on the observed coordinates of rows with missing values (NaN).

The shared numerical core of :mod:`bayesrule.likelihoods.marginal` (marginal
log-densities) and :mod:`bayesrule.stats.missing_em` (the E step of EM). Rows are grouped
by missingness pattern (which coordinates are NaN); for each pattern and each Gaussian
``N(mu, S)`` the covariance, reordered observed coordinates first, is factorised once::

    S[o+m, o+m] = L L^T,      L = [[L_oo,  0   ],
                                   [L_mo,  L_mm]]

``L_oo`` is the Cholesky factor of ``S_oo`` (the covariance of the observed coordinates),
``L_mo = S_mo L_oo^-T`` and ``L_mm L_mm^T = S_mm - S_mo S_oo^-1 S_om`` is the conditional
covariance of the missing ones (the Schur complement, positive semi-definite by
construction: no subtraction that can cancel). With ``z = L_oo^-1 (x_o - mu_o)`` (a
triangular solve, never an inverse)::

    ln p(x_o)        = -|z|^2 / 2 - sum(ln diag L_oo) - (o / 2) ln(2 pi)
    E[x_m | x_o]     = mu_m + L_mo z
    Cov[x_m | x_o]   = L_mm L_mm^T

A row with every coordinate missing has ``ln p = 0``, mean ``mu`` and covariance ``S``.

Examples
--------
>>> import numpy as np
>>> from bayesrule.stats.conditional import Conditioned, missing_patterns
>>> X = np.array([[1.0, np.nan], [0.0, 2.0], [np.nan, 1.0]])
>>> [(observed.tolist(), rows.tolist()) for observed, rows in missing_patterns(X)]
[([True, True], [1]), ([True, False], [0]), ([False, True], [2])]
>>> S = np.array([[[2.0, 1.0], [1.0, 2.0]]])
>>> given_x0 = Conditioned(np.zeros((1, 2)), S, np.array([True, False]))
>>> log_density, filled = given_x0.evaluate(0, X[:1])
>>> filled                       # x1 | x0 = 1: mean S_10 / S_00 * 1
array([[1. , 0.5]])
>>> given_x0.covariance(0)       # 2 - 1 * 1 / 2
array([[1.5]])
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dtrsm
from scipy.linalg.lapack import dpotrf

from .moments import BLOCK_BYTES

LOG_2PI = float(np.log(2.0 * np.pi))


def missing_patterns(X: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The distinct missingness patterns of ``X`` and the rows that have each.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        NaN marks a missing value.

    Returns
    -------
    list of (observed, rows)
        ``observed`` a boolean mask of shape (d,), ``rows`` the ascending indices of
        the rows whose non-NaN coordinates are exactly ``observed``; patterns ordered by
        their missing coordinates read as bits (complete rows first). A complete ``X``
        gives one pattern.
    """
    missing = np.isnan(X)
    n, d = X.shape
    if not missing.any():
        return [(np.ones(d, dtype=bool), np.arange(n))]
    keys = np.packbits(missing, axis=1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = np.ravel(inverse)
    order = np.argsort(inverse, kind="stable")
    groups = np.split(order, np.cumsum(np.bincount(inverse))[:-1])
    return [(~missing[first[g]], rows) for g, rows in enumerate(groups)]


def row_chunks(rows: np.ndarray, n_features: int, n_components: int = 1):
    """``rows`` in consecutive pieces whose temporaries (``n_components`` filled copies
    of ``n_features`` values per row) stay within about ``BLOCK_BYTES``."""
    step = max(64, BLOCK_BYTES // (8 * (n_components + 1) * (n_features + 1)))
    for start in range(0, len(rows), step):
        yield rows[start : start + step]


class Conditioned:
    """K Gaussians conditioned on the observed coordinates of one missingness pattern.

    Parameters
    ----------
    means : ndarray of shape (K, d)
    covariances : ndarray of shape (K, d, d)
        Symmetric positive definite (the observed block at least, for ``marginal=True``).
    observed : ndarray of shape (d,) of bool
        The pattern: True where a coordinate is observed.
    components : sequence of int, optional
        The components to factorise (default all); :meth:`evaluate` and
        :meth:`covariance` take positions in this sequence.
    marginal : bool, default False
        Factorise only ``S_oo`` (enough for log-densities); otherwise the whole
        reordered covariance, for conditional means and covariances as well.
    """

    def __init__(self, means, covariances, observed, components=None, marginal=False):
        self.observed = np.asarray(observed, dtype=bool)
        self.obs = np.flatnonzero(self.observed)
        self.mis = np.flatnonzero(~self.observed)
        self.components = np.arange(len(means)) if components is None else components
        self.means = means
        self.marginal = marginal
        order = self.obs if marginal else np.concatenate([self.obs, self.mis])
        o = self.obs.size
        self.L_oo, self.L_mo, self.L_mm = [], [], []
        self.log_norm = np.empty(len(self.components))
        for a, k in enumerate(self.components):
            L = _cholesky(covariances[k][order[:, None], order], k, self.obs)
            self.L_oo.append(np.asfortranarray(L[:o, :o]))
            self.L_mo.append(L[o:, :o])
            self.L_mm.append(L[o:, o:])
            # ln of the normaliser of the observed marginal: -ln|L_oo| - (o/2) ln 2 pi
            self.log_norm[a] = -np.log(np.diagonal(L)[:o]).sum() - 0.5 * o * LOG_2PI
        self._covariances = {}

    def log_density(self, a: int, X: np.ndarray) -> np.ndarray:
        """``ln p(x_o)`` of the rows of ``X`` (n, d) under component ``components[a]``."""
        return self._whiten(a, X)[0]

    def evaluate(self, a: int, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Log-densities (n,) of the observed coordinates of the rows of ``X`` and the
        rows with their missing coordinates replaced by the conditional means (n, d),
        under component ``components[a]``."""
        if self.marginal:
            raise ValueError("conditional means need Conditioned(..., marginal=False)")
        log_density, z = self._whiten(a, X)
        filled = np.array(X, dtype=np.float64, copy=True)
        if self.mis.size:
            mu_m = self.means[self.components[a]][self.mis]
            if z is None:
                filled[:, self.mis] = mu_m
            else:
                filled[:, self.mis] = (self.L_mo[a] @ z).T + mu_m
        return log_density, filled

    def covariance(self, a: int) -> np.ndarray:
        """The conditional covariance of the missing coordinates (m, m) given the
        observed ones, under component ``components[a]`` (the same for every row)."""
        if self.marginal:
            raise ValueError("conditional covariances need Conditioned(..., marginal=False)")
        if a not in self._covariances:
            self._covariances[a] = self.L_mm[a] @ self.L_mm[a].T
        return self._covariances[a]

    def _whiten(self, a: int, X: np.ndarray):
        """(ln p(x_o) of each row, z = L_oo^-1 (x_o - mu_o) of shape (o, n) or None)."""
        n, o = X.shape[0], self.obs.size
        if o == 0:  # nothing observed: the marginal over no coordinates is 1
            return np.zeros(n), None
        mu = self.means[self.components[a]]
        diff = np.subtract(X[:, self.obs], mu[self.obs], dtype=np.float64).T  # (o, n), F order
        z = dtrsm(1.0, self.L_oo[a], diff, lower=1, overwrite_b=1)
        log_density = np.einsum("ij,ij->j", z, z)
        log_density *= -0.5
        log_density += self.log_norm[a]
        return log_density, z


def _cholesky(matrix: np.ndarray, k: int, obs: np.ndarray) -> np.ndarray:
    """The lower Cholesky factor (LAPACK's potrf; a 0 x 0 matrix is its own)."""
    if matrix.size == 0:
        return matrix
    L, info = dpotrf(matrix, lower=1, clean=1)
    if info != 0:
        raise ValueError(
            f"the covariance of component {k} is not positive definite (its block of "
            f"observed coordinates {obs.tolist()}, or the whole matrix); regularise it, "
            "e.g. with reg_covar > 0."
        )
    return L


def check_gaussians(X, means, covariances) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``X`` (n, d), ``means`` (K, d) and ``covariances`` (K, d, d) as float64 arrays of
    matching shapes; NaN allowed in ``X`` only (missing), infinities nowhere."""
    X = np.asarray(X, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    covariances = np.asarray(covariances, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (n, d), got shape {X.shape}")
    d = X.shape[1]
    if means.ndim != 2 or means.shape[1] != d:
        raise ValueError(f"means must have shape (K, {d}), got {means.shape}")
    if covariances.shape != (means.shape[0], d, d):
        raise ValueError(
            f"covariances must have shape {(means.shape[0], d, d)}, got {covariances.shape}"
        )
    if np.isinf(X).any():
        raise ValueError("X contains infinity; only NaN (missing) is allowed")
    if not (np.isfinite(means).all() and np.isfinite(covariances).all()):
        raise ValueError("means and covariances must be finite")
    return X, means, covariances


def normalise(log_prob: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Responsibilities (K, n) and log-evidence (n,) of joint log-densities (K, n).

    Exponentials of the differences from each column's largest entry, divided by their
    sum: the columns sum to 1 within rounding of one division. Columns with a finite
    largest entry only (some component of positive weight).
    """
    top = log_prob.max(axis=0)
    resp = np.exp(log_prob - top)
    mass = resp.sum(axis=0)
    resp /= mass
    return resp, np.log(mass) + top
