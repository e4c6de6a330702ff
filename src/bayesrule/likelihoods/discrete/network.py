"""Semi-naive Bayes over discrete features: each attribute may depend on other attributes.

``P(c | x) ∝ P(c) prod_j P(x_j | c, pa_j)`` (seed 002, eq. 13). The families here share
the pairwise counts of :mod:`~bayesrule.stats.pair_counts` (additive, so
``partial_fit`` adds batches), the Lidstone tables of :mod:`~bayesrule.likelihoods.discrete.cpt`,
the categorical family's unseen-value policy and missing values, and the binning of
continuous columns (:mod:`~bayesrule.likelihoods.discrete.discretize`):

* :class:`~bayesrule.likelihoods.discrete.one_dependence.OneDependence`: SPODE (one super-parent
  for every other attribute) and AODE (Webb, Boughton and Wang 2005: the average of the
  SPODEs in probability space), in ``one_dependence.py``;
* :class:`~bayesrule.likelihoods.discrete.learned.TreeAugmented` (TAN) and
  :class:`~bayesrule.likelihoods.discrete.learned.KDependence` (KDB) in ``learned.py``.

Rows are looked up as codes (:func:`~bayesrule.stats.values.value_codes`): a
value's position, ``O_j`` for a value never seen, ``O_j + 1`` for a missing one.

On a Dask collection (:meth:`DiscreteNetwork.fit_blocks`) the fit passes over the row
blocks: the bins first (each float column's distinct values and their class weights add
up over blocks), then the pair counts, then, for KDB with ``k >= 2``, the counts of the
parent combinations of the structure chosen from them; each pass merges its blocks in a
tree, so the model equals the one fitted in memory.
"""

from __future__ import annotations

import copy

import numpy as np

from ..._validation import missing_mask
from ...stats.pair_counts import PairCounts, count_pairs, encode_table
from ...stats.values import check_unseen, lookup, numeric, value_codes, value_table
from ..base import BLOCK_BYTES, Likelihood, check_alpha
from .cpt import flat_index, proba
from .discretize import (
    _real,
    apply_cuts,
    check_discretize,
    distinct_table,
    is_continuous,
    merge_distinct,
    table_cuts,
)


