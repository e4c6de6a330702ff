"""Back-off of the tables given attribute parents, and SPODE's super-parent chosen by
leave-one-out: against refits without each row, by-hand m-estimates and the identities
(integer weights equal repeated rows)."""

from __future__ import annotations

import numpy as np
import pytest

from bayesrule import AODE, KDB, SPODE, TAN
from bayesrule.likelihoods.discrete.leave_one_out import spode_losses


def _table(n=60, seed=0):
    """Integer codes 0..2 in four columns, dependent on the class and on each other;
    every value of every column at least twice and every class at least 3 times, so
    that no row's removal takes a value or a class away."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = np.empty((n, 4), dtype=np.int64)
    X[:, 0] = (y + (rng.random(n) < 0.3)) % 3
    X[:, 1] = (X[:, 0] + (rng.random(n) < 0.2)) % 3
    X[:, 2] = rng.integers(0, 3, n)
    X[:, 3] = (X[:, 2] + y * (rng.random(n) < 0.5)) % 3
    for j in range(4):
        assert np.bincount(X[:, j], minlength=3).min() >= 2
    return X, y


def _codes(est, X) -> np.ndarray:
    """Value positions of each column, -1 where missing."""
    codes = np.column_stack([np.searchsorted(c, X[:, j]) for j, c in enumerate(est.categories_)])
    return np.where(np.isnan(X.astype(float)), -1, codes)


def _losses(est, X, y, w=None) -> np.ndarray:
    like = est.likelihood_
    return spode_losses(
        _codes(est, X), y, w, stats=like.stats_, alpha=like.alpha, backoff=like.backoff
    )["loss"]


def _refit_losses(X, y, **params) -> np.ndarray:
    """Per super-parent: each row predicted by the SPODE fitted without it."""
    out = np.zeros(X.shape[1])
    for p in range(X.shape[1]):
        for i in range(len(y)):
            rest = np.arange(len(y)) != i
            est = SPODE(parent=p, discretize=None, **params).fit(X[rest], y[rest])
            out[p] -= np.log(est.predict_proba(X[i : i + 1])[0, y[i]])
    return out


def _with_missing(X):
    """X as floats with values missing in columns 0 and 2 (every value still observed at
    least twice, so that no row's removal takes one away)."""
    X = X.astype(float)
    X[1::5, 0] = np.nan
    X[3::7, 2] = np.nan
    for j in range(X.shape[1]):
        seen = X[:, j][~np.isnan(X[:, j])].astype(int)
        assert np.bincount(seen, minlength=3).min() >= 2
    return X


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("params", [{}, {"backoff": 0.0}, {"alpha": 0.5, "backoff": 2.0}])
def test_leave_one_out_losses_equal_refits_without_each_row(params, missing):
    """(With values missing: a row whose super-parent is missing is scored by naive
    Bayes under the class probabilities the SPODE implies, as the refit predicts it.)"""
    X, y = _table()
    if missing:
        X = _with_missing(X)
    est = SPODE(discretize=None, **params).fit(X, y)
    refits = _refit_losses(X, y, **params)
    np.testing.assert_allclose(_losses(est, X, y), refits, rtol=1e-10)
    assert est.parents_.index(()) == int(np.argmin(refits))
    assert np.ptp(refits) > 1.0  # the choice is not a tie


def test_integer_weights_give_the_losses_of_repeated_rows():
    X, y = _table(seed=1)
    w = np.random.default_rng(2).integers(0, 4, len(y))
    w[:6] = 1  # every class keeps rows
    rows = np.repeat(np.arange(len(y)), w)
    weighted = SPODE(discretize=None).fit(X, y, sample_weight=w.astype(float))
    repeated = SPODE(discretize=None).fit(X[rows], y[rows])
    np.testing.assert_allclose(
        _losses(weighted, X, y, w.astype(float)), _losses(repeated, X[rows], y[rows]), rtol=1e-12
    )
    assert weighted.parents_ == repeated.parents_


def test_the_chosen_super_parent_predicts_new_rows_about_as_well_as_the_best():
    """x1 nearly copies x0 (both tell the class), x3 depends on x2 and the class: the
    parent chosen by leave-one-out has the held-out log loss of the best parent (within
    0.01), far from that of the worst."""
    from sklearn.metrics import log_loss

    X, y = _table(n=300, seed=3)
    Xt, yt = _table(n=5000, seed=103)
    chosen = SPODE(discretize=None).fit(X, y).parents_.index(())
    held_out = [
        log_loss(yt, SPODE(parent=p, discretize=None).fit(X, y).predict_proba(Xt)) for p in range(4)
    ]
    assert held_out[chosen] <= min(held_out) + 0.01
    assert held_out[chosen] < max(held_out) - 0.1


def test_partial_fit_keeps_the_super_parent_of_its_first_batch():
    X, y = _table(n=300, seed=4)
    first = SPODE(discretize=None).fit(X[:60], y[:60]).parents_
    est = SPODE(discretize=None).partial_fit(X[:60], y[:60], classes=[0, 1, 2])
    est.partial_fit(X[60:], y[60:])
    assert est.parents_ == first
    fixed = SPODE(parent=first.index(()), discretize=None).fit(X, y)
    np.testing.assert_allclose(est.predict_proba(X), fixed.predict_proba(X), rtol=1e-12)


def test_a_missing_super_parent_is_scored_and_the_losses_stay_finite():
    X, y = _table(n=120, seed=5)
    Xm = X.astype(float)
    Xm[::4, 0] = np.nan
    est = SPODE().fit(Xm, y)
    codes = _codes(est, np.nan_to_num(Xm, nan=-1))
    codes[::4, 0] = -1  # missing
    like = est.likelihood_
    losses = spode_losses(codes, y, None, stats=like.stats_, alpha=1.0, backoff=5.0)["loss"]
    assert np.isfinite(losses).all() and (losses > 0).all()


def test_alpha_zero_keeps_the_losses_bounded():
    X, y = _table(seed=6)
    est = SPODE(alpha=0.0, backoff=0.0, discretize=None).fit(X, y)
    losses = _losses(est, X, y)
    assert np.isfinite(losses).all()
    assert losses.max() <= len(y) * -np.log(np.finfo(float).eps) + 1e-9


# ----------------------------------------------------------------- the m-estimates
def test_kdb_tables_back_off_to_the_table_given_the_class():
    X, y = _table(n=200, seed=7)
    m = 3.0
    est = KDB(k=2, backoff=m, discretize=None).fit(X, y)
    for j, pa in enumerate(est.parents_):
        if len(pa) < 2:
            continue
        table = est.cpt(j)
        alone = np.array([np.bincount(X[y == c, j], minlength=3) for c in range(3)], float)
        prior = (alone + 1) / (alone.sum(axis=1, keepdims=True) + 3)
        counts = table.counts
        expected = (counts + m * prior[:, None, None, :]) / (counts.sum(axis=-1, keepdims=True) + m)
        np.testing.assert_allclose(table.proba, expected, rtol=1e-13)
        break
    else:
        pytest.fail("no attribute with two parents")


def test_every_parent_missing_gives_the_table_given_the_class():
    X, y = _table(n=200, seed=8)
    est = TAN(root=0, backoff=4.0, discretize=None).fit(X, y)
    child = next(j for j, pa in enumerate(est.parents_) if pa)
    q = np.full((1, 4), np.nan)
    q[0, child] = X[0, child]
    alone = np.array([np.bincount(X[y == c, child], minlength=3) for c in range(3)], float)
    prior = (alone + 1) / (alone.sum(axis=1, keepdims=True) + 3)
    np.testing.assert_allclose(est.log_likelihood(q)[0], np.log(prior[:, X[0, child]]), rtol=1e-13)


def test_no_back_off_is_the_lidstone_estimate():
    X, y = _table(n=200, seed=9)
    est = TAN(root=0, backoff=0.0, discretize=None).fit(X, y)
    for j in range(X.shape[1]):
        counts = est.cpt(j).counts
        lidstone = (counts + 1) / (counts.sum(axis=-1, keepdims=True) + 3)
        np.testing.assert_allclose(est.cpt(j).proba, lidstone, rtol=1e-13)


@pytest.mark.parametrize("make", [AODE, TAN, KDB, SPODE])
@pytest.mark.parametrize(
    "bad, error",
    [
        (-1.0, ValueError),
        (np.nan, ValueError),
        (np.inf, ValueError),
        ("5", TypeError),
        (True, TypeError),
    ],
)
def test_bad_backoff_is_refused_by_name(make, bad, error):
    X, y = _table()
    with pytest.raises(error, match="backoff"):
        make(backoff=bad, discretize=None).fit(X, y)


def test_defaults():
    assert TAN().backoff == KDB().backoff == SPODE().backoff == 5.0
    assert AODE().backoff == 0.0  # Webb's estimates, as Weka's AODE


def test_fit_chooses_the_super_parent_again():
    """``fit`` on a family object fitted before chooses anew (partial_fit keeps it)."""
    from bayesrule.likelihoods.discrete.one_dependence import OneDependence

    X, y = _table(n=300, seed=10)
    like = OneDependence(parents=None, discretize=None).fit(X, y, 3)
    first = like.super_parents_
    again = like.fit(X[:, ::-1], y, 3).super_parents_
    fresh = OneDependence(parents=None, discretize=None).fit(X[:, ::-1], y, 3).super_parents_
    assert first != fresh  # (the test can fail)
    assert again == fresh


def test_losses_add_over_row_chunks(monkeypatch):
    from bayesrule.likelihoods.discrete import leave_one_out

    X, y = _table(n=200, seed=11)
    X = _with_missing(X)
    w = np.random.default_rng(12).uniform(0.2, 3.0, len(y))
    est = SPODE().fit(X, y, sample_weight=w)
    whole = _losses(est, X, y, w)
    monkeypatch.setattr(leave_one_out, "_row_chunk", lambda n_classes: 7)
    np.testing.assert_allclose(_losses(est, X, y, w), whole, rtol=1e-12)
