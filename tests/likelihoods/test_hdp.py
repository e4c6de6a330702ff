"""Hierarchical Dirichlet smoothing of the conditional tables (``likelihoods.discrete.hdp``):
trees checked by hand and against the fixed-point equations written out here, the limits
(huge concentration: the parent; counts dominating: the ML estimates), normalisation of
every node and every slot of the lookup tables, and the concentration against a grid
search of its objective."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import digamma, gammaln, polygamma

from bayesrule.likelihoods.discrete import cpt, hdp


def _counts(shape, seed=0, lam=2.0):
    return np.random.default_rng(seed).poisson(lam, size=shape).astype(float)


def _heterogeneous(shape, seed, rows=12):
    """(C, O_pa, O_j) counts drawn from a hierarchy: per class q ~ Dirichlet(1/2), per
    leaf p ~ Dirichlet(3 q), so that no level merges into its parent."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.full(shape[-1], 0.5), size=shape[0])
    p = np.array([[rng.dirichlet(3 * qc + 1e-3) for _ in range(shape[1])] for qc in q])
    return np.apply_along_axis(lambda r: rng.multinomial(rows, r), -1, p).astype(float)


def test_a_two_level_tree_by_hand():
    """Counts [[2, 0], [0, 2]], concentration 2, alpha 1. By symmetry the root is
    (1/2, 1/2), so each class restaurant has a = 2 * 1/2 = 1 and its 2 customers sit at
    E[t] = 1 + a / (a + 1) = 3/2 tables; the root's customers (3/2, 3/2) give
    ((3/2 + 1) / (3 + 2), ...) = (1/2, 1/2), consistent. The leaves:
    (2 + 2 * 1/2) / (2 + 2) = 3/4 and 1/4. Unseen value: 1 / (3 + 2) = 1/5 at the root,
    2 * 1/5 / (2 + 2) = 1/10 at the leaves."""
    tree = hdp.fit(np.array([[2.0, 0.0], [0.0, 2.0]]), 1.0, concentration=2.0)
    np.testing.assert_allclose(tree.customers[0], [1.5, 1.5], rtol=1e-12)
    np.testing.assert_allclose(tree.proba[0], [0.5, 0.5], rtol=1e-12)
    np.testing.assert_allclose(tree.proba[1], [[0.75, 0.25], [0.25, 0.75]], rtol=1e-12)
    np.testing.assert_allclose(tree.unseen[0], 0.2, rtol=1e-12)
    np.testing.assert_allclose(tree.unseen[1], [0.1, 0.1], rtol=1e-12)


def test_single_customers_sit_alone_by_hand():
    """Counts of at most 1 give t = n whatever the base: the root's customers are the
    column sums [1, 0, 2], the root (1 + 1, 0 + 1, 2 + 1) / (3 + 3) = (1/3, 1/6, 1/2);
    class 0 (N = 2): ([1, 0, 1] + 2 root) / 4 = (5/12, 1/12, 1/2); class 1 (N = 1):
    ([0, 0, 1] + 2 root) / 3 = (2/9, 1/9, 2/3)."""
    tree = hdp.fit(np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), 1.0, concentration=2.0)
    np.testing.assert_allclose(tree.proba[0], [1 / 3, 1 / 6, 1 / 2], rtol=1e-12)
    np.testing.assert_allclose(
        tree.proba[1], [[5 / 12, 1 / 12, 1 / 2], [2 / 9, 1 / 9, 2 / 3]], rtol=1e-12
    )


