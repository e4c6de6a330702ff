"""Agreement with scikit-learn, numpy and scipy, to the digits the contract promises.

* ``GaussianNB`` equals scikit-learn's ``GaussianNB`` and ``LinearDiscriminant`` equals
  ``LinearDiscriminantAnalysis(solver="lsqr")`` (plain, float and Ledoit-Wolf shrinkage)
  on iris, wine, breast cancer and digits;
* the ML estimates equal the textbook numpy formulas;
* ``log_likelihood`` equals ``scipy.stats.multivariate_normal.logpdf``;
* a large offset of the data does not change the posteriors;
* the seeds' discriminant ``x^T W_i x + w_i^T x + w_i0`` is the joint log-probability up to
  the class-independent ``-d/2 ln 2 pi``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn import datasets
from sklearn import discriminant_analysis as sk_da
from sklearn import naive_bayes as sk_nb

from bayesrule import GaussianNB, LinearDiscriminant, NearestMean, QuadraticDiscriminant

DATASETS = ["iris", "wine", "breast_cancer", "digits"]
TOL = 1e-7  # absolute on probabilities, relative on parameters


@cache
def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def load_full_rank(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The data set without its constant columns (digits has 3 constant pixels)."""
    X, y = load(name)
    return X[:, X.std(axis=0) > 0], y


@cache
def blobs(seed: int = 0, n: int = 600, d: int = 4, offset: float = 0.0):
    """Three overlapping Gaussian classes with their own covariances."""
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 1.5, size=(3, d))
    y = rng.integers(0, 3, size=n)
    X = np.empty((n, d))
    for c in range(3):
        A = rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d) * (0.5 + 0.3 * c)
        X[y == c] = means[c] + rng.standard_normal(((y == c).sum(), d)) @ A.T
    X = X + offset
    X.setflags(write=False)
    return X, y


def assert_rel(actual, desired, rtol=TOL, err_msg=""):
    """Relative agreement, scaled by the largest entry (so zeros in ``desired`` are fine)."""
    actual, desired = np.asarray(actual), np.asarray(desired)
    assert actual.shape == desired.shape, (actual.shape, desired.shape)
    scale = np.max(np.abs(desired))
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=rtol * scale, err_msg=err_msg)


def assert_log_proba(actual, desired, tol=TOL):
    """Log-posteriors: equal where both are finite (relative, floor 1), -inf together."""
    finite = np.isfinite(desired)
    assert finite.any()
    np.testing.assert_array_equal(np.isfinite(actual), finite)
    np.testing.assert_allclose(actual[finite], desired[finite], rtol=tol, atol=tol)


# ---------------------------------------------------------------------------- GaussianNB


def _compare_nb(ours, theirs, X):
    assert_rel(ours.theta_, theirs.theta_, err_msg="theta_")
    assert_rel(ours.var_, theirs.var_, err_msg="var_")
    np.testing.assert_allclose(ours.class_prior_, theirs.class_prior_, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=TOL)
    assert_log_proba(ours.predict_log_proba(X), theirs.predict_log_proba(X))
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("name", DATASETS)
def test_gaussian_nb_equals_sklearn(name):
    X, y = load(name)
    _compare_nb(GaussianNB().fit(X, y), sk_nb.GaussianNB().fit(X, y), X)


@pytest.mark.parametrize("name", DATASETS)
def test_gaussian_nb_with_priors_equals_sklearn(name):
    X, y = load(name)
    C = len(np.unique(y))
    priors = np.arange(1, C + 1, dtype=float)[::-1]
    priors /= priors.sum()
    ours = GaussianNB(priors=priors.tolist()).fit(X, y)
    theirs = sk_nb.GaussianNB(priors=priors.tolist()).fit(X, y)
    np.testing.assert_allclose(ours.class_prior_, priors, rtol=1e-15)
    _compare_nb(ours, theirs, X)


def test_gaussian_nb_var_smoothing_equals_sklearn():
    X, y = load("wine")
    for vs in (0.0, 1e-6, 1e-2):
        _compare_nb(
            GaussianNB(var_smoothing=vs).fit(X, y),
            sk_nb.GaussianNB(var_smoothing=vs).fit(X, y),
            X,
        )


# ---------------------------------------------------------------------------- LDA


def _compare_lda(ours, theirs, X):
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert_rel(ours.means_, theirs.means_, err_msg="means_")
    assert_rel(ours.covariances_, theirs.covariance_, err_msg="covariance")
    np.testing.assert_allclose(ours.class_prior_, theirs.priors_, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=TOL)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer"])
