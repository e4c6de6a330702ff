"""GaussianMixtureBayes choosing n_components and covariance by BIC on a Dask collection:
the same candidates, the same random starts, the same choice, ``bic_`` and posteriors as
the in-memory fit (every class's candidates small enough for the k-means start on Dask to
see all of their rows, as in memory)."""

import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from dask_blocks import counted_blocks

from bayesrule import GaussianMixtureBayes
from bayesrule.datasets import two_modes


def _fit_both(params, X, y, rows, sample_weight=None):
    eager = GaussianMixtureBayes(**params).fit(X, y, sample_weight=sample_weight)
    lazy = GaussianMixtureBayes(**params).fit(
        da.from_array(X, chunks=(rows, X.shape[1])),
        da.from_array(y, chunks=rows),
        sample_weight=sample_weight,
    )
    return eager, lazy


def _chosen(gmm):
    return {c: (m.covariance, m.n_components) for c, m in gmm.mixtures_.items()}


def _assert_same_choice(eager, lazy, X):
    assert _chosen(lazy) == _chosen(eager)
    for c in eager.classes_:
        assert list(lazy.bic_[c]) == list(eager.bic_[c])  # the same candidates, in order
        keys = list(eager.bic_[c])
        np.testing.assert_allclose(
            [lazy.bic_[c][k] for k in keys], [eager.bic_[c][k] for k in keys], rtol=1e-8
        )
        a, b = eager.mixtures_[c], lazy.mixtures_[c]
        assert a.n_iter_ == b.n_iter_
        np.testing.assert_allclose(b.weights_, a.weights_, rtol=1e-8)
        np.testing.assert_allclose(b.means_, a.means_, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b.covariances_, a.covariances_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(lazy.predict_proba(X), eager.predict_proba(X), rtol=1e-8, atol=1e-12)
    for c in eager.classes_:  # the same candidates refused (no BIC), for the same kind of reason
        assert list(lazy.refused_[c]) == list(eager.refused_[c])
        for key, why in eager.refused_[c].items():
            assert lazy.refused_[c][key].split(" (")[0] == why.split(" (")[0]


def test_bic_on_dask_chooses_each_class_as_in_memory_on_threads():
    X, y = two_modes(1200, random_state=0, return_X_y=True)
    w = np.random.default_rng(1).integers(1, 3, size=len(y)).astype(float)
    params = {"n_components": "bic", "max_components": 4, "random_state": 0}
    with dask.config.set(scheduler="threads"):
        eager, lazy = _fit_both(params, X, y, 250, sample_weight=w)
        _assert_same_choice(eager, lazy, X)
    assert _chosen(lazy) == {1: ("full", 1), 2: ("full", 2)}  # the classes differ
    for table in lazy.bic_.values():
        assert list(table) == [("full", k) for k in range(1, 5)]


@pytest.mark.parametrize(
    "params",
    [
        {"n_components": "bic", "covariance": "sklearn", "max_components": 3, "random_state": 1},
        {"n_components": {2: 2}, "covariance": "sklearn", "n_init": 2, "random_state": 0},
    ],
    ids=["both-by-bic", "structure-by-bic-2-restarts"],
)
def test_bic_on_dask_chooses_the_structure_as_in_memory(params):
    X, y = two_modes(300, random_state=2, return_X_y=True)
    with dask.config.set(scheduler="synchronous"):
        eager, lazy = _fit_both(params, X, y, 110)
        _assert_same_choice(eager, lazy, X)
    assert _chosen(lazy) == {1: ("spherical", 1), 2: ("full", 2)}
    k = params["n_components"]
    for c, table in lazy.bic_.items():
        ks = range(1, 4) if k == "bic" else [k.get(c, 1)]
        assert set(table) == {(s, n) for s in ("full", "tied", "diag", "spherical") for n in ks}


def test_degenerate_candidates_are_refused_on_dask_as_in_memory():
    # iris: with covariance="sklearn" some candidates put a component on one or two rows
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    params = {
        "n_components": "bic",
        "covariance": "sklearn",
        "max_components": 6,
        "random_state": 0,
    }
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eager, lazy = _fit_both(params, X, y, 40)
        _assert_same_choice(eager, lazy, X)
    reasons = [why for table in lazy.refused_.values() for why in table.values()]
    assert any("rows' weight" in why for why in reasons), reasons
    assert _chosen(lazy)[2] == ("full", 1)  # not a spherical mixture with a one-row component


def _repeated(seed):
    """Class 0: 30 distinct values; class 1: 6 distinct values, three of them repeated 10
    times (with reg_covar=0, some candidates collapse and are left out)."""
    rng = np.random.default_rng(seed)
    X = np.vstack(
        [
            rng.normal(0, 1, (30, 1)),
            np.repeat(rng.normal(5, 1, (3, 1)), 10, axis=0),
            rng.normal(5, 1, (3, 1)),
        ]
    )
    return X, np.repeat([0, 1], [30, 33])


@pytest.mark.parametrize("seed", [0, 3])
def test_candidates_that_fail_are_left_out_as_in_memory(seed):
    X, y = _repeated(seed)
    params = {
        "n_components": "bic",
        "covariance": "sklearn",
        "max_components": 4,
        "reg_covar": 0.0,
        "random_state": seed,
    }
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eager, lazy = _fit_both(params, X, y, 16)
        _assert_same_choice(eager, lazy, X)
    # class 1's 6 distinct values (counted over the blocks) allow 13 candidates: full and
    # diag/spherical up to 3 components, tied up to 4; some of them collapse
    tried = {(s, k) for s in ("full", "tied", "diag", "spherical") for k in (1, 2, 3)}
    assert set(lazy.bic_[1]) < tried | {("tied", 4)}


def test_a_class_whose_every_candidate_fails_raises_the_in_memory_error():
    X = np.r_[np.random.default_rng(0).normal(size=(20, 1)), np.full((10, 1), 2.0)]
    y = np.repeat([0, 1], [20, 10])
    params = {"n_components": "bic", "reg_covar": 0.0, "random_state": 0}
    with pytest.raises(ValueError) as in_memory:
        GaussianMixtureBayes(**params).fit(X, y)
    with pytest.raises(ValueError) as on_dask, dask.config.set(scheduler="synchronous"):
        GaussianMixtureBayes(**params).fit(da.from_array(X, chunks=7), da.from_array(y, chunks=7))
    assert "class 1 (n_components=1, covariance='full')" in str(on_dask.value)
    assert str(on_dask.value) == str(in_memory.value)


def test_only_the_chosen_candidates_warn_as_in_memory():
    X, y = two_modes(600, random_state=0, return_X_y=True)
    params = {"n_components": "bic", "max_components": 3, "max_iter": 1, "random_state": 0}
    with dask.config.set(scheduler="synchronous"):
        with warnings.catch_warnings(record=True) as eager_seen:
            warnings.simplefilter("always")
            eager = GaussianMixtureBayes(**params).fit(X, y)
        with warnings.catch_warnings(record=True) as lazy_seen:
            warnings.simplefilter("always")
            lazy = GaussianMixtureBayes(**params).fit(
                da.from_array(X, chunks=(150, 2)), da.from_array(y, chunks=150)
            )
    assert _chosen(lazy) == _chosen(eager)
    messages = [str(w.message) for w in eager_seen]
    # every candidate stopped unconverged, but only the chosen one of each class warns
    assert len(messages) == 2 and all("max_iter=1 iterations" in m for m in messages)
    assert [str(w.message) for w in lazy_seen] == messages


def test_all_candidates_of_all_classes_share_the_passes_over_the_blocks():
    X, y = two_modes(1200, random_state=0, return_X_y=True)
    step = 200
    Xd, passes_so_far = counted_blocks(X, step)
    params = {"n_components": "bic", "max_components": 4, "max_iter": 10, "random_state": 0}
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gmm = GaussianMixtureBayes(**params).fit(Xd, da.from_array(y, chunks=step))
    passes = passes_so_far()
    assert sum(len(table) for table in gmm.bic_.values()) == 8
    # EM: at most max_iter passes for the 8 candidates together (one after the other,
    # they would need at least 8 * 2); plus the columns, sums, k-means heads, class
    # weights and log-likelihoods
    assert 2 <= passes <= params["max_iter"] + 6, passes
