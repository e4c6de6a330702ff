"""Mixtures with mclust's 14 covariance models: EM from a given partition against R's
mclust 6.0.0 (``me``), densities against scipy, the batched and blocked EM paths, the
parameter counts, and the BIC search among the 14 models."""

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.datasets import load_iris

from bayesrule.estimators.mixture import GaussianMixtureBayes
from bayesrule.likelihoods.mixture import Mixture, em_small
from bayesrule.likelihoods.mixture.em import fit_mixture
from bayesrule.likelihoods.mixture.model import MCLUST_MODELS
from bayesrule.likelihoods.parametrisation import n_covariance_parameters

#: k-means partitions (k = 2) of each iris species (setosa, versicolor, virginica; rows
#: in R's and scikit-learn's order), from
#: ``KMeans(2, n_init=10, random_state=0).fit(X[y == c]).labels_`` (scikit-learn 1.x)
PARTITIONS = {
    0: "01110010110111000000001011000110001100100110010101",
    1: "11101110100101011010101111111000010111000100000100",
    2: "00100101010000000110101001000111000100000001000000",
}

#: ``(loglik, BIC)`` of mclust 6.0.0's EM from those partitions, per species and model:
#:
#:     library(mclust)
#:     starts <- list("0111...", "1110...", "0010...")       # PARTITIONS, as strings
#:     for (cl in 0:2) {
#:       X <- as.matrix(iris[iris$Species == levels(iris$Species)[cl + 1], 1:4])
#:       lab <- as.integer(strsplit(starts[[cl + 1]], "")[[1]]) + 1
#:       for (m in mclust.options("emModelNames")) {
#:         fit <- me(modelName = m, data = X, z = unmap(lab), warn = FALSE,
#:                   control = emControl(tol = c(1e-12, 1e-12), itmax = c(1e5, 1e5)))
#:         cat(cl, m, sprintf("%.17g", fit$loglik),
#:             sprintf("%.17g", bic(m, fit$loglik, nrow(X), ncol(X), 2)), "\n")
#:       }
#:     }
#:
#: (mclust's BIC is ``2 loglik - df ln n``, ours its negative.)
MCLUST_ME = {
    (0, "EII"): (9.6706472027478387, -19.778935648785779),
    (0, "VII"): (9.8781993926916911, -23.275854274326221),
    (0, "EEI"): (35.602704525590774, 20.349109980615651),
    (0, "VEI"): (37.702306093091927, 20.636290110189812),
    (0, "EVI"): (41.365789344550279, 20.139210602250223),
    (0, "VVI"): (43.461560566109505, 20.418730039940527),
    (0, "EEE"): (55.023991158741353, 35.719545214347932),
    (0, "VEE"): (52.207219876746777, 26.17397964493064),
    (0, "EVE"): (57.281207396750666, 28.497908674082126),
    (0, "VVE"): (56.964476317150286, 23.952423509453212),
    (0, "EEV"): (59.578426252535102, 21.356277369366552),
    (0, "VEV"): (59.600285306377877, 17.487972471623962),
    (0, "EVV"): (60.380125677704882, 11.223607203421679),
    (0, "VVV"): (60.410884192941204, 7.3731012284661688),
    (1, "EII"): (-52.725493952877891, -144.57121796003725),
    (1, "VII"): (-52.33122768995262, -147.69470843961483),
    (1, "EEI"): (-32.261745829217084, -115.37979072900006),
    (1, "VEI"): (-32.245911351458865, -119.26014477891178),
    (1, "EVI"): (-29.715769254732376, -122.02390659631509),
    (1, "VVI"): (-29.659073466396521, -125.82253802507152),
    (1, "EEE"): (-5.7952532890217388, -85.918943681178249),
    (1, "VEE"): (-5.7776660190052009, -89.795792146573319),
    (1, "EVE"): (-0.00096872848761520025, -86.066443576394434),
    (1, "VVE"): (0.048422631513679315, -89.879683861819998),
    (1, "EEV"): (-0.16838789908794061, -98.137350933879532),
    (1, "VEV"): (-0.035464841100127042, -101.78352782333205),
    (1, "EVV"): (3.218478425460364, -103.09968730106736),
    (1, "VVV"): (3.3828198153820939, -106.68302752665205),
    (2, "EII"): (-89.132027552470987, -217.38428515922342),
    (2, "VII"): (-89.041412407345362, -221.11507787440033),
    (2, "EEI"): (-84.977253351619865, -220.81080577380561),
    (2, "VEI"): (-82.15382445880023, -219.0759709935945),
    (2, "EVI"): (-82.547664706550279, -227.6876974999509),
    (2, "VVI"): (-81.888642560296077, -230.28167621287065),
    (2, "EEE"): (-51.335887605081446, -177.00021231329765),
    (2, "VEE"): (-50.410034280623769, -179.06052866981045),
    (2, "EVE"): (-43.817250761645433, -173.69900764271006),
    (2, "VVE"): (-45.139473101371046, -180.25547532758947),
    (2, "EEV"): (-44.362166529800646, -186.52490819530493),
    (2, "VEV"): (-43.845376505569753, -189.40335115227128),
    (2, "EVV"): (-41.621665706289271, -192.77997556456663),
    (2, "VVV"): (-36.9938838984977, -187.43643495441165),
}

