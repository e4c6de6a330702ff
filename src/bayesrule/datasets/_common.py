"""Argument checks shared by the data set generators."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch


def _check_n(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {value!r}.")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer (1 or more), got {value!r}.")
    return int(value)


def _rng(random_state: object) -> np.random.Generator:
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "random_state must be None, a non-negative int or a numpy.random.Generator, "
            f"got {random_state!r}."
        ) from exc


def _gaussian(rng: np.random.Generator, mean, cov, n: int) -> np.ndarray:
    """``n`` draws from the Gaussian N(mean, cov), by its Cholesky factor."""
    factor = np.linalg.cholesky(cov)
    return mean + rng.standard_normal((n, mean.size)) @ factor.T


def _table(rows, dtype=object) -> np.ndarray:
    out = np.empty((len(rows), len(rows[0])), dtype=dtype)
    out[:] = rows
    return out


def _result(data, target, return_X_y: bool, **fields):
    """``(data, target)`` if ``return_X_y``, else a Bunch of them and ``fields``."""
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, **fields)


def _small_bunch(data, target, query, feature_names, descr, return_X_y):
    target = np.array(target)
    return _result(
        data,
        target,
        return_X_y,
        feature_names=list(feature_names),
        target_names=np.unique(target),
        query=query,
        DESCR=descr,
    )
