"""Edge cases a user hits: label types, streaming, models built from parameters, extremes."""

import numpy as np
import pytest

from bayesrule import (
    GaussianMixtureBayes,
    GaussianNB,
    KernelNB,
    LinearDiscriminant,
    LossMatrix,
    QuadraticDiscriminant,
)


@pytest.fixture
def blobs():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(90, 2)) + np.repeat([[0, 0], [4, 0], [0, 4]], 30, axis=0)
    return X, np.repeat([0, 1, 2], 30)


@pytest.mark.parametrize(
    "labels", [np.array([0, 1, 2]), np.array([0.0, 1.0, 2.0]), [np.int64(0), 1, 2]]
)
def test_labelled_loss_accepts_numpy_labels(labels, blobs):
    X, y = blobs
    loss = LossMatrix([[0, 5, 1], [1, 0, 1], [1, 1, 0]], classes=labels)
    model = QuadraticDiscriminant(loss=loss).fit(X, y)
    np.testing.assert_array_equal(model.loss_.matrix, loss.matrix)
    assert model.predict([[2.0, 0.0]])[0] == 1  # the costly mistake is deciding 0 for a 1


def test_labelled_loss_reorders_string_classes_and_keeps_the_reject_row(blobs):
    X, y = blobs
    names = np.array(["c", "a", "b"])[y]
    loss = LossMatrix(
        [[0, 1, 2], [1, 0, 1], [1, 1, 0], [0.3, 0.3, 0.3]], classes=np.array(["c", "a", "b"])
    )
    model = GaussianNB(loss=loss).fit(X, names)
    assert model.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(
        model.loss_.matrix, [[0, 1, 1], [1, 0, 1], [1, 2, 0], [0.3, 0.3, 0.3]]
    )
    assert model.actions_.tolist() == ["a", "b", "c", "reject"]


def test_numeric_reject_label_with_string_classes(blobs):
    X, y = blobs
    names = np.array(["a", "b", "c"])[y]
    model = GaussianNB(loss=LossMatrix.with_reject(3, 0.05), reject_label=-1).fit(X, names)
    pred = model.predict(np.vstack([X, [[2.0, 2.0]]]))
    assert pred[-1] == -1 and isinstance(pred[-1], int)
    assert (pred == model.reject_label_).sum() >= 1
    assert 0.5 < model.score(X, names) <= 1.0


def test_boolean_classes_with_a_reject_row_score(blobs):
    X, y = blobs
    flags = y > 0
    model = LinearDiscriminant(loss=LossMatrix.with_reject(2, 0.1)).fit(X, flags)
    assert model.reject_label_ == -1
    pred = model.predict(X)
    expected = np.mean([p is not None and p == t for p, t in zip(pred, flags, strict=True)])
    assert model.score(X, flags) == pytest.approx(expected)


