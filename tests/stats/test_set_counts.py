"""Counts of attribute subsets (AnDE's statistics): against a count of the rows, the
compiled kernel against NumPy, and merging batches that bring new values."""

import numpy as np
import pytest

from bayesrule.stats import set_counts
from bayesrule.stats.pair_counts import count_pairs, encode_table
from bayesrule.stats.set_counts import SetCounts, count_sets


def _data(n, seed, d=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, d)).astype(float)
    X[:, 2] = rng.integers(0, 4, n)
    X[rng.random((n, d)) < 0.1] = np.nan
    y = rng.integers(0, 3, n)
    w = rng.random(n) * 2
    w[:10] = 0  # rows of weight zero count nowhere
    return X, y, w


def _counted(X, y, w, top):
    categories, codes = encode_table(X, w)
    return count_sets(count_pairs(categories, codes, y, 3, w), codes, y, w, top)


def test_counts_are_the_weighted_rows_of_each_combination():
    X, y, w = _data(300, 0)
    stats = _counted(X, y, w, 4)
    assert isinstance(stats, SetCounts) and stats.top == 4
    for cols in [(0, 1, 2), (2, 0, 4), (1, 3, 4, 0), (4, 3)]:
        expected = np.zeros((3, *[len(np.unique(X[~np.isnan(X[:, a]), a])) for a in cols]))
        for r in range(len(y)):
            if w[r] > 0 and not np.isnan(X[r, list(cols)]).any():
                expected[(y[r], *X[r, list(cols)].astype(int))] += w[r]
        np.testing.assert_allclose(stats.subset(cols), expected, rtol=1e-13)


@pytest.mark.parametrize("top", [3, 4])
def test_the_compiled_kernel_counts_as_numpy(top, monkeypatch):
    pytest.importorskip("numba")
    X, y, w = _data(2500, 1, d=7)
    assert len(y) >= set_counts.COMPILED_FROM
    for weights in (None, w):
        monkeypatch.setenv("BAYESRULE_NO_NUMBA", "1")
        plain = _counted(X, y, weights, top)
        monkeypatch.setenv("BAYESRULE_NO_NUMBA", "0")
        compiled = _counted(X, y, weights, top)
        for a, b in zip(plain.sets, compiled.sets, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-12)


def test_batches_that_bring_new_values_merge_into_the_whole():
    X, y, w = _data(400, 2)
    order = np.argsort(X[:, 2] == 3, kind="stable")  # the value 3 of x2 comes last
    X, y, w = X[order], y[order], w[order]
    whole = _counted(X, y, w, 4)
    first, second = _counted(X[:200], y[:200], w[:200], 4), _counted(X[200:], y[200:], w[200:], 4)
    assert first.categories[2].size == 3 and whole.categories[2].size == 4
    merged = first.merge(second)
    for a, b in zip(merged.sets, whole.sets, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError, match="fit again with the same n"):
        first.merge(_counted(X, y, w, 3))
