"""Hidden naive Bayes (Zhang, Jiang and Su 2005), as Weka 3.6's ``HNB``.

Each attribute gets a hidden parent that mixes its one-dependence estimates given every
other attribute, weighted by the conditional mutual information; the family is
:class:`~bayesrule.likelihoods.discrete.hidden.HiddenNaive`.
"""

from __future__ import annotations

import numpy as np

from ..likelihoods.discrete.hidden import HiddenNaive
from .one_dependence import _SemiNaive
from .preset import Preset, fitted


class HNB(_SemiNaive, Preset):
    """Hidden naive Bayes (Zhang, Jiang and Su 2005), with Weka 3.6's estimates.

    Each attribute j has a hidden parent that mixes the one-dependence estimates given
    every other attribute:

        P(x_j | c, hp_j) = sum_{i != j} W_ij P(x_j | c, x_i),
        W_ij = I(X_i; X_j | C) / sum_{k != j} I(X_k; X_j | C),

    ``P(x_j | c, x_i) = (F(c, x_i, x_j) + m / O_j) / (F(c, x_i) + m)`` (Weka: m = 1) and
    the default prior ``P(c) = (F(c) + m / k) / (n + m)``, k classes. An attribute whose
    conditional information with every other is 0 gets ``P(x_j | c)`` (the same
    m-estimate). With these, its posteriors equal Weka's
    ``weka.classifiers.bayes.HNB`` (tested to 1e-12 on data without missing values).

    Missing values, which Weka refuses, are marginalised: a missing attribute drops out,
    and a missing (or never seen) one leaves the others' hidden parents, whose weights
    are renormalised over the attributes left.

    The factors are not a normalised joint density (every hidden parent depends on all
    the other attributes), so ``log_evidence``, ``bic``, ``aic`` and ``sample`` are
    refused with a TypeError; ``log_likelihood`` is the log of the product of factors.

    Parameters
    ----------
    m : float, default=1.0
        Pseudo-rows of every table, spread uniformly over its values; 0: the ML
        estimates.
    unseen : {"smooth", "ignore", "error"}, default="smooth"
        A value never seen in training, as in :class:`~bayesrule.CategoricalNB`
        ("smooth": count 0 in the formula).
    discretize : {"auto", "mdl", "quantile"} or None, default="auto"
        How to bin float columns, as in :class:`~bayesrule.AODE` ("auto": supervised MDL
        cut points of the continuous columns, as Weka discretises before HNB).
    n_bins : int, default=5
        Bins per continuous column for ``discretize="quantile"``.
    {common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    weights_ : ndarray of shape (n_features, n_features)
        ``W_ij``: column j holds the weights of attribute j's hidden parent (zero
        diagonal; a column sums to 1, or is 0 where j gets ``P(x_j | c)``).
    conditional_mutual_information_ : ndarray of shape (n_features, n_features)
        ``I(X_i; X_j | C)`` in nats.
    mutual_information_ : ndarray of shape (n_features,)
        ``I(X_j; C)`` in nats.
    class_marginal_ : ndarray of shape (n_classes,)
        ``(F(c) + m / k) / (n + m)``: the default prior.

    Examples
    --------
    >>> from bayesrule import HNB
    >>> X = [["sunny", "hot"], ["sunny", "hot"], ["rainy", "cool"], ["rainy", "mild"],
    ...      ["sunny", "mild"], ["rainy", "cool"]]
    >>> y = ["no", "no", "yes", "yes", "no", "yes"]
    >>> clf = HNB().fit(X, y)
    >>> clf.predict([["sunny", "cool"]])
    array(['no'], dtype='<U3')
    >>> clf.class_prior_  # (F(c) + 1/2) / (6 + 1)
    array([0.5, 0.5])
    """

    _family = HiddenNaive
    _parameters = {"m": 1.0, "unseen": "smooth", "discretize": "auto", "n_bins": 5}

    weights_ = fitted("``W_ij``, the weights of each attribute's hidden parent (column j).")
    conditional_mutual_information_ = fitted("``I(X_i; X_j | C)`` in nats, shape (d, d).")
    mutual_information_ = fitted("``I(X_j; C)`` in nats, shape (d,).")
    class_marginal_ = fitted("``(F(c) + m / k) / (n + m)``: the default prior (Weka's).")

    def _empirical_prior(self) -> np.ndarray | None:
        if getattr(self.likelihood_, "pending_", None):
            return None
        return getattr(self.likelihood_, "class_marginal_", None)

    def _default_parents(self, j):
        return ()

    def _most_parents(self, j: int) -> int:
        return 1
