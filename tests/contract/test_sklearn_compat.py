"""scikit-learn's estimator checks on every estimator of the registry: each at its
defaults, and the regularised and discretised variants."""

import pytest
from registry import (
    DEFAULTS,
    DISCRETIZED,
    REGULARISED,
    check_cases,
)


@pytest.mark.parametrize(
    "estimator, check",
    check_cases([make() for make in (*REGULARISED.values(), *DISCRETIZED.values())]),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _expected_failures(estimator):
    return {}  # every estimator passes at its defaults


@pytest.mark.parametrize(
    "estimator, check", check_cases([make() for make in DEFAULTS.values()], _expected_failures)
)
def test_sklearn_compatible_at_defaults(estimator, check):
    check(estimator)
