"""Validation at the boundary: data, labels and weights, with messages that name the fix."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, column_or_1d, validate_data


def _as_numeric(estimator, X, y="no_validation", *, reset: bool, min_samples: int = 1):
    """Run scikit-learn's validation, turning its conversion errors into clearer ones."""
    options = {"reset": reset, "dtype": [np.float64, np.float32], "ensure_all_finite": True}
    if not (isinstance(y, str) and y == "no_validation"):
        options["ensure_min_samples"] = min_samples
    try:
        return validate_data(estimator, X, y, **options)
    except ValueError as exc:
        if "could not convert" in str(exc):
            raise ValueError(
                f"X must be numeric for {type(estimator).__name__} ({exc}); encode "
                "categorical columns as numbers first."
            ) from exc
        raise


def validate_X(estimator, X, *, reset: bool = False) -> np.ndarray:
    """Check X: 2-D, numeric, finite, and with the fitted number of features."""
    return _as_numeric(estimator, X, reset=reset)


def validate_Xy(estimator, X, y, *, reset: bool = True, min_samples: int = 2):
    """Check X and y together; y must hold classification labels of matching length."""
    X, y = _as_numeric(estimator, X, y, reset=reset, min_samples=min_samples)
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    return X, y


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
