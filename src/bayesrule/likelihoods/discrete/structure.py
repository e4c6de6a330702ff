"""Learning which attributes depend on which: mutual information, Chow-Liu trees, KDB.

All quantities are the empirical (maximum-likelihood) ones of the pairwise counts, in
nats: ``I(X_j; C)`` over the rows where ``x_j`` is observed, and

    I(X_i; X_j | C) = sum_{c,a,b} P(c,a,b) ln[ P(c,a,b) P(c) / (P(c,a) P(c,b)) ]

over the rows where both are observed. TAN's tree may also be scored by the Bayesian
Dirichlet gain of a parent (:func:`bayes_gains`, Weka's BAYES score) or by penalised
log-likelihood gains (:func:`edge_weights`), and grown from a root or as Weka 3.6's TAN
search grows it (:func:`spanning_tree`). Ties are broken deterministically (a tree
grown from its root: the lower column index joins first, linked to the earliest tree
attribute of equal gain; Weka's search: the link first in row-major order of the gain
matrix; KDB: the order of ``I(X_j; C)``, then the column index), so a structure depends
on nothing but the counts.
"""

from __future__ import annotations

import numpy as np

from ...stats.pair_counts import PairCounts
from .edge_scores import bayes_gains, edge_weights, pair_totals, weka_gains

__all__ = [
    "bayes_gains",
    "class_information",
    "conditional_information",
    "edge_weights",
    "kdb_parents",
    "pair_totals",
    "spanning_tree",
    "topological_order",
    "weka_gains",
]


def _xlogy_ratio(p: np.ndarray, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * (np.log(num) - np.log(den)), 0.0)


def class_information(stats: PairCounts) -> np.ndarray:
    """``I(X_j; C)`` of every attribute, shape (d,)."""
    singles = stats.singles()
    out = np.zeros(len(singles))
    for j, F in enumerate(singles):
        n = F.sum()
        if n <= 0:
            continue
        P = F / n
        out[j] = _xlogy_ratio(P, P, P.sum(axis=1, keepdims=True) * P.sum(axis=0)).sum()
    return out


def conditional_information(stats: PairCounts) -> np.ndarray:
    """``I(X_i; X_j | C)`` of every pair of attributes, shape (d, d), zero diagonal."""
    d = len(stats.categories)
    off = stats.offsets
    c, u, w, F = stats.nonzero()
    bu = np.searchsorted(off, u, side="right") - 1
    bw = np.searchsorted(off, w, side="right") - 1
    pair = bu * d + bw
    keep = bu != bw
    c, u, w, F, bu, bw, pair = (a[keep] for a in (c, u, w, F, bu, bw, pair))
    C, W = stats.n_classes, int(off[-1])

    def total(*keys) -> np.ndarray:  # sums of F over entries with equal keys, per entry
        key, span = np.zeros(F.size, dtype=np.int64), 1
        for k, size in keys:
            key, span = key * size + k, span * size
        if span > max(4 * F.size, 1 << 20):  # a wide key range: compress it first
            key = np.unique(key, return_inverse=True)[1].ravel()
        return np.bincount(key, weights=F)[key]

    n_pair = total((pair, d * d))
    n_class = total((pair, d * d), (c, C))
    n_ca = total((c, C), (u, W), (bw, d))  # F(c, a) within the pair (rows with x_j seen)
    n_cb = total((c, C), (w, W), (bu, d))
    terms = _xlogy_ratio(F, F * n_class, n_ca * n_cb) / n_pair
    out = np.bincount(pair, weights=terms, minlength=d * d).reshape(d, d)
    return (out + out.T) / 2  # equal up to rounding; exactly symmetric


#: the edge weights TAN may span its tree (or forest) over: bnclassify's ``tan_cl(score=)``
#: and Weka's BAYES score
EDGE_SCORES = ("cmi", "aic", "bic", "bayes")

#: how TAN's tree grows and is directed (:func:`spanning_tree`)
DIRECTIONS = ("root", "weka")


def check_edge_score(score) -> str:
    """``score`` as one of :data:`EDGE_SCORES`, or a TypeError/ValueError naming it."""
    if not isinstance(score, str):
        raise TypeError(
            f"edge_score must be one of {', '.join(map(repr, EDGE_SCORES))}, got {score!r}"
        )
    if score not in EDGE_SCORES:
        raise ValueError(
            f"edge_score must be 'cmi' (the maximum spanning tree of I(X_i; X_j | C)), 'aic' "
            f"or 'bic' (the forest of the edges whose penalised gain is >= 0) or 'bayes' (the "
            f"tree of the Bayesian Dirichlet gains, Weka's BAYES score), got {score!r}"
        )
    return score


def check_direction(direction) -> str:
    """``direction`` as one of :data:`DIRECTIONS`, or a TypeError/ValueError naming it."""
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        error = ValueError if isinstance(direction, str) else TypeError
        raise error(
            "direction must be 'root' (the tree grown from root and directed away from it) "
            f"or 'weka' (grown and directed as Weka 3.6's TAN search), got {direction!r}"
        )
    return direction


