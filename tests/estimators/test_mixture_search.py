"""The BIC search of GaussianMixtureBayes (issue 16, item 4): degenerate candidates
refused as mclust refuses them, the refusals said, k-means starts shared between the
covariance structures and run single-threaded on small classes, several starts per
search, and the number of components chosen by BIC at the defaults."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris
from threadpoolctl import threadpool_info

from bayesrule.datasets import two_modes
from bayesrule.estimators.mixture import GaussianMixtureBayes
from bayesrule.likelihoods.mixture import starts
from bayesrule.likelihoods.mixture.search import SEARCH_STARTS

STRUCTURES = ("full", "tied", "diag", "spherical")


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def _rows_behind(model, n_rows):
    return model.weights_ * n_rows


def _smallest_variance_share(model, X):
    """The smallest variance of any component (less reg_covar) over the class's own
    variance of that feature."""
    variances = np.einsum("kjj->kj", model.full_covariances()) - 1e-6
    return float((variances / X.var(axis=0)).min())


# ------------------------------------------------------------------ degenerate candidates
def test_iris_virginica_is_not_fitted_by_a_component_on_one_row(iris):
    X, y = iris
    gmm = GaussianMixtureBayes("bic", covariance="sklearn", random_state=0).fit(X, y)
    for label in gmm.classes_:
        model, Xc = gmm.mixtures_[label], X[y == label]
        assert _rows_behind(model, len(Xc)).min() >= X.shape[1] + 1, (label, model)
        assert _smallest_variance_share(model, Xc) > 1e-3, (label, model)
    # the spherical candidates that put a component on a single row are refused, said so
    # and left out of the BIC table (mclust gives such models no BIC)
    refused = gmm.refused_[2]
    degenerate = {key: why for key, why in refused.items() if "rows' weight" in why}
    assert degenerate, refused
    assert not set(degenerate) & set(gmm.bic_[2])
    for why in degenerate.values():
        assert f"d + 1 = {X.shape[1] + 1}" in why, why


def test_a_component_at_the_variance_floor_is_refused():
    # class 0: 60 rows around 0 and 12 rows all at one point: two spherical components,
    # one of them on the point, have a variance at reg_covar's floor
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (60, 2)), np.full((12, 2), 6.0), rng.normal(9, 1, (60, 2))])
    y = np.repeat([0, 1], [72, 60])
    gmm = GaussianMixtureBayes("bic", covariance="diag", max_components=3, random_state=0)
    gmm.fit(X, y)
    reasons = gmm.refused_[0]
    assert any("variance floor" in why for why in reasons.values()), reasons
    chosen = gmm.mixtures_[0]
    assert _smallest_variance_share(chosen, X[y == 0]) > 1e-3
    assert set(gmm.bic_[0]).isdisjoint(key for key, why in reasons.items() if "floor" in why)


def test_when_every_structure_is_refused_the_best_is_kept_with_a_warning():
    # class "a": two far rows; any 2-component mixture gives them a component of 2 rows
    rng = np.random.default_rng(0)
    X = np.vstack(
        [rng.normal(0, 1, (30, 2)), [[20.0, 20.0], [20.5, 19.5]], rng.normal(5, 1, (30, 2))]
    )
    y = np.repeat(["a", "b"], [32, 30])
    gmm = GaussianMixtureBayes({"a": 2}, covariance="sklearn", random_state=0)
    with pytest.warns(UserWarning, match=r"class 'a' .*every candidate was refused; kept it"):
        gmm.fit(X, y)
    assert set(gmm.refused_["a"]) == {(s, 2) for s in STRUCTURES}
    kept = gmm.mixtures_["a"]
    assert list(gmm.bic_["a"]) == [(kept.covariance, 2)]
    assert np.sort(kept.weights_ * 32)[0] == pytest.approx(2.0)


def test_refused_candidates_are_shown_in_the_summary(iris):
    X, y = iris
    gmm = GaussianMixtureBayes("bic", covariance="sklearn", random_state=0).fit(X, y)
    text = gmm.summary()
    assert "refused" in text and "rows' weight" in text


# ------------------------------------------------------------------ candidates capped
def test_a_cap_from_the_class_size_is_said():
    # 20 rows in 4 dimensions: a full mixture of k components has 15 k - 1 free
    # parameters, so k <= 1 is all BIC can judge; max_components=6 asks for more
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (20, 4)), rng.normal(3, 1, (200, 4))])
    y = np.repeat(["small", "big"], [20, 200])
    gmm = GaussianMixtureBayes("bic", max_components=6, random_state=0).fit(X, y)
    assert list(gmm.bic_["small"]) == [("full", 1)]
    refused = gmm.refused_["small"]
    assert set(refused) == {("full", k) for k in range(2, 7)}
    why = "more free parameters than rows (29 > 20; BIC cannot judge it)"
    assert refused[("full", 2)] == why
    assert "refused full, k = 2-6: more free parameters than rows (k = 2: 29 > 20" in (
        gmm.summary()
    )
    assert not any("free parameters" in why for why in gmm.refused_["big"].values())


# ------------------------------------------------------------------ the k-means starts
class _Recording(KMeans):
    calls: list = []

    def fit(self, X, y=None, sample_weight=None):
        openmp = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "openmp"]
        _Recording.calls.append((self.n_clusters, X.shape[0], min(openmp, default=1)))
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.fixture
def recorded(monkeypatch):
    """The k-means runs, as (k, rows, OpenMP threads): scikit-learn's KMeans and the
    search's light k-means (threads None)."""
    _Recording.calls = []
    light = starts.seeded_kmeans

    def seeded(X, w, K, rs):
        _Recording.calls.append((K, X.shape[0], None))
        return light(X, w, K, rs)

    monkeypatch.setattr(starts, "KMeans", _Recording)
    monkeypatch.setattr(starts, "seeded_kmeans", seeded)
    return _Recording.calls


