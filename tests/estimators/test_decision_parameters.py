"""Decision parameters (loss, priors, reject_label) are read when deciding: set_params on
a fitted or from_parameters model takes effect without refitting."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from bayesrule import AODE, GaussianNB, QuadraticDiscriminant
from bayesrule.datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_MEANS
from bayesrule.decision import conditional_risk
from bayesrule.estimators import ESTIMATORS

SEED_LOSS = [[0, 2, 3], [1, 0, 2], [1, 1, 0]]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 300)
    X = rng.normal(size=(300, 2)) + np.array([[0, 0], [1.5, 0], [0, 1.5]])[y]
    return X, np.array(["a", "b", "c"])[y]


def test_set_params_loss_on_a_fitted_model_equals_fitting_with_it():
    X, y = _data()
    fitted = QuadraticDiscriminant().fit(X, y)
    assert fitted.loss_.is_zero_one()
    fitted.set_params(loss=SEED_LOSS)
    direct = QuadraticDiscriminant(loss=SEED_LOSS).fit(X, y)
    np.testing.assert_array_equal(fitted.loss_.matrix, np.array(SEED_LOSS, float))
    np.testing.assert_array_equal(fitted.risk(X), direct.risk(X))
    np.testing.assert_array_equal(fitted.predict(X), direct.predict(X))
    want = conditional_risk(fitted.predict_proba(X), SEED_LOSS)
    np.testing.assert_allclose(fitted.risk(X), want, rtol=1e-15)
    # the loss moves decisions: some rows change from the zero-one decision
    assert (fitted.predict(X) != QuadraticDiscriminant().fit(X, y).predict(X)).any()


def test_set_params_loss_on_a_from_parameters_model_reproduces_the_seed():
    qda = QuadraticDiscriminant.from_parameters(
        FRUIT_MEANS, FRUIT_COVARIANCES, priors=[0.4, 0.4, 0.2], classes=FRUIT_CLASSES
    )
    x = [[170, 585]]
    assert qda.predict(x).tolist() == ["apple"]  # zero-one: the largest posterior
    qda.set_params(loss=SEED_LOSS)
    np.testing.assert_allclose(qda.risk(x), [[0.7097, 0.6489, 0.9985]], atol=1e-3)
    assert qda.predict(x).tolist() == ["orange"]
    qda.set_params(loss=None)
    assert qda.predict(x).tolist() == ["apple"]


def test_set_params_priors_and_reject_label_take_effect():
    X, y = _data(1)
    model = GaussianNB().fit(X, y)
    model.set_params(priors={"a": 0.1, "b": 0.1, "c": 0.8})
    np.testing.assert_allclose(model.class_prior_, [0.1, 0.1, 0.8])
    direct = GaussianNB(priors={"a": 0.1, "b": 0.1, "c": 0.8}).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), direct.predict_proba(X))
    model.set_params(loss=[[0, 1, 1], [1, 0, 1], [1, 1, 0], [0.3, 0.3, 0.3]], reject_label="?")
    assert model.actions_.tolist() == ["a", "b", "c", "?"]
    predicted = model.predict(X)
    assert 0 < (predicted == "?").sum() < len(X)
    rejected = model.predict_proba(X).max(axis=1) < 0.7  # Chow: reject below 1 - cost
    np.testing.assert_array_equal(predicted == "?", rejected)


def test_bad_decision_parameters_set_after_fit_are_refused_when_deciding():
    X, y = _data(2)
    model = GaussianNB().fit(X, y)
    model.set_params(loss=[[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="loss matrix has shape"):
        model.predict(X)
    model.set_params(loss=None, priors=[0.5, 0.5])
    with pytest.raises(ValueError, match="priors has shape"):
        model.predict_proba(X)
    model.set_params(priors=None, reject_label="a")
    model.set_params(loss=[[0, 1, 1], [1, 0, 1], [1, 1, 0], [0.3, 0.3, 0.3]])
    with pytest.raises(ValueError, match="equals a class label"):
        model.predict(X)


def test_a_loss_is_checked_and_warned_about_once_until_it_is_replaced():
    X, y = _data(4)
    free = [[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 0]]  # a reject action that costs nothing
    with pytest.warns(UserWarning, match="all zeros") as seen:
        model = GaussianNB(loss=free).fit(X, y)
        model.predict(X)
        model.risk(X)
        assert model.actions_.tolist() == ["a", "b", "c", "reject"]
    assert len(seen) == 1  # at fit; the decisions reuse the checked loss
    with pytest.warns(UserWarning, match="all zeros") as again:
        model.set_params(loss=[row[:] for row in free]).predict(X)
    assert len(again) == 1  # a new loss is checked again


def test_the_one_dependence_default_prior_follows_the_priors_parameter():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (200, 4)).astype(str)
    y = rng.integers(0, 2, 200)
    model = AODE().fit(X, y)
    marginal = model.class_marginal_
    np.testing.assert_array_equal(model.class_prior_, marginal)
    model.set_params(priors="uniform")
    np.testing.assert_array_equal(model.class_prior_, [0.5, 0.5])
    model.set_params(priors=None)
    np.testing.assert_array_equal(model.class_prior_, marginal)


@pytest.mark.parametrize("entry", ESTIMATORS, ids=lambda e: e.cls.__name__)
def test_every_method_of_an_unfitted_estimator_raises_not_fitted(entry):
    X = np.zeros((3, 2))
    for method in ("log_likelihood", "predict", "predict_proba", "risk", "log_evidence"):
        with pytest.raises(NotFittedError):
            getattr(entry.cls(), method)(X)