@pytest.mark.parametrize("concentration", [None, 3.0])
def test_a_three_level_tree_satisfies_the_fixed_point_equations(concentration):
    """(C, O_pa, O_j) counts: the returned tree's customers are the children's expected
    table counts Σ_i a / (a + i) (integer leaves) and each node the posterior mean of
    its customers around its parent, with the equations written out here."""
    counts = _heterogeneous((2, 3, 4), seed=4)
    tree = hdp.fit(counts, 0.5, concentration=concentration, tol=1e-13, max_iter=1000)
    assert (tree.concentration < 1e3).all()
    c = tree.concentration
    assert c[0] == 0.5 * 4
    if concentration is not None:
        assert (c[1:] == concentration).all()
    p0, p1, p2 = tree.proba
    # leaves (integer counts): Σ_{i < n} a / (a + i), a = c_2 P(v | class)
    a2 = np.broadcast_to(c[2] * p1[:, None, :], counts.shape)
    t2 = np.zeros(counts.shape)
    for index in np.ndindex(counts.shape):
        t2[index] = sum(a2[index] / (a2[index] + i) for i in range(int(counts[index])))
    np.testing.assert_allclose(tree.customers[1], t2.sum(axis=1), rtol=1e-9)
    n1 = tree.customers[1]  # fractional: the digamma form
    a1 = c[1] * p0[None, :]
    t1 = np.where(n1 > 0, np.minimum(a1 * (digamma(a1 + n1) - digamma(a1)), n1), 0)
    np.testing.assert_allclose(tree.customers[0], t1.sum(axis=0), rtol=1e-9)
    n0 = tree.customers[0]
    np.testing.assert_allclose(p0, (n0 + 0.5) / (n0.sum() + 0.5 * 4), rtol=1e-12)
    np.testing.assert_allclose(
        p1, (n1 + c[1] * p0) / (n1.sum(axis=1, keepdims=True) + c[1]), rtol=1e-12
    )
    want = (counts + c[2] * p1[:, None, :]) / (counts.sum(axis=2, keepdims=True) + c[2])
    np.testing.assert_allclose(p2, want, rtol=1e-9)


def _evidence(c, customers, base, axis):
    """The level objective written out: log Dirichlet-multinomial of every node's
    customers around its parent."""
    base = np.expand_dims(base, axis)
    n = customers
    terms = gammaln(c * base + n) - gammaln(c * base)
    nodes = gammaln(c) - gammaln(c + n.sum(axis=-1))
    return terms.sum() + nodes[n.sum(axis=-1) > 0].sum()


@pytest.mark.parametrize("seed, rows", [(0, 12), (1, 3), (5, 200)])
def test_the_concentration_maximises_its_objective_on_a_grid(seed, rows):
    counts = _heterogeneous((3, 4, 5), seed, rows)
    counts[0, 1] = 0  # an empty node
    tree = hdp.fit(counts, 0.5)
    grid = np.exp(np.linspace(np.log(0.5), np.log(1e4), 4001))
    for level in (1, 2):
        customers, base = tree.customers[level], tree.proba[level - 1]
        values = [_evidence(c, customers, base, level - 1) for c in grid]
        best = grid[int(np.argmax(values))]
        got = tree.concentration[level]
        assert 0.5 < got < 1e4  # an interior maximum
        assert abs(np.log(got) - np.log(best)) < 2 * np.log(grid[1] / grid[0])
        assert _evidence(got, customers, base, level - 1) >= max(values) - 1e-9
        for c in (0.1, got, 50.0):  # the module's objective: the same
            mine = hdp.log_evidence(c, customers, base, level - 1)
            assert np.isclose(mine, _evidence(c, customers, base, level - 1), rtol=1e-12)


def test_the_concentration_bounds():
    """Children distributed as their parent (multinomial draws of one distribution, fewer
    repeats of a value than sampling gives): the evidence grows with c up to the upper
    bound 1e8, the level merges into its parent. Nodes that each saw one value: the
    evidence falls with c, down to the floor (alpha, or 1e-6)."""
    base = np.array([0.5, 0.3, 0.2])
    same = np.array([[4.0, 3.0, 2.0], [5.0, 3.0, 2.0], [5.0, 2.0, 2.0]])
    assert _evidence(1e6, same, base, 0) > _evidence(1e3, same, base, 0)
    assert _evidence(1e3, same, base, 0) > _evidence(1.0, same, base, 0)
    assert hdp.fit_concentration(same, base, 0) == pytest.approx(1e8)
    single = np.array([[4.0, 0.0, 0.0], [0.0, 3.0, 0.0]])
    assert _evidence(0.01, single, base, 0) > _evidence(1.0, single, base, 0)
    assert hdp.fit_concentration(single, base, 0, floor=0.7) == pytest.approx(0.7)
    assert hdp.fit_concentration(single, base, 0) == pytest.approx(1e-6)
    assert hdp.fit_concentration(np.zeros((2, 3)), base, 0) == pytest.approx(1e8)
    tree = hdp.fit(np.array([[5.0, 0.0], [0.0, 7.0]]), 2.0)
    assert tree.concentration[1] == pytest.approx(2.0)  # the floor is alpha


