"""Dask collections: fit block by block equals fit in memory; predictions come back as
Dask collections equal to the in-memory ones; on threads and on a 2-worker LocalCluster."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask_blocks import counted_blocks
from registry import (
    CASES,
    _binary,
    _blobs,
    _categories,
    _continuous,
    _counts,
    _mixed,
    assert_same_model,
)

from bayesrule import (
    AODE,
    KDB,
    SPODE,
    TAN,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianMixtureBayes,
    KernelNB,
    LinearDiscriminant,
    MixedNB,
    MultinomialNB,
)
from bayesrule.likelihoods import Gaussian
from bayesrule.likelihoods.discrete.one_dependence import OneDependence

ADDITIVE = {
    # the contract's Gaussian variants with additive statistics
    **{
        repr(case.make()): (case.make, _continuous)
        for case in CASES
        if case.data is _blobs and case.applies("partial_fit")
    },
    "BernoulliNB": (BernoulliNB, _binary),
    "MultinomialNB": (MultinomialNB, _counts),
    "ComplementNB": (ComplementNB, _counts),
    "CategoricalNB": (CategoricalNB, _categories),
    "KernelNB": (KernelNB, _continuous),
    # a Dask array of objects does not show its columns' kinds: features given
    "MixedNB": (lambda: MixedNB(features=[("gaussian", [0, 1]), ("categorical", [2, 3])]), _mixed),
    "SPODE": (SPODE, _categories),
    "SPODE(parent=2)": (lambda: SPODE(parent=2), _categories),
    "AODE": (AODE, _categories),
    "TAN": (TAN, _categories),
    "KDB(k=1)": (lambda: KDB(k=1), _categories),
}


@pytest.mark.parametrize("name", list(ADDITIVE))
def test_fit_on_a_dask_array_equals_fit_in_memory(name):
    make, maker = ADDITIVE[name]
    X, y = maker(600, 0)
    Xt, _ = maker(200, 1)
    Xd = da.from_array(X, chunks=(97, X.shape[1]))
    yd = da.from_array(y, chunks=150)  # other chunks than X's: realigned
    w = np.random.default_rng(2).integers(1, 4, size=len(y)).astype(float)
    lazy = make().fit(Xd, yd, sample_weight=da.from_array(w, chunks=200))
    eager = make().fit(X, y, sample_weight=w)
    assert_same_model(lazy, eager, Xt)
    proba = lazy.predict_proba(da.from_array(Xt, chunks=(64, Xt.shape[1])))
    assert isinstance(proba, da.Array) and proba.shape == (len(Xt), len(eager.classes_))
    np.testing.assert_allclose(proba.compute(), eager.predict_proba(Xt), rtol=0, atol=1e-10)
    labels = lazy.predict(da.from_array(Xt, chunks=(64, Xt.shape[1]))).compute()
    np.testing.assert_array_equal(labels, eager.predict(Xt))


def test_dask_dataframes_keep_column_names_and_give_frames_back():
    X, y = _mixed(500, 0)
    df = pd.DataFrame(X, columns=["x", "z", "colour", "size"])
    df[["x", "z"]] = df[["x", "z"]].astype(float)
    ddf = dd.from_pandas(df, npartitions=6)
    ys = dd.from_pandas(pd.Series(y), npartitions=6)
    lazy, eager = MixedNB().fit(ddf, ys), MixedNB().fit(df, y)
    assert lazy.feature_names_in_.tolist() == ["x", "z", "colour", "size"]
    assert lazy.blocks_ == eager.blocks_
    assert_same_model(lazy, eager, df)
    proba = lazy.predict_proba(ddf)
    assert list(proba.columns) == ["ant", "bee", "cat"]
    np.testing.assert_allclose(proba.compute().to_numpy(), eager.predict_proba(df), atol=1e-10)
    risk = lazy.risk(ddf).compute()
    np.testing.assert_allclose(risk.to_numpy(), eager.risk(df), atol=1e-10)
    evidence = lazy.log_evidence(ddf).compute()
    np.testing.assert_allclose(evidence.to_numpy(), eager.log_evidence(df), rtol=1e-10)
    np.testing.assert_array_equal(lazy.predict(ddf).compute().to_numpy(), eager.predict(df))
    # y in memory, X a Dask DataFrame: split by the partitions' lengths
    assert_same_model(MixedNB().fit(ddf, y), eager, df)


@pytest.mark.parametrize(
    "family, match",
    [
        (Gaussian("tied", shrinkage="auto"), "Ledoit-Wolf"),
        (OneDependence(discretize="quantile"), "bins"),
    ],
    ids=["mixed-ledoit-wolf", "mixed-bins"],
)
def test_models_that_need_all_the_data_say_why(family, match):
    # alone these families pass over the blocks themselves (fit_blocks); as blocks of
    # MixedNB's product they are refused: it merges one pass of statistics, no fit_blocks
    est = MixedNB(features=[(family, [0, 1, 2])])
    X, y = _continuous(200, 0)
    with pytest.raises(ValueError, match=f"cannot be fitted on a Dask collection.*{match}"):
        est.fit(da.from_array(X, chunks=50), da.from_array(y, chunks=50))
    assert not hasattr(est, "classes_")
    assert est.fit(X, y).classes_.size == 3  # in memory it fits


def test_bad_dask_input_is_refused():
    X, y = _continuous(200, 0)
    with pytest.raises(TypeError, match="y is a Dask collection but X is not"):
        MultinomialNB().fit(np.abs(X), da.from_array(y, chunks=50))
    with pytest.raises(ValueError, match="y has 199 entries, but X has 200 rows"):
        ddf = dd.from_pandas(pd.DataFrame(X), npartitions=3)
        LinearDiscriminant().fit(ddf, y[:199])
    Xd = da.from_array(X, chunks=50)
    with pytest.raises(ValueError, match="y has 150 entries, but X has 200 rows"):
        LinearDiscriminant().fit(Xd, da.from_array(y[:150], chunks=50))
    with pytest.raises(ValueError, match="y must be 1-D"):
        LinearDiscriminant().fit(Xd, da.from_array(np.c_[y, y], chunks=50))
    with pytest.raises(ValueError, match="not a Series"):
        LinearDiscriminant().fit(dd.from_pandas(pd.Series(X[:, 0]), npartitions=2), y)
    scalar = LinearDiscriminant().fit(Xd, da.from_array(y, chunks=50), sample_weight=2.0)
    np.testing.assert_allclose(scalar.class_count_, 2 * LinearDiscriminant().fit(X, y).class_count_)
    with pytest.raises(ValueError, match="at least 2 classes"):
        LinearDiscriminant().fit(
            da.from_array(X, chunks=50), da.from_array(y[:1].repeat(200), chunks=50)
        )


@pytest.fixture(scope="module")
def cluster():
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        distributed.Client(local) as client,
    ):
        yield client


@pytest.mark.slow
@pytest.mark.parametrize("name", ["GaussianNB()", "MultinomialNB", "CategoricalNB", "AODE"])
def test_on_a_local_cluster_with_two_workers(cluster, name):
    make, maker = ADDITIVE[name]
    X, y = maker(2000, 0)
    Xd = da.from_array(X, chunks=(250, X.shape[1]))
    lazy = make().fit(Xd, da.from_array(y, chunks=250))
    eager = make().fit(X, y)
    assert_same_model(lazy, eager, X)
    assert len(cluster.scheduler_info()["workers"]) == 2
    np.testing.assert_allclose(lazy.predict_proba(Xd).compute(), eager.predict_proba(X), atol=1e-10)


def _rows(path, start, stop):
    return np.array(np.load(path, mmap_mode="r")[start:stop])


def test_fit_on_a_file_holds_only_a_few_blocks_in_memory(tmp_path):
    """Out of core on one machine: a 122 MiB .npy read block by block (1.6 MB blocks,
    threads) is fitted with a traced peak far below the file's size (it stays near 14 MiB
    whatever the file's size)."""
    import tracemalloc

    import dask

    from bayesrule import GaussianNB

    n, d, step = 1_600_000, 10, 20_000
    path = str(tmp_path / "X.npy")
    X = np.lib.format.open_memmap(path, "w+", np.float64, (n, d))
    y = np.random.default_rng(0).integers(0, 3, size=n)
    for start in range(0, n, 200_000):
        rows = slice(start, start + 200_000)
        X[rows] = np.random.default_rng(start).normal(size=(200_000, d)) + y[rows, None]
    X.flush()
    del X
    blocks = [
        da.from_delayed(dask.delayed(_rows)(path, s, s + step), (step, d), np.float64)
        for s in range(0, n, step)
    ]
    lazy, labels = da.concatenate(blocks), da.from_array(y, chunks=step)
    tracemalloc.start()
    try:
        with dask.config.set(scheduler="threads", num_workers=2):
            model = GaussianNB().fit(lazy, labels)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n * d * 8 / 4, peak / 2**20
    eager = GaussianNB().fit(np.load(path), y)
    np.testing.assert_allclose(model.means_, eager.means_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "params",
    [
        {"n_components": 2, "random_state": 0},
        {
            "n_components": {1: 1, 2: 2},
            "means_init": {2: [[3.0, -1.0], [2.0, 3.0]]},
            "random_state": 0,
            "covariance": "diag",
        },
    ],
    ids=["kmeans-start", "given-means"],
)
def test_em_on_dask_equals_em_in_memory_from_the_same_start(params):
    from bayesrule.datasets import two_modes

    X, y = two_modes(3000, random_state=0, return_X_y=True)
    w = np.random.default_rng(1).integers(1, 3, size=len(y)).astype(float)
    eager = GaussianMixtureBayes(**params).fit(X, y, sample_weight=w)
    lazy = GaussianMixtureBayes(**params).fit(
        da.from_array(X, chunks=(350, 2)), da.from_array(y, chunks=350), sample_weight=w
    )
    for c in eager.classes_:
        a, b = eager.mixtures_[c], lazy.mixtures_[c]
        assert a.n_iter_ == b.n_iter_ and a.converged_ == b.converged_
        np.testing.assert_allclose(b.means_, a.means_, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b.covariances_, a.covariances_, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b.weights_, a.weights_, rtol=1e-8)
        ((key, bic),) = eager.bic_[c].items()
        assert lazy.bic_[c][key] == pytest.approx(bic, rel=1e-10)
    np.testing.assert_allclose(lazy.class_count_, eager.class_count_)
    P = lazy.predict_proba(da.from_array(X, chunks=(500, 2))).compute()
    np.testing.assert_allclose(P, eager.predict_proba(X), atol=1e-8)


