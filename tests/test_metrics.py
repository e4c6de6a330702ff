"""Calibration metrics: the Brier score against scikit-learn's, the ECE and the
reliability table by hand and on posteriors calibrated by construction, and in reports."""

import json

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss

from bayesrule import GaussianNB
from bayesrule.metrics import brier_score, expected_calibration_error, reliability_table
from bayesrule.report import report


def test_brier_score_is_twice_scikit_learns_for_two_classes():
    rng = np.random.default_rng(0)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    proba = np.c_[1 - p, p]
    assert brier_score(y, proba, [0, 1]) == pytest.approx(2 * brier_score_loss(y, p), rel=1e-12)


def test_brier_score_over_every_class_by_hand():
    proba = [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]]
    # row 1, true "b": 0.7^2 + 0.8^2 + 0.1^2; row 2, true "c": 0.1^2 + 0.1^2 + 0.2^2
    assert brier_score(["b", "c"], proba, ["a", "b", "c"]) == pytest.approx(
        (0.49 + 0.64 + 0.01 + 0.01 + 0.01 + 0.04) / 2, rel=1e-12
    )


def test_posteriors_calibrated_by_construction_have_a_small_ece():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), size=100_000)
    y = (rng.random(100_000)[:, None] > np.cumsum(proba, axis=1)).sum(axis=1)  # y ~ proba
    assert expected_calibration_error(y, proba, [0, 1, 2]) < 0.01
    sharp = proba**3 / (proba**3).sum(axis=1, keepdims=True)  # overconfident
    assert expected_calibration_error(y, sharp, [0, 1, 2]) > 0.1


def test_reliability_table():
    proba = np.array([[0.95, 0.05], [0.55, 0.45], [0.5, 0.5], [0.2, 0.8]])
    table = reliability_table([0, 1, 0, 1], proba, [0, 1], n_bins=4)
    # top posteriors .95 .55 .5 .8; bins (0, .25], (.25, .5], (.5, .75], (.75, 1]
    np.testing.assert_array_equal(table["count"], [0, 1, 1, 2])
    np.testing.assert_allclose(table["confidence"][1:], [0.5, 0.55, 0.875])
    np.testing.assert_allclose(table["accuracy"][1:], [1.0, 0.0, 1.0])  # .55 says 0: wrong
    assert np.isnan(table["accuracy"][0]) and np.isnan(table["confidence"][0])


@pytest.mark.parametrize(
    "args, match",
    [
        (([0, 1], [[0.5, 0.5]], [0, 1]), "one row per label"),
        (([0, 2], [[0.5, 0.5], [0.5, 0.5]], [0, 1]), "not among the classes"),
        (([0, 1], [[1.5, -0.5], [0.5, 0.5]], [0, 1]), "non-negative"),
        (([0, 1], [[np.nan, 0.5], [0.5, 0.5]], [0, 1]), "finite"),
    ],
)
def test_bad_input_is_refused(args, match):
    for metric in (brier_score, expected_calibration_error):
        with pytest.raises(ValueError, match=match):
            metric(*args)
    with pytest.raises(ValueError, match="n_bins must be"):
        reliability_table([0], [[1.0, 0.0]], [0, 1], n_bins=0)


def test_reports_show_the_calibration_of_naive_bayes():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    rep = report(GaussianNB().fit(X[::2], y[::2]), X[1::2], y[1::2])
    assert rep.calibration_error > 0.02  # naive Bayes on dependent features: overconfident
    assert rep.brier_score == pytest.approx(
        brier_score(y[1::2], GaussianNB().fit(X[::2], y[::2]).predict_proba(X[1::2]), [0, 1])
    )
    text = str(rep)
    assert f"Brier score:    {rep.brier_score:.4f}" in text
    assert f"Calibration error (ECE, 15 bins): {rep.calibration_error:.4f}" in text
    data = json.loads(json.dumps(rep.to_dict()))
    assert data["reliability"]["count"][-1] > 0 and None in data["reliability"]["accuracy"]
