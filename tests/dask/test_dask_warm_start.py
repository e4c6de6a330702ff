"""GaussianMixtureBayes(warm_start=True) refitted on a Dask collection: EM starts from the
last fit's mixtures (fitted in memory or on Dask) exactly as a refit in memory does (one
run from the last parameters, stopping rule continued from their lower bound; candidates,
classes or features that changed start as a first fit does), so the parameters,
``n_iter_``, ``bic_`` and posteriors equal the in-memory refit's."""

import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from bayesrule import GaussianMixtureBayes
from bayesrule._dask import DaskBlocks
from bayesrule.datasets import two_modes
from bayesrule.likelihoods.mixture import Mixture

ROWS = 110  # rows per block: every class spans several blocks


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the short first fits
        yield


def _data(seed=2, n=300):
    X, y = two_modes(n, random_state=seed, return_X_y=True)
    w = np.random.default_rng(seed).integers(1, 3, size=len(y)).astype(float)
    return X, y, w


def _dask(X, y, w=None):
    return (
        da.from_array(X, chunks=(ROWS, X.shape[1])),
        da.from_array(y, chunks=ROWS),
        None if w is None else da.from_array(w, chunks=ROWS),
    )


def _refit(gmm, X, y, w=None, **params):
    return gmm.set_params(**params).fit(X, y, sample_weight=w)


