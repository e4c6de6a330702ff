"""Dirichlet class priors: ``priors=Dirichlet(alpha)`` decides under the posterior-mean
class proportions ``(n_c + alpha_c) / (n + sum(alpha))``."""

import numpy as np
import pytest

from bayesrule import Dirichlet, GaussianNB, QuadraticDiscriminant
from bayesrule.io import load, save


def _data():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 1, (12, 2)), rng.normal(2, 1, (3, 2))])
    return X, np.repeat(["common", "rare"], [12, 3])


def test_priors_are_the_posterior_mean():
    X, y = _data()
    clf = GaussianNB(priors=Dirichlet(2.0)).fit(X, y)
    np.testing.assert_allclose(clf.class_prior_, [14 / 19, 5 / 19], rtol=1e-15)
    per_class = clf.set_params(priors=Dirichlet((1.0, 5.0)))  # no refit needed
    np.testing.assert_allclose(per_class.class_prior_, [13 / 21, 8 / 21], rtol=1e-15)
    frequencies = GaussianNB().fit(X, y)
    tiny = GaussianNB(priors=Dirichlet(1e-12)).fit(X, y)
    np.testing.assert_allclose(tiny.predict_proba(X), frequencies.predict_proba(X), atol=1e-12)


def test_posteriors_follow_bayes_rule_with_those_priors():
    X, y = _data()
    clf = QuadraticDiscriminant(priors=Dirichlet(1.0)).fit(X, y)
    joint = clf.log_likelihood(X) + np.log([13 / 17, 4 / 17])
    expected = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(clf.predict_proba(X), expected, rtol=1e-12)


def test_saved_and_loaded(tmp_path):
    X, y = _data()
    clf = GaussianNB(priors=Dirichlet((1.0, 3.0))).fit(X, y)
    save(clf, tmp_path / "m.bayesrule")
    back = load(tmp_path / "m.bayesrule")
    assert back.priors == Dirichlet((1.0, 3.0))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


@pytest.mark.parametrize(
    "alpha, error, match",
    [
        (0.0, ValueError, "finite and > 0"),
        ((1.0, 2.0, 3.0), ValueError, r"one entry per class \(2\)"),
        ("one", TypeError, "alpha must be a number"),
    ],
)
def test_bad_alpha_is_refused_at_fit(alpha, error, match):
    X, y = _data()
    with pytest.raises(error, match=match):
        GaussianNB(priors=Dirichlet(alpha)).fit(X, y)
    assert not hasattr(GaussianNB(), "classes_")
