"""Multinomial and complement naive Bayes over counts (bags of words), dense or sparse.

Both are fitted from :class:`~bayesrule.stats.counts.CountStats` (per class and
feature the weighted sum of counts); smoothing by ``alpha`` is applied only when the
statistics become parameters. Evaluation is one matrix product per block of rows, and a
scipy CSR matrix stays sparse throughout.
"""

from __future__ import annotations

import numpy as np

from .._text import class_name, class_names
from ..stats.counts import CountStats
from .base import Undetermined
from .count_family import CountLikelihood, observed_times_t


def _multinomial_sample(theta, stats: CountStats, counts, rng) -> np.ndarray:
    """Rows of each class: a Poisson length with the class's mean row total, then counts."""
    totals = stats.feature_sum.sum(axis=1)
    weight = stats.class_weight
    mean_length = np.divide(totals, weight, out=np.zeros_like(totals), where=weight > 0)
    blocks = []
    for c, k in enumerate(counts):
        p = theta[c] / theta[c].sum()
        lengths = rng.poisson(mean_length[c], size=int(k))
        blocks.append(rng.multinomial(lengths, p).astype(np.float64))
    d = theta.shape[1]
    return np.concatenate(blocks) if blocks else np.empty((0, d))


def _smoothed_theta(stats: CountStats, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Each class's own smoothed multinomial ``(N_cj + alpha) / (N_c + alpha d)``."""
    smoothed = stats.feature_sum + alpha
    total = smoothed.sum(axis=1, keepdims=True)
    empty = np.flatnonzero(total[:, 0] <= 0)
    if empty.size:
        raise Undetermined(
            f"{class_names(empty)} {'has' if empty.size == 1 else 'have'} no counts (every "
            "feature sums to 0), so with alpha=0 the probabilities are undetermined; set "
            "alpha > 0."
        )
    return smoothed, total


class Multinomial(CountLikelihood):
    """Multinomial class-conditional model of counts: ``ln p(x|c) = sum_j x_j ln theta_cj``.

    ``theta_cj = (N_cj + alpha) / (N_c + alpha d)``, where ``N_cj`` is the weighted sum of
    feature j over the rows of class c and ``N_c = sum_j N_cj``. As in scikit-learn's
    MultinomialNB, the multinomial coefficient ``(sum_j x_j)! / prod_j x_j!`` is left
    out: it depends on the row only, so posteriors and decisions are unchanged, but
    ``log_likelihood`` is the log-probability of the sequence of tokens, not of the
    counts. A missing count (NaN) contributes nothing (the row's observed counts decide).

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing; 0 gives the ML estimates, where a count
        of a feature never seen in a class has probability 0 (``-inf``).

    Attributes
    ----------
    feature_count_ : ndarray of shape (C, d)
    feature_log_prob_ : ndarray of shape (C, d)
        ``ln theta_cj``.
    stats_ : CountStats

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods import Multinomial
    >>> X = np.array([[2, 1, 0], [3, 0, 1], [0, 1, 4], [1, 0, 3]], float)
    >>> m = Multinomial().fit(X, np.array([0, 0, 1, 1]), n_classes=2)
    >>> np.exp(m.feature_log_prob_).round(3)
    array([[0.6  , 0.2  , 0.2  ],
           [0.167, 0.167, 0.667]])
    >>> m.log_likelihood(np.array([[0.0, 0.0, 2.0]])).round(3)
    array([[-3.219, -0.811]])
    """

    positive_only = True

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def set_statistics(self, stats: CountStats):
        """Smoothed log-probabilities from the statistics."""
        alpha = self._start(stats)
        smoothed, total = _smoothed_theta(stats, alpha)
        with np.errstate(divide="ignore"):
            self.feature_log_prob_ = log_prob = np.log(smoothed) - np.log(total)
        if alpha > 0:  # every theta > 0
            zero = np.zeros(log_prob.shape, dtype=bool)
        else:
            zero = log_prob == -np.inf
            log_prob = np.where(zero, 0.0, log_prob)
        self.coef_t_ = np.ascontiguousarray(log_prob.T)
        self._set_zero(zero)
        return self._finish(stats)

    # ----------------------------------------------------------------- evaluation
    def _class_major(self, X, relative: bool) -> np.ndarray:
        return self._mark_zero(X, observed_times_t(X, self.coef_t_))

    def _linear_weights(self, X):
        if self.zero_columns_.size:  # probability 0 somewhere: -inf, not 0 * -inf
            return None
        return self.coef_t_, np.zeros(self.n_classes_)

    # ----------------------------------------------------------------- model size, sampling
    def n_parameters(self) -> int:
        """Free parameters: ``C (d - 1)`` probabilities."""
        C, d = self.feature_log_prob_.shape
        return C * (d - 1)

    def sample(self, counts, random_state) -> np.ndarray:
        """``counts[c]`` rows of class c: a length drawn Poisson with the class's mean
        total count per training row, then the counts multinomial with ``theta_c``."""
        return _multinomial_sample(
            np.exp(self.feature_log_prob_), self.stats_, counts, random_state
        )

    def _described(self) -> tuple[str, np.ndarray]:
        """The title and table of ``theta_cj`` per class."""
        return (
            f"Multinomial, alpha={self.alpha!r}: P(feature j | class) (theta)",
            np.exp(self.feature_log_prob_),
        )


class Complement(CountLikelihood):
    """Complement naive Bayes weights (Rennie et al., 2003), as scikit-learn's ComplementNB.

    Each class c is scored by the counts of all the *other* classes: with
    ``N~_cj = sum_k N_kj - N_cj + alpha`` and ``theta~_cj = N~_cj / sum_j N~_cj``, the
    weights are ``w_cj = -ln theta~_cj`` (``norm=False``) or ``ln theta~_cj / sum_j ln
    theta~_cj`` (``norm=True``). The "log-likelihood" of a row is the score ``x . w_c``:
    it is not the log of a normalised density, only a discriminant that takes its
    place in Bayes' rule. scikit-learn leaves the class prior out (for two or more
    classes): use ``priors="uniform"`` for its posteriors exactly. A missing count (NaN)
    contributes nothing.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive smoothing of the complement counts. 0 is allowed only while every
        feature occurs in at least two classes (otherwise a weight is infinite).
    norm : bool, default=False
        Normalise the weights (the paper's weight normalisation).

    Attributes
    ----------
    feature_count_ : ndarray of shape (C, d)
    feature_log_prob_ : ndarray of shape (C, d)
        The weights ``w_cj`` (scikit-learn's name for them).
    stats_ : CountStats

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods import Complement
    >>> X = np.array([[2, 1, 0], [3, 0, 1], [0, 1, 4], [1, 0, 3]], float)
    >>> cnb = Complement().fit(X, np.array([0, 0, 1, 1]), n_classes=2)
    >>> cnb.feature_log_prob_.round(3)
    array([[1.792, 1.792, 0.405],
           [0.511, 1.609, 1.609]])
    >>> cnb.log_likelihood(np.array([[0.0, 0.0, 2.0]])).round(3)   # scores x . w_c
    array([[0.811, 3.219]])
    """

    positive_only = True
    #: its scores x . w_c are not a normalised density: no evidence, BIC or AIC
    is_density = False

    def __init__(self, alpha=1.0, norm=False):
        self.alpha = alpha
        self.norm = norm

    def _check_params(self):
        super()._check_params()
        if not isinstance(self.norm, (bool, np.bool_)):
            raise TypeError(f"norm must be True or False, got {self.norm!r}")

    def set_statistics(self, stats: CountStats):
        """Complement weights from the statistics (scikit-learn's formulas)."""
        alpha = self._start(stats)
        counts = stats.feature_sum
        comp = counts.sum(axis=0) + alpha - counts
        if (comp <= 0).any():
            c, j = np.argwhere(comp <= 0)[0]
            raise Undetermined(
                f"feature {j} occurs only in {class_name(c)} (or nowhere), so "
                "with alpha=0 its complement count is 0 and its weight infinite; set "
                "alpha > 0."
            )
        logged = np.log(comp / comp.sum(axis=1, keepdims=True))
        if self.norm:
            weights = logged / logged.sum(axis=1, keepdims=True)
        else:
            weights = -logged
        self.feature_log_prob_ = weights
        self.coef_t_ = np.ascontiguousarray(weights.T)
        return self._finish(stats)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        return observed_times_t(X, self.coef_t_)

    def _linear_weights(self, X):
        return self.coef_t_, np.zeros(self.n_classes_)

    def n_parameters(self) -> int:
        """Free parameters of the count model behind the weights: ``C (d - 1)``."""
        C, d = self.feature_log_prob_.shape
        return C * (d - 1)

    def sample(self, counts, random_state) -> np.ndarray:
        """Draws from each class's *own* smoothed multinomial (the complement weights
        define no distribution): a Poisson length with the class's mean total count
        per training row, then multinomial counts with ``(N_cj + alpha) / (N_c + alpha d)``."""
        smoothed, total = _smoothed_theta(self.stats_, float(self.alpha))
        return _multinomial_sample(smoothed / total, self.stats_, counts, random_state)

    def _described(self) -> tuple[str, np.ndarray]:
        """The title and table of the complement weights per class."""
        return (
            f"Complement, alpha={self.alpha!r}, norm={self.norm!r}: weights w_cj (score = x . w_c)",
            self.feature_log_prob_,
        )
