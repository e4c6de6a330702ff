"""Student-t log-densities of many rows under many classes at once, shape (C, rows).

The posterior predictive densities of Gaussian classes under conjugate priors
(:mod:`bayesrule.likelihoods.conjugate`) are Student-t distributions:

* :func:`multivariate_t_logpdf`: ``t_nu(x; mu_c, S_c)`` from the upper Cholesky factors
  ``U_c`` of the inverse scales (``U U^T = S^-1``, the convention of
  :class:`~bayesrule.likelihoods.Gaussian`'s ``precisions_cholesky_``), one per class or
  one shared by all classes with a per-class multiplier of the scale (the tied
  structure);
* :func:`diagonal_t_logpdf`: a product of univariate t's, one per feature;
* :func:`isotropic_t_logpdf`: the multivariate t with scale ``s_c I``.

The multivariate density of a row x in d dimensions is::

    ln t = lnG((nu + d) / 2) - lnG(nu / 2) - d/2 ln(nu pi) - 1/2 ln|S|
           - (nu + d)/2 * log1p(delta / nu),         delta = (x - mu)^T S^-1 (x - mu)

evaluated with ``log1p`` and with :func:`log_gamma_ratio` for the difference of log-gamma
functions, so that it stays accurate for large degrees of freedom (where the density
tends to the Gaussian). Rows are evaluated in blocks of bounded memory; NaN is not
treated as missing here.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from .base import BLOCK_BYTES

LOG_PI = np.log(np.pi)

#: below this argument ``lnG(x + a) - lnG(x)`` is a plain difference of ``gammaln``
#: (relative error about ``eps * x / a``); above it Stirling's series (no cancellation).
STIRLING_FROM = 1e2


def log_gamma_ratio(x, a) -> np.ndarray:
    """``ln Gamma(x + a) - ln Gamma(x)`` for ``x > 0``, ``a >= 0``, elementwise.

    A difference of ``gammaln`` for small ``x``; for ``x >= 100`` Stirling's series
    written as ``(x - 1/2) log1p(a / x) + a ln(x + a) - a`` plus the difference of the
    series' correction terms, accurate to a few ulps however large ``x`` is.

    Examples
    --------
    >>> from bayesrule.likelihoods.student import log_gamma_ratio
    >>> float(log_gamma_ratio(3.0, 2.0))      # ln(4! / 2!) = ln 12
    2.4849066497880004
    >>> float(log_gamma_ratio(1e12, 1.0))     # ln(1e12)
    27.631021115928547
    """
    x, a = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(a, dtype=np.float64))
    out = np.empty(x.shape)
    small = x < STIRLING_FROM
    out[small] = gammaln(x[small] + a[small]) - gammaln(x[small])
    xl, al = x[~small], a[~small]
    z = xl + al
    out[~small] = (
        (xl - 0.5) * np.log1p(al / xl)
        + al * np.log(z)
        - al
        + (_stirling_tail(z) - _stirling_tail(xl))
    )
    return out[()] if out.ndim == 0 else out


def _stirling_tail(z):
    """``lnG(z) - (z - 1/2) ln z + z - ln(2 pi) / 2`` for ``z >= 100`` (error < 1e-25)."""
    r = 1.0 / z
    r2 = r * r
    return r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)))


def _rows_per_block(width: int) -> int:
    return max(64, BLOCK_BYTES // (8 * max(width, 1)))


def _t_normaliser(df, dims, log_scale_det):
    """The log-normaliser of a t with ``dims`` dimensions and ``ln|S|``."""
    return (
        log_gamma_ratio(0.5 * df, 0.5 * dims)
        - 0.5 * dims * (np.log(df) + LOG_PI)
        - (0.5 * log_scale_det)
    )


def multivariate_t_logpdf(X, location, precision_cholesky, df, scale_factor=None):
    """Log-densities of multivariate Student-t distributions, shape (C, rows).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    location : ndarray of shape (C, d)
        The location mu_c of each class.
    precision_cholesky : ndarray of shape (C, d, d) or (1, d, d)
        Upper-triangular U_c with ``U_c U_c^T = inverse(S_c)``; one factor shared by
        every class when its first axis has length 1.
    df : float or ndarray of shape (C,)
        Degrees of freedom (> 0).
    scale_factor : ndarray of shape (C,), optional
        Class c's scale is ``scale_factor[c] * S_c`` (a shared factor with per-class
        inflation, as the tied structure's predictive densities have).

    Returns
    -------
    ndarray of shape (C, n)

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import multivariate_t
    >>> from bayesrule.likelihoods.student import multivariate_t_logpdf
    >>> S = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> U = np.linalg.inv(np.linalg.cholesky(S)).T        # upper, U U^T = inverse(S)
    >>> x = np.array([[0.3, -1.2]])
    >>> out = multivariate_t_logpdf(x, np.zeros((1, 2)), U[None], np.array([4.0]))
    >>> bool(np.isclose(out[0, 0], multivariate_t(np.zeros(2), S, df=4).logpdf(x[0])))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    location = np.asarray(location, dtype=np.float64)
    U = np.asarray(precision_cholesky, dtype=np.float64)
    C, d = location.shape
    df = np.broadcast_to(np.asarray(df, dtype=np.float64), (C,))
    factor = np.ones(C) if scale_factor is None else np.broadcast_to(scale_factor, (C,))
    log_det = -2.0 * np.log(np.einsum("kjj->kj", U)).sum(axis=1)  # ln|S_k|
    const = _t_normaliser(df, d, np.broadcast_to(log_det, (C,)) + d * np.log(factor))
    power = 0.5 * (df + d)
    shared = U.shape[0] == 1
    if shared:  # one product for all classes, on rows centred among the locations
        reference = location.mean(axis=0)
        projected = (location - reference) @ U[0]
    out = np.empty((C, X.shape[0]))
    step = _rows_per_block(d * (1 if shared else 2) + C)
    for start in range(0, X.shape[0], step):
        rows = slice(start, min(start + step, X.shape[0]))
        if shared:
            Z = (X[rows] - reference) @ U[0]
        for c in range(C):
            diff = Z - projected[c] if shared else (X[rows] - location[c]) @ U[c]
            delta = np.einsum("ij,ij->i", diff, diff) / (factor[c] * df[c])
            out[c, rows] = const[c] - power[c] * np.log1p(delta)
    return out


