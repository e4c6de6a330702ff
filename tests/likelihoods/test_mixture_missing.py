"""Gaussian mixtures with missing values (NaN): exact marginal densities and posteriors,
EM over the missing coordinates (recovery, monotone traces, weights), classes without
NaN unchanged, the estimator on arrays and DataFrames, and the Dask path's refusal."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning

from bayesrule.estimators.mixture import GaussianMixtureBayes
from bayesrule.likelihoods.mixture import Mixture
from bayesrule.likelihoods.mixture.em import fit_mixture
from bayesrule.likelihoods.mixture.em_missing import filled_rows

MEANS = np.array([[0.0, 0.0, 0.0], [6.0, 6.0, 0.0], [0.0, 6.0, 6.0]])
COVARIANCE = np.array([[1.5, 0.5, 0.3], [0.5, 1.0, 0.2], [0.3, 0.2, 1.2]])


def three_components(n=500, seed=0):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.multivariate_normal(m, COVARIANCE, n) for m in MEANS])


def holes(X, share=0.2, seed=1):
    """X with a share of its values missing completely at random."""
    rng = np.random.default_rng(seed)
    out = X.copy()
    out[rng.random(X.shape) < share] = np.nan
    return out


def by_hand(model, X):
    """ln sum_k w_k N(x_o; mu_ko, S_koo) row by row with scipy (0 for an empty row)."""
    S = model.full_covariances()
    out = []
    for x in X:
        o = ~np.isnan(x)
        if not o.any():
            out.append(0.0)
            continue
        terms = [
            np.log(w) + multivariate_normal(m[o], s[np.ix_(o, o)]).logpdf(x[o])
            for w, m, s in zip(model.weights_, model.means_, S, strict=True)
        ]
        out.append(logsumexp(terms))
    return np.array(out)


@pytest.fixture(scope="module")
def classified():
    """Two classes, class 1 a two-mode mixture, 15% of the values missing in both."""
    X = three_components(200)
    y = np.repeat([0, 1, 1], 200)
    return holes(X, 0.15, seed=3), y


# ------------------------------------------------------------------ evaluation
@pytest.mark.parametrize("covariance", ["full", "tied", "diag", "spherical", "EII", "VEV"])
def test_densities_of_rows_with_missing_values_are_the_marginals(covariance):
    X = three_components(100)
    model = fit_mixture(X, None, 3, covariance=covariance, random_state=0)
    rows = holes(X[::7], 0.4, seed=2)
    rows[0] = np.nan  # nothing observed: ln p = 0
    np.testing.assert_allclose(model.log_density(rows), by_hand(model, rows), atol=1e-10)
    assert model.log_density(rows)[0] == pytest.approx(0.0, abs=1e-15)
    complete = ~np.isnan(rows).any(axis=1)
    # complete rows take the fast path, with or without incomplete rows beside them
    np.testing.assert_array_equal(
        model.log_density(rows)[complete], model.log_density(rows[complete])
    )
    parts = model.component_log_density(rows)
    np.testing.assert_allclose(logsumexp(parts, axis=1), model.log_density(rows), atol=1e-12)


def test_posteriors_with_nan_are_those_of_the_model_marginalised_by_hand(classified):
    X, y = classified
    gmm = GaussianMixtureBayes({0: 1, 1: 2}, random_state=0).fit(X, y)
    rows = holes(three_components(30, seed=5), 0.35, seed=6)
    rows[:2] = np.nan
    rows[2, 1:] = np.nan
    joint = np.column_stack([by_hand(m, rows) for m in gmm.mixtures_.values()])
    joint += np.log(gmm.class_prior_)
    expected = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(gmm.predict_proba(rows), expected, atol=1e-10)
    np.testing.assert_allclose(gmm.predict_proba(rows[:2]), [gmm.class_prior_] * 2)
    assert np.array_equal(gmm.predict(rows), gmm.classes_[np.argmax(expected, axis=1)])


# ------------------------------------------------------------------ fitting
@pytest.mark.parametrize("covariance", ["full", "diag", "VEV", "EEE"])
def test_em_with_a_fifth_missing_recovers_the_component_means(covariance):
    n = 500
    X = holes(three_components(n, seed=10), 0.2, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = fit_mixture(X, None, 3, covariance=covariance, random_state=0, tol=1e-8)
    order = np.argsort(model.means_ @ np.array([1.0, 10.0, 100.0]))
    truth = MEANS[np.argsort(MEANS @ np.array([1.0, 10.0, 100.0]))]
    # each coordinate seen in about 0.8 n rows of its component
    standard_error = np.sqrt(np.diag(COVARIANCE) / (0.8 * n))
    assert (np.abs(model.means_[order] - truth) < 4 * standard_error).all()
    np.testing.assert_allclose(model.weights_[order], 1 / 3, atol=0.03)
    if covariance in ("full", "VEV", "EEE"):
        np.testing.assert_allclose(model.full_covariances()[order], [COVARIANCE] * 3, atol=0.25)


def test_em_over_missing_values_never_goes_down_and_bic_is_observed_data():
    X = holes(three_components(150, seed=4), 0.25, seed=5)
    model = fit_mixture(X, None, 3, reg_covar=0.0, tol=1e-10, max_iter=500, random_state=0)
    bounds = np.array(model.lower_bounds_)
    assert model.converged_ and len(bounds) > 3
    assert np.all(np.diff(bounds) > -1e-12)
    n_parameters = 2 + 9 + 18
    seen = (~np.isnan(X).all(axis=1)).sum()  # a row with nothing observed says nothing
    expected = -2 * by_hand(model, X).sum() + n_parameters * np.log(seen)
    assert model.bic(X) == pytest.approx(expected, rel=1e-10)


def test_integer_weights_equal_repeated_rows_with_missing_values():
    X = holes(three_components(60, seed=7), 0.2, seed=8)
    w = np.random.default_rng(9).integers(1, 4, len(X))
    with pytest.warns(ConvergenceWarning):
        start = fit_mixture(X, None, 3, random_state=0, max_iter=2)
    inits = {
        "weights_init": start.weights_,
        "means_init": start.means_,
        "precisions_init": np.linalg.inv(start.covariances_),
    }
    weighted = fit_mixture(X, w, 3, tol=1e-9, **inits)
    repeated = fit_mixture(np.repeat(X, w, axis=0), None, 3, tol=1e-9, **inits)
    assert weighted.n_iter_ == repeated.n_iter_
    np.testing.assert_allclose(weighted.means_, repeated.means_, rtol=1e-9)
    np.testing.assert_allclose(weighted.covariances_, repeated.covariances_, rtol=1e-9)


def test_the_start_completes_rows_by_one_gaussians_conditional_means():
    rng = np.random.default_rng(0)
    X = rng.multivariate_normal([1.0, 2.0], [[1.0, 0.9], [0.9, 1.0]], 400)
    X[:50, 1] = np.nan
    filled = filled_rows(X, None, 0.0)
    np.testing.assert_array_equal(filled[50:], X[50:])
    # x1 | x0 is about 2 + 0.9 (x0 - 1) under the fitted Gaussian
    np.testing.assert_allclose(filled[:50, 1], 2.0 + 0.9 * (X[:50, 0] - 1.0), atol=0.25)


def test_a_warm_start_and_a_bic_search_run_with_missing_values(classified):
    X, y = classified
    like = Mixture(n_components="bic", max_components=3, random_state=0).fit(X, y, 2)
    assert [m.n_components for m in like.mixtures_] == [1, 2]
    for table, model, c in zip(like.bic_, like.mixtures_, (0, 1), strict=True):
        key = (model.covariance, model.n_components)
        assert table[key] == pytest.approx(model.bic(X[y == c]), rel=1e-12)
    warm = Mixture(n_components={1: 2}, warm_start=True, random_state=0).fit(X, y, 2)
    first = warm.mixtures_[1].lower_bound_
    warm.fit(X, y, 2)
    assert warm.mixtures_[1].n_iter_ <= 2 and warm.mixtures_[1].lower_bound_ >= first - 1e-9


def test_classes_without_missing_values_are_fitted_as_before():
    X = three_components(150, seed=12)
    y = np.repeat([0, 1, 1], 150)
    some = X.copy()
    some[150:] = holes(X[150:], 0.2, seed=13)  # class 1 only
    plain = Mixture(n_components={1: 2}, random_state=0).fit(X, y, 2)
    mixed = Mixture(n_components={1: 2}, random_state=0).fit(some, y, 2)
    a, b = plain.mixtures_[0], mixed.mixtures_[0]
    for name in ("weights_", "means_", "covariances_", "precisions_cholesky_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.lower_bounds_ == b.lower_bounds_


def test_a_feature_never_observed_in_a_class_is_refused():
    X = three_components(50)
    X[:50, 2] = np.nan
    with pytest.raises(ValueError, match=r"features \[2\] have no observed value"):
        Mixture(n_components=1).fit(X, np.repeat([0, 1, 1], 50), 2)


# ------------------------------------------------------------------ the estimator
def test_the_estimator_takes_arrays_and_dataframes_with_nan(classified):
    X, y = classified
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    from_array = GaussianMixtureBayes({0: 1, 1: 2}, random_state=0).fit(X, y)
    from_frame = GaussianMixtureBayes({0: 1, 1: 2}, random_state=0).fit(frame, y)
    assert list(from_frame.feature_names_in_) == ["a", "b", "c"]
    np.testing.assert_allclose(from_frame.predict_proba(frame), from_array.predict_proba(X))
    assert from_frame.score(frame, y) > 0.95
    assert from_array.__sklearn_tags__().input_tags.allow_nan


def test_a_dask_fit_refuses_missing_values(classified):
    from dask_blocks import InMemory

    X, y = classified
    parts = [(X[i : i + 100], y[i : i + 100], None) for i in range(0, len(X), 100)]
    with pytest.raises(ValueError, match="missing values .*Dask"):
        Mixture(n_components=1).fit_blocks(InMemory(parts), 2)
