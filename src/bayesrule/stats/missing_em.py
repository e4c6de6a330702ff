"""EM over missing coordinates (NaN) for Gaussian classes and Gaussian mixtures.

The E step turns rows with missing values into the *expected* complete-data statistics
under the current parameters: for a row and a group k (a class, or a mixture component)
its missing part is filled with the conditional mean ``mu_m + S_mo S_oo^-1 (x_o - mu_o)``
and the conditional covariance ``S_mm - S_mo S_oo^-1 S_om`` is added to the scatter, all
weighted by ``resp[i, k] * sample_weight[i]``. The result is a
:class:`~bayesrule.stats.moments.ClassMoments` of kind "full" (sums about the current
means, summed again about the new ones where centring would cancel; those of row blocks
merge with :func:`~bayesrule.stats.moments.merge`), so the M step is whatever turns
statistics into parameters (the covariance structure and its regularisation). The same
pass gives the observed-data log-likelihood, the stopping rule's quantity; each
pattern's covariance blocks are factorised once (:mod:`bayesrule.stats.conditional`).

* :func:`expected_moments`: the E step for given responsibilities (one-hot for classes);
* :func:`class_e_step`: the same for classes given as labels, with the log-likelihood;
* :func:`mixture_e_step`: a mixture's E step in one pass: responsibilities from the
  marginal densities, then the expected statistics and the log-likelihood;
* :func:`fit_gaussian_missing`: EM for one Gaussian per class, with the M step
  (``estimate``) supplied by the caller, from :func:`start_moments`.

Examples
--------
>>> import numpy as np
>>> from bayesrule.stats.missing_em import fit_gaussian_missing
>>> rng = np.random.default_rng(0)
>>> X = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.8], [0.8, 1.0]], size=400)
>>> X[rng.random(X.shape) < 0.2] = np.nan
>>> y = np.zeros(400, dtype=int)
>>> def ml(stats):                     # the M step: full ML covariance per class
...     return stats.mean, stats.scatter / stats.count[:, None, None]
>>> stats, n_iter, trace = fit_gaussian_missing(X, y, 1, None, ml)
>>> bool(np.all(np.diff(trace) > -1e-9 * abs(trace[-1])))      # EM never goes down
True
>>> np.round(stats.scatter[0] / stats.count[0], 1)
array([[1. , 0.8],
       [0.8, 1. ]])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_integer
from .conditional import Conditioned, check_gaussians, missing_patterns, normalise, row_chunks
from .missing_start import check_weights, start_moments
from .moments import CANCELLATION_LIMIT, ClassMoments, class_moments


# --------------------------------------------------------------------- the E step
def expected_moments(X, resp, means, covariances, sample_weight=None) -> ClassMoments:
    """Expected complete-data statistics of ``X`` under K Gaussians (the E step).

    Parameters
    ----------
    X : array-like of shape (n, d)
        NaN marks a missing value.
    resp : array-like of shape (n, K)
        Non-negative memberships (one-hot for classes, responsibilities for a mixture).
    means : array-like of shape (K, d)
    covariances : array-like of shape (K, d, d)
        Positive definite.
    sample_weight : array-like of shape (n,), optional
        Non-negative; integer weights equal duplicated rows.

    Returns
    -------
    ClassMoments
        Kind "full": ``count[k] = sum_i w_ik``, the mean of the filled rows and their
        centred scatter plus ``sum_i w_ik Cov[x_m | x_o]`` (``w_ik = resp[i, k] *
        sample_weight[i]``). Without missing values: the plain weighted moments.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats.missing_em import expected_moments
    >>> X = np.array([[1.0, 2.0], [np.nan, 4.0]])
    >>> S = np.array([[[1.0, 0.5], [0.5, 1.0]]])
    >>> m = expected_moments(X, np.ones((2, 1)), np.zeros((1, 2)), S)
    >>> m.mean                    # x0 of row 1 filled with 0.5 * 4 = 2
    array([[1.5, 3. ]])
    >>> m.scatter[0, 0, 0]        # (1 - 1.5)^2 + (2 - 1.5)^2 + Var[x0 | x1] (0.75)
    np.float64(1.25)
    """
    X, means, covariances = check_gaussians(X, means, covariances)
    n, K = X.shape[0], means.shape[0]
    resp = np.asarray(resp, dtype=np.float64)
    if resp.shape != (n, K) or not np.isfinite(resp).all() or (resp < 0).any():
        raise ValueError(f"resp must be a non-negative ({n}, {K}) array, got shape {resp.shape}")
    sw = check_weights(sample_weight, n)
    return _pass(X, means, covariances, lambda rows: resp[rows] * sw[rows, None])[0]


def mixture_e_step(
    X, weights, means, covariances, sample_weight=None
) -> tuple[ClassMoments, float]:
    """One pass of EM for a Gaussian mixture on data with missing values.

    Responsibilities from the marginal densities of each row's observed coordinates
    (as :func:`bayesrule.likelihoods.marginal.responsibilities`), then the expected
    statistics under them (as :func:`expected_moments`), pattern by pattern with each
    covariance factorised once per pattern.

    Parameters
    ----------
    X : array-like of shape (n, d)
    weights : array-like of shape (K,)
        Mixing weights.
    means : array-like of shape (K, d)
    covariances : array-like of shape (K, d, d)
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    stats : ClassMoments
        The M step's statistics (kind "full"); ``stats.count / stats.count.sum()`` are
        the new mixing weights.
    log_likelihood : float
        ``sum_i sample_weight[i] ln sum_k pi_k N(x_io; mu_k, S_k)`` at the given
        parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats.missing_em import mixture_e_step
    >>> X = np.array([[-3.0, 0.0], [3.0, np.nan], [np.nan, np.nan]])
    >>> means, covs = np.array([[-3.0, 0.0], [3.0, 0.0]]), np.array([np.eye(2)] * 2)
    >>> stats, ll = mixture_e_step(X, [0.5, 0.5], means, covs)
    >>> stats.count.round(3)          # the empty row splits by the weights
    array([1.5, 1.5])
    """
    X, means, covariances = check_gaussians(X, means, covariances)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (means.shape[0],) or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(f"weights must be {means.shape[0]} non-negative numbers, got {weights}")
    with np.errstate(divide="ignore"):  # ln 0 = -inf: a component with no weight
        log_weights = np.log(weights / weights.sum())
    sw = check_weights(sample_weight, X.shape[0])
    return _pass(X, means, covariances, None, log_weights=log_weights, sample_weight=sw)


def _pass(X, means, covariances, weights_of, log_weights=None, sample_weight=None, patterns=None):
    """The E step over all patterns: (ClassMoments, observed-data log-likelihood).

    ``weights_of(rows)`` gives the (len(rows), K) weights of fixed memberships; a
    mixture (``log_weights``) computes its responsibilities per block instead. Sums are
    taken about the current means (where the new ones lie, give or take a step of EM);
    a component whose new mean lies so far from its old one that centring would lose
    digits is summed again about the new mean. ``patterns``: those of
    :func:`~bayesrule.stats.conditional.missing_patterns`, where known.
    """
    patterns = missing_patterns(X) if patterns is None else patterns
    args = X, means, covariances, weights_of, log_weights, sample_weight, patterns
    stats, unsafe, total = _sums_pass(*args, centre=means)
    if unsafe.size:
        centre = means.copy()
        centre[unsafe] = stats.mean[unsafe]
        again = _sums_pass(*args, centre=centre)[0]
        stats.mean[unsafe], stats.scatter[unsafe] = again.mean[unsafe], again.scatter[unsafe]
    return stats, total


def _sums_pass(X, means, covariances, weights_of, log_weights, sample_weight, patterns, centre):
    K, d = means.shape
    sums, total = _Sums(centre), 0.0
    for observed, rows in patterns:
        if log_weights is None:
            W = weights_of(rows)
            active = np.flatnonzero((W > 0).any(axis=0))
            if active.size == 0:
                continue
            pattern = Conditioned(means, covariances, observed, components=active)
            for a, k in enumerate(active):
                selected = np.flatnonzero(W[:, k] > 0)
                for chunk in row_chunks(selected, d):
                    log_density, filled = pattern.evaluate(a, X[rows[chunk]])
                    w = W[chunk, k]
                    total += float(w @ log_density)
                    sums.add(k, filled, w, pattern, a)
            continue
        pattern = Conditioned(means, covariances, observed)
        for chunk in row_chunks(rows, d, K):
            block = X[chunk]
            log_prob = np.empty((K, len(chunk)))
            filled = []
            for k in range(K):
                log_prob[k], values = pattern.evaluate(k, block)
                filled.append(values)
            log_prob += log_weights[:, None]
            resp, log_evidence = normalise(log_prob)
            total += float(log_evidence @ sample_weight[chunk])
            resp *= sample_weight[chunk]
            for k in range(K):
                if resp[k].sum() > 0:
                    sums.add(k, filled[k], resp[k], pattern, k)
    return *sums.moments(), total


class _Sums:
    """Weighted count, sum and second moment of filled rows about a fixed ``centre``
    (K, d), the conditional covariances included."""

    def __init__(self, centre: np.ndarray):
        K, d = centre.shape
        self.centre = centre
        self.count, self.first, self.second = np.zeros(K), np.zeros((K, d)), np.zeros((K, d, d))

    def add(self, k: int, filled: np.ndarray, w: np.ndarray, pattern: Conditioned, a: int):
        resid = filled - self.centre[k]
        mass = w.sum()
        self.count[k] += mass
        self.first[k] += w @ resid
        self.second[k] += (resid * w[:, None]).T @ resid
        if pattern.mis.size:
            mis = pattern.mis
            self.second[k][mis[:, None], mis] += mass * pattern.covariance(a)

    def moments(self) -> tuple[ClassMoments, np.ndarray]:
        """The statistics, and the components whose centring cancelled more than
        ``CANCELLATION_LIMIT`` allows (to be summed again about their means)."""
        present = self.count > 0
        shift = self.first / np.where(present, self.count, 1.0)[:, None]
        mean = np.where(present[:, None], self.centre + shift, 0.0)
        second = 0.5 * (self.second + np.swapaxes(self.second, 1, 2))
        scatter = second - self.first[:, :, None] * shift[:, None, :]
        scatter = 0.5 * (scatter + np.swapaxes(scatter, 1, 2))
        before, after = np.einsum("kjj->kj", second), np.einsum("kjj->kj", scatter)
        lost = (after * CANCELLATION_LIMIT <= before) & (before > 0)
        unsafe = np.flatnonzero(lost.any(axis=1) & present)
        np.maximum(after, 0.0, out=after)  # a view: variances below 0 by rounding
        return ClassMoments(self.count.copy(), mean, scatter, "full"), unsafe


def class_e_step(X, y, means, covariances, sample_weight=None) -> tuple[ClassMoments, float]:
    """The E step of one Gaussian per class on a block of rows, with its log-likelihood.

    :func:`expected_moments` with the one-hot memberships of ``y`` (built pattern by
    pattern, never as an (n, C) matrix), and ``sum_i w_i ln N(x_io; mu_yi, S_yi)``. The
    statistics of row blocks merge with :func:`~bayesrule.stats.moments.merge` and their
    log-likelihoods add: one EM step over blocks (e.g. of a Dask collection).

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Class indices in ``range(C)``, ``C = len(means)``.
    means : array-like of shape (C, d)
    covariances : array-like of shape (C, d, d)
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    stats : ClassMoments
    log_likelihood : float

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats.missing_em import class_e_step
    >>> X = np.array([[0.0, np.nan], [5.0, 5.0]])
    >>> stats, ll = class_e_step(X, [0, 1], np.zeros((2, 2)), np.array([np.eye(2)] * 2))
    >>> stats.mean
    array([[0., 0.],
           [5., 5.]])
    """
    X, means, covariances = check_gaussians(X, means, covariances)
    y = _check_labels(y, X.shape[0], means.shape[0])
    sw = check_weights(sample_weight, X.shape[0])
    return _class_pass(X, y, means.shape[0], sw, means, covariances)


def _class_pass(X, y, n_classes, sw, means, covariances, patterns=None):
    def one_hot(rows):
        W = np.zeros((len(rows), n_classes))
        W[np.arange(len(rows)), y[rows]] = sw[rows]
        return W

    return _pass(X, means, covariances, one_hot, patterns=patterns)


def _check_labels(y, n: int, n_classes: int) -> np.ndarray:
    y = np.asarray(y)
    if y.shape != (n,) or not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"y must be {n} class indices (integers), got {y.dtype} {y.shape}")
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y must hold class indices in range({n_classes})")
    return y


# --------------------------------------------------------------------- EM for classes
def fit_gaussian_missing(
    X,
    y,
    n_classes: int,
    sample_weight,
    estimate: Callable[[ClassMoments], tuple[np.ndarray, np.ndarray]],
    tol: float = 1e-8,
    max_iter: int = 500,
) -> tuple[ClassMoments, int, np.ndarray]:
    """Maximum likelihood Gaussians per class from data with missing values, by EM.

    Starts from ``estimate(start_moments(...))``, then alternates the E step
    (:func:`expected_moments` with one-hot memberships, under the current parameters)
    and the M step ``estimate`` until the observed-data log-likelihood changes by at
    most ``tol * max(|log-likelihood|, 1)``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        NaN marks a missing value.
    y : ndarray of shape (n,)
        Class indices in ``range(n_classes)``.
    n_classes : int
    sample_weight : ndarray of shape (n,) or None
    estimate : callable
        The M step: ``estimate(stats) -> (means (C, d), covariances (C, d, d))``, the
        covariance structure (full per class, tied, ...) and any regularisation; it must
        give positive definite covariances.
    tol : float, default 1e-8
    max_iter : int, default 500
        At most this many E steps; a ConvergenceWarning if it is reached.

    Returns
    -------
    stats : ClassMoments
        The expected statistics of the last E step: ``estimate(stats)`` are the fitted
        parameters (what ``set_statistics`` of a Gaussian likelihood takes). Without
        missing values, ``class_moments(X, y, n_classes, sample_weight, kind="full")``.
    n_iter : int
        E steps made (1 without missing values).
    log_likelihood : ndarray of shape (n_iter,)
        The observed-data log-likelihood ``sum_i w_i ln N(x_io; mu_yi, S_yi)`` at each
        E step's parameters; non-decreasing up to rounding when ``estimate`` is the
        maximum likelihood M step.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or np.isinf(X).any():
        raise ValueError(f"X must be a 2-dimensional array without infinities, shape {X.shape}")
    n_classes = check_integer("n_classes", n_classes, 1)
    max_iter = check_integer("max_iter", max_iter, 1)
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a non-negative number, got {tol!r}")
    sw = check_weights(sample_weight, X.shape[0])
    y = _check_labels(y, X.shape[0], n_classes)

    def m_step(stats):
        means, covariances = estimate(stats)
        return check_gaussians(X[:0], means, covariances)[1:]

    if not np.isnan(X).any():
        stats = class_moments(X, y, n_classes, sample_weight, kind="full")
        ll = _class_pass(X, y, n_classes, sw, *m_step(stats))[1]
        return stats, 1, np.array([ll])
    means, covariances = m_step(start_moments(X, y, n_classes, sw))
    patterns, trace = missing_patterns(X), []
    for n_iter in range(1, max_iter + 1):
        stats, ll = _class_pass(X, y, n_classes, sw, means, covariances, patterns)
        trace.append(ll)
        means, covariances = m_step(stats)
        if n_iter > 1 and abs(ll - trace[-2]) <= tol * max(abs(ll), 1.0):
            break
    else:
        change = trace[-1] - trace[-2] if len(trace) > 1 else np.nan
        warnings.warn(
            f"EM over missing values did not converge in max_iter={max_iter} steps "
            f"(last change of the log-likelihood {change:.3g}); raise max_iter or tol.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return stats, n_iter, np.asarray(trace)
