import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp
from sklearn.naive_bayes import CategoricalNB

from bayesrule.datasets import dependent_pairs


def _log_loss(log_joint, y):
    """Per-row -ln P(y | x) from an (n, C) matrix of ln P(x, c)."""
    log_post = log_joint - logsumexp(log_joint, axis=1, keepdims=True)
    return -log_post[np.arange(y.size), y]


def test_shapes_dtypes_and_value_ranges():
    data = dependent_pairs(501, n_pairs=4, n_values=5, n_classes=3, random_state=0)
    assert data.data.shape == (501, 8)
    assert data.data.dtype == np.int64
    assert data.target.shape == (501,)
    assert data.target.dtype == np.int64
    assert data.data.min() == 0 and data.data.max() == 4
    assert set(np.unique(data.target)) == {0, 1, 2}
    assert data.feature_names == ["a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3"]
    assert data.target_names.tolist() == [0, 1, 2]
    assert data.theta.shape == data.phi.shape == data.perm.shape == (3, 4, 5)
    assert data.perm.dtype == np.int64
    np.testing.assert_allclose(data.theta.sum(axis=-1), 1.0)
    np.testing.assert_allclose(data.phi.sum(axis=-1), 1.0)
    np.testing.assert_array_equal(
        np.sort(data.perm, axis=-1), np.broadcast_to(np.arange(5), (3, 4, 5))
    )
    np.testing.assert_allclose(data.priors, [1 / 3, 1 / 3, 1 / 3])
    assert data.strength == 0.9
    assert "Dependent attribute pairs" in data.DESCR and "perm[c, k]" in data.DESCR
    assert data.log_joint(data.data).shape == (501, 3)
    X, y = dependent_pairs(501, n_pairs=4, n_values=5, n_classes=3, random_state=0, return_X_y=True)
    np.testing.assert_array_equal(X, data.data)
    np.testing.assert_array_equal(y, data.target)


def test_class_counts_are_balanced_and_rows_shuffled():
    _, y = dependent_pairs(7, n_classes=3, random_state=1, return_X_y=True)
    assert np.bincount(y).tolist() == [3, 2, 2]
    _, y = dependent_pairs(2, n_classes=2, random_state=1, return_X_y=True)
    assert sorted(y.tolist()) == [0, 1]
    _, y = dependent_pairs(1000, random_state=1, return_X_y=True)
    assert np.bincount(y).tolist() == [500, 500]
    assert np.any(np.diff(y) < 0)  # not in class order


def test_reproducible_with_random_state():
    a = dependent_pairs(300, random_state=42)
    b = dependent_pairs(300, random_state=42)
    c = dependent_pairs(300, random_state=np.random.default_rng(42))
    d = dependent_pairs(300, random_state=43)
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.target, b.target)
    np.testing.assert_array_equal(a.data, c.data)
    assert not np.array_equal(a.data, d.data)


def test_true_parameters_do_not_depend_on_random_state():
    a = dependent_pairs(50, random_state=0)
    b = dependent_pairs(60, random_state=1, strength=0.3)
    for key in ("theta", "phi", "perm"):
        np.testing.assert_array_equal(a[key], b[key])
    # adding pairs or classes keeps the parameters of the existing ones
    big = dependent_pairs(50, n_pairs=5, n_classes=4, random_state=2)
    for key in ("theta", "phi", "perm"):
        np.testing.assert_array_equal(big[key][:2, :3], a[key])


def test_classes_map_each_value_differently():
    data = dependent_pairs(10, n_pairs=3, n_values=4, n_classes=4, random_state=0)
    for k in range(3):
        for value in range(4):
            # all four classes send `value` of a_k to different values of b_k
            assert len(set(data.perm[:, k, value].tolist())) == 4


