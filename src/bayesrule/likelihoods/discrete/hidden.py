"""Hidden naive Bayes (Zhang, Jiang and Su 2005): each attribute has a hidden parent.

The hidden parent of attribute j mixes one-dependence estimates over all other
attributes, weighted by how much each says about j given the class:

    P(x_j | c, hp_j) = sum_{i != j} W_ij P(x_j | c, x_i),
    W_ij = I(X_i; X_j | C) / sum_{k != j} I(X_k; X_j | C),

and ``P(c | x) ∝ P(c) prod_j P(x_j | c, hp_j)``. The estimates are Weka 3.6's
(``weka.classifiers.bayes.HNB``): m-estimates towards the uniform distribution, ``m``
pseudo-rows spread over the attribute's ``O_j`` values,

    P(x_j | c, x_i) = (F(c, x_i, x_j) + m / O_j) / (F(c, x_i) + m),
    P(c) = (F(c) + m / k) / (n + m)                      (k classes; m = 1 in Weka),

with ``I(X_i; X_j | C)`` the empirical conditional mutual information of the counts
(:func:`~bayesrule.likelihoods.discrete.structure.conditional_information`; Weka uses
base-2 logarithms, which the ratios W_ij do not see). An attribute whose information
with every other is 0 gets Weka's ``P(x_j | c) = (F(c, x_j) + m / O_j) / (F(c) + m)``.

Weka refuses missing values; here they are marginalised as in the other semi-naive
families: a missing attribute drops out of the product, and a missing (or never seen)
attribute leaves the hidden parents of the others, whose mixture is then over the
remaining attributes with their weights renormalised (``P(x_j | c)`` where none with
weight is left). A value of x_j never seen in training counts 0 in the formula under
``unseen="smooth"`` and drops out under ``"ignore"``. Weka also skips the cells of the
information sum where ``P(c, x_i, x_j) P(c)`` is below 1e-6, which it computes as
zero; only data of about a million rows or classes with tiny counts see a difference.

The factors are not a normalised joint density (each attribute's hidden parent depends
on all the others): the family scores classes, with no evidence, BIC or draws.
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_nonnegative
from ...stats.pair_counts import PairCounts
from ...stats.values import check_unseen
from .cpt import check_tables, lidstone
from .discretize import check_discretize
from .network import DiscreteNetwork
from .structure import class_information, conditional_information


def check_m(m) -> float:
    """``m`` as a float >= 0, or a ValueError/TypeError naming it."""
    return check_nonnegative(
        "m", m, " (pseudo-rows spread uniformly over each table's values; Weka's HNB: 1)"
    )


def _uniform_m(counts: np.ndarray, m: float) -> tuple[np.ndarray, np.ndarray]:
    """``P(x | row) = (F(row, x) + m / O) / (F(row) + m)`` over the last axis of counts,
    and each row's probability of a value never seen, ``(m / O) / (F(row) + m)``."""
    size = counts.shape[-1]
    total = counts.sum(axis=-1, keepdims=True)
    alpha = m / size
    return np.exp(lidstone(counts, total, alpha, size)), np.exp(lidstone(0.0, total, alpha, size))


