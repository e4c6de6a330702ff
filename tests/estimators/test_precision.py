"""Log-densities and posteriors stay exact where naive formulas cancel: large offsets,
tiny scales, and classes far from the others in their own standard units."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from bayesrule import (
    BayesClassifier,
    GaussianNB,
    LinearDiscriminant,
    NearestMean,
    QuadraticDiscriminant,
)
from bayesrule.likelihoods import Gaussian

MAKERS = {
    "GaussianNB": lambda: GaussianNB(var_smoothing=0.0),
    "NearestMean": NearestMean,
    "LinearDiscriminant": LinearDiscriminant,
    "QuadraticDiscriminant": QuadraticDiscriminant,
    "spherical": lambda: BayesClassifier(Gaussian("spherical")),
    "tied_diag": lambda: BayesClassifier(Gaussian("tied_diag")),
}


def exact_log_likelihood(model, X):
    cov = model.likelihood_.full_covariances()
    means = model.likelihood_.means_
    return np.column_stack(
        [multivariate_normal(means[c], cov[c]).logpdf(X) for c in range(len(means))]
    )


def far_class_data(distance, rng):
    # two classes near 0 with sd 1, a third `distance` away with sd 0.5
    X = np.vstack(
        [
            rng.normal(0.0, 1.0, (200, 2)),
            rng.normal(0.0, 1.0, (200, 2)) + [1.5, -1.0],
            rng.normal(distance, 0.5, (200, 2)),
        ]
    )
    return X, np.repeat([0, 1, 2], 200)


@pytest.mark.parametrize("name", MAKERS)
@pytest.mark.parametrize("distance", [1e6, 1e8])
def test_a_far_class_keeps_exact_log_likelihoods(name, distance):
    X, y = far_class_data(distance, np.random.default_rng(0))
    model = MAKERS[name]().fit(X, y)
    far = X[y == 2][:50]
    expected = exact_log_likelihood(model, far)
    got = model.log_likelihood(far)
    # relative to the size of each value (the far rows are 1e12 units from classes 0, 1)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-8)
    joint = expected + np.log(model.class_prior_)
    np.testing.assert_allclose(
        model.predict_proba(far),
        np.exp(joint - logsumexp(joint, axis=1, keepdims=True)),
        atol=1e-9,
    )


@pytest.mark.parametrize("name", MAKERS)
@pytest.mark.parametrize("offset, scale", [(1e8, 1.0), (1e6, 1e-3), (1e3, 1e-6)])
def test_offset_and_scale_do_not_change_the_posteriors(name, offset, scale):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)) + np.repeat([[0, 0, 0], [1, 1, 0], [0, 2, 1]], 100, axis=0)
    y = np.repeat([0, 1, 2], 100)
    base = MAKERS[name]().fit(X, y).predict_proba(X)
    moved = MAKERS[name]().fit(X * scale + offset, y).predict_proba(X * scale + offset)
    # the data themselves lose log10(offset / scale) digits when moved
    np.testing.assert_allclose(moved, base, atol=1e-16 * offset / scale * 1e2 + 1e-12)


def test_the_linear_discriminant_centres_only_when_the_offset_needs_it(monkeypatch):
    from bayesrule.likelihoods import gaussian

    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3)) + np.repeat([[0, 0, 0], [1, 1, 0], [0, 2, 1]], 100, axis=0)
    y = np.repeat([0, 1, 2], 100)
    near = LinearDiscriminant().fit(X, y)
    assert near.likelihood_.fold_reference_  # offset small next to the spread: fold it
    folded = near.predict_proba(X)
    monkeypatch.setattr(gaussian, "FOLD_LIMIT", 0.0)  # the centred branch, same data
    centred = LinearDiscriminant().fit(X, y)
    assert not centred.likelihood_.fold_reference_
    np.testing.assert_allclose(centred.predict_proba(X), folded, atol=1e-14)
    assert not LinearDiscriminant().fit(X + 1e6, y).likelihood_.fold_reference_
