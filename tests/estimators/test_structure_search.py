"""StructureSearch (bnclassify's tan_hc, tan_hcsp, fssj, bsej) and GivenNetwork: the
cross-validated scores equal refits on the folds, the moves and the stop rule, weights,
structures known to be right, refusals."""

from __future__ import annotations

import numpy as np
import pytest

from bayesrule import KDB, BayesClassifier, StructureSearch
from bayesrule.likelihoods.discrete.given import GivenNetwork
from bayesrule.likelihoods.discrete.search import STEPS, Search, supernodes
from bayesrule.likelihoods.discrete.search_cv import distinct_folds, make_folds
from bayesrule.stats.pair_counts import encode_table

OPTIONS = {"alpha": 1.0, "unseen": "smooth", "backoff": 5.0, "smoothing": "lidstone"}


def _data(n, seed, holes=0.0):
    """Five attributes of 2-4 values with dependences, some cells missing."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.empty((n, 5))
    X[:, 0] = (y + rng.integers(0, 2, n)) % 3
    X[:, 1] = np.where(rng.random(n) < 0.8, X[:, 0], rng.integers(0, 3, n))
    X[:, 2] = rng.integers(0, 4, n)
    X[:, 3] = (X[:, 2] + (y == 1) + (rng.random(n) < 0.2)) % 4
    X[:, 4] = rng.integers(0, 2, n)
    X[rng.random(X.shape) < holes] = np.nan
    return X, y


def _xor(n, seed):
    """y = a XOR b, b agreeing with y in 70 % of the rows, c noise: only a and b together
    predict y (no attribute alone, nor naive Bayes over both)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.7, y, 1 - y)
    return np.column_stack([y ^ b, b, rng.integers(0, 2, n)]).astype(float), y


def _search(X, y, w=None, k=5):
    categories, codes = encode_table(X.astype(object), w)
    sizes = np.array([c.size for c in categories])
    folds = make_folds(codes, y, np.ones(len(y)) if w is None else w, k, 3, OPTIONS)
    return Search(folds, sizes, 3), codes


@pytest.mark.parametrize("holes", [0.0, 0.1])
@pytest.mark.parametrize(
    "parents, features",
    [
        ([(), (), (), (), ()], [0, 1, 2, 3, 4]),
        ([(), (0,), (), (2,), (1,)], [0, 1, 2, 3, 4]),
        ([(), (0,), (), (0, 1, 2), ()], [0, 1, 2, 3]),  # three parents, one left out
        ([(), (), (3,), (), ()], [2, 3, 4]),
        ([()] * 5, []),
    ],
)
def test_fold_scores_equal_the_accuracy_of_refits_on_the_folds(parents, features, holes):
    X, y = _data(240, 0, holes)
    X[:3, 2] = [7, 8, 9]  # values seen once: unseen where held out
    X[3, 0] = 5
    search, codes = _search(X, y)
    state = (tuple(tuple(p) for p in parents), frozenset(features))
    fold = distinct_folds(codes, y, 5)
    refits = []
    for f in range(5):
        train, test = fold != f, fold == f
        model = GivenNetwork(parents, features=features, alpha=1.0, backoff=5.0)
        clf = BayesClassifier(model).fit(X[train], y[train])
        refits.append(np.mean(clf.predict(X[test]) == y[test]))
    assert search.score(state) == pytest.approx(np.mean(refits), abs=1e-12)
    # scored again from a current state one change away (the cached, incremental path)
    search.current = None
    start = (tuple(() for _ in range(5)), frozenset(range(5)))
    search.current = (start, search._totals(start))
    assert search.score(state) == pytest.approx(np.mean(refits), abs=1e-12)


@pytest.mark.parametrize(
    "options",
    [
        {"alpha": 0.5, "unseen": "ignore", "backoff": 0.0, "smoothing": "lidstone"},
        {"alpha": 1.0, "unseen": "smooth", "backoff": 5.0, "smoothing": "hdp"},
    ],
)
def test_fold_scores_follow_the_smoothing_as_refits_do(options):
    X, y = _data(240, 15, 0.05)
    X[:3, 2] = [7, 8, 9]
    _, codes = encode_table(X.astype(object))
    sizes = np.array([np.unique(c[c >= 0]).size for c in codes.T])
    search = Search(make_folds(codes, y, np.ones(len(y)), 5, 3, options), sizes, 3)
    parents, features = [(), (0,), (), (0, 1, 2), ()], [0, 1, 2, 3]
    fold = distinct_folds(codes, y, 5)
    refits = []
    for f in range(5):
        train, test = fold != f, fold == f
        clf = BayesClassifier(GivenNetwork(parents, features=features, **options))
        refits.append(np.mean(clf.fit(X[train], y[train]).predict(X[test]) == y[test]))
    state = (tuple(parents), frozenset(features))
    assert search.score(state) == pytest.approx(np.mean(refits), abs=1e-12)


