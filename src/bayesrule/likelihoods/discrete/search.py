"""Greedy structure searches by cross-validated accuracy: bnclassify's ``tan_hc``,
``tan_hcsp``, ``fssj`` and ``bsej`` (Keogh and Pazzani 2002; Pazzani 1996).

A state is a network: the attributes that take part and each one's parents. From the
start state, each step scores every state one move away by k-fold cross-validated
accuracy (:mod:`~bayesrule.likelihoods.discrete.search_cv`) and moves to the best, while
it improves the current accuracy by at least ``epsilon`` (bnclassify's rule
``best - epsilon >= current``) and the current accuracy is below 1. Ties go to the first
candidate in the order listed below (bnclassify draws among them at random).

* ``"tan_hc"`` (hill-climbing TAN): from naive Bayes, add one arc to an attribute without
  parents ("orphan") from any attribute that is not its descendant; between two orphans
  only the arc from the lower column (either gives the same model up to smoothing);
* ``"tan_hcsp"`` (super-parent TAN): the same arcs, chosen in two stages: the attribute
  whose arcs to all orphans it may reach score best is the super-parent, and the
  candidates are its arcs, one at a time;
* ``"fssj"`` (forward sequential selection and joining): from no attribute at all, add
  one left-out attribute alone, or joined to a *supernode* (a connected group of
  attributes: the new one gets all of the group as parents);
* ``"bsej"`` (backward sequential elimination and joining): from naive Bayes, remove one
  attribute (its arcs go with it), or join two supernodes (the one of the lower first
  column gets every member of the other as parents).

Supernodes stay complete DAGs, so a joined group is modelled as one table of its values'
combinations. A candidate whose table would exceed :data:`MAX_CELLS` cells is not
proposed. The searched model is then fitted on all the rows with the structure found
(:class:`~bayesrule.likelihoods.discrete.given.GivenNetwork`).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

from ..._validation import check_integer, check_nonnegative
from .given import GivenNetwork, check_structure
from .search_cv import make_folds

#: the searches, by bnclassify's names
METHODS = ("tan_hc", "tan_hcsp", "fssj", "bsej")
#: the largest table (classes x parent combinations x values) a candidate may need
MAX_CELLS = 1 << 22


def _ancestors(parents, j) -> set[int]:
    out, todo = set(), list(parents[j])
    while todo:
        p = todo.pop()
        if p not in out:
            out.add(p)
            todo.extend(parents[p])
    return out


def supernodes(parents, included) -> list[list[int]]:
    """The connected groups of the attributes taking part, by their lowest column."""
    group = {j: j for j in included}

    def find(u):
        while group[u] != u:
            u = group[u]
        return u

    for j in included:
        for p in parents[j]:
            a, b = find(j), find(p)
            group[max(a, b)] = min(a, b)
    out: dict[int, list[int]] = {}
    for j in sorted(included):
        out.setdefault(find(j), []).append(j)
    return list(out.values())


def _with(parents, changes: dict) -> tuple:
    return tuple(tuple(sorted(changes[j])) if j in changes else pa for j, pa in enumerate(parents))


def _arcs(parents, included) -> list[tuple[int, int]]:
    """tan_hc's arcs: (from, to) to an orphan that keep the network a forest of trees."""
    orphans = [j for j in sorted(included) if not parents[j]]
    if len(orphans) < 2:
        return []
    out = []
    for to in orphans:
        for source in sorted(included):
            if source == to or to in _ancestors(parents, source):
                continue
            if not parents[source] and source > to:  # orphan pairs: from the lower only
                continue
            out.append((source, to))
    return out


def tan_hc(state, search):
    parents, included = state
    return [(_with(parents, {t: (s,)}), included) for s, t in _arcs(parents, included)]


def tan_hcsp(state, search):
    parents, included = state
    children: dict[int, list[int]] = {}
    for s, t in _arcs(parents, included):
        children.setdefault(s, []).append(t)
    if not children:
        return []
    supers = sorted(children)
    whole = [(_with(parents, {t: (s,) for t in children[s]}), included) for s in supers]
    scores = [search.score(c) for c in whole]
    best = supers[int(np.argmax(scores))]
    return [(_with(parents, {t: (best,)}), included) for t in children[best]]


