"""Semi-naive Bayes (AODE, SPODE, TAN, KDB) on Dask collections: bins learned in a first
pass over the blocks, KDB's parent combinations counted in a later one; the model equals
the one fitted in memory (structure, bins, values, count tables, posteriors)."""

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from bayesrule import AODE, KDB, SPODE, TAN

MODELS = {
    "AODE": AODE,
    "SPODE": SPODE,
    "TAN": TAN,
    "KDB(k=1)": lambda **kw: KDB(k=1, **kw),
    "KDB(k=2)": lambda **kw: KDB(k=2, **kw),
}
# row blocks of the 700 training rows, one of them empty; y chunked otherwise (realigned)
BLOCKS = (150, 0, 97, 203, 250)


def _data(n, seed, kind):
    """Three classes, five dependent features: whole-number codes ("codes", as floats so
    that column 1 may miss values) or continuous measurements; column 1 has NaN."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    z = rng.standard_normal((n, 5))
    X = np.empty((n, 5))
    X[:, 0] = y + z[:, 0]
    X[:, 1] = X[:, 0] + 0.6 * z[:, 1]  # depends on x0
    X[:, 2] = X[:, 0] - X[:, 1] + 0.5 * y + 0.4 * z[:, 2]  # on x0 and x1
    X[:, 3] = X[:, 2] + X[:, 1] + 0.7 * z[:, 3]  # on x1 and x2
    X[:, 4] = np.where(y == 2, 1.5, -0.5) * z[:, 4]
    if kind == "codes":
        X = np.clip(np.round(X), -2, 3)
    X[rng.random(n) < 0.1, 1] = np.nan
    return X, np.array(["ant", "bee", "cat"])[y]


def _weights(n, seed):
    w = np.random.default_rng(seed).integers(0, 4, size=n).astype(float)  # zeros: rows out
    w[: n // 3] *= 0.37  # and not only whole numbers
    return w


def _fitted(name, kind, weighted):
    discretize = None if kind == "codes" else kind
    X, y = _data(700, 0, "codes" if kind == "codes" else "measured")
    w = _weights(len(y), 1) if weighted else None
    Xd = da.from_array(X, chunks=(BLOCKS, (5,)))
    yd = da.from_array(y, chunks=350)
    wd = None if w is None else da.from_array(w, chunks=300)
    lazy = MODELS[name](discretize=discretize).fit(Xd, yd, sample_weight=wd)
    eager = MODELS[name](discretize=discretize).fit(X, y, sample_weight=w)
    return lazy, eager, X, y, w


def _assert_same_fit(lazy, eager, tol=1e-12):
    """Every fitted attribute that the bins, the structure and the counts decide."""
    a, b = lazy.likelihood_, eager.likelihood_
    assert len(lazy.bin_edges_) == len(eager.bin_edges_)
    for ea, eb in zip(lazy.bin_edges_, eager.bin_edges_, strict=True):
        assert (ea is None) == (eb is None)
        if eb is not None:
            np.testing.assert_array_equal(ea, eb)
    assert a._bin_bounds == b._bin_bounds
    for ca, cb in zip(lazy.categories_, eager.categories_, strict=True):
        assert ca.dtype == cb.dtype
        np.testing.assert_array_equal(ca, cb)
    np.testing.assert_allclose(lazy.class_count_, eager.class_count_, rtol=tol)
    np.testing.assert_allclose(lazy.class_prior_, eager.class_prior_, rtol=tol)
    np.testing.assert_allclose(a.stats_.dense(), b.stats_.dense(), rtol=tol, atol=tol)
    d = eager.n_features_in_
    if hasattr(eager, "parents_"):
        assert lazy.parents_ == eager.parents_
    if hasattr(b, "mutual_information_"):
        np.testing.assert_allclose(a.mutual_information_, b.mutual_information_, rtol=1e-10)
        np.testing.assert_allclose(
            a.conditional_mutual_information_,
            b.conditional_mutual_information_,
            rtol=1e-10,
            atol=1e-14,
        )
        for ca, cb in zip(a.counts_, b.counts_, strict=True):  # KDB: parent combinations
            np.testing.assert_allclose(ca, cb, rtol=tol, atol=tol)
    else:
        assert a.super_parents_ == b.super_parents_
        np.testing.assert_allclose(lazy.class_marginal_, eager.class_marginal_, rtol=tol)
    pairs = [(j, ()) for j in range(d)]
    if isinstance(eager, AODE):
        pairs += [(j, (p,)) for j in range(d) for p in range(d) if p != j]
    for j, parents in pairs:
        ta = lazy.cpt(j, parents or None)
        tb = eager.cpt(j, parents or None)
        assert ta.parents == tb.parents
        np.testing.assert_allclose(ta.counts, tb.counts, rtol=tol, atol=tol)
        np.testing.assert_allclose(ta.proba, tb.proba, rtol=tol, atol=tol)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kind", ["codes", "quantile", "mdl"])
@pytest.mark.parametrize("name", list(MODELS))
def test_dask_fit_equals_fit_in_memory(name, kind, weighted):
    lazy, eager, X, y, w = _fitted(name, kind, weighted)
    _assert_same_fit(lazy, eager)
    Xt, _ = _data(300, 5, "codes" if kind == "codes" else "measured")
    proba = lazy.predict_proba(da.from_array(Xt, chunks=(128, 5)))
    assert isinstance(proba, da.Array)
    expected = eager.predict_proba(Xt)
    np.testing.assert_allclose(proba.compute(), expected, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(lazy.predict(Xt), eager.predict(Xt))
    # the data make the comparison mean something: bins, structure and weights at work
    edges = [e for e in eager.bin_edges_ if e is not None]
    assert len(edges) == (0 if kind == "codes" else 5)
    assert kind == "codes" or sum(e.size for e in edges) >= 5
    if name == "KDB(k=2)":
        assert max(len(pa) for pa in eager.parents_) == 2
        assert any(c.ndim == 4 for c in eager.likelihood_.counts_)  # (C, O_p1, O_p2, O_j)
    if weighted:
        plain = MODELS[name](discretize=None if kind == "codes" else kind).fit(X, y)
        assert np.abs(plain.predict_proba(Xt) - expected).max() > 1e-3


def test_bins_come_from_all_the_blocks_not_the_first():
    X, y = _data(700, 0, "measured")
    Xd = da.from_array(X, chunks=(BLOCKS, (5,)))
    lazy = AODE(discretize="quantile").fit(Xd, da.from_array(y, chunks=350))
    first = AODE(discretize="quantile").partial_fit(X[:150], y[:150], classes=["ant", "bee", "cat"])
    for e_all, e_first, e_lazy in zip(
        AODE(discretize="quantile").fit(X, y).bin_edges_,
        first.bin_edges_,
        lazy.bin_edges_,
        strict=True,
    ):
        np.testing.assert_array_equal(e_lazy, e_all)
        assert not np.array_equal(e_lazy, e_first)


@pytest.mark.parametrize("make", [lambda: KDB(k=2, discretize="mdl"), lambda: TAN(discretize=None)])
def test_dask_dataframes_with_mixed_columns(make):
    """Object columns whose kind shows only over all blocks: whole numbers in the first
    partitions and floats in the last (binned, as in memory), non-whole floats and then
    strings (values, as in memory); a string column and an integer column as they are.

    Without ``discretize`` the statistics of each block are merged as they come, and a
    block's non-whole floats are refused there, even when another block's strings make
    the whole column one of values in memory; TAN gets whole numbers before the strings."""
    X, y = _data(400, 3, "measured")
    ints_then_floats = np.empty(400, dtype=object)
    ints_then_floats[:] = [int(v) for v in np.round(X[:, 0])]
    ints_then_floats[300:] = X[300:, 0].tolist()
    ints_then_floats[::17] = None
    floats_then_text = np.empty(400, dtype=object)
    floats_then_text[:] = np.round(X[:, 2], 1).tolist()
    floats_then_text[300:] = np.where(X[300:, 2] > 0, "high", "low")
    df = pd.DataFrame(
        {
            "a": ints_then_floats,
            "b": X[:, 1],
            "c": floats_then_text,
            "colour": np.where(X[:, 3] > 0, "red", "blue"),
            "n": np.clip(np.round(X[:, 4]), -1, 1).astype(int),
        }
    )
    if make().discretize is None:  # TAN on values: the floats as whole-number codes
        df["a"] = np.round(X[:, 0])
        df["b"] = np.round(X[:, 1])
        df.loc[:299, "c"] = np.round(X[:300, 2]).tolist()  # (see the note below)
    w = _weights(400, 4)
    with dask.config.set({"dataframe.convert-string": False}):  # object columns as they are
        ddf = dd.from_pandas(df, npartitions=4)
        yd = dd.from_pandas(pd.Series(y), npartitions=4)
        wd = dd.from_pandas(pd.Series(w), npartitions=4)
        lazy = make().fit(ddf, yd, sample_weight=wd)
        eager = make().fit(df, y, sample_weight=w)
        _assert_same_fit(lazy, eager)
        assert lazy.feature_names_in_.tolist() == ["a", "b", "c", "colour", "n"]
        if make().discretize is not None:
            assert [e is not None for e in eager.bin_edges_] == [True, True, False, False, False]
            assert "high" in eager.categories_[2].tolist()
        proba = lazy.predict_proba(ddf).compute().to_numpy()
        np.testing.assert_allclose(proba, eager.predict_proba(df), rtol=0, atol=1e-10)


def test_dask_fit_refuses_what_fit_in_memory_refuses():
    X, y = _data(300, 0, "measured")
    Xd, yd = da.from_array(X, chunks=100), da.from_array(y, chunks=100)
    for est in (KDB(k=2, discretize=None), AODE(discretize=None)):  # continuous, refused
        with pytest.raises(ValueError, match="holds continuous values"):
            est.fit(X, y)
        with pytest.raises(ValueError, match="holds continuous values"):
            est.fit(Xd, yd)
        assert not hasattr(est, "classes_")
    with pytest.raises(ValueError, match="smaller than the number of features"):
        KDB(k=5, discretize="quantile").fit(Xd, yd)
    with pytest.raises(ValueError, match="n_bins must be an integer >= 2"):
        SPODE(discretize="quantile", n_bins=1).fit(Xd, yd)


@pytest.mark.slow
def test_bins_and_parent_combinations_on_a_local_cluster():
    """Every pass's tasks and results travel between processes (pickled)."""
    import distributed

    X, y = _data(700, 0, "measured")
    w = _weights(len(y), 1)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        distributed.Client(local),
    ):
        lazy = KDB(k=2, discretize="mdl").fit(
            da.from_array(X, chunks=(BLOCKS, (5,))),
            da.from_array(y, chunks=350),
            sample_weight=da.from_array(w, chunks=300),
        )
    eager = KDB(k=2, discretize="mdl").fit(X, y, sample_weight=w)
    _assert_same_fit(lazy, eager)
    np.testing.assert_allclose(lazy.predict_proba(X), eager.predict_proba(X), rtol=0, atol=1e-10)
