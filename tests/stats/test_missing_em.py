"""EM over missing coordinates: the E step's expected statistics, EM for classes, and the
mixture hook."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning

from bayesrule.likelihoods.marginal import log_density_observed, responsibilities
from bayesrule.stats import conditional
from bayesrule.stats.missing_em import (
    class_e_step,
    expected_moments,
    fit_gaussian_missing,
    mixture_e_step,
)
from bayesrule.stats.missing_start import start_moments
from bayesrule.stats.moments import class_moments, merge
from bayesrule.stats.soft_moments import soft_moments

D = 5
MEANS = np.array([[0.0, 1.0, 2.0, 3.0, 4.0], [100.0, -1.0, 0.5, 2.0, -3.0]])


def ar1(scales, rho):
    i = np.arange(len(scales))
    return rho ** np.abs(i[:, None] - i[None]) * np.outer(scales, scales)


COVS = np.array([ar1([1.0, 2.0, 0.5, 3.0, 1.0], 0.8), ar1([2.0, 1.0, 1.0, 0.3, 1.0], -0.6)])


def ml(stats):
    """The M step of one full Gaussian per class (maximum likelihood)."""
    return stats.mean, stats.scatter / stats.count[:, None, None]


def tied(stats):
    """The M step of one covariance shared by all classes (pooled maximum likelihood)."""
    pooled = stats.scatter.sum(axis=0) / stats.count.sum()
    return stats.mean, np.broadcast_to(pooled, stats.scatter.shape)


def draw(seed, n=2000, rate=0.2):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.multivariate_normal(m, S, n) for m, S in zip(MEANS, COVS, strict=True)])
    y = np.repeat([0, 1], n)
    missing = X.copy()
    missing[rng.random(X.shape) < rate] = np.nan
    return X, missing, y


def one_hot(y, C):
    return np.eye(C)[y]


def brute_force(X, resp, means, covs, w):
    """The E step row by row with explicit solves: the definition."""
    K, d = means.shape
    count, mean, scatter = np.zeros(K), np.zeros((K, d)), np.zeros((K, d, d))
    filled, extra = np.zeros((K, len(X), d)), np.zeros((K, len(X), d, d))
    for i, x in enumerate(X):
        o, m = ~np.isnan(x), np.isnan(x)
        for k in range(K):
            S = covs[k]
            f = x.copy()
            gain = np.linalg.solve(S[np.ix_(o, o)], S[np.ix_(o, m)]).T if o.any() else None
            f[m] = means[k, m] + (gain @ (x[o] - means[k, o]) if o.any() else 0.0)
            extra[k, i][np.ix_(m, m)] = S[np.ix_(m, m)] - (gain @ S[np.ix_(o, m)] if o.any() else 0)
            filled[k, i] = f
    for k in range(K):
        wk = resp[:, k] * w
        count[k] = wk.sum()
        mean[k] = wk @ filled[k] / count[k]
        r = filled[k] - mean[k]
        scatter[k] = (r * wk[:, None]).T @ r + np.einsum("i,ijk->jk", wk, extra[k])
    return count, mean, scatter


# --------------------------------------------------------------------- the E step
def test_expected_moments_follow_the_definition_row_by_row():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4)) * [1.0, 2.0, 3.0, 0.5] + 10
    X[rng.random(X.shape) < 0.35] = np.nan
    X[3] = np.nan
    resp = rng.dirichlet(np.ones(3), size=150)
    means = rng.normal(size=(3, 4)) + 10
    A = rng.normal(size=(3, 4, 4))
    covs = A @ np.swapaxes(A, 1, 2) + np.eye(4)
    w = rng.uniform(0.1, 3.0, 150)
    got = expected_moments(X, resp, means, covs, w)
    count, mean, scatter = brute_force(X, resp, means, covs, w)
    np.testing.assert_allclose(got.count, count, rtol=1e-13)
    np.testing.assert_allclose(got.mean, mean, rtol=1e-12)
    np.testing.assert_allclose(got.scatter, scatter, rtol=1e-11, atol=1e-11)
    assert got.kind == "full"


def test_without_missing_values_the_e_step_is_the_plain_moments():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, D)) * 2 + 1e4  # far from the origin
    y = rng.integers(0, 3, 3000)
    w = rng.uniform(0.0, 2.0, 3000)
    means, covs = rng.normal(size=(3, D)), np.array([np.eye(D)] * 3)  # irrelevant
    for weights in (None, w):
        got = expected_moments(X, one_hot(y, 3), means, covs, weights)
        want = class_moments(X, y, 3, weights, kind="full")
        np.testing.assert_allclose(got.count, want.count, rtol=1e-13)
        np.testing.assert_allclose(got.mean, want.mean, rtol=1e-14)
        np.testing.assert_allclose(got.scatter, want.scatter, rtol=1e-11)


def test_the_statistics_move_with_the_data_far_from_the_origin():
    # sums are taken about the given means; data and means 1e6 away change nothing but
    # the means (the data's own rounding, about 1e-10, aside)
    _, X, y = draw(6, n=500)
    resp = np.random.default_rng(6).dirichlet([1.0, 1.0], size=len(y))
    near = expected_moments(X, resp, MEANS, COVS)
    far = expected_moments(X + 1e6, resp, MEANS + 1e6, COVS)
    np.testing.assert_allclose(far.mean - 1e6, near.mean, rtol=0, atol=1e-9)
    np.testing.assert_allclose(far.scatter, near.scatter, rtol=1e-9)
    # given means far from where the data are: summed again about the new means
    off = expected_moments(X[y == 0], np.ones((np.sum(y == 0), 1)), MEANS[:1] - 1e5, COVS[:1])
    filled = brute_force(X[y == 0], np.ones((np.sum(y == 0), 1)), MEANS[:1] - 1e5, COVS[:1],
                         np.ones(np.sum(y == 0)))  # fmt: skip
    np.testing.assert_allclose(off.mean[0], filled[1][0], rtol=1e-12)
    np.testing.assert_allclose(off.scatter[0], filled[2][0], rtol=1e-9)


def test_a_row_with_nothing_observed_adds_the_mean_and_the_covariance():
    means, covs = MEANS[:1], COVS[:1]
    got = expected_moments(np.full((1, D), np.nan), np.ones((1, 1)), means, covs, [2.0])
    assert got.count[0] == 2.0
    np.testing.assert_allclose(got.mean, means, rtol=1e-15)
    np.testing.assert_allclose(got.scatter[0], 2.0 * covs[0], rtol=1e-14)


def test_one_hot_memberships_equal_class_by_class():
    _, X, y = draw(2, n=500)
    means, covs = MEANS + 0.3, COVS * 1.2
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    together = expected_moments(X, one_hot(y, 2), means, covs, w)
    for c in range(2):
        alone = expected_moments(X[y == c], np.ones((np.sum(y == c), 1)), means[c : c + 1],
                                 covs[c : c + 1], w[y == c])  # fmt: skip
        np.testing.assert_allclose(together.count[c], alone.count[0], rtol=1e-14)
        np.testing.assert_allclose(together.mean[c], alone.mean[0], rtol=1e-13)
        np.testing.assert_allclose(together.scatter[c], alone.scatter[0], rtol=1e-12)


def test_the_class_e_step_is_one_hot_and_adds_over_row_blocks():
    _, X, y = draw(7, n=400)
    w = np.random.default_rng(7).uniform(0.5, 2.0, len(y))
    stats, ll = class_e_step(X, y, MEANS, COVS, w)
    want = expected_moments(X, one_hot(y, 2), MEANS, COVS, w)
    np.testing.assert_allclose(stats.mean, want.mean, rtol=1e-14)
    np.testing.assert_allclose(stats.scatter, want.scatter, rtol=1e-13)
    rows = log_density_observed(X, MEANS, COVS)[y, np.arange(len(y))]
    np.testing.assert_allclose(ll, rows @ w, rtol=1e-13)
    parts = [class_e_step(X[s], y[s], MEANS, COVS, w[s]) for s in np.array_split(np.arange(800), 3)]
    merged = merge(merge(parts[0][0], parts[1][0]), parts[2][0])
    np.testing.assert_allclose(merged.count, stats.count, rtol=1e-14)
    np.testing.assert_allclose(merged.mean, stats.mean, rtol=1e-13)
    np.testing.assert_allclose(merged.scatter, stats.scatter, rtol=1e-12)
    np.testing.assert_allclose(sum(p[1] for p in parts), ll, rtol=1e-13)


def test_integer_weights_equal_duplicated_rows():
    _, X, y = draw(3, n=300)
    w = np.random.default_rng(3).integers(0, 4, len(y))
    resp = np.random.default_rng(4).dirichlet([1.0, 1.0], size=len(y))
    rep = np.repeat(np.arange(len(y)), w)
    weighted = expected_moments(X, resp, MEANS, COVS, w.astype(float))
    duplicated = expected_moments(X[rep], resp[rep], MEANS, COVS)
    np.testing.assert_allclose(weighted.count, duplicated.count, rtol=1e-13)
    np.testing.assert_allclose(weighted.mean, duplicated.mean, rtol=1e-12)
    np.testing.assert_allclose(weighted.scatter, duplicated.scatter, rtol=1e-11)
    a = fit_gaussian_missing(X, y, 2, w.astype(float), ml)
    b = fit_gaussian_missing(X[rep], y[rep], 2, None, ml)
    assert a[1] == b[1]
    np.testing.assert_allclose(a[2], b[2], rtol=1e-11)
    np.testing.assert_allclose(ml(a[0])[1], ml(b[0])[1], rtol=1e-9)


def test_row_blocks_do_not_change_the_statistics(monkeypatch):
    _, X, y = draw(4, n=1000)
    whole = expected_moments(X, one_hot(y, 2), MEANS, COVS)
    monkeypatch.setattr(conditional, "BLOCK_BYTES", 1)  # blocks of 64 rows
    blocks = expected_moments(X, one_hot(y, 2), MEANS, COVS)
    np.testing.assert_allclose(blocks.mean, whole.mean, rtol=1e-13)
    np.testing.assert_allclose(blocks.scatter, whole.scatter, rtol=1e-12)


# --------------------------------------------------------------------- EM for classes
def test_complete_data_converge_in_one_step_to_maximum_likelihood():
    X, _, y = draw(5, n=400)
    stats, n_iter, trace = fit_gaussian_missing(X, y, 2, None, ml)
    assert n_iter == 1 and trace.shape == (1,)
    means, covs = ml(stats)
    for c in range(2):
        np.testing.assert_allclose(means[c], X[y == c].mean(axis=0), rtol=1e-13)
        np.testing.assert_allclose(covs[c], np.cov(X[y == c].T, bias=True), rtol=1e-11)
    want = sum(multivariate_normal(means[c], covs[c]).logpdf(X[y == c]).sum() for c in range(2))
    np.testing.assert_allclose(trace[0], want, rtol=1e-12)


def test_em_recovers_the_class_means_with_20_percent_missing():
    # five seeds x two classes x five features; standard errors of the complete-data mean
    to_sample, to_truth, available_gap = [], [], []
    for seed in range(10, 15):
        complete, X, y = draw(seed)
        stats, n_iter, trace = fit_gaussian_missing(X, y, 2, None, ml)
        assert 2 <= n_iter < 50
        assert np.all(np.diff(trace) >= -1e-10 * abs(trace[-1]))  # EM never goes down
        means, covs = ml(stats)
        for c in range(2):
            se = np.sqrt(np.diag(COVS[c]) / 2000)
            sample = complete[y == c].mean(axis=0)
            to_sample.append((means[c] - sample) / se)
            to_truth.append((means[c] - MEANS[c]) / se)
            available_gap.append((np.nanmean(X[y == c], axis=0) - sample) / se)
            full_ml = np.cov(complete[y == c].T, bias=True)
            assert np.linalg.norm(covs[c] - full_ml) < 0.05 * np.linalg.norm(full_ml)
    to_sample, to_truth, available_gap = map(np.abs, (to_sample, to_truth, available_gap))
    # what the deletion cost: EM against the mean of the data before deletion
    assert to_sample.max() < 2  # measured 0.91
    # against the truth, sampling error included: 50 comparisons, so 2 SE would be
    # exceeded by chance about three times; measured at most 2.7 SE
    assert to_truth.max() < 4
    # the correlations carry information that the available-case means ignore
    # (mean squares, measured 0.12 against 0.20; over 30 seeds 0.12 against 0.27)
    assert np.mean(to_sample**2) < 0.8 * np.mean(available_gap**2)


def test_the_em_fixed_point_is_a_maximum_of_the_observed_likelihood():
    _, X, y = draw(15, n=500, rate=0.3)
    stats, _, trace = fit_gaussian_missing(X, y, 2, None, ml, tol=1e-14)
    means, covs = ml(stats)

    def observed(means, covs):
        return log_density_observed(X, means, covs)[y, np.arange(len(y))].sum()

    best = observed(means, covs)
    np.testing.assert_allclose(best, trace[-1], rtol=1e-12)
    for c, j in [(0, 0), (0, 3), (1, 1), (1, 4)]:
        step = np.zeros_like(means)
        step[c, j] = 1e-3 * np.sqrt(covs[c, j, j])
        assert observed(means + step, covs) < best and observed(means - step, covs) < best
        scaled = covs.copy()
        scaled[c] *= 1.001
        assert observed(means, scaled) < best


def test_the_observed_log_likelihood_never_decreases_also_tied():
    _, X, y = draw(20, n=1000, rate=0.4)
    for estimate in (ml, tied):
        stats, n_iter, trace = fit_gaussian_missing(X, y, 2, None, estimate, tol=1e-12)
        assert n_iter > 5
        assert np.all(np.diff(trace) >= -1e-12 * abs(trace[-1]))
        assert abs(trace[-1] - trace[-2]) <= 1e-12 * abs(trace[-1])
        # the trace is the observed-data log-likelihood of the marginal densities
        means, covs = estimate(stats)
        _, _, again = fit_gaussian_missing(X, y, 2, None, lambda s, p=(means, covs): p, max_iter=2)
        rows = log_density_observed(X, means, covs)[y, np.arange(len(y))]
        np.testing.assert_allclose(again[0], rows.sum(), rtol=1e-12)


def test_em_corrects_values_missing_at_random_that_bias_the_available_cases():
    # x1 is missing where the (observed) x0 is large: the mean of the x1 seen is biased
    rng = np.random.default_rng(30)
    X = rng.multivariate_normal(MEANS[0], COVS[0], 4000)
    se = np.sqrt(COVS[0][1, 1] / 4000)
    missing = X.copy()
    missing[X[:, 0] > 0.5, 1] = np.nan
    y = np.zeros(4000, dtype=int)
    stats, _, _ = fit_gaussian_missing(missing, y, 1, None, ml)
    assert abs(np.nanmean(missing[:, 1]) - X[:, 1].mean()) > 10 * se
    assert abs(stats.mean[0, 1] - X[:, 1].mean()) < 2 * se


def test_the_start_is_positive_definite_and_exact_without_missing_values():
    X, missing, y = draw(40, n=300, rate=0.5)
    start = start_moments(missing, y, 2)
    assert np.all(np.linalg.eigvalsh(start.scatter) > 0)
    exact = start_moments(X, y, 2)
    want = class_moments(X, y, 2, kind="full")
    np.testing.assert_allclose(exact.mean, want.mean, rtol=1e-13)
    np.testing.assert_allclose(exact.scatter, want.scatter, rtol=1e-10)
    one_feature = missing.copy()
    one_feature[y == 1, 2] = np.nan  # never seen in class 1: borrowed from all classes
    assert np.all(np.linalg.eigvalsh(start_moments(one_feature, y, 2).scatter) > 0)


def test_errors_and_the_convergence_warning():
    _, X, y = draw(50, n=100)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        fit_gaussian_missing(X, y, 2, None, ml, tol=0.0, max_iter=2)
    empty = X.copy()
    empty[:, 3] = np.nan
    with pytest.raises(ValueError, match=r"features \[3\] have no observed value"):
        fit_gaussian_missing(empty, y, 2, None, ml)
    with pytest.raises(ValueError, match="class indices"):
        fit_gaussian_missing(X, y + 1, 2, None, ml)
    with pytest.raises(ValueError, match="resp"):
        expected_moments(X, -one_hot(y, 2), MEANS, COVS)
    with pytest.raises(ValueError, match="sample_weight"):
        expected_moments(X, one_hot(y, 2), MEANS, COVS, -np.ones(len(y)))
    with pytest.raises(ValueError, match="not positive definite"):
        expected_moments(X, one_hot(y, 2), MEANS, np.zeros_like(COVS))


# --------------------------------------------------------------------- the mixture hook
def test_the_mixture_e_step_without_missing_values_is_the_soft_moments():
    rng = np.random.default_rng(60)
    X = rng.normal(size=(500, 3)) * 2
    means, covs = rng.normal(size=(2, 3)), np.array([np.eye(3), 2 * np.eye(3)])
    weights, w = np.array([0.3, 0.7]), rng.uniform(0.5, 1.5, 500)
    stats, ll = mixture_e_step(X, weights, means, covs, w)
    pairs = zip(means, covs, strict=True)
    joint = np.array([multivariate_normal(m, S).logpdf(X) for m, S in pairs])
    joint += np.log(weights)[:, None]
    evidence = np.logaddexp.reduce(joint, axis=0)
    np.testing.assert_allclose(ll, evidence @ w, rtol=1e-12)
    want = soft_moments(X, np.exp(joint - evidence).T * w[:, None], kind="full")
    np.testing.assert_allclose(stats.count, want.count, rtol=1e-12)
    np.testing.assert_allclose(stats.mean, want.mean, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(stats.scatter, want.scatter, rtol=1e-11)


def test_the_mixture_e_step_equals_responsibilities_then_expected_moments():
    _, X, _ = draw(61, n=400, rate=0.3)
    X[:5] = np.nan
    weights, w = np.array([0.4, 0.6]), np.random.default_rng(61).uniform(0.5, 2, 800)
    stats, ll = mixture_e_step(X, weights, MEANS, COVS * 3, w)
    resp, log_evidence = responsibilities(X, weights, MEANS, COVS * 3)
    want = expected_moments(X, resp, MEANS, COVS * 3, w)
    np.testing.assert_allclose(ll, log_evidence @ w, rtol=1e-12)
    np.testing.assert_allclose(stats.count, want.count, rtol=1e-12)
    np.testing.assert_allclose(stats.mean, want.mean, rtol=1e-11)
    np.testing.assert_allclose(stats.scatter, want.scatter, rtol=1e-10)


def test_a_mixture_em_with_missing_values_climbs_and_finds_the_components():
    # one "class" drawn from two components; EM through the hook alone
    complete, X, y = draw(62, n=1500, rate=0.2)
    weights, means, covs = np.array([0.5, 0.5]), MEANS + [[5.0], [-5.0]], COVS * 4
    trace = []
    for _ in range(40):
        stats, ll = mixture_e_step(X, weights, means, covs)
        trace.append(ll)
        weights = stats.count / stats.count.sum()
        means, covs = stats.mean, stats.scatter / stats.count[:, None, None]
    assert np.all(np.diff(trace) >= -1e-10 * abs(trace[-1]))
    np.testing.assert_allclose(weights, [0.5, 0.5], atol=1e-3)
    for c in range(2):
        se = np.sqrt(np.diag(COVS[c]) / 1500)
        assert np.all(np.abs(means[c] - complete[y == c].mean(axis=0)) < 2 * se)