def fssj(state, search):
    parents, included = state
    out = []
    left = [j for j in range(len(parents)) if j not in included]
    groups = supernodes(parents, included)
    for j in left:
        out.append((parents, included | {j}))
        for group in groups:
            out.append((_with(parents, {j: group}), included | {j}))
    return out


def bsej(state, search):
    parents, included = state
    out = []
    for j in sorted(included):
        kept = {i: tuple(p for p in parents[i] if p != j) for i in range(len(parents))}
        kept[j] = ()
        out.append((_with(parents, kept), included - {j}))
    groups = supernodes(parents, included)
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            joined = {i: (*parents[i], *groups[b]) for i in groups[a]}
            out.append((_with(parents, joined), included))
    return out


STEPS = {"tan_hc": tan_hc, "tan_hcsp": tan_hcsp, "fssj": fssj, "bsej": bsej}


class Search:
    """The scores of states over the folds, and the greedy loop."""

    def __init__(self, folds, sizes, n_classes):
        self.folds = folds
        self.sizes = np.asarray(sizes)
        self.n_classes = n_classes
        self.current = None  # (state, per-fold log joints of the held-out rows)

    def _fits(self, parents) -> bool:
        """Whether every table the state changes stays within :data:`MAX_CELLS`."""
        old = self.current[0][0] if self.current is not None else ((),) * len(parents)
        return all(
            self.n_classes * np.prod(self.sizes[list(pa)] + 1.0) * (self.sizes[j] + 2) <= MAX_CELLS
            for j, pa in enumerate(parents)
            if pa != old[j]
        )

    def _totals(self, state) -> list[np.ndarray]:
        parents, included = state
        if self.current is None:
            return [
                f.log_prior + sum((f.factor(j, parents[j]) for j in included), 0.0)
                for f in self.folds
            ]
        (old, was), totals = self.current
        changed = [
            j for j in range(len(parents)) if parents[j] != old[j] or (j in included) != (j in was)
        ]
        out = []
        for f, total in zip(self.folds, totals, strict=True):
            for j in changed:
                if j in was:
                    total = total - f.factor(j, old[j])
                if j in included:
                    total = total + f.factor(j, parents[j])
            out.append(total)
        return out

    def score(self, state) -> float:
        """Mean accuracy over the folds (bnclassify's: the mean of the folds')."""
        totals = self._totals(state)
        return float(np.mean([f.accuracy(t) for f, t in zip(self.folds, totals, strict=True)]))

    def run(self, start, step, epsilon: float):
        """The state the greedy search ends in and the accuracies it moved through."""
        state = start
        if not self.folds:
            return state, []
        self.current = None
        current = self.score(state)
        self.current = (state, self._totals(state))
        path = [current]
        while current < 1.0 - 1e-12:
            candidates = [c for c in step(state, self) if self._fits(c[0])]
            if not candidates:
                break
            scores = [self.score(c) for c in candidates]
            best = int(np.argmax(scores))
            if scores[best] - epsilon < current:
                break
            state, current = candidates[best], scores[best]
            self.current = None
            self.current = (state, self._totals(state))
            path.append(current)
        return state, path


