"""Discretisation of continuous columns: quantile bins, Fayyad-Irani MDL, binning."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import KBinsDiscretizer

from bayesrule.likelihoods.discrete.discretize import (
    METHODS,
    apply_cuts,
    check_discretize,
    cut_points,
    is_continuous,
)


def quantile(x, n_bins, w=None):
    x = np.asarray(x, dtype=float)
    return cut_points(x, np.zeros(x.size, dtype=np.intp), 1, w, "quantile", n_bins)


def mdl(x, y, w=None):
    y = np.asarray(y, dtype=np.intp)
    return cut_points(np.asarray(x, dtype=float), y, int(y.max()) + 1, w, "mdl", 5)


# ----------------------------------------------------------------------------- quantile
def test_quantile_0_to_99_five_bins():
    np.testing.assert_array_equal(quantile(np.arange(100), 5), [19.5, 39.5, 59.5, 79.5])
    np.testing.assert_array_equal(quantile(np.arange(100), 2), [49.5])
    # 10 values in 3 bins: thresholds 3.33 and 6.67 -> S_i = 4 and 7 -> cuts 3.5 and 6.5
    np.testing.assert_array_equal(quantile(np.arange(10), 3), [3.5, 6.5])


def test_quantile_integer_weights_equal_duplicated_rows():
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=40), 1)
    w = rng.integers(0, 5, size=40)
    for n_bins in (2, 3, 4, 7):
        weighted = quantile(x, n_bins, w.astype(float))
        duplicated = quantile(np.repeat(x, w), n_bins)
        np.testing.assert_array_equal(weighted, duplicated)
    # weights 3, 1: cumulative 3, 4; the threshold 2 is reached at the first value
    np.testing.assert_array_equal(quantile([0.0, 1.0], 2, np.array([3.0, 1.0])), [0.5])
    # weights 1, 3: the threshold 2 is first reached at the last value -> no cut ...
    assert quantile([0.0, 1.0], 2, np.array([1.0, 3.0])).size == 0
    # ... while 4 bins (thresholds 1, 2, 3) reach the first value with threshold 1
    np.testing.assert_array_equal(quantile([0.0, 1.0], 4, np.array([1.0, 3.0])), [0.5])


def test_quantile_exact_fractions_are_not_lost_to_rounding():
    # equal weights c give the unweighted cuts, although cumulative sums of 0.1, 0.3 or
    # 0.01 carry rounding error (without a tolerance, 20 x 0.1 in 2 bins cuts at 10.5)
    np.testing.assert_array_equal(quantile(np.arange(20), 2, np.full(20, 0.1)), [9.5])
    for n in range(2, 40):
        x = np.arange(float(n))
        for n_bins in range(2, 10):
            plain = quantile(x, n_bins)
            for c in (0.1, 0.3, 0.01, 1 / 3):
                np.testing.assert_array_equal(quantile(x, n_bins, np.full(n, c)), plain)


def test_quantile_ties_give_fewer_distinct_cuts():
    x = np.r_[np.zeros(50), np.arange(1.0, 51.0)]  # half of the weight on one value
    cuts = quantile(x, 5)  # thresholds 20 and 40 both hit 0; 60 hits 10, 80 hits 30
    np.testing.assert_array_equal(cuts, [0.5, 10.5, 30.5])
    x = np.r_[np.zeros(80), np.arange(1.0, 21.0)]  # 80 %: all four thresholds hit 0
    np.testing.assert_array_equal(quantile(x, 5), [0.5])
    assert np.all(np.diff(cuts) > 0)
    assert quantile(np.full(30, 2.5), 5).size == 0
    assert quantile([], 5).size == 0


def test_quantile_zero_weight_rows_change_nothing():
    x = np.arange(20.0)
    base = quantile(x, 4)
    x2 = np.r_[x, -100.0, 100.0, 3.3]
    w2 = np.r_[np.ones(20), 0.0, 0.0, 0.0]
    np.testing.assert_array_equal(quantile(x2, 4, w2), base)


def test_quantile_agrees_with_sklearn_kbins():
    # KBinsDiscretizer(quantile, averaged_inverted_cdf) puts an edge ON a data value when
    # q n / n_bins is not an integer (that value goes to the upper bin), we cut midway to
    # the next value (it stays in the lower bin): so each cut can move at most one point.
    x = np.arange(100.0)
    kb = KBinsDiscretizer(n_bins=5, encode="ordinal", strategy="quantile").fit(x[:, None])
    np.testing.assert_allclose(kb.bin_edges_[0][1:-1], quantile(x, 5))
    rng = np.random.default_rng(1)
    for n, n_bins in ((1000, 5), (333, 7), (50, 3)):
        x = rng.normal(size=n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kb = KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy="quantile")
            theirs = kb.fit_transform(x[:, None])[:, 0]
        ours = apply_cuts(x, quantile(x, n_bins))
        assert np.count_nonzero(ours != theirs) <= n_bins - 1
        assert np.mean(ours == theirs) >= 1 - (n_bins - 1) / n
        if n == 1000:
            assert np.mean(ours == theirs) >= 0.996


# ----------------------------------------------------------------------------- mdl
def entropy(counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def mdl_accepts(left, right):
    """(Gain, threshold) of Fayyad & Irani for one binary split, by hand."""
    whole = [a + b for a, b in zip(left, right, strict=True)]
    n, n1, n2 = sum(whole), sum(left), sum(right)
    gain = entropy(whole) - (n1 * entropy(left) + n2 * entropy(right)) / n
    k, k1, k2 = (sum(c > 0 for c in part) for part in (whole, left, right))
    delta = math.log2(3**k - 2) - (k * entropy(whole) - k1 * entropy(left) - k2 * entropy(right))
    return gain, (math.log2(n - 1) + delta) / n


def reference_mdl(x, y, w, n_classes):
    """Weka's cutPointsForSubset, written as a plain loop over sorted rows."""
    order = np.argsort(x, kind="stable")
    x, y, w = x[order], y[order], w[order]
    keep = w > 0
    x, y, w = x[keep], y[keep], w[keep]

    def split(lo, hi):
        if hi - lo < 2:
            return []
        whole = [float(w[lo:hi][y[lo:hi] == c].sum()) for c in range(n_classes)]
        prior, best, best_i = entropy(whole), None, None
        best_ent = prior
        for i in range(lo, hi - 1):
            if x[i] < x[i + 1]:
                left = [float(w[lo : i + 1][y[lo : i + 1] == c].sum()) for c in range(n_classes)]
                right = [a - b for a, b in zip(whole, left, strict=True)]
                ent = (sum(left) * entropy(left) + sum(right) * entropy(right)) / sum(whole)
                if ent < best_ent - 1e-12:
                    best, best_i, best_ent = (left, right), i, ent
        if best is None:
            return []
        gain, threshold = mdl_accepts(*best)
        if not gain > threshold:
            return []
        cut = (x[best_i] + x[best_i + 1]) / 2
        return split(lo, best_i + 1) + [cut] + split(best_i + 1, hi)

    return np.array(split(0, x.size))


