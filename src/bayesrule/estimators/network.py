"""Bayesian network classifiers with learned structure: TAN and KDB.

Each attribute has the class and up to k other attributes as parents, chosen from the
(conditional) mutual information of the training counts; everything else (values,
smoothing, unseen and missing values, binning) is as in :mod:`bayesrule.estimators.one_dependence`.
"""

from __future__ import annotations

from ..likelihoods.discrete.learned import KDependence, TreeAugmented
from .mixture import StreamingUnavailable
from .one_dependence import DISCRETE, _SemiNaive
from .preset import Preset, fitted


class _Network(_SemiNaive):
    parents_ = fitted("Per attribute the tuple of its attribute parents (the class is everyone's).")
    mutual_information_ = fitted("``I(X_j; C)`` in nats, shape (d,).")
    conditional_mutual_information_ = fitted("``I(X_i; X_j | C)`` in nats, shape (d, d).")

    def _default_parents(self, j):
        return self.parents_[j]


class TAN(_Network, Preset):
    """Tree-augmented naive Bayes (Friedman, Geiger and Goldszmidt 1997).

    Each attribute has the class and at most one other attribute as parents: the
    Chow-Liu maximum spanning tree over ``I(X_i; X_j | C)`` (or another ``edge_score``),
    directed away from the root.
    ``P(x_j | c, x_pa) = (F(c, x_pa, x_j) + m P(x_j | c)) / (F(c, x_pa) + m)``, ``m`` the
    ``backoff`` (5, Friedman et al.'s smoothing; 0: the Lidstone estimates
    ``(F(c, x_pa, x_j) + alpha) / (F(c, x_pa) + alpha O_j)``).

    Parameters
    ----------
    root : int, column name or None, default=None
        The tree's root; None: the attribute of highest mutual information with the class
        (with ``direction="weka"`` the search chooses it: leave None).
    edge_score : {"cmi", "aic", "bic", "bayes"}, default="cmi"
        The weight of an edge between attributes i and j, ``[i, j]`` for j as i's parent.
        "cmi": ``I(X_i; X_j | C)``, the maximum spanning tree (Weka's ENTROPY score
        gains ``N I(X_i; X_j | C)``: the same tree). "aic" and "bic" (bnclassify's
        ``tan_cl(score=)``): the log-likelihood gain ``N_ij I(X_i; X_j | C)`` less
        ``(O_i - 1)(O_j - 1) k`` parameters (k classes) times 1 or ``ln(N_ij) / 2``,
        ``N_ij`` the rows where both are observed; edges of negative weight are left
        out, as bnclassify does, so the result is a maximum spanning *forest*: the tree
        holding ``root`` is directed from it, each other tree from its attribute of
        highest ``I(X_j; C)``. "bayes": the Bayesian Dirichlet gain ``BD(X_i | C, X_j) -
        BD(X_i | C)``, the log marginal likelihood of i's counts given the class and j
        less that given the class alone (over the rows where both are observed), under a
        Dirichlet prior of ``alpha`` pseudo-counts per cell (``alpha / O_i`` with
        ``smoothing="m-estimate"``; needs ``alpha > 0``): Weka's BAYES score, its TAN's
        default (the score's alpha 0.5 is ``alpha=0.5``), and at ``alpha=1`` Cooper and
        Herskovits' K2 score. Not symmetric; always a whole tree, as "cmi".
    direction : {"root", "weka"}, default="root"
        How the tree grows and which way its arcs point. "root": from ``root``, adding at
        each step the link ``[n, t]`` of highest weight from a tree attribute t to an
        attribute n outside (Prim; ties: the lowest n, linked to the earliest tree
        attribute), every arc directed away from ``root``. "weka": as Weka 3.6's TAN
        search (``BayesNet -Q weka.classifiers.bayes.net.search.local.TAN``): from the
        link ``[i, j]`` of highest weight of all, then each step the link of highest
        weight with one end in the tree, either way round (ties: the first in row-major
        order); a link ``[i, j]`` makes i the parent of j where j has no parent yet, else
        j the parent of i, so the root may move as the tree grows. The "cmi" and "bayes"
        weights are then computed as Weka computes them, each node's score with the parent
        less that without, summed term by term in Weka's order ("cmi": the log-likelihood
        gains ``N_ij I(X_i; X_j | C)``): where two links gain the same, rounding decides
        as in Weka. With ``edge_score="bayes"``, ``alpha=0.5``, ``backoff=0`` and Weka's
        class prior ``priors`` ``(N_c + 0.5) / (N + 0.5 C)`` this is Weka's default TAN
        (its SimpleEstimator ``-A 0.5``), with "cmi" its ``-S ENTROPY`` TAN, on data
        without missing values (Weka replaces them by the training modes first) and
        whose every declared value occurs in training (Weka counts values its header
        declares in ``O_j`` too).
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    parents_ : list of tuple
        Per attribute () for a root, else (parent,). ``plot.dependence_graph`` draws it.
    root_ : int
        Column position of the root (of the tree holding it, for a forest; with
        ``direction="weka"`` the root the search ended with).
    mutual_information_, conditional_mutual_information_ : ndarray
        ``I(X_j; C)`` (d,) and ``I(X_i; X_j | C)`` (d, d) in nats.
    edge_weights_ : ndarray of shape (d, d)
        The weights of ``edge_score`` the tree (or forest) was grown by; ``[i, j]`` that
        of j as i's parent (symmetric but for "bayes" and, up to rounding, for the gains
        of ``direction="weka"``).

    Examples
    --------
    >>> from bayesrule import TAN
    >>> X = [[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]]
    >>> y = [0, 0, 1, 1, 0, 1]
    >>> TAN(root=0).fit(X, y).parents_
    [(), (0,), (1,)]

    Weka 3.6's default TAN (BAYES score, alpha 0.5, no back-off):

    >>> TAN(edge_score="bayes", direction="weka", alpha=0.5, backoff=0).fit(X, y).parents_
    [(1,), (), (1,)]
    """

    _family = TreeAugmented
    _parameters = {"root": None, "edge_score": "cmi", "direction": "root", **DISCRETE}
    _columns_of = ("root",)

    root_ = fitted("Column position of the tree's root.")
    edge_weights_ = fitted(
        "The edge weights of ``edge_score``, shape (d, d); ``[i, j]``: j as i's parent."
    )


