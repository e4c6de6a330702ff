"""Conditional probability tables ``P(x_j | c, parents)`` from counts, ready for lookup.

Counts ``F(c, x_pa1, ..., x_paK, x_j)`` become the Lidstone estimates

    P(x_j = v | c, pa) = (F(c, pa, v) + alpha) / (F(c, pa) + alpha O_j),

with ``F(c, pa) = sum_v F(c, pa, v)`` over the rows where all of them are observed.
For lookup the table grows one slot on every parent axis and two on the child axis:

* parent slot ``O_p`` (the parent is missing or its value was never seen): the child is
  predicted from its remaining parents, with the counts of the rows where those and the
  child are observed (given by the family; by default the counts summed over the parent);
* child slot ``O_j`` (a value never seen): count 0 in the formula under
  ``unseen="smooth"``, 0 (the feature drops out) under ``"ignore"``;
* child slot ``O_j + 1`` (missing): 0, the feature drops out of the product.

With ``alpha=0`` a parent combination never seen with a class gets the limit of the
formula as alpha goes to 0, ``1 / O_j``, as the categorical family does.

``smoothing="m-estimate"`` spreads ``alpha`` pseudo-rows evenly over the child's values
instead (Cestnik's m-estimate with m = ``alpha`` and a uniform prior, as Weka's AODEsr
and WAODE estimate): ``(F(c, pa, v) + alpha / O_j) / (F(c, pa) + alpha)``, the Lidstone
formula with ``alpha / O_j`` (:func:`cell_alpha`).

A table with attribute parents may also back off (``backoff = m > 0``) towards the
attribute's table given the class alone, an m-estimate:

    P(x_j = v | c, pa) = (F(c, pa, v) + m P0(v | c)) / (F(c, pa) + m),
    P0(v | c) = (F(c, v) + alpha) / (F(c) + alpha O_j),

``F(c, v)`` the counts of the slot where every parent is unavailable (which keeps
``P0`` itself): the child's own counts given by the family, or the counts summed over
the parents. A parent combination seen in few rows
then predicts nearly what the class alone does instead of the near-uniform Lidstone
estimate (Friedman, Geiger and Goldszmidt 1997 smooth TAN's tables so, with m = 5,
towards the attribute's marginal; backing off to the class-conditional table is the first
level of the hierarchical smoothing of Petitjean et al. 2018, which
:mod:`~bayesrule.likelihoods.discrete.hdp` gives in full: ``smoothing="hdp"``).
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_nonnegative
from ...stats.pair_counts import check_table_size
from . import hdp

#: the most bytes the dense probability tables of one model may take, whatever the free
#: memory: tables this large over parent combinations hold mostly smoothing
TABLE_BYTES = 1 << 30


def check_tables(nbytes: float, sizes, fix: str) -> None:
    """Refuse, before anything is allocated, probability tables of ``nbytes`` beyond
    :data:`TABLE_BYTES` (with the size and ``fix``), or beyond the memory available."""
    if nbytes > TABLE_BYTES:
        sizes = np.asarray(sizes)
        worst = ", ".join(
            f"feature {j}: {sizes[j]:,} values" for j in np.argsort(-sizes, kind="stable")[:3]
        )
        raise ValueError(
            f"too many value combinations: the probability tables would take about "
            f"{nbytes / 2**30:,.1f} GiB, more than the {TABLE_BYTES / 2**30:g} GiB allowed "
            f"({worst}). {fix}{'bin' if fix else 'Bin'} the columns (discretize='auto' or "
            "'mdl', or discretize='quantile' with a smaller n_bins), merge rare values, or drop "
            "identifier-like columns."
        )
    check_table_size(nbytes, "probability tables", sizes)


def cell_alpha(alpha: float, cells: int, smoothing: str = "lidstone") -> float:
    """The pseudo-count of each cell of a table of ``cells`` cells: ``alpha`` (Lidstone),
    or ``alpha / cells`` for ``smoothing="m-estimate"`` (m = alpha rows in all)."""
    return alpha / max(cells, 1) if smoothing == "m-estimate" else alpha


def subsets(k: int) -> list[tuple[int, ...]]:
    """Every subset of ``range(k)`` as a sorted tuple, the whole last."""
    return [tuple(i for i in range(k) if m >> i & 1) for m in range(1 << k)]


def extend_parents(counts: np.ndarray, fallbacks=None) -> np.ndarray:
    """Append to every parent axis (all but the first and the last) a slot for "this
    parent unavailable". The slots hold, for each set of available parents, the counts
    over those parents: ``fallbacks[kept]`` (``kept`` a tuple of parent axes, 0-based)
    where given, else ``counts`` summed over the other parents."""
    counts = np.asarray(counts, dtype=np.float64)
    k = counts.ndim - 2
    sizes = counts.shape[1:-1]
    fallbacks = fallbacks or {}
    ext = np.zeros((counts.shape[0], *(s + 1 for s in sizes), counts.shape[-1]))
    for kept in subsets(k):
        dropped = tuple(1 + i for i in range(k) if i not in kept)
        part = fallbacks.get(kept)
        if part is None:
            part = counts.sum(axis=dropped) if dropped else counts
        where = tuple(slice(0, sizes[i]) if i in kept else sizes[i] for i in range(k))
        ext[(slice(None), *where, slice(None))] = part
    return ext


def lidstone(num, den, alpha: float, size: int) -> np.ndarray:
    """``ln((num + alpha) / (den + alpha size))``, the counts floored at 0 (a row taken out
    of them may leave -1e-16); a denominator of 0 (alpha = 0, nothing counted) gives the
    limit as alpha goes to 0, ``1 / size``."""
    num = np.maximum(num, 0) + alpha
    den = np.maximum(den, 0) + alpha * size
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, np.log(num) - np.log(den), -np.log(max(size, 1)))


def m_estimate(num, den, prior, m: float) -> np.ndarray:
    """``ln((num + m prior) / (den + m))``, the counts floored at 0: the back-off."""
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(num, 0) + m * prior) - np.log(np.maximum(den, 0) + m)


def smoothed(
    counts: np.ndarray, alpha: float, backoff: float = 0.0, prior=None
) -> tuple[np.ndarray, np.ndarray]:
    """``ln P(x_j | c, pa)`` over the last axis, and the log of each row's unseen-value
    probability ``alpha / (F(c, pa) + alpha O_j)``; with ``backoff`` m > 0 the m-estimates
    towards ``prior`` (:func:`back_off_prior` of the counts: ``P0(v | c)``, (C, O_j), and
    ``P0(unseen | c)``, (C,))."""
    size = counts.shape[-1]
    total = counts.sum(axis=-1, keepdims=True)
    if backoff > 0 and prior is not None:
        known, new = prior
        lead = (counts.shape[0],) + (1,) * (counts.ndim - 2)
        log_prob = m_estimate(counts, total, known.reshape(*lead, size), backoff)
        unseen = m_estimate(0.0, total, new.reshape(*lead, 1), backoff)
        return log_prob, unseen[..., 0]
    return lidstone(counts, total, alpha, size), lidstone(0.0, total, alpha, size)[..., 0]


def back_off_prior(alone: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """``P0(v | c)`` (C, O_j) and ``P0(unseen | c)`` (C,): the Lidstone estimates of the
    counts ``F(c, x_j)`` (C, O_j) with no attribute parent."""
    log_prob, new = smoothed(np.asarray(alone, dtype=np.float64), alpha)
    return np.exp(log_prob), np.exp(new)


def lookup_table(
    counts: np.ndarray,
    alpha: float,
    unseen: str,
    fallbacks=None,
    backoff: float = 0.0,
    smoothing: str = "lidstone",
) -> np.ndarray:
    """The extended log table, shape (C, O_pa1 + 1, ..., O_paK + 1, O_j + 2); with
    ``backoff``, backing off to the table of the slot where every parent is unavailable
    (``fallbacks[()]``, or the counts summed over the parents), which that slot keeps.
    ``smoothing="hdp"``: the hierarchical Dirichlet tables of
    :func:`~bayesrule.likelihoods.discrete.hdp.lookup_table` instead (``backoff`` unused);
    ``"m-estimate"``: ``alpha / O_j`` per cell (:func:`cell_alpha`)."""
    if hdp.check_smoothing(smoothing) == "hdp":
        return hdp.lookup_table(counts, alpha, unseen, fallbacks)
    ext = extend_parents(counts, fallbacks)
    size = ext.shape[-1]
    alpha = cell_alpha(alpha, size, smoothing)
    if size == 0:  # a feature never observed in training adds nothing
        return np.zeros(ext.shape[:-1] + (2,))
    if backoff > 0 and ext.ndim > 2:
        alone = (slice(None), *(s - 1 for s in ext.shape[1:-1]))
        logs = smoothed(ext[alone], alpha)  # the table given the class alone, in logs
        log_prob, new = smoothed(ext, alpha, backoff, tuple(np.exp(part) for part in logs))
        log_prob[alone], new[alone] = logs  # every parent unavailable: that table itself
    else:
        log_prob, new = smoothed(ext, alpha)
    if unseen == "ignore":
        new = np.zeros_like(new)
    return np.concatenate([log_prob, new[..., None], np.zeros(new.shape + (1,))], axis=-1)


def proba(
    counts: np.ndarray, alpha: float, backoff: float = 0.0, alone=None, smoothing="lidstone"
) -> np.ndarray:
    """``P(x_j | c, pa)`` for the values seen, shape of ``counts``; with ``backoff``,
    backing off to the Lidstone table of ``alone`` (``F(c, x_j)``; by default the counts
    summed over the parents); ``smoothing="hdp"``: the leaves of the hierarchical
    Dirichlet tree of the counts (:func:`~bayesrule.likelihoods.discrete.hdp.proba`);
    ``"m-estimate"``: ``alpha / O_j`` per cell (:func:`cell_alpha`)."""
    if hdp.check_smoothing(smoothing) == "hdp":
        return hdp.proba(counts, alpha)
    counts = np.asarray(counts, dtype=np.float64)
    alpha = cell_alpha(alpha, counts.shape[-1], smoothing)
    if counts.shape[-1] == 0:
        return counts.copy()
    prior = None
    if backoff > 0 and counts.ndim > 2:
        if alone is None:
            alone = counts.sum(axis=tuple(range(1, counts.ndim - 1)))
        prior = back_off_prior(alone, alpha)
    return np.exp(smoothed(counts, alpha, backoff, prior)[0])


def check_backoff(backoff) -> float:
    """``backoff`` as a float >= 0, or a ValueError/TypeError naming it."""
    return check_nonnegative(
        "backoff",
        backoff,
        " (the weight, in rows, of the table given the class alone; 0: Lidstone only)",
    )


def flat_index(codes: np.ndarray, sizes) -> np.ndarray:
    """Row-major position in a table of shape ``sizes`` of each row of ``codes`` (n, K)."""
    index = np.zeros(codes.shape[0], dtype=np.intp)
    for k, size in enumerate(sizes):
        index *= size
        index += codes[:, k]
    return index


def n_free(sizes_parents, size_child: int, n_classes: int) -> int:
    """Free parameters of one table: ``C * prod(O_pa) * (O_j - 1)``."""
    return int(n_classes * np.prod(sizes_parents, dtype=np.int64) * max(size_child - 1, 0))
