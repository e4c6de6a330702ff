"""GaussianNB with missing values: NaN drops its feature out of the naive Bayes product."""

import numpy as np
import pytest
from scipy import stats as sps

from bayesrule import GaussianBayes, GaussianNB, QuadraticDiscriminant
from bayesrule.likelihoods import Gaussian
from bayesrule.likelihoods.marginal import diagonal_observed
from bayesrule.stats import moments as bstats
from bayesrule.stats.moments import class_moments, merge


@pytest.fixture
def data():
    """Three classes, four features, about 15 % of the values missing."""
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 80)
    centres = np.array([[0.0, 0.0, 5.0, -1.0], [2.0, 1.0, 4.0, 1.0], [-1.0, 3.0, 6.0, 0.0]])
    X = centres[y] + rng.normal(size=(240, 4)) * [1.0, 0.5, 2.0, 1.5]
    X[rng.random(X.shape) < 0.15] = np.nan
    return X, y


def nan_moments(X, y, C):
    mean = np.array([np.nanmean(X[y == c], axis=0) for c in range(C)])
    var = np.array([np.nanvar(X[y == c], axis=0) for c in range(C)])
    count = np.array([(~np.isnan(X[y == c])).sum(axis=0) for c in range(C)], float)
    return count, mean, var


def test_input_kind_follows_the_covariance():
    # NaN: the diagonal structure leaves features out; the others fill them in by EM
    # (maximum likelihood only), see tests/estimators/test_gaussian_em_missing.py
    for name in ("diag", "full", "tied", "spherical", "tied_diag", "tied_spherical", "VEV", "bic"):
        assert Gaussian(name).input_kind == "missing"
    for like in (
        Gaussian("VVV", estimate="map"),
        Gaussian("nonsense"),
        Gaussian(3),
        Gaussian("full", estimate="predictive"),
        Gaussian("full", pooling="cv"),
        Gaussian("tied", shrinkage="auto"),
    ):
        assert like.input_kind == "dense"
    assert GaussianNB().__sklearn_tags__().input_tags.allow_nan
    assert QuadraticDiscriminant().__sklearn_tags__().input_tags.allow_nan