def test_copy_frequency_matches_the_model():
    s = 0.9
    data = dependent_pairs(20000, n_pairs=3, n_values=4, strength=s, random_state=5)
    X, y = data.data, data.target
    for c in range(2):
        rows = X[y == c]
        for k in range(3):
            a, b = rows[:, 2 * k], rows[:, 2 * k + 1]
            # b == perm[a] when copied, or by chance when drawn from phi
            p_chance = np.sum(data.theta[c, k] * data.phi[c, k, data.perm[c, k]])
            expected = s + (1 - s) * p_chance
            se = np.sqrt(expected * (1 - expected) / rows.shape[0])
            observed = np.mean(b == data.perm[c, k, a])
            assert abs(observed - expected) < 4 * se, (c, k, observed, expected)
            # a's marginal is theta[c, k]
            freq = np.bincount(a, minlength=4) / a.size
            se_a = np.sqrt(data.theta[c, k] * (1 - data.theta[c, k]) / a.size)
            assert np.all(np.abs(freq - data.theta[c, k]) <= 4 * se_a + 1e-12)


def test_strength_one_makes_b_a_function_of_a():
    data = dependent_pairs(2000, strength=1.0, random_state=3)
    X, y = data.data, data.target
    for k in range(3):
        np.testing.assert_array_equal(X[:, 2 * k + 1], data.perm[y, k, X[:, 2 * k]])


def _max_independence_z(data, n_values):
    """Largest |z| of the empirical joint of (a_k, b_k) given c against theta x phi."""
    worst = 0.0
    for c in range(data.theta.shape[0]):
        rows = data.data[data.target == c]
        for k in range(data.theta.shape[1]):
            joint = np.zeros((n_values, n_values))
            np.add.at(joint, (rows[:, 2 * k], rows[:, 2 * k + 1]), 1.0)
            joint /= rows.shape[0]
            product = np.outer(data.theta[c, k], data.phi[c, k])
            se = np.sqrt(product * (1 - product) / rows.shape[0])
            z = np.abs(joint - product) / np.maximum(se, 1e-12)
            worst = max(worst, float(z.max()))
    return worst


def test_strength_zero_is_naive_bayes():
    data = dependent_pairs(20000, n_pairs=3, n_values=4, strength=0.0, random_state=11)
    # 96 cells (2 classes x 3 pairs x 16), each within 4.5 standard errors
    assert _max_independence_z(data, 4) < 4.5
    # the same check rejects the dependent data
    dep = dependent_pairs(20000, n_pairs=3, n_values=4, strength=0.9, random_state=11)
    assert _max_independence_z(dep, 4) > 20
    # and the true joint is the naive Bayes product, by hand for the first rows
    for x, lj in zip(data.data[:5], data.log_joint(data.data[:5]), strict=True):
        for c in range(2):
            p = 0.5
            for k in range(3):
                p *= data.theta[c, k, x[2 * k]] * data.phi[c, k, x[2 * k + 1]]
            assert lj[c] == pytest.approx(np.log(p), rel=1e-12)


def test_log_joint_by_hand():
    data = dependent_pairs(10, n_pairs=2, n_values=3, strength=0.8, random_state=0)
    x = np.array([[2, 1, 0, 0]])
    for c in range(2):
        p = 0.5
        for k, (a, b) in enumerate([(2, 1), (0, 0)]):
            copy = 0.8 * (data.perm[c, k, a] == b)
            p *= data.theta[c, k, a] * (copy + 0.2 * data.phi[c, k, b])
        assert data.log_joint(x)[0, c] == pytest.approx(np.log(p), rel=1e-12)


