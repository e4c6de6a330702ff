"""Naive Bayes as a product of per-feature terms: a missing feature drops out of the
product and is exactly its marginal, and thousands of features do not underflow.

Each estimator runs on data of its own kind (binary, counts, categories, continuous,
mixed). Their contract properties (posteriors, partial_fit, weights, missing rows,
decisions, samples, BIC and AIC, saved models) are in ``tests/contract/test_contract.py``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from registry import LABELS, _binary, _categories, _continuous, _counts, _mixed
from scipy.integrate import quad

from bayesrule import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    KernelNB,
    MixedNB,
    MultinomialNB,
)

#: name -> (estimator, data maker (n, seed) -> (X, y), the family's kind of data)
NAIVE_BAYES = {
    "BernoulliNB": (BernoulliNB, _binary, "binary"),
    "MultinomialNB": (MultinomialNB, _counts, "counts"),
    "ComplementNB": (ComplementNB, _counts, "counts"),
    "CategoricalNB": (CategoricalNB, _categories, "categorical"),
    "KernelNB": (KernelNB, _continuous, "continuous"),
    "GaussianNB": (GaussianNB, _continuous, "continuous"),
    "MixedNB": (MixedNB, _mixed, "mixed"),
}
NAMES = list(NAIVE_BAYES)


@cache
def _data(name, n, seed):
    X, y = NAIVE_BAYES[name][1](n, seed)
    X.setflags(write=False)
    return X, y


def train(name):
    return _data(name, 400, 0)


def holdout(name):
    return _data(name, 300, 1)


def make(name, **params):
    est = NAIVE_BAYES[name][0]()
    return est.set_params(**params) if params else est


def kind(name):
    return NAIVE_BAYES[name][2]


def with_missing(X, rows, cols):
    """A copy of X with the given cells missing (NaN, or None in object tables)."""
    X = np.array(X, dtype=X.dtype)
    X[rows, cols] = None if X.dtype == object else np.nan
    return X


# ---------------------------------------------------------------------------- missing values
@pytest.mark.parametrize("name", NAMES)
def test_a_missing_feature_drops_out_of_the_product(name):
    """ln p(x|c) is a sum of per-feature terms: removing feature j subtracts its term,
    whatever the other features are (removing every feature leaves 0: the contract's
    test_every_feature_missing_gives_the_prior)."""
    X, y = train(name)
    Xt, _ = holdout(name)
    est = make(name).fit(X, y)
    Xt = Xt[:40]
    L = est.log_likelihood(Xt)
    d = Xt.shape[1]
    terms = np.stack([L - est.log_likelihood(with_missing(Xt, slice(None), j)) for j in range(d)])
    np.testing.assert_allclose(terms.sum(axis=0), L, rtol=1e-10, atol=1e-9)
    pair = est.log_likelihood(with_missing(Xt, slice(None), [0, 1]))
    np.testing.assert_allclose(pair, L - terms[0] - terms[1], rtol=1e-10, atol=1e-9)


def _marginal_of_feature(est, x, j, kind_of_data):
    """sum over the values of feature j (or the integral) of p(x|c) / p(x without j | c)."""
    rest = est.log_likelihood(with_missing(x[None], 0, j))[0]
    if kind_of_data == "binary":
        values = [0.0, 1.0]
    elif kind_of_data == "categorical":
        values = list(est.categories_[j])
    else:
        out = []
        for c in range(3):

            def density(t, c=c):
                z = np.array(x[None], dtype=x.dtype)
                z[0, j] = t
                return np.exp(est.log_likelihood(z)[0, c] - rest[c])

            out.append(quad(density, -30, 30, points=[0.0], limit=200)[0])
        return np.array(out)
    total = np.zeros(3)
    for v in values:
        z = np.array(x[None], dtype=x.dtype)
        z[0, j] = v
        total += np.exp(est.log_likelihood(z)[0] - rest)
    return total


@pytest.mark.parametrize(
    "name", [n for n in NAMES if kind(n) in ("binary", "categorical", "continuous")]
)
def test_a_missing_feature_is_exactly_marginalised(name):
    """p(x without j | c) equals the sum (integral) of p(x|c) over the values of x_j."""
    X, y = train(name)
    est = make(name).fit(X, y)
    x = holdout(name)[0][0]
    for j in range(2):
        np.testing.assert_allclose(_marginal_of_feature(est, x, j, kind(name)), 1.0, rtol=1e-6)


WIDE = {"BernoulliNB": "binary", "MultinomialNB": "counts", "CategoricalNB": "categorical"}


@pytest.mark.parametrize("name", list(WIDE))
def test_thousands_of_features_do_not_underflow(name):
    rng = np.random.default_rng(0)
    n, d = 200, 4000
    y = LABELS[rng.integers(0, 3, size=n)]
    if WIDE[name] == "binary":
        X = (rng.random((n, d)) < 0.3).astype(float)
    elif WIDE[name] == "counts":
        X = rng.poisson(1.0, size=(n, d)).astype(float)
    else:
        X = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, size=(n, d))]
    est = make(name).fit(X, y)
    L = est.log_likelihood(X[:20])
    assert np.all(np.isfinite(L)) and np.all(L < -700)  # exp() would underflow
    P = est.predict_proba(X[:20])
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(np.isfinite(est.predict_log_proba(X[:20])))