#: mclust's VVE M step (``mstep``, an MM iteration) does not reach the maximum of the
#: expected log-likelihood: from its own final responsibilities on setosa our M step
#: gives a higher one (262.3074 against 262.2170), and one more ``mstep``/``estep`` pair
#: of mclust's changes its log-likelihood (up or down). EM with an exact M step ends
#: higher than ``me`` from the same start, so for VVE we check that it is not lower.
INEXACT_IN_MCLUST = ("VVE",)


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def species(iris, c):
    X, y = iris
    return X[y == c], np.array([int(v) for v in PARTITIONS[c]])


@pytest.mark.parametrize("model", MCLUST_MODELS)
@pytest.mark.parametrize("c", [0, 1, 2])
def test_em_from_a_partition_equals_mclust_me(iris, c, model):
    X, labels = species(iris, c)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # converged, no warning
        fitted = fit_mixture(
            X, None, 2, covariance=model, reg_covar=0.0, tol=1e-13, max_iter=10_000,
            starts=[labels],
        )  # fmt: skip
    loglik, bic = fitted.log_density(X).sum(), fitted.bic(X)
    want_loglik, want_bic = MCLUST_ME[c, model]
    n_parameters = 1 + 2 * 4 + n_covariance_parameters(model, 2, 4)
    assert fitted.n_parameters() == n_parameters
    assert bic == pytest.approx(-2 * loglik + n_parameters * np.log(50), rel=1e-14)
    if model in INEXACT_IN_MCLUST:
        assert loglik > want_loglik and bic < -want_bic
        return
    # relative to the BIC (versicolor's EVE log-likelihood is about -1e-3)
    assert abs(loglik - want_loglik) < 1e-6 * abs(want_bic)
    assert -bic == pytest.approx(want_bic, rel=1e-6)