def test_statistics_equal_nanmean_and_nanvar(data, monkeypatch):
    X, y = data
    monkeypatch.setattr(bstats, "STATS_BLOCK_BYTES", 1 << 12)  # many blocks, some merged
    got = class_moments(X, y, 3, kind="diag")
    count, mean, var = nan_moments(X, y, 3)
    assert got.count.shape == (3, 4)
    np.testing.assert_array_equal(got.count, count)
    np.testing.assert_allclose(got.mean, mean, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(got.scatter / got.count, var, rtol=1e-12)
    np.testing.assert_allclose(got.total_mean(), np.nanmean(X, axis=0), rtol=1e-13)
    np.testing.assert_allclose(got.total_variance(), np.nanvar(X, axis=0), rtol=1e-12)


def test_fitted_parameters_are_the_observed_moments(data):
    X, y = data
    model = GaussianNB(var_smoothing=0.0).fit(X, y)
    _, mean, var = nan_moments(X, y, 3)
    np.testing.assert_allclose(model.theta_, mean, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(model.var_, var, rtol=1e-12)
    np.testing.assert_array_equal(model.class_count_, [80, 80, 80])  # rows, not values
    # var_smoothing scales with the largest observed total variance
    smoothed = GaussianNB(var_smoothing=1e-3).fit(X, y)
    eps = 1e-3 * np.nanvar(X, axis=0).max()
    np.testing.assert_allclose(smoothed.likelihood_.epsilon_, eps, rtol=1e-12)
    np.testing.assert_allclose(smoothed.var_, var + eps, rtol=1e-12)


def test_statistics_stay_exact_far_from_the_reference():
    rng = np.random.default_rng(0)
    X = 1e8 + rng.normal(size=(400, 3)) * [1e-3, 1.0, 1e3]
    X[:10] -= 2e8  # the first block's mean (the reference) is far from most data
    y = rng.integers(0, 2, 400)
    X[rng.random(X.shape) < 0.2] = np.nan
    got = class_moments(X, y, 2, kind="diag")
    _, mean, var = nan_moments(X, y, 2)
    np.testing.assert_allclose(got.mean, mean, rtol=1e-15)
    np.testing.assert_allclose(got.scatter / got.count, var, rtol=1e-9)


@pytest.mark.parametrize("missing", [1, 3])
def test_a_missing_value_marginalises_its_feature(data, missing):
    X, y = data
    model = GaussianNB(priors=[0.2, 0.5, 0.3]).fit(X, y)
    keep = [j for j in range(4) if j != missing]
    reduced = GaussianNB.from_parameters(
        model.theta_[:, keep], model.var_[:, keep], priors=[0.2, 0.5, 0.3]
    )
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(5, 4)) * 2
    rows[:, missing] = np.nan
    for method in ("log_likelihood", "predict_joint_log_proba", "predict_log_proba"):
        np.testing.assert_allclose(
            getattr(model, method)(rows), getattr(reduced, method)(rows[:, keep]), rtol=1e-12
        )


def test_log_likelihood_sums_scipy_logpdf_over_observed_features(data):
    X, y = data
    model = GaussianNB().fit(X, y)
    rng = np.random.default_rng(2)
    rows = rng.normal(size=(50, 4)) * 3
    rows[rng.random(rows.shape) < 0.3] = np.nan
    rows[0] = np.nan
    sd = np.sqrt(model.var_)
    expected = np.array(
        [
            [sps.norm.logpdf(row[ok], model.theta_[c, ok], sd[c, ok]).sum() for c in range(3)]
            for row, ok in zip(rows, ~np.isnan(rows), strict=True)
        ]
    )
    np.testing.assert_allclose(model.log_likelihood(rows), expected, rtol=1e-12, atol=1e-12)


def test_rows_with_and_without_nan_agree_where_observed(data):
    """The exact path (rows with NaN) equals the matrix-product path on complete rows."""
    X, y = data
    like = GaussianNB().fit(X, y).likelihood_
    rows = np.random.default_rng(4).normal(size=(30, 4)) * 4 + 1
    fast = like.log_likelihood(rows)
    np.testing.assert_allclose(diagonal_observed(like, rows).T, fast, rtol=1e-12)


def test_all_missing_row_gets_the_prior(data):
    X, y = data
    model = GaussianNB(priors=[0.5, 0.3, 0.2]).fit(X, y)
    row = np.full((1, 4), np.nan)
    np.testing.assert_array_equal(model.log_likelihood(row), np.zeros((1, 3)))
    np.testing.assert_allclose(model.predict_proba(row), [[0.5, 0.3, 0.2]], rtol=1e-14)
    np.testing.assert_allclose(model.log_evidence(row), [0.0], atol=1e-15)
    assert model.predict(row)[0] == 0
    # an all-missing training row changes nothing
    with_row = GaussianNB().fit(np.r_[X, row], np.r_[y, 1])
    np.testing.assert_allclose(with_row.theta_, GaussianNB().fit(X, y).theta_, rtol=1e-14)


def test_partial_fit_mixes_complete_and_missing_batches(data):
    X, y = data
    complete = np.where(np.isnan(X), 0.5, X)
    order = np.random.default_rng(5).permutation(len(y))
    Xs = np.r_[complete[order[:100]], X[order[100:]]]  # complete batches, then missing
    ys = y[order]
    whole = GaussianNB().fit(Xs, ys)
    for cuts in ([100], [40, 100, 170], [170]):
        stream = GaussianNB()
        for part in np.split(np.arange(len(ys)), cuts):
            stream.partial_fit(Xs[part], ys[part], classes=[0, 1, 2])
        np.testing.assert_allclose(stream.theta_, whole.theta_, rtol=1e-12)
        np.testing.assert_allclose(stream.var_, whole.var_, rtol=1e-11)
        np.testing.assert_allclose(stream.predict_proba(X), whole.predict_proba(X), rtol=1e-10)
    # the statistics themselves merge in either order
    a = class_moments(complete[:120], y[:120], 3, kind="diag")
    b = class_moments(X[120:], y[120:], 3, kind="diag")
    assert a.count.shape == (3,) and b.count.shape == (3, 4)
    ab, ba = merge(a, b), b.merge(a)
    np.testing.assert_allclose(ab.scatter, ba.scatter, rtol=1e-13)
    np.testing.assert_array_equal(ab.count, ba.count)


def test_sample_weight_with_missing_values(data):
    X, y = data
    w = np.random.default_rng(6).integers(0, 4, len(y)).astype(float)
    weighted = GaussianNB().fit(X, y, sample_weight=w)
    repeated = GaussianNB().fit(np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    np.testing.assert_allclose(weighted.theta_, repeated.theta_, rtol=1e-12)
    np.testing.assert_allclose(weighted.var_, repeated.var_, rtol=1e-11)
    # weighted nanmean / nanvar by hand
    for c in range(3):
        rows = y == c
        for j in range(4):
            ok = rows & ~np.isnan(X[:, j])
            m = np.average(X[ok, j], weights=w[ok])
            v = np.average((X[ok, j] - m) ** 2, weights=w[ok])
            np.testing.assert_allclose(weighted.theta_[c, j], m, rtol=1e-13)
            eps = weighted.likelihood_.epsilon_
            np.testing.assert_allclose(weighted.var_[c, j] - eps, v, rtol=1e-11)


def test_float32_with_missing_values(data):
    X, y = data
    X32 = X.astype(np.float32)
    a = GaussianNB().fit(X32, y)
    b = GaussianNB().fit(X32.astype(np.float64), y)
    np.testing.assert_allclose(a.theta_, b.theta_, rtol=1e-12)
    np.testing.assert_allclose(a.predict_proba(X32), b.predict_proba(X32.astype(float)), rtol=1e-9)


def test_a_class_never_observing_a_feature_is_an_error(data):
    X, y = data
    X = X.copy()
    X[y == 1, 2] = np.nan
    with pytest.raises(ValueError, match="feature 2 has no observed .* in class 1,"):
        GaussianNB().fit(X, y)
    # partial_fit waits for the value instead
    stream = GaussianNB().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="feature 2 has no observed"):
        stream.predict(X[:3])
    stream.partial_fit([[0.0, 1.0, 4.5, 0.0]], [1])
    assert stream.var_[1, 2] == pytest.approx(stream.likelihood_.epsilon_)
    assert np.isfinite(stream.predict_proba(X)).all()


@pytest.mark.parametrize(
    "make",
    [
        lambda: GaussianBayes(covariance="VVV", estimate="map"),
        lambda: QuadraticDiscriminant(estimate="predictive"),
        lambda: QuadraticDiscriminant(pooling=0.5),
    ],
)
def test_gaussians_without_em_refuse_missing_values(make, data):
    X, y = data
    with pytest.raises(ValueError, match="NaN"):
        make().fit(X, y)
    fitted = make().fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="NaN"):
        fitted.predict(X)


