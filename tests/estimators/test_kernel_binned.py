"""KernelNB's binned evaluation: a grid of each density, interpolated; exact in the tails.

The documented error of ``ln p(x_j | c)`` in the grid is at most about 0.002 (typically
below 1e-4); values outside the grid (farther than 4 bandwidths from the class's training
values) are evaluated exactly.
"""

import numpy as np
import pytest
from scipy.stats import gaussian_kde
from sklearn.neighbors import KernelDensity

from bayesrule import KernelNB
from bayesrule.io import load, save
from bayesrule.likelihoods import Kernel, kernel_exact, kernel_grid

#: the documented bound on |binned - exact| of one feature's log-density
TOLERANCE = 2e-3


def one_feature(values):
    """One feature of one class, for the family (a classifier needs two classes)."""
    values = np.asarray(values, dtype=float)[:, None]
    return values, np.zeros(len(values), dtype=int), 1


def draws(kind, n, rng):
    if kind == "normal":
        return rng.normal(size=n)
    if kind == "bimodal":  # a narrow and a wide mode 12 apart: a deep valley between
        return np.r_[rng.normal(0.0, 1.0, n // 2), rng.normal(12.0, 0.3, n - n // 2)]
    if kind == "cauchy":  # outliers: the grid splits into segments
        return rng.standard_cauchy(n)
    if kind == "integers":  # ties: 17 values, as digits' pixels
        return rng.integers(0, 17, n).astype(float)
    if kind == "lognormal":
        return rng.lognormal(0.0, 1.5, n)
    raise AssertionError(kind)


def queries(t, h, rng):
    """Values across the data and 8 bandwidths beyond, and near training values."""
    grid = np.linspace(t.min() - 8 * h, t.max() + 8 * h, 4000)
    return np.r_[grid, rng.choice(t, 2000) + h * rng.normal(size=2000)]


@pytest.mark.parametrize("kind", ["normal", "bimodal", "cauchy", "integers", "lognormal"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binned_log_density_is_within_the_documented_error_of_the_exact_one(kind, weighted):
    rng = np.random.default_rng(0)
    X, y, C = one_feature(draws(kind, 3000, rng))
    w = rng.uniform(0.5, 3.0, len(y)) if weighted else None
    exact = Kernel(algorithm="exact").fit(X, y, C, sample_weight=w)
    binned = Kernel(algorithm="binned").fit(X, y, C, sample_weight=w)
    assert binned.binned_.all() and not exact.binned_.any()
    np.testing.assert_array_equal(binned.bandwidth_, exact.bandwidth_)
    q = queries(X[:, 0], binned.bandwidth_[0, 0], rng)[:, None]
    a, b = exact.log_likelihood(q)[:, 0], binned.log_likelihood(q)[:, 0]
    assert np.isfinite(b).all()
    err = np.abs(a - b)
    assert err.max() <= TOLERANCE
    assert np.median(err) <= 1e-4


def test_binned_log_density_matches_scipy_and_scikit_learn():
    rng = np.random.default_rng(1)
    t = np.r_[rng.normal(0.0, 1.0, 3000), rng.normal(5.0, 0.5, 2000)]
    model = Kernel().fit(*one_feature(t))  # auto: 5000 values, binned
    assert model.binned_.all()
    h = model.bandwidth_[0, 0]
    x = np.linspace(-4.0, 8.0, 2001)
    ours = model.log_likelihood(x[:, None])[:, 0]
    scipy_kde = gaussian_kde(t, bw_method=h / t.std(ddof=1))
    np.testing.assert_allclose(np.sqrt(scipy_kde.covariance[0, 0]), h, rtol=1e-12)
    sklearn_kde = KernelDensity(bandwidth=h).fit(t[:, None])
    np.testing.assert_allclose(ours, scipy_kde.logpdf(x), rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(ours, sklearn_kde.score_samples(x[:, None]), rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("distance", [kernel_grid.REACH + 0.5, 10.0, 50.0, 1000.0, 1e6])
def test_values_outside_the_grid_are_evaluated_exactly(distance):
    """The tail policy: beyond the grid the exact sum (finite however far), not -inf."""
    rng = np.random.default_rng(2)
    t = np.r_[rng.normal(size=3000), 400.0 + rng.normal(size=3000)]  # two segments
    binned = Kernel(bandwidth=0.3, algorithm="binned").fit(*one_feature(t))
    exact = Kernel(bandwidth=0.3, algorithm="exact").fit(*one_feature(t))
    h = binned.bandwidth_[0, 0]
    x = np.array([t.max() + distance * h, t.min() - distance * h, 200.0])[:, None]
    got = binned.log_likelihood(x)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, exact.log_likelihood(x), rtol=1e-12)
    assert len(binned._grids[0][0][0]) == 2  # two segments: no grid across the gap


def test_values_in_the_grid_are_not_evaluated_exactly(monkeypatch):
    """Inside the grid a value costs two grid nodes, not a sum over training values."""
    rng = np.random.default_rng(3)
    model = KernelNB().fit(rng.normal(size=(4000, 3)), np.repeat([0, 1], 2000))
    calls = []

    def counting(x, t, w, h):
        calls.append(x.size)
        return real(x, t, w, h)

    real = kernel_exact.log_kernel_sum
    monkeypatch.setattr(kernel_exact, "log_kernel_sum", counting)
    model.predict_proba(rng.normal(size=(5000, 3)) * 0.5)  # well inside every grid
    assert calls == []
    model.predict_proba(np.array([[0.0, 0.0, 30.0]]))  # feature 2 far outside: exactly
    assert calls == [1, 1]  # feature 2, once per class


def test_auto_bins_the_densities_of_many_values_or_much_weight():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], [999, 1000])
    X = rng.normal(size=(len(y), 2))
    X[:10, 1] = np.nan  # class 0 has 989 observed values of feature 1
    model = KernelNB().fit(X, y)
    np.testing.assert_array_equal(model.binned_, [[False, False], [True, True]])
    assert not KernelNB(algorithm="exact").fit(X, y).binned_.any()
    assert KernelNB(algorithm="binned").fit(X, y).binned_.all()
    # weights count samples: 500 rows of weight 2 are binned like 1000 rows
    rows = rng.normal(size=(500, 1))
    weighted = Kernel().fit(rows, np.zeros(500, int), 1, sample_weight=np.full(500, 2.0))
    duplicated = Kernel().fit(np.repeat(rows, 2, axis=0), np.zeros(1000, int), 1)
    assert weighted.binned_.all() and duplicated.binned_.all()
    q = np.linspace(-5, 5, 101)[:, None]
    np.testing.assert_allclose(weighted.log_likelihood(q), duplicated.log_likelihood(q), rtol=1e-12)


def test_partial_fit_equals_fit_when_binned():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 6000)
    X = rng.normal(size=(6000, 2)) + y[:, None]
    whole = KernelNB().fit(X, y)
    parts = KernelNB()
    for rows in np.array_split(np.arange(6000), 3):
        parts.partial_fit(X[rows], y[rows], classes=[0, 1])
    assert whole.binned_.all() and parts.binned_.all()
    q = rng.normal(size=(300, 2)) * 3
    np.testing.assert_allclose(parts.predict_log_proba(q), whole.predict_log_proba(q), rtol=1e-12)


def test_missing_values_and_float32_when_binned():
    rng = np.random.default_rng(6)
    y = np.repeat([0, 1], 3000)
    X = rng.normal(size=(6000, 3)) + y[:, None]
    X[rng.random(X.shape) < 0.1] = np.nan
    binned = KernelNB(algorithm="binned").fit(X, y)
    exact = KernelNB(algorithm="exact").fit(X, y)
    q = rng.normal(size=(400, 3)) * 2
    q[::3, 1] = np.nan
    diff = np.abs(binned.log_likelihood(q) - exact.log_likelihood(q))
    assert diff.max() <= 3 * TOLERANCE  # three features at most
    np.testing.assert_array_equal(binned.log_likelihood(np.full((1, 3), np.nan)), [[0.0, 0.0]])
    single = KernelNB(algorithm="binned").fit(X.astype(np.float32), y)
    np.testing.assert_allclose(  # the float32 rounding of the data moves the values
        single.log_likelihood(q.astype(np.float32)), binned.log_likelihood(q), atol=1e-4
    )


def test_a_grid_too_large_falls_back_to_exact_evaluation():
    """Bandwidths tiny against the spread of the values: a grid would need more nodes
    than ``kernel_grid.NODES + NODES_PER_ROW * rows``; the density is evaluated exactly."""
    rng = np.random.default_rng(7)
    X, y, C = one_feature(rng.uniform(0, 1, 2000))
    model = Kernel(bandwidth=1e-4, algorithm="binned").fit(X, y, C)
    assert not model.binned_.any()
    q = rng.uniform(0, 1, (50, 1))
    exact = Kernel(bandwidth=1e-4, algorithm="exact").fit(X, y, C)
    np.testing.assert_allclose(model.log_likelihood(q), exact.log_likelihood(q), rtol=1e-12)
    assert kernel_grid.build(np.sort(X[:, 0]), np.ones(2000), 1e-4) is None


def test_a_saved_binned_model_predicts_the_same(tmp_path):
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1], 1500)
    X = rng.normal(size=(3000, 2)) + y[:, None]
    model = KernelNB().fit(X, y)
    save(model, tmp_path / "kernel.model")
    again = load(tmp_path / "kernel.model")
    assert again.binned_.all() and again.get_params() == model.get_params()
    q = np.r_[rng.normal(size=(200, 2)), [[40.0, -40.0]]]
    np.testing.assert_array_equal(again.predict_proba(q), model.predict_proba(q))


