"""``smoothing="hdp"`` in the semi-naive estimators: the posteriors against a computation
from the counts of the rows (trees of :mod:`bayesrule.likelihoods.discrete.hdp`, a
missing parent falling back to the child's own tree), the options refused, the tables
normalised, refits and save/load bitwise the same."""

from __future__ import annotations

import numpy as np
import pytest

from bayesrule import AODE, KDB, SPODE, TAN
from bayesrule.io import load, save
from bayesrule.likelihoods.discrete import hdp

ESTIMATORS = [TAN, KDB, SPODE, AODE]


def _table(n=80, seed=0, missing=False):
    """Integer codes 0..2 in four columns, dependent on the class and on each other;
    with ``missing``, NaN in columns 0 and 1 (every value still seen)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = np.empty((n, 4))
    X[:, 0] = (y + (rng.random(n) < 0.3)) % 3
    X[:, 1] = (X[:, 0] + (rng.random(n) < 0.2)) % 3
    X[:, 2] = rng.integers(0, 3, n)
    X[:, 3] = (X[:, 2] + y * (rng.random(n) < 0.5)) % 3
    if missing:
        X[1::6, 0] = np.nan
        X[2::7, 1] = np.nan
    return X, y


def _counts(X, y, cols):
    """``F(c, x_cols...)`` over the rows where every column of ``cols`` is observed."""
    sub = X[:, cols]
    ok = ~np.isnan(sub).any(axis=1)
    out = np.zeros((3, *([3] * len(cols))))
    np.add.at(out, (y[ok], *sub[ok].astype(int).T), 1.0)
    return out


@pytest.mark.parametrize("missing", [False, True])
def test_tan_posteriors_from_the_trees_of_the_counts(missing):
    """log p(x|c) = sum_j log P(x_j | c, x_pa): the leaves of the tree of F(c, x_pa, x_j);
    a missing parent: the leaves of the tree of F(c, x_j) (rows with x_j observed); a
    missing attribute drops out. The prior: the class frequencies."""
    X, y = _table(missing=missing)
    est = TAN(root=0, discretize=None, smoothing="hdp").fit(X, y)
    rows = np.array([[0, 1, 2, 0], [np.nan, 2, 1, 1], [2, np.nan, 0, 2], [1, 1, np.nan, 0]])
    log = np.tile(np.log(np.bincount(y) / y.size), (rows.shape[0], 1))
    for j, pa in enumerate(est.parents_):
        own = hdp.proba(_counts(X, y, [j]), 1.0)
        full = hdp.proba(_counts(X, y, [*pa, j]), 1.0)
        np.testing.assert_array_equal(est.cpt(j).proba, full)
        for i, row in enumerate(rows):
            if np.isnan(row[j]):
                continue
            if pa and not np.isnan(row[pa[0]]):
                log[i] += np.log(full[:, int(row[pa[0]]), int(row[j])])
            else:
                log[i] += np.log(own[:, int(row[j])])
    want = np.exp(log - log.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(est.predict_proba(rows), want, rtol=1e-10)
    lidstone = TAN(root=0, discretize=None).fit(X, y).predict_proba(rows)
    assert np.abs(lidstone - want).max() > 1e-3  # the option reaches the tables


def test_spode_posteriors_from_the_trees_of_the_counts():
    """SPODE(parent=p): Webb's P(y, x_p) (Lidstone) times the leaves of the trees of
    F(y, x_p, x_j)."""
    X, y = _table()
    est = SPODE(parent=2, discretize=None, smoothing="hdp").fit(X, y)
    rows = np.array([[0, 1, 2, 0], [2, 2, 0, 1]])
    F = _counts(X, y, [2])
    log = np.log((F + 1.0) / (F.sum() + 9.0))[:, rows[:, 2].astype(int)].T
    for j in (0, 1, 3):
        table = hdp.proba(_counts(X, y, [2, j]), 1.0)
        np.testing.assert_array_equal(est.cpt(j).proba, table)
        log += np.log(table[:, rows[:, 2].astype(int), rows[:, j].astype(int)]).T
    want = np.exp(log) / np.exp(log).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(est.predict_proba(rows), want, rtol=1e-10)


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("bad", ["HDP", "dirichlet", None, 1])
def test_other_smoothings_are_refused_with_the_options_named(cls, bad):
    X, y = _table()
    with pytest.raises(ValueError, match="must be one of 'lidstone', 'm-estimate', 'hdp'"):
        cls(smoothing=bad).fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_the_default_is_lidstone_and_hdp_tables_sum_to_one(cls):
    X, y = _table(missing=True)
    assert cls().get_params()["smoothing"] == "lidstone"
    default = cls(discretize=None).fit(X, y)
    np.testing.assert_array_equal(
        default.predict_proba(X),
        cls(discretize=None, smoothing="lidstone").fit(X, y).predict_proba(X),
    )
    est = cls(discretize=None, smoothing="hdp").fit(X, y)
    for j in range(X.shape[1]):
        table = est.cpt(j)
        np.testing.assert_allclose(table.proba.sum(axis=-1), 1.0, rtol=1e-12)
        np.testing.assert_array_equal(table.proba, hdp.proba(table.counts, 1.0))
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert not np.allclose(proba, default.predict_proba(X))
    again = cls(discretize=None, smoothing="hdp").fit(X, y)  # deterministic
    np.testing.assert_array_equal(again.predict_proba(X), proba)
    assert "smoothing='hdp'" in "\n".join(est.likelihood_.describe(est.classes_, list("abcd")))
    drawn = est.sample(30, random_state=0)  # ancestral sampling from the hdp tables
    assert drawn[0].shape == (30, 4)


@pytest.mark.parametrize("cls", [TAN, KDB, AODE])
def test_save_and_load_round_trip(cls, tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    est = cls(smoothing="hdp", discretize="quantile", n_bins=4).fit(X, y)
    path = tmp_path / "model.model"
    save(est, path)
    again = load(path)
    assert again.get_params() == est.get_params()
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))
    est.likelihood_.smoothing = "gibbs"  # a forged parameter is refused
    save(est, path)
    with pytest.raises(ValueError, match="smoothing"):
        load(path)
