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


#: the edge weights TAN may span its tree (or forest) over: bnclassify's ``tan_cl(score=)``
EDGE_SCORES = ("cmi", "aic", "bic")


def check_edge_score(score) -> str:
    """``score`` as one of :data:`EDGE_SCORES`, or a TypeError/ValueError naming it."""
    if not isinstance(score, str):
        raise TypeError(
            f"edge_score must be one of {', '.join(map(repr, EDGE_SCORES))}, got {score!r}"
        )
    if score not in EDGE_SCORES:
        raise ValueError(
            f"edge_score must be 'cmi' (the maximum spanning tree of I(X_i; X_j | C)), 'aic' "
            f"or 'bic' (the forest of the edges whose penalised gain is >= 0), got {score!r}"
        )
    return score


def pair_totals(stats: PairCounts) -> np.ndarray:
    """``N_ij``, the weight of the rows where attributes i and j are both observed (the
    rows their pair counts come from), shape (d, d); the diagonal: where j is."""
    d = len(stats.categories)
    off = stats.offsets
    _, u, w, F = stats.nonzero()
    bu = np.searchsorted(off, u, side="right") - 1
    bw = np.searchsorted(off, w, side="right") - 1
    return np.bincount(bu * d + bw, weights=F, minlength=d * d).reshape(d, d)


def edge_weights(stats: PairCounts, cmi: np.ndarray, score: str) -> np.ndarray:
    """The weight of each candidate edge of a TAN, shape (d, d): ``I(X_i; X_j | C)``
    (``"cmi"``), or its penalised log-likelihood gain as bnclassify's ``tan_cl`` scores
    it, ``N_ij I(X_i; X_j | C) - penalty (O_i - 1)(O_j - 1) k`` with k classes and the
    penalty 1 (``"aic"``) or ``ln(N_ij) / 2`` (``"bic"``)."""
    if score == "cmi":
        return cmi.copy()
    sizes = np.array([c.size for c in stats.categories], dtype=np.float64)
    free = np.outer(sizes - 1, sizes - 1).clip(min=0) * stats.n_classes
    n = pair_totals(stats)
    n = (n + n.T) / 2  # equal up to rounding; exactly symmetric
    with np.errstate(divide="ignore"):
        penalty = 1.0 if score == "aic" else np.where(n > 0, np.log(n), 0.0) / 2
    out = n * cmi - penalty * free
    np.fill_diagonal(out, 0.0)
    return out


def chow_liu_parents(
    cmi: np.ndarray, root: int, allowed: np.ndarray | None = None, mi: np.ndarray | None = None
) -> list[tuple[int, ...]]:
    """Parents of the maximum spanning tree over ``cmi`` (Prim), directed from ``root``.

    With ``allowed`` (d, d) only those edges may join: the maximum spanning forest of
    the graph they make; when no allowed edge reaches the attributes left, a new tree
    starts at the one of highest ``mi`` (the lowest column among equals)."""
    d = cmi.shape[0]
    weight = cmi if allowed is None else np.where(allowed, cmi, -np.inf)
    parents: list[tuple[int, ...]] = [()] * d
    in_tree = np.zeros(d, dtype=bool)
    in_tree[root] = True
    best, link = weight[root].astype(float).copy(), np.full(d, root)
    for _ in range(d - 1):
        candidate = np.where(in_tree, -np.inf, best)
        j = int(np.argmax(candidate))
        if candidate[j] == -np.inf:  # nothing allowed reaches the rest: a new root
            rest = np.flatnonzero(~in_tree)
            j = int(rest[np.argmax(mi[rest])])
        else:
            parents[j] = (int(link[j]),)
        in_tree[j] = True
        better = ~in_tree & (weight[j] > best)
        best[better], link[better] = weight[j][better], j
    return parents


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
