"""2-D slices of models with more features: :func:`slice_for` gives the plane of two
chosen features, the other features held at their mean (or most frequent value), as a
two-feature model every figure can draw."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..estimators import CategoricalNB
from ..report import _check_fitted

__all__ = ["Slice", "feature_positions", "slice_for"]


def feature_positions(estimator, features) -> tuple[int, int]:
    """Positions of two features given by name (``feature_names_in_``) or index.

    ``features`` is a pair, or one string ``"A,B"``; without feature names, digit
    strings are indices. Unknown names raise ValueError naming the closest ones.
    """
    import difflib

    names = getattr(estimator, "feature_names_in_", None)
    names = None if names is None else [str(v) for v in names]
    d = int(estimator.n_features_in_)
    if isinstance(features, str):
        features = [f.strip() for f in features.split(",")]
    features = list(features)
    if len(features) != 2:
        raise ValueError(f"give two features for the plane, got {len(features)}: {features}")
    out = []
    for f in features:
        if isinstance(f, str) and names is None and f.isdigit():
            f = int(f)
        if isinstance(f, (int, np.integer)) and not isinstance(f, bool):
            if not 0 <= f < d:
                raise ValueError(f"feature index {f} is out of range for {d} features.")
            out.append(int(f))
        elif isinstance(f, str) and names is not None and f in names:
            out.append(names.index(f))
        else:
            known = names if names is not None else list(range(d))
            close = difflib.get_close_matches(str(f), [str(k) for k in known], n=3)
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise ValueError(f"unknown feature {f!r}; the model's features are {known}{hint}")
    if out[0] == out[1]:
        raise ValueError(f"the two features must differ, got {features}.")
    return out[0], out[1]


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or str(v) in ("nan", "<NA>")


def _is_numeric(column) -> bool:
    dtype = getattr(column, "dtype", None)
    if dtype is not None and dtype.kind in "iuf":
        return True
    if dtype is not None and dtype.kind not in "O":
        return False
    try:
        np.asarray(column, dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def _categorical_positions(estimator, names) -> set:
    if isinstance(estimator, CategoricalNB):
        return set(range(len(names)))
    out = set()
    for family, columns in getattr(estimator, "blocks_", []):  # MixedNB
        if str(family) in ("categorical", "bernoulli"):
            out |= {c if isinstance(c, (int, np.integer)) else names.index(c) for c in columns}
    return out


class Slice:
    """A fitted classifier seen on the plane of two features, the others held fixed.

    Made by :func:`slice_for`. It has the estimator's ``classes_``, ``actions_`` and
    prediction methods (each taking ``priors=``) over 2-column inputs, so every figure
    of :mod:`bayesrule.plot` draws it; ``title`` says what is held, ``held_`` at what.
    """

    def __init__(self, estimator, features, columns, held, title):
        self.estimator, self.features, self.held_, self.title = estimator, features, held, title
        self._columns = columns  # [(name, dtype or None)] of every input column
        self.classes_ = np.asarray(estimator.classes_)
        self.n_features_in_ = 2
        self.feature_names_in_ = np.array([columns[j][0] for j in features], dtype=object)
        for attr in ("actions_", "reject_label_", "loss_", "class_prior_", "class_count_"):
            if hasattr(estimator, attr):
                setattr(self, attr, getattr(estimator, attr))

    def __repr__(self) -> str:
        return f"Slice({type(self.estimator).__name__}, {self.title!r})"

    def expand(self, X):
        """The estimator's input for 2-column points ``X``: the held values added."""
        P = np.asarray(X, dtype=float)
        if P.ndim != 2 or P.shape[1] != 2:
            raise ValueError(f"a slice takes points of shape (n, 2), got {P.shape}.")
        plane = dict(zip(self.features, P.T, strict=True))
        cols = [
            plane[j] if j in plane else [self.held_[name]] * len(P)
            for j, (name, _) in enumerate(self._columns)
        ]
        if getattr(self.estimator, "feature_names_in_", None) is not None:
            import pandas as pd

            keep = [
                j not in plane and not isinstance(self.held_[c[0]], float)
                for j, c in enumerate(self._columns)
            ]
            return pd.DataFrame(
                {  # the plane, and values held at a mean, are floats whatever their type in X
                    name: pd.Series(c, dtype=t if k else None)
                    for c, (name, t), k in zip(cols, self._columns, keep, strict=True)
                }
            )
        numeric = all(isinstance(v, (int, float)) for v in self.held_.values())
        return np.array(cols, dtype=float if numeric else object).T

    def data(self, X) -> np.ndarray:
        """The two plane columns of full samples ``X`` (as given to the estimator)."""
        if hasattr(X, "iloc"):
            names = getattr(self.estimator, "feature_names_in_", None)
            picked = (
                X[list(self.feature_names_in_)]
                if names is not None
                else X.iloc[:, list(self.features)]
            )
            return picked.to_numpy(dtype=float)
        return np.asarray(np.asarray(X)[:, list(self.features)], dtype=float)

    def _call(self, method, X, priors):
        kwargs = {} if priors is None else {"priors": priors}
        return getattr(self.estimator, method)(self.expand(X), **kwargs)

    def predict(self, X, priors=None):
        """The estimator's decisions at the points."""
        return self._call("predict", X, priors)

    def predict_proba(self, X, priors=None):
        """Posteriors P(w | x) at the points, (n, C)."""
        return self._call("predict_proba", X, priors)

    def predict_log_proba(self, X, priors=None):
        """Log-posteriors at the points, (n, C)."""
        return self._call("predict_log_proba", X, priors)

    def predict_joint_log_proba(self, X, priors=None):
        """ln p(x | w) + ln P(w) at the points, (n, C)."""
        return self._call("predict_joint_log_proba", X, priors)

    def risk(self, X, priors=None):
        """Conditional risks of every action at the points, (n, a)."""
        return self._call("risk", X, priors)

    def log_likelihood(self, X):
        """Class-conditional log-densities ln p(x | w) at the points, (n, C)."""
        return self.estimator.log_likelihood(self.expand(X))