def test_mdl_two_separated_classes_one_cut():
    np.testing.assert_array_equal(mdl(np.arange(20), np.repeat([0, 1], 10)), [9.5])
    # order of the rows does not matter
    rng = np.random.default_rng(2)
    perm = rng.permutation(20)
    np.testing.assert_array_equal(mdl(np.arange(20)[perm], np.repeat([0, 1], 10)[perm]), [9.5])


def test_mdl_noise_labels_on_few_points_give_no_cut():
    assert mdl(np.arange(8), [0, 1, 1, 0, 1, 0, 0, 1]).size == 0
    assert mdl(np.arange(8), [0, 1, 0, 1, 0, 1, 0, 1]).size == 0
    assert mdl(np.arange(10), np.zeros(10, dtype=int)).size == 0  # one class
    assert mdl([3.0, 3.0, 3.0], [0, 1, 0]).size == 0  # one distinct value


def test_mdl_three_blocks_two_cuts():
    x = np.arange(30)
    np.testing.assert_array_equal(mdl(x, np.repeat([0, 1, 2], 10)), [9.5, 19.5])
    x = np.arange(60)
    np.testing.assert_array_equal(mdl(x, np.repeat([0, 1, 0], 20)), [19.5, 39.5])
    # with blocks of 10 the criterion is myopic: the best first cut 9.5 leaves
    # [10, 0] | [10, 10] and is refused, so the 0-1-0 pattern gets no cut at all
    gain, threshold = mdl_accepts([10, 0], [10, 10])
    assert gain == pytest.approx(0.2516292, abs=1e-7)
    assert threshold == pytest.approx(0.2609581, abs=1e-7)
    assert mdl(np.arange(30), np.repeat([0, 1, 0], 10)).size == 0


