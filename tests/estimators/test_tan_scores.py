"""TAN's Bayesian Dirichlet edge score (Weka's BAYES) and Weka 3.6's TAN search
(``direction="weka"``): the gains against a hand computation with ``gammaln``, the
search against a plain re-statement of its rules, and structures Weka itself learns."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import gammaln

from bayesrule import TAN
from bayesrule.io import files as bio
from bayesrule.likelihoods.discrete.structure import spanning_tree, weka_gains
from bayesrule.stats.pair_counts import PairCounts

#: six rows, three binary attributes; the structures Weka 3.6 learns from them (its
#: ``BayesNet -D -Q weka.classifiers.bayes.net.search.local.TAN [-- -S ENTROPY] -E
#: weka.classifiers.bayes.net.estimate.SimpleEstimator -- -A 0.5``, read off its
#: "Network structure (nodes followed by parents)" output)
TOY_X = [[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]]
TOY_Y = [0, 0, 1, 1, 0, 1]
WEKA_BAYES = [(1,), (), (1,)]  # a0 <- a1, a2 <- a1
WEKA_ENTROPY = [(1,), (2,), ()]  # a0 <- a1 <- a2


def _data(n, seed, holes=0.0, sizes=(2, 3, 2, 4)):
    """Attributes of the given sizes, each following the previous one (or the class)
    with some noise, so that the gains differ."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.empty((n, len(sizes)))
    previous = y
    for j, size in enumerate(sizes):
        follow = rng.random(n) < 0.6
        X[:, j] = np.where(follow, previous % size, rng.integers(0, size, n))
        previous = X[:, j].astype(np.int64)
    X[rng.random(X.shape) < holes] = np.nan
    return X, y


def _bd(counts, a):
    """Bayesian Dirichlet log marginal likelihood of (configurations, values) counts,
    ``a`` pseudo-counts per cell, every configuration and value included."""
    r = counts.shape[1]
    return float(
        np.sum(gammaln(r * a) - gammaln(counts.sum(axis=1) + r * a))
        + np.sum(gammaln(counts + a) - gammaln(a))
    )


def _bayes_gain_by_hand(X, y, i, j, alpha, m_estimate=False):
    """``BD(X_i | C, X_j) - BD(X_i | C)`` over the rows where both are observed, the
    counts taken cell by cell."""
    rows = ~np.isnan(X[:, i]) & ~np.isnan(X[:, j])
    child_values = np.unique(X[~np.isnan(X[:, i]), i])
    parent_values = np.unique(X[~np.isnan(X[:, j]), j])
    classes = np.unique(y)
    a = alpha / child_values.size if m_estimate else alpha
    with_parent = np.array(
        [
            [np.sum(rows & (y == c) & (X[:, j] == b) & (X[:, i] == k)) for k in child_values]
            for c in classes
            for b in parent_values
        ],
        dtype=np.float64,
    )
    alone = np.array(
        [[np.sum(rows & (y == c) & (X[:, i] == k)) for k in child_values] for c in classes],
        dtype=np.float64,
    )
    return _bd(with_parent, a) - _bd(alone, a)


# ------------------------------------------------------------------------ the gains
@pytest.mark.parametrize("direction", ["root", "weka"])
@pytest.mark.parametrize(
    "alpha, smoothing, holes",
    [(0.5, "lidstone", 0.0), (1.0, "lidstone", 0.1), (2.0, "m-estimate", 0.0)],
)
def test_bayes_gains_are_the_dirichlet_marginal_likelihood_gains(
    direction, alpha, smoothing, holes
):
    X, y = _data(120, 0, holes)
    clf = TAN(
        edge_score="bayes", direction=direction, alpha=alpha, smoothing=smoothing, discretize=None
    ).fit(X, y)
    G = clf.edge_weights_
    for i, j in itertools.permutations(range(X.shape[1]), 2):
        expected = _bayes_gain_by_hand(X, y, i, j, alpha, smoothing == "m-estimate")
        np.testing.assert_allclose(G[i, j], expected, rtol=1e-11, atol=1e-10)
    assert np.all(np.diag(G) == 0)
    assert not np.allclose(G, G.T)  # j as i's parent is not i as j's


