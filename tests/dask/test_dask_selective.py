"""Selective KDB and its ensemble on Dask collections: the fit equals the one in memory
(bins, structure, selection, leave-one-out grid, tables, posteriors), in three passes over
the blocks after the bins, whatever the number of ensemble members."""

import dask
import dask.array as da
import numpy as np
import pytest
from dask_blocks import counted_blocks

from bayesrule import ESKDB, SKDB, TAN

# row blocks of the 600 training rows, one of them empty; y chunked otherwise (realigned)
BLOCKS = (150, 0, 97, 203, 150)


def _data(n, seed, kind):
    """Three classes, five dependent features (codes as floats, or continuous), some NaN."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    z = rng.standard_normal((n, 5))
    X = np.empty((n, 5))
    X[:, 0] = y + z[:, 0]
    X[:, 1] = X[:, 0] + 0.6 * z[:, 1]
    X[:, 2] = X[:, 0] - X[:, 1] + 0.5 * y + 0.4 * z[:, 2]
    X[:, 3] = X[:, 2] + X[:, 1] + 0.7 * z[:, 3]
    X[:, 4] = z[:, 4]  # noise
    if kind == "codes":
        X = np.clip(np.round(X), -2, 3)
    X[rng.random(n) < 0.1, 1] = np.nan
    return X, np.array(["ant", "bee", "cat"])[y]


def _fits(make, kind, weighted):
    X, y = _data(600, 0, kind)
    w = None
    if weighted:
        w = np.random.default_rng(1).integers(0, 4, size=600).astype(float)
        w[:200] *= 0.37
    Xd = da.from_array(X, chunks=(BLOCKS, (5,)))
    yd = da.from_array(y, chunks=300)
    wd = None if w is None else da.from_array(w, chunks=250)
    return make().fit(Xd, yd, sample_weight=wd), make().fit(X, y, sample_weight=w)


def _same_skdb(a, b, tol=1e-12):
    assert a.order_.tolist() == b.order_.tolist()
    assert a.selected_.tolist() == b.selected_.tolist()
    assert (a.k_, a.n_selected_) == (b.k_, b.n_selected_)
    assert a.parents_ == b.parents_
    for ea, eb in zip(a.bin_edges_, b.bin_edges_, strict=True):
        assert (ea is None) == (eb is None)
        if eb is not None:
            np.testing.assert_array_equal(ea, eb)
    np.testing.assert_allclose(a.loss_grid_, b.loss_grid_, rtol=1e-10)
    for ca, cb in zip(a.counts_, b.counts_, strict=True):
        assert (ca is None) == (cb is None)
        if cb is not None:
            np.testing.assert_allclose(ca, cb, rtol=tol, atol=tol)
    np.testing.assert_allclose(a._table, b._table, rtol=tol, atol=tol)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kind", ["codes", "quantile", "mdl"])
def test_skdb_on_dask_equals_skdb_in_memory(kind, weighted):
    discretize = None if kind == "codes" else kind
    lazy, eager = _fits(lambda: SKDB(k_max=3, discretize=discretize), kind, weighted)
    _same_skdb(lazy.likelihood_, eager.likelihood_)
    np.testing.assert_allclose(lazy.class_count_, eager.class_count_, rtol=1e-12)
    Xt, _ = _data(300, 5, kind)
    proba = lazy.predict_proba(da.from_array(Xt, chunks=(128, 5))).compute()
    np.testing.assert_allclose(proba, eager.predict_proba(Xt), rtol=0, atol=1e-10)
    # the comparison means something: candidates apart, parents changing the score
    assert np.ptp(eager.loss_grid_) > 0.01 and np.ptp(eager.loss_grid_[-1]) > 1e-4


def _passes(make, X, y):
    Xd, passes_so_far = counted_blocks(X, 100)
    with dask.config.set(scheduler="sync"):
        make().fit(Xd, da.from_array(y, chunks=100))
    return passes_so_far()


@pytest.mark.parametrize("discretize", [None, "mdl"])
def test_skdb_makes_three_passes_after_the_bins(discretize):
    """TAN without bins reads the blocks once (its pair counts; and the first block for
    the columns' kinds): SKDB reads them for the class weights, the pair counts, the
    parent combinations and the leave-one-out, and once more for the bins."""
    X, y = _data(600, 0, "codes" if discretize is None else "measured")
    X = np.nan_to_num(X)
    once = _passes(lambda: TAN(discretize=None), np.round(X), y)
    passes = _passes(lambda: SKDB(k_max=2, discretize=discretize), X, y)
    assert passes == once + 3 + (discretize is not None)


def test_skdb_on_dask_refuses_what_memory_refuses():
    X, y = _data(300, 0, "measured")
    Xd, yd = da.from_array(X, chunks=100), da.from_array(y, chunks=100)
    for est in (SKDB(discretize=None), SKDB(k_max=-1), SKDB(criterion="auc")):
        with pytest.raises((ValueError, TypeError)):
            est.fit(X, y)
        with pytest.raises((ValueError, TypeError)):
            est.fit(Xd, yd)
        assert not hasattr(est, "classes_")


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kind", ["codes", "quantile", "mdl"])
def test_eskdb_on_dask_equals_eskdb_in_memory(kind, weighted):
    discretize = None if kind == "codes" else kind

    def make():
        return ESKDB(n_estimators=3, k_max=2, random_state=7, discretize=discretize)

    lazy, eager = _fits(make, kind, weighted)
    for a, b in zip(lazy.members_, eager.members_, strict=True):
        _same_skdb(a, b)
    Xt, _ = _data(300, 5, kind)
    proba = lazy.predict_proba(da.from_array(Xt, chunks=(128, 5))).compute()
    np.testing.assert_allclose(proba, eager.predict_proba(Xt), rtol=0, atol=1e-10)
    orders = {tuple(m.order_) for m in eager.members_}
    assert len(orders) > 1  # the members differ
    if kind == "mdl":  # and so do their random cut points
        assert len({tuple(np.concatenate(m.bin_edges_)) for m in eager.members_}) == 3


@pytest.mark.parametrize("discretize", [None, "mdl"])
def test_eskdb_members_share_the_passes(discretize):
    X, y = _data(600, 0, "codes" if discretize is None else "measured")
    X = np.nan_to_num(X)
    one = _passes(lambda: SKDB(k_max=2, discretize=discretize), X, y)
    for M in (1, 4):
        passes = _passes(lambda M=M: ESKDB(M, k_max=2, discretize=discretize), X, y)
        assert passes == one


def test_eskdb_on_dask_refuses_an_empty_ensemble():
    X, y = _data(300, 0, "codes")
    Xd, yd = da.from_array(X, chunks=100), da.from_array(y, chunks=100)
    with pytest.raises(ValueError, match="n_estimators=0"):
        ESKDB(n_estimators=0, discretize=None).fit(Xd, yd)


@pytest.mark.slow
def test_skdb_and_eskdb_on_a_local_cluster():
    """Every pass's tasks and results travel between processes (pickled)."""
    import distributed

    X, y = _data(600, 0, "measured")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        distributed.Client(local),
    ):
        Xd, yd = da.from_array(X, chunks=(BLOCKS, (5,))), da.from_array(y, chunks=300)
        lazy = SKDB(k_max=2, discretize="mdl").fit(Xd, yd)
        ensemble = ESKDB(2, k_max=2, random_state=3).fit(Xd, yd)
    _same_skdb(lazy.likelihood_, SKDB(k_max=2, discretize="mdl").fit(X, y).likelihood_)
    eager = ESKDB(2, k_max=2, random_state=3).fit(X, y)
    for a, b in zip(ensemble.members_, eager.members_, strict=True):
        _same_skdb(a, b)