def test_mdl_criterion_boundary_by_hand():
    # value 0: four rows of class 0; value 1: one of class 0, four of class 1
    gain, threshold = mdl_accepts([4, 0], [1, 4])
    assert gain == pytest.approx(0.5900049, abs=1e-7)
    assert threshold == pytest.approx(0.5854510, abs=1e-7)
    assert 0 < gain - threshold < 0.005  # just accepted
    x, y = [0.0] * 4 + [1.0] * 5, [0] * 4 + [0] + [1] * 4
    np.testing.assert_array_equal(mdl(x, y), [0.5])
    # value 0: seven rows of class 0; value 1: one of class 0, three of class 1
    gain, threshold = mdl_accepts([7, 0], [1, 3])
    assert gain == pytest.approx(0.5503407, abs=1e-7)
    assert threshold == pytest.approx(0.5510125, abs=1e-7)
    assert -0.001 < gain - threshold < 0  # just rejected
    x, y = [0.0] * 7 + [1.0] * 4, [0] * 7 + [0] + [1] * 3
    assert mdl(x, y).size == 0
    # the same tables as weights on two rows per class cell
    w = np.array([4.0, 1.0, 4.0])
    np.testing.assert_array_equal(mdl([0.0, 1.0, 1.0], [0, 0, 1], w), [0.5])
    w = np.array([7.0, 1.0, 3.0])
    assert mdl([0.0, 1.0, 1.0], [0, 0, 1], w).size == 0


def test_mdl_integer_weights_equal_duplication_and_zero_weights_ignored():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(20, 80))
        x = np.round(rng.normal(size=n), 1)
        y = (x + rng.normal(scale=0.7, size=n) > 0).astype(np.intp) + (x > 1)
        w = rng.integers(0, 4, size=n)
        weighted = cut_points(x, y, 3, w.astype(float), "mdl", 5)
        duplicated = cut_points(np.repeat(x, w), np.repeat(y, w), 3, None, "mdl", 5)
        np.testing.assert_array_equal(weighted, duplicated)


