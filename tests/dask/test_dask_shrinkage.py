"""Ledoit-Wolf shrinkage (``shrinkage="auto"``) on Dask collections: full class moments
merged over the blocks, then a second pass for the fourth-moment sums, equal to the fit
in memory; in memory it still equals scikit-learn's lsqr solver."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask_blocks import InMemory
from registry import _continuous
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, _class_cov

from bayesrule import LinearDiscriminant
from bayesrule._dask import DaskBlocks
from bayesrule.likelihoods import Gaussian
from bayesrule.likelihoods.covariance import (
    ledoit_wolf_pooled,
    ledoit_wolf_scales,
    ledoit_wolf_sums,
)
from bayesrule.stats.moments import class_moments

RTOL = 1e-10


def _data(n=900, d=5, seed=0):
    """Three overlapping classes; correlated features of different scales and offsets."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    mix = rng.normal(size=(d, d)) * np.geomspace(0.1, 10.0, d)
    spread = np.linalg.norm(mix, axis=0)  # each feature's standard deviation
    X = rng.standard_normal((n, d)) @ mix + (0.8 * y[:, None] + 1e2) * spread
    return X, np.array(["ant", "bee", "cat"])[y]


def assert_same_lda(lazy, eager, X):
    """Same classes, counts, covariance, coefficients and posteriors (to RTOL)."""
    np.testing.assert_array_equal(lazy.classes_, eager.classes_)
    np.testing.assert_allclose(lazy.class_count_, eager.class_count_, rtol=RTOL)
    np.testing.assert_allclose(lazy.means_, eager.means_, rtol=RTOL)
    scale = np.abs(eager.covariances_).max()
    np.testing.assert_allclose(lazy.covariances_, eager.covariances_, rtol=0, atol=RTOL * scale)
    np.testing.assert_allclose(
        lazy.coef_, eager.coef_, rtol=0, atol=RTOL * np.abs(eager.coef_).max()
    )
    np.testing.assert_allclose(lazy.intercept_, eager.intercept_, rtol=RTOL)
    np.testing.assert_allclose(lazy.predict_proba(X), eager.predict_proba(X), rtol=0, atol=RTOL)
    assert lazy.likelihood_.stats_.kind == eager.likelihood_.stats_.kind == "tied"
    scatter = eager.likelihood_.stats_.scatter
    np.testing.assert_allclose(
        lazy.likelihood_.stats_.scatter, scatter, rtol=0, atol=RTOL * np.abs(scatter).max()
    )


def _shrinks(model, X, y, sample_weight=None):
    """The Ledoit-Wolf covariance is not the plain pooled one (the test means something)."""
    plain = LinearDiscriminant().fit(X, y, sample_weight=sample_weight).covariances_
    off = np.abs(plain - np.diag(np.diag(plain))).max()  # shrinkage scales these down
    assert np.abs(model.covariances_ - plain).max() > 1e-3 * off


@pytest.mark.parametrize("chunks", [97, 300, (0, 450, 1, 449)], ids=["10", "3", "empty-one"])
def test_dask_array_fit_equals_fit_in_memory(chunks):
    X, y = _data()
    Xd = da.from_array(X, chunks=(chunks, 5))
    lazy = LinearDiscriminant(shrinkage="auto").fit(Xd, da.from_array(y, chunks=200))
    eager = LinearDiscriminant(shrinkage="auto").fit(X, y)
    assert_same_lda(lazy, eager, X)
    _shrinks(eager, X, y)
    proba = lazy.predict_proba(Xd)
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), eager.predict_proba(X), rtol=0, atol=RTOL)


def test_dask_fit_with_sample_weight_equals_fit_in_memory():
    X, y = _data(seed=1)
    w = np.random.default_rng(2).uniform(0.1, 4.0, size=len(y))
    w[::17] = 0.0  # rows without weight count for nothing, in both passes
    lazy = LinearDiscriminant(shrinkage="auto").fit(
        da.from_array(X, chunks=(113, 5)),
        da.from_array(y, chunks=250),
        sample_weight=da.from_array(w, chunks=300),
    )
    eager = LinearDiscriminant(shrinkage="auto").fit(X, y, sample_weight=w)
    assert_same_lda(lazy, eager, X)
    _shrinks(eager, X, y, w)
    # integer weights equal duplicated rows
    k = np.random.default_rng(3).integers(1, 4, size=len(y))
    weighted = LinearDiscriminant(shrinkage="auto").fit(
        da.from_array(X, chunks=(200, 5)), y, sample_weight=k.astype(float)
    )
    repeated = LinearDiscriminant(shrinkage="auto").fit(np.repeat(X, k, axis=0), np.repeat(y, k))
    assert_same_lda(weighted, repeated, X)


def test_dask_dataframe_fit_equals_fit_in_memory():
    X, y = _data(seed=4)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    ddf = dd.from_pandas(df, npartitions=7)
    ys = dd.from_pandas(pd.Series(y), npartitions=7)
    lazy = LinearDiscriminant(shrinkage="auto").fit(ddf, ys)
    eager = LinearDiscriminant(shrinkage="auto").fit(df, y)
    assert lazy.feature_names_in_.tolist() == ["f0", "f1", "f2", "f3", "f4"]
    assert lazy.n_features_in_ == 5
    assert_same_lda(lazy, eager, df)
    proba = lazy.predict_proba(ddf).compute()
    np.testing.assert_allclose(proba.to_numpy(), eager.predict_proba(df), rtol=0, atol=RTOL)
    # y in memory, split by the partitions' lengths
    assert_same_lda(LinearDiscriminant(shrinkage="auto").fit(ddf, y), eager, df)


