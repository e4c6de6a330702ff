"""scikit-learn's estimator checks on every estimator of the registry."""

from registry import DEFAULTS, ESTIMATORS, SINGULAR_CHECK_DATA
from sklearn.utils.estimator_checks import parametrize_with_checks


@parametrize_with_checks([make() for make in ESTIMATORS.values()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _expected_failures(estimator):
    if getattr(estimator, "shrinkage", None) == "auto":
        # on the other two checks shrinkage makes the covariance regular; on this one the
        # Ledoit-Wolf intensity comes out 0, so it stays singular
        return {"check_sample_weights_shape": SINGULAR_CHECK_DATA["check_sample_weights_shape"]}
    return SINGULAR_CHECK_DATA


@parametrize_with_checks(
    [make() for make in DEFAULTS.values()], expected_failed_checks=_expected_failures
)
def test_sklearn_compatible_at_defaults(estimator, check):
    check(estimator)
