"""Binning of continuous columns, shared by every family over discrete values.

:class:`Binning` is the mechanism :class:`~bayesrule.likelihoods.Categorical` and the
semi-naive families (:mod:`~bayesrule.likelihoods.discrete.network`) use for their
``discretize`` and ``n_bins`` parameters: bins learned on the rows of ``fit`` (on the
first batch of ``partial_fit``), applied to every table the family evaluates, and on a
Dask collection learned in a first pass over its blocks (each column's distinct values
and their class weights add up over blocks), so the bins are those of the data in memory.

Which columns are binned, and how (integer, boolean and text columns never are):

* ``"auto"``: the float columns that are continuous (a value not a whole number) or
  whose whole numbers take more than sqrt(n) values
  (:func:`~bayesrule.likelihoods.discrete.discretize.binned_by_auto`), by Fayyad and
  Irani's supervised MDL cut points, as Weka discretises numeric attributes before its
  AODE; float codes (OrdinalEncoder output, 0/1 flags, pixel levels) stay values;
* ``"mdl"``, ``"quantile"``: every float column, by MDL or by ``n_bins``
  equal-frequency bins;
* None: none; a continuous column is refused with a ValueError.
"""

from __future__ import annotations

import copy

import numpy as np

from ..._validation import missing_mask
from ...stats.values import numeric, value_table
from .discretize import (
    _real,
    apply_cuts,
    binned_by_auto,
    check_discretize,
    cut_method,
    distinct_table,
    is_continuous,
    merge_distinct,
    table_cuts,
)