class SearchedNetwork(GivenNetwork):
    """A network whose structure a greedy cross-validated search chooses (this module's
    docstring), fitted on all the rows.

    Parameters
    ----------
    method : {"tan_hc", "tan_hcsp", "fssj", "bsej"}, default="tan_hc"
    cv : int, splitter or iterable of (train, test), default=5
        Folds of the cross-validation (at least 2), a scikit-learn splitter or given
        (train, test) index splits of the rows.
    epsilon : float, default=0.01
        The least improvement of the accuracy a move must bring.
    random_state : None, int or RandomState, default=None
        None: the distinct rows dealt to the folds in the order of their values; else
        shuffled first.
    alpha, unseen, discretize, n_bins, backoff, smoothing
        As in :class:`~bayesrule.KDB`.
    """

    title = "Bayesian network classifier of searched structure"

    def __init__(
        self,
        method="tan_hc",
        cv=5,
        epsilon=0.01,
        random_state=None,
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=5.0,
        smoothing="lidstone",
    ):
        self.method = method
        self.cv = cv
        self.epsilon = epsilon
        self.random_state = random_state
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing

    def _check_search(self) -> tuple[str, int, float]:
        method = self.method
        if not isinstance(method, str) or method not in METHODS:
            raise ValueError(
                f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}"
            )
        cv = self.cv
        if isinstance(cv, (numbers.Integral, str, bytes)) or not hasattr(cv, "__iter__"):
            if isinstance(cv, (str, bytes)) or not hasattr(cv, "split"):
                cv = check_integer(
                    "cv",
                    cv,
                    2,
                    kind="an integer (the folds), a splitter or (train, test) index splits",
                    why=f"cv={cv!r} must be >= 2",
                )
        return method, cv, check_nonnegative("epsilon", self.epsilon, " (an accuracy gain)")

    def _check_params(self) -> float:
        self._check_search()
        return super()._check_params()

    def _chosen(self, d: int):
        return check_structure(self._found[0], self._found[1], d)

    def check_state(self, n_classes: int, n_features: int) -> None:
        """As the given network's, and ``search_scores_`` what a search records: a
        1-D float64 array of accuracies in [0, 1] (empty: no fold to score), none falling,
        one move per arc (``tan_hc``, ``tan_hcsp``) or per attribute taken (``fssj``)."""
        super().check_state(n_classes, n_features)
        path = getattr(self, "search_scores_", None)
        if not (
            isinstance(path, np.ndarray)
            and path.dtype == np.float64
            and path.ndim == 1
            and np.isfinite(path).all()
            and ((path >= 0) & (path <= 1)).all()
            and (np.diff(path) >= 0).all()
        ):
            raise ValueError(
                "search_scores_ is not the increasing accuracies (in [0, 1]) of a search"
            )
        moves = {
            "tan_hc": sum(map(len, self.parents_)),
            "tan_hcsp": sum(map(len, self.parents_)),
            "fssj": len(self.features_),
        }.get(self._check_search()[0])
        if moves is not None and path.size and path.size != moves + 1:
            raise ValueError(
                f"search_scores_ records {path.size - 1} moves, but the structure took {moves}"
            )

    def blockwise_reason(self) -> str | None:
        return "the structure search cross-validates over the training rows"

    def fit_blocks(self, blocks, n_classes):
        raise ValueError(
            "StructureSearch cross-validates over the training rows, which a Dask collection "
            "does not hold in memory; fit it on data in memory (e.g. X.compute())."
        )

    def _needs_rows(self, n_features: int) -> bool:
        return True

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        raise NotImplementedError("the structure search needs all the rows at once; use fit.")

    def _build(self, stats) -> None:
        method, cv, epsilon = self._check_search()
        rows = self.__dict__.pop("_rows", None)
        if not isinstance(rows, tuple):
            raise ValueError("the structure search needs the training rows: fit on the data")
        codes, y, w = rows
        w = np.ones(y.size) if w is None else np.asarray(w, dtype=np.float64)
        rs = self.random_state
        rng = None if rs is None else check_random_state(rs)
        if isinstance(rs, numbers.Integral):
            rng = np.random.RandomState(int(rs))  # the same folds at every fit
        options = {
            "alpha": self.alpha,
            "unseen": self.unseen,
            "backoff": float(self.backoff),
            "smoothing": self.smoothing,
        }
        if hasattr(cv, "split"):  # a scikit-learn splitter, over the rows of fit
            cv = list(cv.split(codes, y))
        folds = make_folds(codes, y, w, cv, stats.n_classes, options, rng)
        d = codes.shape[1]
        empty = tuple(() for _ in range(d))
        start = (empty, frozenset() if method == "fssj" else frozenset(range(d)))
        search = Search(folds, self._sizes, stats.n_classes)
        (parents, included), path = search.run(start, STEPS[method], epsilon)
        self._found = (list(parents), sorted(included))
        self.search_scores_ = np.array(path, dtype=np.float64)
        self._rows = rows  # for the counts over two or more parents
        try:
            super()._build(stats)
        finally:
            self.__dict__.pop("_rows", None)
