"""Learning which attributes depend on which: mutual information, Chow-Liu trees, KDB.

All quantities are the empirical (maximum-likelihood) ones of the pairwise counts, in
nats: ``I(X_j; C)`` over the rows where ``x_j`` is observed, and

    I(X_i; X_j | C) = sum_{c,a,b} P(c,a,b) ln[ P(c,a,b) P(c) / (P(c,a) P(c,b)) ]

over the rows where both are observed. Ties are broken deterministically (Chow-Liu:
the lower column index joins first, linked to the earliest tree attribute of equal
information; KDB: the order of ``I(X_j; C)``, then the column index), so a structure
depends on nothing but the counts.
"""

from __future__ import annotations

import numpy as np

from ...stats.pair_counts import PairCounts


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


def chow_liu_parents(cmi: np.ndarray, root: int) -> list[tuple[int, ...]]:
    """Parents of the maximum spanning tree over ``cmi`` (Prim), directed from ``root``."""
    d = cmi.shape[0]
    parents: list[tuple[int, ...]] = [()] * d
    in_tree = np.zeros(d, dtype=bool)
    in_tree[root] = True
    best, link = cmi[root].astype(float).copy(), np.full(d, root)
    for _ in range(d - 1):
        candidate = np.where(in_tree, -np.inf, best)
        j = int(np.argmax(candidate))
        parents[j] = (int(link[j]),)
        in_tree[j] = True
        better = ~in_tree & (cmi[j] > best)
        best[better], link[better] = cmi[j][better], j
    return parents


def kdb_parents(mi: np.ndarray, cmi: np.ndarray, k: int) -> list[tuple[int, ...]]:
    """Sahami's k-dependence structure: attributes in order of ``I(X; C)``, each with the
    (up to) ``k`` earlier ones of highest ``I(X_i; X_j | C)`` as parents."""
    order = np.argsort(-mi, kind="stable")
    parents: list[tuple[int, ...]] = [()] * mi.size
    for t, j in enumerate(order.tolist()):
        earlier = order[:t]
        ranked = earlier[np.argsort(-cmi[j, earlier], kind="stable")]
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