@pytest.mark.parametrize("model", MCLUST_MODELS)
def test_densities_equal_scipy_and_both_em_paths_agree(iris, model, monkeypatch):
    X, labels = species(iris, 1)
    small = fit_mixture(X, None, 2, covariance=model, starts=[labels], tol=1e-8)
    monkeypatch.setattr(em_small, "SMALL_CELLS", 0)  # the blocked passes of em.py
    blocked = fit_mixture(X, None, 2, covariance=model, starts=[labels], tol=1e-8)
    assert small.n_iter_ == blocked.n_iter_
    np.testing.assert_allclose(small.means_, blocked.means_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(small.covariances_, blocked.covariances_, rtol=0, atol=1e-9)
    S = small.full_covariances()
    expected = logsumexp(
        [np.log(small.weights_[k]) + multivariate_normal(small.means_[k], S[k]).logpdf(X)
         for k in range(2)],
        axis=0,
    )  # fmt: skip
    np.testing.assert_allclose(small.log_density(X), expected, rtol=0, atol=1e-11)


def test_the_structures_are_parametrised_as_named(iris):
    X, labels = species(iris, 2)
    values = {}
    for model in MCLUST_MODELS:
        fitted = fit_mixture(X, None, 2, covariance=model, reg_covar=0.0, starts=[labels])
        S = fitted.full_covariances()
        eig = np.linalg.eigvalsh(S)
        volume = np.exp(np.log(eig).mean(axis=1))
        values[model] = (S, volume, eig / volume[:, None])
        if model[0] == "E":
            assert volume[0] == pytest.approx(volume[1], rel=1e-9), model
        if model[1] in "EI" and model[2] != "I":
            np.testing.assert_allclose(np.sort(values[model][2][0]), np.sort(values[model][2][1]))
        if model[2] == "I":
            np.testing.assert_allclose(
                S, np.einsum("kj,jl->kjl", np.einsum("kjj->kj", S), np.eye(4))
            )
        if model[2] == "E" or model in ("EEE",):
            # one orientation: the covariances commute
            np.testing.assert_allclose(S[0] @ S[1], S[1] @ S[0], atol=1e-10)


def test_precisions_init_in_the_native_shapes(iris):
    # a fit started from a converged fit's parameters stays there
    X, _ = species(iris, 0)
    starts = [(X[:, 0] > 5.0).astype(int)]
    for model, shape in [("EII", ()), ("EEI", (4,)), ("VEI", (2, 4)), ("EVE", (2, 4, 4))]:
        fitted = fit_mixture(X, None, 2, covariance=model, starts=starts, tol=1e-12)
        assert fitted.covariances_.shape == shape
        precisions = 1.0 / fitted.covariances_
        if len(shape) == 3:
            precisions = np.linalg.inv(fitted.covariances_)
        inits = {"weights_init": fitted.weights_, "means_init": fitted.means_}
        again = fit_mixture(X, None, 2, covariance=model, precisions_init=precisions, **inits)
        assert again.n_iter_ == 2  # the first change is from -inf
        np.testing.assert_allclose(again.means_, fitted.means_, atol=1e-6)
        np.testing.assert_allclose(again.covariances_, fitted.covariances_, atol=1e-6)


# ------------------------------------------------------------------ the BIC search
def test_bic_searches_mclusts_14_models_jointly_with_k(iris):
    X, y = iris
    gmm = GaussianMixtureBayes("bic", covariance="bic", max_components=3, random_state=0)
    gmm.fit(X, y)
    for label, table in gmm.bic_.items():
        tried = set(table) | set(gmm.refused_[label])
        assert tried == {(m, k) for m in MCLUST_MODELS for k in (1, 2, 3)}
        # one component: mclust's XII, XXI and XXX, fitted once, listed under each name
        for group in (("EII", "VII"), ("EEI", "VEI", "EVI", "VVI"), MCLUST_MODELS[6:]):
            assert len({table[m, 1] for m in group}) == 1
        best = min(table, key=table.get)
        model = gmm.mixtures_[label]
        assert (model.covariance, model.n_components) == best
        assert model.bic(X[y == label]) == pytest.approx(table[best], rel=1e-10)
    assert gmm.score(X, y) > 0.95


def test_the_sklearn_search_keeps_scikit_learns_four(iris):
    X, y = iris
    gmm = GaussianMixtureBayes(2, covariance="sklearn", random_state=0).fit(X, y)
    for table in gmm.bic_.values():
        assert set(table) == {(s, 2) for s in ("full", "tied", "diag", "spherical")}


@pytest.mark.parametrize("model", ["EII", "EEI", "VEV", "EVE"])
def test_a_fixed_mclust_model_on_dask_blocks_equals_in_memory(iris, model):
    from dask_blocks import InMemory

    X, y = iris
    options = {"n_components": 2, "covariance": model, "random_state": 0, "tol": 1e-8}
    eager = Mixture(**options).fit(X, y, 3)
    parts = [(X[i : i + 40], y[i : i + 40], None) for i in range(0, 150, 40)]
    lazy = Mixture(**options).fit_blocks(InMemory(parts), 3)
    for a, b in zip(eager.mixtures_, lazy.mixtures_, strict=True):
        assert a.covariance == b.covariance == model
        np.testing.assert_allclose(a.means_, b.means_, atol=1e-6)
        np.testing.assert_allclose(a.covariances_, b.covariances_, atol=1e-6)


def test_mclust_models_through_the_estimator(iris):
    X, y = iris
    for model in ("EII", "VEV", "VVE"):
        gmm = GaussianMixtureBayes(2, covariance=model, random_state=0).fit(X, y)
        assert all(m.covariance == model for m in gmm.mixtures_.values())
        n = [m.n_parameters() for m in gmm.mixtures_.values()]
        assert n == [1 + 8 + n_covariance_parameters(model, 2, 4)] * 3
        assert gmm.score(X, y) > 0.9


def test_the_search_on_blocks_equals_the_search_in_memory(iris):
    from dask_blocks import InMemory

    X, y = iris
    options = {"n_components": "bic", "covariance": "bic", "max_components": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (some candidates stop at max_iter)
        eager = Mixture(random_state=0, **options).fit(X, y, 3)
        parts = [(X[i : i + 40], y[i : i + 40], None) for i in range(0, 150, 40)]
        lazy = Mixture(random_state=0, **options).fit_blocks(InMemory(parts), 3)
    for a, b, ta, tb in zip(eager.mixtures_, lazy.mixtures_, eager.bic_, lazy.bic_, strict=True):
        assert (a.covariance, a.n_components) == (b.covariance, b.n_components)
        assert list(ta) == list(tb)
        np.testing.assert_allclose([tb[key] for key in ta], list(ta.values()), rtol=1e-6)
