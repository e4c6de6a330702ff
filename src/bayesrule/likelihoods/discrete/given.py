"""A Bayesian network classifier of given structure: each attribute's parents, and which
attributes take part, are parameters, not learned.

``p(x|c) = prod_{j in features} P(x_j | c, pa_j)``: the tables, smoothing, unseen and
missing values are those of TAN and KDB (:mod:`~bayesrule.likelihoods.discrete.learned`).
An attribute left out of ``features`` has no factor (it drops out as a missing one does)
and may be no one's parent. Joined attributes (bnclassify's "supernodes") are parents
that form a complete DAG: ``parents=[(), (0,), (0, 1)]`` models ``P(x_0, x_1, x_2 | c)``
as one table. The structure searches of
:mod:`~bayesrule.likelihoods.discrete.search` fit their choice with this family.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ...stats.pair_counts import PairCounts
from .learned import _Network, parent_set_counts


def check_structure(parents, features, d: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """``parents`` as d sorted tuples of column positions and ``features`` as a sorted
    array of positions (None: all), checked: positions in range, no attribute its own
    parent, no cycle, parents among the features; else a ValueError/TypeError."""
    if isinstance(parents, (str, bytes)) or not hasattr(parents, "__len__"):
        raise TypeError(f"parents must be a list of tuples of column positions, got {parents!r}")
    if len(parents) != d:
        raise ValueError(
            f"parents has {len(parents)} entries, but X has {d} features: give one tuple of "
            "parent columns per feature (() for none)."
        )

    def position(name, v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name} must hold column positions (ints), got {v!r}")
        if not 0 <= v < d:
            raise ValueError(f"{name} must hold column positions 0..{d - 1}, got {v!r}")
        return int(v)

    out = []
    for j, pa in enumerate(parents):
        if isinstance(pa, (numbers.Integral, str)) or not hasattr(pa, "__iter__"):
            raise TypeError(f"parents[{j}] must be a tuple of column positions, got {pa!r}")
        pa = tuple(sorted({position(f"parents[{j}]", p) for p in pa}))
        if j in pa:
            raise ValueError(f"parents[{j}] = {pa} holds attribute {j} itself.")
        out.append(pa)
    if features is None:
        chosen = np.arange(d)
    else:
        chosen = np.array(sorted({position("features", f) for f in features}), dtype=np.intp)
    left_out = set(range(d)) - set(chosen.tolist())
    for j, pa in enumerate(out):
        if j in left_out and pa:
            raise ValueError(f"attribute {j} is not among the features but has parents {pa}.")
        if left_out & set(pa):
            raise ValueError(
                f"parents[{j}] = {pa} holds attributes left out of features "
                f"({sorted(left_out & set(pa))}): a parent must take part in the model."
            )
    placed = set()
    while len(placed) < d:
        ready = [j for j in range(d) if j not in placed and set(out[j]) <= placed]
        if not ready:
            cycle = sorted(set(range(d)) - placed)
            raise ValueError(f"parents is not acyclic: attributes {cycle} are on or below a cycle.")
        placed.update(ready)
    return out, chosen


class GivenNetwork(_Network):
    """A Bayesian network classifier of given structure (:mod:`this module's docstring
    <bayesrule.likelihoods.discrete.given>`).

    Parameters
    ----------
    parents : list of tuple of int
        Per attribute its parent attributes (the class is everyone's parent).
    features : list of int or None, default=None
        The attributes that take part; None: all.
    alpha, unseen, discretize, n_bins, backoff, smoothing
        As in :class:`~bayesrule.KDB`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import BayesClassifier
    >>> from bayesrule.likelihoods.discrete.given import GivenNetwork
    >>> X = np.array([[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]])
    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> clf = BayesClassifier(GivenNetwork([(), (0,), ()], features=[0, 1])).fit(X, y)
    >>> clf.likelihood_.features_, clf.likelihood_.parents_
    (array([0, 1]), [(), (0,), ()])
    """

    title = "Bayesian network classifier of given structure"

    def __init__(
        self,
        parents,
        features=None,
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=5.0,
        smoothing="lidstone",
    ):
        self.parents = parents
        self.features = features
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing

    def _chosen(self, d: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """The structure to fit: ``parents`` and ``features`` checked."""
        return check_structure(self.parents, self.features, d)

    def _structure(self, mi, cmi) -> list[tuple[int, ...]]:
        parents, self.features_ = self._chosen(mi.size)
        return parents

    def _build(self, stats: PairCounts) -> None:
        super()._build(stats)
        for j in sorted(set(range(self._sizes.size)) - set(self.features_.tolist())):
            self._tables[j] = np.zeros_like(self._tables[j])  # no factor: drops out

    def _fewer_parents(self) -> str:
        return "Give fewer parents (tables over every parent's values), or "

    def _wide(self, d: int) -> bool:
        """Whether some attribute has two or more parents (counted from the rows)."""
        try:
            return any(len(pa) >= 2 for pa in self._chosen(d)[0])
        except (TypeError, ValueError):
            return False  # refused where the structure is checked

    def blockwise_reason(self) -> str | None:
        if any(len(pa) >= 2 for pa in self.parents if hasattr(pa, "__len__")):
            return "two or more parents are counted in a pass over the rows after the counts"
        return super().blockwise_reason()

    def _needs_rows(self, n_features: int) -> bool:
        return self._wide(n_features)

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        if self._wide(np.shape(X)[1]):
            raise NotImplementedError(
                "a network with two or more parents of an attribute counts their "
                "combinations from all the rows; use fit."
            )
        return super().partial_fit(X, y, n_classes, sample_weight)

    def _parent_set_counts(self, stats, parents) -> dict:
        count = functools.partial(
            parent_set_counts, sizes=self._sizes, n_classes=stats.n_classes, parents=parents
        )
        return self._count_rows(count, stats.categories)

    def n_parameters(self) -> int:
        """Free parameters of the tables of the attributes that take part."""
        full = super().n_parameters()
        C, sizes = self.n_classes_, self._sizes
        left = set(range(sizes.size)) - set(self.features_.tolist())
        return full - sum(C * max(int(sizes[j]) - 1, 0) for j in left)  # left out: no parents

    def sample(self, counts, random_state) -> np.ndarray:
        """Ancestral draws of the attributes that take part; the others come out missing."""
        out = super().sample(counts, random_state)
        left = sorted(set(range(self._sizes.size)) - set(self.features_.tolist()))
        if left:
            out = out.astype(object) if out.dtype.kind != "f" else out
            out[:, left] = np.nan if out.dtype.kind == "f" else None
        return out

    def describe(self, classes, feature_names) -> list[str]:
        lines = super().describe(classes, feature_names)
        left = sorted(set(range(self._sizes.size)) - set(self.features_.tolist()))
        if left:
            names = ", ".join(str(feature_names[j]) for j in left)
            lines.insert(1, f"  left out (no factor): {names}")
        return lines