def test_equal_rows_share_a_fold_and_classes_are_dealt_in_turn():
    X, y = _data(300, 1)
    _, codes = encode_table(X.astype(object))
    fold = distinct_folds(codes, y, 4)
    rows = {}
    for r in range(len(y)):
        rows.setdefault((y[r], *codes[r]), set()).add(fold[r])
    assert all(len(f) == 1 for f in rows.values())
    for c in range(3):  # distinct rows of a class spread evenly over the folds
        distinct = {k: f for k, f in rows.items() if k[0] == c}
        sizes = np.bincount([next(iter(f)) for f in distinct.values()], minlength=4)
        assert sizes.max() - sizes.min() <= 1
    shuffled = distinct_folds(codes, y, 4, np.random.RandomState(0))
    assert not np.array_equal(shuffled, fold)
    np.testing.assert_array_equal(shuffled, distinct_folds(codes, y, 4, np.random.RandomState(0)))


@pytest.mark.parametrize("method", ["tan_hc", "tan_hcsp", "fssj", "bsej"])
def test_each_move_gains_epsilon_and_the_last_state_has_no_such_move(method):
    X, y = _data(300, 2, holes=0.05)
    clf = StructureSearch(method=method, discretize=None, epsilon=0.005).fit(X, y)
    scores = clf.search_scores_
    assert scores.size >= 2 and np.all(np.diff(scores) >= 0.005 - 1e-12)
    search, _ = _search(X, y)
    state = (tuple(clf.parents_), frozenset(clf.features_.tolist()))
    assert search.score(state) == pytest.approx(scores[-1], abs=1e-12)
    search.current = (state, search._totals(state))
    others = [search.score(c) for c in STEPS[method](state, search)]
    assert max(others, default=0.0) < scores[-1] + 0.005
    if method.startswith("tan"):  # a forest of trees over every attribute
        assert list(clf.features_) == list(range(5))
        assert all(len(pa) <= 1 for pa in clf.parents_)
    for group in supernodes(clf.parents_, set(clf.features_.tolist())):
        if method in ("fssj", "bsej"):  # supernodes: complete DAGs
            arcs = sum(len(set(clf.parents_[j]) & set(group)) for j in group)
            assert arcs == len(group) * (len(group) - 1) // 2


@pytest.mark.parametrize("method", ["tan_hc", "tan_hcsp", "fssj", "bsej"])
def test_the_searches_join_the_attributes_of_a_xor(method):
    X, y = _xor(400, 3)
    clf = StructureSearch(method=method, discretize=None).fit(X, y)
    assert clf.parents_[0] == (1,) or clf.parents_[1] == (0,)
    assert clf.search_scores_[-1] == 1.0
    Xt, yt = _xor(300, 4)
    assert clf.score(Xt, yt) == 1.0
    if method == "fssj":  # the noise column never gains
        assert list(clf.features_) == [0, 1]


def test_integer_weights_search_and_fit_as_repeated_rows():
    X, y = _data(200, 5, holes=0.05)
    w = np.random.default_rng(6).integers(0, 4, len(y))
    for method in ("tan_hc", "bsej"):
        a = StructureSearch(method=method, discretize=None).fit(X, y, sample_weight=w)
        b = StructureSearch(method=method, discretize=None).fit(
            np.repeat(X, w, axis=0), np.repeat(y, w)
        )
        assert a.parents_ == b.parents_
        np.testing.assert_array_equal(a.features_, b.features_)
        np.testing.assert_allclose(a.search_scores_, b.search_scores_, rtol=1e-12)
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)


def test_without_a_move_worth_epsilon_the_start_is_kept():
    X, y = _data(200, 7)
    nb = StructureSearch(epsilon=1.0, discretize=None).fit(X, y)
    assert nb.parents_ == [()] * 5 and nb.search_scores_.size == 1
    np.testing.assert_allclose(
        nb.predict_proba(X), KDB(k=0, discretize=None).fit(X, y).predict_proba(X), rtol=1e-12
    )
    none = StructureSearch(method="fssj", epsilon=1.0, discretize=None).fit(X, y)
    assert none.features_.size == 0
    np.testing.assert_allclose(none.predict_proba(X[:3]), np.tile(none.class_prior_, (3, 1)))


