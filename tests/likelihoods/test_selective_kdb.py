"""Selective KDB: the leave-one-out grid against refits without each row, the chosen
model against KDB, the selection, the refusals."""

import numpy as np
import pytest

from bayesrule import KDB, SKDB
from bayesrule.likelihoods.discrete import selective
from bayesrule.likelihoods.discrete.learned import KDependence
from bayesrule.likelihoods.discrete.selective_loo import MAX_CELLS, choose, ranked_parents


def _codes(n, seed, d=4, missing=0.0):
    """Three classes, ``d`` dependent attributes of three values (float codes), a share
    ``missing`` of the cells NaN; every value seen at least twice per column."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    X = np.empty((n, d))
    X[:, 0] = (y + rng.integers(0, 2, n)) % 3
    for j in range(1, d):
        noise = rng.random(n) < 0.3
        X[:, j] = np.where(noise, rng.integers(0, 3, n), (X[:, j - 1] + y * (j % 2)) % 3)
    X[rng.random((n, d)) < missing] = np.nan
    for j in range(d):
        assert min(np.sum(X[:, j] == v) for v in range(3)) >= 2
    return X, y


def _fixed_kdb(parents, alpha, backoff):
    """KDB tables over a given structure (no structure learning)."""
    like = KDependence(k=max([len(p) for p in parents] + [0]), alpha=alpha, backoff=backoff)
    like._structure = lambda mi, cmi: [tuple(p) for p in parents]
    return like


def _refitted_grid(X, y, like, alpha, backoff):
    """Per candidate (s, k): every row's posterior from the model refitted without it
    (same structure), as RMSE of 1 - P(y_i), log loss and error rate."""
    n, C, k_max = len(y), 3, like.k_max
    ranked = dict(ranked_parents(like.order_, like.conditional_mutual_information_, k_max))
    grids = {name: np.zeros((len(like.order_) + 1, k_max + 1)) for name in ("rmse", "log", "01")}
    for s in range(len(like.order_) + 1):
        chosen = like.order_[:s].tolist()
        for k in range(k_max + 1):
            parents = [[chosen.index(p) for p in ranked[j][:k]] for j in chosen]
            sq = ll = wrong = 0.0
            for i in range(n):
                keep = np.arange(n) != i
                counts = np.bincount(y[keep], minlength=C)
                joint = np.log(counts / counts.sum())
                if s:
                    model = _fixed_kdb(parents, alpha, backoff)
                    model.fit(X[keep][:, chosen], y[keep], C)
                    joint = joint + model.log_likelihood(X[i : i + 1, chosen])[0]
                post = np.exp(joint - np.logaddexp.reduce(joint))
                sq += (1 - post[y[i]]) ** 2
                ll -= np.log(post[y[i]])
                wrong += np.argmax(joint) != y[i]
            grids["rmse"][s, k] = np.sqrt(sq / n)
            grids["log"][s, k] = ll / n
            grids["01"][s, k] = wrong / n
    return grids


@pytest.mark.parametrize(
    "alpha, backoff, missing", [(1.0, 5.0, 0.0), (0.5, 0.0, 0.0), (1.0, 5.0, 0.08)]
)
def test_leave_one_out_grid_equals_refits_without_each_row(alpha, backoff, missing):
    X, y = _codes(48, 3, missing=missing)
    params = dict(k_max=2, alpha=alpha, backoff=backoff, discretize=None)
    fitted = {c: SKDB(criterion=c, **params).fit(X, y) for c in ("rmse", "log_loss", "zero_one")}
    like = fitted["rmse"].likelihood_
    brute = _refitted_grid(X, y, like, alpha, backoff)
    np.testing.assert_allclose(fitted["rmse"].loss_grid_, brute["rmse"], rtol=1e-12)
    np.testing.assert_allclose(fitted["log_loss"].loss_grid_, brute["log"], rtol=1e-12)
    np.testing.assert_allclose(fitted["zero_one"].loss_grid_, brute["01"], rtol=0, atol=1e-15)
    # the candidates differ (the comparison means something), and s = 0 is the prior's
    assert np.ptp(brute["rmse"][1:]) > 0.01 and np.ptp(brute["rmse"][-1]) > 1e-4
    assert np.all(brute["rmse"][0] == brute["rmse"][0, 0])


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"alpha": 0.5, "backoff": 0.0},
        {"smoothing": "hdp"},
        {"discretize": "mdl"},
    ],
)
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_every_attribute_with_k_fixed_is_kdb(monkeypatch, k, options):
    """The candidate s = d with k parents is KDB(k): structure, counts, tables."""
    X, y = _codes(300, 5, d=5, missing=0.05)
    if options.get("discretize"):
        X = X + np.random.default_rng(0).normal(0, 0.2, X.shape)  # continuous
    w = np.random.default_rng(1).uniform(0.2, 2.0, len(y))
    monkeypatch.setattr(selective, "choose", lambda grid: (grid.shape[0] - 1, k))
    params = {"discretize": None, **options}
    skdb = SKDB(k_max=3, **params).fit(X, y, sample_weight=w)
    kdb = KDB(k=k, **params).fit(X, y, sample_weight=w)
    # hdp: a fixed point iterated to 1e-9 amplifies the counts' rounding (weighted sums)
    tol = 1e-8 if options.get("smoothing") == "hdp" else 1e-12
    assert skdb.k_ == k and skdb.n_selected_ == 5
    assert skdb.parents_ == kdb.parents_
    assert k == 0 or max(map(len, kdb.parents_)) == k
    for j in range(5):
        a, b = skdb.cpt(j), kdb.cpt(j)
        np.testing.assert_allclose(a.counts, b.counts, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(a.proba, b.proba, rtol=tol, atol=1e-14)
    Xt, _ = _codes(200, 6, d=5, missing=0.1)
    Xt[0] = np.nan  # every feature missing
    Xt[1, 2] = 7.0  # a value never seen
    ja, jb = skdb.predict_joint_log_proba(Xt), kdb.predict_joint_log_proba(Xt)
    np.testing.assert_allclose(ja, jb, rtol=tol, atol=tol)
    assert skdb.likelihood_.n_parameters() == kdb.likelihood_.n_parameters()


def test_the_selected_model_is_kdb_over_the_selected_columns():
    """Attributes that say little of the class are left out; the model is KDB(k_) fitted
    on the selected columns alone (their order and ranking do not change)."""
    X, y = _codes(400, 7, d=3)
    noise = np.random.default_rng(0).integers(0, 3, (400, 3)).astype(float)
    X = np.hstack([X, noise])
    est = SKDB(k_max=2, discretize=None).fit(X, y)
    grid = est.loss_grid_
    assert grid.shape == (7, 3)
    assert (est.n_selected_, est.k_) == choose(grid) == (2, 1)
    assert grid[2, 1] == grid.min() < grid[3:].min() - 1e-3
    assert est.selected_.tolist() == est.order_[:2].tolist() == [0, 1]
    cols = est.selected_
    kdb = KDB(k=1, discretize=None).fit(X[:, cols], y)
    assert est.parents_ == [(), (0,), (), (), (), ()] and kdb.parents_ == [(), (0,)]
    Xt, _ = _codes(100, 8, d=3)
    Xt = np.hstack([Xt, np.zeros((100, 3))])
    np.testing.assert_allclose(
        est.predict_proba(Xt), kdb.predict_proba(Xt[:, cols]), rtol=1e-12, atol=1e-14
    )
    # a left-out attribute changes nothing, and has no table
    Xt[:, 2:] = 2.0
    np.testing.assert_allclose(est.predict_proba(Xt), kdb.predict_proba(Xt[:, cols]), atol=1e-14)
    with pytest.raises(ValueError, match="not among the 2 attributes selected"):
        est.cpt(4)
    assert "2 of 6 attributes with k = 1" in est.summary()


def test_ties_choose_the_fewest_attributes_then_the_smallest_k():
    grid = np.array([[0.5, 0.5], [0.3, 0.3 - 1e-12], [0.3, 0.2 + 0.1]])
    assert choose(grid) == (1, 0)
    assert choose(np.array([[0.5, 0.5], [0.4, 0.3], [0.3, 0.2]])) == (2, 1)


def test_samples_draw_left_out_attributes_from_their_marginal():
    X, y = _codes(400, 7, d=4)
    X = np.hstack([X, np.random.default_rng(2).integers(0, 3, (400, 1)).astype(float)])
    est = SKDB(k_max=1, discretize=None).fit(X, y)
    assert 4 not in est.selected_.tolist()
    Xs, ys = est.sample(30_000, random_state=0)
    freq = [np.mean(Xs[ys == c, 4] == 2.0) for c in est.classes_]
    marginal = (np.sum(X[:, 4] == 2.0) + 1) / (400 + 3)
    np.testing.assert_allclose(freq, marginal, atol=0.02)


def test_dependence_graph_leaves_the_attributes_left_out_unlinked():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from bayesrule.plot import dependence_graph

    X, y = _codes(400, 7, d=4)
    X = np.hstack([X, np.random.default_rng(2).integers(0, 3, (400, 2)).astype(float)])
    est = SKDB(k_max=2, discretize=None).fit(X, y)
    ax = dependence_graph(est)
    gids = [t.get_gid() for t in ax.texts]
    assert gids.count("left-out-node") == 6 - est.n_selected_ > 0
    edges = [p.get_gid() for p in ax.patches]
    assert edges.count("class-edge") == est.n_selected_
    assert edges.count("edge") == sum(len(est.parents_[j]) for j in est.selected_)
    plt.close("all")


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"k_max": -1}, ValueError, "k_max"),
        ({"k_max": 1.5}, TypeError, "k_max"),
        ({"k_max": True}, TypeError, "k_max"),
        ({"criterion": "accuracy"}, ValueError, "criterion must be one of"),
        ({"criterion": None}, ValueError, "criterion must be one of"),
        ({"alpha": -1.0}, ValueError, "alpha"),
        ({"backoff": -2.0}, ValueError, "backoff"),
        ({"smoothing": "laplace"}, ValueError, "smoothing"),
        ({"discretize": None}, ValueError, "holds continuous values"),
    ],
)
def test_bad_input_is_refused_by_name(params, error, match):
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.arange(40) % 2
    est = SKDB(**params)
    with pytest.raises(error, match=match):
        est.fit(X, y)
    assert not hasattr(est, "classes_")


def test_partial_fit_is_refused_and_large_tables_get_fewer_parents():
    """An attribute gets the longest prefix of its ranked parents whose table has at most
    MAX_CELLS cells: with 60 values a column, C 62 61^k <= 2^18 allows one parent."""
    est = SKDB()
    assert not hasattr(est, "partial_fit")
    rng = np.random.default_rng(0)
    X = rng.integers(0, 60, size=(600, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] > 60).astype(int)
    like = SKDB(k_max=5, discretize=None).fit(X, y).likelihood_
    assert like.loss_grid_.shape == (5, 6)
    cmi = like.conditional_mutual_information_
    assert ranked_parents(like.order_, cmi, 5)[-1][1] != ()  # three earlier attributes
    assert [len(p) for _, p in ranked_parents(like.order_, cmi, 5, like._sizes, 2)] == [0] + [1] * 3
    assert 2 * 62 * 61 <= MAX_CELLS < 2 * 62 * 61**2