def spanning_tree(
    gain: np.ndarray,
    root: int | None = None,
    allowed: np.ndarray | None = None,
    mi: np.ndarray | None = None,
) -> tuple[list[tuple[int, ...]], int]:
    """Parents of a maximum spanning tree over ``gain`` grown link by link (Prim), and the
    root of its first tree.

    ``gain[i, j]`` is what attribute i gains from j as its parent (symmetric for the
    conditional mutual information). The link joining the tree at each step is the one
    of highest gain.

    * ``root`` an int: the tree grows from ``root``; a link ``(n, t)`` joins the
      attribute n outside the tree as the child of t inside (gain ``gain[n, t]``), so
      every arc points away from ``root``. Ties: the lowest n, linked to the earliest
      tree attribute of equal gain.
    * ``root=None`` (Weka 3.6's TAN search): the tree starts with the link of highest
      gain among all pairs, then takes the link of highest gain with one end inside,
      either way round; a link ``(i, j)`` makes i the parent of j where j has no parent
      yet, else j the parent of i. The first link's i is the first root; a later link
      ``(n, root)`` makes the new attribute n the root's parent, and the new root. Ties:
      the link ``(i, j)`` first in row-major order, as Weka's.

    With ``allowed`` (d, d) only those links may join: the maximum spanning forest of
    the graph they make; when no allowed link reaches the attributes left, a new tree
    starts at the one of highest ``mi`` (the lowest column among equals)."""
    d = gain.shape[0]
    weka = root is None
    weight = np.array(gain, dtype=np.float64)
    if allowed is not None:
        weight = np.where(allowed, weight, -np.inf)
    np.fill_diagonal(weight, -np.inf)
    parents: list[tuple[int, ...]] = [()] * d
    joined: list[int] = []
    in_tree = np.zeros(d, dtype=bool)
    best = np.full(d, -np.inf)  # per attribute outside: its best link into the tree
    key = np.full(d, d * d, dtype=np.int64)  # and that link's tie key (the lowest wins)
    columns = np.arange(d, dtype=np.int64)

    def join(m: int) -> None:
        in_tree[m] = True
        value = weight[:, m]  # (n, m): m the parent
        if weka:  # key: the row-major position i d + j; (m, n) too, either way round
            at = columns * d + m
            other, other_at = weight[m, :], m * d + columns
            take = (other > value) | ((other == value) & (other_at < at))
            value, at = np.where(take, other, value), np.where(take, other_at, at)
        else:  # key: n d + the step at which m joined
            at = columns * d + len(joined)
        joined.append(m)
        better = ~in_tree & ((value > best) | ((value == best) & (at < key)))
        best[better], key[better] = value[better], at[better]

    def lone_root() -> int:
        rest = np.flatnonzero(~in_tree)
        return int(rest[np.argmax(mi[rest])])

    if not weka:
        first = int(root)
        join(first)
    elif d and np.max(weight) > -np.inf:
        i, j = divmod(int(np.argmax(weight)), d)  # the first maximum in row-major order
        parents[j], first = (i,), i
        join(i)
        join(j)
    else:
        first = lone_root() if d else 0
        if d:
            join(first)
    while not in_tree.all():
        candidate = np.where(in_tree, -np.inf, best)
        top = candidate.max()
        if top == -np.inf:  # nothing allowed reaches the rest: a new root
            join(lone_root())
            continue
        tied = np.flatnonzero(candidate == top)
        n = int(tied[np.argmin(key[tied])])
        if not weka:
            parents[n] = (joined[int(key[n]) % d],)
        else:
            i, j = divmod(int(key[n]), d)
            if parents[j]:
                parents[i] = (j,)
            else:
                parents[j] = (i,)
        join(n)
    while parents[first]:  # Weka's search may have moved the first tree's root
        first = parents[first][0]
    return parents, first


def kdb_parents(
    mi: np.ndarray, cmi: np.ndarray, k: int, min_cmi: float | None = None
) -> list[tuple[int, ...]]:
    """Sahami's k-dependence structure: attributes in order of ``I(X; C)``, each with the
    (up to) ``k`` earlier ones of highest ``I(X_i; X_j | C)`` as parents; with
    ``min_cmi`` only those of ``I(X_i; X_j | C) > min_cmi``."""
    order = np.argsort(-mi, kind="stable")
    parents: list[tuple[int, ...]] = [()] * mi.size
    for t, j in enumerate(order.tolist()):
        earlier = order[:t]
        ranked = earlier[np.argsort(-cmi[j, earlier], kind="stable")]
        if min_cmi is not None:
            ranked = ranked[cmi[j, ranked] > min_cmi]
        parents[j] = tuple(int(p) for p in ranked[:k])
    return parents


def topological_order(parents) -> list[int]:
    """Attributes ordered so that every parent comes before its children."""
    done: list[int] = []
    placed = set()
    while len(done) < len(parents):
        for j, pa in enumerate(parents):
            if j not in placed and all(p in placed for p in pa):
                done.append(j)
                placed.add(j)
    return done