def test_lda_equals_sklearn_lsqr(name):
    X, y = load(name)
    theirs = sk_da.LinearDiscriminantAnalysis(solver="lsqr", store_covariance=True).fit(X, y)
    _compare_lda(LinearDiscriminant().fit(X, y), theirs, X)


def test_lda_on_raw_digits_is_lda_without_the_constant_pixels():
    """Raw digits has constant pixels: the pooled covariance is singular.

    ``reg_covar="auto"`` (the default) gives only those pixels a small variance, which
    changes no posterior: the model equals scikit-learn's lsqr solver on the digits
    without them. ``reg_covar=0`` refuses and names the fix.
    """
    X, y = load("digits")
    X61, _ = load_full_rank("digits")
    theirs = sk_da.LinearDiscriminantAnalysis(solver="lsqr").fit(X61, y)
    ours = LinearDiscriminant().fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X61), rtol=0, atol=TOL)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X61))
    with pytest.raises(ValueError, match="reg_covar"):
        LinearDiscriminant(reg_covar=0).fit(X, y)


def test_lda_equals_sklearn_lsqr_on_digits_without_constant_pixels():
    X, y = load_full_rank("digits")
    assert X.shape[1] == 61
    theirs = sk_da.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    _compare_lda(LinearDiscriminant().fit(X, y), theirs, X)


@pytest.mark.parametrize("shrinkage", [0.1, 0.5, "auto"])
@pytest.mark.parametrize("name", DATASETS)
def test_lda_shrinkage_equals_sklearn_lsqr(name, shrinkage):
    X, y = load(name)  # shrinkage makes even raw digits non-singular
    theirs = sk_da.LinearDiscriminantAnalysis(solver="lsqr", shrinkage=shrinkage).fit(X, y)
    _compare_lda(LinearDiscriminant(shrinkage=shrinkage).fit(X, y), theirs, X)


# ---------------------------------------------------------------------------- ML estimates


ML_DATA = ["iris", "wine", "blobs"]


def ml_data(name):
    return blobs() if name == "blobs" else load(name)


@pytest.mark.parametrize("name", ML_DATA)
def test_qda_ml_estimates_equal_numpy(name):
    X, y = ml_data(name)
    qda = QuadraticDiscriminant().fit(X, y)
    for k, c in enumerate(qda.classes_):
        Xc = X[y == c]
        assert_rel(qda.means_[k], Xc.mean(axis=0), rtol=1e-12)
        assert_rel(qda.covariances_[k], np.cov(Xc.T, bias=True), rtol=1e-10)
    np.testing.assert_array_equal(qda.class_count_, [(y == c).sum() for c in qda.classes_])


@pytest.mark.parametrize("name", ML_DATA)
def test_lda_covariance_is_count_weighted_average_of_class_covariances(name):
    X, y = ml_data(name)
    lda = LinearDiscriminant().fit(X, y)
    counts = np.array([(y == c).sum() for c in lda.classes_])
    covs = np.array([np.cov(X[y == c].T, bias=True) for c in lda.classes_])
    expected = np.einsum("c,cjk->jk", counts, covs) / counts.sum()
    assert_rel(lda.covariances_, expected, rtol=1e-10)
    for k, c in enumerate(lda.classes_):
        assert_rel(lda.means_[k], X[y == c].mean(axis=0), rtol=1e-12)


@pytest.mark.parametrize("name", ML_DATA)
def test_nearest_mean_variance_is_pooled_mean_squared_deviation(name):
    X, y = ml_data(name)
    nm = NearestMean().fit(X, y)
    sq = sum(((X[y == c] - X[y == c].mean(axis=0)) ** 2).sum() for c in nm.classes_)
    expected = sq / X.size
    assert np.ndim(nm.covariances_) == 0
    np.testing.assert_allclose(float(nm.covariances_), expected, rtol=1e-10)
    d = X.shape[1]
    full = nm.full_covariances()
    np.testing.assert_allclose(full, np.broadcast_to(expected * np.eye(d), full.shape), rtol=1e-10)


@pytest.mark.parametrize("name", ML_DATA)
def test_gaussian_nb_var_is_class_variance_plus_smoothing(name):
    X, y = ml_data(name)
    nb = GaussianNB().fit(X, y)
    eps = 1e-9 * X.var(axis=0).max()
    for k, c in enumerate(nb.classes_):
        assert_rel(nb.var_[k], X[y == c].var(axis=0) + eps, rtol=1e-10)
        assert_rel(nb.theta_[k], X[y == c].mean(axis=0), rtol=1e-12)


# ---------------------------------------------------------------------------- scipy densities


