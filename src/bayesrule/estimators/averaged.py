"""Averaged n-dependence estimators (AnDE) and weighted AODE (WAODE) over discrete
features: the family is :mod:`bayesrule.likelihoods.discrete.averaged`; values,
smoothing, unseen and missing values and binning are as in
:mod:`bayesrule.estimators.one_dependence`.
"""

from __future__ import annotations

from ..likelihoods.discrete.averaged import AveragedDependence
from .one_dependence import DISCRETE, _OneDependence, shared_with_mdl
from .preset import COMMON, Preset, fitted

#: the shared text with AnDE's default: every float column binned
_ANDE_SHARED = shared_with_mdl(
    '        AnDE\'s default is "mdl": its tables grow with the (n + 1)-th power of the\n'
    "        values, so whole-number float columns of few values (pixel levels) are cut\n"
    '        too ("auto" keeps those as values: A2DE on the 17 levels of 64 pixels would\n'
    "        need 50 GiB of tables), as Weka discretises every numeric attribute.",
)


class AnDE(_OneDependence, Preset):
    """Averaged n-dependence estimators (Webb, Boughton, Zheng, Ting and Salem 2012).

    Each super-parent n-dependence estimator (SPnDE) makes every other attribute depend
    on the class and on a set ``S`` of ``n`` super-parents:
    ``P(y, x) = P(y, x_S) prod_{j not in S} P(x_j | y, x_S)``, with Webb's estimates
    ``P(y, x_S) = (F(y, x_S) + alpha) / (n_S + alpha k prod_{s in S} O_s)`` and
    ``P(x_j | y, x_S) = (F(y, x_S, x_j) + alpha) / (F(y, x_S) + alpha O_j)``. AnDE averages,
    in probability space, the SPnDEs of every set whose values in the row were seen
    together at least ``min_count`` times; a row with none falls back to A(n-1)DE, down to
    :class:`AODE` and naive Bayes. ``n=1`` is :class:`AODE`; ``n=2`` (A2DE) lowers bias
    further on large data, at ``d - 1`` times AODE's tables.

    The counts of every set of up to ``n + 1`` attributes add up batch by batch
    (``partial_fit``, Dask).

    Parameters
    ----------
    n : int, default=2
        Super-parents per estimator, from 1 to the number of features.
    min_count : float, default=1
        The (weighted) training count a combination of super-parent values needs.
    subsumption : bool or int, default=False
        Subsumption resolution at prediction, as :class:`AODE`'s (AODEsr's).
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_

    Examples
    --------
    >>> from bayesrule import AnDE
    >>> X = [["sun", "hot", "dry"], ["sun", "hot", "dry"], ["rain", "cold", "wet"],
    ...      ["rain", "mild", "wet"], ["sun", "mild", "dry"], ["rain", "cold", "dry"]]
    >>> y = ["go", "go", "stay", "stay", "go", "stay"]
    >>> AnDE(n=2).fit(X, y).predict([["sun", "cold", "dry"]])
    array(['go'], dtype='<U4')
    """

    _family = AveragedDependence
    _doc_parts = {"common": COMMON, "shared": _ANDE_SHARED}
    _parameters = {
        "n": 2,
        "min_count": 1,
        "subsumption": False,
        **DISCRETE,
        "discretize": "mdl",
        "backoff": 0.0,
    }

    def _default_parents(self, j):
        return ()

    def _most_parents(self, j: int) -> int:
        return self.likelihood_._check_n(self.n_features_in_)


class WAODE(_OneDependence, Preset):
    """Weighted averaged one-dependence estimators (Jiang and Zhang 2006).

    :class:`AODE` with each SPODE weighted by the mutual information ``I(X_p; C)`` of its
    super-parent with the class (empirical, over the training rows where ``x_p`` is seen;
    ``weights_``): ``P(y, x) = sum_p w_p P_p(y, x) / sum_p w_p`` over the usable SPODEs
    (super-parent value seen ``min_count`` times). A row whose usable SPODEs all have
    weight 0 gets AODE's average. Weka's ``WAODE`` takes every SPODE, weighs them so and
    estimates with m-estimates (m = 1, a uniform prior); here the estimates are AODE's
    (``alpha``, default Laplace).

    Parameters
    ----------
    min_count : float, default=1
        The (weighted) training count a super-parent value needs.
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    weights_ : ndarray of shape (n_features,)
        ``I(X_p; C)`` in nats, each SPODE's weight.

    Examples
    --------
    >>> from bayesrule import WAODE
    >>> X = [["sun", "hot"], ["sun", "hot"], ["rain", "cold"], ["rain", "mild"],
    ...      ["sun", "mild"], ["rain", "cold"]]
    >>> y = ["go", "go", "stay", "stay", "go", "stay"]
    >>> clf = WAODE().fit(X, y)
    >>> clf.weights_.round(3)
    array([0.693, 0.462])
    >>> clf.predict([["sun", "cold"]])
    array(['go'], dtype='<U4')
    """

    _family = AveragedDependence
    _fixed = {"n": 1, "weighted": True}
    _parameters = {"min_count": 1, **DISCRETE, "backoff": 0.0}

    weights_ = fitted("``I(X_p; C)`` in nats of every attribute: the SPODEs' weights.")

    def _default_parents(self, j):
        return ()

    def _most_parents(self, j: int) -> int:
        return 1
