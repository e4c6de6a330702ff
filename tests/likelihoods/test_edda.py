"""EDDA: Gaussian(covariance="bic") chooses among mclust's 14 parametrisations by BIC.
Reference numbers from R's mclust 6.0.0 (how: tests/mclust_reference.py)."""

import numpy as np
import pytest
from dask_blocks import InMemory
from mclust_reference import DATASETS, EDDA_CHOICE, EDDA_REPORTED, MCLUST, data
from scipy.special import logsumexp

from bayesrule import BayesClassifier
from bayesrule.likelihoods import Gaussian
from bayesrule.likelihoods.base import Undetermined
from bayesrule.likelihoods.edda import bic_table, choose
from bayesrule.likelihoods.parametrisation import MODELS, n_covariance_parameters
from bayesrule.stats import class_moments

ITERATIVE = ("VEI", "VEE", "EVE", "VVE", "VEV")


def edda(name, **kwargs):
    X, y = data(name)
    return Gaussian(covariance="bic", **kwargs).fit(X, y, n_classes=3)


@pytest.mark.parametrize("name", DATASETS)
def test_the_choice_is_mclusts(name):
    g = edda(name)
    assert g.covariance_ == EDDA_CHOICE[name]
    assert list(g.bic_) == list(MODELS)
    assert max(g.bic_, key=g.bic_.get) == EDDA_CHOICE[name]


@pytest.mark.parametrize("name", DATASETS)
def test_each_bic_is_from_the_log_likelihood_of_the_classes_under_their_own_densities(name):
    """``bic_[m] = 2 l - df ln n``, l the log-likelihood of each row under its own
    class's density (mclust's ``cdens`` at its ``mstep`` parameters: the third reference
    number), ``df = C d + nVarParams``: mclust's EDDA count."""
    X, _ = data(name)
    n, d = X.shape
    g = edda(name)
    for model in MODELS:
        df = 3 * d + n_covariance_parameters(model, 3, d)
        expected = 2 * MCLUST[name][model][2] - df * np.log(n)
        if model == "VVE":  # mclust's VVE is not the maximum (test_parametrisation)
            assert g.bic_[model] > expected + 0.2
            continue
        rtol = 1e-6 if model in ITERATIVE else 1e-10
        assert g.bic_[model] == pytest.approx(expected, rel=rtol, abs=0), model


def test_mclusts_reported_edda_fit_is_reproduced_on_iris():
    """``MclustDA(iris, class, modelType = "EDDA")`` reports the mixture log-likelihood
    ``sum_i ln sum_k pi_k N(x_i; mu_k, Sigma_k)`` of its chosen model, and its BIC with
    ``df = C d + nVarParams``; the same numbers from our fitted VEV."""
    X, y = data("iris")
    g = edda("iris")
    L = g.log_likelihood(X)
    mixture = logsumexp(L + np.log(np.bincount(y) / len(y)), axis=1).sum()
    df = 12 + g.structure_.n_parameters(3, 4)
    loglik, bic, reported_df = EDDA_REPORTED["iris"]
    assert df == reported_df == 36
    assert mixture == pytest.approx(loglik, rel=1e-9, abs=0)
    assert 2 * mixture - df * np.log(len(y)) == pytest.approx(bic, rel=1e-9, abs=0)


def test_the_chosen_structure_is_the_fitted_one():
    X, y = data("wine")
    g = edda("wine")
    direct = Gaussian(covariance="VVE").fit(X, y, n_classes=3)
    np.testing.assert_allclose(g.covariances_, direct.covariances_, rtol=1e-12)
    np.testing.assert_allclose(g.log_likelihood(X), direct.log_likelihood(X), rtol=1e-12)
    assert g.structure_.name == "VVE"
    assert g.n_parameters() == direct.n_parameters() == 39 + 117
    assert g.stats_.kind == "full"  # every model can be re-estimated from them
    tied = edda("iris").set_statistics(_tied_case())
    assert tied.covariance_ == "EEE" and tied.structure_.name == "tied"
    assert tied.covariances_.shape == (2, 2)


