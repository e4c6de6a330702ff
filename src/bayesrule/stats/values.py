"""Discrete values of table columns: sorting, encoding as codes, and lookup at prediction.

Shared by the categorical and the semi-naive families. A column's values may be
strings, booleans, numbers, pandas categories or a mix of these; missing entries (NaN,
None, pandas NA) are never values. Codes index the sorted distinct values seen in
training; at prediction a value never seen gets the code ``O_j`` (under
``unseen="smooth"``) and a missing or ignored one ``O_j + 1``.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_table, missing_mask

#: what a value never seen in training may do (the ``unseen`` parameter)
UNSEEN = ("smooth", "ignore", "error")


def value_table(X) -> np.ndarray:
    """``X`` as a 2-D table of values: numeric arrays stay numeric, anything else object."""
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "biufO":
        return X
    return as_table(X, min_samples=0)


def check_unseen(unseen) -> str:
    """``unseen`` as one of :data:`UNSEEN`, or ValueError naming it."""
    if not isinstance(unseen, str) or unseen not in UNSEEN:
        raise ValueError(f"unseen must be one of {', '.join(map(repr, UNSEEN))}, got {unseen!r}")
    return unseen


def numeric(a: np.ndarray) -> bool:
    return a.dtype.kind in "biuf"


def sorted_values(values) -> np.ndarray:
    """Distinct hashable values as a sorted object array (by type name where mixed)."""
    values = list(values)
    for key in (None, lambda v: (type(v).__name__, v), lambda v: (type(v).__name__, repr(v))):
        try:
            values.sort(key=key)
            break
        except TypeError:
            continue
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def unhashable(j: int, values, exc: Exception) -> TypeError:
    bad = next((v for v in values if getattr(type(v), "__hash__", None) is None), None)
    return TypeError(
        f"feature {j} holds the unhashable value {bad!r} ({type(bad).__name__}): each "
        "category argument must be a string or a number (or another hashable value) "
        f"({exc})."
    )


def union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sorted distinct values of both arrays."""
    if a.size == 0:
        return b
    if b.size == 0:
        return a
    if numeric(a) and numeric(b):
        return np.union1d(a, b)
    return sorted_values(dict.fromkeys([*a.tolist(), *b.tolist()]))


def lookup(categories: np.ndarray, values: np.ndarray, j: int, index=None) -> np.ndarray:
    """Position of each (observed) value among ``categories``; -1 where unseen.

    ``index`` may give the mapping value -> position of ``categories`` (built if None).
    """
    if categories.size == 0:
        return np.full(values.shape[0], -1, dtype=np.intp)
    if numeric(categories) and numeric(values):
        pos = np.searchsorted(categories, values).clip(max=categories.size - 1)
        return np.where(categories[pos] == values, pos, -1)
    if index is None:
        index = {v: i for i, v in enumerate(categories.tolist())}
    items = values.tolist()
    try:
        return np.fromiter((index.get(v, -1) for v in items), dtype=np.intp, count=len(items))
    except TypeError as exc:
        raise unhashable(j, items, exc) from exc


def encode(column: np.ndarray, j: int, keep=None):
    """Sorted distinct values of a column, each kept value's code, and the kept mask."""
    observed = ~missing_mask(column)
    if keep is not None:
        observed &= keep
    values = column if observed.all() else column[observed]
    if numeric(column):
        small = _small_integers(values)
        if small is not None:
            return (*small, observed)
        categories, codes = np.unique(values, return_inverse=True)
        return categories, codes.ravel(), observed
    index: dict = {}
    items = values.tolist()
    try:
        first = np.fromiter(
            (index.setdefault(v, len(index)) for v in items), dtype=np.intp, count=len(items)
        )
    except TypeError as exc:
        raise unhashable(j, items, exc) from exc
    categories = sorted_values(index)
    rank = np.empty(len(index), dtype=np.intp)
    rank[[index[v] for v in categories.tolist()]] = np.arange(len(index))
    return categories, rank[first], observed


def _small_integers(values: np.ndarray):
    """``np.unique(values, return_inverse=True)`` of integers (or floats that are
    integers, below 2**52) spanning a range of at most a few times their number, by
    counting instead of sorting (linear time: a table's codes took most of a semi-naive
    fit); None otherwise."""
    if values.size == 0 or values.dtype.kind not in "iuf":
        return None
    low, high = values.min(), values.max()
    if values.dtype.kind == "f" and not (-(2.0**52) < low <= high < 2.0**52):
        return None  # also NaN, inf
    span = int(high) - int(low)
    if span > max(4 * values.size, 256) or int(high) >= 2**63:
        return None
    if values.dtype.kind == "f":
        shifted = values - low
        whole = shifted.astype(np.intp)
        if not np.array_equal(whole, shifted):
            return None  # not integers
    else:
        whole = values.astype(np.int64) - np.int64(low)
    present = np.bincount(whole, minlength=span + 1) > 0
    rank = np.cumsum(present) - 1
    categories = (np.flatnonzero(present) + low).astype(values.dtype)
    return categories, rank[whole]


def value_codes(categories: np.ndarray, column: np.ndarray, j: int, unseen: str, indexes: dict):
    """Codes of a column at prediction: the value's position, ``O_j`` for a value never
    seen (``unseen="smooth"``), ``O_j + 1`` for a missing or ignored one; ``"error"``
    raises ValueError naming the feature and the value. ``indexes`` caches the
    value -> position mapping of non-numeric features, keyed by ``j``."""
    size = categories.size
    missing = missing_mask(column)
    codes = np.full(column.shape[0], size + 1, dtype=np.intp)
    observed = column[~missing]
    index = indexes.get(j)
    if index is None and not numeric(categories):
        index = indexes[j] = {v: i for i, v in enumerate(categories.tolist())}
    found = lookup(categories, observed, j, index)
    new = found < 0
    if new.any() and unseen == "error":
        value = observed[np.flatnonzero(new)[0]]
        raise ValueError(
            f"feature {j} has the value {value!r}, never seen in training (seen: "
            f"{preview(categories)}); use unseen='smooth' or 'ignore' to allow new "
            "values, or refit with data that contain it."
        )
    found[new] = size if unseen == "smooth" else size + 1
    codes[~missing] = found
    return codes


def preview(values: np.ndarray, limit: int = 10) -> str:
    shown = ", ".join(map(repr, values[:limit].tolist()))
    return shown + (f", ... ({values.size - limit} more)" if values.size > limit else "")
