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
"""

from __future__ import annotations

import numpy as np

from ...stats.pair_counts import check_table_size

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


def smoothed(counts: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """``ln P(x_j | c, pa)`` over the last axis, and the log of each row's unseen-value
    probability ``alpha / (F(c, pa) + alpha O_j)``."""
    size = counts.shape[-1]
    total = counts.sum(axis=-1, keepdims=True)
    num, den = counts + alpha, total + alpha * size
    with np.errstate(divide="ignore", invalid="ignore"):
        if alpha == 0:  # never seen together: the limit 1/O_j
            empty = np.broadcast_to(total <= 0, num.shape)
            num, den = np.where(empty, 1.0, num), np.where(total <= 0, size, den)
        log_prob = np.log(num) - np.log(den)
        unseen = np.log(alpha / den) if alpha > 0 else np.where(total <= 0, -np.log(size), -np.inf)
    return log_prob, unseen[..., 0]


def lookup_table(counts: np.ndarray, alpha: float, unseen: str, fallbacks=None) -> np.ndarray:
    """The extended log table, shape (C, O_pa1 + 1, ..., O_paK + 1, O_j + 2)."""
    ext = extend_parents(counts, fallbacks)
    size = ext.shape[-1]
    if size == 0:  # a feature never observed in training adds nothing
        return np.zeros(ext.shape[:-1] + (2,))
    log_prob, new = smoothed(ext, alpha)
    if unseen == "ignore":
        new = np.zeros_like(new)
    return np.concatenate([log_prob, new[..., None], np.zeros(new.shape + (1,))], axis=-1)


def proba(counts: np.ndarray, alpha: float) -> np.ndarray:
    """``P(x_j | c, pa)`` for the values seen, shape of ``counts``."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.shape[-1] == 0:
        return counts.copy()
    return np.exp(smoothed(counts, alpha)[0])


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
