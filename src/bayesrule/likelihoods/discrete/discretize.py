"""Discretisation of continuous columns for the models of discrete values.

Two ways to choose the inner cut points of one column (which columns are binned:
:mod:`~bayesrule.likelihoods.discrete.binning`):

* ``"quantile"``: equal-frequency bins, weighted. With ``u_1 < ... < u_m`` the distinct
  values, ``S_i`` the cumulative weight up to ``u_i`` and ``S`` the total, the q-th cut
  (q = 1 .. n_bins - 1) lies midway between ``u_i`` and ``u_{i+1}`` for the smallest i
  with ``S_i >= q S / n_bins``; repeated cuts collapse, so ties give fewer bins.
* ``"mdl"``: the supervised, recursive entropy split of Fayyad & Irani (1993) with their
  MDL stopping rule, as Weka's ``weka.filters.supervised.attribute.Discretize`` does by
  default. A binary cut minimising the weighted class entropy is kept only when

      Gain > (log2(N - 1) + Delta) / N,
      Delta = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)],

  N the weight of the set S and k, k1, k2 the numbers of classes present in S, S1, S2;
  both halves are then split again. ``n_bins`` plays no part.

Weights act as counts in both (integer weights give the cuts of duplicated rows), and
rows of weight zero are dropped first. Bin b of edges ``e`` holds ``e[b-1] <= x < e[b]``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..._validation import check_integer, missing_mask

#: the values of the ``discretize`` parameter (besides None)
METHODS = ("auto", "mdl", "quantile")


def cut_method(discretize: str) -> str:
    """How the cut points of a binned column are chosen: ``"auto"`` by ``"mdl"``.

    Examples
    --------
    >>> cut_method("auto"), cut_method("quantile")
    ('mdl', 'quantile')
    """
    return "mdl" if discretize == "auto" else discretize


#: whole-number columns with at most this many values are codes whatever the number of
#: rows (scales, levels, small counts: digits' 17 pixel levels), never binned by "auto"
CODE_VALUES = 20


def binned_by_auto(continuous: bool, n_values: int, weight: float) -> bool:
    """Whether ``discretize="auto"`` bins a float column: when it is continuous (a value
    that is not a whole number), or when its whole numbers take more than ``sqrt(n)``
    distinct values, ``n`` the weight of its observed values, and more than
    :data:`CODE_VALUES`. Yang and Webb's proportional k-interval rule gives n rows about
    sqrt(n) intervals: a column with no more values is as fine as a good discretisation
    already (codes, counts, small scores) and stays as values; one with more (whole-number
    measurements: 53 mg, 3750 g) is binned. The floor keeps a few rows of codes (a first
    ``partial_fit`` batch) from being binned as measurements.

    Examples
    --------
    >>> binned_by_auto(False, 5, 100.0), binned_by_auto(False, 21, 100.0)
    (False, True)
    >>> binned_by_auto(False, 4, 3.0), binned_by_auto(True, 2, 100.0)
    (False, True)
    """
    return continuous or n_values > max(math.sqrt(max(weight, 0.0)), CODE_VALUES)


def check_discretize(discretize, n_bins) -> tuple[str | None, int]:
    """``(discretize, n_bins)`` validated, or TypeError/ValueError naming the parameter.

    Examples
    --------
    >>> check_discretize("auto", 5)
    ('auto', 5)
    >>> check_discretize(None, 2)
    (None, 2)
    """
    if discretize is not None and not isinstance(discretize, str):
        raise TypeError(
            f"discretize must be None or one of {METHODS}, got {type(discretize).__name__} "
            f"{discretize!r}"
        )
    if discretize is not None and discretize not in METHODS:
        raise ValueError(
            f"discretize must be None (continuous columns refused) or one of {METHODS}, "
            f"got {discretize!r}"
        )
    return discretize, check_integer(
        "n_bins", n_bins, 2, kind="an integer >= 2 (the number of bins)"
    )


def _real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def is_continuous(column: np.ndarray) -> bool:
    """True when a 1-D column holds real numbers, at least one of them not an integer.

    Missing values (NaN; None and pandas NA in object columns) are ignored; an infinite
    value counts as non-integer. Integer and boolean columns are never continuous, and
    an object column is continuous only when every value present is a real number.

    Examples
    --------
    >>> is_continuous(np.array([1.0, 2.37, np.nan]))
    True
    >>> is_continuous(np.array([1.0, 2.0, np.nan])), is_continuous(np.array([1, 2]))
    (False, False)
    >>> is_continuous(np.array([0.5, None, "a"], dtype=object))
    False
    """
    column = np.asarray(column)
    kind = column.dtype.kind
    if kind == "f":
        present = column[~np.isnan(column)]
        return bool(np.any(present != np.floor(present)) or np.any(np.isinf(present)))
    if kind != "O":
        return False
    present = column[~missing_mask(column)]
    if not all(_real(v) for v in present):
        return False
    values = np.asarray(present.tolist(), dtype=float)
    return bool(np.any(~np.isfinite(values)) or np.any(values != np.floor(values)))


def is_float_column(column: np.ndarray) -> bool:
    """True for a column of floats: float dtype, or an object column whose values present
    are all real numbers (not booleans), at least one of them a float. These are the
    columns ``discretize`` bins, whole-number values (e.g. 53.0 mg) included.

    Examples
    --------
    >>> is_float_column(np.array([1.0, 2.0])), is_float_column(np.array([1, 2]))
    (True, False)
    >>> is_float_column(np.array([3, 2.5, None], dtype=object))
    True
    """
    column = np.asarray(column)
    if column.dtype.kind == "f":
        return True
    if column.dtype.kind != "O":
        return False
    present = column[~missing_mask(column)].tolist()
    return all(_real(v) for v in present) and any(
        isinstance(v, (float, np.floating)) for v in present
    )


def _distinct(values, y, n_classes, sample_weight):
    """Sorted distinct values and their (m, n_classes) class-weight table."""
    values = np.asarray(values, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    if values.ndim != 1 or y.shape != values.shape:
        raise ValueError(f"values and y must be 1-D of one length, got {values.shape}, {y.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("values to discretise must be finite: drop NaN and refuse infinity first")
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y must hold class indices 0 .. {n_classes - 1}")
    w = np.ones(values.shape) if sample_weight is None else np.asarray(sample_weight, float)
    if w.shape != values.shape:
        raise ValueError(f"sample_weight has shape {w.shape}, expected {values.shape}")
    keep = w > 0
    u, inverse = np.unique(values[keep], return_inverse=True)
    cells = np.bincount(
        inverse * n_classes + y[keep], weights=w[keep], minlength=u.size * n_classes
    )
    return u, cells.reshape(u.size, n_classes)


def _entropy(counts: np.ndarray) -> np.ndarray:
    """Class entropy in bits of each row of a count table (0 for an empty row)."""
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    logp = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logp).sum(axis=-1)


def _quantile_cuts(u: np.ndarray, weight: np.ndarray, n_bins: int) -> np.ndarray:
    cum = np.cumsum(weight)
    if u.size < 2 or cum[-1] <= 0:
        return np.empty(0)
    thresholds = np.arange(1, n_bins) * cum[-1] / n_bins
    i = np.searchsorted(cum, thresholds * (1 - 1e-12), side="left")
    i = np.unique(i[i < u.size - 1])
    return (u[i] + u[i + 1]) / 2


def _mdl_cuts(u: np.ndarray, table: np.ndarray) -> list[float]:
    """Fayyad-Irani recursion over distinct values ``u`` with class-weight ``table``."""
    cum = np.vstack([np.zeros(table.shape[1]), np.cumsum(table, axis=0)])
    cuts, stack = [], [(0, u.size)]  # half-open ranges of distinct-value indices
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 2:
            continue
        whole = cum[hi] - cum[lo]
        left = cum[lo + 1 : hi] - cum[lo]  # candidate cut after each index lo .. hi-2
        right = whole - left
        n, n1, n2 = whole.sum(), left.sum(axis=1), right.sum(axis=1)
        e1, e2 = _entropy(left), _entropy(right)
        cond = (n1 * e1 + n2 * e2) / n
        best = int(np.flatnonzero(cond <= cond.min() + 1e-12)[0])  # ties: smallest cut
        ent = float(_entropy(whole))
        gain = ent - cond[best]
        k, k1, k2 = (int(np.count_nonzero(c > 0)) for c in (whole, left[best], right[best]))
        delta = math.log2(3**k - 2) - (k * ent - k1 * e1[best] - k2 * e2[best])
        if n <= 1 or gain <= 1e-12 or not gain > (np.log2(n - 1) + delta) / n:
            continue
        cuts.append((u[lo + best] + u[lo + best + 1]) / 2)
        stack += [(lo, lo + best + 1), (lo + best + 1, hi)]
    return sorted(cuts)


def cut_points(values, y, n_classes, sample_weight, method, n_bins) -> np.ndarray:
    """Sorted inner cut points (float64, possibly empty) of one continuous column.

    Parameters
    ----------
    values : (n,) float array without NaN or infinity (drop missing rows first).
    y : (n,) class indices 0 .. n_classes - 1 (used by ``"mdl"`` only).
    n_classes : int, the number of classes.
    sample_weight : None or (n,) weights >= 0; rows of weight 0 are ignored.
    method : ``"quantile"``, ``"mdl"`` or ``"auto"`` (as ``"mdl"``).
    n_bins : int >= 2, the number of equal-frequency bins (ignored by ``"mdl"``).

    Examples
    --------
    >>> cut_points(np.arange(100.0), np.zeros(100, int), 1, None, "quantile", 5)
    array([19.5, 39.5, 59.5, 79.5])
    >>> y = np.repeat([0, 1], 10)
    >>> cut_points(np.arange(20.0), y, 2, None, "mdl", 5)
    array([9.5])
    """
    method, n_bins = check_discretize(method, n_bins)
    if method is None:
        raise ValueError(f"method must be one of {METHODS}, got None")
    u, table = _distinct(values, y, n_classes, sample_weight)
    return table_cuts(u, table, cut_method(method), n_bins)


def distinct_table(values, y, n_classes, sample_weight, method) -> tuple:
    """What ``method`` needs of one column to choose its cut points: the sorted distinct
    values and their weights, per class for ``"mdl"`` ((m, n_classes)), summed over the
    classes for ``"quantile"`` ((m, 1)). Additive over row blocks: :func:`merge_distinct`
    two of them, then :func:`table_cuts` gives the cut points of all the rows."""
    u, table = _distinct(values, y, n_classes, sample_weight)
    if method == "quantile":
        table = table.sum(axis=1, keepdims=True)
    return u, table


def merge_distinct(a: tuple, b: tuple) -> tuple:
    """Two :func:`distinct_table` results as one: the union of the values, weights added.

    Examples
    --------
    >>> a = np.array([1.0, 3.0]), np.ones((2, 1))
    >>> u, t = merge_distinct(a, (np.array([3.0]), np.ones((1, 1))))
    >>> u, t.ravel()
    (array([1., 3.]), array([1., 2.]))
    """
    (ua, ta), (ub, tb) = a, b
    u = np.union1d(ua, ub)
    table = np.zeros((u.size, ta.shape[1]))
    table[np.searchsorted(u, ua)] += ta
    table[np.searchsorted(u, ub)] += tb
    return u, table


def table_cuts(u: np.ndarray, table: np.ndarray, method: str, n_bins: int) -> np.ndarray:
    """Cut points (float64) from distinct values ``u`` and their weight ``table`` (per
    class, or one column of totals for ``"quantile"``): the core of :func:`cut_points`."""
    if cut_method(method) == "quantile":
        cuts = _quantile_cuts(u, table.sum(axis=1), n_bins)
    else:
        cuts = _mdl_cuts(u, table)
    return np.asarray(cuts, dtype=np.float64)


def apply_cuts(column, edges) -> np.ndarray:
    """Bin index (0 .. len(edges)) of each entry as float64, NaN where it is missing.

    A value equal to an edge goes to the upper bin. Object columns may hold None, NaN
    or pandas NA as missing values; every other entry must be a real number.

    Examples
    --------
    >>> apply_cuts(np.array([0.0, 1.5, 2.0, np.nan, 9.0]), np.array([1.5, 3.0]))
    array([ 0.,  1.,  1., nan,  2.])
    >>> apply_cuts(np.array([None, 4.0], dtype=object), np.array([1.5, 3.0]))
    array([nan,  2.])
    """
    column = np.asarray(column)
    edges = np.asarray(edges, dtype=np.float64).ravel()
    missing = missing_mask(column)
    out = np.full(column.shape, np.nan)
    present = column[~missing]
    if column.dtype.kind == "O":
        bad = next((v for v in present if not _real(v)), None)
        if bad is not None:
            raise ValueError(
                f"cannot bin the value {bad!r} ({type(bad).__name__}): this column was "
                "continuous in training, so it must hold real numbers or missing values"
            )
    try:
        numbers_ = np.asarray(present.tolist(), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot bin a column of dtype {column.dtype}: {exc}") from exc
    out[~missing] = np.searchsorted(edges, numbers_, side="right")
    return out
