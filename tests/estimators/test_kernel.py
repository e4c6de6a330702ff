"""Kernel density naive Bayes: exact kernel sums, scipy's bandwidth rules, bounded memory."""

import tracemalloc

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import gaussian_kde, kstest, norm

from bayesrule import KernelNB
from bayesrule.likelihoods import Kernel, kernel_exact


def direct(X, y, w, h, rows, n_classes):
    """ln p(x|c) by the definition: per feature a weighted sum of Gaussian kernels."""
    w = np.ones(len(y)) if w is None else w
    out = np.zeros((len(rows), n_classes))
    for c in range(n_classes):
        for j in range(X.shape[1]):
            ok = (y == c) & ~np.isnan(X[:, j]) & (w > 0)
            t, wt = X[ok, j], w[ok]
            for i, x in enumerate(rows[:, j]):
                if np.isnan(x):
                    continue
                terms = np.log(wt) - (x - t) ** 2 / (2 * h[c, j] ** 2)
                out[i, c] += logsumexp(terms) - np.log(np.sqrt(2 * np.pi) * h[c, j] * wt.sum())
    return out


def kde_bandwidth(values, rule):
    """scipy's kernel standard deviation for 1-D data: its factor times the data's sd."""
    kde = gaussian_kde(values, bw_method=rule)
    return kde.factor * np.sqrt(np.cov(values, ddof=1)), np.sqrt(kde.covariance[0, 0])


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], [40, 25, 35])
    X = (
        rng.normal(size=(100, 3)) * [1.0, 2.0, 0.3]
        + np.array([[0, 0, 1], [2, -1, 0], [1, 3, 2]])[y]
    )
    return X, y


@pytest.mark.parametrize("bandwidth", ["scott", "silverman", 0.7])
@pytest.mark.parametrize("weighted", [False, True])
def test_log_likelihood_is_the_kernel_sum(bandwidth, weighted, data):
    X, y = data
    w = np.random.default_rng(1).uniform(0.2, 3.0, len(y)) if weighted else None
    model = KernelNB(bandwidth=bandwidth).fit(X, y, sample_weight=w)
    rows = np.random.default_rng(2).normal(size=(30, 3)) * 2 + 1
    expected = direct(X, y, w, model.bandwidth_, rows, 3)
    np.testing.assert_allclose(model.log_likelihood(rows), expected, rtol=1e-10)
    if bandwidth == 0.7:
        np.testing.assert_array_equal(model.bandwidth_, np.full((3, 3), 0.7))


@pytest.mark.parametrize("rule", ["scott", "silverman"])
def test_bandwidth_rules_are_scipys(rule, data):
    X, y = data
    model = KernelNB(bandwidth=rule).fit(X, y)
    for c in range(3):
        for j in range(3):
            by_factor, by_covariance = kde_bandwidth(X[y == c, j], rule)
            assert model.bandwidth_[c, j] == pytest.approx(by_factor, rel=1e-12)
            assert model.bandwidth_[c, j] == pytest.approx(by_covariance, rel=1e-12)


@pytest.mark.parametrize("rule", ["scott", "silverman"])
def test_weighted_bandwidths_are_scipys_on_the_duplicated_data(rule, data):
    """Weights count samples: scipy on the duplicated data, not its reliability weights.
    (Integer weights equal duplicated rows, and zero weights dropped rows, for KernelNB
    as for every estimator: tests/contract/test_contract.py.)"""
    X, y = data
    w = np.random.default_rng(3).integers(0, 4, len(y))
    weighted = KernelNB(bandwidth=rule).fit(X, y, sample_weight=w)
    values = np.repeat(X[y == 1, 0], w[y == 1])
    assert weighted.bandwidth_[1, 0] == pytest.approx(kde_bandwidth(values, rule)[1], rel=1e-12)


def test_blockwise_evaluation_equals_the_direct_sum(data, monkeypatch):
    X, y = data
    monkeypatch.setattr(kernel_exact, "BLOCK_BYTES", 8 * 40)  # training blocks of a few rows
    monkeypatch.setattr(kernel_exact, "TEST_BLOCK", 7)
    model = KernelNB().fit(X, y)
    rows = np.random.default_rng(4).normal(size=(50, 3)) * 3
    expected = direct(X, y, None, model.bandwidth_, rows, 3)
    np.testing.assert_allclose(model.log_likelihood(rows), expected, rtol=1e-10)


def test_twenty_thousand_rows_against_twenty_thousand_in_bounded_memory():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 10_000)
    X = rng.normal(size=(20_000, 1)) + 2.0 * y[:, None]
    model = KernelNB(algorithm="exact").fit(X, y)
    test = rng.normal(size=(20_000, 1)) + 1.0
    tracemalloc.start()
    try:
        ll = model.log_likelihood(test)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 48 * 2**20  # one class's full (20,000 x 10,000) kernel matrix: 1.6 GB
    assert np.isfinite(ll).all()
    subset = np.r_[0:5, 9_000:9_005, 19_995:20_000]
    expected = direct(X, y, None, model.bandwidth_, test[subset], 2)
    np.testing.assert_allclose(ll[subset], expected, rtol=1e-10)


