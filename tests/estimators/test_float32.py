"""float32 input stays float32: no float64 copy of X is made; each block of rows is
widened on its own, so the results equal those of the same values in float64."""

import gc
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from bayesrule import (
    BernoulliNB,
    GaussianNB,
    LinearDiscriminant,
    MultinomialNB,
    NearestMean,
    QuadraticDiscriminant,
)

N, D, C = 200_000, 50, 5


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, C, N)
    X = (rng.normal(size=(N, D)) + y[:, None] * 0.3).astype(np.float32)
    return X, y


def peak(call) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "make", [GaussianNB, QuadraticDiscriminant, LinearDiscriminant, NearestMean]
)
def test_float32_fits_and_predicts_without_a_float64_copy(data, make):
    X32, y = data
    X64 = X32.astype(np.float64)  # the same values
    a, b = make().fit(X32, y), make().fit(X64, y)
    np.testing.assert_allclose(a.means_, b.means_, rtol=1e-12, atol=1e-12)  # not 1e-7
    np.testing.assert_allclose(a.predict_proba(X32[:1000]), b.predict_proba(X64[:1000]), atol=1e-12)
    copy64 = X64.nbytes
    del X64
    assert peak(lambda: make().fit(X32, y)) < copy64 / 2
    output = N * C * 8
    assert peak(lambda: a.predict_proba(X32)) < output + copy64 / 2


@pytest.mark.parametrize("make", [MultinomialNB, BernoulliNB])
def test_float32_sparse_counts_equal_float64(make):
    rng = np.random.default_rng(1)
    X = sp.random_array((3000, 200), density=0.05, rng=rng, format="csr")
    X.data = np.ceil(X.data * 4)
    y = rng.integers(0, 3, 3000)
    a = make().fit(X.astype(np.float32), y)
    b = make().fit(X, y)
    np.testing.assert_array_equal(a.feature_log_prob_, b.feature_log_prob_)
    np.testing.assert_allclose(
        a.predict_proba(X.astype(np.float32)), b.predict_proba(X), atol=1e-13
    )