GAUSSIANS = {
    "QuadraticDiscriminant": QuadraticDiscriminant,
    "LinearDiscriminant": LinearDiscriminant,
    "GaussianNB": GaussianNB,
    "NearestMean": NearestMean,
}


@pytest.mark.parametrize("name", list(GAUSSIANS))
@pytest.mark.parametrize("data", ["blobs", "iris", "wine"])
def test_log_likelihood_equals_scipy(name, data):
    X, y = ml_data(data)
    est = GAUSSIANS[name]().fit(X, y)
    Xt = X[::3] + 0.1  # off the training points too
    ll = est.log_likelihood(Xt)
    covs = est.full_covariances()
    assert ll.shape == (Xt.shape[0], len(est.classes_))
    for k in range(len(est.classes_)):
        ref = multivariate_normal(est.means_[k], covs[k]).logpdf(Xt)
        np.testing.assert_allclose(ll[:, k], ref, rtol=1e-10, atol=1e-10)

    joint = est.predict_joint_log_proba(Xt)
    np.testing.assert_allclose(joint, ll + np.log(est.class_prior_), rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(
        est.log_evidence(Xt), logsumexp(joint, axis=1), rtol=1e-13, atol=1e-12
    )
    np.testing.assert_allclose(
        est.predict_log_proba(Xt), joint - logsumexp(joint, axis=1)[:, None], atol=1e-10
    )


def test_gaussian_nb_log_likelihood_equals_scipy_on_digits():
    """Digits has pixels that are constant within a class: their variance is the
    smoothing term alone (about 4e-8), so precisions reach 2e7 and the density must be
    evaluated without cancellation."""
    X, y = load("digits")
    nb = GaussianNB().fit(X, y)
    ll = nb.log_likelihood(X)
    for k in range(len(nb.classes_)):
        ref = multivariate_normal(nb.theta_[k], np.diag(nb.var_[k])).logpdf(X)
        np.testing.assert_allclose(ll[:, k], ref, rtol=1e-10, atol=1e-10, err_msg=f"class {k}")


def test_log_likelihood_equals_scipy_with_unequal_priors():
    X, y = blobs()
    est = QuadraticDiscriminant(priors=[0.7, 0.2, 0.1]).fit(X, y)
    joint = est.predict_joint_log_proba(X)
    np.testing.assert_allclose(
        joint, est.log_likelihood(X) + np.log([0.7, 0.2, 0.1]), rtol=1e-13, atol=1e-12
    )
    np.testing.assert_allclose(
        est.log_evidence(X), logsumexp(joint, axis=1), rtol=1e-13, atol=1e-12
    )


# ---------------------------------------------------------------------------- precision


@pytest.mark.parametrize("name", ["QuadraticDiscriminant", "LinearDiscriminant", "GaussianNB"])
def test_large_offset_leaves_posteriors_unchanged(name):
    X, y = blobs()
    Xo, _ = blobs(offset=1e4)
    assert np.all(np.abs(Xo) > 5e3)
    est = GAUSSIANS[name]
    p = est().fit(X, y).predict_proba(X)
    po = est().fit(Xo, y).predict_proba(Xo)
    np.testing.assert_allclose(po, p, rtol=0, atol=1e-9)
    assert p.min() < 1e-3 and np.sort(p, axis=1)[:, -2].max() > 0.2  # not a trivial set


# ---------------------------------------------------------------------------- discriminants


@pytest.mark.parametrize("name", ["QuadraticDiscriminant", "LinearDiscriminant", "GaussianNB"])
@pytest.mark.parametrize("priors", [None, [0.5, 0.3, 0.2]])
def test_discriminant_coefficients_give_joint_log_proba(name, priors):
    X, y = blobs()
    est = GAUSSIANS[name](priors=priors).fit(X, y)
    C, d = est.means_.shape
    W, w, w0 = est.quadratic_coef_, est.coef_, est.intercept_
    assert W.shape == (C, d, d) and w.shape == (C, d) and w0.shape == (C,)
    Xt = X[::5]
    g = np.einsum("nj,cjk,nk->nc", Xt, W, Xt) + Xt @ w.T + w0
    expected = est.predict_joint_log_proba(Xt) + 0.5 * d * np.log(2 * np.pi)
    np.testing.assert_allclose(g, expected, rtol=1e-8)
    # W_i = -1/2 Sigma_i^-1, w_i = Sigma_i^-1 mu_i
    prec = np.linalg.inv(est.full_covariances())
    assert_rel(W, -0.5 * prec, rtol=1e-9)
    assert_rel(w, np.einsum("cjk,ck->cj", prec, est.means_), rtol=1e-9)
