"""Cross-validated accuracy of network structures from counts: the scoring of the greedy
structure searches (:mod:`~bayesrule.likelihoods.discrete.search`).

The training rows are split into ``k`` folds by their *distinct* values: every row with
the same values and class lands in the same fold, so integer sample weights give the
folds of repeated rows, and a row of weight 0 is in none. Within each class the distinct
rows are dealt to the folds in turn (stratified), in the order of their values or, with
a random state, shuffled.

Per fold, :class:`Fold` holds the codes of its training rows re-encoded over the values
seen there (a value seen only in the held-out rows is *unseen*), and the held-out rows.
Its :meth:`Fold.factor` gives, for one attribute and parent set, the log-table that a
:class:`~bayesrule.likelihoods.discrete.given.GivenNetwork` fitted on the fold's rows
would hold (the same counts over the rows where the attributes are observed, the same
fallbacks, smoothing and back-off), looked up at the held-out rows: shape
(C, n_held_out). It is computed once per fold and cached, so a structure's accuracy is a
sum of cached factors, the fold's log prior and an argmax; structures that differ in one
attribute cost one factor.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...stats.pair_counts import count_pairs
from .cpt import flat_index, lookup_table, subsets


def distinct_folds(codes: np.ndarray, y: np.ndarray, k: int, rng=None) -> np.ndarray:
    """The fold (0 .. k-1) of each row: distinct (class, values) rows dealt in turn to
    the folds within each class, in sorted order or permuted by ``rng`` (a
    ``numpy.random.RandomState``); equal rows share their fold."""
    table = np.column_stack([y, codes])
    distinct, inverse = np.unique(table, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    order = np.arange(distinct.shape[0])
    if rng is not None:
        order = rng.permutation(order)
    order = order[np.argsort(distinct[order, 0], kind="stable")]  # by class, kept within
    fold = np.empty(distinct.shape[0], dtype=np.intp)
    fold[order] = np.arange(order.size) % k
    return fold[inverse]


class Fold:
    """One fold's training counts and held-out rows (see the module docstring).

    Parameters
    ----------
    codes : ndarray of shape (n, d)
        Codes of the training rows over all their values (-1 where missing).
    y, w : ndarray of shape (n,)
        Class indices and (positive) weights.
    train, test : ndarray of bool
        The fold's training and held-out rows.
    n_classes : int
    options : dict
        ``alpha``, ``unseen``, ``backoff``, ``smoothing`` of the tables.
    """

    def __init__(self, codes, y, w, train, test, n_classes: int, options: dict):
        self.options = options
        self.n_classes = n_classes
        tr, te = codes[train], codes[test]
        d = codes.shape[1]
        self.sizes = np.zeros(d, dtype=np.intp)
        self.codes = np.full(tr.shape, -1, dtype=np.intp)
        self.test_codes = np.empty(te.shape, dtype=np.intp)
        ignore = options["unseen"] == "ignore"
        for j in range(d):
            g, t = tr[:, j], te[:, j]
            seen = np.unique(g[g >= 0])
            size = self.sizes[j] = seen.size
            where = np.full(int(max(codes[:, j].max(initial=-1), 0)) + 1, -1, dtype=np.intp)
            where[seen] = np.arange(size)
            self.codes[:, j] = np.where(g >= 0, where[np.maximum(g, 0)], -1)
            found = np.where(t >= 0, where[np.maximum(t, 0)], -2)
            unseen = size + 1 if ignore else size
            self.test_codes[:, j] = np.where(found >= 0, found, np.where(t < 0, size + 1, unseen))
        self.slots = np.minimum(self.test_codes, self.sizes)
        self.y, self.w = y[train], w[train]
        self.test_y, self.test_w = y[test], w[test]
        weight = np.bincount(self.y, weights=self.w, minlength=n_classes)
        with np.errstate(divide="ignore"):  # the log joint of no attribute: the prior
            self.log_prior = np.log(weight / weight.sum())[:, None] + np.zeros((1, test.sum()))
        self._cache: dict = {}
        self._pairs = None

    def _counts(self, cols: list[int]) -> np.ndarray:
        """``F(c, x_cols)`` over the training rows where all of ``cols`` are observed: of
        one or two attributes from the fold's pair counts (counted once, when first
        needed), of more from the rows."""
        if len(cols) <= 2:
            if self._pairs is None:
                values = [np.arange(size) for size in self.sizes]
                self._pairs = count_pairs(values, self.codes, self.y, self.n_classes, self.w)
            if len(cols) == 1:
                return self._pairs.blocks([(cols[0], cols[0])])[0].sum(axis=1)
            return self._pairs.blocks([tuple(cols)])[0]
        sub = self.codes[:, cols]
        ok = (sub >= 0).all(axis=1)
        shape = [self.n_classes, *self.sizes[cols]]
        index = flat_index(np.column_stack([self.y[ok], sub[ok]]), shape)
        return np.bincount(index, weights=self.w[ok], minlength=int(np.prod(shape))).reshape(shape)

    def factor(self, j: int, parents: tuple[int, ...]) -> np.ndarray:
        """``ln P(x_j | c, pa)`` of the held-out rows, shape (C, n_held_out)."""
        key = (j, parents)
        out = self._cache.get(key)
        if out is None:
            pa = list(parents)
            fallbacks = {
                kept: self._counts([*(pa[i] for i in kept), j]) for kept in subsets(len(pa))[:-1]
            }
            full = self._counts([*pa, j])
            o = self.options
            table = lookup_table(
                full, o["alpha"], o["unseen"], fallbacks, o["backoff"], o["smoothing"]
            ).reshape(self.n_classes, -1)
            keys = np.column_stack([self.slots[:, pa], self.test_codes[:, j]])
            out = table[:, flat_index(keys, [*(self.sizes[pa] + 1), self.sizes[j] + 2])]
            self._cache[key] = out
        return out

    def accuracy(self, total: np.ndarray) -> float:
        """The weighted share of held-out rows whose class has the highest ``total``
        (C, n_held_out) log joint (ties: the first class)."""
        right = np.argmax(total, axis=0) == self.test_y
        return float(self.test_w @ right / self.test_w.sum())


def _split_masks(splits, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Given (train, test) index arrays over the ``n`` rows as boolean masks, checked."""
    out = []
    for t, split in enumerate(splits):
        try:
            train, test = (np.asarray(part) for part in split)
        except (TypeError, ValueError):
            raise ValueError(f"cv's split {t} is not a pair (train, test) of row indices") from None
        masks = []
        for part in (train, test):
            if part.dtype.kind not in "iu" or part.ndim != 1 or ((part < 0) | (part >= n)).any():
                raise ValueError(f"cv's split {t} holds other than row indices 0..{n - 1}")
            mask = np.zeros(n, dtype=bool)
            mask[part] = True
            masks.append(mask)
        out.append(tuple(masks))
    return out


def make_folds(codes, y, w, cv, n_classes: int, options: dict, rng=None) -> list[Fold]:
    """The folds of the rows of positive weight with an attribute observed (a row with
    none says nothing about the structure): ``cv`` distinct-row folds (``min(cv, distinct
    rows)``; none where fewer than two leave nothing to hold out), or those of the given
    (train, test) index splits of the rows (a fold with no row on one side left out)."""
    keep = (w > 0) & (codes >= 0).any(axis=1)
    if not isinstance(cv, numbers.Integral):
        masks = [(a & keep, b & keep) for a, b in _split_masks(cv, y.size)]
        return [
            Fold(codes, y, w, a, b, n_classes, options) for a, b in masks if a.any() and b.any()
        ]
    codes, y, w = codes[keep], y[keep], w[keep]
    if y.size == 0:
        return []
    fold = distinct_folds(codes, y, cv, rng)
    k = int(fold.max()) + 1
    if k < 2:
        return []
    return [Fold(codes, y, w, fold != f, fold == f, n_classes, options) for f in range(k)]
