import numpy as np
import pytest

from bayesrule import datasets
from bayesrule.datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_MEANS, FRUIT_PRIORS, fruit


def test_true_parameters_are_the_seed_values():
    assert FRUIT_CLASSES == ("apple", "orange", "grapefruit")
    np.testing.assert_array_equal(FRUIT_MEANS, [[150, 560], [160, 615], [230, 620]])
    np.testing.assert_array_equal(
        FRUIT_COVARIANCES,
        [[[200, 0], [0, 200]], [[250, 0], [0, 150]], [[400, 0], [0, 200]]],
    )
    np.testing.assert_array_equal(FRUIT_PRIORS, [0.4, 0.4, 0.2])
    assert FRUIT_PRIORS.sum() == pytest.approx(1.0)


def test_constants_cannot_be_modified_by_accident():
    with pytest.raises(ValueError):
        FRUIT_MEANS[0, 0] = 0.0
    data = fruit(2, random_state=0)
    data.means[0, 0] = 0.0  # the Bunch holds copies
    assert FRUIT_MEANS[0, 0] == 150.0


def test_bunch_contents_and_shapes():
    data = fruit(7, random_state=3)
    assert set(data) == {
        "data",
        "target",
        "feature_names",
        "target_names",
        "means",
        "covariances",
        "priors",
        "DESCR",
    }
    assert data.data.shape == (21, 2)
    assert data.data.dtype == np.float64
    assert data.target.shape == (21,)
    assert data.target.dtype.kind == "U"
    assert data.feature_names == ["weight_g", "color_nm"]
    assert data.target_names.tolist() == ["apple", "orange", "grapefruit"]
    assert data.target.tolist() == ["apple"] * 7 + ["orange"] * 7 + ["grapefruit"] * 7
    assert data.means.shape == (3, 2)
    assert data.covariances.shape == (3, 2, 2)
    assert data.priors.tolist() == [0.4, 0.4, 0.2]
    assert "grapefruit" in data.DESCR and "0.4" in data.DESCR


def test_default_size_is_1000_per_class():
    X, y = fruit(random_state=0, return_X_y=True)
    assert X.shape == (3000, 2)
    assert [np.sum(y == c) for c in FRUIT_CLASSES] == [1000, 1000, 1000]


def test_return_X_y_matches_bunch():
    X, y = fruit(50, random_state=11, return_X_y=True)
    data = fruit(50, random_state=11)
    np.testing.assert_array_equal(X, data.data)
    np.testing.assert_array_equal(y, data.target)


def test_same_seed_same_data_and_different_seed_different_data():
    a = fruit(100, random_state=42).data
    b = fruit(100, random_state=42).data
    c = fruit(100, random_state=43).data
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_generator_is_accepted_and_advanced():
    rng = np.random.default_rng(5)
    first = fruit(10, random_state=rng).data
    second = fruit(10, random_state=rng).data
    assert not np.allclose(first, second)
    np.testing.assert_array_equal(first, fruit(10, random_state=np.random.default_rng(5)).data)


def test_unseeded_draws_differ():
    assert not np.allclose(fruit(20).data, fruit(20).data)


@pytest.mark.parametrize("k", range(3))
def test_sample_moments_match_truth_within_standard_errors(k):
    n = 20000
    X, y = fruit(n, random_state=2024, return_X_y=True)
    block = X[y == FRUIT_CLASSES[k]]
    assert block.shape == (n, 2)
    var = np.diag(FRUIT_COVARIANCES[k])
    # mean: standard error sqrt(var / n); allow 5 standard errors.
    np.testing.assert_array_less(np.abs(block.mean(axis=0) - FRUIT_MEANS[k]), 5 * np.sqrt(var / n))
    cov = np.cov(block, rowvar=False)
    # variance: standard error var * sqrt(2 / (n - 1)); covariance: sqrt(var1 * var2 / n).
    np.testing.assert_array_less(np.abs(np.diag(cov) - var), 5 * var * np.sqrt(2 / (n - 1)))
    assert abs(cov[0, 1]) < 5 * np.sqrt(var[0] * var[1] / n)


def test_classes_are_ordered_in_blocks():
    y = fruit(4, random_state=0).target
    assert y.tolist() == [c for c in FRUIT_CLASSES for _ in range(4)]


@pytest.mark.parametrize("bad", [0, -3])
def test_non_positive_n_per_class_raises_value_error(bad):
    with pytest.raises(ValueError, match="n_per_class"):
        fruit(bad)


@pytest.mark.parametrize("bad", [2.5, "10", None, True])
def test_non_integer_n_per_class_raises_type_error(bad):
    with pytest.raises(TypeError, match="n_per_class"):
        fruit(bad)


def test_numpy_integer_n_per_class_is_accepted():
    assert fruit(np.int64(3), random_state=0).data.shape == (9, 2)


def test_bad_random_state_names_the_parameter():
    with pytest.raises(TypeError, match="random_state"):
        fruit(3, random_state="seed")


def test_module_exports():
    assert set(datasets.__all__) >= {"fruit", "FRUIT_MEANS", "FRUIT_COVARIANCES", "FRUIT_PRIORS"}


