"""Missing values in full and tied Gaussians: EM at fit, marginal densities at
prediction (:mod:`bayesrule.likelihoods.gaussian_missing`)."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning

from bayesrule import GaussianBayes, LinearDiscriminant, QuadraticDiscriminant

COV = np.array([[1.0, 0.8, 0.3], [0.8, 1.0, 0.2], [0.3, 0.2, 1.0]])
MEANS = np.array([[0.0, 0.0, 0.0], [2.0, 1.0, 0.0]])


def _draw(seed, n=2000, missing=0.2):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.multivariate_normal(m, COV, n) for m in MEANS])
    y = np.repeat([0, 1], n)
    holed = X.copy()
    holed[rng.random(X.shape) < missing] = np.nan
    return X, holed, y


@pytest.mark.parametrize("make", [QuadraticDiscriminant, LinearDiscriminant])
def test_posteriors_with_nan_are_those_of_the_model_marginalised_by_hand(make):
    _, X, y = _draw(0, n=300)
    model = make(priors=[0.3, 0.7]).fit(X, y)
    rows = np.array([[0.5, np.nan, 0.1], [np.nan, 1.0, np.nan], [1.0, 2.0, 3.0]])
    cov = model.full_covariances()
    joint = np.empty((3, 2))
    for i, row in enumerate(rows):
        seen = ~np.isnan(row)
        for c in range(2):
            density = multivariate_normal(model.means_[c, seen], cov[c][np.ix_(seen, seen)])
            joint[i, c] = density.logpdf(row[seen]) + np.log([0.3, 0.7][c])
    expected = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(rows), expected, rtol=1e-12)
    blank = np.full((1, 3), np.nan)
    np.testing.assert_allclose(model.predict_proba(blank), [[0.3, 0.7]], rtol=1e-14)


@pytest.mark.parametrize("make", [QuadraticDiscriminant, LinearDiscriminant])
def test_em_with_20_percent_missing_recovers_the_means(make):
    # within 2 standard errors of the means of the data before the deletion (measured:
    # at most about 1 SE over these seeds)
    for seed in range(3):
        complete, X, y = _draw(seed)
        model = make().fit(X, y)
        for c in range(2):
            rows = complete[y == c]
            se = rows.std(axis=0) / np.sqrt(len(rows))
            assert np.all(np.abs(model.means_[c] - rows.mean(axis=0)) < 2 * se)
        assert model.likelihood_.n_iter_ > 1


def test_a_blank_row_changes_no_density():
    _, X, y = _draw(1, n=200)
    more = QuadraticDiscriminant().fit(np.vstack([X, np.full((1, 3), np.nan)]), np.append(y, 0))
    base = QuadraticDiscriminant().fit(X, y)
    np.testing.assert_allclose(more.means_, base.means_, rtol=1e-13)
    np.testing.assert_allclose(more.covariances_, base.covariances_, rtol=1e-13)


def test_complete_data_fit_as_before_and_mclust_structures_take_nan():
    complete, X, y = _draw(2, n=200)
    np.testing.assert_array_equal(
        QuadraticDiscriminant().fit(complete, y).covariances_,
        QuadraticDiscriminant(reg_covar="auto").fit(complete, y).covariances_,
    )
    vev = GaussianBayes(covariance="VEV").fit(X, y)
    assert np.isfinite(vev.predict_proba(X)).all()


def _observed_log_likelihood(X, y, means, covs) -> float:
    """``sum_i ln N(x_io; mu_yi,o, Sigma_yi,oo)`` by scipy, row by row."""
    total = 0.0
    for row, c in zip(X, y, strict=True):
        seen = ~np.isnan(row)
        if seen.any():
            total += multivariate_normal(means[c, seen], covs[c][np.ix_(seen, seen)]).logpdf(
                row[seen]
            )
    return total


def test_edda_with_nan_chooses_by_the_observed_data_bic():
    _, X, y = _draw(1, n=150)
    model = GaussianBayes(reg_covar=0).fit(X, y)
    n = int((~np.isnan(X).all(axis=1)).sum())  # blank rows are left out of the fit
    assert n < X.shape[0]  # this draw has some
    for structure in ("EEE", "VVV", "VEI"):
        fitted = GaussianBayes(covariance=structure, reg_covar=0).fit(X, y)
        ll = _observed_log_likelihood(X, y, fitted.means_, fitted.full_covariances())
        df = fitted.likelihood_.n_parameters()
        # the chosen model's EM runs to convergence, the others' to the search's 1e-6
        rel = 1e-8 if structure == model.covariance_ else 1e-6
        assert model.bic_[structure] == pytest.approx(2 * ll - df * np.log(n), rel=rel)
    best = max(model.bic_, key=model.bic_.get)
    assert model.covariance_ == best
    same = GaussianBayes(covariance=best, reg_covar=0).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), same.predict_proba(X), rtol=1e-10)
    # the generating covariance is shared by the classes: EDDA finds an equal-volume
    # shape and orientation (EEE) on 2 x 150 rows with 20% of the values missing
    assert model.covariance_ == "EEE"


def test_edda_without_nan_is_unchanged_and_blank_rows_change_nothing():
    X, _, y = _draw(2, n=100)
    plain = GaussianBayes().fit(X, y)
    holed = GaussianBayes().fit(np.vstack([X, np.full((2, 3), np.nan)]), np.r_[y, 0, 1])
    assert holed.covariance_ == plain.covariance_
    np.testing.assert_allclose(list(holed.bic_.values()), list(plain.bic_.values()), rtol=1e-9)


def test_edda_with_nan_saves_and_loads_its_choice(tmp_path):
    from bayesrule.io import load, save

    _, X, y = _draw(3, n=80)
    model = GaussianBayes().fit(X, y)
    save(model, tmp_path / "edda.model")
    back = load(tmp_path / "edda.model")
    assert back.covariance_ == model.covariance_
    assert back.bic_ == pytest.approx(model.bic_)
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    # a later fit without NaN chooses from its moments again
    clean = X[~np.isnan(X).any(axis=1)]
    refit = back.fit(clean, y[~np.isnan(X).any(axis=1)])
    assert refit.likelihood_.em_choice_ is None


def test_edda_with_nan_warns_only_of_the_chosen_model_and_finds_the_real_error():
    rng = np.random.default_rng(5)
    _, X, y = _draw(4, n=60)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = GaussianBayes().fit(X, y)
    named = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert all(f"covariance={model.covariance_!r}" in m for m in named)
    X[:, 2] = np.nan  # a feature never observed: that is the error, not a singular model
    with pytest.raises(ValueError, match=r"features \[2\] have no observed value"):
        GaussianBayes().fit(X, y)
    # fewer rows than features in a class: the full models are singular (NaN), not fatal
    small = rng.normal(size=(8, 5))
    small[0, 0] = np.nan
    few = GaussianBayes(reg_covar=0).fit(small, np.arange(8) % 2)
    assert np.isnan(few.bic_["VVV"]) and np.isfinite(few.bic_[few.covariance_])
