"""Gaussian mixtures fitted by EM: scikit-learn's numerics, weights, BIC, errors."""

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

from bayesrule import BayesClassifier
from bayesrule.likelihoods.mixture import Mixture
from bayesrule.likelihoods.mixture import model as mixture_model
from bayesrule.likelihoods.mixture.family import MixtureModel, fit_mixture
from bayesrule.stats import moments as stats
from bayesrule.stats import soft_moments as soft_stats
from bayesrule.stats.moments import merge
from bayesrule.stats.soft_moments import soft_moments

COVARIANCES = ("full", "tied", "diag", "spherical")


def three_blobs(n=(200, 150, 100), seed=1):
    rng = np.random.default_rng(seed)
    mix = rng.normal(size=(3, 3))
    return np.vstack(
        [
            rng.normal(0, 1, (n[0], 3)),
            rng.normal(3, 0.7, (n[1], 3)) @ mix,
            rng.normal(-2, 1.5, (n[2], 3)),
        ]
    )


def given_inits(X, covariance, K=3):
    """Weights, means (K rows of X) and unit precisions in scikit-learn's shapes."""
    d = X.shape[1]
    precisions = {
        "full": np.repeat(np.eye(d)[None], K, axis=0),
        "tied": np.eye(d),
        "diag": np.ones((K, d)),
        "spherical": np.ones(K),
    }[covariance]
    picks = np.linspace(0, len(X) - 1, K).astype(int)
    weights = np.arange(1, K + 1) / (K * (K + 1) / 2)
    return {"weights_init": weights, "means_init": X[picks], "precisions_init": precisions}


def sklearn_fit(X, K, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return GaussianMixture(K, **options).fit(X)


def assert_same(ours: MixtureModel, theirs: GaussianMixture, tol=1e-8):
    assert ours.n_iter_ == theirs.n_iter_
    assert ours.converged_ == theirs.converged_
    for name in ("weights_", "means_", "covariances_", "precisions_cholesky_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=0, atol=tol)
    assert abs(ours.lower_bound_ - theirs.lower_bound_) < tol
    np.testing.assert_allclose(ours.lower_bounds_, theirs.lower_bounds_, rtol=0, atol=tol)


# ----------------------------------------------------------------------------- parity
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_given_inits_equal_scikit_learn(covariance):
    X = three_blobs()
    options = dict(covariance_type=covariance, tol=1e-6, max_iter=500, **given_inits(X, covariance))
    theirs = sklearn_fit(X, 3, **options)
    ours = fit_mixture(
        X, None, 3, covariance=covariance, tol=1e-6, max_iter=500, **given_inits(X, covariance)
    )
    assert theirs.n_iter_ > 5
    assert_same(ours, theirs)
    np.testing.assert_allclose(ours.log_density(X), theirs.score_samples(X), atol=1e-9)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_kmeans_initialisation_and_restarts_equal_scikit_learn(covariance):
    X = three_blobs(seed=4)
    theirs = sklearn_fit(X, 3, covariance_type=covariance, random_state=3, n_init=3, tol=1e-5)
    ours = fit_mixture(X, None, 3, covariance=covariance, random_state=3, n_init=3, tol=1e-5)
    assert_same(ours, theirs)


def test_many_blocks_and_threads_equal_one_block(monkeypatch):
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(0, 1, (3000, 4)), rng.normal(2.5, 0.8, (3000, 4))])
    inits = given_inits(X, "full", K=2)
    theirs = sklearn_fit(X, 2, tol=1e-7, **inits)
    monkeypatch.setattr(mixture_model, "BLOCK_BYTES", 1 << 14)  # blocks of 64 rows
    ours = fit_mixture(X, None, 2, tol=1e-7, **inits)
    assert_same(ours, theirs)


