"""Mergeable sufficient statistics: exact, associative, and precise at any offset."""

import numpy as np
import pytest

from bayesrule.stats import moments as stats
from bayesrule.stats.moments import class_moments, empty, merge


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(3000, 4)) * [1.0, 3.0, 0.5, 2.0]
    y = rng.integers(0, 3, 3000)
    return X, y


def direct(X, y, C, kind):
    mean = np.array([X[y == c].mean(0) for c in range(C)])
    full = np.array([(X[y == c] - mean[c]).T @ (X[y == c] - mean[c]) for c in range(C)])
    if kind == "full":
        return mean, full
    if kind == "tied":
        return mean, full.sum(0)
    return mean, np.array([np.diag(f) for f in full])


@pytest.mark.parametrize("kind", stats.KINDS)
def test_moments_equal_the_two_pass_formulas(kind, data, monkeypatch):
    X, y = data
    monkeypatch.setattr(stats, "STATS_BLOCK_BYTES", 1 << 14)  # many small blocks
    got = class_moments(X, y, 3, kind=kind)
    mean, scatter = direct(X, y, 3, kind)
    np.testing.assert_allclose(got.mean, mean, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got.scatter, scatter, rtol=1e-12, atol=1e-10)
    np.testing.assert_array_equal(got.count, np.bincount(y))


@pytest.mark.parametrize("kind", stats.KINDS)
def test_merge_is_associative_and_has_an_identity(kind, data):
    X, y = data
    a, b, c = (class_moments(X[s], y[s], 3, kind=kind) for s in np.array_split(np.arange(3000), 3))
    left, right = merge(merge(a, b), c), merge(a, merge(b, c))
    np.testing.assert_allclose(left.scatter, right.scatter, rtol=1e-12)
    np.testing.assert_allclose(left.mean, right.mean, rtol=1e-13)
    same = merge(empty(3, 4, kind), a)
    np.testing.assert_array_equal(same.scatter, a.scatter)


def test_diagonal_statistics_stay_exact_far_from_the_reference(monkeypatch):
    # a class 1e6 away from the other with a spread of 1e-3: shifted sums would cancel
    # every digit, so the block is recomputed about the class mean
    monkeypatch.setattr(stats, "STATS_BLOCK_BYTES", 1 << 14)
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 1, (500, 3)), rng.normal(1e6, 1e-3, (500, 3))])
    y = np.repeat([0, 1], 500)
    order = rng.permutation(1000)
    got = class_moments(X[order], y[order], 2, kind="diag")
    # |mean| / sd = 1e9 leaves float64 about 7 digits of the variance; the unguarded
    # shifted formula keeps none of them
    shifted = X[500:] - X.mean(0)
    naive = (shifted**2).sum(0) - shifted.sum(0) ** 2 / 500
    assert np.abs(naive / 500 / X[500:].var(0) - 1).max() > 1e-2
    np.testing.assert_allclose(got.scatter[1] / 500, X[500:].var(0), rtol=1e-6)
    np.testing.assert_allclose(got.scatter[0] / 500, X[:500].var(0), rtol=1e-12)
    np.testing.assert_allclose(got.mean[1], X[500:].mean(0), rtol=1e-14)


def test_constant_feature_within_a_class_has_zero_scatter():
    X = np.array([[5.0, 1.0], [5.0, 2.0], [5.0, 4.0], [0.0, 0.0], [1.0, 3.0]])
    y = np.array([0, 0, 0, 1, 1])
    got = class_moments(X, y, 2, kind="diag")
    assert got.scatter[0, 0] == 0.0


def test_weights_equal_duplicated_rows(data):
    X, y = data
    w = np.random.default_rng(2).integers(0, 4, len(y))
    for kind in stats.KINDS:
        weighted = class_moments(X, y, 3, w.astype(float), kind=kind)
        repeated = class_moments(np.repeat(X, w, 0), np.repeat(y, w), 3, kind=kind)
        np.testing.assert_allclose(weighted.scatter, repeated.scatter, rtol=1e-11)
        np.testing.assert_allclose(weighted.count, repeated.count)


def test_total_variance_equals_numpy(data):
    X, y = data
    for kind in stats.KINDS:
        np.testing.assert_allclose(class_moments(X, y, 3, kind=kind).total_variance(), X.var(0))


def test_merge_refuses_other_shapes(data):
    X, y = data
    with pytest.raises(ValueError, match="cannot merge"):
        merge(class_moments(X, y, 3, kind="diag"), class_moments(X, y, 3, kind="full"))