class HiddenNaive(DiscreteNetwork):
    """Hidden naive Bayes over discrete attributes, with Weka's estimates.

    Parameters
    ----------
    m : float, default=1.0
        Pseudo-rows of every table, spread uniformly over its values (Weka's HNB: 1):
        ``(F(c, x_i, x_j) + m / O_j) / (F(c, x_i) + m)``; 0 gives the ML estimates.
    unseen, discretize, n_bins
        As in :class:`~bayesrule.HNB`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.discrete.hidden import HiddenNaive
    >>> X = np.array([[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]])
    >>> hnb = HiddenNaive().fit(X, np.array([0, 0, 1, 1, 0, 1]), n_classes=2)
    >>> hnb.weights_  # column j: the weights of j's hidden parent (x0 copies the class)
    array([[0., 0., 0.],
           [0., 0., 1.],
           [0., 1., 0.]])
    """

    title = "hidden naive Bayes"
    #: its factors are not a normalised density: no evidence, BIC, AIC or draws
    is_density = False

    def __init__(self, m=1.0, unseen="smooth", discretize=None, n_bins=5):
        self.m = m
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins

    def _check_params(self) -> float:
        check_unseen(self.unseen)
        check_discretize(self.discretize, self.n_bins)
        return check_m(self.m)

    def _build(self, stats: PairCounts) -> None:
        m = self._check_params()
        sizes, C = self._sizes, stats.n_classes
        d = sizes.size
        slots = sizes + 2
        check_tables(8.0 * C * float((sizes + 1) @ slots) * max(d - 1, 1), sizes, "")
        cmi = conditional_information(stats)
        total = cmi.sum(axis=0)
        weights = np.divide(cmi, total, out=np.zeros_like(cmi), where=total > 0)
        singles = stats.singles()
        n = float(stats.class_weight.sum())
        self.class_marginal_ = (
            (stats.class_weight + m / C) / (n + m) if n + m > 0 else np.full(C, 1.0 / C)
        )
        self.mutual_information_ = class_information(stats)
        self.conditional_mutual_information_ = cmi
        self.weights_ = weights
        self._alone = [self._child_table(F, m) for F in singles]
        pairs = [(i, j) for j in range(d) for i in range(d) if i != j and weights[i, j] > 0]
        blocks = dict(zip(pairs, stats.blocks(pairs), strict=True))  # one pass
        self._hidden = []
        for j in range(d):
            parents = np.array([i for i in range(d) if (i, j) in blocks], dtype=np.intp)
            tables, weight = [], []
            for i in parents.tolist():
                # W_ij P(x_j | c, x_i) over (x_i, x_j) per class; slot O_i (unavailable): 0
                table = np.zeros((C, sizes[i] + 1, slots[j]))
                table[:, : sizes[i]] = weights[i, j] * self._child_table(blocks[(i, j)], m)
                tables.append(table.reshape(C, -1))
                weight.append(np.append(np.full(sizes[i], weights[i, j]), 0.0))
            flat = np.concatenate(tables, axis=1) if tables else np.zeros((C, 0))
            cells = np.concatenate([[0], np.cumsum([t.shape[1] for t in tables])[:-1]])
            spans = np.concatenate([[0], np.cumsum(sizes[parents] + 1)[:-1]])
            self._hidden.append(
                (
                    parents,
                    flat,
                    cells.astype(np.intp)[: parents.size],
                    np.concatenate(weight) if weight else np.zeros(0),
                    spans.astype(np.intp)[: parents.size],
                )
            )

    def _child_table(self, counts: np.ndarray, m: float) -> np.ndarray:
        """``P(x_j | row)`` over the last axis of ``counts`` (C, ..., O_j) with the slots of
        a value never seen (0 under ``unseen="ignore"``: it drops out) and a missing
        one (1: it drops out), shape (C, ..., O_j + 2)."""
        if counts.shape[-1] == 0:  # never observed in training: adds nothing
            return np.ones(counts.shape[:-1] + (2,))
        known, new = _uniform_m(np.asarray(counts, dtype=np.float64), m)
        if self.unseen == "ignore":
            new = np.ones_like(new)
        return np.concatenate([known, new, np.ones_like(new)], axis=-1)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        codes = self._codes(X)
        slots = np.minimum(codes, self._sizes)  # as a parent: missing/unseen -> O_i
        out = np.zeros((self.n_classes_, codes.shape[0]))
        for j, (parents, flat, cells, weight, spans) in enumerate(self._hidden):
            child = codes[:, j]
            alone = self._alone[j][:, child]
            if parents.size == 0:
                mixed = alone
            else:
                den = weight[spans + slots[:, parents]].sum(axis=1)  # the weights available
                stride = self._sizes[j] + 2
                index = cells + slots[:, parents] * stride + child[:, None]  # (n, k)
                num = np.stack([np.take(row, index).sum(axis=1) for row in flat])  # 1-D takes
                mixed = np.where(den > 0, num / np.where(den > 0, den, 1.0), alone)
            with np.errstate(divide="ignore"):
                out += np.log(mixed)
        return out

    def describe_impossible(self, X) -> str | None:
        return (
            f"a sample has probability zero in every class with m={self.m!r} (a value, "
            "or a pair of values, never seen with any class). Set m > 0 (m=1 is Weka's "
            "HNB) so that such values keep a small probability."
        )

    # ----------------------------------------------------------------- introspection
    def table(self, j: int, parents=()) -> tuple[np.ndarray, np.ndarray]:
        """Counts and the m-estimates ``P(x_j | c)`` (``parents=()``) or
        ``P(x_j | c, x_i)`` (``parents=(i,)``), shape (C, [O_i,] O_j)."""
        m = self._check_params()
        if len(parents) == 0:
            counts = self.stats_.single(j)
        else:
            (i,) = parents
            counts = self.stats_.blocks([(i, j)])[0]
        if counts.shape[-1] == 0:
            return counts, counts.copy()
        return counts, _uniform_m(np.asarray(counts, dtype=np.float64), m)[0]

    def sample(self, counts, random_state):
        raise TypeError(
            "hidden naive Bayes has no joint distribution to draw from: each attribute's "
            "hidden parent mixes all the other attributes, so its factors do not form a "
            "normalised density. Draw from TAN, KDB or AODE instead."
        )

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: the binning and each attribute's strongest hidden parents."""
        lines = [
            f"{self.title}, m={self.m!r}, unseen={self.unseen!r}, discretize={self.discretize!r}"
        ]
        lines += self._bin_lines(feature_names)
        lines.append("  hidden parents (weights W_ij of the other attributes, the largest):")
        for j, name in enumerate(feature_names):
            column = self.weights_[:, j]
            top = [i for i in np.argsort(-column, kind="stable")[:3].tolist() if column[i] > 0]
            shown = ", ".join(f"{feature_names[i]} {column[i]:.3f}" for i in top)
            lines.append(f"    {name} <- {shown or 'none: P(x | class)'}")
        return lines