@pytest.mark.parametrize("name", ["data", "continuous"])
def test_fit_in_memory_equals_sklearn_lsqr_auto(name):
    X, y = _data(seed=5) if name == "data" else _continuous(500, 0)
    theirs = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X, y)
    ours = LinearDiscriminant(shrinkage="auto").fit(X, y)
    scale = np.abs(theirs.covariance_).max()
    np.testing.assert_allclose(ours.covariances_, theirs.covariance_, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-9)
    _shrinks(ours, X, y)


def _with_constant_feature(digits, n=600, seed=6):
    """A feature constant within one class, at a value near the class's mean."""
    X, y = _data(n=n, d=4, seed=seed)
    bee = y == "bee"
    X[bee, 2] = np.round(X[bee, 2].mean(), digits)
    return X, y


@pytest.mark.parametrize("digits", [0, 1], ids=["exact-mean", "rounded-mean"])
def test_constant_feature_in_a_class(digits):
    """A feature constant within a class is left unscaled there (scikit-learn's rule),
    also when its mean is not exact (its ML variance is then rounding noise)."""
    X, y = _with_constant_feature(digits)
    bee = y == "bee"
    noise = X[bee, 2].var()  # what fit computes too: 0, or rounding noise
    assert noise == 0 if digits == 0 else 0 < noise < 1e-20
    theirs = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X, y)
    ours = LinearDiscriminant(shrinkage="auto").fit(X, y)
    scale = np.abs(theirs.covariance_).max()
    np.testing.assert_allclose(ours.covariances_, theirs.covariance_, rtol=0, atol=1e-12 * scale)
    w = np.random.default_rng(7).uniform(0.5, 2.0, size=len(y))
    for weights in (None, w):
        lazy = LinearDiscriminant(shrinkage="auto").fit(
            da.from_array(X, chunks=(71, 4)), y, sample_weight=weights
        )
        eager = LinearDiscriminant(shrinkage="auto").fit(X, y, sample_weight=weights)
        assert_same_lda(lazy, eager, X)
        _shrinks(eager, X, y, weights)


def test_one_feature():
    """d == 1: no shrinkage (as scikit-learn), the pooled variance, in both fits."""
    X, y = _data(d=1, seed=8)
    Xd = da.from_array(X, chunks=(128, 1))
    lazy = LinearDiscriminant(shrinkage="auto").fit(Xd, y)
    eager = LinearDiscriminant(shrinkage="auto").fit(X, y)
    assert_same_lda(lazy, eager, X)
    np.testing.assert_allclose(
        eager.covariances_, LinearDiscriminant().fit(X, y).covariances_, rtol=1e-12
    )
    theirs = _class_cov(X, y, eager.class_prior_, "auto")
    np.testing.assert_allclose(eager.covariances_, theirs, rtol=1e-12)


def test_two_pieces_add_over_blocks():
    """The sums of blocks add to the sum of all rows; the formula is scikit-learn's."""
    X, y_labels = _data(n=400, seed=9)
    y = np.searchsorted(["ant", "bee", "cat"], y_labels)
    stats = class_moments(X, y, 3, kind="full")
    scales = ledoit_wolf_scales(stats)
    whole = ledoit_wolf_sums(X, y, 3, None, stats.mean, scales)
    halves = sum(
        ledoit_wolf_sums(X[s], y[s], 3, None, stats.mean, scales)
        for s in np.split(np.arange(400), [150])
    )
    np.testing.assert_allclose(halves, whole, rtol=1e-13)
    Z = (X - stats.mean[y]) / scales[y]
    np.testing.assert_allclose(
        whole, np.bincount(y, weights=((Z * Z).sum(axis=1)) ** 2), rtol=1e-13
    )
    assert (whole > 0).all()
    theirs = _class_cov(X, y, stats.count / stats.count.sum(), "auto")
    pooled = ledoit_wolf_pooled(stats, whole)
    np.testing.assert_allclose(pooled, theirs, rtol=0, atol=1e-12 * np.abs(theirs).max())


def test_gaussian_fit_blocks_without_auto_is_the_additive_fit():
    import dask

    X, y_labels = _data(n=300, seed=10)
    y = np.searchsorted(["ant", "bee", "cat"], y_labels)
    parts = [dask.delayed((X[s], y[s], None)) for s in np.split(np.arange(300), [100, 220])]
    rows = [(X[s], y[s], None) for s in np.split(np.arange(300), [100, 220])]
    for options in (
        {"covariance": "full"},
        {"covariance": "tied", "shrinkage": 0.3},
        {"covariance": "tied", "shrinkage": "auto"},
    ):
        whole = Gaussian(**options).fit(X, y, 3)
        scale = np.abs(whole.covariances_).max()
        # the same passes over Dask tasks and over blocks in memory (one mechanism)
        for blocks in (DaskBlocks(parts + [None]), InMemory([*rows, None])):
            fitted = Gaussian(**options).fit_blocks(blocks, 3)
            np.testing.assert_allclose(fitted.covariances_, whole.covariances_, atol=RTOL * scale)
            np.testing.assert_allclose(fitted.means_, whole.means_, rtol=1e-12)


def test_partial_fit_stays_refused():
    with pytest.raises(ValueError, match="needs all the data at once"):
        Gaussian("tied", shrinkage="auto").partial_fit(np.eye(3), np.arange(3), 3)
