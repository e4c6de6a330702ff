"""The lookup tables of AnDE and WAODE (:mod:`~bayesrule.likelihoods.discrete.averaged`).

One level (every set ``S`` of k super-parents, or WAODE's weighted SPODEs) becomes one
:class:`~bayesrule._engines.lookup.Plan`: a component per parent set, whose cells are one
row per combination of its parents' slots (``O_s + 1`` each: a value, or "unavailable"),
the row holding ``ln P(y, x_S) - ln P(y)`` and then each other attribute's ``O_j + 2``
cells (its values, a value never seen, missing) of ``ln P(x_j | y, x_S)``. Laid out so,
every factor of a component keys on the same parent terms, and one row of the table
serves all of a row's lookups in the component. Each component's gate is 1 where its
parents' values were seen together ``min_count`` times (never at an unavailable slot).
"""

from __future__ import annotations

import numpy as np

from ..._engines.lookup import Factors, Plan
from .cpt import cell_alpha, check_tables, extend_parents, lookup_table


def elementary(a: np.ndarray, b: np.ndarray, k: int) -> tuple[float, float]:
    """``sum_S prod_{s in S} a_s`` and ``sum_S prod_{s in S} a_s sum_{s in S} b_s`` over
    the k-subsets S (first order of ``prod (a_s (1 + t b_s))`` in t), without listing them."""
    e0, e1 = np.zeros(k + 1), np.zeros(k + 1)
    e0[0] = 1.0
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        e1[1:] = e1[1:] + (e1[:-1] * x + e0[:-1] * x * y)
        e0[1:] = e0[1:] + e0[:-1] * x
    return float(e0[k]), float(e1[k])


def check_size(sizes: np.ndarray, C: int, n: int) -> None:
    """Refuse (``check_tables``) the lookup tables of levels n .. 2 and the counts of the
    subsets of up to n + 1 attributes beyond the memory allowed, before allocating."""
    slots = sizes + 1.0
    widths = sizes + 2.0
    nbytes = 0.0
    for k in range(2, n + 1):
        combos, inner = elementary(slots, widths, k)  # sum_S prod(O_S + 1) (1 + rest)
        nbytes += 8.0 * C * (combos * (1.0 + widths.sum()) - inner)
    for m in range(3, min(n + 1, sizes.size) + 1):
        nbytes += 8.0 * C * elementary(sizes.astype(float), np.zeros(sizes.size), m)[0]
    fix = f"Set a smaller n (n={n}: tables over every set of n parents' values), or "
    check_tables(nbytes, sizes, fix)


def joint_parts(F: np.ndarray, alpha: float, smoothing: str = "lidstone"):
    """``P(y, x_S)``'s numerator (C, O_S...) and denominator from ``F(y, x_S)`` (``alpha``
    per cell; ``smoothing="m-estimate"``: ``alpha`` in all)."""
    alpha = cell_alpha(alpha, F.size, smoothing)
    return F + alpha, F.sum() + alpha * F.size


def level_plan(like, counts, sets, log_class, log_weight) -> Plan:
    """The plan of one level of the fitted family ``like`` (its sizes and parameters):
    a component per parent set of ``sets``, ``log_weight`` per set or None."""
    sizes, C = like._sizes, log_class.size
    d = sizes.size
    fast = like.backoff == 0 and like.smoothing == "lidstone"
    layouts, total = [], 0
    for S in sets:
        others = [j for j in range(d) if j not in S]
        shape = sizes[list(S)] + 1
        offsets = np.concatenate([[1], 1 + np.cumsum(sizes[others] + 2)]).astype(np.intp)
        layouts.append((list(S), others, shape, offsets, total))
        total += int(np.prod(shape)) * int(offsets[-1])
    table = np.zeros((total, C))
    rows, gate_rows, gates, starts, at = [], [], [], [0], 0
    for S, others, shape, offsets, base in layouts:
        combos, width = int(np.prod(shape)), int(offsets[-1])
        block = table[base : base + combos * width].reshape(*shape, width, C)
        F = counts.get(S)
        num, den = joint_parts(F, like.alpha, like.smoothing)
        inner = tuple(slice(0, s - 1) for s in shape)
        with np.errstate(divide="ignore"):
            joint = np.log(num) - np.log(den) if den > 0 else np.full(num.shape, -np.inf)
        block[(*inner, 0)] = np.moveaxis(joint - log_class.reshape(-1, *[1] * len(S)), 0, -1)
        if fast:  # every child at once
            cells = children_cells(counts.children(S, others), sizes[others], like.alpha)
            if like.unseen == "ignore":
                cells[..., offsets[1:] - 3] = 0.0
            block[..., 1:, :] = np.moveaxis(cells, 0, -1)
        else:
            for j, off in zip(others, offsets[:-1].tolist(), strict=True):
                t = lookup_table(
                    counts.get([*S, j]), like.alpha, like.unseen, None, like.backoff, like.smoothing
                )
                block[..., off : off + sizes[j] + 2, :] = np.moveaxis(t, 0, -1)
        strides = [int(np.prod(shape[i + 1 :])) for i in range(len(S))]
        parent = [(s, width * m, True) for s, m in zip(S, strides, strict=True)]
        rows.append((base, parent))
        children = zip(others, offsets[:-1].tolist(), strict=True)
        rows += [(base + off, [*parent, (j, 1, False)]) for j, off in children]
        starts.append(len(rows))
        usable = np.zeros(shape)
        usable[inner] = F.sum(axis=0) >= like.min_count
        gate_rows.append((at, [(s, m, True) for s, m in zip(S, strides, strict=True)]))
        gates.append(usable.ravel())
        at += combos
    return Plan(
        table=table,
        factors=Factors.build(rows),
        starts=np.asarray(starts, dtype=np.intp),
        log_weight=None if log_weight is None else np.asarray(log_weight, dtype=np.float64),
        gates=Factors.build(gate_rows),
        gate_table=np.concatenate(gates),
    )