def test_bayes_gains_on_a_table_worked_out_in_full():
    # attribute 0 (child) and 1 (parent), two classes; a = 0.5, r = 2
    X = np.array([[0, 0], [0, 0], [1, 1], [0, 1], [1, 1], [1, 0]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1])
    g = TAN(edge_score="bayes", alpha=0.5, discretize=None).fit(X, y).edge_weights_
    lg = gammaln
    # class 0: x1 = 0 -> x0 (2, 0); x1 = 1 -> (0, 1); class 1: x1 = 0 -> (0, 1), x1 = 1 -> (1, 1)
    with_parent = (
        (lg(1) - lg(3) + lg(2.5) - lg(0.5))
        + (lg(1) - lg(2) + lg(1.5) - lg(0.5))
        + (lg(1) - lg(2) + lg(1.5) - lg(0.5))
        + (lg(1) - lg(3) + 2 * (lg(1.5) - lg(0.5)))
    )
    # class 0: x0 (2, 1); class 1: x0 (1, 2)
    alone = 2 * (lg(1) - lg(4) + lg(2.5) - lg(0.5) + lg(1.5) - lg(0.5))
    np.testing.assert_allclose(g[0, 1], with_parent - alone, rtol=1e-13)
    # the marginal likelihoods: 3/8 (1/2)^2 1/8 = 3/256 and ((1/6) (3/4) (1/2))^2 = 1/256
    np.testing.assert_allclose(g[0, 1], np.log(3.0), rtol=1e-13)


def test_weka_loglik_gains_are_the_rows_times_the_conditional_information():
    X, y = _data(200, 1, holes=0.05)
    clf = TAN(direction="weka", discretize=None).fit(X, y)
    stats = clf.likelihood_.stats_
    n = np.zeros((4, 4))
    for i, j in itertools.permutations(range(4), 2):
        n[i, j] = np.sum(~np.isnan(X[:, i]) & ~np.isnan(X[:, j]))
    expected = n * clf.conditional_mutual_information_
    np.testing.assert_allclose(clf.edge_weights_, expected, rtol=1e-10, atol=1e-12)
    # the same from the sparse form of the counts
    sparse = PairCounts(stats.categories, stats.class_weight, entries=stats.nonzero())
    np.testing.assert_array_equal(weka_gains(sparse, "loglik"), clf.edge_weights_)
    np.testing.assert_array_equal(weka_gains(sparse, "bayes", 0.5), weka_gains(stats, "bayes", 0.5))


# ------------------------------------------------------------------------ the search
def _weka_search(G):
    """Weka 3.6's TAN search restated: the best link, then the best link with exactly
    one end linked (scanning i, then j, keeping only strictly better ones); arcs into
    a link's j where j has no parent yet, else into its i."""
    d = len(G)
    linked = [False] * d
    links = []
    for _ in range(d - 1):
        best = None
        for i in range(d):
            for j in range(d):
                if i == j or (links and linked[i] == linked[j]):
                    continue
                if best is None or G[i][j] > best[0]:
                    best = (G[i][j], i, j)
        _, i, j = best
        links.append((i, j))
        linked[i] = linked[j] = True
    parents = [()] * d
    for i, j in links:
        if not parents[j]:
            parents[j] = (i,)
        else:
            assert not parents[i]
            parents[i] = (j,)
    return parents


def _prim_from(G, root):
    """Prim from ``root``: the lowest attribute outside of highest gain into the tree,
    linked to the earliest tree attribute of that gain."""
    d = len(G)
    order, parents = [root], [()] * d
    while len(order) < d:
        best = None
        for n in range(d):
            if n in order:
                continue
            for t in order:
                if best is None or G[n][t] > best[0]:
                    best = (G[n][t], n, t)
        _, n, t = best
        parents[n] = (t,)
        order.append(n)
    return parents


@pytest.mark.parametrize("seed", range(40))
def test_the_weka_search_is_its_rules_ties_and_all(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 8))
    G = rng.integers(-2, 3, (d, d)).astype(float)  # many ties
    if seed % 2:
        G = (G + G.T) / 2  # symmetric, as "cmi"
    parents, root = spanning_tree(G, None, None, np.zeros(d))
    assert parents == _weka_search(G.tolist())
    assert parents[root] == () and sum(1 for pa in parents if not pa) == 1


@pytest.mark.parametrize("seed", range(20))
def test_growing_from_a_root_is_prim_with_the_earliest_tree_attribute_on_ties(seed):
    rng = np.random.default_rng(100 + seed)
    d = int(rng.integers(2, 8))
    G = rng.integers(0, 3, (d, d)).astype(float)
    root = int(rng.integers(0, d))
    parents, found = spanning_tree(G, root, None, np.zeros(d))
    assert found == root
    assert parents == _prim_from(G.tolist(), root)


