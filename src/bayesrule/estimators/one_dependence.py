"""Semi-naive Bayes classifiers over discrete features: SPODE and AODE here, TAN and KDB
in :mod:`bayesrule.estimators.network`.

Naive Bayes treats the attributes as independent given the class; these let each
attribute depend on other attributes too (seed 002, eq. 13):
``P(c|x) ∝ P(c) prod_j P(x_j | c, pa_j)``. All four take any hashable values (strings,
booleans, integer codes, pandas categories), count with the Lidstone estimates of
seed 002 (``alpha``), back the tables given attribute parents off to the attribute's
table given the class (``backoff``) or smooth every table hierarchically
(``smoothing="hdp"``), handle values never seen in training as :class:`CategoricalNB`
does (``unseen``), and marginalise missing values (NaN, None, pandas NA): a missing
attribute drops out; a missing parent makes its children fall back to their other
parents. Float columns are binned as ``discretize`` says
(:mod:`bayesrule.likelihoods.discrete.binning`, shared with :class:`CategoricalNB`);
integer, string and boolean columns stay as they are:

* ``"auto"`` (the default): Fayyad and Irani's supervised MDL cut points, as Weka
  discretises numeric attributes before its AODE, of the continuous columns and of the
  whole-number ones with more than max(sqrt(n), 20) distinct values (53.0 mg, 3750.0 g); float
  codes with fewer (OrdinalEncoder output, 0/1 flags) stay values;
* ``"mdl"``: the same cut points for every float column;
* ``"quantile"``: ``n_bins`` equal-frequency bins (weighted) of every float column;
* None: no binning; whole-number floats are codes, other floats refused (ValueError).

Bins are learned on the data of ``fit`` (on the first batch for ``partial_fit``); on a
Dask collection, from all its blocks in a first pass (each float column's distinct values
and their class weights), so the bins are those of the data in memory.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch

from .._validation import column_position
from ..likelihoods.discrete.one_dependence import OneDependence
from .preset import COMMON, Preset, fitted

#: the parameters of every semi-naive preset, with their defaults
DISCRETE = {
    "alpha": 1.0,
    "unseen": "smooth",
    "discretize": "auto",
    "n_bins": 5,
    "backoff": 5.0,
    "smoothing": "lidstone",
}

_SHARED = """alpha : float, default=1.0
        Lidstone lambda of every table; 1 is Laplace smoothing, 0 the ML estimates.
    unseen : {"smooth", "ignore", "error"}, default="smooth"
        A value never seen in training, as in :class:`~bayesrule.CategoricalNB`.
    discretize : {"auto", "mdl", "quantile"} or None, default="auto"
        How to bin float columns: "auto" the continuous ones and the whole-number ones of
        more than max(sqrt(n), 20) values by supervised MDL cut points; "mdl" or "quantile"
        (``n_bins`` equal-frequency bins) every float column. None: keep whole-number
        floats as codes and refuse other floats with a ValueError.
    n_bins : int, default=5
        Bins per continuous column for ``discretize="quantile"`` (unused by "mdl").
    backoff : float, default=5.0 (AODE, AnDE and WAODE: 0)
        Weight, in rows, of an attribute's table given the class alone in each of its
        tables given attribute parents: ``P(x_j | c, pa) = (F(c, pa, x_j) + m P(x_j | c))
        / (F(c, pa) + m)``. A parent combination seen in few rows then predicts what the
        class alone does, not the near-uniform Lidstone estimate (Friedman, Geiger and
        Goldszmidt smoothed TAN so, with m = 5). 0: the Lidstone estimates alone (AODE's
        default: Webb's estimates, whose average over SPODEs smooths already).
    smoothing : {"lidstone", "m-estimate", "hdp"}, default="lidstone"
        "lidstone": the tables above (``alpha``, ``backoff``). "m-estimate": ``alpha``
        pseudo-rows spread evenly over each table's cells instead of ``alpha`` per cell,
        ``(F(c, pa, x_j) + alpha / O_j) / (F(c, pa) + alpha)`` (and ``P(c, x_p)`` of AODE
        over its ``C O_p`` cells): Weka's AODEsr and WAODE estimates at ``alpha=1``.
        "hdp": every table ``P(x_j | c, parents)`` smoothed hierarchically (Petitjean,
        Buntine, Webb and Zaidi 2018): a tree of Dirichlet distributions ``P(x_j)`` ->
        ``P(x_j | c)`` -> ``P(x_j | c, pa_1)`` -> ..., each node's estimate ``(n + c_l
        P(parent)) / (N + c_l)`` with one concentration ``c_l >= alpha`` per level, of
        largest marginal likelihood; ``alpha`` is also the root's Lidstone prior,
        ``backoff`` is unused. Deterministic (expected table counts and empirical-Bayes
        concentrations instead of the paper's Gibbs sampling; see
        :mod:`bayesrule.likelihoods.discrete.hdp`).
        Helps most where parent combinations are many and rows per combination few
        (KDB with k >= 2); fitting takes longer (seconds for 64 attributes).
    """


_AUTO = 'discretize : {"auto", "mdl", "quantile"} or None, default="auto"'
assert _AUTO in _SHARED


def shared_with_mdl(why: str) -> str:
    """The shared parameter text for a preset whose ``discretize`` default is "mdl",
    ``why`` (indented lines) said under it."""
    return _SHARED.replace(
        _AUTO, 'discretize : {"auto", "mdl", "quantile"} or None, default="mdl"\n' + why
    )


class _SemiNaive:
    """Mixin of the semi-naive presets (not itself an estimator): the column options
    (positions or DataFrame names) and the tables."""

    _doc_parts = {"common": COMMON, "shared": _SHARED}  # see Preset

    _columns_of: tuple[str, ...] = ()  # parameters the family takes as column positions
    _saved_state = ("_column_names",)  # fitted state besides the classifier's

    def _prepare(self, X):
        """Remember the column names (for ``parent=``/``root=`` given as names)."""
        columns = getattr(X, "columns", None)
        self._column_names = None if columns is None else list(columns)

    def _position(self, name: str):
        """The parameter ``name`` as a column position (None stays None; an integer is
        checked against the data by the family)."""
        value = getattr(self, name)
        if not isinstance(value, str):
            return value
        names = getattr(self, "_column_names", None)
        return column_position(name, value, len(names or ()), names)

    def _family_options(self) -> dict:
        options = super()._family_options()
        for name in self._columns_of:
            options[name] = self._position(name)
        return options

    categories_ = fitted(
        "The values of each feature seen in training (bin numbers for binned columns)."
    )
    bin_edges_ = fitted("Per feature None, or the inner cut points that bin a continuous column.")

    def _check_position(self, value, name: str) -> None:
        d = self.n_features_in_
        bad = isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral)
        if bad or not 0 <= value < d:
            raise ValueError(f"{name} must hold feature positions 0..{d - 1}, got {value!r}")

    def _most_parents(self, j: int) -> int:
        return len(self._default_parents(j))

    def cpt(self, j: int, parents=None) -> Bunch:
        """The conditional probability table of attribute ``j``.

        Returns a Bunch with ``parents`` (column positions), ``counts`` (weighted
        training counts, shape (C, O_pa..., O_j)) and ``proba`` (the estimates
        ``P(x_j | c, parents)`` of the model's ``smoothing``, same shape; the values are
        ``categories_``).
        """
        like = self._fitted_likelihood()
        self._check_position(j, "j")
        parents = self._default_parents(j) if parents is None else tuple(parents)
        for p in parents:
            self._check_position(p, "parents")
        if j in parents or len(parents) > self._most_parents(j):
            raise ValueError(
                f"parents={parents} is not a parent set this model has counts for (attribute "
                f"{j}: its own parents {self._default_parents(j)}, or one other attribute "
                "for AODE)."
            )
        counts, proba = like.table(j, parents)
        return Bunch(parents=parents, counts=counts, proba=proba)


class _OneDependence(_SemiNaive):
    """SPODE and AODE: the default priors are the class probabilities their estimates
    imply (``class_marginal_``), so that prior x density is exactly Webb's joint."""

    _family = OneDependence

    def _empirical_prior(self) -> np.ndarray | None:
        if getattr(self.likelihood_, "pending_", None):
            return None
        return getattr(self.likelihood_, "class_marginal_", None)

    class_marginal_ = fitted(
        """``P(y) = sum_{x_p} P(y, x_p)`` of the estimates, averaged over super-parents:
        the default prior (close to the class frequencies)."""
    )

    def parent_proba(self, p: int) -> np.ndarray:
        """The SPODE estimate ``P(y, x_p) = (F(y, x_p) + alpha) / (n_p + alpha k O_p)``,
        shape (C, O_p)."""
        like = self._fitted_likelihood()
        self._check_position(p, "p")
        return like.parent_proba(p)


