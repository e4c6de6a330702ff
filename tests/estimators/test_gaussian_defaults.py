"""Full and tied Gaussians at their defaults on singular data (issue 16, items 1 and 8).

``reg_covar="auto"`` (the default of ``QuadraticDiscriminant``, ``LinearDiscriminant`` and
the ``Gaussian`` likelihood) leaves a non-singular ML covariance exactly as it is and adds
``1e-6`` times a feature's variance to the diagonal of a singular one: for its constant
features, or for every feature when that is not enough; ``reg_covar=0`` keeps the strict
refusal. Messages name classes by label and say what is wrong.
"""

from __future__ import annotations

import numpy as np
import pytest
from real_data import load
from sklearn import discriminant_analysis as sk_da
from sklearn import naive_bayes as sk_nb
from sklearn.model_selection import StratifiedKFold, cross_val_score

from bayesrule import (
    BayesClassifier,
    GaussianNB,
    LinearDiscriminant,
    NearestMean,
    QuadraticDiscriminant,
)
from bayesrule.likelihoods import Gaussian

AUTO = 1e-6  # reg_covar="auto": this times each feature's variance, where singular
CV = StratifiedKFold(5, shuffle=True, random_state=0)


def _cv(estimator, name):
    X, y = load(name)
    return cross_val_score(estimator, X, y, cv=CV).mean()


# ------------------------------------------------------------------ real data at defaults
@pytest.mark.parametrize(
    "make, counterpart",
    [
        (LinearDiscriminant, sk_da.LinearDiscriminantAnalysis),
        (QuadraticDiscriminant, sk_nb.GaussianNB),  # scikit-learn's QDA refuses digits
        (BayesClassifier, sk_nb.GaussianNB),  # its default likelihood is a full Gaussian
    ],
)
def test_defaults_cross_validate_on_digits(make, counterpart):
    ours, theirs = _cv(make(), "digits"), _cv(counterpart(), "digits")
    assert ours >= theirs - 0.01
    assert ours > 0.94  # 0.9510 (LDA, as scikit-learn's SVD solver), 0.9521 (QDA)


@pytest.mark.parametrize("make", [LinearDiscriminant, QuadraticDiscriminant, BayesClassifier])
def test_defaults_cross_validate_on_breast_cancer(make):
    assert _cv(make(), "breast_cancer") >= _cv(sk_nb.GaussianNB(), "breast_cancer") - 0.01


def test_lda_shrinkage_auto_on_a_feature_constant_within_each_class():
    X = np.array([[1, 3], [1, 3], [3, 3], [3, 3], [2, 1], [2, 1], [4, 1], [4, 1]], float)
    y = np.array([1, 1, 1, 1, 2, 2, 2, 2])  # Ledoit-Wolf intensity 0: still singular
    model = LinearDiscriminant(shrinkage="auto").fit(X, y)
    assert model.predict([[2.0, 3.0], [3.0, 1.0]]).tolist() == [1, 2]


# ------------------------------------------------------------------ what "auto" does
def test_non_singular_data_are_not_regularised():
    X, y = load("wine")
    for make in (LinearDiscriminant, QuadraticDiscriminant):
        auto, strict = make().fit(X, y), make(reg_covar=0.0).fit(X, y)
        np.testing.assert_array_equal(auto.covariances_, strict.covariances_)
        np.testing.assert_array_equal(auto.predict_proba(X), strict.predict_proba(X))


def test_qda_regularises_only_the_singular_class():
    X = np.array([[0, 0], [1, 0], [2, 0], [10, 0], [10, 1], [11, 3], [13, 2]], float)
    y = np.array(["a", "a", "a", "b", "b", "b", "b"])  # feature 1 is constant in "a"
    model = QuadraticDiscriminant().fit(X, y)
    var = X.var(axis=0)  # the variances over all the data: 25.6326..., 1.2653...
    ml_a = np.cov(X[:3].T, bias=True)
    # only the constant feature gets the addition: the other variance stays exact
    expected = ml_a + np.diag([0.0, AUTO * var[1]])
    np.testing.assert_allclose(model.covariances_[0], expected, rtol=1e-12)
    np.testing.assert_allclose(model.covariances_[1], np.cov(X[3:].T, bias=True), rtol=1e-12)
    assert model.covariances_[0][1, 1] == pytest.approx(1.2653061224490e-06, rel=1e-10)
    assert model.covariances_[0][0, 0] == 2 / 3
    # singular without a constant feature (the rows of "a" on a line): every feature
    X[:3, 1] = [0.0, 1.0, 2.0]
    model = QuadraticDiscriminant().fit(X, y)
    var = X.var(axis=0)
    expected = np.cov(X[:3].T, bias=True) + AUTO * np.diag(var)
    np.testing.assert_allclose(model.covariances_[0], expected, rtol=1e-12)


