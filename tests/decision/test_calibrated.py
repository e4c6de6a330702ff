"""Calibrated: a known temperature recovered, lower ECE for naive Bayes on real data
(cross-validated), priors and losses by Bayes' rule by hand, bad input and save/load."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import StratifiedKFold

from bayesrule import GaussianNB
from bayesrule.decision import Calibrated
from bayesrule.io import load, save
from bayesrule.metrics import expected_calibration_error


class Sharpened(ClassifierMixin, BaseEstimator):
    """Posteriors ``softmax(power * X)``: X holds the true logits of each class."""

    def __init__(self, power=3.0):
        self.power = power

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return softmax(self.power * np.asarray(X), axis=1)


def _logit_data(n, seed, C=3):
    rng = np.random.default_rng(seed)
    Z = rng.normal(scale=1.5, size=(n, C))
    P = softmax(Z, axis=1)
    y = (rng.random(n)[:, None] > np.cumsum(P, axis=1)).sum(axis=1)
    return Z, y


def test_a_known_temperature_is_recovered():
    Z, y = _logit_data(20_000, 0)
    model = Calibrated(Sharpened(3.0), cv=0.5, random_state=0).fit(Z, y)
    assert model.temperature_ == pytest.approx(3.0, rel=0.05)
    Zt, yt = _logit_data(20_000, 1)
    raw = Sharpened(3.0).fit(Z, y).predict_proba(Zt)
    assert expected_calibration_error(yt, model.predict_proba(Zt), [0, 1, 2]) < 0.02
    assert expected_calibration_error(yt, raw, [0, 1, 2]) > 0.1


def test_vector_scaling_corrects_a_class_bias():
    Z, y = _logit_data(20_000, 2)
    model = Calibrated(Sharpened(2.0), method="vector", cv=0.5, random_state=0)
    model.fit(Z - np.array([0.0, 0.0, 1.0]), y)  # class 2 under-predicted, and sharpened
    np.testing.assert_allclose(model.scale_, 0.5, rtol=0.1)
    assert model.bias_[0] == 0 and model.bias_[2] - model.bias_[1] == pytest.approx(1, abs=0.15)


@pytest.mark.parametrize("load_data", [load_breast_cancer, load_digits])
def test_calibration_lowers_the_ece_of_naive_bayes(load_data):
    X, y = load_data(return_X_y=True)
    classes = np.unique(y)
    raw, calibrated = [], []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        nb = GaussianNB().fit(X[train], y[train])
        cal = Calibrated(GaussianNB(), random_state=0).fit(X[train], y[train])
        raw.append(expected_calibration_error(y[test], nb.predict_proba(X[test]), classes))
        calibrated.append(expected_calibration_error(y[test], cal.predict_proba(X[test]), classes))
    assert np.mean(calibrated) < np.mean(raw), (np.mean(calibrated), np.mean(raw))


def test_priors_and_loss_are_bayes_rule_by_hand():
    X, y = load_breast_cancer(return_X_y=True)
    model = Calibrated(GaussianNB(), random_state=0).fit(X, y)
    q = model.predict_proba(X)
    new = np.array([0.9, 0.1])
    by_hand = q * new / model.class_prior_
    by_hand /= by_hand.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X, priors=new), by_hand, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(model.class_prior_, np.bincount(y) / y.size)
    loss = np.array([[0.0, 1.0], [10.0, 0.0]])  # calling a malignant benign costs 10
    risk = by_hand @ loss.T
    np.testing.assert_array_equal(model.predict(X, priors=new, loss=loss), risk.argmin(axis=1))
    assert (model.predict(X, loss=loss) == 0).sum() > (model.predict(X) == 0).sum()


@pytest.mark.parametrize(
    "params, match",
    [({"method": "isotonic"}, "method must be one of"), ({"cv": 1}, "calibration must be")],
)
def test_bad_parameters_are_refused(params, match):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        Calibrated(GaussianNB(), **params).fit(X, y)


def test_bad_priors_and_losses_at_prediction():
    X, y = load_breast_cancer(return_X_y=True)
    model = Calibrated(GaussianNB(), random_state=0).fit(X, y)
    for priors in ([0.5, 0.3, 0.2], [-0.1, 1.1], [np.nan, 1.0]):
        with pytest.raises(ValueError, match="priors (has shape|must be finite and non-negative)"):
            model.predict_proba(X[:3], priors=priors)
    with pytest.raises(ValueError, match="reject row"):
        model.predict(X[:3], loss=[[0, 1], [1, 0], [0.2, 0.2]])


def test_save_and_load(tmp_path):
    X, y = load_digits(return_X_y=True)
    model = Calibrated(GaussianNB(), method="vector", cv=3, random_state=0).fit(X, y)
    save(model, tmp_path / "calibrated.model")
    back = load(tmp_path / "calibrated.model")
    np.testing.assert_array_equal(back.predict_proba(X[:50]), model.predict_proba(X[:50]))