@pytest.mark.parametrize("covariance", ["full", "tied", "spherical", "tied_diag", "bic"])
def test_em_structures_refuse_nan_in_partial_fit(covariance, data):
    X, y = data
    with pytest.raises(ValueError, match="NaN .*EM over all the rows at once"):
        Gaussian(covariance).partial_fit(X, y, n_classes=3)


def test_many_features_with_missing_values_do_not_underflow():
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 100)
    X = rng.normal(size=(200, 3000)) + y[:, None] * 0.1
    X[rng.random(X.shape) < 0.5] = np.nan
    model = GaussianNB().fit(X, y)
    proba = model.predict_proba(X)
    assert np.isfinite(model.log_likelihood(X)).all()
    assert np.isfinite(proba).all() and model.score(X, y) > 0.9


def test_classes_far_apart_with_missing_values_are_exact():
    """A class far from the reference point is evaluated directly, NaN rows included."""
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1], 50)
    X = rng.normal(size=(100, 3)) + np.array([[0.0, 0.0, 0.0], [1e4, -3e4, 5.0]])[y]
    X[rng.random(X.shape) < 0.2] = np.nan
    model = GaussianNB().fit(X, y)
    assert model.likelihood_.exact_classes_.size  # the branch under test
    rows = X[:, :] + 0.5
    rows[3] = np.nan
    sd = np.sqrt(model.var_)
    expected = np.stack(
        [
            np.where(np.isnan(rows), 0.0, sps.norm.logpdf(rows, model.theta_[c], sd[c])).sum(1)
            for c in range(2)
        ],
        axis=1,
    )
    np.testing.assert_allclose(model.log_likelihood(rows), expected, rtol=1e-12)