def test_a_huge_concentration_gives_the_parent_distribution():
    """c -> inf: every customer sits alone (t = n), every node equals its parent, so the
    leaves are the root, the Lidstone estimate of the counts summed over everything."""
    counts = _counts((3, 2, 4, 5), seed=2)
    tree = hdp.fit(counts, 1.0, concentration=1e12)
    marginal = (counts.sum(axis=(0, 1, 2)) + 1.0) / (counts.sum() + 5.0)
    np.testing.assert_allclose(tree.proba[-1], np.broadcast_to(marginal, counts.shape), rtol=1e-8)
    np.testing.assert_allclose(tree.customers[0], counts.sum(axis=(0, 1, 2)), rtol=1e-8)


@pytest.mark.parametrize("concentration", [None, 2.0])
def test_counts_dominating_give_the_ml_estimates(concentration):
    counts = _counts((2, 3, 4), seed=4, lam=3.0) + 1.0  # every cell seen
    ml = counts / counts.sum(axis=-1, keepdims=True)
    tree = hdp.fit(counts * 1e7, 1.0, concentration=concentration)
    np.testing.assert_allclose(tree.proba[-1], ml, rtol=1e-5)
    small = hdp.fit(counts, 1.0, concentration=concentration)
    assert np.abs(small.proba[-1] - ml).max() > 1e-3  # the limit is not reached at once


def test_every_node_and_every_slot_sums_to_one():
    counts = _counts((3, 3, 2, 4), seed=6, lam=0.7)
    tree = hdp.fit(counts, 1.0)
    for p in tree.proba:
        np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-12)
        assert (p > 0).all()
    table = hdp.lookup_table(counts, 1.0, "smooth")
    assert table.shape == (3, 4, 3, 6)
    np.testing.assert_allclose(np.exp(table[..., :4]).sum(axis=-1), 1.0, rtol=1e-12)
    assert (table[..., 5] == 0).all()  # missing child: drops out
    assert (table[..., 4] < 0).all()  # unseen child: a probability below 1


def test_the_lookup_slots_are_the_trees_of_the_fallback_counts():
    """Slot (pa_1 available, pa_2 unavailable): the leaves of the tree of the given
    fallback counts over (c, pa_1); by default the counts summed over pa_2. The unseen
    child's slot chains ``alpha / (N + alpha O_j)`` down with ``c_l / (N + c_l)``."""
    counts = _counts((2, 3, 2, 4), seed=7)
    alone = _counts((2, 4), seed=8, lam=5.0)
    table = hdp.lookup_table(counts, 1.0, "smooth", {(): alone})
    full = hdp.fit(counts, 1.0)
    np.testing.assert_allclose(table[:, :3, :2, :4], np.log(full.proba[-1]), rtol=1e-12)
    np.testing.assert_allclose(table[:, :3, :2, 4], np.log(full.unseen[-1]), rtol=1e-12)
    first = hdp.fit(counts.sum(axis=2), 1.0)
    np.testing.assert_allclose(table[:, :3, 2, :4], np.log(first.proba[-1]), rtol=1e-12)
    second = hdp.fit(counts.sum(axis=1), 1.0)
    np.testing.assert_allclose(table[:, 3, :2, :4], np.log(second.proba[-1]), rtol=1e-12)
    mine = hdp.fit(alone, 1.0)
    np.testing.assert_allclose(table[:, 3, 2, :4], np.log(mine.proba[-1]), rtol=1e-12)
    c, (root, mid), n = mine.concentration, mine.unseen, alone.sum(axis=1)
    np.testing.assert_allclose(root, 1.0 / (mine.customers[0].sum() + 4.0), rtol=1e-12)
    np.testing.assert_allclose(mid, c[1] * root / (n + c[1]), rtol=1e-12)
    np.testing.assert_allclose(table[:, 3, 2, 4], np.log(mid), rtol=1e-12)
    ignored = hdp.lookup_table(counts, 1.0, "ignore", {(): alone})
    assert (ignored[..., 4:] == 0).all()
    np.testing.assert_array_equal(ignored[..., :4], table[..., :4])