@pytest.mark.slow
def test_em_on_a_local_cluster(cluster):
    from bayesrule.datasets import two_modes

    X, y = two_modes(2000, random_state=3, return_X_y=True)
    params = {"n_components": {1: 1, 2: 2}, "random_state": 0}
    eager = GaussianMixtureBayes(**params).fit(X, y)
    lazy = GaussianMixtureBayes(**params).fit(
        da.from_array(X, chunks=(300, 2)), da.from_array(y, chunks=300)
    )
    for c in eager.classes_:
        np.testing.assert_allclose(lazy.mixtures_[c].means_, eager.mixtures_[c].means_, rtol=1e-8)


def test_filtered_collections_with_empty_blocks_and_unknown_chunks():
    X, y = _continuous(800, 0)
    X[:200, 0] = -50.0
    eager = LinearDiscriminant().fit(X[X[:, 0] > -10], y[X[:, 0] > -10])
    Xd, yd = da.from_array(X, chunks=(200, 3)), da.from_array(y, chunks=200)
    keep = Xd[:, 0] > -10  # unknown chunk sizes, the first block empty
    lazy = LinearDiscriminant().fit(Xd[keep], yd[keep])
    assert_same_model(lazy, eager, X)
    np.testing.assert_allclose(
        lazy.predict_proba(Xd[keep]).compute(), eager.predict_proba(X[X[:, 0] > -10])
    )
    ddf = dd.from_pandas(pd.DataFrame(X), npartitions=4)  # no feature names, as fitted
    kept = ddf[ddf[0] > -10]  # an empty partition
    assert lazy.predict(kept).compute().shape == (600,)
    assert lazy.score(
        kept, dd.from_pandas(pd.Series(y), npartitions=4)[ddf[0] > -10]
    ) == pytest.approx(eager.score(X[200:], y[200:]))


