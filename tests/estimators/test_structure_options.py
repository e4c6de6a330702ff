"""TAN scored by AIC/BIC (bnclassify's ``tan_cl(score=)``: forests) and KDB's
conditional-information threshold, against the formulas and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bayesrule import KDB, TAN, CategoricalNB


def _data(n, seed, holes=0.0):
    """Six attributes: x1 follows x0, x3 follows x2 (strongly), x4 and x5 noise of 5
    values; the class drives x0 and x2."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.empty((n, 6), dtype=np.int64)
    X[:, 0] = (y + (rng.random(n) < 0.3)) % 2
    X[:, 1] = np.where(rng.random(n) < 0.85, X[:, 0], 1 - X[:, 0])
    X[:, 2] = (y + rng.integers(0, 2, n)) % 3
    X[:, 3] = np.where(rng.random(n) < 0.9, X[:, 2], rng.integers(0, 3, n))
    X[:, 4] = rng.integers(0, 5, n)
    X[:, 5] = rng.integers(0, 5, n)
    X = X.astype(float)
    X[rng.random(X.shape) < holes] = np.nan
    return X, y


def _cmi_by_hand(X, y, i, j):
    """``I(X_i; X_j | C)`` over the rows where both are observed, and their number."""
    rows = ~np.isnan(X[:, i]) & ~np.isnan(X[:, j])
    a, b, c = X[rows, i], X[rows, j], y[rows]
    n = rows.sum()
    total = 0.0
    for cv in np.unique(c):
        for av in np.unique(a):
            for bv in np.unique(b):
                nab = np.sum((c == cv) & (a == av) & (b == bv))
                if nab:
                    na, nb = np.sum((c == cv) & (a == av)), np.sum((c == cv) & (b == bv))
                    total += nab / n * np.log(nab * np.sum(c == cv) / (na * nb))
    return total, n


def _forest_weight(parents, W):
    return sum(W[p, j] for j, pa in enumerate(parents) for p in pa)


def _best_forest_weight(W, allowed):
    """The largest total weight of an acyclic set of allowed edges, by enumeration."""
    d = W.shape[0]
    edges = [(i, j) for i, j in itertools.combinations(range(d), 2) if allowed[i, j]]
    best = 0.0
    for r in range(len(edges) + 1):
        for subset in itertools.combinations(edges, r):
            root = list(range(d))

            def find(u, root=root):
                while root[u] != u:
                    u = root[u]
                return u

            acyclic = True
            for i, j in subset:
                ri, rj = find(i), find(j)
                if ri == rj:
                    acyclic = False
                    break
                root[ri] = rj
            if acyclic:
                best = max(best, sum(W[i, j] for i, j in subset))
    return best


@pytest.mark.parametrize("score", ["aic", "bic"])
@pytest.mark.parametrize("holes", [0.0, 0.08])
def test_edge_weights_are_the_penalised_information_gains(score, holes):
    X, y = _data(300, 0, holes)
    clf = TAN(edge_score=score, discretize=None).fit(X, y)
    sizes = [c.size for c in clf.categories_]
    for i, j in itertools.combinations(range(6), 2):
        cmi, n = _cmi_by_hand(X, y, i, j)
        penalty = 1.0 if score == "aic" else np.log(n) / 2
        expected = n * cmi - penalty * (sizes[i] - 1) * (sizes[j] - 1) * 2
        np.testing.assert_allclose(clf.edge_weights_[i, j], expected, rtol=1e-10, atol=1e-9)
        assert clf.edge_weights_[j, i] == clf.edge_weights_[i, j]


@pytest.mark.parametrize("score", ["aic", "bic"])
@pytest.mark.parametrize("n, seed", [(300, 0), (120, 1), (2000, 2)])
def test_the_forest_is_a_maximum_spanning_forest_of_the_nonnegative_edges(score, n, seed):
    X, y = _data(n, seed)
    clf = TAN(edge_score=score, discretize=None).fit(X, y)
    W = clf.edge_weights_
    parents = clf.parents_
    for j, pa in enumerate(parents):
        assert all(W[p, j] >= 0 for p in pa)  # only edges of non-negative weight
    best = _best_forest_weight(W, W >= 0)
    np.testing.assert_allclose(_forest_weight(parents, W), best, rtol=1e-12)
    # each tree but the root's is directed from its attribute of highest I(X; C)
    roots = [j for j, pa in enumerate(parents) if not pa]
    mi = clf.mutual_information_
    assert clf.root_ == int(np.argmax(mi)) and clf.root_ in roots

    def tree_of(j):
        while parents[j]:
            j = parents[j][0]
        return j

    for r in roots:
        members = [j for j in range(6) if tree_of(j) == r]
        assert mi[r] == mi[members].max()


