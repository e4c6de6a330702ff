"""The weights of TAN's candidate edges (:func:`edge_weights`): conditional mutual
information, bnclassify's penalised log-likelihood gains (AIC, BIC), the Bayesian
Dirichlet gains of Weka's BAYES score (:func:`bayes_gains`), and Weka 3.6's own
summation of its scores (:func:`weka_gains`), all from the pairwise counts.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from ...stats.pair_counts import PairCounts
from .cpt import cell_alpha


def pair_totals(stats: PairCounts) -> np.ndarray:
    """``N_ij``, the weight of the rows where attributes i and j are both observed (the
    rows their pair counts come from), shape (d, d); the diagonal: where j is."""
    d = len(stats.categories)
    off = stats.offsets
    _, u, w, F = stats.nonzero()
    bu = np.searchsorted(off, u, side="right") - 1
    bw = np.searchsorted(off, w, side="right") - 1
    return np.bincount(bu * d + bw, weights=F, minlength=d * d).reshape(d, d)


def _group_sums(keys, F, pair, n_pairs, term) -> np.ndarray:
    """Per pair the sum over the groups of equal ``keys`` (each group within one pair)
    of ``term(group total of F, group's pair)``, shape (n_pairs,)."""
    if F.size == 0:
        return np.zeros(n_pairs)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    totals = np.bincount(inverse.ravel(), weights=F)
    where = pair[first]
    return np.bincount(where, weights=term(totals, where), minlength=n_pairs)


def bayes_gains(stats: PairCounts, alpha: float, smoothing: str = "lidstone") -> np.ndarray:
    """Per ordered pair the Bayesian Dirichlet gain of a parent, shape (d, d), zero diagonal:
    ``gain[i, j] = BD(X_i | C, X_j) - BD(X_i | C)``, the log marginal likelihood of
    attribute i's counts given the class and attribute j less that given the class
    alone, both over the rows where i and j are observed, with

        BD(X_i | Q) = sum_q [ ln G(r a) - ln G(N_q + r a)
                              + sum_k (ln G(N_qk + a) - ln G(a)) ]

    (``G`` the gamma function, q the parent combinations, k the ``r = O_i`` values of i,
    ``a`` the pseudo-count of each cell: ``alpha``, or ``alpha / O_i`` for
    ``smoothing="m-estimate"``; Cooper and Herskovits' K2 score at a = 1). This is what
    Weka 3.6's BAYES local score gains from the extra parent (its search's alpha, 0.5 by
    default, the same a per cell). Not symmetric: ``gain[i, j]`` scores j as i's parent."""
    d = len(stats.categories)
    sizes = np.array([cat.size for cat in stats.categories], dtype=np.float64)
    a = np.array([cell_alpha(alpha, int(r), smoothing) for r in sizes], dtype=np.float64)
    off = stats.offsets
    c, u, w, F = stats.nonzero()
    bu = np.searchsorted(off, u, side="right") - 1  # the child's column
    bw = np.searchsorted(off, w, side="right") - 1  # the parent's column
    keep = (bu != bw) & (F > 0)
    c, u, w, F, bu, bw = (x[keep] for x in (c, u, w, F, bu, bw))
    c, u, w, bu, bw = (x.astype(np.int64) for x in (c, u, w, bu, bw))
    pair = bu * d + bw
    C, W, n = stats.n_classes, int(off[-1]), d * d

    def cells(totals, where):  # sum_k ln G(N_qk + a) - ln G(a)
        ai = a[where // d]
        return gammaln(totals + ai) - gammaln(ai)

    def configs(totals, where):  # ln G(N_q + r a) - ln G(r a)
        ra = sizes[where // d] * a[where // d]
        return gammaln(totals + ra) - gammaln(ra)

    with_parent = (
        np.bincount(pair, weights=cells(F, pair), minlength=n)  # one entry per cell (c, x_i, x_j)
        - _group_sums((pair * C + c) * W + w, F, pair, n, configs)  # q = (c, x_j)
    )
    alone = (
        _group_sums((pair * C + c) * W + u, F, pair, n, cells)  # cells (c, x_i)
        - _group_sums(pair * C + c, F, pair, n, configs)  # q = c
    )
    out = (with_parent - alone).reshape(d, d)
    np.fill_diagonal(out, 0.0)
    return out


def _child_counts(stats: PairCounts, i: int) -> np.ndarray:
    """``F(c, v, x_i)`` for every value column v of every attribute and each value of
    attribute i, shape (C, W, O_i): the Gram matrices' columns of attribute i."""
    off = stats.offsets
    if stats.gram is not None:
        return stats.gram[:, :, off[i] : off[i + 1]]
    c, u, w, F = stats.entries
    pick = (w >= off[i]) & (w < off[i + 1])
    out = np.zeros((stats.n_classes, int(off[-1]), int(off[i + 1] - off[i])))
    np.add.at(out, (c[pick], u[pick], w[pick] - off[i]), F[pick])
    return out


def _node_terms(F: np.ndarray, score: str, a: float) -> np.ndarray:
    """The terms a local score adds, in order, for counts ``F`` (..., configurations,
    values): shape (..., configurations, values [+ 3]). "loglik": ``N_qk ln(N_qk / N_q)``
    (0 where ``N_qk = 0``); "bayes": ``ln G(a + N_qk)`` per value, then ``-ln G(N_q + r
    a)``, ``-r ln G(a)`` and ``+ln G(r a)`` per configuration (``N_q + r a`` summed value
    by value)."""
    if score == "loglik":
        total = np.cumsum(F, axis=-1)[..., -1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(F > 0, F * np.log(F / total), 0.0)
    r = F.shape[-1]
    shifted = F + a
    total = np.cumsum(shifted, axis=-1)[..., -1:]
    per_config = np.broadcast_to(np.array([-(r * gammaln(a)), gammaln(r * a)]), (*F.shape[:-1], 2))
    return np.concatenate([gammaln(shifted), -gammaln(total), per_config], axis=-1)


def weka_gains(
    stats: PairCounts, score: str, alpha: float = 0.5, smoothing: str = "lidstone"
) -> np.ndarray:
    """Per ordered pair the gain of attribute i's local score from j as its parent,
    ``score(X_i | C, X_j) - score(X_i | C)``, shape (d, d), zero diagonal, computed as
    Weka 3.6's TAN search computes it: each score summed term by term over the parent
    combinations in order (the class's values outer, j's inner) and the values of i,
    then the one subtracted from the other. ``score``: "loglik" (Weka's ENTROPY, ``sum
    N_qk ln(N_qk / N_q)``; the gain is ``N_ij I(X_i; X_j | C)`` up to rounding) or
    "bayes" (:func:`bayes_gains`, pseudo-count ``alpha`` per cell, ``alpha / O_i`` for
    ``smoothing="m-estimate"``). Mathematically symmetric gains then differ as Weka's
    do, in the last bits, and so the ties between ``[i, j]`` and ``[j, i]`` that decide
    the arcs of Weka's tree go the same way. Both scores count the rows where i and j
    are observed (Weka replaces missing values first). Dense: about ``C W O_i`` terms per
    child i (W the values of all attributes), kept to a few million at a time."""
    d = len(stats.categories)
    off = stats.offsets
    sizes = np.diff(off).astype(np.int64)
    C = stats.n_classes
    widest = int(sizes.max()) if d else 0
    out = np.zeros((d, d))
    for i in range(d):
        r = int(sizes[i])
        if r == 0:
            continue
        a = cell_alpha(alpha, r, smoothing)
        counts = _child_counts(stats, i)
        step = max(1, (4 << 20) // max(1, C * widest * (r + 3)))
        for lo in range(0, d, step):
            parents = np.arange(lo, min(d, lo + step))
            b = np.arange(widest)
            valid = b < sizes[parents, None]  # (parents, widest)
            columns = np.where(valid, off[parents, None] + b, 0)
            block = counts[:, columns, :] * valid[None, :, :, None]  # (C, parents, widest, r)
            block = np.moveaxis(block, 1, 0)  # (parents, C, widest, r): configurations c, b
            terms = _node_terms(block, score, a) * valid[:, None, :, None]
            alone = _node_terms(block.sum(axis=2), score, a)  # (parents, C, r [+3])
            n = parents.size
            with_parent = np.cumsum(terms.reshape(n, -1), axis=1)[:, -1]
            without = np.cumsum(alone.reshape(n, -1), axis=1)[:, -1]
            out[i, parents] = with_parent - without
    np.fill_diagonal(out, 0.0)
    return out


def edge_weights(
    stats: PairCounts,
    cmi: np.ndarray,
    score: str,
    alpha: float = 1.0,
    smoothing: str = "lidstone",
    direction: str = "root",
) -> np.ndarray:
    """The weight of each candidate edge of a TAN, shape (d, d): ``I(X_i; X_j | C)``
    (``"cmi"``), its penalised log-likelihood gain as bnclassify's ``tan_cl`` scores
    it, ``N_ij I(X_i; X_j | C) - penalty (O_i - 1)(O_j - 1) k`` with k classes and the
    penalty 1 (``"aic"``) or ``ln(N_ij) / 2`` (``"bic"``), or the Bayesian Dirichlet gain
    ``[i, j]`` of j as i's parent (``"bayes"``, :func:`bayes_gains` with ``alpha`` and
    ``smoothing``; the only one not symmetric). With ``direction="weka"``, "cmi" and
    "bayes" are Weka's gains as it computes them (:func:`weka_gains`): for "cmi" the
    log-likelihood gains ``N_ij I(X_i; X_j | C)``, the same tree."""
    if direction == "weka" and score in ("cmi", "bayes"):
        return weka_gains(stats, "loglik" if score == "cmi" else "bayes", alpha, smoothing)
    if score == "cmi":
        return cmi.copy()
    if score == "bayes":
        return bayes_gains(stats, alpha, smoothing)
    sizes = np.array([c.size for c in stats.categories], dtype=np.float64)
    free = np.outer(sizes - 1, sizes - 1).clip(min=0) * stats.n_classes
    n = pair_totals(stats)
    n = (n + n.T) / 2  # equal up to rounding; exactly symmetric
    with np.errstate(divide="ignore"):
        penalty = 1.0 if score == "aic" else np.where(n > 0, np.log(n), 0.0) / 2
    out = n * cmi - penalty * free
    np.fill_diagonal(out, 0.0)
    return out