def test_the_weka_root_moves_when_a_new_attribute_links_to_it_as_parent():
    # first link [0, 1] (gain 5): 1 gets the parent 0, the root; then the best link
    # with 2 is [2, 0] (gain 3): its j, 0, has no parent yet, so 2 becomes 0's parent
    # and the root
    G = np.array([[0.0, 5.0, 1.0], [1.0, 0.0, 1.0], [3.0, 1.0, 0.0]])
    parents, root = spanning_tree(G, None, None, np.zeros(3))
    assert parents == [(2,), (0,), ()] and root == 2
    # from a given root the arcs point away from it
    assert spanning_tree(G, 1, None, np.zeros(3)) == ([(1,), (), (0,)], 1)


# ------------------------------------------------------------------------ Weka's trees
def test_the_structures_weka_learns_on_a_small_table():
    bayes = TAN(edge_score="bayes", direction="weka", alpha=0.5, backoff=0.0, discretize=None)
    bayes.fit(TOY_X, TOY_Y)
    assert bayes.parents_ == WEKA_BAYES and bayes.root_ == 1
    entropy = TAN(direction="weka", alpha=0.5, backoff=0.0, discretize=None).fit(TOY_X, TOY_Y)
    assert entropy.parents_ == WEKA_ENTROPY and entropy.root_ == 2
    # the same undirected tree as the Chow-Liu tree from the root of highest I(X; C)
    chow_liu = TAN(alpha=0.5, backoff=0.0, discretize=None).fit(TOY_X, TOY_Y)
    assert chow_liu.parents_ == [(), (0,), (1,)]

    def edges(parents):
        return {frozenset((j, p)) for j, pa in enumerate(parents) for p in pa}

    assert edges(chow_liu.parents_) == edges(entropy.parents_)


@pytest.mark.parametrize("seed", range(5))
def test_weka_and_root_directions_span_the_same_cmi_tree(seed):
    X, y = _data(300, 10 + seed, sizes=(2, 3, 2, 4, 3, 2))
    weka = TAN(direction="weka", discretize=None).fit(X, y)
    rooted = TAN(discretize=None).fit(X, y)

    def edges(parents):
        return {frozenset((j, p)) for j, pa in enumerate(parents) for p in pa}

    assert edges(weka.parents_) == edges(rooted.parents_)
    assert weka.parents_[weka.root_] == ()


def test_a_weka_tan_survives_saving(tmp_path):
    X, y = _data(150, 3, holes=0.05)
    clf = TAN(edge_score="bayes", direction="weka", alpha=0.5, discretize=None).fit(X, y)
    bio.save(clf, tmp_path / "tan.model")
    back = bio.load(tmp_path / "tan.model")
    assert back.get_params() == clf.get_params() and back.parents_ == clf.parents_
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


def test_forests_grow_the_weka_way_too():
    X, y = _data(300, 4, sizes=(2, 3, 5, 5))
    clf = TAN(edge_score="bic", direction="weka", discretize=None).fit(X, y)
    W = clf.edge_weights_
    assert all(W[j, p] >= 0 for j, pa in enumerate(clf.parents_) for p in pa)
    assert sum(1 for pa in clf.parents_ if not pa) >= 1


# ------------------------------------------------------------------------ refusals
@pytest.mark.parametrize(
    "make, error, match",
    [
        (
            lambda: TAN(edge_score="loglik"),
            ValueError,
            r"edge_score must be 'cmi' .*'aic' or 'bic' .*'bayes'",
        ),
        (
            lambda: TAN(edge_score=None),
            TypeError,
            r"edge_score must be one of 'cmi', 'aic', 'bic', 'bayes'",
        ),
        (lambda: TAN(direction="prim"), ValueError, r"direction must be 'root' .* or 'weka'"),
        (lambda: TAN(direction=1), TypeError, r"direction must be 'root'"),
        (
            lambda: TAN(root=0, direction="weka"),
            ValueError,
            r"root=0 cannot be given with direction='weka'",
        ),
        (lambda: TAN(edge_score="bayes", alpha=0.0), ValueError, r"needs alpha > 0"),
        (lambda: TAN(edge_score="bayes", alpha="1"), TypeError, r"alpha must be a number"),
    ],
)
def test_bad_options_are_refused_naming_them(make, error, match):
    X, y = _data(50, 6)
    with pytest.raises(error, match=match):
        make().set_params(discretize=None).fit(X, y)