def test_cpt_dispatches_and_refuses_unknown_smoothings():
    counts = _counts((2, 3, 4), seed=9)
    np.testing.assert_array_equal(
        cpt.lookup_table(counts, 1.0, "smooth", None, 5.0, "hdp"),
        hdp.lookup_table(counts, 1.0, "smooth"),
    )
    np.testing.assert_array_equal(cpt.proba(counts, 1.0, smoothing="hdp"), hdp.proba(counts, 1.0))
    assert not np.allclose(cpt.proba(counts, 1.0), hdp.proba(counts, 1.0))
    for bad in ("HDP", "dirichlet", None, 1):
        with pytest.raises(ValueError, match="must be one of 'lidstone', 'm-estimate', 'hdp'"):
            cpt.lookup_table(counts, 1.0, "smooth", smoothing=bad)


def test_deterministic_and_independent_of_the_call_order():
    counts = _counts((4, 3, 5), seed=10, lam=1.0)
    first = hdp.lookup_table(counts, 1.0, "smooth")
    hdp.lookup_table(_counts((2, 2, 2), seed=11), 1.0, "smooth")
    np.testing.assert_array_equal(hdp.lookup_table(counts, 1.0, "smooth"), first)


def test_edge_cases():
    """No child value: a table of zeros (the feature adds nothing); no rows and alpha 0:
    uniform, as the Lidstone tables; a child value never counted with alpha 0: -inf."""
    assert (hdp.lookup_table(np.zeros((2, 3, 0)), 1.0, "smooth") == 0).all()
    assert hdp.lookup_table(np.zeros((2, 3, 0)), 1.0, "smooth").shape == (2, 4, 2)
    np.testing.assert_allclose(hdp.proba(np.zeros((2, 3)), 0.0), 1 / 3, rtol=1e-12)
    p = hdp.proba(np.array([[3.0, 0.0], [1.0, 0.0]]), 0.0)
    assert (p[:, 1] == 0).all() and np.allclose(p[:, 0], 1.0)
    tiny = hdp.fit(np.array([[1e-20, 0.5], [0.0, 0.25]]), 1.0)  # fractional weights
    assert np.isfinite(tiny.concentration).all() and (tiny.customers[0] <= [1e-20, 0.75]).all()


def test_expected_tables_and_trigamma():
    a = np.array([0.1, 1.0, 7.5, 1e-9])
    for n in range(0, 6):
        want = [sum(x / (x + i) for i in range(n)) for x in a]
        np.testing.assert_allclose(hdp.expected_tables(np.full(4, n), a), want, rtol=1e-9)
    assert (hdp.expected_tables([0.3, 0.0], [100.0, 1.0]) == [0.3, 0.0]).all()
    for a in (30.0, 31.5, 1e3, 1e7, 1e12):  # the large-argument series, against exact sums
        for n in (1, 2, 9, 250):
            want = math.fsum(1 / (a + i) for i in range(n))
            assert abs(hdp.digamma_step(a, n) / want - 1) < 1e-13
    np.testing.assert_allclose(  # fractional n: scipy's difference where it is accurate
        hdp.digamma_step([30.0, 45.0, 80.0], [0.5, 3.3, 77.7]),
        digamma([30.5, 48.3, 157.7]) - digamma([30.0, 45.0, 80.0]),
        rtol=1e-12,
    )
    x = np.logspace(-10, 8, 500)
    np.testing.assert_allclose(hdp.trigamma(x), polygamma(1, x), rtol=1e-10)
