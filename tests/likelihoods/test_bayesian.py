"""The Bayesian estimates' checks and cached predictive densities
(:mod:`bayesrule.likelihoods.bayesian`)."""

import numpy as np
import pytest

from bayesrule.likelihoods.bayesian import (
    CONJUGATE,
    Predictive,
    check_estimate,
    check_structure,
    fitted_posterior,
)
from bayesrule.likelihoods.conjugate import NormalGamma, NormalInverseWishart
from bayesrule.likelihoods.covariance import get_structure
from bayesrule.stats import class_moments


def _stats(kind="full"):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) @ [[1.0, 0.3, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 2.0]]
    y = np.repeat([0, 1], 20)
    X[y == 1] += 1.5
    return X, y, class_moments(X, y, 2, kind=kind)


@pytest.mark.parametrize("structure", CONJUGATE)
def test_the_cached_predictive_equals_the_posteriors(structure):
    X, _, stats = _stats()
    post = fitted_posterior(None, stats, get_structure(structure))
    np.testing.assert_allclose(
        Predictive(post).log_density(X), post.log_predictive(X), rtol=1e-13, atol=0
    )


def test_a_missing_value_drops_its_features_t_factor():
    X, _, stats = _stats()
    post = fitted_posterior(None, stats, get_structure("diag"))
    holed = X[:5].copy()
    holed[:, 1] = np.nan
    predictive = Predictive(post)
    full = predictive.log_density(X[:5])
    # feature 1's t alone (the others missing): what the marginal density leaves out
    only = predictive.log_density(np.where(np.arange(3) == 1, X[:5], np.nan))
    np.testing.assert_allclose(predictive.log_density(holed), full - only, rtol=1e-12)


def test_empirical_bayes_raises_the_evidence():
    _, _, stats = _stats()
    default = fitted_posterior(None, stats, get_structure("full"))
    chosen = fitted_posterior("empirical-bayes", stats, get_structure("full"))
    assert chosen.total_log_evidence > default.total_log_evidence + 1.0


@pytest.mark.parametrize(
    "estimate, prior, error, match",
    [
        ("bayes", None, ValueError, r"estimate must be one of \['ml', 'map', 'predictive'\]"),
        ("ml", NormalInverseWishart(), ValueError, "estimate='map' or 'predictive'"),
        ("map", "evidence", ValueError, "'empirical-bayes'"),
        ("predictive", {"dof": 5}, TypeError, "NormalInverseWishart"),
    ],
)
def test_bad_settings_name_the_fix(estimate, prior, error, match):
    with pytest.raises(error, match=match):
        check_estimate(estimate, prior)


def test_accepted_settings():
    assert check_estimate("map", NormalGamma()) == "map"
    assert check_estimate("predictive", "empirical-bayes") == "predictive"
    check_structure(get_structure("EEE"), "map")  # mclust's name of "tied"
    with pytest.raises(ValueError, match="conjugate prior: full .VVV."):
        check_structure(get_structure("VEV"), "predictive")