def test_a_component_far_from_the_reference_is_centred_exactly():
    # a tight cluster 1e4 away: moments about the data's mean would cancel its spread
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (300, 2)), rng.normal(1e4, 0.01, (100, 2))])
    options = dict(means_init=[[0.0, 0.0], [1e4, 1e4]], tol=1e-8)
    theirs = sklearn_fit(X, 2, **options)  # full: scikit-learn centres each component
    ours = fit_mixture(X, None, 2, **options)
    np.testing.assert_allclose(ours.covariances_, theirs.covariances_, rtol=1e-9)
    np.testing.assert_allclose(
        ours.covariances_[1], np.cov(X[300:].T, bias=True) + 1e-6 * np.eye(2), rtol=1e-9
    )


# ----------------------------------------------------------------------------- weights
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_integer_weights_equal_repeated_rows(covariance):
    X = three_blobs(n=(60, 50, 40))
    w = np.random.default_rng(2).integers(0, 4, len(X))
    inits = given_inits(X, covariance)
    weighted = fit_mixture(X, w, 3, covariance=covariance, tol=1e-7, **inits)
    repeated = fit_mixture(
        np.repeat(X, w, axis=0), None, 3, covariance=covariance, tol=1e-7, **inits
    )
    theirs = sklearn_fit(np.repeat(X, w, axis=0), 3, covariance_type=covariance, tol=1e-7, **inits)
    assert_same(weighted, theirs)
    assert weighted.n_iter_ == repeated.n_iter_
    np.testing.assert_allclose(weighted.means_, repeated.means_, atol=1e-10)
    assert abs(weighted.bic(X, w) - repeated.bic(np.repeat(X, w, axis=0))) < 1e-7


def test_zero_weights_equal_dropped_rows():
    X = three_blobs()
    w = np.ones(len(X))
    w[::3] = 0.0
    inits = given_inits(X, "full")
    a = fit_mixture(X, w, 3, **inits)
    b = fit_mixture(X[w > 0], None, 3, **inits)
    np.testing.assert_allclose(a.covariances_, b.covariances_, atol=1e-12)


# ----------------------------------------------------------------------------- iterations
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_lower_bound_never_decreases(covariance):
    X = three_blobs(seed=5)
    model = fit_mixture(
        X, None, 4, covariance=covariance, reg_covar=0.0, tol=1e-9, max_iter=2000, random_state=0
    )
    bounds = np.array(model.lower_bounds_)
    assert len(bounds) == model.n_iter_ > 3
    assert (np.diff(bounds) >= -1e-12).all()
    assert model.lower_bound_ == bounds[-1]
    # the mean log-likelihood under the final parameters is at least the last bound
    assert model.log_density(X).mean() >= bounds[-1] - 1e-12