def diagonal_t_logpdf(X, location, scale, df):
    """Log-densities of products of univariate Student-t's, one per feature, (C, rows).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    location : ndarray of shape (C, d)
    scale : ndarray of shape (C, d)
        The squared scale ``s_cj`` of each class and feature (the variance is
        ``s df / (df - 2)`` for ``df > 2``).
    df : ndarray of shape (C,) or (C, d)
        Degrees of freedom per class, or per class and feature.

    Returns
    -------
    ndarray of shape (C, n)

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import t
    >>> from bayesrule.likelihoods.student import diagonal_t_logpdf
    >>> x = np.array([[0.5, -1.0]])
    >>> out = diagonal_t_logpdf(x, np.zeros((1, 2)), np.array([[1.0, 4.0]]), np.array([3.0]))
    >>> want = t(3).logpdf(0.5) + t(3, scale=2.0).logpdf(-1.0)
    >>> bool(np.isclose(out[0, 0], want))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    location = np.asarray(location, dtype=np.float64)
    C, d = location.shape
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), (C, d))
    df = np.asarray(df, dtype=np.float64)
    df = np.broadcast_to(df[:, None] if df.ndim == 1 else df, (C, d))
    const = _t_normaliser(df, 1, np.log(scale)).sum(axis=1)
    inverse = 1.0 / (df * scale)  # (C, d)
    power = 0.5 * (df + 1.0)
    out = np.empty((C, X.shape[0]))
    step = _rows_per_block(2 * d + C)
    for start in range(0, X.shape[0], step):
        rows = slice(start, min(start + step, X.shape[0]))
        for c in range(C):
            diff = X[rows] - location[c]
            diff *= diff
            diff *= inverse[c]
            out[c, rows] = const[c] - np.log1p(diff) @ power[c]
    return out


def isotropic_t_logpdf(X, location, scale, df):
    """Log-densities of multivariate Student-t's with scale ``s_c I``, shape (C, rows).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    location : ndarray of shape (C, d)
    scale : ndarray of shape (C,)
        The squared scale ``s_c`` of each class (the same for every feature).
    df : ndarray of shape (C,)

    Returns
    -------
    ndarray of shape (C, n)

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import multivariate_t
    >>> from bayesrule.likelihoods.student import isotropic_t_logpdf
    >>> x = np.array([[0.5, -1.0]])
    >>> out = isotropic_t_logpdf(x, np.zeros((1, 2)), np.array([2.0]), np.array([3.0]))
    >>> bool(np.isclose(out[0, 0], multivariate_t(np.zeros(2), 2.0, df=3).logpdf(x[0])))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    location = np.asarray(location, dtype=np.float64)
    C, d = location.shape
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), (C,))
    df = np.broadcast_to(np.asarray(df, dtype=np.float64), (C,))
    const = _t_normaliser(df, d, d * np.log(scale))
    power = 0.5 * (df + d)
    out = np.empty((C, X.shape[0]))
    step = _rows_per_block(d + C)
    for start in range(0, X.shape[0], step):
        rows = slice(start, min(start + step, X.shape[0]))
        for c in range(C):
            diff = X[rows] - location[c]
            delta = np.einsum("ij,ij->i", diff, diff) / (scale[c] * df[c])
            out[c, rows] = const[c] - power[c] * np.log1p(delta)
    return out
