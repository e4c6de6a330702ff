"""Rejection by low evidence: predict(X, reject_below_evidence=t) rejects ln p(x) < t."""

import warnings

import numpy as np
import pytest
from registry import CASES, _continuous, _counts
from scipy.special import logsumexp
from scipy.stats import norm

from bayesrule import ComplementNB, GaussianNB, LossMatrix, QuadraticDiscriminant

MEANS, VARIANCES = [[-1.0, 0.0], [1.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]]


def closed_form_log_evidence(X, priors=(0.5, 0.5)):
    X = np.asarray(X, dtype=float)
    joint = [
        np.log(p) + norm.logpdf(X, m, 1.0).sum(axis=1) for p, m in zip(priors, MEANS, strict=True)
    ]
    return logsumexp(joint, axis=0)


def _every_estimator():
    """Every case of the contract registry whose estimator has an evidence p(x)."""
    return [
        pytest.param(case.make, case.data, id=case.id) for case in CASES if case.applies("evidence")
    ]


@pytest.mark.parametrize("make, data", _every_estimator())
def test_every_estimator_rejects_exactly_below_the_threshold(make, data):
    X, y = data(300, 0)
    model = make().fit(X, y)
    plain = model.predict(X)
    evidence = model.log_evidence(X)
    threshold = float(np.median(evidence))
    out = model.predict(X, reject_below_evidence=threshold)
    low = evidence < threshold
    assert 0 < low.sum() < len(y)
    assert (out[low] == model.reject_label_).all()
    assert out[~low].tolist() == plain[~low].tolist()
    assert model.predict(X, reject_below_evidence=-np.inf).tolist() == plain.tolist()
    assert (model.predict(X, reject_below_evidence=np.inf) == "reject").all()
    assert model.score(X, y) == pytest.approx(np.mean(plain == y))  # score unchanged


def test_outlier_kept_by_chow_is_rejected_by_evidence():
    model = GaussianNB.from_parameters(MEANS, VARIANCES, loss=LossMatrix.with_reject(2, 0.1))
    X = np.array([[30.0, 0.0], [0.05, 0.0], [1.5, 0.5], [-1.5, 0.0]])
    expected = closed_form_log_evidence(X)
    np.testing.assert_allclose(model.log_evidence(X), expected, rtol=1e-12)
    assert expected[0] == pytest.approx(np.log(0.5) - 29.0**2 / 2 - np.log(2 * np.pi), abs=1e-9)
    # Chow's rule keeps the outlier (its posterior of class 1 is 1 - e^-60) and
    # rejects the point between the classes
    assert model.predict(X).tolist() == [1, -1, 1, 0]
    out = model.predict(X, reject_below_evidence=-10.0)
    assert out.tolist() == [-1, -1, 1, 0]
    assert out.dtype == model.actions_.dtype
    np.testing.assert_array_equal(model.predict_proba(X)[0], [np.exp(-60.0), 1.0])
    # the threshold is strict: a sample exactly at it is kept
    at = model.predict(X, reject_below_evidence=float(expected[2]))
    assert at.tolist() == [-1, -1, 1, 0]
    assert model.predict(X, reject_below_evidence=np.nextafter(expected[2], 0))[2] == -1


def test_evidence_under_the_priors_given_to_predict():
    model = GaussianNB.from_parameters(MEANS, VARIANCES)
    X = np.array([[-1.0, 0.0]])
    even, skewed = closed_form_log_evidence(X), closed_form_log_evidence(X, (0.1, 0.9))
    ratio = (0.5 * norm.pdf(0) + 0.5 * norm.pdf(2)) / (0.1 * norm.pdf(0) + 0.9 * norm.pdf(2))
    assert even[0] - skewed[0] == pytest.approx(np.log(ratio), rel=1e-12)
    assert np.log(ratio) == pytest.approx(0.93975, abs=1e-5)
    threshold = float((even[0] + skewed[0]) / 2)
    assert model.predict(X, reject_below_evidence=threshold).tolist() == [0]
    skewed_out = model.predict(X, priors=[0.1, 0.9], reject_below_evidence=threshold)
    assert skewed_out.tolist() == [-1]


def test_reject_label_types_without_a_reject_row():
    X, y = _continuous(200, 1)
    far = np.vstack([X[:3], [[40.0, 40.0, 40.0]]])
    strings = QuadraticDiscriminant().fit(X, y).predict(far, reject_below_evidence=-50.0)
    assert strings.dtype.kind == "U" and strings[-1] == "reject"
    assert strings[:3].tolist() == QuadraticDiscriminant().fit(X, y).predict(X[:3]).tolist()

    codes = np.searchsorted(["ant", "bee", "cat"], y)
    numeric = QuadraticDiscriminant().fit(X, codes).predict(far, reject_below_evidence=-50.0)
    assert numeric.dtype.kind == "i" and numeric[-1] == -1

    named = QuadraticDiscriminant(reject_label="outlier").fit(X, codes)
    mixed = named.predict(far, reject_below_evidence=-50.0)
    assert mixed.dtype == object and mixed[-1] == "outlier"
    assert [type(v) for v in mixed[:3]] == [int] * 3
    assert named.predict(far).dtype.kind == "i"  # no threshold: as before


def test_with_a_reject_row_the_labels_keep_the_actions_type():
    X, y = _continuous(200, 2)
    model = QuadraticDiscriminant(loss=LossMatrix.with_reject(3, 0.2)).fit(X, y)
    far = np.vstack([X[:20], [[40.0, 40.0, 40.0]]])
    out = model.predict(far, reject_below_evidence=-50.0)
    assert out.dtype == model.actions_.dtype and out[-1] == "reject"
    assert out[:20].tolist() == model.predict(X[:20]).tolist()


def test_dataframe_input_warns_nothing():
    import pandas as pd

    X, y = _continuous(100, 3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = GaussianNB().fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = model.predict(frame, reject_below_evidence=-4.0)
    assert (out == "reject").sum() == (model.log_evidence(frame) < -4.0).sum() > 0


def test_bad_thresholds_and_models_without_evidence():
    X, y = _continuous(100, 4)
    model = GaussianNB().fit(X, y)
    with pytest.raises(TypeError, match="threshold on ln p"):
        model.predict(X, reject_below_evidence="1%")
    with pytest.raises(TypeError, match="threshold on ln p"):
        model.predict(X, reject_below_evidence=True)
    with pytest.raises(ValueError, match="NaN"):
        model.predict(X, reject_below_evidence=np.nan)
    Xc, yc = _counts(100, 0)
    with pytest.raises(TypeError, match="evidence p"):
        ComplementNB().fit(Xc, yc).predict(Xc, reject_below_evidence=-5.0)
