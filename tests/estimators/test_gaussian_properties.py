"""Gaussian estimators: thousands of features do not underflow, BIC by hand, and
``from_parameters`` keeps the classes in the order given.

Their contract properties (posteriors, partial_fit, weights, decisions, samples, BIC and
AIC, priors) are in ``tests/contract/test_contract.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from bayesrule import (
    GaussianNB,
    LinearDiscriminant,
    LossMatrix,
    NearestMean,
    QuadraticDiscriminant,
)

LABELS = np.array(["ant", "bee", "cat"])


# ---------------------------------------------------------------------------- many features


def _wide(d: int, n_train: int, n_test: int, seed: int = 0):
    """Three classes whose means differ by N(0, 0.3^2) per feature; unit variances."""
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 0.3, size=(3, d))
    y = rng.integers(0, 3, size=n_train + n_test)
    X = means[y] + rng.standard_normal((n_train + n_test, d))
    return X[:n_train], LABELS[y[:n_train]], X[n_train:], LABELS[y[n_train:]]


# expected ln p(x|true class) per feature for unit-variance features: -(ln(2 pi) + 1) / 2
PER_FEATURE = -0.5 * (np.log(2 * np.pi) + 1.0)

WIDE = {
    # name: (estimator, d, whether the fitted variances are close to 1 per feature)
    "GaussianNB": (lambda: GaussianNB(), 5000, True),
    "NearestMean": (lambda: NearestMean(), 5000, True),
    # LDA at d=5000, n=400 takes ~5 s (Cholesky and inverse of a 5000 x 5000 matrix),
    # so the fast test uses d=2000; d=5000 runs under the slow mark.
    "LinearDiscriminant": (lambda: LinearDiscriminant(reg_covar=1.0), 2000, False),
}


def _check_wide(make_est, d, near_one):
    X, y, Xt, yt = _wide(d, 400, 300)

    est = make_est().fit(X, y)
    P = est.predict_proba(Xt)
    assert np.all(np.isfinite(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xt), yt)  # well separated in d dimensions
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], yt)

    ll = est.log_likelihood(Xt)
    assert np.all(np.isfinite(ll))
    own = ll[np.arange(len(yt)), np.searchsorted(est.classes_, yt)]
    assert np.all(own < -700)  # exp() of it would underflow: log space is needed
    if near_one:
        np.testing.assert_allclose(own, d * PER_FEATURE, rtol=0.05)
    else:
        assert np.all((own > 2.0 * d * PER_FEATURE) & (own < 0.5 * d * PER_FEATURE))
    assert np.all(np.isfinite(est.predict_log_proba(Xt)))
    assert np.all(np.isfinite(est.log_evidence(Xt)))


@pytest.mark.parametrize("name", list(WIDE))
def test_many_features_do_not_underflow(name):
    _check_wide(*WIDE[name])


@pytest.mark.slow
def test_lda_with_5000_features_does_not_underflow():
    _check_wide(lambda: LinearDiscriminant(reg_covar=1.0), 5000, False)


# ---------------------------------------------------------------------------- BIC / AIC


def test_qda_bic_by_hand():
    X = np.array(
        [[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [0.5, 1.5], [1.5, 0.0],
         [4.0, 4.0], [5.0, 6.0], [6.0, 4.5], [5.5, 5.0], [4.5, 6.5], [7.0, 5.5]]
    )  # fmt: skip
    y = np.array(["a"] * 5 + ["b"] * 6)
    n, d, C = 11, 2, 2
    ll = 0.0
    for c in ("a", "b"):
        Xc = X[y == c]
        dens = multivariate_normal(Xc.mean(axis=0), np.cov(Xc.T, bias=True))
        ll += dens.logpdf(Xc).sum() + len(Xc) * np.log(len(Xc) / n)
    k = C * d + C * d * (d + 1) // 2 + (C - 1)
    assert k == 11
    qda = QuadraticDiscriminant().fit(X, y)
    np.testing.assert_allclose(qda.bic(X, y), -2 * ll + k * np.log(n), rtol=1e-12)
    np.testing.assert_allclose(qda.aic(X, y), -2 * ll + 2 * k, rtol=1e-12)
    # known priors are not estimated: C - 1 fewer parameters, ln P(w) = ln 1/2
    qda_u = QuadraticDiscriminant(priors="uniform").fit(X, y)
    ll_u = ll - sum(np.log((y == c).mean()) * (y == c).sum() for c in "ab") + n * np.log(0.5)
    np.testing.assert_allclose(qda_u.bic(X, y), -2 * ll_u + (k - 1) * np.log(n), rtol=1e-12)


def test_bic_prefers_lda_when_the_truth_shares_a_covariance():
    rng = np.random.default_rng(5)
    n, d = 5000, 4
    A = np.eye(d) + 0.4 * rng.normal(size=(d, d))
    y = rng.integers(0, 3, size=n)
    X = np.array([[0, 0, 0, 0], [2, 0, 1, 0], [0, 2, 0, 1]], float)[y]
    X = X + rng.standard_normal((n, d)) @ A.T
    lda = LinearDiscriminant().fit(X, y)
    qda = QuadraticDiscriminant().fit(X, y)
    assert qda.bic(X, y) > lda.bic(X, y) + 50
    # QDA nests LDA: its likelihood is higher, so only the penalty decides
    assert qda.aic(X, y) - 2 * 20 < lda.aic(X, y)


# ---------------------------------------------------------------------------- classes


FROM_PARAMETERS = {
    "QuadraticDiscriminant": (
        QuadraticDiscriminant,
        lambda rng: np.array([np.diag([1.0, 2.0]), [[1.0, 0.5], [0.5, 1.5]], np.eye(2) * 0.5]),
    ),
    "LinearDiscriminant": (LinearDiscriminant, lambda rng: np.array([[1.0, 0.3], [0.3, 2.0]])),
    "GaussianNB": (GaussianNB, lambda rng: np.array([[1.0, 2.0], [0.5, 0.5], [2.0, 1.0]])),
    "NearestMean": (NearestMean, lambda rng: np.array(1.5)),
}


@pytest.mark.parametrize("name", list(FROM_PARAMETERS))
def test_from_parameters_keeps_the_given_class_order(name):
    cls, make_cov = FROM_PARAMETERS[name]
    classes = ["z", "a", "m"]
    means = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    cov = make_cov(None)
    est = cls.from_parameters(means, cov, classes=classes, priors=[0.5, 0.3, 0.2])
    np.testing.assert_array_equal(est.classes_, classes)
    np.testing.assert_array_equal(est.means_, means)
    np.testing.assert_array_equal(est.covariances_, cov)
    np.testing.assert_allclose(est.class_prior_, [0.5, 0.3, 0.2], rtol=1e-15)
    # each class's density uses its own row of parameters
    full = est.full_covariances()
    Xt = np.array([[0.1, -0.2], [5.8, 0.3], [-0.4, 6.1], [3.0, 3.0]])
    ll = est.log_likelihood(Xt)
    for k in range(3):
        np.testing.assert_allclose(
            ll[:, k], multivariate_normal(means[k], full[k]).logpdf(Xt), rtol=1e-12
        )
    np.testing.assert_array_equal(est.predict(Xt[:3]), classes)
    # priors as a dict follow the labels, not the sorted order
    by_dict = cls.from_parameters(
        means, cov, classes=classes, priors={"m": 0.2, "z": 0.5, "a": 0.3}
    )
    np.testing.assert_allclose(by_dict.class_prior_, [0.5, 0.3, 0.2], rtol=1e-15)
    np.testing.assert_allclose(by_dict.predict_proba(Xt), est.predict_proba(Xt), atol=1e-15)
    # default: uniform priors and classes 0 .. C-1
    plain = cls.from_parameters(means, cov)
    np.testing.assert_array_equal(plain.classes_, [0, 1, 2])
    np.testing.assert_allclose(plain.class_prior_, 1 / 3)
    np.testing.assert_array_equal(plain.predict(Xt[:3]), [0, 1, 2])
    # a reject label for integer classes is -1, and Chow's rule applies
    t = 0.01
    rej = cls.from_parameters(means, cov, loss=LossMatrix.with_reject(3, t))
    assert rej.reject_label_ == -1
    P = rej.predict_proba(Xt)
    expected = np.where(P.max(axis=1) < 1 - t, -1, P.argmax(axis=1))
    np.testing.assert_array_equal(rej.predict(Xt), expected)