def test_missing_values_marginalise(data):
    X, y = data
    X = X.copy()
    X[np.random.default_rng(6).random(X.shape) < 0.2] = np.nan
    model = KernelNB().fit(X, y)
    # bandwidths from the observed values only
    for c in range(3):
        values = X[y == c, 1]
        expect = kde_bandwidth(values[~np.isnan(values)], "scott")[1]
        assert model.bandwidth_[c, 1] == pytest.approx(expect, rel=1e-12)
    rows = np.random.default_rng(7).normal(size=(20, 3))
    rows[::2, 1] = np.nan
    expected = direct(X, y, None, model.bandwidth_, rows, 3)
    np.testing.assert_allclose(model.log_likelihood(rows), expected, rtol=1e-10)
    # a missing feature at prediction: the model of the other features
    keep = [0, 2]
    reduced = KernelNB().fit(X[:, keep], y)
    np.testing.assert_allclose(
        model.predict_log_proba(rows[::2]),
        reduced.predict_log_proba(rows[::2][:, keep]),
        rtol=1e-12,
    )
    # every feature missing: the prior
    none = np.full((1, 3), np.nan)
    np.testing.assert_array_equal(model.log_likelihood(none), np.zeros((1, 3)))
    np.testing.assert_allclose(model.predict_proba(none)[0], [0.4, 0.25, 0.35], rtol=1e-14)


def test_a_class_without_any_value_of_a_feature_is_an_error(data):
    X, y = data
    X = X.copy()
    X[y == 2, 0] = np.nan
    with pytest.raises(ValueError, match="feature 0 has no observed .* in class 2,"):
        KernelNB().fit(X, y)


def test_partial_fit_waits_for_a_class_without_samples(data):
    """A first batch without class 2 leaves the model waiting for it. (fit equals summed
    partial_fit: tests/contract/test_contract.py.)"""
    X, y = data
    waiting = KernelNB().partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="class 2 has no samples"):
        waiting.predict(X)
    waiting.partial_fit(X[y == 2], y[y == 2])
    np.testing.assert_allclose(waiting.bandwidth_, KernelNB().fit(X, y).bandwidth_, rtol=1e-13)


@pytest.mark.parametrize("distance", [50.0, 1000.0])
def test_far_away_points_keep_finite_log_likelihoods(distance, data):
    X, y = data
    model = KernelNB().fit(X, y)
    h = model.bandwidth_
    x = X.max(axis=0) + distance * h.max(axis=0)  # 50 and 1000 bandwidths beyond the data
    ll = model.log_likelihood(x[None])
    assert np.isfinite(ll).all()
    np.testing.assert_allclose(ll, direct(X, y, None, h, x[None], 3), rtol=1e-10)
    assert model.predict_proba(x[None]).sum() == pytest.approx(1.0)


def test_two_separated_blobs():
    rng = np.random.default_rng(9)
    y = np.repeat([0, 1], 300)
    X = rng.normal(size=(600, 2)) + np.array([[0.0, 0.0], [3.0, 3.0]])[y]
    model = KernelNB().fit(X[::2], y[::2])
    assert model.score(X[1::2], y[1::2]) > 0.9