def test_lda_ignores_a_constant_feature():
    """A feature constant over all the data (a digits pixel that is always 0) changes no
    posterior: the model is the one without it."""
    X, y = load("iris")
    X0 = np.column_stack([X, np.zeros(len(X))])
    test = np.column_stack([X, np.linspace(-5, 5, len(X))])  # any value there
    with_it, without = LinearDiscriminant().fit(X0, y), LinearDiscriminant().fit(X, y)
    np.testing.assert_allclose(with_it.predict_proba(test), without.predict_proba(X), atol=1e-12)


def test_lda_on_collinear_features_is_lda_on_the_independent_ones():
    X, y = load("iris")
    X3 = np.column_stack([X, X[:, 0] + 2 * X[:, 1]])  # the pooled scatter is singular
    with pytest.raises(ValueError, match="singular"):
        LinearDiscriminant(reg_covar=0).fit(X3, y)
    auto, plain = LinearDiscriminant().fit(X3, y), LinearDiscriminant().fit(X, y)
    np.testing.assert_allclose(auto.predict_proba(X3), plain.predict_proba(X), atol=1e-4)
    assert (auto.predict(X3) == plain.predict(X)).all()


def test_lda_uses_a_feature_constant_within_classes_that_separates_them():
    """scikit-learn's SVD solver drops this direction (zero within-class variance); it
    separates the classes perfectly, and the regularised model decides by it."""
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(40, 1))
    X = np.column_stack([noise, np.repeat([0.0, 1.0], 20)])
    y = np.repeat(["a", "b"], 20)
    model = LinearDiscriminant().fit(X, y)
    test = np.array([[3.0, 0.0], [-3.0, 1.0], [0.0, 0.1], [0.0, 0.9]])
    assert model.predict(test).tolist() == ["a", "b", "a", "b"]


# ------------------------------------------------------------------ properties still hold
def _singular_data():
    X, y = load("digits")
    return X[:400], y[:400]


