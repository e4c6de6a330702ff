"""The greedy cross-validated structure searches of bnclassify as one estimator.

:class:`StructureSearch` chooses a Bayesian network classifier's structure by k-fold
cross-validated accuracy (``tan_hc``, ``tan_hcsp``, ``fssj``, ``bsej``) and fits it; the
search is :mod:`bayesrule.likelihoods.discrete.search`.
"""

from __future__ import annotations

import numpy as np

from ..likelihoods.discrete.search import SearchedNetwork
from .mixture import StreamingUnavailable
from .network import _Network
from .one_dependence import DISCRETE
from .preset import Preset, fitted


class StructureSearch(_Network, Preset):
    """A Bayesian network classifier whose structure a greedy search chooses by
    cross-validated accuracy, as bnclassify's ``tan_hc``, ``tan_hcsp``, ``fssj`` and
    ``bsej`` (Keogh and Pazzani 2002; Pazzani 1996).

    Each step scores every network one move away from the current one by the mean
    accuracy of ``cv``-fold cross-validation and takes the best, while it gains at least
    ``epsilon`` over the current accuracy (and that is below 1):

    * ``"tan_hc"``: from naive Bayes, add an arc to an attribute without attribute
      parents from one that is not its descendant (the result is a TAN or a forest);
    * ``"tan_hcsp"``: the same arcs, from the super-parent whose arcs to every attribute
      it may reach score best, one at a time;
    * ``"fssj"``: from no attribute, add one alone or joined to a group of connected
      attributes (a "supernode", modelled as one table of its combinations);
    * ``"bsej"``: from naive Bayes, remove an attribute or join two supernodes.

    Attributes left out have no factor. The folds are made of the *distinct* training
    rows (equal rows share a fold, so integer weights equal repeated rows), stratified by
    class; each fold's model is fitted from its own counts with the estimator's
    smoothing, as the final model on all the rows. Continuous columns are binned once, on
    all the rows, before the search (bnclassify takes discrete data).

    Parameters
    ----------
    method : {"tan_hc", "tan_hcsp", "fssj", "bsej"}, default="tan_hc"
        The search (bnclassify's function of the same name).
    cv : int, splitter or iterable of (train, test) index arrays, default=5
        Folds of the cross-validation, at least 2 (fewer where there are fewer distinct
        rows; with one, no search: the start, naive Bayes or for fssj no attribute); or,
        as scikit-learn's ``cv``, a splitter (its ``split(X, y)`` over the rows of
        ``fit``) or the splits themselves. Rows of weight 0 or with every attribute
        missing are in no fold.
    epsilon : float, default=0.01
        The least gain in accuracy a move must bring (bnclassify's default).
    random_state : None, int or RandomState, default=None
        None: the distinct rows are dealt to the folds in the order of their values
        (deterministic); else shuffled first.
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    parents_ : list of tuple
        Per attribute its attribute parents. ``plot.dependence_graph`` draws it.
    features_ : ndarray of int
        The attributes that take part (the others have no factor).
    search_scores_ : ndarray
        The cross-validated accuracy of each state the search moved through, from the
        start (empty where nothing could be held out).
    mutual_information_, conditional_mutual_information_ : ndarray

    Notes
    -----
    bnclassify searches with ``smooth=0`` by default and draws among tied candidates at
    random; here the search scores each fold's model with the estimator's own smoothing
    (as it will predict) and takes the first of tied candidates.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import StructureSearch
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = (y + (rng.random(300) < 0.2)) % 2
    >>> X = np.column_stack([a, a ^ (rng.random(300) < 0.1), rng.integers(0, 3, 300)])
    >>> clf = StructureSearch(method="fssj").fit(X, y)
    >>> clf.features_, clf.parents_
    (array([0]), [(), (), ()])
    """

    _family = SearchedNetwork
    _parameters = {"method": "tan_hc", "cv": 5, "epsilon": 0.01, "random_state": None, **DISCRETE}

    features_ = fitted("The attributes that take part (column positions).")
    search_scores_ = fitted("The cross-validated accuracy of each state the search moved through.")

    @property
    def partial_fit(self):
        """Not available: the search cross-validates over all the rows."""
        raise StreamingUnavailable(
            "StructureSearch.partial_fit: the search cross-validates over all the rows; "
            "use fit, or TAN / AODE, whose counts add up batch by batch"
        )

    def _most_parents(self, j: int) -> int:
        return int(np.iinfo(np.intp).max)
