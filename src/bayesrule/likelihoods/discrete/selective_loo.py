"""Selective KDB's second and third passes: the parent-set counts of the ``k_max``
structure, and the leave-one-out score of every (number of attributes, k) candidate.

Martinez, Webb, Chen and Zaidi (2016, *JMLR* 17(44)) learn KDB out of core in three passes:
the pair counts (the attribute order by ``I(X_j; C)`` and each attribute's ``k_max``
parents ranked by ``I(X_i; X_j | C)``), the counts ``F(c, x_pa, x_j)`` of that structure,
and a leave-one-out pass that scores every model nested in it at once: the first ``s``
attributes of the order (s = 0 .. d) with the first ``k`` ranked parents each
(k = 0 .. k_max). A row's class posterior under each candidate comes from the counts with
the row taken out of them (``F - 1`` in its own class's cells), so no model is refitted.

:func:`subset_counts` gives, per attribute ``j`` and per subset ``S`` of its ranked
parents (axes, ``()`` the child alone), ``F(c, x_S, x_j)`` over the rows where ``S`` and
``x_j`` are observed: a candidate with ``k`` parents keeps the subsets of its first ``k``
(the first ``k`` of the ranked ones are the parents KDB(k) chooses), and a parent missing
at lookup falls back to the counts of the others, as in
:mod:`~bayesrule.likelihoods.discrete.cpt`. Without missing values every subset's counts
are the marginals of the full table; rows with a missing parent are counted per subset.

:class:`Scorer` holds the tables of every attribute and number of parents, and
:func:`selective_losses` the summed losses of a block of rows, per candidate:

* ``"squared"``: ``(1 - P(y_i | x_i))^2``, whose mean's root is the paper's RMSE
  criterion (the authors' code scores ``1 - P`` of the true class);
* ``"log"``: ``-ln P(y_i | x_i)`` (capped at ``-ln`` of the float precision);
* ``"wrong"``: the 0-1 loss of the highest posterior (ties: the first class).

The losses add over rows, so Dask blocks are scored apart and summed. A row of weight
``w`` leaves one unit of weight (all of it where ``w < 1``) and counts ``w`` times, as in
:mod:`~bayesrule.likelihoods.discrete.leave_one_out`; the class prior is the class
frequency with the row taken out. A missing attribute drops out of the row's product.
"""

from __future__ import annotations

import numpy as np

from ..._blocks import BLOCK_BYTES
from .cpt import extend_parents, flat_index, lidstone, lookup_table, m_estimate, subsets
from .leave_one_out import LOSS_CAP

#: the losses summed per candidate, and what each criterion makes of them
LOSSES = ("squared", "log", "wrong")
CRITERIA = {"rmse": "squared", "log_loss": "log", "zero_one": "wrong"}


#: the most cells (C prod(O_p + 1) (O_j + 2)) of one attribute's table: an attribute
#: gets the longest prefix of its ranked parents within it
MAX_CELLS = 1 << 18


def ranked_parents(
    order, cmi: np.ndarray, k_max: int, sizes=None, n_classes: int = 1
) -> list[tuple[int, tuple[int, ...]]]:
    """Per attribute of ``order`` (in order) its up to ``k_max`` earlier attributes of
    highest ``I(X_i; X_j | C)``, best first (ties: the earlier in the order), as
    :func:`~bayesrule.likelihoods.discrete.structure.kdb_parents` chooses them; given the
    attributes' ``sizes``, only as many as keep the table within :data:`MAX_CELLS`."""
    order = np.asarray(order, dtype=np.intp)
    out = []
    for t, j in enumerate(order.tolist()):
        earlier = order[:t]
        ranked = earlier[np.argsort(-cmi[j, earlier], kind="stable")][:k_max]
        if sizes is not None:
            cells = n_classes * (sizes[j] + 2.0) * np.cumprod(sizes[ranked] + 1.0)
            ranked = ranked[: int(np.searchsorted(cells, MAX_CELLS, side="right"))]
        out.append((j, tuple(int(p) for p in ranked)))
    return out