class KDB(_Network, Preset):
    """k-dependence Bayes (Sahami 1996): each attribute has the class and up to ``k``
    other attributes as parents.

    Attributes are taken in order of ``I(X_j; C)``; each gets as parents the (up to)
    ``k`` earlier ones of highest ``I(X_i; X_j | C)``. ``k=0`` is naive Bayes.

    Parameters
    ----------
    k : int, default=2
        The most attribute parents, ``0 <= k < n_features``.
    min_cmi : float or None, default=None
        Sahami's threshold: a parent only where ``I(X_i; X_j | C) > min_cmi`` (in
        nats), so an attribute may get fewer than k (0.0: no parent that tells nothing
        about the child given the class). None: always the k of highest information.
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    parents_ : list of tuple
        Per attribute its attribute parents.
    mutual_information_, conditional_mutual_information_ : ndarray

    Notes
    -----
    No ``partial_fit``: the parent combinations to count are chosen from all the data
    (TAN and AODE learn batch by batch). ``fit`` on a Dask collection counts them in a
    second pass over its blocks, once the structure is chosen from the pair counts.

    Examples
    --------
    >>> from bayesrule import KDB
    >>> X = [[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]]
    >>> y = [0, 0, 1, 1, 0, 1]
    >>> KDB(k=2).fit(X, y).parents_
    [(), (0,), (1, 0)]
    """

    _family = KDependence
    _parameters = {"k": 2, "min_cmi": None, **DISCRETE}

    @property
    def partial_fit(self):
        """Not available: the parent combinations are chosen from all the data."""
        raise StreamingUnavailable(
            "KDB.partial_fit: the parent combinations to count are chosen from all the data; "
            "use fit, or TAN / AODE, whose counts add up batch by batch"
        )