# --------------------------------------------------------------------------- two_modes
def test_two_modes_bunch_contents_and_counts():
    data = datasets.two_modes(random_state=0)
    assert set(data) == {
        "data",
        "target",
        "component",
        "feature_names",
        "target_names",
        "weights",
        "means",
        "covariances",
        "priors",
        "DESCR",
    }
    assert data.data.shape == (300, 2) and data.data.dtype == np.float64
    assert data.target.tolist() == [1] * 100 + [2] * 200
    assert data.component.tolist() == [0] * 100 + [0] * 100 + [1] * 100
    assert data.feature_names == ["x1", "x2"]
    assert data.target_names.tolist() == [1, 2]
    np.testing.assert_allclose(data.priors, [1 / 3, 2 / 3])
    assert data.weights[1].tolist() == [1.0] and data.weights[2].tolist() == [0.5, 0.5]
    np.testing.assert_array_equal(data.means[1], [[0.0, 0.0]])
    np.testing.assert_array_equal(data.means[2], [[3.0, -1.0], [2.0, 3.0]])
    assert data.covariances[1].shape == (1, 2, 2) and data.covariances[2].shape == (2, 2, 2)
    for cov in [*data.covariances[1], *data.covariances[2]]:
        np.testing.assert_array_equal(cov, cov.T)
        assert np.linalg.eigvalsh(cov).min() > 0
    assert "(3, -1)" in data.DESCR and "1/3" in data.DESCR


@pytest.mark.parametrize(("n", "sizes"), [(3, [1, 1, 1]), (10, [3, 3, 4]), (301, [100, 100, 101])])
def test_two_modes_sizes_keep_the_one_to_two_ratio(n, sizes):
    data = datasets.two_modes(n, random_state=1)
    assert data.data.shape == (n, 2)
    counts = [
        np.sum((data.target == c) & (data.component == k)) for c, k in [(1, 0), (2, 0), (2, 1)]
    ]
    assert counts == sizes


def test_two_modes_return_X_y_and_seeding():
    X, y = datasets.two_modes(60, random_state=4, return_X_y=True)
    data = datasets.two_modes(60, random_state=4)
    np.testing.assert_array_equal(X, data.data)
    np.testing.assert_array_equal(y, data.target)
    assert y.dtype.kind == "i"
    assert not np.allclose(X, datasets.two_modes(60, random_state=5).data)
    rng = np.random.default_rng(2)
    assert not np.allclose(
        datasets.two_modes(30, random_state=rng).data, datasets.two_modes(30, random_state=rng).data
    )


def test_two_modes_returns_copies_of_the_truth():
    data = datasets.two_modes(3, random_state=0)
    data.means[2][0, 0] = 99.0
    data.priors[0] = 0.0
    fresh = datasets.two_modes(3, random_state=0)
    assert fresh.means[2][0, 0] == 3.0 and fresh.priors[0] == pytest.approx(1 / 3)


@pytest.mark.parametrize(("label", "k"), [(1, 0), (2, 0), (2, 1)])
def test_two_modes_component_moments_match_truth(label, k):
    data = datasets.two_modes(60000, random_state=2024)
    block = data.data[(data.target == label) & (data.component == k)]
    n = block.shape[0]
    assert n == 20000
    mean, cov = data.means[label][k], data.covariances[label][k]
    var = np.diag(cov)
    np.testing.assert_array_less(np.abs(block.mean(axis=0) - mean), 5 * np.sqrt(var / n))
    sample_cov = np.cov(block, rowvar=False)
    # standard error of a covariance entry: sqrt((s_ij^2 + s_ii s_jj) / n)
    se = np.sqrt((cov**2 + np.outer(var, var)) / n)
    np.testing.assert_array_less(np.abs(sample_cov - cov), 5 * se)


def test_two_modes_class_two_is_not_one_gaussian():
    # the true mixture explains class 2 far better than the best single Gaussian
    from scipy.stats import multivariate_normal

    data = datasets.two_modes(30000, random_state=3)
    X2 = data.data[data.target == 2]
    one = multivariate_normal(X2.mean(axis=0), np.cov(X2, rowvar=False)).logpdf(X2).mean()
    mix = np.logaddexp(
        *[
            np.log(w) + multivariate_normal(m, c).logpdf(X2)
            for w, m, c in zip(data.weights[2], data.means[2], data.covariances[2], strict=True)
        ]
    ).mean()
    assert mix - one > 0.3  # nats per sample (about 0.34 in theory)


@pytest.mark.parametrize("bad", [0, 2, -1])
def test_two_modes_too_few_samples_raises_value_error(bad):
    with pytest.raises(ValueError, match="n_samples"):
        datasets.two_modes(bad)


@pytest.mark.parametrize("bad", [2.5, "300", None, True])
def test_two_modes_non_integer_n_samples_raises_type_error(bad):
    with pytest.raises(TypeError, match="n_samples"):
        datasets.two_modes(bad)


def test_two_modes_bad_random_state_names_the_parameter():
    with pytest.raises(TypeError, match="random_state"):
        datasets.two_modes(random_state="seed")


def test_two_modes_is_exported():
    assert "two_modes" in datasets.__all__
    assert {"exam", "hiking", "sports"} <= set(datasets.__all__)
