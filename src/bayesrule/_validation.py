"""Validation at the boundary: data, labels and weights, with messages that name the fix."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, column_or_1d, validate_data

from ._finite import (
    _all_finite,
    check_magnitude,
    first_cell,
    infinity_error,
    refuse_nonfinite,
)

#: what a likelihood family accepts as X (its ``input_kind``):
#: "dense": finite floats; "missing": floats where NaN marks a missing value;
#: "sparse": as "missing", or a scipy sparse matrix (CSR); "any": a table of any
#: hashable values (strings, booleans, numbers, categoricals), missing as NaN/None/NA.
INPUT_KINDS = ("dense", "missing", "sparse", "any")


def check_integer(name: str, value, low: int, high: int | None = None, *, kind=None, why=None):
    """``value`` as an int with ``low <= value`` (and ``value < high``), else a
    TypeError (not an integer; booleans are not) or ValueError naming ``name``.

    ``kind`` says what is expected (default: the range), ``why`` replaces the
    ValueError's message where the range needs explaining.
    """
    if kind is None:
        kind = f"an integer >= {low}" if high is None else f"an integer from {low} to {high - 1}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {kind}, got {value!r}")
    if value < low or (high is not None and value >= high):
        raise ValueError(why or f"{name} must be {kind}, got {value!r}")
    return int(value)


def check_nonnegative(name: str, value, hint: str = "") -> float:
    """``value`` as a finite float >= 0, or TypeError/ValueError naming ``name`` (the
    ValueError adds ``hint``, e.g. what the values mean)."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number >= 0, got {value!r}")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0{hint}, got {value!r}")
    return float(value)


def column_position(name: str, value, d: int, columns=None, *, names: bool = True) -> int:
    """The position of the column ``value`` gives: a name among ``columns`` (X's column
    names; None when X has none) or an integer position below ``d``; else a ValueError
    or TypeError naming ``name``. The one place column names become positions.
    ``names=False`` where only positions can be given (a likelihood sees no names)."""
    if isinstance(value, str):
        if not names:
            raise TypeError(
                f"{name} must be a column position (an int) here, got {value!r}; column "
                "names work through the estimators (e.g. TAN(root=...), SPODE(parent=...))."
            )
        if columns is None:
            raise ValueError(
                f"{name}={value!r} names a column, but X has no column names; pass a column "
                "position (an int) or fit on a DataFrame."
            )
        columns = list(columns)
        if value not in columns:
            raise ValueError(
                f"{name}={value!r} is not among the columns of X ({', '.join(map(str, columns))})."
            )
        return columns.index(value)
    why = f"{name}={value!r} is not among the columns: X has {d} features (positions 0 to {d - 1})."
    return check_integer(name, value, 0, d, kind="a column position or name", why=why)


def _as_numeric(
    estimator, X, y="no_validation", *, reset: bool, min_samples: int, kind: str, limit=np.inf
):
    """Run scikit-learn's validation, turning its conversion errors into clearer ones.

    Finiteness (and the likelihood's ``limit`` on magnitudes) is checked here (see
    ``_all_finite``), with scikit-learn's own check raising its message where a value is
    not finite.
    """
    options = {"reset": reset, "dtype": [np.float64, np.float32], "ensure_all_finite": False}
    if kind == "sparse":
        options["accept_sparse"] = "csr"
    if not (isinstance(y, str) and y == "no_validation"):
        options["ensure_min_samples"] = min_samples
    try:
        checked = validate_data(estimator, X, y, **options)
    except ValueError as exc:
        if "could not convert" in str(exc):
            raise ValueError(
                f"X must be numeric for {type(estimator).__name__} ({exc}); encode "
                "categorical columns as numbers first, or use CategoricalNB or MixedNB."
            ) from exc
        raise
    X_checked = checked[0] if isinstance(checked, tuple) else checked
    allow_nan = kind != "dense"
    values = X_checked.data if sp.issparse(X_checked) else X_checked
    if not _all_finite(values, allow_nan, limit):
        name = type(estimator).__name__
        refuse_nonfinite(X_checked, allow_nan, name)
        check_magnitude(X_checked, limit, name)
    return checked