def test_bic_drops_the_weak_edges_that_cmi_keeps():
    X, y = _data(300, 0)
    tree = TAN(discretize=None).fit(X, y)
    forest = TAN(edge_score="bic", discretize=None).fit(X, y)
    assert sum(1 for pa in tree.parents_ if not pa) == 1
    # the strong pairs stay linked; the 5-valued noise columns stand alone
    assert forest.parents_[1] == (0,) or forest.parents_[0] == (1,)
    assert forest.parents_[3] == (2,) or forest.parents_[2] == (3,)
    assert forest.parents_[4] == () and forest.parents_[5] == ()
    assert all(j not in pa for pa in forest.parents_ for j in (4, 5))
    assert sum(1 for pa in forest.parents_ if not pa) == 4


def test_cmi_is_the_default_tree():
    X, y = _data(300, 3, holes=0.05)
    a, b = TAN(discretize=None).fit(X, y), TAN(edge_score="cmi", discretize=None).fit(X, y)
    assert a.parents_ == b.parents_
    np.testing.assert_array_equal(a.edge_weights_, a.conditional_mutual_information_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_a_given_root_roots_its_tree_of_the_forest():
    X, y = _data(300, 0)
    forest = TAN(edge_score="bic", root=3, discretize=None).fit(X, y)
    assert forest.parents_[3] == () and forest.root_ == 3
    assert forest.parents_[2] == (3,)


# ---------------------------------------------------------------------------- KDB
def _kdb_by_hand(mi, cmi, k, t):
    order = sorted(range(mi.size), key=lambda j: (-mi[j], j))
    parents = []
    for j in range(mi.size):
        earlier = order[: order.index(j)]
        ranked = sorted(earlier, key=lambda p: (-cmi[j, p], order.index(p)))
        parents.append(tuple(p for p in ranked if cmi[j, p] > t)[:k])
    return parents


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("t", [0.0, 0.002, 0.05])
def test_kdb_takes_only_parents_above_the_threshold(k, t):
    X, y = _data(400, 4, holes=0.05)
    clf = KDB(k=k, min_cmi=t, discretize=None).fit(X, y)
    cmi = clf.conditional_mutual_information_
    assert clf.parents_ == _kdb_by_hand(clf.mutual_information_, cmi, k, t)
    assert all(cmi[j, p] > t for j, pa in enumerate(clf.parents_) for p in pa)


def test_kdb_without_threshold_is_unchanged_and_a_high_one_is_naive_bayes():
    X, y = _data(400, 5)
    none = KDB(k=2, discretize=None).fit(X, y)
    cmi = none.conditional_mutual_information_
    assert none.parents_ == _kdb_by_hand(none.mutual_information_, cmi, 2, -np.inf)
    assert sum(len(pa) for pa in none.parents_) == 2 * 6 - 3  # k parents where possible
    naive = KDB(k=2, min_cmi=10.0, discretize=None).fit(X, y)
    assert naive.parents_ == [()] * 6
    np.testing.assert_allclose(
        naive.predict_proba(X),
        CategoricalNB(discretize=None).fit(X, y).predict_proba(X),
        rtol=1e-12,
    )


# ---------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: TAN(edge_score="loglik"), ValueError, "edge_score must be 'cmi'"),
        (lambda: TAN(edge_score=None), TypeError, "edge_score must be one of"),
        (lambda: KDB(min_cmi=-0.1), ValueError, "min_cmi must be a finite number >= 0"),
        (lambda: KDB(min_cmi="0"), TypeError, "min_cmi must be a number"),
    ],
)
def test_bad_options_are_refused_naming_them(make, error, match):
    X, y = _data(50, 6)
    with pytest.raises(error, match=match):
        make().fit(X, y)
