"""Deciding under other priors at prediction time equals refitting with them."""

import numpy as np
import pytest

from bayesrule import GaussianNB, LinearDiscriminant, LossMatrix, QuadraticDiscriminant

MAKERS = [GaussianNB, QuadraticDiscriminant, LinearDiscriminant]
PRIORS = [[0.7, 0.2, 0.1], {"a": 0.1, "b": 0.1, "c": 0.8}, "uniform"]


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 2)) * 1.5 + np.repeat([[0, 0], [2, 0], [0, 2]], 50, axis=0)
    return X, np.repeat(["a", "b", "c"], 50)


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("priors", PRIORS)
def test_priors_at_prediction_equal_a_refit(make, priors, data):
    X, y = data
    model = make(loss=LossMatrix.with_reject(3, 0.3)).fit(X, y)
    refit = make(priors=priors, loss=LossMatrix.with_reject(3, 0.3)).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X, priors=priors), refit.predict_proba(X))
    np.testing.assert_allclose(
        model.predict_log_proba(X, priors=priors), refit.predict_log_proba(X), atol=1e-12
    )
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X, priors=priors), refit.predict_joint_log_proba(X)
    )
    np.testing.assert_allclose(model.log_evidence(X, priors=priors), refit.log_evidence(X))
    np.testing.assert_allclose(model.risk(X, priors=priors), refit.risk(X))
    np.testing.assert_array_equal(model.predict(X, priors=priors), refit.predict(X))
    np.testing.assert_allclose(model.class_prior_, [1 / 3] * 3)  # the model is unchanged


def test_priors_at_prediction_move_the_decisions(data):
    X, y = data
    model = QuadraticDiscriminant().fit(X, y)
    favour_c = model.predict(X, priors=[0.05, 0.05, 0.9])
    assert (favour_c == "c").sum() > (model.predict(X) == "c").sum()


def test_bad_priors_at_prediction(data):
    model = GaussianNB().fit(*data)
    with pytest.raises(ValueError, match="sum to 1"):
        model.predict(data[0], priors=[0.5, 0.5, 0.5])
    built = GaussianNB.from_parameters([[0.0], [1.0]], [[1.0], [1.0]])
    with pytest.raises(ValueError, match="built from parameters"):
        built.predict_proba([[0.5]], priors="empirical")