def validate_X(estimator, X, *, reset: bool = False, kind: str = "dense", limit=np.inf):
    """Check X for a likelihood's ``input_kind`` (and magnitude ``limit``, its
    ``largest_magnitude``), with the fitted number of features."""
    if kind == "any":
        table = as_table(X, min_samples=1)
        validate_data(estimator, X, reset=reset, skip_check_array=True)
        return table
    return _as_numeric(estimator, X, reset=reset, min_samples=1, kind=kind, limit=limit)


def validate_Xy(
    estimator, X, y, *, reset: bool = True, min_samples: int = 2, kind: str = "dense", limit=np.inf
):
    """Check X and y together; y must hold classification labels of matching length."""
    if kind == "any":
        table = as_table(X, min_samples=min_samples)
        validate_data(estimator, X, reset=reset, skip_check_array=True)
        X = table
        y = column_or_1d(np.asarray(y), warn=True)
        if y.dtype.kind in "fc":
            assert_all_finite(y, input_name="y")
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: {X.shape[0]} "
                f"row{'s' * (X.shape[0] != 1)} and {y.shape[0]} label{'s' * (y.shape[0] != 1)}."
            )
    else:
        X, y = _as_numeric(
            estimator, X, y, reset=reset, min_samples=min_samples, kind=kind, limit=limit
        )
        y = column_or_1d(y, warn=True)
    if not (y.ndim == 1 and y.dtype.kind in "biu"):  # integers are always class labels
        check_classification_targets(y)
    return X, y


# --------------------------------------------------------------------------- tables
def as_table(X, *, min_samples: int = 1) -> np.ndarray:
    """A 2-D array of any hashable values: numeric columns stay numeric (missing as
    NaN), anything else becomes an object array whose missing cells are None, NaN or NA.

    Raises ValueError for a wrong shape, too few rows or an infinite number, and
    TypeError for sparse matrices.
    """
    if sp.issparse(X):
        raise TypeError(
            "categorical data cannot be a sparse matrix; pass a dense array or a DataFrame."
        )
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a pandas DataFrame
        types = [column_type(dt) for dt in X.dtypes]
        if types and all(t == "float" for t in types):
            table = X.to_numpy(dtype=np.float64, na_value=np.nan)
        elif types and all(
            t == "integer" and isinstance(dt, np.dtype)
            for t, dt in zip(types, X.dtypes, strict=True)
        ):
            table = X.to_numpy()  # integers stay exact (no float rounding of large codes)
        else:  # one object column at a time keeps each value's type; NA stays missing
            table = np.empty(X.shape, dtype=object)
            for j in range(X.shape[1]):
                table[:, j] = X.iloc[:, j].astype(object).to_numpy()
    else:
        table = np.asarray(X)
        if table.dtype.kind in "USV":
            table = table.astype(object)
        elif table.dtype.kind == "c":
            raise ValueError("Complex data not supported: X has complex values.")
        elif table.dtype.kind not in "fiubO":
            table = table.astype(object)
    if table.ndim != 2:
        raise ValueError(
            f"Expected a 2D array, got {table.ndim}D array instead. Reshape your data "
            "either using array.reshape(-1, 1) for a single feature or "
            "array.reshape(1, -1) for a single sample."
        )
    n, d = table.shape
    if n < min_samples:
        raise ValueError(
            f"Found array with {n} sample(s) (shape={table.shape}) while a minimum of "
            f"{min_samples} is required."
        )
    if d < 1:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={table.shape}) while a minimum of 1 is required."
        )
    _check_no_infinity(table)
    return table


def column_type(dtype) -> str | None:
    """How a DataFrame column's dtype reads: "float", "integer", "categorical" (bool,
    category, object, string) or None (dates, complex numbers, ...)."""
    text = str(dtype)
    kind = getattr(dtype, "kind", "O")
    if text in ("category", "boolean") or text.startswith("string") or kind in "bOUS":
        return "categorical"
    if kind == "f":
        return "float"
    if kind in "iu":
        return "integer"
    return None


