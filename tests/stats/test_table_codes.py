"""The compiled encoding of a table of small whole numbers
(:mod:`bayesrule.stats.table_codes`) against the column-by-column NumPy path of
:func:`bayesrule.stats.pair_counts.encode_table` (``BAYESRULE_NO_NUMBA=1``)."""

import numba  # noqa: F401  (a test extra: the compiled path must be the one tested)
import numpy as np
import pytest

from bayesrule.stats import table_codes
from bayesrule.stats.pair_counts import encode_table


@pytest.fixture(autouse=True)
def compiled_for_any_size(monkeypatch):
    monkeypatch.setattr(table_codes, "COMPILED_FROM", 0)


def by_columns(monkeypatch, X, w=None):
    with monkeypatch.context() as m:
        m.setenv("BAYESRULE_NO_NUMBA", "1")
        return encode_table(X, w)


def assert_same(fast, slow):
    assert len(fast[0]) == len(slow[0])
    for a, b in zip(fast[0], slow[0], strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fast[1], slow[1])


def table(seed, dtype, n=2000, d=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 6, (n, d)).astype(dtype)
    X[:, 1] = rng.choice([2, 9, -40], n)  # gaps between the values
    X[:, 2] = 7  # one value
    return X


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
@pytest.mark.parametrize("weights", ["none", "with zeros"])
@pytest.mark.parametrize("spread", ["narrow", "beyond the window"])
def test_equals_the_columns_path(monkeypatch, dtype, weights, spread):
    X = table(0, dtype)
    if spread != "narrow":  # 0 .. 999: past the first pass's window, a second pass
        X[:, 3] = np.random.default_rng(7).integers(0, 1000, len(X))
    if dtype == np.float64:
        X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
        X[:, 4] = np.nan  # a column never observed
    w = None if weights == "none" else np.random.default_rng(2).integers(0, 3, len(X)) * 1.0
    fast = table_codes.encode_small_integers(X, None if w is None else w > 0)
    assert fast is not None
    assert_same(fast, by_columns(monkeypatch, X, w))
    assert_same(encode_table(X, w), by_columns(monkeypatch, X, w))
    # by hand: column 1's values and the codes of its first rows
    kept = ~np.isnan(X[:, 1].astype(float)) & (True if w is None else w > 0)
    values = np.unique(X[kept, 1])
    np.testing.assert_array_equal(fast[0][1], values)
    expected = np.where(kept, np.searchsorted(values, X[:, 1]), -1)
    np.testing.assert_array_equal(fast[1][:, 1], expected)


@pytest.mark.parametrize(
    "change",
    ["fraction", "huge", "wide span", "fortran order", "float32", "inf"],
)
def test_other_tables_take_the_columns_path(monkeypatch, change):
    X = table(3, np.float64)
    if change == "fraction":
        X[5, 0] = 0.5
    elif change == "huge":
        X[5, 0] = 2.0**60
    elif change == "wide span":
        X[5, 0] = 1e6
    elif change == "fortran order":
        X = np.asfortranarray(X)
    elif change == "float32":
        X = X.astype(np.float32)
    else:
        X[5, 0] = np.inf
    assert table_codes.encode_small_integers(X) is None
    if change != "inf":
        assert_same(encode_table(X), by_columns(monkeypatch, X))


def test_a_few_cells_are_not_compiled(monkeypatch):
    monkeypatch.setattr(table_codes, "COMPILED_FROM", 10**9)
    assert table_codes.encode_small_integers(table(4, np.int64)) is None


@pytest.mark.parametrize("value", [10**6, np.iinfo(np.int64).max, np.iinfo(np.int64).min])
def test_an_integer_column_of_wide_span_takes_the_columns_path(monkeypatch, value):
    X = table(5, np.int64)
    X[7, 0] = value
    assert table_codes.encode_small_integers(X) is None
    assert_same(encode_table(X), by_columns(monkeypatch, X))


def test_huge_integers_of_small_span_take_the_columns_path(monkeypatch):
    """Values near 1.7e18 (timestamps in ns, hashed ids) spanning 199: in floats the
    span rounds to 0 (a write past the marks, wrong codes); they go column by column."""
    n = 30_000
    base = (int(1.7e18) // 256) * 256 + 129
    X = np.column_stack([np.arange(n) % 3, base + np.arange(n) % 200]).astype(np.int64)
    assert table_codes.encode_small_integers(X) is None
    values, codes = encode_table(X)
    assert values[1].size == 200 and codes[:, 1].max() == 199
    assert_same((values, codes), by_columns(monkeypatch, X))