def test_constant_features_fall_back_to_the_pooled_spread():
    X = np.array([[1.0, 5.0], [1.0, 6.0], [1.0, 9.0], [2.0, 5.0], [4.0, 5.0], [6.0, 5.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    model = KernelNB().fit(X, y)
    # feature 0 is constant in class 0, feature 1 in class 1: their spread over all classes
    pooled = np.std(X, axis=0, ddof=1)
    factor = 3.0**-0.2
    np.testing.assert_allclose(model.bandwidth_[0, 0], pooled[0] * factor, rtol=1e-13)
    np.testing.assert_allclose(model.bandwidth_[1, 1], pooled[1] * factor, rtol=1e-13)
    assert np.isfinite(model.predict_log_proba(X)).all()
    # one sample in a class; a feature constant everywhere: 1.0
    one = KernelNB().fit([[0.0, 3.0], [1.0, 3.0], [2.0, 3.0], [9.0, 3.0]], [0, 0, 0, 1])
    np.testing.assert_allclose(one.bandwidth_[1, 0], np.std([0, 1, 2, 9.0], ddof=1), rtol=1e-13)
    np.testing.assert_allclose(one.bandwidth_[:, 1], [3.0**-0.2, 1.0], rtol=1e-13)
    assert np.isfinite(one.predict_proba([[4.0, 3.0], [4.0, 100.0]])).all()


@pytest.mark.parametrize(
    ("bandwidth", "error"),
    [
        ("scot", ValueError),
        ("Scott", ValueError),
        (0.0, ValueError),
        (-1.0, ValueError),
        (np.nan, ValueError),
        (np.inf, ValueError),
        (None, TypeError),
        (True, TypeError),
        ([0.5], TypeError),
    ],
)
def test_bad_bandwidths(bandwidth, error, data):
    with pytest.raises(error, match="bandwidth"):
        KernelNB(bandwidth=bandwidth).fit(*data)
    with pytest.raises(error, match="bandwidth"):
        KernelNB(bandwidth=bandwidth).partial_fit(*data, classes=[0, 1, 2])


def test_integer_and_numpy_float_bandwidths(data):
    a = KernelNB(bandwidth=1).fit(*data)
    b = KernelNB(bandwidth=np.float32(1.0)).fit(*data)
    np.testing.assert_array_equal(a.bandwidth_, b.bandwidth_)


def test_float32_input(data):
    X, y = data
    X32 = X.astype(np.float32)
    a = KernelNB().fit(X32, y)
    b = KernelNB().fit(X32.astype(np.float64), y)
    np.testing.assert_allclose(a.predict_proba(X32), b.predict_proba(X32.astype(float)), rtol=1e-12)


def test_sample_follows_the_kernel_density():
    rng = np.random.default_rng(10)
    y = np.repeat([0, 1], 200)
    X = rng.normal(size=(400, 2)) * [1.0, 0.5] + np.array([[0.0, 0.0], [4.0, -2.0]])[y]
    w = rng.uniform(0.5, 2.0, 400)
    model = KernelNB(priors=[0.5, 0.5]).fit(X, y, sample_weight=w)
    draws, labels = model.sample(40_000, random_state=0)
    for c in range(2):
        rows, wc = X[y == c], w[y == c]
        mean = np.average(rows, axis=0, weights=wc)
        var = np.average((rows - mean) ** 2, axis=0, weights=wc) + model.bandwidth_[c] ** 2
        got = draws[labels == c]
        assert (np.abs(got.mean(axis=0) - mean) < 4 * np.sqrt(var / len(got))).all()
        np.testing.assert_allclose(got.var(axis=0), var, rtol=0.05)
    # each feature's draws follow the kernel mixture's distribution function exactly
    for c in range(2):
        for j in range(2):
            t, wc, h = X[y == c, j], w[y == c], model.bandwidth_[c, j]

            def cdf(x, t=t, wc=wc, h=h):
                return norm.cdf((np.asarray(x)[:, None] - t) / h) @ wc / wc.sum()

            assert kstest(draws[labels == c, j], cdf).pvalue > 0.01
    again, _ = model.sample(10, random_state=0)
    np.testing.assert_array_equal(again, model.sample(10, random_state=0)[0])


def test_parameters_and_summary(data):
    X, y = data
    model = KernelNB().fit(X, y)
    like = model.likelihood_
    assert like.n_parameters() == 9  # the bandwidths; the data are not counted
    assert model.n_parameters() == 9 + 2
    n = len(y)
    assert model.bic(X, y) == pytest.approx(
        -2 * model.predict_joint_log_proba(X)[np.arange(n), y].sum() + 11 * np.log(n)
    )
    lines = like.describe([0, 1, 2], ["a", "b", "c"])
    assert "bandwidth" in lines[0] and "100 training samples" in lines[0]
    assert any("class 1: 25 samples" in line for line in lines)
    wide = Kernel(bandwidth=1.0).fit(
        np.random.default_rng(0).normal(size=(6, 25)), [0, 0, 0, 1, 1, 1], 2
    )
    assert wide.describe([0, 1], [f"x{j}" for j in range(25)])[-1] == "  ... (5 more features)"


def test_input_kind_and_tags():
    assert Kernel().input_kind == "missing"
    tags = KernelNB().__sklearn_tags__()
    assert tags.input_tags.allow_nan and not tags.input_tags.sparse


def test_fractional_weights_that_count_no_samples_are_refused():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) * 1000
    y = np.repeat([0, 1], 20)
    with pytest.raises(ValueError, match="counts sample_weight as numbers of samples"):
        KernelNB().fit(X, y, sample_weight=np.full(40, 1 / 40))
    # a float bandwidth does not count samples: any weights
    KernelNB(bandwidth=100.0).fit(X, y, sample_weight=np.full(40, 1 / 40))
    # weights scaled by a factor above 1/min keep the bandwidth rule defined
    a = KernelNB().fit(X, y, sample_weight=np.full(40, 2.0)).bandwidth_
    b = KernelNB().fit(np.repeat(X, 2, axis=0), np.repeat(y, 2)).bandwidth_
    np.testing.assert_allclose(a, b, rtol=1e-12)
