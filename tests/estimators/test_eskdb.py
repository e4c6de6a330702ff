"""ESKDB: the stochastic MDL cut points and sampled orders, each member an SKDB on its own
bins and order, the average of the members' posteriors, threads, seeds and refusals."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.datasets import load_wine

from bayesrule import ESKDB
from bayesrule.likelihoods.discrete.random_cuts import random_mdl_cuts, sampled_order
from bayesrule.likelihoods.discrete.selective import SelectiveKDependence


def _entropy(counts):
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def _margins(table):
    """Fayyad and Irani's margin ``Gain - (log2(N - 1) + Delta) / N`` and the gain of
    each cut of a class-weight table (rows: distinct values), written out by hand."""
    n = table.sum()
    out = []
    for i in range(1, table.shape[0]):
        left, right = table[:i].sum(axis=0), table[i:].sum(axis=0)
        ent, e1, e2 = _entropy(table.sum(axis=0)), _entropy(left), _entropy(right)
        gain = ent - (left.sum() * e1 + right.sum() * e2) / n
        k, k1, k2 = (int(np.count_nonzero(t)) for t in (table.sum(axis=0), left, right))
        delta = math.log2(3**k - 2) - (k * ent - k1 * e1 - k2 * e2)
        out.append((gain - (math.log2(n - 1) + delta) / n, gain))
    return np.array(out)


def test_each_cut_is_drawn_in_proportion_to_its_mdl_margin():
    # four distinct values; the class shifts at every boundary, most at the middle one
    table = np.array([[30.0, 2.0], [20.0, 14.0], [3.0, 30.0], [1.0, 22.0]])
    u = np.array([1.0, 2.0, 3.0, 4.0])
    margin = _margins(table)[:, 0]
    assert (margin > 0).sum() >= 2  # several cuts pass the rule: a real draw
    p = np.where(margin > 0, margin, 0) / np.where(margin > 0, margin, 0).sum()
    draws = 4000
    first = np.zeros(3)
    for seed in range(draws):
        cuts = random_mdl_cuts(u, table, np.random.default_rng(seed))
        # the first draw is the cut the halves are split from: one of the cuts returned;
        # replay the first choice with the same generator
        rng = np.random.default_rng(seed)
        i = rng.choice(3, p=p)
        first[i] += 1
        assert u[i] + 0.5 in cuts
    assert np.all(np.abs(first / draws - p) <= 4 * np.sqrt(p * (1 - p) / draws) + 1e-12)


def test_a_column_no_cut_passes_still_gets_one_drawn_by_gain():
    rng = np.random.default_rng(0)
    table = np.array([[5.0, 4.0], [4.0, 5.0], [5.0, 5.0]])
    assert (_margins(table)[:, 0] <= 0).all()
    gain = _margins(table)[:, 1]
    picks = [random_mdl_cuts(np.arange(3.0), table, rng) for _ in range(3000)]
    assert all(c.size == 1 for c in picks)
    freq = np.array([np.mean([c[0] == 0.5 + i for c in picks]) for i in range(2)])
    np.testing.assert_allclose(freq, gain / gain.sum(), atol=0.04)
    # nothing to gain (one class): no cut
    assert random_mdl_cuts(np.arange(3.0), np.ones((3, 1)), rng).size == 0


def test_orders_are_drawn_by_mutual_information_without_zeros():
    mi = np.array([0.5, 0.0, 0.3, 0.2])
    orders = [sampled_order(mi, np.random.default_rng(s)) for s in range(3000)]
    assert all(sorted(o.tolist()) == [0, 2, 3] for o in orders)
    first = np.bincount([o[0] for o in orders], minlength=4) / 3000
    np.testing.assert_allclose(first, [0.5, 0, 0.3, 0.2], atol=0.04)
    second = np.mean([o[1] == 2 for o in orders if o[0] == 0])  # 0.3 / (0.3 + 0.2)
    assert abs(second - 0.6) < 0.05


class _Ordered(SelectiveKDependence):
    """SKDB over a given attribute order and given bins."""

    def _plan_structure(self, stats, order=None):
        return super()._plan_structure(stats, self._order)


def _member_refitted(member, X, y, C):
    like = _Ordered(**member.get_params())
    like._order = member.order_
    like.bin_edges_, like._bin_bounds, like._checked = member.bin_edges_, member._bin_bounds, True
    return like.fit(X, y, C)


def test_each_member_is_skdb_on_its_bins_and_order_and_the_posteriors_are_averaged():
    X, y = load_wine(return_X_y=True)
    est = ESKDB(n_estimators=4, k_max=3, random_state=0).fit(X, y)
    members = est.members_
    assert len({tuple(m.order_) for m in members}) == 4  # the orders differ
    edges = [np.concatenate([e for e in m.bin_edges_ if e is not None]) for m in members]
    assert len({tuple(e) for e in edges}) == 4  # and the cut points
    assert len(est.k_) == len(est.n_selected_) == 4
    for m in members:
        again = _member_refitted(m, X, np.searchsorted(est.classes_, y), 3)
        assert again.selected_.tolist() == m.selected_.tolist() and again.k_ == m.k_
        np.testing.assert_allclose(again.loss_grid_, m.loss_grid_, rtol=1e-12)
        np.testing.assert_allclose(again._table, m._table, rtol=1e-12)
    Xt = X[::3] * 1.01
    scores = np.stack([m.log_likelihood(Xt) for m in members])  # (M, n, C)
    shares = np.exp(scores - logsumexp(scores, axis=2, keepdims=True))
    np.testing.assert_allclose(est.predict_proba(Xt, priors="uniform"), shares.mean(axis=0))
    prior = est.class_prior_
    expected = prior * shares.mean(axis=0)
    np.testing.assert_allclose(est.predict_proba(Xt), expected / expected.sum(1, keepdims=True))
    evidence = logsumexp(scores, axis=2).mean(axis=0)  # uniform priors: the members' mean
    np.testing.assert_allclose(
        est.log_evidence(Xt, priors="uniform"),
        np.log(np.exp(logsumexp(scores, axis=2) - np.log(3)).mean(axis=0)),
        rtol=1e-12,
    )
    assert evidence.shape == (Xt.shape[0],)


def test_the_seed_decides_and_threads_do_not():
    X, y = load_wine(return_X_y=True)
    a = ESKDB(n_estimators=3, random_state=5, n_jobs=1).fit(X, y)
    b = ESKDB(n_estimators=3, random_state=5, n_jobs=2).fit(X, y)
    c = ESKDB(n_estimators=3, random_state=6).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert np.abs(a.predict_proba(X) - c.predict_proba(X)).max() > 1e-6
    g = ESKDB(n_estimators=3, random_state=np.random.default_rng(5)).fit(X, y)
    assert g.predict_proba(X).shape == (178, 3)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"n_estimators": 0}, ValueError, "n_estimators=0"),
        ({"n_estimators": -3}, ValueError, "n_estimators"),
        ({"n_estimators": 2.5}, TypeError, "n_estimators"),
        ({"k_max": -1}, ValueError, "k_max"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
        ({"n_jobs": 1.5}, ValueError, "n_jobs"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": "seed"}, TypeError, "random_state"),
        ({"criterion": "auc"}, ValueError, "criterion"),
        ({"discretize": None}, ValueError, "holds continuous values"),
    ],
)
def test_bad_input_is_refused_by_name(params, error, match):
    X, y = load_wine(return_X_y=True)
    est = ESKDB(**params)
    with pytest.raises(error, match=match):
        est.fit(X, y)
    assert not hasattr(est, "classes_")


def test_no_partial_fit_and_no_sampler():
    X, y = load_wine(return_X_y=True)
    est = ESKDB(n_estimators=2, random_state=0)
    assert not hasattr(est, "partial_fit")
    with pytest.raises(NotImplementedError, match="no sampler"):
        est.fit(X, y).sample(5)