def children_cells(counts: np.ndarray, sizes: np.ndarray, alpha: float) -> np.ndarray:
    """The lookup cells of children side by side: ``counts`` (C, O_S..., sum O_j) their
    counts given the parents, concatenated; each child's ``O_j + 2`` cells as
    :func:`~bayesrule.likelihoods.discrete.cpt.lookup_table` gives them (Lidstone, no
    back-off; a parent slot O_s summing over the parent), shape (C, O_S + 1..., sum O_j + 2)."""
    return extended_cells(extend_parents(counts), sizes, alpha)


def extended_cells(ext: np.ndarray, sizes: np.ndarray, alpha: float) -> np.ndarray:
    """:func:`children_cells` of counts whose parent slots are already appended
    (:func:`~bayesrule.likelihoods.discrete.cpt.extend_parents`), or of several parents'
    extended rows stacked on one axis (AODE's super-parents at once)."""
    totals = np.zeros(ext.shape[:-1] + (sizes.size,))
    seen = sizes > 0
    if seen.any():
        starts = np.concatenate([[0], np.cumsum(sizes)])[:-1]
        totals[..., seen] = np.add.reduceat(ext, starts[seen], axis=-1)
    den = np.maximum(totals, 0) + alpha * sizes
    wide = np.repeat(den, sizes, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(
            wide > 0,
            np.log(np.maximum(ext, 0) + alpha) - np.log(wide),
            -np.log(np.maximum(np.repeat(sizes, sizes), 1)),
        )
        new = np.where(
            den > 0, np.log(np.full(den.shape, alpha)) - np.log(den), -np.log(np.maximum(sizes, 1))
        )
    ends = np.cumsum(sizes + 2).astype(np.intp)
    out = np.zeros(ext.shape[:-1] + (int(ends[-1]) if sizes.size else 0,))
    columns = [np.arange(e - s - 2, e - 2) for s, e in zip(sizes, ends, strict=True)]
    out[..., np.concatenate([[], *columns]).astype(np.intp)] = values
    out[..., ends - 2] = new
    return out


class Counts:
    """The counts of attribute sets of one statistics object, pairs fetched in one pass."""

    def __init__(self, stats):
        self.stats = stats
        self.sizes = tuple(int(c.size) for c in stats.categories)
        self.singles = stats.singles()
        d = len(stats.categories)
        pairs = [(a, b) for a in range(d) for b in range(d) if a != b]
        self.pairs = dict(zip(pairs, stats.blocks(pairs), strict=True))

    def get(self, cols) -> np.ndarray:
        """``F(c, x_cols...)``, axes in the order of ``cols``."""
        cols = tuple(int(a) for a in cols)
        if len(cols) == 1:
            return self.singles[cols[0]]
        if len(cols) == 2:
            return self.pairs[cols]
        return self.stats.subset(cols, self.sizes)

    def children(self, S, others) -> np.ndarray:
        """``F(c, x_S, x_j)`` of the attributes ``others``, side by side on the last axis."""
        parts = [self.get([*S, j]) for j in others]
        if not parts:
            F = self.get(S)
            return np.zeros((*F.shape, 0))
        return np.concatenate(parts, axis=-1)
