"""Semi-supervised fitting: rows without a label contribute through EM.

A row is unlabelled when its label is None or NaN, or equals the ``unlabeled`` marker
given to ``fit`` (scikit-learn's convention is ``-1``). The estimator is first fitted on
the labelled rows; then EM alternates

* **E step**: the posteriors ``P(w_c|x)`` of every unlabelled row under the current
  densities and class proportions;
* **M step**: the estimator's own ``fit`` on the labelled rows plus every unlabelled row
  once per class, weighted by its posterior (times its sample weight),

until the observed-data log-likelihood
``sum_labelled ln P(w_y) p(x|w_y) + sum_unlabelled ln sum_c P(w_c) p(x|w_c)`` changes by
less than :data:`TOL` of itself (mclust's ``MclustSSC`` for any generative family: one
mechanism through sample weights, so every family that takes weights takes unlabelled
rows). The class proportions are re-estimated from the soft counts unless ``priors`` fixes
them. Classes come from the labelled rows only.

The record of the run is the fitted attribute ``unlabelled_`` (:class:`SemiSupervised`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing

from .._dask import is_dask

#: EM stops when the observed-data log-likelihood changes by less than this, relative
TOL = 1e-7
#: and after this many M steps in any case (with a ConvergenceWarning)
MAX_ITER = 300


@dataclass(frozen=True)
class SemiSupervised:
    """How a semi-supervised fit went.

    Attributes
    ----------
    n_unlabelled : int
        Rows without a label.
    n_iter : int
        EM iterations (M steps after the fit on the labelled rows).
    log_likelihood : ndarray
        The observed-data log-likelihood after the labelled fit and each iteration.
    converged : bool
    """

    n_unlabelled: int
    n_iter: int
    log_likelihood: np.ndarray
    converged: bool


def unlabelled_rows(y, unlabeled=None) -> np.ndarray | None:
    """Which labels mark an unlabelled row (None, NaN or ``unlabeled``), or None if none
    do (also for Dask labels, which are not searched)."""
    if is_dask(y):
        return None
    values = np.asarray(y)
    if values.ndim != 1:
        return None  # validation explains the shape
    if values.dtype.kind == "f":
        mask = np.isnan(values)
    elif values.dtype.kind == "O":
        mask = np.fromiter((_missing(v) for v in values.tolist()), dtype=bool, count=values.size)
    else:
        mask = np.zeros(values.size, dtype=bool)
    if unlabeled is not None:
        with warnings.catch_warnings():  # comparing labels of another type: no match
            warnings.simplefilter("ignore", FutureWarning)
            mask |= np.asarray(values == unlabeled, dtype=bool).reshape(values.shape)
    return mask if mask.any() else None


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def fit_with_unlabelled(estimator, X, y, sample_weight, unlabelled: np.ndarray, fit):
    """Fit ``estimator`` by EM over labelled and unlabelled rows; ``fit(X, y, w)`` is its
    supervised fit. Returns the estimator, with ``unlabelled_`` set."""
    if is_dask(X):
        raise ValueError(
            "unlabelled rows (labels None, NaN or the unlabeled marker) need the data in "
            "memory; compute the Dask collection, or drop the unlabelled rows."
        )
    y = np.asarray(y)
    n = y.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}")
    labelled, free = np.flatnonzero(~unlabelled), np.flatnonzero(unlabelled)
    if labelled.size == 0:
        raise ValueError(
            "y has no labelled rows (every label is None, NaN or the unlabeled marker); "
            "semi-supervised fitting needs labelled rows of at least 2 classes."
        )
    y_known = y[labelled]
    if y_known.dtype.kind == "O":
        y_known = np.array(y_known.tolist())  # labels of one type: a plain array
    fit(_safe_indexing(X, labelled), y_known, w[labelled])
    estimator._density_only("semi-supervised fitting (EM over unlabelled rows)")
    C = len(estimator.classes_)
    index = np.concatenate([labelled, np.tile(free, C)])
    X_all = _safe_indexing(X, index)  # every M step fits these rows, weights change
    y_all = np.concatenate([y_known, np.repeat(estimator.classes_, free.size)])
    X_rows = _safe_indexing(X, np.concatenate([labelled, free]))
    warm = "warm_start" in estimator.get_params(deep=False)
    if warm:  # EM within EM (mixtures): each M step starts from the last fit
        given = estimator.warm_start
        estimator.set_params(warm_start=True)
    try:
        trace, converged = _iterate(estimator, fit, X_all, y_all, X_rows, w, labelled, free)
    finally:
        if warm:
            estimator.set_params(warm_start=given)
    if not converged:
        warnings.warn(
            f"semi-supervised EM did not converge in {MAX_ITER} iterations (last relative "
            f"change {abs(trace[-1] - trace[-2]) / abs(trace[-1]):.2g}).",
            ConvergenceWarning,
            stacklevel=3,
        )
    estimator.unlabelled_ = SemiSupervised(free.size, len(trace) - 1, np.array(trace), converged)
    return estimator


def _iterate(estimator, fit, X_all, y_all, X_rows, w, labelled, free):
    """EM's E and M steps until the observed-data log-likelihood settles: its trace and
    whether it converged."""
    positions = np.searchsorted(estimator.classes_, y_all[: labelled.size])
    trace = []
    for _ in range(MAX_ITER + 1):
        joint = estimator.predict_joint_log_proba(X_rows)
        known, unknown = joint[: labelled.size], joint[labelled.size :]
        evidence = logsumexp(unknown, axis=1)
        value = float(w[labelled] @ known[np.arange(labelled.size), positions] + w[free] @ evidence)
        if trace and abs(value - trace[-1]) <= TOL * abs(value):
            return [*trace, value], True
        trace.append(value)
        posterior = np.exp(unknown - evidence[:, None])  # (free, C)
        weights = np.concatenate([w[labelled], (posterior * w[free][:, None]).T.ravel()])
        if len(trace) <= MAX_ITER:
            fit(X_all, y_all, weights)
    return trace, False