@pytest.mark.parametrize("make", [LinearDiscriminant, QuadraticDiscriminant, NearestMean])
def test_fit_equals_summed_partial_fit_on_singular_data(make):
    X, y = _singular_data()
    batch = make().fit(X, y)
    stream = make()
    for start in range(0, len(X), 100):
        stream.partial_fit(X[start : start + 100], y[start : start + 100], classes=range(10))
    np.testing.assert_allclose(stream.covariances_, batch.covariances_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(stream.predict_proba(X), batch.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("make", [LinearDiscriminant, QuadraticDiscriminant])
def test_integer_weights_equal_duplicated_rows_on_singular_data(make):
    X, y = _singular_data()
    w = np.arange(len(X)) % 3
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.covariances_, repeated.covariances_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-6)


# ------------------------------------------------------------------ the strict refusal, messages
@pytest.mark.parametrize("make", [LinearDiscriminant, QuadraticDiscriminant])
def test_reg_covar_zero_refuses_singular_data_and_names_the_default(make):
    X, y = load("digits")
    with pytest.raises(ValueError, match=r"singular.*reg_covar='auto'"):
        make(reg_covar=0).fit(X, y)
    with pytest.raises(ValueError, match=r"singular.*reg_covar='auto'"):
        BayesClassifier(Gaussian("full", reg_covar=0)).fit(X, y)


@pytest.mark.parametrize(
    "value, error, message",
    [
        ("big", ValueError, r"reg_covar must be 'auto' or a float >= 0, got 'big'"),
        (-1.0, ValueError, r"reg_covar must be 'auto' or a float >= 0, got -1.0"),
        (True, TypeError, r"reg_covar must be 'auto' or a float >= 0, got True"),
    ],
)
def test_bad_reg_covar(value, error, message):
    X, y = load("iris")
    with pytest.raises(error, match=message):
        QuadraticDiscriminant(reg_covar=value).fit(X, y)


def test_singular_class_is_named_by_its_label():
    X = np.array([[0, 0], [1, 0], [2, 0], [10, 0], [10, 1], [11, 3], [13, 2]], float)
    y = np.array(["b", "b", "b", "a", "a", "a", "a"])  # "b" is at position 1
    with pytest.raises(ValueError, match="covariance of class 'b' is singular") as info:
        QuadraticDiscriminant(reg_covar=0).fit(X, y)
    assert "position" not in str(info.value)
    assert "feature 1 is constant in class 'b'" in str(info.value)


def test_counts_in_messages_are_singular_or_plural():
    X = np.array([[0, 0], [1, 5], [10, 0], [10, 1], [11, 3], [13, 2]], float)
    y = np.array(["b", "b", "a", "a", "a", "a"])
    with pytest.raises(ValueError, match=r"\(it has 2 samples for 2 features\)"):
        QuadraticDiscriminant(reg_covar=0).fit(X, y)
    X1 = np.array([[0, 0, 0], [10, 0, 1], [10, 1, 2], [11, 3, 0], [13, 2, 1]], float)
    y1 = np.array(["b", "a", "a", "a", "a"])
    with pytest.raises(ValueError, match=r"class 'b' has 1 sample,") as info:
        QuadraticDiscriminant(reg_covar=0).fit(X1, y1)
    assert "1 samples" not in str(info.value)


@pytest.mark.parametrize("reg_covar", ["auto", 0.0])
def test_lda_with_one_row_per_class_says_there_is_no_within_class_spread(reg_covar):
    X, y = np.array([[0.0, 1.0], [2.0, 5.0], [3.0, -1.0]]), ["a", "b", "c"]
    with pytest.raises(ValueError, match="no within-class degrees of freedom") as info:
        LinearDiscriminant(reg_covar=reg_covar).fit(X, y)
    assert "constant" not in str(info.value)
    assert "reg_covar=" in str(info.value)  # the fix: a covariance of its own scale
    LinearDiscriminant(reg_covar=1.0).fit(X, y)


def test_qda_fits_a_class_with_one_row_tightly_around_it():
    """A class with one row (one row of positive weight: scikit-learn's weight checks)
    has the addition alone as its covariance: 1e-6 times each feature's variance."""
    X, y = load("iris")
    rows = np.r_[0:50, 50:100, 100]
    model = QuadraticDiscriminant().fit(X[rows], y[rows])
    expected = AUTO * np.diag(X[rows].var(axis=0))
    np.testing.assert_allclose(model.covariances_[2], expected, rtol=1e-12)
    assert model.covariances_[2][0, 0] == pytest.approx(4.10359769e-07, rel=1e-8)
    assert model.predict(X[[0, 60, 100]]).tolist() == [0, 1, 2]
    w = np.r_[np.ones(100), 3.0, np.zeros(49)]  # weights == repeated rows
    weighted = QuadraticDiscriminant().fit(X, y, sample_weight=w)
    n = w.astype(int)
    repeated = QuadraticDiscriminant().fit(np.repeat(X, n, axis=0), np.repeat(y, n))
    np.testing.assert_allclose(weighted.covariances_, repeated.covariances_, rtol=1e-9, atol=1e-15)


def test_partial_fit_waits_while_a_class_has_one_row_at_reg_covar_zero():
    X, y = load("iris")
    rows = [0, 1, 2, 50, 51, 52, 100]  # class 2 has one row so far
    model = QuadraticDiscriminant(reg_covar=0).partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="do not determine the parameters yet.*class 2 has 1"):
        model.predict(X)
    model.partial_fit(X[3:50], y[3:50]).partial_fit(X[53:100], y[53:100])
    model.partial_fit(X[101:150], y[101:150])
    assert model.predict(X[[0, 60, 120]]).tolist() == [0, 1, 2]


def test_gaussian_nb_keeps_its_own_smoothing():
    """GaussianNB's regularisation is var_smoothing (scikit-learn's); with 0 a zero
    variance is refused, not regularised behind the user's back."""
    X, y = load("iris")
    X = np.column_stack([X, np.ones(len(X))])
    with pytest.raises(ValueError, match="var_smoothing"):
        GaussianNB(var_smoothing=0.0).fit(X, y)