def _bincount(y, cols, w, shape) -> np.ndarray:
    index = flat_index(np.column_stack([y, cols]), shape)
    return np.bincount(index, weights=w, minlength=int(np.prod(shape))).reshape(shape)


def subset_counts(codes, y, w, *, sizes, n_classes, ranked) -> dict:
    """``F(c, x_S, x_j)`` keyed ``(j, S)`` for every ``(j, parents)`` of ``ranked`` and every
    subset ``S`` of the parents' axes, over the rows where ``S`` and ``x_j`` are observed
    (``codes`` -1 where missing or of weight zero); additive over rows."""
    w = np.ones(y.size) if w is None else np.asarray(w, dtype=np.float64)
    out = {}
    for j, parents in ranked:
        cols = [*parents, j]
        sub = codes[:, cols]
        seen = sub >= 0
        every = seen.all(axis=1)
        full = _bincount(y[every], sub[every], w[every], [n_classes, *sizes[cols]])
        partial = np.flatnonzero(seen[:, -1] & ~every)  # the child seen, a parent missing
        margins = {tuple(range(len(parents))): full}
        for kept in subsets(len(parents))[::-1]:  # supersets first: each summed from one
            if kept not in margins:
                extra = min(set(range(len(parents))) - set(kept))
                larger = tuple(sorted((*kept, extra)))
                margins[kept] = margins[larger].sum(axis=1 + larger.index(extra))
            table = margins[kept]
            dropped = len(kept) < len(parents)
            rows = partial[seen[partial][:, list(kept)].all(axis=1)] if dropped else partial[:0]
            if rows.size:
                axes = [*kept, len(parents)]
                shape = [n_classes, *sizes[[cols[a] for a in axes]]]
                table = table + _bincount(y[rows], sub[rows][:, axes], w[rows], shape)
            out[(j, kept)] = table
    return out


class _Attribute:
    """One attribute's tables with ``kk`` parents: the extended counts, their sums over
    the child, the table given the class alone, and the log table with every row in."""

    def __init__(self, j, parents, counts, alpha, backoff):
        kk = len(parents)
        full = counts[(j, tuple(range(kk)))]
        fallbacks = {kept: counts[(j, kept)] for kept in subsets(kk)}
        self.j, self.parents, self.alpha, self.backoff = j, list(parents), alpha, backoff
        self.size = full.shape[-1]
        ext = extend_parents(full, fallbacks)
        self.slots = np.array(ext.shape[1:-1], dtype=np.intp)  # O_p + 1 per parent
        C = ext.shape[0]
        self.counts = ext.reshape(C, -1)
        self.totals = ext.sum(axis=-1).reshape(C, -1)
        self.log = lookup_table(full, alpha, "smooth", fallbacks, backoff)[..., : self.size]
        self.log = self.log.reshape(C, -1)
        self.alone = counts[(j, ())]  # F(c, x_j): the back-off's counts
        self.alone_total = self.alone.sum(axis=1)
        self.nowhere = int(np.prod(self.slots)) - 1  # every parent unavailable

    def term(self, codes, y, delta) -> tuple[np.ndarray, np.ndarray]:
        """Rows where the child is observed, and ``ln P(x_j | c, x_pa)`` (C, rows) of
        theirs, their own class's with the row taken out of the counts."""
        b = codes[:, self.j]
        obs = np.flatnonzero(b >= 0)
        b, yo, do = b[obs], y[obs], delta[obs]
        if self.parents:
            keys = codes[np.ix_(obs, self.parents)]
            keys = np.where(keys >= 0, keys, self.slots - 1)
            where = flat_index(keys, self.slots)
        else:
            where = np.zeros(obs.size, dtype=np.intp)
        cell = where * self.size + b
        out = np.take(self.log, cell, axis=1)
        num = self.counts[yo, cell] - do
        den = self.totals[yo, where] - do
        alone = lidstone(self.alone[yo, b] - do, self.alone_total[yo] - do, self.alpha, self.size)
        if self.parents and self.backoff > 0:
            own = m_estimate(num, den, np.exp(alone), self.backoff)
            own = np.where(where == self.nowhere, alone, own)  # that slot: P0 itself
        else:
            own = lidstone(num, den, self.alpha, self.size)
        out[yo, np.arange(obs.size)] = own
        return obs, out