def test_mdl_matches_plain_loop_reference():
    rng = np.random.default_rng(4)
    n_cut = 0
    for _ in range(25):
        n = int(rng.integers(10, 120))
        x = np.round(rng.uniform(0, 10, size=n), 1)
        y = np.minimum((x + rng.normal(scale=1.5, size=n)) // 3.5, 2).clip(0).astype(np.intp)
        w = rng.integers(0, 3, size=n).astype(float)
        ours = cut_points(x, y, 3, w, "mdl", 5)
        np.testing.assert_allclose(ours, reference_mdl(x, y, w, 3))
        n_cut += ours.size
    assert n_cut > 10  # the comparison covered accepted splits, not only empty results


def test_mdl_ties_break_to_the_smallest_cut():
    # 0000 1 0 1111: cuts 3.5 ([4, 0] | [1, 5]) and 5.5 ([5, 1] | [0, 4]) tie exactly;
    # the smaller one is taken and its halves are not split again
    y = [0, 0, 0, 0, 1, 0, 1, 1, 1, 1]
    np.testing.assert_array_equal(mdl(np.arange(10), y), [3.5])
    # mirrored values: the tie is now between 3.5 and 5.5 of 9 - x; again the smaller
    np.testing.assert_array_equal(mdl(9 - np.arange(10), y), [3.5])
    gain, threshold = mdl_accepts([4, 0], [1, 5])
    assert gain > threshold


def test_cut_points_errors():
    y = np.zeros(3, dtype=np.intp)
    for bad in (np.array([0.0, np.nan, 1.0]), np.array([0.0, np.inf, 1.0])):
        with pytest.raises(ValueError, match="finite"):
            cut_points(bad, y, 1, None, "quantile", 5)
    with pytest.raises(ValueError, match="class indices"):
        cut_points(np.arange(3.0), np.array([0, 1, 2]), 2, None, "mdl", 5)
    with pytest.raises(ValueError, match="one length"):
        cut_points(np.arange(4.0), y, 1, None, "mdl", 5)
    with pytest.raises(ValueError, match="sample_weight"):
        cut_points(np.arange(3.0), y, 1, np.ones(2), "mdl", 5)
    with pytest.raises(ValueError, match="one of"):
        cut_points(np.arange(3.0), y, 1, None, "uniform", 5)
    with pytest.raises(ValueError, match="method"):
        cut_points(np.arange(3.0), y, 1, None, None, 5)


def test_mdl_ignores_n_bins():
    x, y = np.arange(30.0), np.repeat([0, 1, 2], 10)
    for n_bins in (2, 3, 50):
        np.testing.assert_array_equal(cut_points(x, y, 3, None, "mdl", n_bins), [9.5, 19.5])


# ----------------------------------------------------------------------------- columns
def obj(*values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (np.array([1.0, 2.37, np.nan]), True),
        (np.array([1.0, 2.0, np.nan]), False),
        (np.array([np.nan, np.nan]), False),
        (np.array([1.0, np.inf]), True),
        (np.array([1.5], dtype=np.float32), True),
        (np.array([1, 2, 3]), False),
        (np.array([True, False]), False),
        (np.array(["1.5", "2"]), False),
        (obj(1, 2.5, None), True),
        (obj(1, 2.0, None, np.nan, pd.NA), False),
        (obj(np.float32(0.5), pd.NA), True),
        (obj(Fraction(1, 2), 3), True),
        (obj(1.5, "a"), False),
        (obj(1.5, True), False),
        (obj(np.bool_(True), 0.5), False),
        (obj(None, None), False),
        (obj(-np.inf, 2), True),
    ],
)
def test_is_continuous(column, expected):
    assert is_continuous(column) is expected


def test_apply_cuts():
    edges = np.array([1.5, 3.0])
    x = np.array([-5.0, 1.5, 2.9, 3.0, 7.0, np.nan])
    np.testing.assert_array_equal(apply_cuts(x, edges), [0, 1, 1, 2, 2, np.nan])
    out = apply_cuts(obj(None, 3.0, np.nan, pd.NA, 1, 1.0), edges)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [np.nan, 2, np.nan, np.nan, 0, 0])
    np.testing.assert_array_equal(apply_cuts(np.array([0.0, np.nan]), []), [0, np.nan])
    np.testing.assert_array_equal(apply_cuts(np.array([1, 2, 4]), edges), [0, 1, 2])
    with pytest.raises(ValueError, match="'a'"):
        apply_cuts(obj(1.0, "a"), edges)


def test_apply_cuts_round_trip_with_cut_points():
    x = np.arange(100.0)
    bins = apply_cuts(x, quantile(x, 5))
    np.testing.assert_array_equal(np.bincount(bins.astype(int)), [20] * 5)


def test_check_discretize():
    assert METHODS == ("auto", "mdl", "quantile")
    assert check_discretize(None, 5) == (None, 5)
    assert check_discretize("quantile", np.int64(3)) == ("quantile", 3)
    assert type(check_discretize("mdl", np.int64(3))[1]) is int
    with pytest.raises(ValueError, match="'auto', 'mdl', 'quantile'"):
        check_discretize("Quantile", 5)
    with pytest.raises(TypeError, match="discretize"):
        check_discretize(1, 5)
    for bad in (True, 2.0, "5", None):
        with pytest.raises(TypeError, match="n_bins"):
            check_discretize("quantile", bad)
    for bad in (1, 0, -3):
        with pytest.raises(ValueError, match="n_bins"):
            check_discretize(None, bad)
