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
    Chow-Liu maximum spanning tree over ``I(X_i; X_j | C)``, directed away from the root.
    ``P(x_j | c, x_pa) = (F(c, x_pa, x_j) + m P(x_j | c)) / (F(c, x_pa) + m)``, ``m`` the
    ``backoff`` (5, Friedman et al.'s smoothing; 0: the Lidstone estimates
    ``(F(c, x_pa, x_j) + alpha) / (F(c, x_pa) + alpha O_j)``).

    Parameters
    ----------
    root : int, column name or None, default=None
        The tree's root; None: the attribute of highest mutual information with the class.
    edge_score : {"cmi", "aic", "bic"}, default="cmi"
        The weight of an edge between attributes i and j (bnclassify's
        ``tan_cl(score=)``): "cmi" ``I(X_i; X_j | C)``, the maximum spanning tree; "aic"
        and "bic" the log-likelihood gain ``N_ij I(X_i; X_j | C)`` less ``(O_i - 1)(O_j -
        1) k`` parameters (k classes) times 1 or ``ln(N_ij) / 2``, ``N_ij`` the rows where
        both are observed. Edges of negative weight are left out, as bnclassify does, so
        the result is a maximum spanning *forest*: the tree holding ``root`` is directed
        from it, each other tree from its attribute of highest ``I(X_j; C)``.
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    parents_ : list of tuple
        Per attribute () for a root, else (parent,). ``plot.dependence_graph`` draws it.
    root_ : int
        Column position of the root.
    mutual_information_, conditional_mutual_information_ : ndarray
        ``I(X_j; C)`` (d,) and ``I(X_i; X_j | C)`` (d, d) in nats.
    edge_weights_ : ndarray of shape (d, d)
        The weights of ``edge_score`` the tree (or forest) maximises.

    Examples
    --------
    >>> from bayesrule import TAN
    >>> X = [[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]]
    >>> y = [0, 0, 1, 1, 0, 1]
    >>> TAN(root=0).fit(X, y).parents_
    [(), (0,), (1,)]
    """

    _family = TreeAugmented
    _parameters = {"root": None, "edge_score": "cmi", **DISCRETE}
    _columns_of = ("root",)

    root_ = fitted("Column position of the tree's root.")
    edge_weights_ = fitted("The edge weights of ``edge_score``, shape (d, d).")


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
