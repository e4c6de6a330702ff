"""Pairwise class-conditional counts of discrete features: the statistics of semi-naive Bayes.

Every feature's values are one-hot columns of a row, ``W = sum_j O_j`` columns in all
(feature j's values at ``offsets[j] : offsets[j + 1]``, missing values no column). The
weighted Gram matrix of class c, ``G_c = O_c^T diag(w_c) O_c``, then holds every count
the one-dependence models need: the block of features (i, j) is ``F(c, x_i, x_j)`` over
the rows where both are observed, and the diagonal of block (j, j) is ``F(c, x_j)``. The
Gram matrices add across batches, so ``fit`` equals merged ``partial_fit`` batches.

They are stored dense, shape (C, W, W), while that takes at most :data:`DENSE_BYTES`,
and as their non-zero entries otherwise (features with many values). Table sizes are
checked against the memory a process may use before anything large is allocated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._engines.threads import in_order, n_threads
from .table_codes import encode_small_integers
from .values import encode, lookup, union

#: the Gram matrices are dense up to this many bytes, then stored by their non-zeros
DENSE_BYTES = 64 << 20
#: the share of the available memory that count and probability tables may take
MEMORY_SHARE = 0.5


def available_memory() -> int:
    """Bytes a process may still allocate: MemAvailable of /proc/meminfo (free memory
    plus reclaimable caches) where there is one, else the free pages, else 8 GiB."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def memory_limit() -> int:
    """Bytes the count and probability tables may take: a share of the available memory."""
    return int(MEMORY_SHARE * available_memory())


def check_table_size(nbytes: float, what: str, sizes) -> None:
    """ValueError saying the estimated size when tables of ``nbytes`` would not fit."""
    limit = memory_limit()
    if nbytes <= limit:
        return
    sizes = np.asarray(sizes)
    worst = np.argsort(-sizes, kind="stable")[:3]
    many = ", ".join(f"feature {j}: {sizes[j]:,} values" for j in worst.tolist())
    raise ValueError(
        f"too many distinct values: the {what} would take about {nbytes / 2**30:,.1f} GiB, "
        f"more than the {limit / 2**30:,.1f} GiB allowed ({many}). Discretise continuous "
        "columns (discretize='quantile' or 'mdl'), merge rare values, or drop identifier-"
        "like columns."
    )


def offsets_of(categories) -> np.ndarray:
    """Start of each feature's one-hot columns, and W at the end: shape (d + 1,)."""
    return np.concatenate([[0], np.cumsum([c.size for c in categories])]).astype(np.intp)