@pytest.mark.parametrize("algorithm", ["fast", "Exact", None, 1])
def test_bad_algorithms_are_refused_by_name(algorithm):
    X, y, C = one_feature([0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="algorithm must be 'auto', 'exact' or 'binned'"):
        KernelNB(algorithm=algorithm).fit(X, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="algorithm must be"):
        Kernel(algorithm=algorithm).fit(X, y, C)


@pytest.mark.slow
def test_digits_replicated_ten_times_fits_and_predicts_like_the_exact_model():
    """The issue's case (18,000 rows of digits): binned, with the exact model's labels
    on a sample of rows."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = np.tile(X, (10, 1)) + np.random.default_rng(9).normal(0, 0.01, (10 * len(X), 64))
    y = np.tile(y, 10)
    model = KernelNB().fit(X, y)
    assert model.binned_.all()
    sample = np.random.default_rng(10).choice(len(y), 40, replace=False)
    exact = KernelNB(algorithm="exact").fit(X, y)
    joint = model.predict_joint_log_proba(X[sample])
    np.testing.assert_allclose(joint, exact.predict_joint_log_proba(X[sample]), atol=64 * TOLERANCE)
    np.testing.assert_array_equal(model.predict(X[sample]), exact.predict(X[sample]))
    assert model.score(X, y) > 0.9


def test_grid_evaluation_gives_nan_for_nan_and_outside_values():
    rng = np.random.default_rng(9)
    t = np.sort(rng.normal(size=2000))
    grid = kernel_grid.build(t, np.ones(t.size), 0.2)
    x = np.array([np.nan, 0.0, 1e9, -1e9, np.inf, -np.inf])
    got = kernel_grid.evaluate(grid, x.copy(), 0.2, offset=1.5)
    assert np.isnan(got[[0, 2, 3, 4, 5]]).all() and np.isfinite(got[1])
    plain = kernel_grid.evaluate(grid, x[1:2].copy(), 0.2)
    np.testing.assert_allclose(got[1], plain[0] + 1.5, rtol=1e-15)
