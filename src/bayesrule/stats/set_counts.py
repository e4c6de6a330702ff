"""Class-conditional counts of attribute subsets: the statistics of AnDE beyond pairs.

An averaged n-dependence estimator (AnDE, Webb et al. 2012) needs ``F(c, x_S, x_j)``
for every set ``S`` of ``n`` attributes and every other attribute ``j``: the counts of
every subset of ``n + 1`` attributes with the class (and, for its fallback to A(n-1)DE,
of every smaller subset). :class:`SetCounts` extends the pairwise counts
(:class:`~bayesrule.stats.pair_counts.PairCounts`, sizes 1 and 2) with, for each size
``m = 3 .. top``, the counts of every m-subset of the attributes over the rows where all
of them are observed: each subset (sorted, in :func:`itertools.combinations` order) a
dense block of shape (C, O_a, O_b, ...), the blocks laid end to end in one flat float64
array per size.

They add over batches (``partial_fit``, the blocks of a Dask collection): :meth:`merge`
first realigns the values a later batch brings (as the pairwise counts do).
"""

from __future__ import annotations

import functools
import itertools
import os
from dataclasses import dataclass, field

import numpy as np

from .pair_counts import PairCounts
from .values import lookup

#: rows counted at once (bounds the index arrays: rows x attributes intp)
ROW_CHUNK = 1 << 16
#: fewer rows than this are counted by NumPy: no compilation (seconds, once per machine)
COMPILED_FROM = 2_000


@functools.lru_cache(maxsize=64)
def layout(sizes: tuple, m: int) -> tuple[dict, int]:
    """Where each sorted m-subset of attributes of ``sizes`` values starts in the flat
    counts (in units of C: its block starts at ``C * start``), and their total length
    (per class)."""
    starts, at = {}, 0
    for subset in itertools.combinations(range(len(sizes)), m):
        starts[subset] = at
        at += int(np.prod([sizes[a] for a in subset], dtype=np.int64))
    return starts, at


@dataclass
class SetCounts(PairCounts):
    """The pairwise counts and ``sets``: per size m = 3 .. ``top``, the flat counts of
    every m-subset of attributes (see the module docstring)."""

    sets: list = field(default_factory=list)

    @property
    def top(self) -> int:
        """The largest subset size counted."""
        return 2 + len(self.sets)

    @property
    def sizes(self) -> tuple:
        return tuple(int(c.size) for c in self.categories)

    def subset(self, cols, sizes=None) -> np.ndarray:
        """``F(c, x_a, x_b, ...)`` of distinct attributes ``cols``, axes in their order
        (C, O_a, O_b, ...), over the rows where all of them are observed (``sizes``:
        :attr:`sizes`, when the caller has them)."""
        cols = tuple(int(a) for a in cols)
        if len(cols) == 1:
            return self.single(cols[0])
        if len(cols) == 2:
            return self.blocks([cols])[0]
        order = tuple(sorted(cols))
        block = self.sorted_block(order, sizes)
        return block.transpose([0, *(1 + order.index(a) for a in cols)])

    def sorted_block(self, subset: tuple, sizes=None) -> np.ndarray:
        """The counts of a sorted subset of 3 .. ``top`` attributes, a view (C, O...)."""
        sizes = self.sizes if sizes is None else sizes
        shape = (self.n_classes, *(sizes[a] for a in subset))
        start = self.n_classes * layout(sizes, len(subset))[0][subset]
        flat = self.sets[len(subset) - 3]
        return flat[start : start + int(np.prod(shape, dtype=np.int64))].reshape(shape)

    def merge(self, other: SetCounts) -> SetCounts:
        """The counts of both batches together (values: the union; counts realigned)."""
        if not isinstance(other, SetCounts) or other.top != self.top:
            raise ValueError(
                f"cannot merge counts of attribute subsets up to {self.top} with "
                f"{getattr(other, 'top', 2)}: fit again with the same n."
            )
        pairs = PairCounts.merge(self, other)
        sets = [
            _realigned(self, pairs.categories, m) + _realigned(other, pairs.categories, m)
            for m in range(3, self.top + 1)
        ]
        return SetCounts(**vars(pairs), sets=sets)


