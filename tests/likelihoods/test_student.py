"""Student-t log-densities against scipy.stats, in blocks, and for large df."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import multivariate_normal, multivariate_t, t

from bayesrule.likelihoods import student
from bayesrule.likelihoods.student import (
    diagonal_t_logpdf,
    isotropic_t_logpdf,
    log_gamma_ratio,
    multivariate_t_logpdf,
)


def _spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T + 0.5 * np.eye(d)


def _upper(S):
    """U with U U^T = inverse(S)."""
    return np.linalg.inv(np.linalg.cholesky(S)).T


@pytest.fixture
def small_blocks(monkeypatch):
    """Force many row blocks (64 rows each)."""
    monkeypatch.setattr(student, "BLOCK_BYTES", 1)


def test_multivariate_matches_scipy_per_class(small_blocks):
    rng = np.random.default_rng(0)
    C, d = 3, 4
    X = rng.normal(size=(300, d)) * 3
    loc = rng.normal(size=(C, d))
    scales = np.array([_spd(rng, d) for _ in range(C)])
    df = np.array([0.7, 4.0, 55.0])
    U = np.array([_upper(S) for S in scales])
    got = multivariate_t_logpdf(X, loc, U, df)
    want = np.array([multivariate_t(loc[c], scales[c], df=df[c]).logpdf(X) for c in range(C)])
    assert_allclose(got, want, rtol=1e-10)


def test_multivariate_shared_factor_with_inflation_matches_scipy(small_blocks):
    rng = np.random.default_rng(1)
    C, d = 4, 3
    X = rng.normal(size=(200, d)) + 100.0  # far from the origin: centring matters
    loc = rng.normal(size=(C, d)) + 100.0
    S = _spd(rng, d)
    factor = np.array([1.0, 1.5, 2.0, 10.0])
    got = multivariate_t_logpdf(X, loc, _upper(S)[None], 3.5, factor)
    want = np.array([multivariate_t(loc[c], factor[c] * S, df=3.5).logpdf(X) for c in range(C)])
    assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("per_feature", [False, True])
def test_diagonal_matches_product_of_scipy_t(small_blocks, per_feature):
    rng = np.random.default_rng(2)
    C, d = 3, 5
    X = rng.normal(size=(150, d)) * 2
    loc = rng.normal(size=(C, d))
    scale = rng.uniform(0.2, 3.0, size=(C, d))
    df = rng.uniform(0.5, 30.0, size=(C, d) if per_feature else C)
    got = diagonal_t_logpdf(X, loc, scale, df)
    dfs = df if per_feature else np.repeat(df[:, None], d, axis=1)
    want = np.array(
        [
            sum(t(dfs[c, j], loc[c, j], np.sqrt(scale[c, j])).logpdf(X[:, j]) for j in range(d))
            for c in range(C)
        ]
    )
    assert_allclose(got, want, rtol=1e-10)


def test_isotropic_matches_scipy(small_blocks):
    rng = np.random.default_rng(3)
    C, d = 3, 4
    X = rng.normal(size=(100, d))
    loc = rng.normal(size=(C, d))
    scale, df = np.array([0.5, 1.0, 4.0]), np.array([1.0, 2.5, 9.0])
    got = isotropic_t_logpdf(X, loc, scale, df)
    want = np.array([multivariate_t(loc[c], scale[c], df=df[c]).logpdf(X) for c in range(C)])
    assert_allclose(got, want, rtol=1e-10)


def test_large_degrees_of_freedom_tend_to_the_gaussian():
    rng = np.random.default_rng(4)
    d = 3
    X = rng.normal(size=(20, d))
    S = _spd(rng, d)
    got = multivariate_t_logpdf(X, np.zeros((1, d)), _upper(S)[None], 1e14)[0]
    # the t's log-density differs from the Gaussian's by O(1 / df)
    assert_allclose(got, multivariate_normal(np.zeros(d), S).logpdf(X), rtol=1e-12)
    got = diagonal_t_logpdf(X, np.zeros((1, d)), np.diag(S)[None], np.array([1e14]))[0]
    want = multivariate_normal(np.zeros(d), np.diag(np.diag(S))).logpdf(X)
    assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("x", [0.3, 5.0, 99.0, 100.0, 1e3, 1e7, 1e15])
@pytest.mark.parametrize("a", [0, 1, 3, 50])
def test_log_gamma_ratio_of_integer_steps_is_a_sum_of_logs(x, a):
    # Gamma(x + a) / Gamma(x) = x (x + 1) ... (x + a - 1)
    want = math.fsum(math.log(x + k) for k in range(a))
    assert_allclose(log_gamma_ratio(x, a), want, rtol=1e-13, atol=1e-300)


def test_log_gamma_ratio_half_steps_are_continuous_at_the_switch():
    below = log_gamma_ratio(np.nextafter(student.STIRLING_FROM, 0), 0.5)
    above = log_gamma_ratio(student.STIRLING_FROM, 0.5)
    assert_allclose(below, above, rtol=1e-13)
    # Gamma(x + 1/2) / Gamma(x) ~ sqrt(x) (1 - 1/(8x) + ...)
    x = 1e12
    assert_allclose(log_gamma_ratio(x, 0.5), 0.5 * math.log(x) - 1 / (8 * x), rtol=1e-15)
