"""Checks of the mixture parameters and data, naming the parameter and the fix."""

from __future__ import annotations

import numbers

import numpy as np

from ..._validation import check_integer, check_nonnegative
from .model import COVARIANCES, MixtureModel

#: the initial parameters a Mixture may be given, per class
INITS = ("weights_init", "means_init", "precisions_init")


def check_covariance(covariance) -> str:
    if not isinstance(covariance, str) or covariance not in COVARIANCES:
        raise ValueError(
            f"covariance must be one of {list(COVARIANCES)} for a mixture, got {covariance!r}"
        )
    return covariance


def check_data(X, sample_weight):
    """Finite float rows (zero-weight rows left out) and their weights (None: unit)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a non-empty 2-d array (n_samples, n_features), got {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X must be finite (no NaN or infinity).")
    if sample_weight is None:
        return X, None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (X.shape[0],) or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(
            f"sample_weight must be {X.shape[0]} finite non-negative numbers, got shape {w.shape}"
        )
    keep = w > 0
    if not keep.any():
        raise ValueError("sample_weight is zero everywhere; give some samples weight.")
    return (X, w) if keep.all() else (X[keep], w[keep])


def check_enough_rows(K: int, n: int) -> None:
    """ValueError when a mixture of K components is asked of fewer than K rows."""
    if n < K:
        raise ValueError(
            f"n_components={K} is more than the {n} samples (with positive weight); use "
            f"n_components <= {n}."
        )


def _check_previous(previous, covariance: str, K: int, d: int):
    if not isinstance(previous, MixtureModel):
        raise TypeError(f"previous must be a MixtureModel (warm start), got {previous!r}")
    have = (previous.covariance, previous.n_components, previous.means_.shape[1])
    if have != (covariance, K, d):
        raise ValueError(
            f"previous has covariance={have[0]!r}, {have[1]} components and {have[2]} "
            f"features; a warm start needs covariance={covariance!r}, {K} and {d}."
        )


def check_mixture_params(mixture, n_classes: int) -> dict:
    """A :class:`Mixture`'s validated settings (its initial parameters by name);
    ValueError/TypeError naming the parameter."""
    check_nonnegative("reg_covar", mixture.reg_covar)
    check_nonnegative("tol", mixture.tol)
    check_integer("max_iter", mixture.max_iter, 0)
    if isinstance(mixture.n_init, str):
        if mixture.n_init != "auto":
            raise ValueError(f"n_init must be an integer >= 1 or 'auto', got {mixture.n_init!r}")
    else:
        check_integer("n_init", mixture.n_init, 1)
    check_integer("max_components", mixture.max_components, 1)
    if mixture.covariance != "bic" and mixture.covariance not in COVARIANCES:
        raise ValueError(
            f"covariance must be one of {[*COVARIANCES, 'bic']}, got {mixture.covariance!r}"
        )
    k = mixture.n_components
    if isinstance(k, str):
        if k != "bic":
            raise ValueError(f"n_components must be an int, a dict or 'bic', got {k!r}")
    elif isinstance(k, dict):
        _check_keys("n_components", k, n_classes)
        for c, value in k.items():
            check_integer(f"n_components[{c}]", value, 1)
    else:
        check_integer("n_components", k, 1)
    inits = {}
    for name in INITS:
        value = getattr(mixture, name)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise TypeError(f"{name} must be None or a dict {{class index: array}}, got {value!r}")
        _check_keys(name, value, n_classes)
        if value and k == "bic":
            raise ValueError(
                f"{name} fixes the number of components, so it cannot be combined with "
                "n_components='bic'; give n_components as an int or a dict."
            )
        if value and name == "precisions_init" and mixture.covariance == "bic":
            raise ValueError(
                "precisions_init fixes the covariance structure, so it cannot be combined "
                "with covariance='bic'."
            )
        inits[name] = value
    return inits


def _check_keys(name: str, value: dict, n_classes: int):
    bad = [
        c
        for c in value
        if not isinstance(c, numbers.Integral) or isinstance(c, bool) or not 0 <= c < n_classes
    ]
    if bad:
        raise ValueError(
            f"{name} must be keyed by class index 0 .. {n_classes - 1}, got keys {bad!r}"
        )