def test_convergence_warning_when_max_iter_stops_it():
    X = three_blobs()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = fit_mixture(X, None, 3, max_iter=1, random_state=0)
    assert (model.n_iter_, model.converged_, len(model.lower_bounds_)) == (1, False, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        zero = fit_mixture(X, None, 3, max_iter=0, **given_inits(X, "full"))
    assert zero.n_iter_ == 0 and zero.lower_bound_ == -np.inf
    np.testing.assert_array_equal(zero.means_, given_inits(X, "full")["means_init"])


def test_warm_start_continues_where_it_stopped():
    X = three_blobs(seed=6)
    inits = given_inits(X, "full")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        straight = fit_mixture(X, None, 3, tol=0, max_iter=10, **inits)
        first = fit_mixture(X, None, 3, tol=0, max_iter=5, **inits)
        second = fit_mixture(X, None, 3, tol=0, max_iter=5, previous=first)
        theirs = GaussianMixture(3, tol=0, max_iter=5, warm_start=True, **inits)
        theirs.fit(X).fit(X)
    assert second.n_iter_ == 5
    np.testing.assert_allclose(second.means_, straight.means_, atol=1e-12)
    np.testing.assert_allclose(second.lower_bounds_, straight.lower_bounds_[5:], atol=1e-12)
    assert_same(second, theirs)


def test_n_init_keeps_the_best_run():
    X = np.random.default_rng(2).uniform(0, 1, (300, 2))  # many local optima for K=6
    shared = np.random.RandomState(11)  # the seeds n_init=6 draws, one run at a time
    runs = [fit_mixture(X, None, 6, random_state=shared, tol=1e-6) for _ in range(6)]
    bounds = [r.lower_bound_ for r in runs]
    assert max(bounds) - min(bounds) > 1e-2  # the restarts really differ
    best = fit_mixture(X, None, 6, random_state=np.random.RandomState(11), n_init=6, tol=1e-6)
    assert best.lower_bound_ == max(bounds)
    np.testing.assert_array_equal(best.means_, runs[int(np.argmax(bounds))].means_)


# ----------------------------------------------------------------------------- degenerate data
def test_a_collapsed_component_stays_finite():
    X = three_blobs()
    inits = given_inits(X, "full")
    inits["means_init"] = np.vstack([X[:2], [[1e3, 1e3, 1e3]]])  # far from every sample
    model = fit_mixture(X, None, 3, **inits)
    assert model.weights_[2] < 1e-12
    for name in ("weights_", "means_", "covariances_", "precisions_cholesky_"):
        assert np.isfinite(getattr(model, name)).all()
    np.testing.assert_allclose(model.covariances_[2], 1e-6 * np.eye(3), atol=1e-150)
    assert np.isfinite(model.log_density(X)).all()
    theirs = sklearn_fit(X, 3, **inits)
    np.testing.assert_allclose(model.means_[:2], theirs.means_[:2], atol=1e-8)


def test_duplicated_points_stay_finite_with_reg_covar_and_fail_clearly_without():
    X = np.repeat([[0.0, 0.0], [1.0, 2.0], [5.0, 5.0]], 20, axis=0)
    model = fit_mixture(X, None, 3, random_state=0)
    assert np.isfinite(model.log_density(X)).all()
    np.testing.assert_allclose(np.sort(model.weights_), [1 / 3] * 3)
    with pytest.raises(ValueError, match="reg_covar > 0"):
        fit_mixture(X, None, 3, reg_covar=0.0, random_state=0)
    with pytest.raises(ValueError, match="reg_covar > 0"):
        fit_mixture(X, None, 3, covariance="diag", reg_covar=0.0, random_state=0)


# ----------------------------------------------------------------------------- densities
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_log_density_equals_scipy_mixture_sums(covariance):
    X = three_blobs()
    model = fit_mixture(X, None, 3, covariance=covariance, random_state=0)
    full = model.full_covariances()
    rows = X[::7] + 0.3
    per = np.array(
        [
            np.log(w) + multivariate_normal(m, S).logpdf(rows)
            for w, m, S in zip(model.weights_, model.means_, full, strict=True)
        ]
    ).T
    np.testing.assert_allclose(model.component_log_density(rows), per, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(model.log_density(rows), logsumexp(per, axis=1), rtol=1e-12)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_sample_moments_match_the_parameters(covariance):
    X = three_blobs()
    model = fit_mixture(X, None, 3, covariance=covariance, random_state=0)
    draws = model.sample(200_000, np.random.default_rng(0))
    w, mu, S = model.weights_, model.means_, model.full_covariances()
    mean = w @ mu
    cov = np.einsum("k,kij->ij", w, S + mu[:, :, None] * mu[:, None, :]) - np.outer(mean, mean)
    sd = np.sqrt(np.diag(cov))
    assert draws.shape == (200_000, 3)
    np.testing.assert_allclose(draws.mean(axis=0), mean, atol=5 * sd.max() / np.sqrt(2e5))
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.03 * sd.max() ** 2)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_bic_by_hand(covariance):
    X = three_blobs()
    model = fit_mixture(X, None, 3, covariance=covariance, random_state=0)
    theirs = sklearn_fit(X, 3, covariance_type=covariance, random_state=0, tol=1e-4)
    d = 3
    p = {"full": 3 * d * (d + 1) // 2, "tied": d * (d + 1) // 2, "diag": 3 * d, "spherical": 3}
    assert model.n_parameters() == 2 + 3 * d + p[covariance] == theirs._n_parameters()
    hand = -2 * model.log_density(X).sum() + model.n_parameters() * np.log(len(X))
    assert model.bic(X) == pytest.approx(hand, rel=1e-13)
    assert model.bic(X) == pytest.approx(theirs.bic(X), rel=1e-9)
    w = np.linspace(0.5, 2.0, len(X))
    weighted = -2 * w @ model.log_density(X) + model.n_parameters() * np.log(w.sum())
    assert model.bic(X, w) == pytest.approx(weighted, rel=1e-13)


# ----------------------------------------------------------------------------- soft moments
@pytest.mark.parametrize("kind", stats.KINDS)
@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_soft_moments_equal_the_two_pass_formulas(kind, offset, monkeypatch):
    monkeypatch.setattr(soft_stats, "STATS_BLOCK_BYTES", 1 << 13)  # many blocks
    rng = np.random.default_rng(8)
    X = rng.normal(size=(700, 3)) * [1.0, 2.0, 0.5]
    X[:400] += offset  # a far class: its moments must not cancel
    R = rng.random((700, 3))
    R[:400, 0] *= 1e-3
    got = soft_moments(X, R, kind)
    mean = (R.T @ X) / R.sum(0)[:, None]
    full = np.array([(R[:, k] * (X - mean[k]).T) @ (X - mean[k]) for k in range(3)])
    want = {"full": full, "tied": full.sum(0), "diag": np.einsum("kjj->kj", full)}[kind]
    np.testing.assert_allclose(got.count, R.sum(0), rtol=1e-14)
    # a weighted mean is accurate to a few ulps of the largest value summed (the blocks
    # are merged about their own means): 1.5e-13 relative at offset 1e6 on AVX-512 BLAS
    np.testing.assert_allclose(got.mean, mean, rtol=1e-13, atol=4e-16 * np.abs(X).max())
    np.testing.assert_allclose(got.scatter, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())
    halves = merge(soft_moments(X[:350], R[:350], kind), soft_moments(X[350:], R[350:], kind))
    np.testing.assert_allclose(
        halves.scatter, got.scatter, rtol=1e-9, atol=1e-9 * np.abs(want).max()
    )


def test_soft_moments_with_one_hot_memberships_equal_class_moments():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(300, 4))
    y = rng.integers(0, 3, 300)
    soft = soft_moments(X, np.eye(3)[y], "full")
    hard = stats.class_moments(X, y, 3, kind="full")
    np.testing.assert_allclose(soft.scatter, hard.scatter, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(soft.mean, hard.mean, rtol=1e-13)


# ----------------------------------------------------------------------------- the likelihood
def one_and_two_modes(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = np.vstack(
        [
            rng.normal([0.0, 0.0], 1.0, (n, 2)),
            rng.normal([-4.0, 3.0], 0.8, (n // 2, 2)),
            rng.normal([4.0, 3.0], 0.8, (n // 2, 2)),
        ]
    )
    return X, np.repeat([0, 1], [n, n])


def test_bic_chooses_one_and_two_components():
    X, y = one_and_two_modes()
    like = Mixture(n_components="bic", max_components=4, random_state=0).fit(X, y, 2)
    assert [m.n_components for m in like.mixtures_] == [1, 2]
    for table, model in zip(like.bic_, like.mixtures_, strict=True):
        assert sorted(table) == [("full", k) for k in range(1, 5)]
        assert min(table, key=table.get) == ("full", model.n_components)
    Xc = X[y == 1]
    assert like.bic_[1][("full", 2)] == pytest.approx(like.mixtures_[1].bic(Xc), rel=1e-12)


def test_bic_also_chooses_the_structure():
    X, y = one_and_two_modes(seed=1)
    like = Mixture(n_components="bic", covariance="sklearn", max_components=3, random_state=0)
    like.fit(X, y, 2)
    assert len(like.bic_[0]) == 12
    # isotropic unit blobs: one spherical component, and two for the two-mode class
    assert (like.mixtures_[0].covariance, like.mixtures_[0].n_components) == ("spherical", 1)
    assert like.mixtures_[1].n_components == 2


def test_likelihood_per_class_equals_scikit_learn_per_class():
    X, y = one_and_two_modes(seed=2)
    like = Mixture(n_components={1: 2}, random_state=0, tol=1e-6).fit(X, y, 2)
    shared = np.random.RandomState(0)  # Mixture draws class after class from one state
    for c, k in enumerate([1, 2]):
        theirs = sklearn_fit(X[y == c], k, random_state=shared, tol=1e-6)
        assert_same(like.mixtures_[c], theirs)
    np.testing.assert_allclose(
        like.log_likelihood(X[:50]),
        np.column_stack([m.log_density(X[:50]) for m in like.mixtures_]),
        rtol=1e-14,
    )
    assert like.n_parameters() == 5 + 11


def test_in_a_classifier():
    def flanked(seed, n=300):  # class 1's two modes on either side of class 0
        rng = np.random.default_rng(seed)
        X = np.vstack(
            [
                rng.normal([0.0, 0.0], 1.0, (n, 2)),
                rng.normal([-2.5, 0.0], 0.5, (n // 2, 2)),
                rng.normal([2.5, 0.0], 0.5, (n // 2, 2)),
            ]
        )
        return X, np.repeat([0, 1], [n, n])

    X, y = flanked(3)
    clf = BayesClassifier(Mixture(n_components={1: 2}, random_state=0)).fit(X, y)
    single = BayesClassifier().fit(X, y)
    Xt, yt = flanked(4)
    assert clf.score(Xt, yt) > single.score(Xt, yt) + 0.03
    draws, labels = clf.sample(1000, random_state=0)
    assert draws.shape == (1000, 2) and set(labels) == {0, 1}
    lines = clf.likelihood_.describe(["a", "b"], ["x", "y"])
    assert lines[1].startswith("class a: 1 component, covariance='full'")
    assert any(line.startswith("class b: 2 components") for line in lines)
    assert clf.bic(X, y) == pytest.approx(
        -2 * clf.predict_joint_log_proba(X)[np.arange(len(y)), y].sum()
        + (clf.likelihood_.n_parameters() + 1) * np.log(len(y))
    )


def test_warm_start_of_the_likelihood_starts_from_the_fitted_mixtures():
    X, y = one_and_two_modes(seed=5)
    like = Mixture(n_components=2, warm_start=True, random_state=0).fit(X, y, 2)
    assert all(m.converged_ for m in like.mixtures_)
    before = [m.lower_bound_ for m in like.mixtures_]
    like.fit(X, y, 2)
    assert [m.n_iter_ for m in like.mixtures_] == [1, 1]  # the gain was already below tol
    np.testing.assert_allclose([m.lower_bound_ for m in like.mixtures_], before, atol=1e-4)


def test_random_state_makes_fits_repeatable():
    X, y = one_and_two_modes(seed=6)
    a = Mixture(n_components=3, random_state=5).fit(X, y, 2)
    b = Mixture(n_components=3, random_state=5).fit(X, y, 2)
    for ma, mb in zip(a.mixtures_, b.mixtures_, strict=True):
        np.testing.assert_array_equal(ma.means_, mb.means_)


def test_init_dicts_apply_to_their_class():
    X, y = one_and_two_modes(seed=7)
    means = np.array([[-4.0, 3.0], [4.0, 3.0]])
    like = Mixture(n_components={1: 2}, means_init={1: means}, tol=1e-8).fit(X, y, 2)
    theirs = sklearn_fit(X[y == 1], 2, means_init=means, tol=1e-8, random_state=0)
    np.testing.assert_allclose(like.mixtures_[1].means_, theirs.means_, atol=1e-8)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_components": 0}, ValueError, "n_components must be an integer >= 1"),
        ({"n_components": 1.5}, TypeError, "n_components must be an integer"),
        ({"n_components": 500}, ValueError, "more than the 450 samples"),
        ({"covariance": "VVX"}, ValueError, "covariance must be one of"),
        ({"reg_covar": -1.0}, ValueError, "reg_covar must be a finite number >= 0"),
        ({"n_init": 0}, ValueError, "n_init must be an integer >= 1"),
        ({"max_iter": -1}, ValueError, "max_iter must be an integer >= 0"),
        ({"tol": "small"}, TypeError, "tol must be a number"),
        ({"weights_init": [0.5, 0.5]}, ValueError, r"weights_init must have shape \(3,\)"),
        ({"weights_init": [0.5, 0.4, 0.3]}, ValueError, "sum to 1"),
        ({"means_init": np.zeros((3, 2))}, ValueError, r"means_init must have shape \(3, 3\)"),
        ({"precisions_init": np.ones((3, 3))}, ValueError, r"shape \(3, 3, 3\)"),
        (
            {"precisions_init": np.repeat([[[1.0, 2, 0], [2, 1, 0], [0, 0, 1]]], 3, axis=0)},
            ValueError,
            "positive definite",
        ),
        (
            {"precisions_init": np.repeat([[[1.0, 0.1, 0], [0, 1, 0], [0, 0, 1]]], 3, axis=0)},
            ValueError,
            "symmetric",
        ),
    ],
)
def test_fit_mixture_bad_input(kwargs, error, match):
    X = three_blobs()
    options = {"n_components": 3, **kwargs}
    k = options.pop("n_components")
    with pytest.raises(error, match=match):
        fit_mixture(X, None, k, **options)


def test_fit_mixture_bad_data_and_previous():
    X = three_blobs()
    with pytest.raises(ValueError, match="finite"):  # (NaN marks a missing value)
        fit_mixture(np.where(X > 2, np.inf, X), None, 2)
    with pytest.raises(ValueError, match="sample_weight"):
        fit_mixture(X, -np.ones(len(X)), 2)
    first = fit_mixture(X, None, 2, covariance="diag", random_state=0)
    with pytest.raises(ValueError, match="warm start needs covariance='full', 2"):
        fit_mixture(X, None, 2, previous=first)
    with pytest.raises(TypeError, match="previous must be a MixtureModel"):
        fit_mixture(X, None, 2, previous="yes")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_components": "auto"}, ValueError, "an int, a dict or 'bic'"),
        ({"n_components": {2: 2}}, ValueError, r"keyed by class index 0 \.\. 1, got keys \[2\]"),
        ({"n_components": {"a": 2}}, ValueError, "keyed by class index"),
        ({"n_components": {1: 0}}, ValueError, r"n_components\[1\] must be an integer >= 1"),
        ({"max_components": 0}, ValueError, "max_components must be an integer >= 1"),
        ({"covariance": "round"}, ValueError, "covariance must be one of"),
        ({"means_init": np.zeros((2, 2))}, TypeError, "means_init must be None or a dict"),
        ({"means_init": {5: np.zeros((1, 2))}}, ValueError, "keyed by class index"),
        (
            {"n_components": "bic", "means_init": {0: np.zeros((1, 2))}},
            ValueError,
            "cannot be combined with n_components='bic'",
        ),
        (
            {"n_components": 2, "means_init": {1: np.zeros((3, 2))}},
            ValueError,
            r"class at position 1 \(n_components=2.*means_init must have shape \(2, 2\)",
        ),
        (
            {"n_components": {0: 301}},
            ValueError,
            "n_components=301 for the class at position 0 is more than its 300 samples",
        ),
        (
            {"n_components": 150, "reg_covar": 0.0},
            ValueError,
            r"class at position 0 has 300 distinct samples, too few for 150 components .*"
            r"covariance='diag'",
        ),
    ],
)
def test_mixture_bad_input(kwargs, error, match):
    X, y = one_and_two_modes()
    with pytest.raises(error, match=match):
        Mixture(**kwargs).fit(X, y, 2)


def test_mixture_has_no_additive_statistics():
    X, y = one_and_two_modes()
    with pytest.raises(NotImplementedError, match="use fit"):
        Mixture().partial_fit(X, y, 2)
    with pytest.raises(NotImplementedError, match="use fit"):
        Mixture().statistics(X, y, 2)


def test_convergence_warnings_name_the_class():
    X, y = one_and_two_modes()
    with pytest.warns(ConvergenceWarning) as record:
        Mixture(n_components=2, max_iter=1, random_state=0).fit(X, y, 2)
    messages = [str(r.message) for r in record]
    assert len(messages) == 2
    for c, message in enumerate(messages):
        start = f"the class at position {c} (n_components=2, covariance='full'): "
        assert message.startswith(start)
        assert "max_iter=1" in message