def _check_no_infinity(table: np.ndarray) -> None:
    if table.dtype.kind == "f":
        bad = np.isinf(table)
    elif table.dtype.kind == "O":
        bad = np.fromiter(
            (isinstance(v, (float, np.floating)) and np.isinf(v) for v in table.flat),
            dtype=bool,
            count=table.size,
        ).reshape(table.shape)
    else:
        return
    if bad.any():
        raise infinity_error(*first_cell(table, bad))


def missing_mask(values: np.ndarray) -> np.ndarray:
    """True where a value is missing: NaN, None, pandas NA or NaT."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind != "O":
        return np.zeros(values.shape, dtype=bool)
    flat = values.ravel()
    out = np.fromiter((_is_missing(v) for v in flat), dtype=bool, count=flat.size)
    return out.reshape(values.shape)


def _is_missing(v) -> bool:
    if v is None:
        return True
    if isinstance(v, (float, np.floating)):
        return v != v
    name = type(v).__name__
    return name in ("NAType", "NaTType")


def check_sample_weight(sample_weight, X) -> np.ndarray | None:
    """Non-negative finite weights of length n, or None for unit weights."""
    if sample_weight is None:
        return None
    return _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)


def unique_labels_sorted(y) -> np.ndarray:
    """The sorted distinct labels of y, with a TypeError for mixed label types."""
    try:
        return np.unique(y)
    except TypeError as exc:
        raise TypeError(
            f"labels y mix types that cannot be ordered ({exc}); use labels of one type."
        ) from exc


def fit_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct labels of y and each sample's index among them.

    Small integer labels take an O(n) path (counts instead of a sort).
    """
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low <= 4 * y.size + 1024:
            present = np.bincount(y - low, minlength=high - low + 1) > 0
            classes = np.flatnonzero(present) + low
            position = np.cumsum(present) - 1
            return classes.astype(y.dtype), position[y - low]
    classes = unique_labels_sorted(y)
    return classes, np.searchsorted(classes, y)


def encode_labels(y, classes: np.ndarray, *, name: str = "y") -> np.ndarray:
    """Indices of the labels ``y`` in ``classes``; unknown labels raise ValueError."""
    y = np.asarray(y)
    lookup = {label: i for i, label in enumerate(classes.tolist())}
    try:
        idx = np.fromiter((lookup.get(v, -1) for v in y.tolist()), dtype=np.intp, count=y.size)
    except TypeError:  # unhashable labels
        idx = np.full(y.size, -1, dtype=np.intp)
    if (idx < 0).any():
        unknown = sorted({str(v) for v, i in zip(y.tolist(), idx, strict=True) if i < 0})
        raise ValueError(
            f"{name} contains labels not among the classes {classes.tolist()}: "
            f"{unknown[:10]}; refit with all classes, or pass classes= to the first "
            "partial_fit call."
        )
    return idx


def is_numeric_labels(classes: np.ndarray) -> bool:
    """Whether class labels are numbers (the reject label then defaults to -1)."""
    if classes.dtype.kind in "biuf":
        return True
    return all(isinstance(c, numbers.Number) and not isinstance(c, bool) for c in classes.tolist())


def as_float_block(X, *, sparse: bool = False):
    """A column block of a table as floats, missing values (None, NA) as NaN.

    Sparse matrices pass through when ``sparse``; non-numeric values raise ValueError.
    """
    if sp.issparse(X):
        if not sparse:
            raise TypeError("this family needs dense data; pass a dense array.")
        return X
    X = np.asarray(X)
    if X.dtype.kind in "fiub":
        return X.astype(np.float64, copy=False)
    out = np.empty(X.shape, dtype=np.float64)
    missing = missing_mask(X)
    out[missing] = np.nan
    try:
        out[~missing] = X[~missing].astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"a numeric column block holds values that are not numbers ({exc}); model "
            "those columns as categorical instead."
        ) from exc
    return out


def check_class_counts(classes: np.ndarray, counts: np.ndarray) -> None:
    """ValueError naming the classes whose total sample weight is zero."""
    if (counts <= 0).any():
        raise ValueError(
            f"classes {classes[counts <= 0].tolist()} have zero total sample_weight; "
            "give them positive weights or leave them out of y."
        )