def test_kmeans_starts_run_on_one_thread_for_small_classes(recorded):
    X, y = two_modes(random_state=0, return_X_y=True)
    GaussianMixtureBayes(3, n_init=2, random_state=0).fit(X, y)
    assert len(recorded) == 4 and all(threads == 1 for *_, threads in recorded), recorded


def test_one_start_per_class_and_k_is_shared_by_the_structures(recorded):
    X, y = two_modes(random_state=0, return_X_y=True)
    gmm = GaussianMixtureBayes("bic", covariance="bic", max_components=3, n_init=1)
    gmm.set_params(random_state=0).fit(X, y)
    # per class one draw for k = 2 and one for k = 3 (k = 1 needs none), not 4 each
    assert sorted(k for k, *_ in recorded) == [2, 2, 3, 3]
    # mclust's 14 models for k = 1 .. 3 (the one-component ones share three fits)
    assert all(len(table) == 42 for table in gmm.bic_.values())


def test_the_search_gives_each_candidate_several_starts(recorded):
    X, y = two_modes(random_state=0, return_X_y=True)
    gmm = GaussianMixtureBayes("bic", max_components=3, random_state=0).fit(X, y)
    assert gmm.n_init == "auto"
    per_k = {k: sum(1 for kk, *_ in recorded if kk == k) for k in (1, 2, 3)}
    assert per_k == {1: 0, 2: 2 * SEARCH_STARTS, 3: 2 * SEARCH_STARTS}


def test_a_fixed_number_of_components_keeps_one_start_as_scikit_learn(recorded):
    X, y = two_modes(random_state=0, return_X_y=True)
    GaussianMixtureBayes(2, random_state=0).fit(X, y)
    assert [k for k, *_ in recorded] == [2, 2]


# ------------------------------------------------------------------ the defaults
def test_the_default_number_of_components_is_chosen_by_bic():
    assert GaussianMixtureBayes().get_params()["n_components"] == "bic"
    X, y = two_modes(random_state=0, return_X_y=True)
    gmm = GaussianMixtureBayes(random_state=0).fit(X, y)
    assert {c: m.n_components for c, m in gmm.mixtures_.items()} == {1: 1, 2: 2}
