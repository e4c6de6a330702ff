"""Every estimator, with the settings the contract tests run it under."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import estimator_checks_generator

from bayesrule import (
    AODE,
    KDB,
    SPODE,
    TAN,
    BayesClassifier,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianMixtureBayes,
    GaussianNB,
    KernelNB,
    LinearDiscriminant,
    MixedNB,
    MultinomialNB,
    NearestMean,
    QuadraticDiscriminant,
)
from bayesrule.likelihoods import Gaussian

ESTIMATORS = {
    "GaussianNB": lambda: GaussianNB(),
    "QuadraticDiscriminant": lambda: QuadraticDiscriminant(reg_covar=1e-6),
    "LinearDiscriminant": lambda: LinearDiscriminant(reg_covar=1e-9),
    "LinearDiscriminant-shrunk": lambda: LinearDiscriminant(shrinkage=0.3),
    "NearestMean": lambda: NearestMean(),
    "BayesClassifier-spherical": lambda: BayesClassifier(Gaussian("spherical", reg_covar=1e-9)),
}

#: semi-naive Bayes with continuous columns binned, for scikit-learn's checks
DISCRETIZED = {
    "AODE-quantile": lambda: AODE(discretize="quantile"),
    "SPODE-mdl": lambda: SPODE(discretize="mdl"),
    "TAN-quantile": lambda: TAN(discretize="quantile", n_bins=3),
    "KDB-mdl": lambda: KDB(k=1, discretize="mdl"),
}

#: the estimators with every parameter at its default, for scikit-learn's checks
DEFAULTS = {
    "QuadraticDiscriminant()": QuadraticDiscriminant,
    "LinearDiscriminant()": LinearDiscriminant,
    "LinearDiscriminant(shrinkage='auto')": lambda: LinearDiscriminant(shrinkage="auto"),
    "BayesClassifier()": BayesClassifier,
    "BernoulliNB()": BernoulliNB,
    "MultinomialNB()": MultinomialNB,
    "ComplementNB()": ComplementNB,
    "CategoricalNB()": CategoricalNB,
    "KernelNB()": KernelNB,
    "MixedNB()": MixedNB,
    "GaussianMixtureBayes()": GaussianMixtureBayes,
    "GaussianMixtureBayes('bic')": lambda: GaussianMixtureBayes("bic", max_components=3),
    "SPODE()": SPODE,
    "AODE()": AODE,
    "TAN()": TAN,
    # KDB's default k=2 needs three features, and some checks fit on two
    "KDB(k=1)": lambda: KDB(k=1),
}

# scikit-learn's sample-weight checks fit on 16 points where one feature is constant
# within each class. The ML covariance is then singular, and by default bayesrule refuses
# it with a ValueError that names reg_covar (as the issue asks), so these three checks
# fail for full and tied covariances at reg_covar=0; the registry above runs them
# regularised, where they pass.
SINGULAR_CHECK_DATA = {
    check: "check data has a feature that is constant within each class (singular ML "
    "covariance, refused by design; passes with reg_covar > 0)"
    for check in (
        "check_sample_weights_shape",
        "check_sample_weights_not_overwritten",
        "check_sample_weight_equivalence_on_dense_data",
    )
}


# Two of scikit-learn's checks fit on floats that are not whole numbers without applying
# the categorical tag's rounding; the semi-naive estimators refuse continuous columns
# unless discretize= says how to bin them (as the issue asks). With discretize they pass.
CONTINUOUS_CHECK_DATA = {
    check: "fits on continuous floats; semi-naive Bayes refuses them without discretize="
    for check in (
        "check_positive_only_tag_during_fit",
        "check_sample_weight_equivalence_on_dense_data",
    )
}


# ---------------------------------------------------------------------------- naive Bayes
def _labels(y):
    return np.array(["ant", "bee", "cat"])[y]


def _binary(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    p = np.random.default_rng(99).uniform(0.1, 0.9, size=(3, 12))
    return (rng.random((n, 12)) < p[y]).astype(float), _labels(y)


def _counts(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    rates = np.random.default_rng(98).gamma(1.0, 1.0, size=(3, 15))
    return rng.poisson(rates[y]).astype(float), _labels(y)


VALUES = np.array(["low", "mid", "high", "top"], dtype=object)


def _categories(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    p = np.random.default_rng(97).dirichlet(np.ones(4), size=(3, 6))  # (C, d, values)
    codes = (rng.random((n, 6, 1)) > np.cumsum(p[y], axis=2)).sum(axis=2)
    return VALUES[np.minimum(codes, 3)], _labels(y)


def _continuous(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    centres = np.array([[0.0, 0.0, 1.0], [2.0, 1.0, -1.0], [0.5, 2.5, 0.0]])
    X = centres[y] + rng.standard_normal((n, 3)) * (0.8 + 0.2 * y[:, None])
    X[:, 2] += np.where(rng.random(n) < 0.5, -1.5, 1.5)  # bimodal third feature
    return X, _labels(y)


def _mixed(n, seed):
    Xc, y = _continuous(n, seed)
    cats, same = _categories(n, seed)  # the same seed draws the same classes first
    assert np.array_equal(y, same)
    X = np.empty((n, 4), dtype=object)
    X[:, :2] = Xc[:, :2]
    X[:, 2:] = cats[:, :2]
    return X, y


#: name -> (factory, data maker (n, seed) -> (X, y), the family's kind of data)
NAIVE_BAYES = {
    "BernoulliNB": (lambda: BernoulliNB(), _binary, "binary"),
    "MultinomialNB": (lambda: MultinomialNB(), _counts, "counts"),
    "ComplementNB": (lambda: ComplementNB(), _counts, "counts"),
    "CategoricalNB": (lambda: CategoricalNB(), _categories, "categorical"),
    "KernelNB": (lambda: KernelNB(), _continuous, "continuous"),
    "GaussianNB": (lambda: GaussianNB(), _continuous, "continuous"),
    "MixedNB": (lambda: MixedNB(), _mixed, "mixed"),
}


#: the semi-naive Bayes estimators, on the categorical data above
SEMI_NAIVE = {
    "SPODE": (lambda: SPODE(), _categories),
    "SPODE(parent=2)": (lambda: SPODE(parent=2), _categories),
    "AODE": (lambda: AODE(), _categories),
    "TAN": (lambda: TAN(), _categories),
    "KDB": (lambda: KDB(), _categories),
}


# bayesrule does not claim array-API support (its estimators compute with NumPy), and
# scikit-learn's check for it only skips itself; it is left out rather than skipped.
NOT_CLAIMED = {"check_array_api_input"}


def check_cases(estimators, expected=lambda estimator: {}):
    """scikit-learn's checks of each estimator as pytest params (strict xfails for the
    checks ``expected(estimator)`` names, with their reasons)."""
    cases = []
    for estimator in estimators:
        checks = estimator_checks_generator(
            estimator, expected_failed_checks=expected(estimator), mark="xfail", xfail_strict=True
        )
        for item in checks:
            est, check = item.values if hasattr(item, "values") else item
            name = getattr(check, "func", check).__name__
            if name in NOT_CLAIMED:
                continue
            marks = getattr(item, "marks", ())
            cases.append(pytest.param(est, check, marks=marks, id=f"{est!r}-{name}"))
    return cases


def assert_same_model(a, b, X, tol=1e-10):
    """Two fitted classifiers agree: classes, class weights, joint log-probabilities and
    posteriors on ``X`` (to ``tol``)."""
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=tol)
    ja, jb = a.predict_joint_log_proba(X), b.predict_joint_log_proba(X)
    np.testing.assert_allclose(ja, jb, rtol=tol, atol=tol * np.abs(jb).max())
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=tol)
