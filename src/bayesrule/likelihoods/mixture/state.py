"""The invariants of a fitted :class:`~bayesrule.likelihoods.mixture.model.MixtureModel`
read from a file (its ``check_state``; see :mod:`bayesrule.likelihoods.state`)."""

from __future__ import annotations

import copy

import numpy as np

from ..covariance import get_structure
from ..state import check_numbers, same

#: how far the stored component weights may sum from 1 (they are normalised by EM)
WEIGHTS_RTOL = 1e-9


def check_mixture_model(model, n_features: int, precisions_cholesky) -> None:
    """Refuse (ValueError) a mixture whose parameters no EM run gives: weights that are
    not a probability vector, means or covariances of other shapes or not finite, a
    covariance that is not positive definite, precision factors or evaluation arrays
    that do not follow from them. ``precisions_cholesky(covariance, cov, reg_covar)``
    gives the factors (the model module's function)."""
    where = "MixtureModel"
    structure = get_structure(model.covariance)
    weights, means = model.weights_, model.means_
    K = len(weights)
    if model.n_components != K or means.shape != (K, n_features) or weights.ndim != 1:
        raise ValueError(
            f"{where} has {K} weights and means of shape {means.shape}, not "
            f"({model.n_components}, {n_features})"
        )
    check_numbers(weights, f"{where}.weights_", signed=False)
    if abs(weights.sum() - 1.0) > WEIGHTS_RTOL * K:
        raise ValueError(f"{where}.weights_ sum to {weights.sum()!r}, not 1")
    check_numbers([means, model.reference_], f"{where}.means_")
    if model.reference_.shape != (n_features,):
        raise ValueError(f"{where}.reference_ has shape {model.reference_.shape}")
    _, cov = structure.given(means, model.covariances_, f"{where}.covariances_")
    factors = precisions_cholesky(model.covariance, cov, 1.0)  # not positive definite: refused
    stored = model.precisions_cholesky_
    if factors.shape != stored.shape or not np.allclose(factors, stored, rtol=1e-6, atol=0):
        raise ValueError(f"{where}.precisions_cholesky_ do not follow from its covariances_")
    fresh = copy.deepcopy(model)
    with np.errstate(all="raise", divide="ignore"):
        fresh._prepare()
    same(fresh, model, where)
