"""Marginal Gaussian log-densities of rows with missing values: exact against scipy on the
hand-picked sub-vector and sub-matrix of every row."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

from bayesrule.likelihoods.marginal import log_density_observed, responsibilities
from bayesrule.stats import conditional
from bayesrule.stats.conditional import missing_patterns


def random_gaussians(rng, K, d, offset=0.0):
    means = rng.normal(size=(K, d)) * 3 + offset
    covs = []
    for _ in range(K):
        A = rng.normal(size=(d, d))
        scales = np.exp(rng.normal(size=d))
        covs.append((A @ A.T / d + 0.3 * np.eye(d)) * np.outer(scales, scales))
    return means, np.array(covs)


def with_missing(rng, X, rate):
    X = X.copy()
    X[rng.random(X.shape) < rate] = np.nan
    return X


def scipy_reference(X, means, covs):
    out = np.zeros((len(means), len(X)))
    for i, x in enumerate(X):
        keep = np.flatnonzero(~np.isnan(x))
        if keep.size == 0:
            continue
        for k in range(len(means)):
            sub = covs[k][np.ix_(keep, keep)]
            out[k, i] = multivariate_normal(means[k, keep], sub).logpdf(x[keep])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_every_pattern_equals_scipy_on_the_observed_coordinates(seed):
    rng = np.random.default_rng(seed)
    K, d = 3, 6
    means, covs = random_gaussians(rng, K, d)
    X = with_missing(rng, rng.normal(size=(600, d)) * 3, 0.4)
    assert len(missing_patterns(X)) > 40  # many distinct patterns
    got = log_density_observed(X, means, covs)
    want = scipy_reference(X, means, covs)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def exact_log_density(S, r):
    """ln N(r; 0, S) from the quadratic form and determinant in rational arithmetic."""
    n = len(r)
    A = [[Fraction(v) for v in row] + [Fraction(b)] for row, b in zip(S.tolist(), r, strict=True)]
    det = Fraction(1)
    for c in range(n):  # Gaussian elimination, exact
        det *= A[c][c]
        for i in range(c + 1, n):
            f = A[i][c] / A[c][c]
            A[i] = [a - f * b for a, b in zip(A[i], A[c], strict=True)]
    x = [Fraction(0)] * n
    for i in reversed(range(n)):
        x[i] = (A[i][n] - sum(A[i][j] * x[j] for j in range(i + 1, n))) / A[i][i]
    quad = sum(Fraction(b) * v for b, v in zip(r, x, strict=True))
    return -float(quad) / 2 - math.log(det) / 2 - n / 2 * math.log(2 * math.pi)


def test_log_densities_are_accurate_to_rounding_against_exact_arithmetic():
    # scipy's eigendecomposition is itself off by up to about 1e-12 here; the
    # triangular solves are off by a few units of 1e-15
    rng = np.random.default_rng(0)
    means, covs = random_gaussians(rng, 2, 5)
    X = with_missing(rng, rng.normal(size=(40, 5)) * 3, 0.4)
    got = log_density_observed(X, means, covs)
    for i, x in enumerate(X):
        keep = np.flatnonzero(~np.isnan(x))
        for k in range(2):
            if keep.size:
                r = (x[keep] - means[k, keep]).tolist()  # the rounding both start from
                want = exact_log_density(covs[k][np.ix_(keep, keep)], r)
                assert abs(got[k, i] - want) <= 1e-13 * max(1.0, abs(want))


def test_rows_with_nothing_observed_give_zero_for_every_component():
    rng = np.random.default_rng(1)
    means, covs = random_gaussians(rng, 4, 3)
    X = rng.normal(size=(10, 3))
    X[[2, 5, 9]] = np.nan
    got = log_density_observed(X, means, covs)
    assert (got[:, [2, 5, 9]] == 0.0).all()
    assert np.isfinite(got).all() and (got[:, [0, 1, 3]] != 0).all()
    assert (log_density_observed(np.full((3, 3), np.nan), means, covs) == 0.0).all()


def test_complete_rows_give_the_full_density_also_beside_incomplete_ones():
    rng = np.random.default_rng(2)
    means, covs = random_gaussians(rng, 2, 5)
    X = rng.normal(size=(300, 5)) * 2
    full = np.array([multivariate_normal(m, S).logpdf(X) for m, S in zip(means, covs, strict=True)])
    np.testing.assert_allclose(log_density_observed(X, means, covs), full, rtol=1e-12, atol=1e-12)
    mixed = X.copy()
    mixed[::2, 1] = np.nan
    got = log_density_observed(mixed, means, covs)
    np.testing.assert_allclose(got[:, 1::2], full[:, 1::2], rtol=1e-12, atol=1e-12)


def test_diagonal_covariances_give_the_sum_over_observed_features():
    # the semantics of the diagonal Gaussian's missing values (its _observed_only)
    rng = np.random.default_rng(3)
    means = rng.normal(size=(3, 4))
    variances = np.exp(rng.normal(size=(3, 4)))
    X = with_missing(rng, rng.normal(size=(200, 4)), 0.3)
    got = log_density_observed(X, means, np.array([np.diag(v) for v in variances]))
    terms = norm.logpdf(X[None], means[:, None], np.sqrt(variances)[:, None])
    want = np.where(np.isnan(X)[None], 0.0, terms).sum(axis=2)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_accuracy_far_from_the_origin():
    # means at 1e6 with unit spreads: whitening x - mu first loses nothing
    rng = np.random.default_rng(4)
    means, covs = random_gaussians(rng, 2, 4, offset=1e6)
    Z = with_missing(rng, rng.normal(size=(100, 4)), 0.3)
    got = log_density_observed(Z + means[0], means, covs)
    want = scipy_reference(Z + means[0] - means[0], means - means[0], covs)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_row_blocks_do_not_change_the_result(monkeypatch):
    rng = np.random.default_rng(5)
    means, covs = random_gaussians(rng, 3, 4)
    X = with_missing(rng, rng.normal(size=(2000, 4)), 0.2)
    whole = log_density_observed(X, means, covs)
    monkeypatch.setattr(conditional, "BLOCK_BYTES", 1)  # blocks of 64 rows
    np.testing.assert_allclose(log_density_observed(X, means, covs), whole, rtol=1e-14)


def test_patterns_partition_the_rows():
    rng = np.random.default_rng(6)
    X = with_missing(rng, rng.normal(size=(500, 12)), 0.3)  # 12 features: two bytes of bits
    groups = missing_patterns(X)
    rows = np.concatenate([r for _, r in groups])
    np.testing.assert_array_equal(np.sort(rows), np.arange(500))
    for observed, r in groups:
        np.testing.assert_array_equal(~np.isnan(X[r]), np.broadcast_to(observed, (len(r), 12)))
    assert len({tuple(o) for o, _ in groups}) == len(groups)


def test_responsibilities_are_the_normalised_joint_densities():
    rng = np.random.default_rng(7)
    means, covs = random_gaussians(rng, 3, 4)
    weights = np.array([0.5, 0.3, 0.2])
    X = with_missing(rng, rng.normal(size=(300, 4)) * 3, 0.3)
    X[0] = np.nan
    resp, log_evidence = responsibilities(X, weights, means, covs)
    joint = scipy_reference(X, means, covs).T + np.log(weights)
    evidence = np.logaddexp.reduce(joint, axis=1)
    np.testing.assert_allclose(log_evidence, evidence, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(resp, np.exp(joint - evidence[:, None]), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(resp.sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(resp[0], weights, rtol=1e-14)
    assert log_evidence[0] == 0.0


def test_bad_input_is_refused_with_a_message():
    rng = np.random.default_rng(8)
    means, covs = random_gaussians(rng, 2, 3)
    X = rng.normal(size=(5, 3))
    with pytest.raises(ValueError, match="means must have shape"):
        log_density_observed(X, means[:, :2], covs)
    with pytest.raises(ValueError, match="covariances must have shape"):
        log_density_observed(X, means, covs[:, :2])
    with pytest.raises(ValueError, match="infinity"):
        log_density_observed(np.where(X > 1, np.inf, X), means, covs)
    singular = covs.copy()
    singular[1] = np.ones((3, 3))
    with pytest.raises(ValueError, match="not positive definite"):
        log_density_observed(X, means, singular)
    # only the observed block needs to be positive definite for the marginal
    singular[1] = np.diag([1.0, 1.0, 0.0])
    X[:, 2] = np.nan
    assert np.isfinite(log_density_observed(X, means, singular)).all()
    with pytest.raises(ValueError, match="weights"):
        responsibilities(X, [0.5, -0.5], means, covs)
