"""What a fitted Bayes classifier is besides a decision rule: a generative model of the
joint p(x, y) = p(x|y) P(y), which draws samples, scores the data (BIC, AIC) and reads
as a text of its parameters."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import encode_labels
from ..priors import priors_estimated
from ..summary import summarize


class JointModel:
    """Mixin of :class:`~bayesrule.BayesClassifier`: sampling, BIC, AIC and summary."""

    def sample(self, n_samples=1, random_state=None):
        """Draw ``(X, y)`` from the fitted joint model: y from the priors, x from p(x|y).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
        """
        self._ready()
        if (
            not isinstance(n_samples, (int, np.integer))
            or isinstance(n_samples, bool)
            or n_samples < 1
        ):
            raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
        if isinstance(random_state, np.random.Generator):
            rng = random_state
        else:
            rng = np.random.default_rng(check_random_state(random_state).randint(2**31))
        counts = rng.multinomial(n_samples, self.class_prior_)
        X = self.likelihood_.sample(counts, rng)
        y = np.repeat(self.classes_, counts)
        order = rng.permutation(n_samples)
        return X[order], y[order]

    def _joint_log_likelihood_of(self, X, y) -> tuple[float, int]:
        self._ready()
        self._density_only("the likelihood of the data (BIC, AIC)")
        X = self._validated(X)
        y_idx = encode_labels(np.asarray(y), self.classes_)
        if y_idx.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y_idx.shape[0]} labels for {X.shape[0]} samples")
        joint = self._joint(X, relative=False, prior=self._prior(None))
        return float(joint[np.arange(X.shape[0]), y_idx].sum()), X.shape[0]

    def n_parameters(self) -> int:
        """Free parameters of the joint model: the densities, plus C - 1 estimated priors."""
        self._ready()
        estimated = priors_estimated(self.priors)
        return self.likelihood_.n_parameters() + (len(self.classes_) - 1 if estimated else 0)

    def bic(self, X, y) -> float:
        """Bayesian information criterion ``-2 ln p(X, y) + k ln n`` (lower is better)."""
        ll, n = self._joint_log_likelihood_of(X, y)
        return -2.0 * ll + self.n_parameters() * np.log(n)

    def aic(self, X, y) -> float:
        """Akaike information criterion ``-2 ln p(X, y) + 2 k`` (lower is better)."""
        ll, _ = self._joint_log_likelihood_of(X, y)
        return -2.0 * ll + 2.0 * self.n_parameters()

    def summary(self) -> str:
        """A readable text of every fitted parameter."""
        self._ready()
        return summarize(self)