def _assert_same(lazy, eager, X):
    assert list(lazy.classes_) == list(eager.classes_)
    assert lazy.n_iter_.tolist() == eager.n_iter_.tolist()
    for c in eager.classes_:
        a, b = eager.mixtures_[c], lazy.mixtures_[c]
        assert (b.covariance, b.n_components) == (a.covariance, a.n_components)
        assert b.converged_ == a.converged_
        np.testing.assert_allclose(b.lower_bound_, a.lower_bound_, rtol=1e-10)
        np.testing.assert_allclose(b.weights_, a.weights_, rtol=1e-8)
        np.testing.assert_allclose(b.means_, a.means_, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b.covariances_, a.covariances_, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(
            b.precisions_cholesky_, a.precisions_cholesky_, rtol=1e-8, atol=1e-10
        )
        assert list(lazy.bic_[c]) == list(eager.bic_[c])
        keys = list(eager.bic_[c])
        np.testing.assert_allclose(
            [lazy.bic_[c][k] for k in keys], [eager.bic_[c][k] for k in keys], rtol=1e-10
        )
    np.testing.assert_allclose(lazy.predict_proba(X), eager.predict_proba(X), rtol=0, atol=1e-10)


def _chosen(gmm):
    return {c: (m.covariance, m.n_components) for c, m in gmm.mixtures_.items()}


MEANS = {2: [[3.0, -1.0], [2.0, 3.0]]}  # class 2's modes (two_modes)


@pytest.mark.parametrize(
    ("params", "weighted", "first", "second"),
    [
        ({"n_components": 2, "random_state": 0}, True, [2, 2], [10, 1]),
        ({"n_components": "bic", "max_components": 3, "random_state": 1}, False, [2, 2], [1, 1]),
        (
            {"n_components": {2: 2}, "covariance": "sklearn", "random_state": 0},
            False,
            [2, 2],
            [1, 1],
        ),
        (
            {"n_components": 2, "n_init": 3, "means_init": MEANS, "random_state": 0},
            True,
            [2, 2],
            [5, 1],
        ),
    ],
    ids=["fixed-weighted", "k-by-bic", "structure-by-bic", "restarts-and-means-init"],
)
def test_a_warm_refit_on_dask_equals_the_warm_refit_in_memory(params, weighted, first, second):
    X, y, w = _data()
    w = w if weighted else None
    eager = _refit(GaussianMixtureBayes(warm_start=True, **params), X, y, w, max_iter=2)
    lazy = _refit(GaussianMixtureBayes(warm_start=True, **params), *_dask(X, y, w), max_iter=2)
    _assert_same(lazy, eager, X)
    assert eager.n_iter_.tolist() == first
    _refit(eager, X, y, w, max_iter=200)
    _refit(lazy, *_dask(X, y, w), max_iter=200)
    _assert_same(lazy, eager, X)
    assert lazy.n_iter_.tolist() == second


def test_a_warm_refit_on_dask_continues_the_first_run():
    # the stopping rule goes on from the last fit's lower bound: 2 + 10 and 2 + 1
    # iterations, and the cold fit's parameters (one run, the same k-means start)
    X, y, w = _data()
    params = {"n_components": 2, "random_state": 0}
    cold = GaussianMixtureBayes(**params).fit(X, y, sample_weight=w)
    assert cold.n_iter_.tolist() == [12, 3]
    lazy = _refit(GaussianMixtureBayes(warm_start=True, **params), *_dask(X, y, w), max_iter=2)
    assert lazy.n_iter_.tolist() == [2, 2]
    _refit(lazy, *_dask(X, y, w), max_iter=200)
    assert lazy.n_iter_.tolist() == [10, 1]
    for c in cold.classes_:
        a, b = cold.mixtures_[c], lazy.mixtures_[c]
        assert b.converged_ and a.converged_
        np.testing.assert_allclose(b.lower_bound_, a.lower_bound_, rtol=1e-10)
        np.testing.assert_allclose(b.means_, a.means_, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(b.covariances_, a.covariances_, rtol=1e-8, atol=1e-10)


def test_warm_start_mixes_fits_in_memory_and_on_dask():
    import copy

    X, y, w = _data()
    params = {"n_components": 2, "warm_start": True, "max_iter": 3, "random_state": 0}
    for first_on_dask in (False, True):
        first = GaussianMixtureBayes(**params)
        _refit(first, *(_dask(X, y, w) if first_on_dask else (X, y, w)))
        assert first.n_iter_.tolist() == [3, 3]
        eager = _refit(copy.deepcopy(first), X, y, w, max_iter=200)
        lazy = _refit(copy.deepcopy(first), *_dask(X, y, w), max_iter=200)
        _assert_same(lazy, eager, X)
        assert lazy.n_iter_.tolist() == [9, 1]


def test_warm_start_without_a_previous_fit_is_a_first_fit():
    X, y, w = _data()
    params = {"n_components": {2: 2}, "random_state": 0}
    lazy = GaussianMixtureBayes(warm_start=True, **params).fit(*_dask(X, y, w))
    cold = GaussianMixtureBayes(**params).fit(*_dask(X, y, w))
    eager = GaussianMixtureBayes(warm_start=True, **params).fit(X, y, sample_weight=w)
    _assert_same(lazy, cold, X)
    _assert_same(lazy, eager, X)
    assert _chosen(lazy) == {1: ("full", 1), 2: ("full", 2)}
    assert lazy.n_iter_.tolist() == [2, 3]


def test_a_class_whose_number_of_components_changed_starts_cold():
    # class 1 goes from 2 components to 1: its k-means start, drawn first as in a first
    # fit; class 2 keeps 2 and goes on from the last fit (2 + 1 iterations)
    X, y, w = _data()
    params = {"n_components": 2, "warm_start": True, "max_iter": 2, "random_state": 0}
    eager = _refit(GaussianMixtureBayes(**params), X, y, w)
    lazy = _refit(GaussianMixtureBayes(**params), *_dask(X, y, w))
    changed = {"n_components": {2: 2}, "max_iter": 200}
    _refit(eager, X, y, w, **changed)
    _refit(lazy, *_dask(X, y, w), **changed)
    _assert_same(lazy, eager, X)
    cold = GaussianMixtureBayes(n_components={2: 2}, random_state=0).fit(X, y, sample_weight=w)
    assert lazy.n_iter_.tolist() == [2, 1] and cold.n_iter_.tolist() == [2, 3]
    a, b = cold.mixtures_[1], lazy.mixtures_[1]
    np.testing.assert_allclose(b.means_, a.means_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(b.covariances_, a.covariances_, rtol=1e-8, atol=1e-10)


def test_a_refit_on_other_classes_starts_cold():
    X, y, w = _data()
    params = {"n_components": 1, "warm_start": True, "max_iter": 1, "random_state": 0}
    lazy = _refit(GaussianMixtureBayes(**params), *_dask(X, y, w))
    y3 = np.where((y == 2) & (X[:, 1] > 1.0), 3, y)  # class 2's upper mode: a new class
    _refit(lazy, *_dask(X, y3, w), max_iter=200)
    eager = GaussianMixtureBayes(n_components=1, random_state=0).fit(X, y3, sample_weight=w)
    _assert_same(lazy, eager, X)
    assert lazy.classes_.tolist() == [1, 2, 3] and lazy.n_iter_.tolist() == [2, 2, 2]


def test_a_mixture_refitted_blockwise_starts_from_its_last_fit_for_as_many_classes():
    # Mixture (classes by position): fit in memory, then fit_blocks with warm_start
    X, y, w = _data()
    y2 = y - 1
    y3 = np.where((y2 == 1) & (X[:, 1] > 1.0), 2, y2)

    def blocks(labels):
        rows = range(0, len(labels), ROWS)
        return DaskBlocks(
            [dask.delayed((X[a : a + ROWS], labels[a : a + ROWS], w[a : a + ROWS])) for a in rows]
        )

    params = {"n_components": 2, "warm_start": True, "max_iter": 2, "random_state": 0}
    for labels, n_classes, iterations in [(y2, 2, [10, 1]), (y3, 3, [12, 38, 114])]:
        eager = Mixture(**params).fit(X, y2, 2, w)
        lazy = Mixture(**params).fit(X, y2, 2, w)
        eager.max_iter = lazy.max_iter = 200
        eager.fit(X, labels, n_classes, w)
        lazy.fit_blocks(blocks(labels), n_classes)
        assert [m.n_iter_ for m in lazy.mixtures_] == iterations
        if n_classes == 3:  # other classes: every class starts as in a first fit
            cold = Mixture(n_components=2, random_state=0).fit(X, labels, 3, w)
            assert [m.n_iter_ for m in cold.mixtures_] == iterations
        for a, b in zip(eager.mixtures_, lazy.mixtures_, strict=True):
            assert a.n_iter_ == b.n_iter_
            np.testing.assert_allclose(b.means_, a.means_, rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(b.covariances_, a.covariances_, rtol=1e-8, atol=1e-10)
        for a, b in zip(eager.bic_, lazy.bic_, strict=True):
            assert list(b) == list(a) == [("full", 2)]
            np.testing.assert_allclose(b[("full", 2)], a[("full", 2)], rtol=1e-10)


def test_a_refit_on_other_features_fails_as_in_memory():
    X, y, w = _data()
    errors = []
    for data in ((X, y, w), _dask(X, y, w)):
        gmm = GaussianMixtureBayes(warm_start=True, random_state=0).fit(X[:, :1], y)
        with pytest.raises(ValueError) as error:
            gmm.fit(*data[:2], sample_weight=data[2])
        assert not hasattr(gmm, "likelihood_")  # a failed fit leaves it unfitted
        errors.append(str(error.value))
    assert (
        errors[0]
        == errors[1]
        == (
            "class 1 (n_components=1, covariance='full'): previous has "
            "covariance='full', 1 components and 1 features; a warm start needs "
            "covariance='full', 1 and 2."
        )
    )