def slice_for(estimator, X, features) -> Slice:
    """Look at a model of more than two features on the plane of two of them.

    The other features are held at their mean over ``X`` (numeric features) or their
    most frequent value (categorical ones: non-numeric columns, and the columns that
    CategoricalNB or MixedNB model as categorical). Pass the result, and
    ``slice.data(X)`` as the points, to any figure, with ``title=slice.title``.

    Parameters
    ----------
    estimator : fitted bayesrule estimator
    X : DataFrame or array-like of shape (n_samples, n_features)
        Samples as given to the estimator (the held values come from them).
    features : pair of names or indices, or a string "A,B"

    Returns
    -------
    Slice
        Its ``title`` reads ``"slice through A, B; others at their mean"``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.datasets import load_iris
    >>> from bayesrule import QuadraticDiscriminant
    >>> from bayesrule.plot import decision_regions
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> clf = QuadraticDiscriminant().fit(X, y)
    >>> s = slice_for(clf, X, ["petal length (cm)", "petal width (cm)"])
    >>> s.title
    'slice through petal length (cm), petal width (cm); others at their mean'
    >>> round(s.held_["sepal length (cm)"], 3)
    5.843
    >>> ax = decision_regions(s, s.data(X), y, resolution=40, title=s.title)
    >>> plt.close(ax.figure)
    """
    _check_fitted(estimator)
    a, b = feature_positions(estimator, features)
    d = int(estimator.n_features_in_)
    names = getattr(estimator, "feature_names_in_", None)
    if hasattr(X, "iloc"):
        if names is not None:
            missing = [n for n in names if n not in X.columns]
            if missing:
                raise ValueError(f"X lacks the model's columns {missing}.")
            X = X[list(names)]
        columns = [(str(c), X[c].dtype) for c in X.columns] if names is not None else None
        data = [X.iloc[:, j] for j in range(X.shape[1])]
    else:
        arr = np.asarray(X)
        data = [arr[:, j] for j in range(arr.shape[1])] if arr.ndim == 2 else []
        columns = None
    if len(data) != d:
        raise ValueError(f"X has {len(data)} columns but the model has {d} features.")
    if columns is None:
        labels = [str(v) for v in names] if names is not None else [f"x[{j}]" for j in range(d)]
        columns = [(label, None) for label in labels]
    for j in (a, b):
        if not _is_numeric(data[j]):
            raise ValueError(
                f"feature {columns[j][0]!r} is not numeric, so it has no axis to draw; "
                "choose two numeric features for the plane."
            )
    categorical = _categorical_positions(estimator, [c[0] for c in columns])
    held, kinds = {}, set()
    for j, (name, _) in enumerate(columns):
        if j in (a, b):
            continue
        values = [v for v in np.asarray(data[j], dtype=object).tolist() if not _missing(v)]
        if not values:
            raise ValueError(f"feature {name!r} has no observed value in X to hold it at.")
        if j in categorical or not _is_numeric(data[j]):
            value, kind = Counter(values).most_common(1)[0][0], "most frequent value"
        else:
            value, kind = float(np.mean(np.asarray(values, dtype=float))), "mean"
        held[name] = value.item() if hasattr(value, "item") else value
        kinds.add(kind)
    title = f"slice through {columns[a][0]}, {columns[b][0]}"
    if kinds:
        title += "; others at their " + " or ".join(sorted(kinds))
    return Slice(estimator, (a, b), columns, held, title)