def test_lazy_predictions_keep_the_model_they_were_made_with():
    X, y = _continuous(300, 0)
    clf = LinearDiscriminant().fit(X, y)
    lazy = clf.predict_proba(da.from_array(X, chunks=100))
    expected = clf.predict_proba(X)
    clf.fit(X, np.where(y == "cat", "bee", y))  # now two classes
    np.testing.assert_allclose(lazy.compute(), expected)
    frame = clf.predict_proba(dd.from_pandas(pd.DataFrame(X), npartitions=2))
    assert list(frame.columns) == clf.classes_.tolist()


def test_mixed_nb_auto_on_an_object_array_asks_for_features():
    X, y = _mixed(200, 0)
    with pytest.raises(ValueError, match="features='auto' chooses each column's family"):
        MixedNB().fit(da.from_array(X, chunks=50), da.from_array(y, chunks=50))


def test_mixture_options_on_dask():
    from bayesrule.datasets import two_modes

    X, y = two_modes(1200, random_state=0, return_X_y=True)
    Xd, yd = da.from_array(X, chunks=(300, 2)), da.from_array(y, chunks=300)
    params = {"n_components": {2: 2}, "random_state": 0}  # class 1: one component
    lazy, eager = (
        GaussianMixtureBayes(**params).fit(Xd, yd),
        GaussianMixtureBayes(**params).fit(X, y),
    )
    assert [m.n_components for m in lazy.mixtures_.values()] == [1, 2]
    np.testing.assert_allclose(lazy.predict_proba(X), eager.predict_proba(X), atol=1e-8)
    # a warm refit on Dask is the warm refit in memory (more in test_dask_warm_start.py)
    eager_warm = GaussianMixtureBayes(warm_start=True, **params).fit(X, y).fit(X, y)
    lazy_warm = GaussianMixtureBayes(warm_start=True, **params).fit(X, y).fit(Xd, yd)
    assert lazy_warm.n_iter_.tolist() == eager_warm.n_iter_.tolist() == [1, 1]
    np.testing.assert_allclose(lazy_warm.predict_proba(X), eager_warm.predict_proba(X), atol=1e-8)
    with pytest.raises(ValueError, match="priors must sum to 1"):
        lazy.predict_proba(Xd, priors=[0.5, 0.7])


def test_em_reads_the_blocks_once_per_iteration_for_all_classes():
    import dask

    from bayesrule.datasets import two_modes

    X, y = two_modes(3000, random_state=0, return_X_y=True)
    step = 500
    Xd, passes_so_far = counted_blocks(X, step)
    with dask.config.set(scheduler="threads"):
        gmb = GaussianMixtureBayes(n_components=2, random_state=0, n_init=2).fit(
            Xd, da.from_array(y, chunks=step)
        )
    passes = passes_so_far()
    iterations = max(m.n_iter_ for m in gmb.mixtures_.values())
    # the EM passes (one per iteration, shared by both classes and restarts), plus the
    # first block for the columns, sums, k-means heads, class weights, log-likelihoods
    assert iterations <= passes <= iterations + 6, (passes, iterations)
