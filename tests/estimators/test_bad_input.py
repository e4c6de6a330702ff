"""Bad input gets a clear ValueError or TypeError naming the parameter and the fix."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from bayesrule import (
    BayesClassifier,
    GaussianBayes,
    GaussianNB,
    LinearDiscriminant,
    LossMatrix,
    NearestMean,
    QuadraticDiscriminant,
    bayes,
)
from bayesrule.likelihoods import Gaussian

ALL = [GaussianNB, QuadraticDiscriminant, LinearDiscriminant, NearestMean]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) + np.repeat([[0, 0, 0], [3, 3, 3], [0, 4, -2]], 20, axis=0)
    y = np.repeat(["a", "b", "c"], 20)
    return X, y


@pytest.mark.parametrize(
    ("make", "bad"),
    # the Gaussians take NaN as a missing value (test_nan_is_missing_for_gaussian_nb,
    # tests/estimators/test_gaussian_em_missing.py); infinity never
    [
        (m, b)
        for b in (np.nan, np.inf, -np.inf)
        for m in ALL
        if not (b != b and m().__sklearn_tags__().input_tags.allow_nan)
    ],
)
def test_nan_or_inf_in_X(make, bad, data):
    X, y = data
    X = X.copy()
    X[5, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        make().fit(X, y)
    model = make().fit(data[0], y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.predict_proba(X)


def test_nan_is_missing_for_gaussian_nb(data):
    X, y = data
    X = X.copy()
    X[5, 1] = np.nan
    model = GaussianNB().fit(X, y)  # feature 1 of row 5 is left out
    np.testing.assert_allclose(model.theta_[0, 1], np.delete(X[:20, 1], 5).mean(), rtol=1e-13)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("make", ALL)
def test_non_numeric_X(make, data):
    X, y = data
    Xs = X.astype(object)
    Xs[0, 0] = "heavy"
    with pytest.raises(ValueError, match="numeric"):
        make().fit(Xs, y)


@pytest.mark.parametrize("make", ALL)
def test_one_class(make, data):
    X, _ = data
    with pytest.raises(ValueError, match="at least 2 classes"):
        make().fit(X, np.zeros(len(X)))


@pytest.mark.parametrize("make", ALL)
def test_y_of_another_length(make, data):
    X, y = data
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        make().fit(X, y[:-1])


@pytest.mark.parametrize("make", ALL)
def test_wrong_number_of_features_at_predict(make, data):
    X, y = data
    model = make().fit(X, y)
    with pytest.raises(ValueError, match="3 features"):
        model.predict(X[:, :2])


def test_class_with_too_few_samples_for_a_full_covariance(data):
    X, y = data
    X, y = X[:43], y[:43]  # class "c" has 3 samples for 3 features
    with pytest.raises(ValueError, match=r"class 'c' is singular \(it has 3 samples"):
        QuadraticDiscriminant(reg_covar=0).fit(X, y)
    QuadraticDiscriminant().fit(X, y)  # the default regularises the singular class
    QuadraticDiscriminant(reg_covar=1e-3).fit(X, y)  # the fix the message names


def test_class_with_one_sample_in_naive_bayes_is_regularised(data):
    X, y = data
    X, y = X[:41], y[:41]  # class "c" has one sample: variances are var_smoothing only
    model = GaussianNB().fit(X, y)
    assert np.all(model.var_[2] > 0)
    with pytest.raises(ValueError, match="var_smoothing"):
        GaussianNB(var_smoothing=0.0).fit(X, y)


@pytest.mark.parametrize("make", [QuadraticDiscriminant, LinearDiscriminant])
def test_singular_covariance_names_reg_covar(make, data):
    X, y = data
    X = np.column_stack([X, 2 * X[:, 0] - X[:, 1]])  # a linear combination
    with pytest.raises(ValueError, match="singular.*reg_covar"):
        make(reg_covar=0).fit(X, y)
    make(reg_covar=1e-6).fit(X, y)


def test_constant_feature_is_singular_without_smoothing(data):
    X, y = data
    X = np.column_stack([X, np.ones(len(X))])
    with pytest.raises(ValueError, match="zero variance"):
        BayesClassifier(Gaussian("diag", reg_covar=0)).fit(X, y)


@pytest.mark.parametrize(
    "priors, match",
    [
        ([0.5, 0.6, -0.1], "non-negative"),
        ([0.5, 0.5], "one probability per class"),
        ([0.5, 0.3, 0.1], "sum to 1"),
        ("frequent", "not understood"),
        ({"a": 0.5, "b": 0.5}, "missing"),
        ({"a": 0.5, "b": 0.3, "c": 0.1, "d": 0.1}, "unknown"),
        ([0.3, np.nan, 0.7], "finite"),
    ],
)
def test_bad_priors(priors, match, data):
    with pytest.raises(ValueError, match=match):
        GaussianNB(priors=priors).fit(*data)


def test_priors_of_the_wrong_type(data):
    with pytest.raises(TypeError, match="priors"):
        GaussianNB(priors=[object(), 1, 2]).fit(*data)


@pytest.mark.parametrize(
    "loss, match",
    [
        (np.ones((2, 2)), r"shape \(2, 2\) but there are 3 classes"),
        (np.ones((5, 3)), "shape"),
        ([[0, 1, 1], [1, 0, -1], [1, 1, 0]], "non-negative"),
        ([[0, 1, 1], [1, 0, np.nan], [1, 1, 0]], "finite"),
        (np.ones(3), "2-D"),
    ],
)
def test_bad_loss_matrix(loss, match, data):
    with pytest.raises(ValueError, match=match):
        QuadraticDiscriminant(loss=loss).fit(*data)


def test_loss_of_the_wrong_type():
    with pytest.raises(TypeError, match="numeric"):
        LossMatrix([["a", "b"], ["c", "d"]])


def test_negative_reject_cost():
    with pytest.raises(ValueError, match="reject cost"):
        LossMatrix.with_reject(3, -0.1)


def test_reject_label_equal_to_a_class(data):
    with pytest.raises(ValueError, match="reject_label='b' equals a class"):
        GaussianNB(loss=LossMatrix.with_reject(3, 0.2), reject_label="b").fit(*data)


def test_default_reject_label_avoids_the_classes():
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    model = GaussianNB(loss=LossMatrix.with_reject(2, 0.01)).fit(X, [-1, -1, -1, 1, 1, 1])
    assert model.reject_label_ == -2
    assert model.predict([[2.6]])[0] == -2


def test_labelled_loss_with_other_classes(data):
    loss = LossMatrix(np.ones((3, 3)) - np.eye(3), classes=["a", "b", "z"])
    with pytest.raises(ValueError, match="differ from the estimator's classes"):
        GaussianNB(loss=loss).fit(*data)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"reg_covar": -1.0}, ValueError, "reg_covar must be 'auto' or a float >= 0"),
        ({"reg_covar": "big"}, ValueError, "reg_covar must be 'auto' or a float >= 0"),
        ({"reg_covar": [1.0]}, TypeError, "reg_covar must be 'auto' or a float >= 0"),
        ({"shrinkage": 1.5}, ValueError, r"shrinkage must be a float in \[0, 1\]"),
        ({"shrinkage": "oas"}, ValueError, "shrinkage must be None, 'auto' or a float"),
    ],
)
def test_bad_lda_parameters(params, error, match, data):
    with pytest.raises(error, match=match):
        LinearDiscriminant(**params).fit(*data)


def test_bad_covariance_structure(data):
    with pytest.raises(ValueError, match="covariance must be one of"):
        BayesClassifier(Gaussian("banded")).fit(*data)


def test_not_a_likelihood(data):
    with pytest.raises(TypeError, match="likelihood must be a likelihood object"):
        BayesClassifier("gaussian").fit(*data)


def test_negative_sample_weight(data):
    X, y = data
    w = np.ones(len(y))
    w[3] = -1
    with pytest.raises(ValueError, match="Negative values"):
        GaussianNB().fit(X, y, sample_weight=w)


def test_class_with_zero_total_weight(data):
    X, y = data
    w = np.where(y == "b", 0.0, 1.0)
    with pytest.raises(ValueError, match=r"classes \['b'\] have zero total sample_weight"):
        QuadraticDiscriminant().fit(X, y, sample_weight=w)


def test_partial_fit_needs_classes_first(data):
    with pytest.raises(ValueError, match="classes must be given"):
        GaussianNB().partial_fit(*data)


def test_partial_fit_unseen_label(data):
    X, y = data
    model = GaussianNB().partial_fit(X, y, classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="not among the classes"):
        model.partial_fit(X[:2], ["a", "q"])


def test_partial_fit_other_classes(data):
    X, y = data
    model = GaussianNB().partial_fit(X, y, classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="differs from the classes"):
        model.partial_fit(X, y, classes=["a", "b"])


def test_predict_before_every_class_has_data(data):
    X, y = data
    model = QuadraticDiscriminant().partial_fit(X[:20], y[:20], classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="do not determine the parameters yet.*no samples"):
        model.predict(X)


def test_auto_shrinkage_refuses_partial_fit(data):
    model = LinearDiscriminant(shrinkage="auto")
    assert not hasattr(model, "partial_fit")
    with pytest.raises(AttributeError, match="no attribute 'partial_fit'") as info:
        model.partial_fit(*data, classes=["a", "b", "c"])
    assert "needs all the data" in str(info.value.__cause__)


@pytest.mark.parametrize("make", ALL)
def test_unfitted(make, data):
    with pytest.raises(NotFittedError):
        make().predict(data[0])
    with pytest.raises(NotFittedError):
        make().sample(3)


def test_from_parameters_validation():
    with pytest.raises(ValueError, match=r"must have shape \(2, 2, 2\)"):
        QuadraticDiscriminant.from_parameters([[0, 0], [1, 1]], np.eye(2))
    with pytest.raises(ValueError, match="symmetric"):
        QuadraticDiscriminant.from_parameters([[0, 0], [1, 1]], [[[1, 0.5], [0, 1]], np.eye(2)])
    with pytest.raises(TypeError):
        QuadraticDiscriminant.from_parameters([[0, 0], [1, 1]], np.eye(2), reg_covar=1.0)
    with pytest.raises(ValueError, match="distinct labels"):
        GaussianNB.from_parameters([[0.0], [1.0]], [[1.0], [1.0]], classes=["a", "a"])
    with pytest.raises(ValueError, match=r"variances must be positive; feature 0 has variance 0.0"):
        GaussianNB.from_parameters([[0.0], [1.0]], [[1.0], [0.0]])
    with pytest.raises(ValueError, match="covariance: the pooled covariance is not positive"):
        LinearDiscriminant.from_parameters([[0, 0], [1, 1]], [[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="priors='empirical' needs data"):
        GaussianNB.from_parameters([[0.0], [1.0]], [[1.0], [1.0]], "empirical")


def test_sample_count():
    model = GaussianNB.from_parameters([[0.0], [1.0]], [[1.0], [1.0]])
    with pytest.raises(ValueError, match="n_samples must be a positive integer"):
        model.sample(0)


@pytest.mark.parametrize(
    "priors, likelihoods, match",
    [
        ([0.5, 0.6], [0.1, 0.2], "sum to 1"),
        ([0.5, 0.5], [0.1, -0.2], "non-negative"),
        ([0.5, 0.5], [0.0, 0.0], "zero likelihood"),
        ([0.5, 0.5], 0.3, "class axis"),
        ([0.5, 0.5], [0.1, 0.2, 0.3], "one probability per class"),
    ],
)
def test_bad_bayes_arguments(priors, likelihoods, match):
    with pytest.raises(ValueError, match=match):
        bayes(priors, likelihoods)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_large_inputs_are_checked_in_parts(monkeypatch, sparse, bad):
    """Large arrays are checked for finiteness by worker threads, each on its own part:
    a bad value in the last part is found, with scikit-learn's message."""
    import scipy.sparse as sp

    from bayesrule import MultinomialNB

    monkeypatch.setattr("bayesrule._finite.THREADED_CHECK", 64)
    monkeypatch.setattr("bayesrule._finite.n_threads", lambda: 3)
    rng = np.random.default_rng(1)
    X = rng.poisson(2.0, size=(300, 4)).astype(float)
    y = np.arange(300) % 3
    X[299, 3] = bad  # in the last of the threads' parts
    X = sp.csr_array(X) if sparse else X
    if bad != bad:  # counts may be missing: NaN is allowed, not mistaken for inf
        assert MultinomialNB().fit(X, y).predict(X).shape == (300,)
        with pytest.raises(ValueError, match="Input X contains NaN"):
            # Bayesian estimates refuse NaN (maximum likelihood fills it in by EM)
            GaussianBayes(covariance="EEE", estimate="map").fit(X.toarray() if sparse else X, y)
        return
    with pytest.raises(ValueError, match="Input X contains infinity"):
        MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        GaussianNB().fit(X.toarray() if sparse else X, y)