def test_log_joint_is_a_distribution_and_matches_frequencies():
    n = 200_000
    data = dependent_pairs(n, n_pairs=2, n_values=3, n_classes=2, strength=0.9, random_state=7)
    grid = np.array(list(itertools.product(range(3), repeat=4)))  # all 81 rows
    prob = np.exp(data.log_joint(grid))  # (81, 2): P(x, c)
    assert prob.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(prob.sum(axis=0), [0.5, 0.5], atol=1e-12)
    # sample counts per (x, c) against n_c P(x | c): chi-square, small cells pooled
    code = data.data @ (3 ** np.arange(3, -1, -1))
    assert np.array_equal(grid @ (3 ** np.arange(3, -1, -1)), np.arange(81))
    chi2, dof = 0.0, 0
    for c in range(2):
        n_c = np.sum(data.target == c)
        observed = np.bincount(code[data.target == c], minlength=81)
        expected = n_c * prob[:, c] / prob[:, c].sum()
        big = expected >= 5
        obs = np.append(observed[big], observed[~big].sum())
        exp = np.append(expected[big], expected[~big].sum())
        chi2 += np.sum((obs - exp) ** 2 / exp)
        dof += obs.size - 1
    assert stats.chi2.sf(chi2, dof) > 1e-3, (chi2, dof)
    # impossible rows get -inf and zero probability at strength 1
    rigid = dependent_pairs(10, n_pairs=2, n_values=3, strength=1.0, random_state=0)
    lj = rigid.log_joint(grid)
    assert np.isneginf(lj).any()
    assert np.exp(lj).sum() == pytest.approx(1.0, abs=1e-12)


def test_naive_bayes_loses_to_the_true_model_only_with_dependence():
    """The point of the generator: naive Bayes is exact at strength 0, wrong at 0.95."""
    gaps = {}
    for strength in (0.0, 0.95):
        train = dependent_pairs(20000, strength=strength, random_state=1)
        test = dependent_pairs(20000, strength=strength, random_state=2)
        nb = CategoricalNB(alpha=1.0, min_categories=4).fit(train.data, train.target)
        nb_loss = -nb.predict_log_proba(test.data)[np.arange(20000), test.target]
        true_loss = _log_loss(test.log_joint(test.data), test.target)
        diff = nb_loss - true_loss
        gaps[strength] = (diff.mean(), diff.std() / np.sqrt(diff.size), true_loss.mean())
    # measured: 0.95 -> NB 0.1707 vs true 0.0016 nats (gap 0.169, SE 0.004);
    # 0 -> NB 0.2017 vs true 0.2011 (gap 0.0006, SE 0.00015)
    gap, se, true_mean = gaps[0.95]
    assert gap > 0.1 and gap > 20 * se
    assert true_mean < 0.01
    gap, se, true_mean = gaps[0.0]
    assert abs(gap) < 0.002  # estimation error of 24 categorical parameters per class only
    assert 0.15 < true_mean < 0.25


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"n_samples": 1}, ValueError, "n_samples"),
        ({"n_samples": 3, "n_classes": 4}, ValueError, "n_samples"),
        ({"n_samples": 10.0}, TypeError, "n_samples"),
        ({"n_pairs": 0}, ValueError, "n_pairs"),
        ({"n_pairs": 1.5}, TypeError, "n_pairs"),
        ({"n_values": 1}, ValueError, "n_values"),
        ({"n_values": "4"}, TypeError, "n_values"),
        ({"n_classes": 1}, ValueError, "n_classes"),
        ({"n_classes": True}, TypeError, "n_classes"),
        ({"strength": -0.1}, ValueError, "strength"),
        ({"strength": 1.5}, ValueError, "strength"),
        ({"strength": float("nan")}, ValueError, "strength"),
        ({"strength": "0.5"}, TypeError, "strength"),
        ({"strength": True}, TypeError, "strength"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
)
def test_bad_parameters(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        dependent_pairs(**kwargs)


def test_log_joint_rejects_bad_rows():
    data = dependent_pairs(10, n_pairs=2, n_values=3, random_state=0)
    with pytest.raises(ValueError, match="4 columns"):
        data.log_joint(np.zeros((2, 3), dtype=int))
    with pytest.raises(ValueError, match="integers 0 .. 2"):
        data.log_joint([[0, 1, 2, 3]])
    with pytest.raises(ValueError, match="integers 0 .. 2"):
        data.log_joint([[0, 1, 0.5, 1]])
    with pytest.raises(ValueError, match="integers 0 .. 2"):
        data.log_joint([[0, -1, 0, 1]])
    # whole-number floats are accepted
    np.testing.assert_array_equal(
        data.log_joint([[0.0, 1.0, 2.0, 0.0]]), data.log_joint([[0, 1, 2, 0]])
    )