class SPODE(_OneDependence, Preset):
    """Super-parent one-dependence estimator: every attribute depends on one super-parent.

    ``P(y, x) = P(y, x_p) prod_{j != p} P(x_j | y, x_p)`` with the estimates of Webb et
    al.: ``P(y, x_p) = (F(y, x_p) + alpha) / (n_p + alpha k O_p)`` (``n_p`` the rows where
    ``x_p`` is observed: n without missing values) and ``P(x_j | y, x_p) =
    (F(y, x_p, x_j) + alpha) / (F(y, x_p) + alpha O_j)`` with ``backoff=0``; at the default
    ``backoff=5`` the m-estimate ``(F(y, x_p, x_j) + 5 P(x_j | y)) / (F(y, x_p) + 5)``.
    A row whose super-parent is missing (or never seen) gets naive Bayes.

    Parameters
    ----------
    parent : int, column name or None, default=None
        The super-parent; None: the one whose SPODE has the least leave-one-out log loss
        on the training rows, computed from the counts (each row taken out of them in
        turn), as Keogh and Pazzani's SuperParent chose by estimated accuracy. The
        attribute that explains the most dependence is often a bad choice: one nearly
        duplicated by others leaves them nothing to say about the class. ``partial_fit``
        chooses on the first batch that determines the model and keeps the choice.
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_
    parents_ : list of tuple
        Per attribute its attribute parents: () for the super-parent, (p,) for the others.

    Examples
    --------
    >>> from bayesrule import SPODE
    >>> X = [[0, 0], [0, 0], [1, 1], [1, 1], [0, 1], [1, 0]]
    >>> y = ["a", "a", "b", "b", "a", "b"]
    >>> clf = SPODE(parent=0).fit(X, y)
    >>> clf.parents_
    [(), (0,)]
    >>> clf.predict([[0, 0], [1, 1]])
    array(['a', 'b'], dtype='<U1')
    """

    _parameters = {"parent": None, **DISCRETE}
    _fixed = {"min_count": 0}
    _columns_of = ("parent",)

    def _family_options(self) -> dict:
        options = super()._family_options()
        options["parents"] = options.pop("parent")  # the family's name: one super-parent
        return options

    @property
    def parents_(self) -> list:
        """Per attribute its attribute parents (the class is everyone's parent)."""
        p = self._fitted_likelihood().super_parents_[0]
        return [() if j == p else (p,) for j in range(self.n_features_in_)]

    def _default_parents(self, j):
        return self.parents_[j]


