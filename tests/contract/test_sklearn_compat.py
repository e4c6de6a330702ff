"""scikit-learn's estimator checks on every estimator of the registry: each at its
defaults, and the regularised and discretised variants."""

import pytest
from registry import (
    CONTINUOUS_CHECK_DATA,
    DEFAULTS,
    DISCRETIZED,
    REGULARISED,
    SINGULAR_CHECK_DATA,
    check_cases,
)

from bayesrule.likelihoods import Gaussian
from bayesrule.likelihoods.discrete.network import DiscreteNetwork


@pytest.mark.parametrize(
    "estimator, check",
    check_cases([make() for make in (*REGULARISED.values(), *DISCRETIZED.values())]),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _expected_failures(estimator):
    if getattr(estimator, "shrinkage", None) == "auto":
        # on the other two checks shrinkage makes the covariance regular; on this one the
        # Ledoit-Wolf intensity comes out 0, so it stays singular
        return {"check_sample_weights_shape": SINGULAR_CHECK_DATA["check_sample_weights_shape"]}
    like = estimator._make_likelihood()
    if isinstance(like, DiscreteNetwork) and like.discretize is None:
        return CONTINUOUS_CHECK_DATA
    if isinstance(like, Gaussian) and like.covariance in ("full", "tied") and not like.reg_covar:
        return SINGULAR_CHECK_DATA  # unregularised full and tied Gaussians
    return {}


@pytest.mark.parametrize(
    "estimator, check", check_cases([make() for make in DEFAULTS.values()], _expected_failures)
)
def test_sklearn_compatible_at_defaults(estimator, check):
    check(estimator)
