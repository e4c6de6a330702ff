"""Independent binary features: ``P(x_j = 1 | c) = p_cj``, dense or sparse input.

Fitted from :class:`~bayesrule.stats.counts.CountStats`: per class and feature the
weighted number of rows with the feature on and with it observed. A missing value (NaN)
drops its feature out of the product, so ``p_cj`` uses the rows where feature j is
observed and a row's log-likelihood sums over its observed features only.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .._text import class_name
from ..stats.counts import CountStats, check_values, locate
from .base import Undetermined
from .count_family import CountLikelihood, matmul_t, zero_nan


class Bernoulli(CountLikelihood):
    """Bernoulli class-conditional model of binary features.

    ``ln p(x|c) = sum_j [x_j ln p_cj + (1 - x_j) ln(1 - p_cj)]`` over the observed
    features, with ``p_cj = (N_cj1 + alpha) / (N_cj + 2 alpha)``: ``N_cj1`` the weighted
    number of rows of class c with feature j on (after binarising), ``N_cj`` those with
    feature j observed. It is linear in x: ``x @ coef.T + intercept`` with
    ``coef = ln p - ln(1 - p)`` and ``intercept = sum_j ln(1 - p_cj)``.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing; 0 gives the ML estimates, where a value
        never seen in a class has probability 0 (``-inf``).
    binarize : float or None, default=0.0
        Values above this threshold count as 1, the others as 0. None: the data must be
        0/1 already (other values raise ValueError). Sparse input needs a threshold
        >= 0 (implicit zeros stay 0).

    Attributes
    ----------
    feature_count_ : ndarray of shape (C, d)
        ``N_cj1``.
    feature_log_prob_ : ndarray of shape (C, d)
        ``ln p_cj``.
    stats_ : CountStats

    Examples
    --------
    Seed 000's exam table (Confident, Studied, Sick) with ML estimates:

    >>> import numpy as np
    >>> from bayesrule.likelihoods import Bernoulli
    >>> X = np.array([[1, 0, 0], [1, 0, 1], [0, 1, 1], [0, 1, 0], [1, 1, 1]], float)
    >>> y = np.array([0, 1, 0, 1, 1])  # Fail, Pass
    >>> b = Bernoulli(alpha=0, binarize=None).fit(X, y, n_classes=2)
    >>> np.exp(b.feature_log_prob_).round(3)
    array([[0.5  , 0.5  , 0.5  ],
           [0.667, 0.667, 0.667]])
    >>> np.exp(b.log_likelihood(np.array([[1.0, 1.0, 0.0]]))).round(4)
    array([[0.125 , 0.1481]])
    """

    def __init__(self, alpha=1.0, binarize=0.0):
        self.alpha = alpha
        self.binarize = binarize

    @property
    def _values(self):
        return self.binarize

    def _check_params(self):
        super()._check_params()
        t = self.binarize
        if t is not None and (
            not isinstance(t, numbers.Real) or isinstance(t, (bool, np.bool_)) or not np.isfinite(t)
        ):
            raise TypeError(
                f"binarize must be a finite number (the threshold) or None (data already "
                f"0/1), got {t!r}"
            )

    def set_statistics(self, stats: CountStats):
        """Smoothed probabilities from the statistics."""
        alpha = self._start(stats)
        on, observed = stats.feature_sum, stats.observed
        denom = observed + 2 * alpha
        if (denom <= 0).any():
            c, j = np.argwhere(denom <= 0)[0]
            raise Undetermined(
                f"feature {j} is never observed in {class_name(c)}, so with "
                "alpha=0 its probability is undetermined; set alpha > 0."
            )
        off = np.maximum(observed - on, 0.0)  # rounding never makes it negative
        with np.errstate(divide="ignore"):
            log_denom = np.log(denom)
            log_p = np.log(on + alpha) - log_denom
            log_q = np.log(off + alpha) - log_denom
        self.feature_log_prob_ = log_p
        self.log_prob_off_ = log_q  # ln(1 - p_cj)
        p0, q0 = log_p == -np.inf, log_q == -np.inf  # alpha = 0 only
        finite_p, finite_q = np.where(p0, 0.0, log_p), np.where(q0, 0.0, log_q)
        self.coef_t_ = np.ascontiguousarray((finite_p - finite_q).T)
        self.off_t_ = np.ascontiguousarray(finite_q.T)
        self.intercept_ = finite_q.sum(axis=1)
        self.zero_on_, self.zero_off_ = p0, q0
        self.extreme_ = bool(p0.any() or q0.any())
        return self._finish(stats)

    # ----------------------------------------------------------------- evaluation
    def linear_coef(self) -> np.ndarray:
        """``ln p_cj - ln(1 - p_cj)``, shape (C, d)."""
        return self.feature_log_prob_ - self.log_prob_off_

    def linear_intercept(self) -> np.ndarray:
        """``sum_j ln(1 - p_cj)``, shape (C,)."""
        return self.log_prob_off_.sum(axis=1)

    def _binary(self, X):
        """The block (missing entries zeroed) as 0/1 floats, in the same layout."""
        t = self.binarize
        if t is None:
            return X
        if sp.issparse(X):
            if t < 0:
                raise ValueError(
                    f"binarize={t!r} is negative: every implicit zero of a sparse matrix "
                    "would count as 1. Use binarize >= 0, or pass a dense array."
                )
            return sp.csr_array(((X.data > t).astype(np.float64), X.indices, X.indptr), X.shape)
        return (X > t).astype(np.float64)

    def _feature_terms(self, X: np.ndarray) -> np.ndarray | None:
        """``ln p_cj`` where feature j is on, ``ln(1 - p_cj)`` where off, 0 where missing."""
        if self.extreme_ or (self.binarize is None and not np.isin(X[~np.isnan(X)], (0, 1)).all()):
            return None
        observed = ~np.isnan(X)[:, None, :]
        on = self._binary(np.nan_to_num(X))[:, None, :] > 0
        own = np.where(on, self.feature_log_prob_, self.log_prob_off_)
        return np.where(observed, own, 0.0)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        if self.binarize is None:  # the data must be 0/1 (missing values allowed)
            check_values(X.data if sp.issparse(X) else X, None, "Bernoulli", locate(X))
        X, missing = zero_nan(X)
        B = self._binary(X)
        if missing is not None and not sp.issparse(B):
            B[missing > 0] = 0.0  # a missing value is neither on nor off
        out = matmul_t(B, self.coef_t_)
        if missing is None:
            out += self.intercept_[:, None]
        elif sp.issparse(missing):  # drop ln(1 - p) of the missing features
            out += self.intercept_[:, None]
            out -= matmul_t(missing, self.off_t_)
            out[:, missing.sum(axis=1) == X.shape[1]] = 0.0  # every feature missing
        else:  # sum ln(1 - p) over the observed features only: exactly 0 if none
            out += matmul_t(1.0 - missing, self.off_t_)
        if self.extreme_:
            on_zero = matmul_t(B, self.zero_on_.T.astype(np.float64))
            off_zero = self.zero_off_.sum(axis=1)[:, None] - matmul_t(
                B, self.zero_off_.T.astype(np.float64)
            )
            if missing is not None:
                off_zero -= matmul_t(missing, self.zero_off_.T.astype(np.float64))
            out[(on_zero > 0.5) | (off_zero > 0.5)] = -np.inf
        return out

    def _impossible(self, x: np.ndarray) -> np.ndarray | None:
        if not self.extreme_:
            return None
        observed = ~np.isnan(x)
        on = (x == 1) if self.binarize is None else (x > self.binarize)
        on &= observed
        return (self.zero_on_ & on) | (self.zero_off_ & ~on & observed)

    # ----------------------------------------------------------------- model size, sampling
    def n_parameters(self) -> int:
        """Free parameters: ``C d`` probabilities."""
        return int(self.feature_log_prob_.size)

    def sample(self, counts, random_state) -> np.ndarray:
        """``counts[c]`` rows of independent 0/1 draws with ``p_c``, rows in class order."""
        p = np.exp(self.feature_log_prob_)
        blocks = [
            (random_state.random((int(k), p.shape[1])) < p[c]).astype(np.float64)
            for c, k in enumerate(counts)
        ]
        return np.concatenate(blocks) if blocks else np.empty((0, p.shape[1]))

    def _described(self) -> tuple[str, np.ndarray]:
        """The title and table of ``P(x_j = 1 | class)``."""
        return (
            f"Bernoulli, alpha={self.alpha!r}, binarize={self.binarize!r}: P(x_j = 1 | class)",
            np.exp(self.feature_log_prob_),
        )