def _tied_case():
    """Two classes of one shared, strongly correlated covariance: EEE is chosen."""
    rng = np.random.default_rng(0)
    L = np.array([[1.0, 0.0], [0.9, 0.3]])
    X = rng.normal(size=(600, 2)) @ L.T
    y = np.repeat([0, 1], 300)
    X[y == 1] += 3.0
    return class_moments(X, y, 2, kind="full")


@pytest.mark.parametrize("name", ["iris", "penguins"])
def test_partial_fit_in_two_halves_and_blocks_equal_fit(name):
    X, y = data(name)
    whole = edda(name)
    halves = Gaussian(covariance="bic")
    halves.partial_fit(X[::2], y[::2], 3)
    halves.partial_fit(X[1::2], y[1::2], 3)
    blocks = Gaussian(covariance="bic").fit_blocks(
        InMemory([(X[s : s + 50], y[s : s + 50], None) for s in range(0, len(X), 50)]), 3
    )
    for other in (halves, blocks):
        assert other.covariance_ == whole.covariance_
        np.testing.assert_allclose(list(other.bic_.values()), list(whole.bic_.values()), rtol=1e-9)
        # penguins choose VVE, whose orientation iterates to a tolerance: moments merged
        # in another order settle within about 1e-6 of the same fixed point
        np.testing.assert_allclose(other.covariances_, whole.covariances_, rtol=1e-5)


def test_integer_weights_equal_repeated_rows():
    X, y = data("iris")
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    weighted = Gaussian(covariance="bic").fit(X, y, 3, sample_weight=w.astype(float))
    repeated = Gaussian(covariance="bic").fit(np.repeat(X, w, axis=0), np.repeat(y, w), 3)
    assert weighted.covariance_ == repeated.covariance_
    np.testing.assert_allclose(
        list(weighted.bic_.values()), list(repeated.bic_.values()), rtol=1e-9
    )


def test_models_that_cannot_be_fitted_score_nan():
    """A class with fewer rows than features: where that class has a shape of its own
    and an orientation that can align with the null space of its scatter (EVE, VVE,
    EVV, VVV) the likelihood is unbounded (no ML estimate); the others compete."""
    X, y = data("iris")
    keep = np.flatnonzero((y != 2) | (np.arange(len(y)) < 103))  # class 2: 3 rows
    g = Gaussian(covariance="bic").fit(X[keep], y[keep], n_classes=3)
    assert {m for m, b in g.bic_.items() if np.isnan(b)} == {"EVE", "VVE", "EVV", "VVV"}
    assert np.isfinite(g.bic_["VEV"]) and np.isfinite(g.bic_["EEE"])
    assert g.covariance_ == max((b, m) for m, b in g.bic_.items() if np.isfinite(b))[1]


def test_no_model_at_all_is_refused():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    stats = class_moments(X, y, 2, kind="full")
    assert np.isnan(list(bic_table(stats).values())).all()
    with pytest.raises(Undetermined, match=r"every one of mclust's 14 is singular"):
        choose(stats)


def test_bad_parameters_are_refused():
    X, y = data("iris")
    with pytest.raises(ValueError, match="apply to the 'full' and 'tied'"):
        Gaussian(covariance="bic", shrinkage=0.2).fit(X, y, n_classes=3)
    with pytest.raises(ValueError, match="chooses the structure from data"):
        Gaussian(covariance="bic").set_parameters(np.zeros((2, 2)), np.eye(2))


def test_a_classifier_with_edda_predicts_and_describes_its_choice():
    X, y = data("penguins")
    clf = BayesClassifier(Gaussian(covariance="bic")).fit(X, y)
    assert clf.likelihood_.covariance_ == "VVE"
    assert clf.score(X, y) > 0.98
    proba = clf.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    lines = clf.likelihood_.describe(["a", "b", "c"], ["x0", "x1", "x2", "x3"])
    assert lines[0].startswith("Gaussian, covariance='bic' (chose 'VVE')")