class Binning:
    """Mixin of the families over discrete values (before ``Likelihood`` in the bases):
    ``discretize`` and ``n_bins``, ``bin_edges_`` and the passes of :meth:`fit_blocks`.

    A family provides ``title``, ``_check_params()``, ``statistics(X, y, C, w)`` that
    takes its table from :meth:`_discrete_table`, and ``set_statistics(stats)``.
    """

    title = "a model of discrete values"

    def check_state(self, n_classes: int, n_features: int) -> None:
        """As the family's, and the bins (not derived from the statistics) checked: one
        entry per feature, None or finite, strictly increasing cut points, with the
        finite range of the values seen (``_bin_bounds``) for each binned column; and the
        parameters (a file's may be edited where the state is not derived again)."""
        self._check_params()
        super().check_state(n_classes, n_features)
        edges = getattr(self, "bin_edges_", None)
        if edges is None:  # a model saved before binning
            return
        if not isinstance(edges, list) or len(edges) != n_features:
            raise ValueError(f"bin_edges_ is not a list of {n_features} entries")
        bounds = getattr(self, "_bin_bounds", {})
        for j, cuts in enumerate(edges):
            if cuts is None:
                continue
            if not (
                isinstance(cuts, np.ndarray)
                and cuts.ndim == 1
                and cuts.dtype.kind == "f"
                and np.isfinite(cuts).all()
                and (np.diff(cuts) > 0).all()
            ):
                raise ValueError(f"bin_edges_[{j}] are not increasing finite cut points")
            low, high = bounds.get(j, (0.0, 0.0)) if isinstance(bounds, dict) else (0, np.nan)
            if not (np.isfinite([low, high]).all() and low <= high):
                raise ValueError(f"the range of the values seen in feature {j} is not finite")

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
                "bins are learned on the first batch of partial_fit, where it was not binned "
                "(no float column, or whole numbers of few values under discretize='auto'); "
                "fit at once, or pass discretize='mdl' and that column as floats throughout."
            )
        return ValueError(
            f"feature {j} holds continuous values (e.g. {value!r}), but {self.title} models "
            "discrete values with discretize=None: pass discretize='auto' (supervised MDL cut "
            "points of the continuous columns, as Weka), 'mdl' or 'quantile' (n_bins "
            "equal-frequency bins) for every float column, or bin the column yourself."
        )

    def _bins_from(self, summary: list) -> None:
        """``bin_edges_`` from the column summaries of all the rows (:func:`_block_columns`
        of every block, merged); a continuous column left unbinned is refused as
        :meth:`_discrete_table` refuses it."""
        method, n_bins = check_discretize(self.discretize, self.n_bins)
        edges, bounds = [None] * len(summary), {}
        for j, (real, floats, example, distinct) in enumerate(summary):
            if not (real and floats):  # is_float_column of the whole column
                continue
            u, table = distinct
            if method != "auto" or binned_by_auto(example is not None, u.size, table.sum()):
                edges[j] = table_cuts(u, table, cut_method(method), n_bins)
                if u.size:
                    bounds[j] = (float(u[0]), float(u[-1]))
        for j, (real, _, example, _) in enumerate(summary):
            if edges[j] is None and real and example is not None:  # is_continuous
                raise self._continuous_error(np.array([example], dtype=object), j)
        self.bin_edges_, self._bin_bounds = edges, bounds

    def _binned(self, X) -> np.ndarray:
        """``X`` (coerced) with the binned columns as bin numbers."""
        edges = getattr(self, "bin_edges_", None)  # None: a model saved before binning
        return X if edges is None else bin_columns(X, edges)

    def _discrete_table(self, X, y, n_classes, w, check: bool = True) -> np.ndarray:
        """The training table with continuous columns binned (bins learned on the first);
        ``check=False`` (or ``_checked`` set: bins learned over all the blocks) skips the
        refusal of unbinned continuous columns (made already)."""
        check = check and not self.__dict__.get("_checked", False)
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

    def _unbin(self, out: np.ndarray, rng) -> np.ndarray:
        """Drawn rows (values; bin numbers in binned columns) with each binned column's
        bin numbers replaced by values drawn uniformly within the bin (missing where the
        bins came from no value)."""
        for j, edges in enumerate(getattr(self, "bin_edges_", None) or ()):
            if edges is None:
                continue
            if j not in self._bin_bounds:  # no value in the batch the bins came from
                out[:, j] = np.nan if out.dtype.kind == "f" else None
                continue
            lo, hi = self._bin_bounds[j]
            cuts = np.concatenate([[lo], edges, [hi]])
            drawn = np.asarray(out[:, j], dtype=np.float64)
            rows = np.flatnonzero(~np.isnan(drawn))  # a bin number; else missing
            b = drawn[rows].astype(np.intp)
            out[rows, j] = cuts[b] + rng.random(b.size) * (cuts[b + 1] - cuts[b])
        return out

    def _bin_lines(self, feature_names) -> list[str]:
        """The readable lines of the binned columns."""
        lines = []
        for j, e in enumerate(getattr(self, "bin_edges_", None) or ()):
            if e is not None:
                cuts = ", ".join(f"{c:.6g}" for c in e.tolist()) or "none (one bin)"
                lines.append(f"  {feature_names[j]}: {e.size + 1} bins, cut points {cuts}")
        return lines

    # ----------------------------------------------------------------- Dask
    def blockwise_reason(self) -> str | None:
        if self.discretize is not None:  # not refused: fit_blocks makes the passes
            return "discretize= learns its bins in a first pass over all the data"
        return super().blockwise_reason()

    def _after_statistics(self, blocks, stats) -> None:
        """What ``fit_blocks`` keeps for ``set_statistics`` besides the statistics."""

    def fit_blocks(self, blocks, n_classes):
        """Fit on row blocks (a :class:`~bayesrule._blocks.Blocks` of ``(X, y, w)``, ``y``
        class positions), equal to ``fit`` on all of them: with ``discretize``, a first
        pass for every float column's distinct values and their class weights
        (:func:`~bayesrule.likelihoods.discrete.discretize.distinct_table`), cut into bins
        as in memory; then the statistics of the binned blocks, merged."""
        self._check_params()
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
            stats = blocks.map_reduce(_block_statistics, _merge, self, n_classes)
            if stats is None:
                raise ValueError(empty)
            self._after_statistics(blocks, stats)
            return self.set_statistics(stats)
        finally:
            self.__dict__.pop("_rows", None)


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
    distinct = distinct_table(
        column[seen].astype(np.float64), y[seen], n_classes, weights, cut_method(method)
    )
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


def _block_statistics(part, like, n_classes):
    """The statistics of a checked block, binned with ``like.bin_edges_`` when set (its
    continuous columns checked on all the data already), else as ``statistics`` does."""
    X, y, w = part
    like = copy.deepcopy(like)  # without bins, _discrete_table sets them (all None)
    like._checked = getattr(like, "bin_edges_", None) is not None  # on all the rows
    return like.statistics(X, y, n_classes, w)


def _merge(a, b=None):
    return b if a is None else a if b is None else a.merge(b)