def test_given_splits_and_splitters_are_the_folds():
    from sklearn.model_selection import KFold

    X, y = _data(300, 14)
    _, codes = encode_table(X.astype(object))
    fold = distinct_folds(codes, y, 4)
    splits = [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(4)]
    a = StructureSearch(method="bsej", cv=4, discretize=None).fit(X, y)
    b = StructureSearch(method="bsej", cv=splits, discretize=None).fit(X, y)
    assert a.parents_ == b.parents_
    np.testing.assert_array_equal(a.search_scores_, b.search_scores_)
    kfold = KFold(3, shuffle=True, random_state=0)
    c = StructureSearch(cv=kfold, discretize=None).fit(X, y)
    d = StructureSearch(cv=list(kfold.split(X, y)), discretize=None).fit(X, y)
    np.testing.assert_array_equal(c.search_scores_, d.search_scores_)
    search, _ = _search(X, y)
    search.folds = make_folds(codes, y, np.ones(len(y)), list(kfold.split(X)), 3, OPTIONS)
    state = (tuple(c.parents_), frozenset(c.features_.tolist()))
    assert search.score(state) == pytest.approx(c.search_scores_[-1], abs=1e-12)
    with pytest.raises(ValueError, match="cv's split 0 holds other than row indices"):
        StructureSearch(cv=[(np.arange(10), np.arange(300, 310))]).fit(X, y)


def test_a_fixed_random_state_gives_the_same_search():
    X, y = _data(300, 8)
    a = StructureSearch(method="bsej", random_state=3, discretize=None).fit(X, y)
    b = StructureSearch(method="bsej", random_state=3, discretize=None).fit(X, y)
    assert a.parents_ == b.parents_
    np.testing.assert_array_equal(a.search_scores_, b.search_scores_)


def test_the_dependence_graph_draws_the_searched_structure():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from bayesrule.plot import dependence_graph

    X, y = _xor(200, 9)
    clf = StructureSearch(discretize=None).fit(X, y)
    ax = dependence_graph(clf)
    edges = [p for p in ax.patches if p.get_gid() == "edge"]
    assert len(edges) == sum(len(pa) for pa in clf.parents_) == 1


# ---------------------------------------------------------------------------- GivenNetwork
def test_left_out_attributes_equal_a_model_without_their_columns():
    X, y = _data(300, 10, holes=0.05)
    Xt, _ = _data(100, 11, holes=0.05)
    full = BayesClassifier(GivenNetwork([(), (0,), (), (), (1, 0)], features=[0, 1, 4])).fit(X, y)
    part = BayesClassifier(GivenNetwork([(), (0,), (1, 0)])).fit(X[:, [0, 1, 4]], y)
    np.testing.assert_allclose(full.predict_proba(Xt), part.predict_proba(Xt[:, [0, 1, 4]]))
    assert full.likelihood_.n_parameters() == part.likelihood_.n_parameters()


@pytest.mark.parametrize(
    "parents, features, error, match",
    [
        ([(), (0,)], None, ValueError, "parents has 2 entries"),
        ([(), (1,), (), (), ()], None, ValueError, "holds attribute 1 itself"),
        ([(1,), (0,), (), (), ()], None, ValueError, "not acyclic"),
        ([(), (0,), (), (), ()], [1, 2, 3, 4], ValueError, "left out of features"),
        ([(), (), (7,), (), ()], None, ValueError, r"column positions 0\.\.4"),
        ([(), (), ("a",), (), ()], None, TypeError, "column positions"),
        ("all", None, TypeError, "parents must be a list"),
    ],
)
def test_bad_structures_are_refused(parents, features, error, match):
    X, y = _data(50, 12)
    with pytest.raises(error, match=match):
        BayesClassifier(GivenNetwork(parents, features=features)).fit(X, y)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"method": "hc"}, ValueError, "method must be one of"),
        ({"cv": 1}, ValueError, "cv"),
        ({"cv": "5"}, TypeError, "cv"),
        ({"epsilon": -0.1}, ValueError, "epsilon must be a finite number >= 0"),
    ],
)
def test_bad_search_parameters_are_refused(params, error, match):
    X, y = _data(50, 13)
    with pytest.raises(error, match=match):
        StructureSearch(**params).fit(X, y)


def test_no_partial_fit():
    assert not hasattr(StructureSearch(), "partial_fit")


def test_a_search_of_equal_scores_saves_and_loads(tmp_path):
    from bayesrule import StructureSearch
    from bayesrule import io as bio

    rng = np.random.default_rng(2)
    X, y = rng.integers(0, 3, (60, 6)), rng.integers(0, 2, 60)
    for seed in range(5):  # epsilon=0 takes moves that tie the current accuracy
        est = StructureSearch(epsilon=0, random_state=seed).fit(X, y)
        bio.save(est, tmp_path / "s.model")
        back = bio.load(tmp_path / "s.model")
        np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
