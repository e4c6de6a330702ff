"""Subsumption resolution (AODEsr): which values a row loses, in Weka 3.6's AODEsr's order,
and AODE / AnDE scoring the row as if they were missing."""

import numpy as np
import pytest

from bayesrule import AODE, WAODE, AnDE
from bayesrule.likelihoods.discrete.subsumption import check_subsumption


def _places():
    """300 rows: a city (a: 60 rows, b: exactly 50, c: 40, d: 150), its country (a, b ->
    X; c, d -> Y), its continent (always E), a copy of the city under other names, and
    noise; the class follows the city."""
    rng = np.random.default_rng(0)
    city = np.repeat(["a", "b", "c", "d"], [60, 50, 40, 150])
    country = np.where(np.isin(city, ["a", "b"]), "X", "Y")
    continent = np.full(city.size, "E")
    copy = np.char.add("city-", city)
    noise = rng.choice(["p", "q"], city.size)
    X = np.column_stack([country, city, continent, noise, copy]).astype(object)
    y = np.where(np.isin(city, ["a", "c"]), "yes", "no")
    y[rng.random(city.size) < 0.2] = "maybe"
    return X, y


def _deleted(est, X):
    """Where the codes a fitted model scores are missing (deleted, or missing already)."""
    like = est.likelihood_
    return like._codes(X) == like._sizes + 1


def test_weka_defaults_and_the_parameter():
    assert check_subsumption(False) is None and check_subsumption(True) == 50
    assert check_subsumption(np.bool_(True)) == 50 and check_subsumption(7) == 7
    with pytest.raises(ValueError, match="subsumption must be False, True"):
        check_subsumption(0)
    with pytest.raises(TypeError, match="critical count as an integer"):
        check_subsumption("yes")


def test_exactly_the_generalisations_are_deleted():
    """Row with city a (60 > 50 rows): country X, continent E generalise it and go, and so
    does the copy (seen with it always, the later column); city b (exactly 50, not more):
    nothing goes for it, but continent E generalises country X (110 rows) and goes;
    city d (150): its country Y, continent and copy go; the noise stays everywhere."""
    X, y = _places()
    est = AODE(subsumption=True).fit(X, y)
    rows = np.array(
        [
            ["X", "a", "E", "p", "city-a"],
            ["X", "b", "E", "q", "city-b"],
            ["Y", "c", "E", "p", "city-c"],
            ["Y", "d", "E", "q", "city-d"],
            ["Y", "a", "E", "p", "city-b"],  # a row unlike the training rows
        ],
        dtype=object,
    )
    got = _deleted(est, rows)
    expected = np.array(
        [
            [True, False, True, False, True],
            [False, False, True, False, False],  # b (50): only E (300) over X (110)
            [False, False, True, False, False],  # c (40): E over Y (190)
            [True, False, True, False, True],
            [False, False, True, False, False],  # a, city-b: never together; Y, a: never
        ]
    )
    np.testing.assert_array_equal(got, expected)
    missing = np.where(expected, None, rows)
    np.testing.assert_array_equal(est.predict_proba(rows), AODE().fit(X, y).predict_proba(missing))


def test_the_critical_count_and_ties():
    X, y = _places()
    rows = np.array([["X", "b", "E", "p", "city-b"]], dtype=object)
    # b seen 50 times: more than 49, so X, E and the later copy of b go
    low = AODE(subsumption=49).fit(X, y)
    np.testing.assert_array_equal(_deleted(low, rows), [[True, False, True, False, True]])
    # nothing is seen more than 300 times
    high = AODE(subsumption=300).fit(X, y)
    assert not _deleted(high, rows).any()
    # the copy first: the city (the later column) goes instead
    swapped = AODE(subsumption=True).fit(X[:, [4, 1, 0, 2, 3]], y)
    row = np.array([["city-a", "a", "X", "E", "p"]], dtype=object)
    np.testing.assert_array_equal(_deleted(swapped, row), [[False, True, True, True, False]])


def test_missing_and_unseen_values_take_no_part():
    X, y = _places()
    est = AODE(subsumption=True).fit(X, y)
    rows = np.array([[None, "a", "E", "p", None], ["X", "zz", "E", "p", "city-a"]], dtype=object)
    got = _deleted(est, rows)
    # row 0: country and copy missing already; E still generalises a
    np.testing.assert_array_equal(got[0], [True, False, True, False, True])
    # row 1: the unseen city specialises nothing; the copy a does (X and E go)
    np.testing.assert_array_equal(got[1], [True, False, True, False, False])


def test_ande_and_its_fallback_score_the_resolved_row():
    X, y = _places()
    rows = np.array([["X", "a", "E", "p", "city-a"], ["Y", "d", "E", "q", "city-d"]], dtype=object)
    missing = np.where(_deleted(AODE(subsumption=True).fit(X, y), rows), None, rows)
    for make in (lambda **kw: AnDE(n=2, **kw), lambda **kw: AnDE(n=3, min_count=40, **kw)):
        resolved = make(subsumption=True).fit(X, y).predict_proba(rows)
        np.testing.assert_array_equal(resolved, make().fit(X, y).predict_proba(missing))
    assert "subsumption" not in WAODE().get_params()