@dataclass
class PairCounts:
    """Per feature the sorted values seen; per class the total weight and the Gram matrix.

    ``gram`` is (C, W, W) when dense; otherwise None and ``entries`` holds the non-zeros
    as (class, row, column, count) arrays (both triangles).
    """

    categories: list
    class_weight: np.ndarray
    gram: np.ndarray | None = None
    entries: tuple | None = None

    @property
    def n_classes(self) -> int:
        return self.class_weight.shape[0]

    @property
    def offsets(self) -> np.ndarray:
        return offsets_of(self.categories)

    def nonzero(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The non-zero counts as (class, row, column, count) arrays."""
        if self.gram is None:
            return self.entries
        c, u, w = np.nonzero(self.gram)
        return c, u, w, self.gram[c, u, w]

    def single(self, j: int) -> np.ndarray:
        """``F(c, x_j)``, shape (C, O_j) (for one feature; :meth:`singles` for all)."""
        return self.singles()[j]

    def singles(self) -> list[np.ndarray]:
        """``F(c, x_j)`` of every feature j, shape (C, O_j) each (one pass over the counts)."""
        if self.gram is not None:
            diagonal = np.diagonal(self.gram, axis1=1, axis2=2)
        else:
            c, u, w, v = self.entries
            keep = u == w
            diagonal = np.zeros((self.n_classes, int(self.offsets[-1])))
            np.add.at(diagonal, (c[keep], u[keep]), v[keep])
        return [part.copy() for part in np.split(diagonal, self.offsets[1:-1], axis=1)]

    def blocks(self, pairs) -> list[np.ndarray]:
        """``F(c, x_i, x_j)`` for each ``(i, j)`` of ``pairs``, shape (C, O_i, O_j) each."""
        off = self.offsets
        if self.gram is not None:
            return [self.gram[:, off[i] : off[i + 1], off[j] : off[j + 1]] for i, j in pairs]
        c, u, w, v = self.entries
        d = len(self.categories)
        bu = np.searchsorted(off, u, side="right") - 1
        bw = np.searchsorted(off, w, side="right") - 1
        key = bu * d + bw
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        out = []
        for i, j in pairs:
            lo, hi = np.searchsorted(sorted_key, [i * d + j, i * d + j + 1])
            pick = order[lo:hi]
            table = np.zeros((self.n_classes, off[i + 1] - off[i], off[j + 1] - off[j]))
            np.add.at(table, (c[pick], u[pick] - off[i], w[pick] - off[j]), v[pick])
            out.append(table)
        return out

    def dense(self) -> np.ndarray:
        """The Gram matrices as one (C, W, W) array."""
        if self.gram is not None:
            return self.gram
        W = int(self.offsets[-1])
        out = np.zeros((self.n_classes, W, W))
        c, u, w, v = self.entries
        np.add.at(out, (c, u, w), v)
        return out

    def merge(self, other: PairCounts) -> PairCounts:
        """The statistics of both batches together (values: the union; counts realigned)."""
        if len(self.categories) != len(other.categories):
            raise ValueError(
                f"cannot merge statistics of {len(self.categories)} and "
                f"{len(other.categories)} features."
            )
        categories = [union(a, b) for a, b in zip(self.categories, other.categories, strict=True)]
        off = offsets_of(categories)
        parts = []
        for stats in (self, other):
            where = np.concatenate(
                [off[j] + lookup(categories[j], old, j) for j, old in enumerate(stats.categories)]
            ).astype(np.intp)
            c, u, w, v = stats.nonzero()
            parts.append((c, where[u], where[w], v))
        c, u, w, v = (np.concatenate(p) for p in zip(*parts, strict=True))
        return _stored(categories, self.class_weight + other.class_weight, c, u, w, v)


def _stored(categories, class_weight, c, u, w, v) -> PairCounts:
    """PairCounts from (class, row, column, count) entries, duplicates summed."""
    C, W = class_weight.shape[0], int(offsets_of(categories)[-1])
    if C * W * W * 8 <= DENSE_BYTES:
        gram = np.zeros((C, W, W))
        np.add.at(gram, (c, u, w), v)
        return PairCounts(categories, class_weight, gram=gram)
    key = (c.astype(np.int64) * W + u) * W + w
    keys, inverse = np.unique(key, return_inverse=True)
    v = np.bincount(inverse.ravel(), weights=v, minlength=keys.size)
    c, rest = np.divmod(keys, W * W)
    u, w = np.divmod(rest, W)
    keep = v != 0
    entries = tuple(a[keep].astype(np.intp) for a in (c, u, w)) + (v[keep],)
    return PairCounts(categories, class_weight, entries=entries)


def encode_table(X: np.ndarray, sample_weight=None) -> tuple[list, np.ndarray]:
    """Per feature the sorted values seen (in rows of positive weight), and every cell's
    code: its value's position, -1 where missing or the row's weight is zero."""
    n, d = X.shape
    keep = None if sample_weight is None else np.asarray(sample_weight) > 0
    fast = encode_small_integers(X, keep)  # compiled, for C-ordered small whole numbers
    if fast is not None:
        return fast
    columns = np.ascontiguousarray(X.T)  # each column contiguous (strided reads were most)
    categories, codes = [], np.full((d, n), -1, dtype=np.intp)
    for j in range(d):
        values, code, observed = encode(columns[j], j, keep)
        categories.append(values)
        if code.size == n:  # every value kept
            codes[j] = code
        else:
            codes[j, observed] = code
    return categories, codes.T  # (n, d), column-major: each column's codes contiguous


def count_pairs(categories, codes, y, n_classes: int, sample_weight=None) -> PairCounts:
    """The pairwise counts of encoded rows (:func:`encode_table`), classes ``y``."""
    n = codes.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    off = offsets_of(categories)
    W = int(off[-1])
    class_weight = np.bincount(y, weights=w, minlength=n_classes).astype(np.float64)
    sizes = [c.size for c in categories]
    if n_classes * W * W * 8 <= DENSE_BYTES:
        return PairCounts(categories, class_weight, gram=_dense_gram(codes, off, y, n_classes, w))
    pairs_bound = float(np.count_nonzero(codes >= 0, axis=1).astype(np.float64) ** 2 @ (w > 0))
    # each stored count takes 32 bytes, and learning a structure from them ~20 arrays more
    check_table_size(200 * min(pairs_bound, n_classes * float(W) ** 2), "pairwise counts", sizes)
    return _sparse_gram(categories, codes, off, y, class_weight, w)


def _dense_gram(codes, off, y, n_classes, w) -> np.ndarray:
    """Per class ``O^T diag(w) O``: counted pair by pair by a compiled kernel where numba
    is installed (about twice as fast as the products, in :func:`n_threads` threads),
    else over row chunks, one GEMM each. The one-hot chunks are float32 when every
    product and sum of a chunk is an integer below 2**24 (exact)."""
    counted = _counted_gram(codes, off, y, n_classes, w)
    if counted is not None:
        return counted
    n, d = codes.shape
    W = int(off[-1])
    gram = np.zeros((n_classes, W, W))
    step = max(256, (1 << 20) // max(W, 1))
    integral = bool(np.all(w == np.round(w)))
    dtype = np.float32 if integral and float(w.max(initial=0)) * step < 2**24 else np.float64
    unit = bool(np.all(w == 1))
    columns = np.where(codes >= 0, codes + off[:-1], W)  # missing: a spare column, dropped
    order = np.argsort(y, kind="stable")
    bounds = np.searchsorted(y[order], np.arange(n_classes + 1))
    for c in range(n_classes):
        rows_c = order[bounds[c] : bounds[c + 1]]
        for start in range(0, rows_c.size, step):
            rows = rows_c[start : start + step]
            onehot = np.zeros((rows.size, W + 1), dtype=dtype)
            onehot[np.arange(rows.size)[:, None], columns[rows]] = 1.0
            onehot = onehot[:, :W]
            weighted = onehot if unit else onehot * w[rows, None].astype(dtype)
            gram[c] += weighted.T @ onehot
    return gram


#: fewer cells (rows x features) than this are counted by NumPy: no compilation for a few
COMPILED_FROM = 50_000


def _counted_gram(codes, off, y, n_classes, w):
    """The Gram matrices by the compiled kernels of :mod:`bayesrule._engines._pair_kernels`
    in threads: from bit sets of rows (:func:`_bit_gram`) or by :func:`upper_gram` on row
    blocks (their upper triangles added), then mirrored; None without numba, with
    ``BAYESRULE_NO_NUMBA=1`` or for a few rows."""
    if codes.size < COMPILED_FROM or os.environ.get("BAYESRULE_NO_NUMBA", "") == "1":
        return None
    try:
        from .._engines import _pair_kernels
    except ImportError:
        return None
    n, W = codes.shape[0], int(off[-1])
    codes = codes if codes.dtype == np.intp else codes.astype(np.intp)  # any memory order
    y = np.ascontiguousarray(y, dtype=np.intp)
    weights = np.zeros(0) if bool(np.all(w == 1)) else np.ascontiguousarray(w, dtype=np.float64)
    offsets = np.ascontiguousarray(off, dtype=np.intp)
    workers = n_threads()
    gram = _bit_gram(_pair_kernels, codes, offsets, y, n_classes, weights, workers)
    if gram is None:
        step = -(-n // workers)

        def part(lo):
            out = np.zeros((n_classes, W, W))
            ok = _pair_kernels.upper_gram(codes, offsets, y, weights, lo, min(n, lo + step), out)
            if not ok:
                raise ValueError("class indices or codes out of range for the pair counts")
            return out

        for _, out in in_order(part, range(0, n, step), workers):
            gram = out if gram is None else gram + out
    upper = np.triu(gram)
    return upper + np.swapaxes(np.triu(gram, 1), 1, 2)


#: the bit sets of :func:`_bit_gram` take at most this many bytes
BIT_BYTES = 64 << 20


def _bit_gram(kernels, codes, offsets, y, n_classes, weights, workers):
    """The upper triangles of the Gram matrices from bit sets of rows (:func:`bayesrule.
    _engines._pair_kernels.mask_gram`), where every weight is 0 or 1 and that is
    cheaper than counting pair by pair: per class a popcount per 64 rows and pair of
    one-hot columns, against an increment per row and pair of features (about 7x fewer
    operations for 30 features of 5 values: AODE's fit of 100,000 rows counted in 7 ms
    instead of 44). None where it does not apply."""
    n, d = codes.shape
    W = int(offsets[-1])
    pos = np.empty(n, dtype=np.int64)
    counts = kernels.row_positions(y, weights, n_classes, pos)
    if counts.size == 0:  # real weights, or a class out of range: counted pair by pair
        return None
    words = -(-int(counts.max(initial=0)) // 64)
    # the measured costs per operation (ns): a bit set 1.6, a popcount of 64 rows 0.11,
    # an increment 0.95
    bits = 1.6 * n * d + 0.11 * W * W / 2 * (n / 64 + n_classes)
    if bits >= 0.95 * n * d * d / 2 or n_classes * W * words * 8 > BIT_BYTES:
        return None
    masks = np.zeros((n_classes, W, words), dtype=np.uint64)
    owner = np.repeat(np.arange(d), np.diff(offsets)).astype(np.intp)
    cuts = np.linspace(0, d, workers + 1).astype(int)
    spans = [(a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True) if b > a]
    set_bits = lambda span: kernels.bit_masks(codes, offsets, y, pos, *span, masks)  # noqa: E731
    if not all(ok for _, ok in in_order(set_bits, spans, workers)):
        raise ValueError("class indices or codes out of range for the pair counts")
    gram = np.zeros((n_classes, W, W))
    share = lambda first: kernels.mask_gram(masks, owner, offsets, first, workers, gram)  # noqa: E731
    for _ in in_order(share, range(workers), workers):
        pass
    return gram


def _sparse_gram(categories, codes, off, y, class_weight, w) -> PairCounts:
    n, d = codes.shape
    W = int(off[-1])
    r, j = np.nonzero(codes >= 0)
    onehot = sp.csr_array((np.ones(r.size), (r, off[j] + codes[r, j])), shape=(n, W))
    parts = []
    for c in range(class_weight.shape[0]):
        rows = np.flatnonzero((y == c) & (w > 0))
        block = onehot[rows]
        gram = (block.T @ sp.diags_array(w[rows]) @ block).tocoo()
        parts.append((np.full(gram.nnz, c), gram.row, gram.col, gram.data))
    c, u, v_, x = (np.concatenate(p) for p in zip(*parts, strict=True))
    return _stored(categories, class_weight, c, u, v_, x)