def test_streaming_one_row_at_a_time_equals_fit(blobs):
    X, y = blobs
    order = np.random.default_rng(0).permutation(len(y))
    stream = QuadraticDiscriminant()
    for i in order:
        stream.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1, 2])
    batch = QuadraticDiscriminant().fit(X, y)
    np.testing.assert_allclose(stream.covariances_, batch.covariances_, rtol=1e-10)
    np.testing.assert_allclose(stream.predict_proba(X), batch.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(stream.class_count_, stream.likelihood_.stats_.count)


def test_partial_fit_waits_for_a_determined_covariance(blobs):
    X, y = blobs
    model = QuadraticDiscriminant(reg_covar=0).partial_fit(
        X[[0, 1, 30, 31, 60, 61]], y[[0, 1, 30, 31, 60, 61]], classes=[0, 1, 2]
    )
    with pytest.raises(ValueError, match="do not determine the parameters yet.*singular"):
        model.predict(X)
    with pytest.raises(ValueError, match="do not determine"):
        model.summary()
    with pytest.raises(ValueError, match="do not determine"):
        model.sample(5)
    with pytest.raises(ValueError, match="do not determine"):
        model.likelihood_.log_likelihood(X)
    model.partial_fit(X, y)
    assert model.predict_proba(X).shape == (90, 3)
    np.testing.assert_array_equal(model.class_count_, [32, 32, 32])


def test_from_parameters_then_partial_fit_is_refused():
    model = GaussianNB.from_parameters([[0.0], [3.0]], [[1.0], [1.0]], classes=["z", "a"])
    with pytest.raises(ValueError, match="built with from_parameters"):
        model.partial_fit([[0.1], [2.9]], ["z", "a"])


def test_from_parameters_default_priors_are_uniform():
    model = LinearDiscriminant.from_parameters([[0.0, 0.0], [2.0, 0.0]], covariance=np.eye(2))
    np.testing.assert_allclose(model.class_prior_, [0.5, 0.5])
    np.testing.assert_allclose(model.predict_proba([[1.0, 5.0]]), [[0.5, 0.5]], atol=1e-12)


@pytest.mark.parametrize("make", [QuadraticDiscriminant, GaussianNB])
def test_overflowing_input_is_an_error_not_nan(make, blobs):
    model = make().fit(*blobs)
    with pytest.raises(ValueError, match="overflow"):
        model.predict_proba([[1e200, 1e200]])


def test_linear_discriminant_does_not_overflow_but_its_density_does(blobs):
    model = LinearDiscriminant().fit(*blobs)
    proba = model.predict_proba([[1e200, 1e200]])  # linear in x: finite
    assert np.isfinite(proba).all() and proba.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="overflow"):
        model.log_evidence([[1e200, 1e200]])


@pytest.mark.parametrize(
    "make", [QuadraticDiscriminant, GaussianNB, KernelNB, GaussianMixtureBayes]
)
def test_training_values_too_large_to_square_are_named(make, blobs):
    """A Gaussian squares deviations: a training value of 1e200 overflowed (a
    RuntimeWarning and an infinite variance); it is refused, naming row, column and value."""
    X, y = blobs
    X = X.copy()
    X[7, 1] = 1e200
    with pytest.raises(ValueError, match=r"1e\+200 at row 7, column 1.*Rescale"):
        make().fit(X, y)
    X[7, 1] = 1e99  # within the limit
    assert np.isfinite(make().fit(X, y).predict_proba(X[:5])).all()


def test_far_but_finite_input_still_decides(blobs):
    model = QuadraticDiscriminant().fit(*blobs)
    proba = model.predict_proba([[1e6, 0.0]])
    assert np.isfinite(proba).all() and proba.sum() == pytest.approx(1.0)


def test_empty_and_single_row_predictions(blobs):
    model = GaussianNB().fit(*blobs)
    assert model.predict_proba(blobs[0][:1]).shape == (1, 3)
    with pytest.raises(ValueError, match="0 sample"):
        model.predict(np.empty((0, 2)))


def test_float32_and_integer_input(blobs):
    X, y = blobs
    ref = QuadraticDiscriminant().fit(X, y)
    f32 = QuadraticDiscriminant().fit(X.astype(np.float32), y)
    np.testing.assert_allclose(f32.means_, ref.means_, rtol=1e-6)
    Xi = np.round(X * 10).astype(int)
    assert GaussianNB().fit(Xi, y).predict(Xi).shape == (90,)


