"""GaussianMixtureBayes: seed 000's mixture example, parity with scikit-learn, contracts."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.exceptions import NotFittedError
from sklearn.mixture import GaussianMixture

from bayesrule import QuadraticDiscriminant
from bayesrule.datasets import two_modes
from bayesrule.estimators.mixture import GaussianMixtureBayes
from bayesrule.likelihoods.parametrisation import MODELS

STRUCTURES = ("full", "tied", "diag", "spherical")


@pytest.fixture(scope="module")
def data():
    return two_modes(random_state=0)


@pytest.fixture(scope="module")
def fitted(data):
    return GaussianMixtureBayes({1: 1, 2: 2}, random_state=0).fit(data.data, data.target)


@pytest.fixture(scope="module")
def test_set():
    return two_modes(30000, random_state=12345, return_X_y=True)


def _chosen(gmm):
    return {label: m.n_components for label, m in gmm.mixtures_.items()}


# ------------------------------------------------------------------ the seed's example
def test_bic_finds_one_mode_in_class_1_and_two_in_class_2():
    picks = []
    for seed in range(10):
        X, y = two_modes(random_state=seed, return_X_y=True)
        gmm = GaussianMixtureBayes("bic", random_state=seed).fit(X, y)
        picks.append(_chosen(gmm))
        # every candidate has a BIC or a reason why not (a degenerate component)
        assert set(gmm.bic_[1]) | set(gmm.refused_[1]) == {("full", k) for k in range(1, 11)}
        assert not set(gmm.bic_[1]) & set(gmm.refused_[1])
    assert sum(p == {1: 1, 2: 2} for p in picks) >= 9, picks


def test_mixture_beats_one_gaussian_per_class_on_held_out_data(test_set):
    X_test, y_test = test_set
    gaps = []
    for seed in range(10):
        X, y = two_modes(random_state=seed, return_X_y=True)
        mixture = GaussianMixtureBayes({1: 1, 2: 2}, random_state=seed).fit(X, y)
        single = QuadraticDiscriminant().fit(X, y)
        err_mixture = 1 - mixture.score(X_test, y_test)
        err_single = 1 - single.score(X_test, y_test)
        assert err_mixture < err_single, (seed, err_mixture, err_single)
        assert err_mixture < 0.047  # the Bayes error of the true model is about 0.039
        gaps.append(err_single - err_mixture)
    assert np.mean(gaps) > 0.008


def test_the_fitted_mixture_is_near_the_truth(data, fitted):
    m1, m2 = fitted.mixtures_[1], fitted.mixtures_[2]
    order = np.argsort(-m2.means_[:, 1])  # the mode near (2, 3) first
    np.testing.assert_allclose(m1.means_, data.means[1], atol=0.3)
    np.testing.assert_allclose(m2.means_[order], data.means[2][::-1], atol=0.3)
    np.testing.assert_allclose(m2.weights_, [0.5, 0.5], atol=0.08)
    np.testing.assert_allclose(m2.covariances_[order], data.covariances[2][::-1], atol=0.35)
    assert m1.converged_ and m2.converged_
    np.testing.assert_array_equal(fitted.n_iter_, [m1.n_iter_, m2.n_iter_])


def test_surplus_components_share_their_modes_weight():
    # Seed 000: "excessive components result in some small alpha values". Maximum
    # likelihood EM splits each true mode among the components near it, so the
    # surplus ones take part of their mode's weight 1/2 and none stands alone. How
    # small the smallest get depends on the starting point (the seed's alphas 0.02 to
    # 0.06 came from a random start): measured over seeds 0..39 the smallest weight
    # is at most 0.17 and the per-mode sums within 0.056 of 1/2, and the three
    # smallest sum to less than the two largest in most seeds, not in all.
    ratios = []
    for seed in range(10):
        data = two_modes(random_state=seed)
        gmm = GaussianMixtureBayes({1: 1, 2: 5}, random_state=seed)
        gmm.fit(data.data, data.target)
        m = gmm.mixtures_[2]
        w = np.sort(m.weights_)
        assert w.sum() == pytest.approx(1.0)
        assert w[0] < 0.2  # well below a true component's 1/2
        mode = np.argmin(((m.means_[:, None] - data.means[2][None]) ** 2).sum(axis=2), axis=1)
        assert set(mode.tolist()) == {0, 1}
        np.testing.assert_allclose(np.bincount(mode, weights=m.weights_), 0.5, atol=0.08)
        ratios.append(w[:3].sum() / w[3:].sum())
    assert np.median(ratios) < 0.85  # about 0.66 over seeds 0..9


def test_surplus_components_get_small_weights_at_the_best_of_several_starts():
    # Seed 000's observation, "excessive components result in some small alpha
    # values" (its five weights: 0.467 0.033 0.056 0.021 0.423): at the best of ten
    # starts, the smallest of class 2's five weights is far below an equal share (1/5)
    # and a true component's 1/2. Measured over seeds 0..19: at most 0.11, median 0.084.
    smallest = []
    for seed in range(10):
        data = two_modes(random_state=seed)
        gmm = GaussianMixtureBayes({1: 1, 2: 5}, n_init=10, random_state=seed)
        w = np.sort(gmm.fit(data.data, data.target).mixtures_[2].weights_)
        assert w[0] < 0.12, (seed, w)
        smallest.append(w[0])
    assert np.median(smallest) < 0.1


# ------------------------------------------------------------------ Bayes' rule
def test_posteriors_sum_to_one_and_predict_is_their_argmax(fitted, test_set):
    X = test_set[0][:2000]
    proba = fitted.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(fitted.predict(X), fitted.classes_[proba.argmax(axis=1)])
    np.testing.assert_allclose(np.exp(fitted.predict_log_proba(X)), proba, atol=1e-12)
    joint = fitted.predict_joint_log_proba(X)
    np.testing.assert_allclose(joint, fitted.log_likelihood(X) + np.log([1 / 3, 2 / 3]))
    np.testing.assert_allclose(fitted.log_evidence(X), logsumexp(joint, axis=1))
    np.testing.assert_allclose(fitted.risk(X), 1 - proba, atol=1e-12)


@pytest.mark.parametrize("covariance", STRUCTURES)
def test_log_likelihood_is_the_sum_over_components(data, covariance):
    gmm = GaussianMixtureBayes({1: 2, 2: 3}, covariance=covariance, random_state=1).fit(
        data.data, data.target
    )
    X = np.array([[0.0, 0.0], [3.0, -1.0], [2.0, 3.0], [-4.0, 6.0], [10.0, -10.0]])
    expected = np.column_stack(
        [
            logsumexp(
                [
                    np.log(w) + multivariate_normal(mu, cov).logpdf(X)
                    for w, mu, cov in zip(m.weights_, m.means_, m.full_covariances(), strict=True)
                ],
                axis=0,
            )
            for m in gmm.mixtures_.values()
        ]
    )
    np.testing.assert_allclose(gmm.log_likelihood(X), expected, rtol=1e-10)
    np.testing.assert_allclose(gmm.mixtures_[2].log_density(X), expected[:, 1], rtol=1e-10)


def test_sample_moments_and_class_frequencies_match_the_model(fitted):
    n = 200000
    X, y = fitted.sample(n, random_state=7)
    assert X.shape == (n, 2) and set(np.unique(y).tolist()) == {1, 2}
    p2 = np.mean(y == 2)
    assert abs(p2 - 2 / 3) < 5 * np.sqrt(2 / 9 / n)
    for label, m in fitted.mixtures_.items():
        block = X[y == label]
        mean = m.weights_ @ m.means_
        second = np.einsum("k,kij->ij", m.weights_, m.full_covariances())
        second += np.einsum("k,ki,kj->ij", m.weights_, m.means_, m.means_)
        cov = second - np.outer(mean, mean)
        se = np.sqrt(np.diag(cov) / block.shape[0])
        np.testing.assert_array_less(np.abs(block.mean(axis=0) - mean), 5 * se)
        np.testing.assert_allclose(np.cov(block, rowvar=False), cov, atol=0.05)
    # the same random_state gives the same draw
    X2, y2 = fitted.sample(n, random_state=7)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_bic_aic_count_the_mixture_parameters(data, fitted):
    X, y = data.data, data.target
    # class 1: 1 full Gaussian (5); class 2: 2 full Gaussians (1 + 4 + 6); 1 prior
    k = 5 + 11 + 1
    assert fitted.n_parameters() == k
    joint = fitted.predict_joint_log_proba(X)
    ll = joint[np.arange(len(y)), y - 1].sum()
    assert fitted.bic(X, y) == pytest.approx(-2 * ll + k * np.log(len(y)), rel=1e-12)
    assert fitted.aic(X, y) == pytest.approx(-2 * ll + 2 * k, rel=1e-12)


def test_summary_shows_every_mixture(fitted):
    text = fitted.summary()
    assert text.startswith("GaussianMixtureBayes")
    assert "class 1: 1 component" in text and "class 2: 2 components" in text
    for m in fitted.mixtures_.values():
        assert np.array2string(m.weights_ + 0.0, precision=6) in text
        for value in m.means_.ravel():
            assert f"{value:.6f}".rstrip("0") in text


# ------------------------------------------------------------------ parity with scikit-learn
def _inits(data, covariance, rng):
    """Per-class starting points as scikit-learn takes them (a little off the truth)."""
    weights, means, precisions = {}, {}, {}
    for label in (1, 2):
        w, mu, cov = data.weights[label], data.means[label], data.covariances[label]
        weights[label] = w
        means[label] = mu + 0.3 * rng.standard_normal(mu.shape)
        prec = np.linalg.inv(cov * 1.3)
        precisions[label] = {
            "full": prec,
            "tied": prec[0],
            "diag": np.diagonal(prec, axis1=1, axis2=2),
            "spherical": np.diagonal(prec, axis1=1, axis2=2).mean(axis=1),
        }[covariance]
    return weights, means, precisions


@pytest.mark.parametrize("covariance", STRUCTURES)
def test_dict_inits_reproduce_scikit_learn_per_class(data, covariance):
    weights, means, precisions = _inits(data, covariance, np.random.default_rng(3))
    gmm = GaussianMixtureBayes(
        {1: 1, 2: 2},
        covariance=covariance,
        weights_init=weights,
        means_init=means,
        precisions_init=precisions,
    ).fit(data.data, data.target)
    for label in (1, 2):
        ref = GaussianMixture(
            len(weights[label]),
            covariance_type=covariance,
            reg_covar=1e-6,
            max_iter=200,
            tol=1e-4,
            weights_init=weights[label],
            means_init=means[label],
            precisions_init=precisions[label],
        ).fit(data.data[data.target == label])
        ours = gmm.mixtures_[label]
        for name in ("weights_", "means_", "covariances_", "precisions_cholesky_"):
            np.testing.assert_allclose(
                getattr(ours, name), getattr(ref, name), rtol=1e-8, atol=1e-10, err_msg=name
            )
        assert ours.n_iter_ == ref.n_iter_
        assert ours.converged_ == ref.converged_
        assert ours.lower_bound_ == pytest.approx(ref.lower_bound_, rel=1e-8)
        np.testing.assert_allclose(
            ours.log_density(data.data), ref.score_samples(data.data), rtol=1e-8
        )


def test_integer_weights_equal_duplicated_rows(data):
    # with every starting point given (k-means aside), weighted EM is EM on copies
    weights, means, precisions = _inits(data, "full", np.random.default_rng(5))
    opts = dict(weights_init=weights, means_init=means, precisions_init=precisions)
    w = np.random.default_rng(6).integers(0, 4, size=len(data.target))
    weighted = GaussianMixtureBayes({1: 1, 2: 2}, **opts).fit(data.data, data.target, w)
    rows = np.repeat(np.arange(len(w)), w)
    copies = GaussianMixtureBayes({1: 1, 2: 2}, **opts).fit(data.data[rows], data.target[rows])
    for label in (1, 2):
        a, b = weighted.mixtures_[label], copies.mixtures_[label]
        np.testing.assert_allclose(a.means_, b.means_, rtol=1e-9)
        np.testing.assert_allclose(a.covariances_, b.covariances_, rtol=1e-9)
        np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-9)
    np.testing.assert_allclose(weighted.class_prior_, copies.class_prior_)
    np.testing.assert_array_equal(weighted.n_iter_, copies.n_iter_)


def test_em_never_lowers_the_likelihood(fitted):
    for m in fitted.mixtures_.values():
        bounds = np.asarray(m.lower_bounds_)
        assert np.all(np.diff(bounds) >= -1e-10)
        assert bounds[-1] == pytest.approx(m.lower_bound_)


def test_an_init_for_one_class_only_leaves_the_other_to_kmeans(data):
    weights, means, precisions = _inits(data, "full", np.random.default_rng(4))
    opts = dict(weights_init={2: weights[2]}, means_init={2: means[2]})
    opts["precisions_init"] = {2: precisions[2]}
    gmm = GaussianMixtureBayes(2, random_state=0, **opts).fit(data.data, data.target)
    ref = GaussianMixture(
        2, tol=1e-4, weights_init=weights[2], means_init=means[2], precisions_init=precisions[2]
    ).fit(data.data[data.target == 2])
    np.testing.assert_allclose(gmm.mixtures_[2].means_, ref.means_, rtol=1e-8)
    plain = GaussianMixtureBayes(2, random_state=0).fit(data.data, data.target)
    np.testing.assert_array_equal(gmm.mixtures_[1].means_, plain.mixtures_[1].means_)
    assert gmm.mixtures_[1].n_components == 2


def test_classes_left_out_of_the_n_components_dict_get_one(data):
    gmm = GaussianMixtureBayes({2: 2}, random_state=0).fit(data.data, data.target)
    assert _chosen(gmm) == {1: 1, 2: 2}


def test_string_labels_key_the_dicts():
    data = two_modes(random_state=1)
    y = np.where(data.target == 1, "one", "two")
    gmm = GaussianMixtureBayes({"one": 1, "two": 2}, random_state=0).fit(data.data, y)
    assert _chosen(gmm) == {"one": 1, "two": 2}
    assert gmm.predict([[3.0, -1.0]]).tolist() == ["two"]


def test_warm_start_continues_from_the_last_fit(data):
    X, y = data.data, data.target
    init = {2: np.array([[0.0, 0.0], [4.0, 4.0]])}
    # tol 0: EM runs every allowed iteration
    opts = dict(means_init=init, tol=0.0, random_state=0)
    with pytest.warns(Warning):  # not converged in 3 iterations
        warm = GaussianMixtureBayes({1: 1, 2: 2}, max_iter=3, warm_start=True, **opts).fit(X, y)
        warm.fit(X, y)
    with pytest.warns(Warning):
        cold = GaussianMixtureBayes({1: 1, 2: 2}, max_iter=6, **opts).fit(X, y)
    np.testing.assert_allclose(warm.mixtures_[2].means_, cold.mixtures_[2].means_, rtol=1e-10)
    np.testing.assert_allclose(warm.mixtures_[2].weights_, cold.mixtures_[2].weights_, rtol=1e-10)


# ------------------------------------------------------------------ choosing the structure
@pytest.mark.parametrize(("covariance", "structures"), [("sklearn", STRUCTURES), ("bic", MODELS)])
def test_covariance_bic_tries_every_structure_and_keeps_the_best(data, covariance, structures):
    # "sklearn": scikit-learn's four structures; "bic": mclust's 14 models (MclustDA)
    gmm = GaussianMixtureBayes("bic", covariance=covariance, max_components=4, random_state=0)
    gmm.fit(data.data, data.target)
    for label, table in gmm.bic_.items():
        tried = set(table) | set(gmm.refused_[label])
        assert tried == {(s, k) for s in structures for k in range(1, 5)}
        best = min(table, key=table.get)
        m = gmm.mixtures_[label]
        assert (m.covariance, m.n_components) == best
        X = data.data[data.target == label]
        assert m.bic(X) == pytest.approx(table[best], rel=1e-10)
    assert gmm.mixtures_[2].n_components == 2


@pytest.mark.parametrize(("covariance", "structures"), [("sklearn", STRUCTURES), ("bic", MODELS)])
def test_fixed_components_with_covariance_bic_choose_the_structure(data, covariance, structures):
    gmm = GaussianMixtureBayes(2, covariance=covariance, random_state=0)
    gmm.fit(data.data, data.target)
    for table in gmm.bic_.values():
        assert set(table) == {(s, 2) for s in structures}


def test_bic_never_tries_more_components_than_a_class_has_samples():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (4, 2)), rng.normal(5, 1, (40, 2))])
    y = np.repeat([0, 1], [4, 40])
    gmm = GaussianMixtureBayes("bic", max_components=6, random_state=0).fit(X, y)
    assert max(k for _, k in gmm.bic_[0]) <= 4
    assert max(k for _, k in {**gmm.bic_[1], **gmm.refused_[1]}) == 6
    assert all(
        why.startswith("more components than distinct rows") or k <= 4
        for (_, k), why in gmm.refused_[0].items()
    )


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": -2}, ValueError, "n_components"),
        ({"n_components": 1.5}, TypeError, "n_components"),
        ({"n_components": "auto"}, ValueError, "n_components"),
        ({"n_components": {1: 1, 2: 0}}, ValueError, r"n_components\[2\] must be"),
        ({"n_components": {1: 1, 2: 1.5}}, TypeError, r"n_components\[2\] must be"),
        ({"means_init": [np.zeros((1, 2))]}, TypeError, "means_init must be None or a dict"),
        ({"n_components": "bic", "max_components": 0}, ValueError, "max_components"),
        ({"covariance": "banana"}, ValueError, "covariance"),
        ({"reg_covar": -1.0}, ValueError, "reg_covar"),
        ({"max_iter": -1}, ValueError, "max_iter"),
        ({"n_init": 0}, ValueError, "n_init"),
        ({"n_components": {1: 1, 2: 2, 3: 1}}, ValueError, r"\[3\]"),
        ({"means_init": {7: np.zeros((1, 2))}}, ValueError, r"means_init.*\[7\]"),
        ({"weights_init": {"x": [1.0]}}, ValueError, "weights_init"),
        ({"precisions_init": {0: np.eye(2)[None]}}, ValueError, "precisions_init"),
    ],
)
def test_bad_parameters_are_refused_at_fit(data, params, error, match):
    gmm = GaussianMixtureBayes(**params)
    with pytest.raises(error, match=match):
        gmm.fit(data.data, data.target)
    assert not hasattr(gmm, "classes_")


def test_more_components_than_samples_names_the_class():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(23, 2))
    y = np.repeat(["small", "big"], [3, 20])
    with pytest.raises(ValueError, match=r"n_components=5 for class 'small'.*3 samples"):
        GaussianMixtureBayes(5).fit(X, y)
    with pytest.raises(ValueError, match=r"n_components=4 for class 'small'"):
        GaussianMixtureBayes({"small": 4, "big": 1}).fit(X, y)


def test_samples_without_weight_do_not_count_for_components():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.repeat(["a", "b"], [10, 20])
    w = np.r_[[1.0, 1.0], np.zeros(8), np.ones(20)]
    with pytest.raises(ValueError, match=r"n_components=3 for class 'a'.*only 2 samples"):
        GaussianMixtureBayes(3).fit(X, y, sample_weight=w)
    GaussianMixtureBayes(3).fit(X, y)  # unweighted, class "a" has 10


@pytest.mark.parametrize("bad", [np.inf, -np.inf])  # NaN marks a missing value
def test_non_finite_X_is_refused(data, bad):
    X = data.data.copy()
    X[5, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        GaussianMixtureBayes().fit(X, data.target)
    gmm = GaussianMixtureBayes().fit(data.data, data.target)
    with pytest.raises(ValueError, match="NaN|infinity"):
        gmm.predict(X)


def test_a_class_too_small_for_its_structure_is_refused():
    # one sample cannot give a full covariance without regularisation
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)), [[5.0, 5.0]]])
    y = np.repeat([0, 1], [20, 1])
    with pytest.raises(ValueError, match="reg_covar"):
        GaussianMixtureBayes(reg_covar=0.0).fit(X, y)


def test_partial_fit_is_not_available(data):
    gmm = GaussianMixtureBayes()
    assert not hasattr(gmm, "partial_fit")
    with pytest.raises(NotImplementedError, match="streaming EM is not available; use fit"):
        gmm.partial_fit(data.data, data.target, classes=[1, 2])


def test_unfitted_model_raises_not_fitted(data):
    gmm = GaussianMixtureBayes()
    with pytest.raises(NotFittedError):
        gmm.predict(data.data)
    with pytest.raises(NotFittedError):
        gmm.mixtures_  # noqa: B018
    with pytest.raises(NotFittedError):
        gmm.bic_  # noqa: B018


def test_a_failed_refit_leaves_an_unfitted_model(data):
    gmm = GaussianMixtureBayes(random_state=0).fit(data.data, data.target)
    gmm.set_params(n_components=0)
    with pytest.raises(ValueError):
        gmm.fit(data.data, data.target)
    assert not hasattr(gmm, "likelihood_")
    assert not hasattr(gmm, "_labels")


def test_init_stores_parameters_only():
    inits = {1: np.zeros((1, 2))}
    gmm = GaussianMixtureBayes("bic", max_components=0, covariance="nope", means_init=inits)
    params = gmm.get_params()
    assert params["n_components"] == "bic" and params["max_components"] == 0
    assert params["means_init"] is inits


# ------------------------------------------------------------------ persistence
def test_save_and_load_round_trip(tmp_path, fitted, test_set):
    from bayesrule.io import load, save

    path = tmp_path / "gmm.bayesrule"
    save(fitted, path)
    again = load(path)
    X = test_set[0][:500]
    np.testing.assert_array_equal(again.predict_proba(X), fitted.predict_proba(X))
    assert again.get_params() == fitted.get_params()
    assert again.bic_ == fitted.bic_
    for label, m in fitted.mixtures_.items():
        np.testing.assert_array_equal(again.mixtures_[label].means_, m.means_)
        assert again.mixtures_[label].n_iter_ == m.n_iter_