def test_the_threaded_finiteness_check_reads_arrays_in_place(monkeypatch):
    """Fortran-ordered arrays (pandas' layout) are not copied, large finite values do
    not warn (the suite turns RuntimeWarnings into errors), and finite data pass."""
    import tracemalloc

    from bayesrule._finite import _all_finite

    monkeypatch.setattr("bayesrule._finite.THREADED_CHECK", 64)
    X = np.asfortranarray(np.random.default_rng(2).random((200_000, 5)))
    tracemalloc.start()
    try:
        assert _all_finite(X, allow_nan=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < X.nbytes / 10
    big = np.full((100, 4), 1e308) * np.linspace(0.5, 1.0, 4)  # sums overflow, values do not
    for values, allow_nan in ((big, False), ((big / 1e270).astype(np.float32), True)):
        _all_finite(values, allow_nan)  # may say "look closer"; must not warn (an error here)
    y = np.arange(100) % 2
    spread = 1.0 + np.arange(100)[:, None] / 1000  # every column varies within a class
    GaussianNB().fit(big / 1e300 * spread, y)  # no RuntimeWarning from the check


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_cells_are_named_by_row_and_column_without_other_estimators(bad):
    """Issue 16: the message names the cell and the fix, not scikit-learn's advice to
    use another library's estimator."""
    X = np.random.default_rng(3).normal(size=(20, 3))
    X[5, 2] = bad
    with pytest.raises(ValueError, match=r"Input X contains (NaN|infinity) \(row 5, column 2") as e:
        GaussianBayes(covariance="EEE", estimate="map").fit(X, np.arange(20) % 2)  # takes no NaN
    assert "HistGradientBoosting" not in str(e.value)
