"""Selective k-dependence Bayes: KDB whose attributes and k are chosen by leave-one-out.

:class:`SKDB` (Martinez, Webb, Chen and Zaidi 2016) is the KDB of
:mod:`bayesrule.estimators.network` over the first ``s`` attributes by mutual information
with the class, each with up to ``k <= k_max`` parents, ``s`` and ``k`` chosen by
leave-one-out over the training rows from the counts (no refits); the ensemble of SKDBs
is :class:`~bayesrule.ESKDB` (:mod:`bayesrule.estimators.ensemble`).
"""

from __future__ import annotations

from ..likelihoods.discrete.selective import SelectiveKDependence
from .mixture import StreamingUnavailable
from .network import _Network
from .one_dependence import DISCRETE
from .preset import Preset, fitted

#: SKDB's own parameters with their defaults (ESKDB shares them)
SELECTIVE = {"k_max": 5, "criterion": "rmse"}

#: the text of SKDB's own parameters, for the docstrings of SKDB and ESKDB
SELECTIVE_DOC = """k_max : int, default=5
        The most attribute parents a candidate gives an attribute (>= 0; the paper's 5).
        Candidates have k = 0 .. k_max parents; fewer where fewer attributes come
        earlier in the order.
    criterion : {"rmse", "log_loss", "zero_one"}, default="rmse"
        The leave-one-out score of a candidate: the root mean squared ``1 - P(y_i |
        x_i)`` (the paper's RMSE), the mean log loss or the error rate, each row's
        posterior from the counts with the row taken out. Ties (within 1e-9 relative):
        the fewest attributes, then the smallest k.
    """


class SKDB(_Network, Preset):
    """Selective k-dependence Bayes (Martinez, Webb, Chen and Zaidi 2016).

    Attributes are ordered by ``I(X_j; C)``; each gets as parents (up to) ``k_max``
    earlier ones of highest ``I(X_i; X_j | C)``, ranked. Every model nested in that
    structure, the first ``s`` attributes (s = 0 .. n_features) each with its first ``k``
    ranked parents (k = 0 .. k_max), is scored by leave-one-out over the training rows
    from the counts of the ``k_max`` structure, each row taken out of them in turn, and the
    best one is kept: ``P(c|x) ∝ P(c) prod_{j selected} P(x_j | c, x_pa_j)``. The
    attributes left out drop out of the product. ``s = n_features`` with ``k`` fixed is
    :class:`~bayesrule.KDB` with that ``k``.

    The fit makes three passes over the rows after the bins: the pair counts, the counts
    of the parent combinations, the leave-one-out scores; on a Dask collection each is one
    pass over its blocks (the model equals the one fitted in memory).

    Parameters
    ----------
    {selective}{shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    k_ : int
        The chosen number of parents.
    n_selected_ : int
        The chosen number of attributes.
    selected_ : ndarray of int
        The selected attributes' columns, in order of ``I(X_j; C)``.
    order_ : ndarray of int
        Every attribute's column in order of ``I(X_j; C)`` (the candidates' order).
    parents_ : list of tuple
        Per attribute its attribute parents; () for those not selected.
        ``plot.dependence_graph`` draws it (the attributes left out unlinked).
    loss_grid_ : ndarray of shape (n_features + 1, k_max + 1)
        The leave-one-out criterion of each candidate (s attributes, k parents).
    mutual_information_, conditional_mutual_information_ : ndarray

    Notes
    -----
    No ``partial_fit``: the candidates are scored on all the data.

    Examples
    --------
    >>> from bayesrule import SKDB
    >>> X = [[0, 0, 1], [0, 1, 0], [1, 1, 1], [1, 0, 0],
    ...      [0, 1, 1], [1, 0, 1], [0, 0, 0], [1, 1, 0]] * 4
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1] * 4  # the class is the first column
    >>> clf = SKDB(k_max=2).fit(X, y)
    >>> clf.selected_.tolist(), clf.k_  # the others only add noise
    ([0], 0)
    >>> clf.loss_grid_.shape  # (s = 0 .. 3 attributes, k = 0 .. 2)
    (4, 3)
    >>> clf.predict([[0, 1, 1], [1, 0, 0]])
    array([0, 1])
    """

    _family = SelectiveKDependence
    _parameters = {**SELECTIVE, **DISCRETE}
    _doc_parts = {**_Network._doc_parts, "selective": SELECTIVE_DOC}

    k_ = fitted("The chosen number of attribute parents.")
    n_selected_ = fitted("The chosen number of attributes.")
    selected_ = fitted("The selected attributes' columns, in order of mutual information.")
    order_ = fitted("Every attribute's column in order of mutual information with the class.")
    loss_grid_ = fitted("The leave-one-out criterion of each candidate, shape (d + 1, k_max + 1).")

    @property
    def partial_fit(self):
        """Not available: the candidates are scored on all the data."""
        raise StreamingUnavailable(
            "SKDB.partial_fit: the attributes and k are chosen by leave-one-out over all the "
            "data; use fit, or TAN / AODE, whose counts add up batch by batch"
        )
