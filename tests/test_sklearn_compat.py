"""scikit-learn's estimator checks on every estimator of the registry."""

from registry import ESTIMATORS
from sklearn.utils.estimator_checks import parametrize_with_checks


@parametrize_with_checks([make() for make in ESTIMATORS.values()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