def test_sample_accepts_a_generator(blobs):
    model = GaussianNB().fit(*blobs)
    X1, y1 = model.sample(50, random_state=np.random.default_rng(3))
    X2, y2 = model.sample(50, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    with pytest.raises(ValueError, match="positive integer"):
        model.sample(True)


def test_bad_reject_arguments(blobs):
    with pytest.raises(TypeError, match="reject cost must be a number"):
        LossMatrix.with_reject(3, "0.1")
    with pytest.raises(TypeError, match="reject_label must be a string or a number"):
        GaussianNB(loss=LossMatrix.with_reject(3, 0.1), reject_label=[1]).fit(*blobs)


def test_loss_matrices_with_other_class_orders_differ():
    a = LossMatrix([[0, 1], [2, 0]], classes=["x", "y"])
    b = LossMatrix([[0, 1], [2, 0]], classes=["y", "x"])
    assert a != b and a == LossMatrix([[0, 1], [2, 0]], classes=["x", "y"])


def test_wide_naive_bayes_summary_builds_no_d_by_d_arrays():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 5000))
    y = np.repeat([0, 1, 2], 20)
    model = GaussianNB().fit(X, y)
    text = model.summary()
    assert "diagonal of W" in text and len(text) < 20_000
    np.testing.assert_allclose(model.coef_, model.theta_ / model.var_)
    expected = -0.5 * (model.theta_**2 / model.var_).sum(1) - 0.5 * np.log(model.var_).sum(1)
    np.testing.assert_allclose(model.intercept_, expected + np.log(model.class_prior_))


def test_summary_prints_a_tied_covariance_once(blobs):
    text = LinearDiscriminant().fit(*blobs).summary()
    assert text.count("shared covariance (tied)") == 1 and "-0. " not in text


def test_a_failed_partial_fit_changes_nothing(blobs):
    X, y = blobs
    model = GaussianNB().partial_fit(X[:45], y[:45], classes=[0, 1, 2])
    before = (model.class_count_.copy(), model.likelihood_.stats_.count.copy())
    model.set_params(priors=[0.5, 0.5])  # wrong length: refused before any state changes
    with pytest.raises(ValueError, match="one probability per class"):
        model.partial_fit(X[45:], y[45:])
    np.testing.assert_array_equal(model.class_count_, before[0])
    np.testing.assert_array_equal(model.likelihood_.stats_.count, before[1])
    model.set_params(priors=None).partial_fit(X[45:], y[45:])
    np.testing.assert_array_equal(model.class_count_, [30, 30, 30])


def test_a_failed_refit_leaves_an_unfitted_estimator(blobs):
    from sklearn.exceptions import NotFittedError

    X, y = blobs
    model = QuadraticDiscriminant().fit(np.column_stack([X, X[:, 0] ** 2]), y)
    model.set_params(priors=[0.5, 0.5])
    with pytest.raises(ValueError, match="one probability per class"):
        model.fit(X, y)
    with pytest.raises(NotFittedError):
        model.predict(X)
    model.set_params(priors=None).fit(X, y)
    assert model.n_features_in_ == 2


def test_default_reject_label_skips_every_taken_name(blobs):
    X, y = blobs
    names = np.array(["reject", "reject_", "x"])[y]
    model = GaussianNB(loss=LossMatrix.with_reject(3, 0.2)).fit(X, names)
    assert model.reject_label_ == "reject__"
    assert len(set(model.actions_.tolist())) == 4


def test_zero_weight_rows_do_not_touch_the_statistics(blobs):
    X, y = blobs
    X = np.vstack([X, [[1e90, -1e90]]])
    y = np.append(y, 0)
    w = np.append(np.ones(90), 0.0)
    weighted = GaussianNB().fit(X, y, sample_weight=w)
    dropped = GaussianNB().fit(X[:90], y[:90])
    np.testing.assert_allclose(weighted.var_, dropped.var_, rtol=1e-12)
    np.testing.assert_allclose(weighted.theta_, dropped.theta_, rtol=1e-12)


@pytest.mark.parametrize("params", [{"reg_covar": True}, {"shrinkage": True}])
def test_booleans_are_not_numbers_here(params, blobs):
    with pytest.raises((TypeError, ValueError), match="reg_covar|shrinkage"):
        LinearDiscriminant(**params).fit(*blobs)


def test_from_parameters_takes_priors_and_classes_by_position():
    model = GaussianNB.from_parameters([[0.0], [2.0]], [[1.0], [1.0]], [0.2, 0.8], ["n", "y"])
    np.testing.assert_allclose(model.class_prior_, [0.2, 0.8])
    mixed = GaussianNB.from_parameters([[0.0], [2.0]], [[1.0], [1.0]], None, ["a", 1])
    assert mixed.predict([[2.0]])[0] == 1
