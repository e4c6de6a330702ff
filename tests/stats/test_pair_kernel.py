"""The compiled pair counts (``_engines/_pair_kernels.py``) against the one-hot products
of :func:`bayesrule.stats.pair_counts.count_pairs` (``BAYESRULE_NO_NUMBA=1``) and against
counts of the rows."""

import numba  # noqa: F401  (a test extra: the compiled path must be the one tested)
import numpy as np
import pytest

from bayesrule.stats import pair_counts
from bayesrule.stats.pair_counts import count_pairs, encode_table


@pytest.fixture(autouse=True)
def compiled_for_any_size(monkeypatch):
    monkeypatch.setattr(pair_counts, "COMPILED_FROM", 0)


def table(seed, n=3000, d=6):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (n, d)).astype(float)
    X[:, 1] = rng.choice([2.5, 7.0, -1.0], n)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, 3, n)
    return X, y


@pytest.mark.parametrize("weights", ["none", "integers", "reals"])
def test_counted_gram_equals_the_products(monkeypatch, weights):
    X, y = table(0)
    rng = np.random.default_rng(1)
    w = {"none": None, "integers": rng.integers(0, 4, y.size) * 1.0, "reals": rng.random(y.size)}
    w = w[weights]
    categories, codes = encode_table(X, w)
    counted = count_pairs(categories, codes, y, 3, w)
    with monkeypatch.context() as m:
        m.setenv("BAYESRULE_NO_NUMBA", "1")
        products = count_pairs(categories, codes, y, 3, w)
    if weights == "reals":  # the products sum in another order
        np.testing.assert_allclose(counted.gram, products.gram, rtol=1e-13, atol=1e-12)
    else:
        np.testing.assert_array_equal(counted.gram, products.gram)
    # by hand: F(c, x_0 = 1, x_2 = 3) and the diagonal F(c, x_3 = 0)
    off = counted.offsets
    w = np.ones(y.size) if w is None else w
    for c in range(3):
        both = (y == c) & (X[:, 0] == 1) & (X[:, 2] == 3)
        np.testing.assert_allclose(counted.gram[c, off[0] + 1, off[2] + 3], w[both].sum())
        np.testing.assert_allclose(counted.gram[c, off[2] + 3, off[0] + 1], w[both].sum())
        alone = (y == c) & (X[:, 3] == 0)
        np.testing.assert_allclose(counted.gram[c, off[3], off[3]], w[alone].sum())


def test_out_of_range_classes_are_refused():
    X, y = table(2, n=200)
    categories, codes = encode_table(X)
    y[7] = 5
    with pytest.raises(ValueError, match="out of range"):
        count_pairs(categories, codes, y, 3)


@pytest.mark.parametrize("weights", ["none", "zeros and ones"])
@pytest.mark.parametrize("workers", [1, 3])
def test_bit_sets_count_as_the_pairs_do(weights, workers):
    # the popcount path (weights 0 or 1, few values) against the increments, over
    # missing codes, an empty class and a class of more than 64 rows
    from bayesrule._engines import _pair_kernels

    X, y = table(5, n=700, d=7)
    y[y == 2] = 3  # class 2 empty
    w = None if weights == "none" else np.random.default_rng(6).integers(0, 2, y.size) * 1.0
    categories, codes = encode_table(X)
    off = pair_counts.offsets_of(categories).astype(np.intp)
    W = int(off[-1])
    unit = np.zeros(0) if w is None else w
    bits = pair_counts._bit_gram(_pair_kernels, codes, off, y.astype(np.intp), 4, unit, workers)
    assert bits is not None  # 7 features of at most 5 values: the bit sets are cheaper
    rows = np.zeros((4, W, W))
    assert _pair_kernels.upper_gram(codes, off, y.astype(np.intp), unit, 0, y.size, rows)
    np.testing.assert_array_equal(bits, np.triu(rows))
    assert bits[2].sum() == 0 and bits[3].sum() > 0
    # real weights take the increments
    assert pair_counts._bit_gram(_pair_kernels, codes, off, y, 4, np.full(y.size, 0.5), 1) is None