class Scorer:
    """The candidates of one selective KDB: for each attribute of ``ranked`` (in order)
    its tables with 0 .. min(k_max, its parents) parents, from :func:`subset_counts`."""

    def __init__(self, ranked, counts, class_weight, *, alpha, backoff, k_max):
        self.k_max = k_max
        self.class_weight = np.asarray(class_weight, dtype=np.float64)
        self.attributes = [
            [
                _Attribute(j, parents[:kk], counts, alpha, backoff)
                for kk in range(min(k_max, len(parents)) + 1)
            ]
            for j, parents in ranked
        ]


def selective_losses(codes, y, w, *, scorer: Scorer) -> dict:
    """``{loss: (s, k) sums}`` (:data:`LOSSES`, each of shape (len(order) + 1, k_max + 1))
    and ``"weight"`` (the rows' summed weight) of the rows (codes, classes ``y``, weights
    ``w`` or None) left out one at a time; additive over row blocks."""
    w = np.ones(y.size) if w is None else np.asarray(w, dtype=np.float64)
    keep = w > 0
    codes, y, w = codes[keep], y[keep], w[keep]
    shape = (len(scorer.attributes) + 1, scorer.k_max + 1)
    out = {name: np.zeros(shape) for name in LOSSES}
    out["weight"] = np.array([w.sum()])
    C = scorer.class_weight.size
    step = max(256, BLOCK_BYTES // (8 * C * (scorer.k_max + 3)))
    for start in range(0, y.size, step):
        part = slice(start, start + step)
        _chunk(scorer, codes[part], y[part], w[part], out)
    return out


def _chunk(scorer, codes, y, w, out) -> None:
    n, rows = y.size, np.arange(y.size)
    delta = np.minimum(w, 1.0)
    F = scorer.class_weight
    own = np.zeros((F.size, n), dtype=bool)
    own[y, rows] = True
    with np.errstate(divide="ignore"):  # a class left without rows: prior 0
        prior = np.log(np.maximum(F[:, None] - own * delta, 0)) - np.log(F.sum() - delta)
    K = scorer.k_max
    joint = np.repeat(prior[None], K + 1, axis=0)  # (k, C, rows)
    _add_losses(out, 0, joint[:1], y, w, every_k=True)
    for t, tables in enumerate(scorer.attributes):
        terms = [table.term(codes, y, delta) for table in tables]
        for k in range(K + 1):
            obs, term = terms[min(k, len(terms) - 1)]
            joint[k][:, obs] += term
        _add_losses(out, t + 1, joint, y, w)


def _add_losses(out, s, joint, y, w, every_k=False) -> None:
    """Add the weighted losses of the rows under the candidates ``(s, k)`` (one joint
    (C, rows) per k; ``every_k``: one joint for all k, as at s = 0)."""
    rows = np.arange(y.size)
    for k, scores in enumerate(joint):
        top = scores.max(axis=0)
        safe = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(invalid="ignore", divide="ignore", under="ignore"):
            log_post = scores[y, rows] - safe - np.log(np.exp(scores - safe).sum(axis=0))
        proba = np.nan_to_num(np.exp(log_post), nan=0.0)
        losses = {
            "squared": (1.0 - proba) ** 2,
            "log": np.minimum(np.nan_to_num(-log_post, nan=LOSS_CAP), LOSS_CAP),
            "wrong": (np.argmax(scores, axis=0) != y) | ~np.isfinite(top),
        }
        for name, loss in losses.items():
            value = w @ loss
            if every_k:
                out[name][s, :] += value
            else:
                out[name][s, k] += value


def choose(grid: np.ndarray, tol: float = 1e-9) -> tuple[int, int]:
    """The candidate ``(s, k)`` of least criterion in ``grid`` (s, k): the fewest
    attributes, then the smallest k, among those within ``tol`` (relative) of the least,
    so that sums added in another order (Dask blocks) choose the same."""
    best = float(grid.min())
    s, k = np.argwhere(grid <= best + tol * abs(best))[0]  # row-major: s first, then k
    return int(s), int(k)