def _realigned(stats: SetCounts, categories: list, m: int) -> np.ndarray:
    """The flat m-subset counts of ``stats`` laid out for the values ``categories``."""
    old = stats.sets[m - 3]
    if all(a.size == b.size for a, b in zip(categories, stats.categories, strict=True)):
        return old  # the same values (categories only grow, so equal sizes: equal)
    where = [
        lookup(new, values, j)
        for j, (new, values) in enumerate(zip(categories, stats.categories, strict=True))
    ]
    sizes = tuple(int(c.size) for c in categories)
    C = stats.n_classes
    starts, total = layout(sizes, m)
    out = np.zeros(C * total)
    for subset, start in starts.items():
        new = np.zeros((C, *(sizes[a] for a in subset)))
        new[np.ix_(np.arange(C), *(where[a] for a in subset))] = stats.sorted_block(subset)
        out[C * start : C * start + new.size] = new.ravel()
    return out


def count_sets(pairs: PairCounts, codes, y, sample_weight, top: int) -> SetCounts:
    """``pairs`` and the counts of every attribute subset of 3 .. ``top`` attributes of
    encoded rows (:func:`~bayesrule.stats.pair_counts.encode_table`: -1 where missing or
    of weight zero), classes ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats.pair_counts import count_pairs, encode_table
    >>> X = np.array([[0, 1, 1], [0, 1, 1], [1, 0, 0], [1, 1, np.nan]])
    >>> y = np.array([0, 0, 1, 1])
    >>> categories, codes = encode_table(X)
    >>> stats = count_sets(count_pairs(categories, codes, y, 2), codes, y, None, 3)
    >>> stats.subset((0, 1, 2))[0]  # class 0: x0 = 0, x1 = 1, x2 = 1 twice
    array([[[0., 0.],
            [0., 2.]],
    <BLANKLINE>
           [[0., 0.],
            [0., 0.]]])
    """
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    sizes = tuple(int(c.size) for c in pairs.categories)
    C = pairs.n_classes
    kernel = _kernel(codes.shape[0])
    sets = []
    for m in range(3, top + 1):
        out = np.zeros(C * layout(sizes, m)[1])
        if kernel is not None:
            starts = layout(sizes, m)[0]
            columns = np.ascontiguousarray(codes.T, dtype=np.intp)
            where = C * np.fromiter(starts.values(), dtype=np.intp, count=len(starts))
            weights = np.zeros(0) if w is None else w
            wide = np.asarray(sizes, dtype=np.intp)
            y = np.asarray(y, dtype=np.intp)
            if m == 3:
                kernel.add_triples(columns, y, weights, where, wide, out)
            else:
                subsets = np.array(list(starts), dtype=np.intp).reshape(-1, m)
                kernel.add_subsets(columns, y, weights, subsets, where, wide, out)
            sets.append(out)
            continue
        for start in range(0, codes.shape[0], ROW_CHUNK):
            rows = slice(start, start + ROW_CHUNK)
            _add_subsets(out, codes[rows], y[rows], None if w is None else w[rows], sizes, C, m)
        sets.append(out)
    return SetCounts(**vars(pairs), sets=sets)


def _kernel(rows: int):
    """The compiled counting kernel, or None: without numba, with ``BAYESRULE_NO_NUMBA=1``,
    or for fewer than :data:`COMPILED_FROM` rows (no compilation for a few)."""
    if rows < COMPILED_FROM or os.environ.get("BAYESRULE_NO_NUMBA", "") == "1":
        return None
    try:
        from .._engines import _count_kernels
    except ImportError:
        return None
    return _count_kernels


def _add_subsets(out, codes, y, w, sizes, C, m) -> None:
    """Add the m-subset counts of a chunk of rows to the flat ``out``. The subsets that
    share their first m - 1 attributes lie side by side: one bincount each prefix."""
    d = len(sizes)
    starts = layout(sizes, m)[0]
    wide = np.asarray(sizes, dtype=np.int64)
    observed = codes >= 0
    for prefix in itertools.combinations(range(d - 1), m - 1):
        ok = observed[:, list(prefix)].all(axis=1)
        if not ok.any():
            continue
        key = y[ok].astype(np.int64)  # position in the block (C, O_prefix..., O_j) / O_j
        for a in prefix:
            key = key * sizes[a] + codes[ok, a]
        rest = np.arange(prefix[-1] + 1, d)
        child = codes[ok][:, rest]
        lo = C * starts[(*prefix, int(rest[0]))]
        here = np.array([C * starts[(*prefix, int(j))] for j in rest], dtype=np.int64) - lo
        hi = C * starts[(*prefix, d - 1)] + C * int(np.prod(wide[[*prefix, d - 1]]))
        index = here[None, :] + key[:, None] * wide[rest][None, :] + child
        seen = child >= 0
        weights = None if w is None else np.broadcast_to(w[ok][:, None], seen.shape)[seen]
        out[lo:hi] += np.bincount(index[seen], weights=weights, minlength=hi - lo)
