"""Independent Poisson counts: ``x_j | c ~ Poisson(lambda_cj)``, dense or sparse input.

Fitted from :class:`~bayesrule.stats.counts.CountStats`, the statistics of the other
count families: per class and feature the weighted sum of the counts ``S_cj`` and the
weighted number of rows where the feature is observed ``N_cj``. So ``fit``,
``partial_fit``, Dask's block-wise fit and saved models take the same path as for the
multinomial. A missing value (NaN) drops its feature out of the product, when fitting
(``N_cj`` counts only the rows where feature j is observed) and when scoring.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._text import class_name
from ..stats.counts import CountStats, _has_nan
from .base import Undetermined
from .count_family import CountLikelihood, matmul_t, zero_nan


class Poisson(CountLikelihood):
    """Poisson class-conditional model of counts, one rate per class and feature.

    ``ln p(x|c) = sum_j (x_j ln lambda_cj - lambda_cj - ln x_j!)`` over the observed
    features of the row, with ``lambda_cj = (S_cj + alpha) / N_cj``: ``S_cj`` the
    weighted sum of feature j over the rows of class c, ``N_cj`` the weight of those
    rows where feature j is observed. ``alpha = 0`` gives the ML estimate (the class's
    weighted mean of the feature); ``alpha > 0`` is the posterior mean of the rate under
    the prior ``p(lambda) ~ lambda ** (alpha - 1)``: ``alpha = 1`` a flat prior on the
    rate (Laplace's rule for a rate: one pseudo-count added to each class's feature
    total, as MultinomialNB adds it), ``alpha = 0.5`` Jeffreys' prior. Every rate is then
    > 0, so no count makes a class impossible. With ``alpha = 0`` a feature never counted
    in a class has rate 0 there, and a row with a positive count of it has probability
    0 (``-inf``) in that class.

    Counts must be >= 0 (negative values raise ValueError). Values that are not whole
    numbers (frequencies, TF-IDF) are accepted and scored with the gamma-function
    continuation ``ln x! = lgamma(x + 1)``: the same formula, but not a probability
    (``scipy.stats.poisson.logpmf`` is ``-inf`` there); for whole numbers the two agree.
    ``relative_log_likelihood`` leaves out ``ln x_j!``, which all classes share;
    ``log_likelihood`` includes it. A feature with no observed value in some class (all
    NaN) has no rate there: ``fit`` raises ValueError, ``partial_fit`` waits for data.

    Parameters
    ----------
    alpha : float, default=1.0
        Pseudo-count added to each class's total of each feature (see above).

    Attributes
    ----------
    feature_count_ : ndarray of shape (C, d)
        ``S_cj``.
    rate_ : ndarray of shape (C, d)
        ``lambda_cj``.
    stats_ : CountStats

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import poisson
    >>> from bayesrule.likelihoods import Poisson
    >>> X = np.array([[2, 1, 0], [4, 0, 1], [0, 1, 3], [1, 0, 5]], float)
    >>> p = Poisson(alpha=0).fit(X, np.array([0, 0, 1, 1]), n_classes=2)
    >>> p.rate_
    array([[3. , 0.5, 0.5],
           [0.5, 0.5, 4. ]])
    >>> x = np.array([[1.0, 0.0, 4.0]])
    >>> p.log_likelihood(x).round(4)
    array([[-8.852, -3.326]])
    >>> poisson.logpmf(x, p.rate_).sum(axis=1).round(4)
    array([-8.852, -3.326])
    """

    positive_only = True

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def set_statistics(self, stats: CountStats):
        """Rates from the statistics (smoothing applied here, never stored)."""
        alpha = self._start(stats)
        exposure = stats.observed
        if (exposure <= 0).any():
            c, j = np.argwhere(exposure <= 0)[0]
            raise Undetermined(
                f"feature {j} of X has no observed value (only missing values) in "
                f"{class_name(c)}, so its rate is undetermined there; give that class "
                "observed values of the feature, or leave the column out."
            )
        rate = (stats.feature_sum + alpha) / exposure
        zero = rate <= 0  # alpha = 0 and a feature never counted in a class
        with np.errstate(divide="ignore"):
            self.log_rate_ = np.log(rate)
        self.rate_ = rate
        self.coef_t_ = np.ascontiguousarray(np.where(zero, 0.0, self.log_rate_).T)
        self.rate_t_ = np.ascontiguousarray(rate.T)
        self.intercept_ = -rate.sum(axis=1)
        self._set_zero(zero)
        return self._finish(stats)

    # ----------------------------------------------------------------- evaluation
    def linear_coef(self) -> np.ndarray:
        """``ln lambda_cj``, shape (C, d): ``x @ coef.T + intercept`` is the relative
        log-likelihood of a row without missing values."""
        return self.log_rate_

    def linear_intercept(self) -> np.ndarray:
        """``-sum_j lambda_cj``, shape (C,)."""
        return self.intercept_

    def _feature_terms(self, X: np.ndarray) -> np.ndarray | None:
        """``x_j ln lambda_cj - lambda_cj`` (without ``ln x_j!``, the same for every class)."""
        observed = ~np.isnan(X)[:, None, :]
        own = np.nan_to_num(X)[:, None, :] * self.coef_t_.T - self.rate_t_.T
        return np.where(observed, own, 0.0)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        X, missing = zero_nan(X)
        out = matmul_t(X, self.coef_t_)  # sum_j x_j ln lambda_cj, (C, rows)
        if missing is None:
            out += self.intercept_[:, None]
        elif sp.issparse(missing):  # give back the -lambda of the missing features
            out += self.intercept_[:, None]
            out += matmul_t(missing, self.rate_t_)
            out[:, missing.sum(axis=1) == X.shape[1]] = 0.0  # every feature missing
        else:  # -sum_j lambda_cj over the observed features only: exactly 0 if none
            out -= matmul_t(1.0 - missing, self.rate_t_)
        self._mark_zero(X, out)
        if not relative:  # ln x! (missing values are 0 here, and ln 0! = 0)
            if sp.issparse(X):
                logs = gammaln(np.asarray(X.data, dtype=np.float64) + 1.0)
                out -= sp.csr_array((logs, X.indices, X.indptr), shape=X.shape).sum(axis=1)
            else:
                out -= gammaln(np.asarray(X, dtype=np.float64) + 1.0).sum(axis=1)
        return out

    def _linear_weights(self, X):
        # a rate 0 gives -inf (not 0 * -inf); a missing count drops its -lambda
        if self.zero_columns_.size or _has_nan(X.data):
            return None
        return self.coef_t_, self.intercept_

    # ----------------------------------------------------------------- model size, sampling
    def n_parameters(self) -> int:
        """Free parameters: ``C d`` rates."""
        return int(self.rate_.size)

    def sample(self, counts, random_state) -> np.ndarray:
        """``counts[c]`` rows of independent Poisson counts with rates ``lambda_c``,
        rows in class order."""
        rate = self.rate_
        blocks = [
            random_state.poisson(rate[c], size=(int(k), rate.shape[1])).astype(np.float64)
            for c, k in enumerate(counts)
        ]
        return np.concatenate(blocks) if blocks else np.empty((0, rate.shape[1]))

    def _described(self) -> tuple[str, np.ndarray]:
        """The title and table of the rates ``lambda_cj`` per class."""
        return (
            f"Poisson, alpha={self.alpha!r}: rate lambda_cj (mean count of feature j in class c)",
            self.rate_,
        )