class AODE(_OneDependence, Preset):
    """Averaged one-dependence estimators (Webb, Boughton and Wang 2005).

    The average, in probability space, of the :class:`SPODE` of every attribute whose
    value in the row was seen at least ``min_count`` times in training; a row with no
    such attribute gets naive Bayes (as :class:`CategoricalNB`).

    Parameters
    ----------
    min_count : float, default=1
        The (weighted) training count a super-parent value needs.
    subsumption : bool or int, default=False
        AODEsr (Zheng and Webb 2006): before a row is scored, each of its values that
        another of its values specialises is deleted (treated as missing). ``x_j``
        specialises ``x_i`` when every training row with ``x_j`` also has ``x_i`` and
        ``x_j`` was seen more than a critical number of times: True is Weka's 50, an
        integer >= 1 that count. Weka's order decides chains and ties (see
        :mod:`bayesrule.likelihoods.discrete.subsumption`).
    {shared}{common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_, categories_, bin_edges_

    Examples
    --------
    >>> from bayesrule import AODE
    >>> X = [["sun", "hot"], ["sun", "hot"], ["rain", "cold"], ["rain", "mild"],
    ...      ["sun", "mild"], ["rain", "cold"]]
    >>> y = ["go", "go", "stay", "stay", "go", "stay"]
    >>> AODE().fit(X, y).predict([["sun", "cold"]])
    array(['go'], dtype='<U4')
    """

    _parameters = {"min_count": 1, "subsumption": False, **DISCRETE, "backoff": 0.0}

    def _default_parents(self, j):
        return ()

    def _most_parents(self, j: int) -> int:
        return 1