class DiscreteNetwork(Likelihood):
    """What the semi-naive families share: parameters, binning, counts and codes."""

    input_kind = "any"
    title = "semi-naive Bayes"

    coerce = staticmethod(value_table)

    def _check_common(self) -> float:
        check_unseen(self.unseen)
        check_discretize(self.discretize, self.n_bins)
        return check_alpha(self.alpha)

    # ----------------------------------------------------------------- binning
    def _learn_bins(self, X, y, n_classes, w) -> None:
        """``bin_edges_`` from the rows of ``X``: its column summaries as one block (the
        mechanism ``fit_blocks`` uses over many, see :meth:`_bins_from`)."""
        if self.discretize is None:
            self.bin_edges_, self._bin_bounds = [None] * X.shape[1], {}
            return
        self._bins_from(_block_columns((X, y, w), n_classes, self.discretize))

    def _continuous_error(self, column, j) -> ValueError:
        value = next(v for v in column.tolist() if v is not None and v == v and v != int(v))
        if self.discretize is not None:
            return ValueError(
                f"feature {j} holds continuous values (e.g. {value!r}) in this batch, but "
                "bins are learned on the first batch of partial_fit, where it was no float "
                "column; pass that column as floats from the first batch on, or fit at once."
            )
        return ValueError(
            f"feature {j} holds continuous values (e.g. {value!r}), but {self.title} models "
            "discrete values: pass discretize='quantile' (equal-frequency bins, n_bins=5) "
            "or discretize='mdl' (supervised MDL cut points, as Weka), or bin the column "
            "yourself. Integer-valued floats (e.g. OrdinalEncoder output) count as codes."
        )

    def _bins_from(self, summary: list) -> None:
        """``bin_edges_`` from the column summaries of all the rows (:func:`_block_columns`
        of every block, merged); a continuous column left unbinned is refused as
        :meth:`_discrete_table` refuses it."""
        _, n_bins = check_discretize(self.discretize, self.n_bins)
        edges, bounds = [None] * len(summary), {}
        for j, (real, floats, _, distinct) in enumerate(summary):
            if real and floats:  # is_float_column of the whole column
                u, table = distinct
                edges[j] = table_cuts(u, table, self.discretize, n_bins)
                if u.size:
                    bounds[j] = (float(u[0]), float(u[-1]))
        for j, (real, _, example, _) in enumerate(summary):
            if edges[j] is None and real and example is not None:  # is_continuous
                raise self._continuous_error(np.array([example], dtype=object), j)
        self.bin_edges_, self._bin_bounds = edges, bounds

    def _binned(self, X) -> np.ndarray:
        return bin_columns(X, self.bin_edges_)

    def _discrete_table(self, X, y, n_classes, w, check: bool = True) -> np.ndarray:
        """The training table with continuous columns binned (bins learned on the first);
        ``check=False`` skips the refusal of unbinned continuous columns (made already)."""
        X = self.coerce(X)
        if getattr(self, "bin_edges_", None) is None:
            self._learn_bins(X, y, n_classes, w)
        elif X.shape[1] != len(self.bin_edges_):
            raise ValueError(
                f"X has {X.shape[1]} features, but the model was fitted on {len(self.bin_edges_)}."
            )
        for j, e in enumerate(self.bin_edges_):
            if check and e is None and is_continuous(X[:, j]):
                raise self._continuous_error(X[:, j], j)
        return self._binned(X)

    # ----------------------------------------------------------------- statistics
    def statistics(self, X, y, n_classes, sample_weight=None) -> PairCounts:
        """Pairwise class-conditional counts of the (binned) table."""
        self._check_common()
        y = np.asarray(y, dtype=np.intp)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        categories, codes = encode_table(self._discrete_table(X, y, n_classes, w), w)
        if self._needs_rows(codes.shape[1]):  # counted in _build (_count_rows), let go then
            self._rows = (codes, y, w)
        return count_pairs(categories, codes, y, n_classes, w)

    def _needs_rows(self, n_features: int) -> bool:
        """Whether ``_build`` counts more than the pair counts hold (KDB with k >= 2),
        from the training rows: kept by ``statistics``, or another pass over the blocks."""
        return False

    def _count_rows(self, count, categories) -> dict:
        """``count(codes, y, w)``, a dict of additive arrays, over the training rows as
        codes of ``categories``: the rows ``statistics`` kept, or after ``fit_blocks`` one
        more pass over the blocks, their dicts added up in a tree; {} without either."""
        rows = self.__dict__.pop("_rows", None)
        if rows is None:
            return {}
        if isinstance(rows, tuple):  # (codes, y, w) of statistics
            return count(*rows)
        counted = rows.map_reduce(_block_count, _add_counts, self.bin_edges_, categories, count)
        return {} if counted is None else counted

    def blockwise_reason(self) -> str | None:
        if self.discretize is not None:  # not refused: fit_blocks makes the passes
            return "discretize= learns its bins in a first pass over all the data"
        return None

    def fit_blocks(self, blocks, n_classes):
        """Fit on row blocks (a :class:`~bayesrule._blocks.Blocks` of ``(X, y, w)``, ``y``
        class positions), equal to :meth:`fit` on all of them, in passes over the blocks:
        with ``discretize``, every float column's distinct values and their class weights
        (:func:`~bayesrule.likelihoods.discrete.discretize.distinct_table`), cut into bins
        as in memory; then the pair counts of the binned blocks; then, when
        ``_build`` needs them (KDB with k >= 2), the counts of each attribute with its
        parent combinations, once the structure is chosen from the pair counts."""
        self._check_common()
        for name in ("bin_edges_", "_bin_bounds", "_rows"):
            self.__dict__.pop(name, None)
        empty = "X has no rows: every block of the Dask collection is empty."
        try:
            if self.discretize is not None:
                summary = blocks.map_reduce(
                    _block_columns, _merge_columns, n_classes, self.discretize
                )
                if summary is None:
                    raise ValueError(empty)
                self._bins_from(summary)
            stats = blocks.map_reduce(_block_pairs, _merge, self, n_classes)
            if stats is None:
                raise ValueError(empty)
            if self._needs_rows(len(stats.categories)):
                self._rows = blocks  # a third pass, over the blocks, in _build
            return self.set_statistics(stats)
        finally:
            self.__dict__.pop("_rows", None)

    def set_statistics(self, stats: PairCounts):
        """Probability tables from the counts (smoothing applied here only)."""
        self._check_common()
        if getattr(self, "bin_edges_", None) is None:  # counts merged from blocks elsewhere
            self.bin_edges_, self._bin_bounds = [None] * len(stats.categories), {}
        self.stats_ = stats
        self.categories_ = list(stats.categories)
        self._sizes = np.array([c.size for c in stats.categories], dtype=np.intp)
        self._indexes = {}
        self._build(stats)
        return self

    @property
    def n_classes_(self) -> int:
        return self.stats_.n_classes

    def _row_block(self, n_features: int) -> int:
        return max(64, BLOCK_BYTES // (8 * self.n_classes_ * max(n_features, 1) * 2))

    def _codes(self, X) -> np.ndarray:
        """Codes of every row and feature, shape (n, d)."""
        X = self._binned(self.coerce(X))
        if X.shape[1] != len(self.categories_):
            raise ValueError(
                f"X has {X.shape[1]} features, but the model was fitted on {len(self.categories_)}."
            )
        codes = np.empty(X.shape, dtype=np.intp)
        for j, values in enumerate(self.categories_):
            codes[:, j] = value_codes(values, X[:, j], j, self.unseen, self._indexes)
        return codes

    def describe_impossible(self, X) -> str | None:
        return (
            f"a sample has probability zero in every class with alpha={self.alpha!r} (a "
            "value, or a combination of values, never seen with any class). Set alpha > 0 "
            "(alpha=1 is Laplace smoothing) so that such values keep a small probability."
        )

    # ----------------------------------------------------------------- sampling, text
    def _values(self, codes: np.ndarray, rng) -> np.ndarray:
        """Rows of codes (n, d) as values; a binned column uniformly within its bin."""
        cats = self.categories_
        if all(numeric(c) for c in cats if c.size):
            out = np.full(codes.shape, np.nan)
        else:
            out = np.empty(codes.shape, dtype=object)
        for j, values in enumerate(cats):
            edges = self.bin_edges_[j]
            if values.size == 0:
                out[:, j] = np.nan if out.dtype.kind == "f" else None
            elif edges is None:
                out[:, j] = values[codes[:, j]]
            elif j not in self._bin_bounds:  # no value in the batch the bins came from
                out[:, j] = np.nan if out.dtype.kind == "f" else None
            else:
                lo, hi = self._bin_bounds[j]
                cuts = np.concatenate([[lo], edges, [hi]])
                b = values[codes[:, j]].astype(np.intp)
                out[:, j] = cuts[b] + rng.random(b.size) * (cuts[b + 1] - cuts[b])
        return out

    def _draw(self, codes, rows, j, parents, table, rng, c) -> None:
        """Draw feature j of ``rows`` of class c from ``table`` (O_pa..., O_j) given parents."""
        if table.shape[-1] == 0:  # never observed in training: comes out missing
            return
        if table.size == 0:  # a parent never observed: the child's own distribution
            table, parents = proba(self.stats_.single(j), self.alpha)[c], ()
        p = table.reshape(-1, table.shape[-1])[
            flat_index(codes[rows][:, list(parents)], table.shape[:-1])
        ]
        cdf = np.cumsum(p, axis=1)
        pick = (rng.random(rows.size)[:, None] * cdf[:, -1:] >= cdf).sum(axis=1)
        codes[rows, j] = pick.clip(max=table.shape[-1] - 1)

    def _header(self, feature_names) -> list[str]:
        lines = [
            f"{self.title}, alpha={self.alpha!r}, unseen={self.unseen!r}, "
            f"discretize={self.discretize!r}"
        ]
        for j, e in enumerate(self.bin_edges_):
            if e is not None:
                cuts = ", ".join(f"{c:.6g}" for c in e.tolist()) or "none (one bin)"
                lines.append(f"  {feature_names[j]}: {e.size + 1} bins, cut points {cuts}")
        return lines

    def _describe_structure(self, parents, feature_names) -> list[str]:
        lines = ["  structure (each attribute <- its parents; the class is a parent of all):"]
        for j, pa in enumerate(parents):
            names = ", ".join(["class", *(str(feature_names[p]) for p in pa)])
            lines.append(f"    {feature_names[j]} <- {names}")
        return lines


# ----------------------------------------------------------------- block tasks (Dask)
def bin_columns(X: np.ndarray, edges) -> np.ndarray:
    """``X`` with each column that has edges (not None) replaced by its bin numbers."""
    if all(e is None for e in edges):
        return X
    X = X.astype(np.float64) if numeric(X) else X.copy()
    for j, e in enumerate(edges):
        if e is not None:
            X[:, j] = apply_cuts(X[:, j], e)
    return X


def _column_summary(column, y, n_classes, w, method) -> tuple:
    """``(real, floats, example, distinct)`` of one column of a block: whether every value
    present is a real number (no boolean), whether one is a float (both as in
    ``is_float_column``), the first one that is not a whole number (``is_continuous``)
    or None, and while real the ``distinct_table`` of the values in rows of positive
    weight. Summaries of blocks merge (:func:`_merge_columns`) into the whole column's."""
    kind = column.dtype.kind
    if kind not in "fO":  # integers, booleans: never binned, never continuous
        return False, False, None, None
    missing = missing_mask(column)
    present = column[~missing]
    floats = True
    if kind == "O":
        items = present.tolist()
        if not all(_real(v) for v in items):
            return False, False, None, None
        floats = any(isinstance(v, (float, np.floating)) for v in items)
    values = present.astype(np.float64)
    with np.errstate(invalid="ignore"):
        odd = np.flatnonzero(~np.isfinite(values) | (values != np.floor(values)))
    example = present[odd[0]] if odd.size else None
    seen = ~missing if w is None else ~missing & (w > 0)
    weights = None if w is None else w[seen]
    distinct = distinct_table(column[seen].astype(np.float64), y[seen], n_classes, weights, method)
    return True, floats, example, distinct


def _block_columns(part, n_classes, method):
    """Per column of a checked block its :func:`_column_summary`."""
    X, y, w = part
    X = value_table(X)
    y = np.asarray(y, dtype=np.intp)
    w = None if w is None else np.asarray(w, dtype=np.float64)
    return [_column_summary(X[:, j], y, n_classes, w, method) for j in range(X.shape[1])]


def _merge_columns(a, b=None):
    if a is None or b is None:
        return b if a is None else a
    out = []
    for (ra, fa, ea, da), (rb, fb, eb, db) in zip(a, b, strict=True):
        real = ra and rb
        example = ea if ea is not None else eb  # the earlier block's: the first in order
        out.append((real, fa or fb, example, merge_distinct(da, db) if real else None))
    return out


def _block_pairs(part, like, n_classes):
    """The pair counts of a checked block, binned with ``like.bin_edges_`` when set (its
    continuous columns checked on all the data already), else as ``statistics`` does."""
    X, y, w = part
    like = copy.deepcopy(like)  # without bins, _discrete_table sets them (all None)
    y = np.asarray(y, dtype=np.intp)
    w = None if w is None else np.asarray(w, dtype=np.float64)
    check = getattr(like, "bin_edges_", None) is None
    categories, codes = encode_table(like._discrete_table(X, y, n_classes, w, check), w)
    return count_pairs(categories, codes, y, n_classes, w)


def _merge(a, b=None):
    return b if a is None else a if b is None else a.merge(b)


def _block_count(part, edges, categories, count):
    """``count(codes, y, w)`` of a checked block, its codes those of ``categories`` (the
    values of all the blocks), binned with ``edges``."""
    X, y, w = part
    y = np.asarray(y, dtype=np.intp)
    w = None if w is None else np.asarray(w, dtype=np.float64)
    seen_values, codes = encode_table(bin_columns(value_table(X), edges), w)
    for j, values in enumerate(seen_values):
        seen = codes[:, j] >= 0
        if seen.any():
            codes[seen, j] = lookup(categories[j], values, j)[codes[seen, j]]
    return count(codes, y, w)


def _add_counts(a, b=None):
    if a is None or b is None:
        return b if a is None else a
    return {key: a[key] + b[key] for key in a}
