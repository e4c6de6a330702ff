"""Contract properties of GaussianMixtureBayes (DESIGN.md, principle 9).

Posteriors are probabilities and decide by argmax, integer weights equal duplicated rows
(EM from the same start), log-likelihoods are the mixtures of scipy's normal densities,
decisions follow the loss, samples reproduce the model, BIC/AIC count the parameters,
and a saved model predicts the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from registry import _continuous
from scipy.stats import multivariate_normal

from bayesrule import GaussianMixtureBayes, LossMatrix

LABELS = np.array(["ant", "bee", "cat"])
COVARIANCES = ["full", "tied", "diag", "spherical"]


def data(n=450, seed=0):
    return _continuous(n, seed)


def inits(X, y, k=2):
    """Per-class starting points: k rows of each class as means, equal weights, unit
    precisions in the shape each structure takes."""
    means = {c: X[y == c][:k].copy() for c in LABELS}
    weights = {c: np.full(k, 1.0 / k) for c in LABELS}
    d = X.shape[1]
    shapes = {
        "full": np.tile(np.eye(d), (k, 1, 1)),
        "tied": np.eye(d),
        "diag": np.ones((k, d)),
        "spherical": np.ones(k),
    }
    return means, weights, shapes


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_posteriors_are_probabilities_and_decide_by_argmax(covariance):
    X, y = data()
    Xt, yt = data(300, 1)
    est = GaussianMixtureBayes(2, covariance=covariance, random_state=0).fit(X, y)
    P = est.predict_proba(Xt)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xt), est.classes_[P.argmax(axis=1)])
    np.testing.assert_allclose(
        est.log_evidence(Xt)[:, None] + est.predict_log_proba(Xt),
        est.predict_joint_log_proba(Xt),
        rtol=1e-12,
        atol=1e-9,
    )
    assert est.score(Xt, yt) > 0.6


def test_log_likelihood_is_the_mixture_of_normal_densities():
    X, y = data()
    est = GaussianMixtureBayes(3, random_state=0).fit(X, y)
    Xt = data(50, 2)[0]
    L = est.log_likelihood(Xt)
    for k, label in enumerate(est.classes_):
        m = est.mixtures_[label]
        dens = sum(
            w * multivariate_normal(mu, S).pdf(Xt)
            for w, mu, S in zip(m.weights_, m.means_, m.covariances_, strict=True)
        )
        np.testing.assert_allclose(L[:, k], np.log(dens), rtol=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # tol=0 on purpose
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_integer_weights_equal_duplicated_rows(covariance):
    X, y = data()
    Xt = data(200, 3)[0]
    means, weights, shapes = inits(X, y)
    precisions = {c: shapes[covariance] for c in LABELS}
    options = dict(
        n_components=2,
        covariance=covariance,
        means_init=means,
        weights_init=weights,
        precisions_init=precisions,
        max_iter=30,
        tol=0.0,
    )
    w = np.random.default_rng(3).integers(0, 4, size=len(y))
    weighted = GaussianMixtureBayes(**options).fit(X, y, sample_weight=w)
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    repeated = GaussianMixtureBayes(**options).fit(Xr, yr)
    np.testing.assert_allclose(
        weighted.predict_joint_log_proba(Xt), repeated.predict_joint_log_proba(Xt), rtol=1e-8
    )


def test_reject_rate_falls_as_the_reject_cost_rises():
    X, y = data()
    Xt, _ = data(300, 1)
    P = GaussianMixtureBayes(2, random_state=0).fit(X, y).predict_proba(Xt)
    rates = []
    for t in (0.05, 0.2, 0.4, 0.7):
        est = GaussianMixtureBayes(2, random_state=0, loss=LossMatrix.with_reject(3, t))
        pred = est.fit(X, y).predict(Xt)
        np.testing.assert_array_equal(pred == "reject", P.max(axis=1) < 1 - t)
        rates.append(np.mean(pred == "reject"))
    assert rates[0] > rates[1] > rates[2] >= rates[3] == 0.0


def test_samples_reproduce_the_model():
    X, y = data()
    est = GaussianMixtureBayes(2, random_state=0).fit(X, y)
    Xs, ys = est.sample(60_000, random_state=0)
    freq = np.array([np.mean(ys == c) for c in est.classes_])
    np.testing.assert_allclose(freq, est.class_prior_, atol=5 * np.sqrt(0.25 / 60_000))
    for label in est.classes_:
        m = est.mixtures_[label]
        mean = m.weights_ @ m.means_
        rows = Xs[ys == label]
        se = np.sqrt(np.var(rows, axis=0) / len(rows))
        assert np.all(np.abs(rows.mean(axis=0) - mean) < 5 * se)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_bic_and_aic_count_parameters(covariance):
    X, y = data()
    est = GaussianMixtureBayes(2, covariance=covariance, random_state=0).fit(X, y)
    d, k = X.shape[1], 2
    cov = {"full": k * d * (d + 1) // 2, "tied": d * (d + 1) // 2, "diag": k * d, "spherical": k}
    p = 3 * ((k - 1) + k * d + cov[covariance]) + 2
    ll = est.predict_joint_log_proba(X)[np.arange(len(y)), np.searchsorted(est.classes_, y)].sum()
    assert est.bic(X, y) == pytest.approx(-2 * ll + p * np.log(len(y)), rel=1e-12)
    assert est.aic(X, y) == pytest.approx(-2 * ll + 2 * p, rel=1e-12)


def test_partial_fit_says_to_use_fit():
    X, y = data()
    with pytest.raises(NotImplementedError, match="use fit"):
        GaussianMixtureBayes().partial_fit(X, y, classes=LABELS)


def test_saved_and_loaded_model_predicts_the_same(tmp_path):
    from bayesrule import io as io

    X, y = data()
    est = GaussianMixtureBayes("bic", max_components=3, random_state=0).fit(X, y)
    io.save(est, tmp_path / "gmm.bayes")
    back = io.load(tmp_path / "gmm.bayes")
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    assert back.bic_ == est.bic_
