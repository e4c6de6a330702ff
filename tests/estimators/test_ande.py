"""AnDE and WAODE: the estimates against formulas written out here from the raw rows,
AnDE(n=1) against AODE, the fallback levels, the counts' additivity, bad input, saving.

The contract properties (posteriors, partial_fit, weights, missing values, BIC, saved
models) run through ``tests/contract`` (the registry); subsumption resolution is in
``test_subsumption.py``.
"""

import itertools

import numpy as np
import pytest
from registry import _categories, assert_same_model

from bayesrule import AODE, WAODE, AnDE
from bayesrule.io import load, save
from bayesrule.likelihoods.discrete import cpt
from bayesrule.likelihoods.discrete.averaged_tables import children_cells
from bayesrule.stats import pair_counts

LABELS = np.array(["ant", "bee", "cat"])


def train():
    return _categories(400, 0)


def holdout():
    return _categories(300, 1)


# ---------------------------------------------------------------------------- brute force
def _count(X, y, where) -> float:
    """Rows whose class and columns match ``where`` ({column or 'y': value})."""
    keep = np.ones(len(y), dtype=bool)
    for col, value in where.items():
        keep &= (y == value) if col == "y" else (X[:, col] == value)
    return float(keep.sum())


def _spnde(X, y, x, c, S, alpha=1.0, backoff=0.0):
    """``P(c, x_S) prod_{j not in S} P(x_j | c, x_S)`` from the rows (no missing values);
    with ``backoff`` m the m-estimate towards the Lidstone ``P(x_j | c)``."""
    k, n = len(np.unique(y)), len(y)
    sizes = [len(np.unique(X[:, j])) for j in range(X.shape[1])]
    parents = {s: x[s] for s in S}
    head = _count(X, y, {"y": c, **parents})
    joint = (head + alpha) / (n + alpha * k * np.prod([sizes[s] for s in S]))
    for j in range(X.shape[1]):
        if j not in S:
            both = _count(X, y, {"y": c, **parents, j: x[j]})
            if backoff:
                alone = (_count(X, y, {"y": c, j: x[j]}) + alpha) / (
                    _count(X, y, {"y": c}) + alpha * sizes[j]
                )
                joint *= (both + backoff * alone) / (head + backoff)
            else:
                joint *= (both + alpha) / (head + alpha * sizes[j])
    return joint


def _ande_joint(X, y, x, n, min_count=1):
    """AnDE's ``P(c, x)`` per class: the mean over the usable n-sets, else A(n-1)DE."""
    for k in range(n, 0, -1):
        sets = [
            S
            for S in itertools.combinations(range(X.shape[1]), k)
            if _count(X, y, {s: x[s] for s in S}) >= min_count
        ]
        if sets:
            return np.array([np.mean([_spnde(X, y, x, c, S) for S in sets]) for c in LABELS]), k
    raise AssertionError("no usable super-parent")


def _information(X, y, j) -> float:
    """``I(X_j; C)`` in nats from the rows."""
    out = 0.0
    for c in LABELS:
        for v in np.unique(X[:, j]):
            p = _count(X, y, {"y": c, j: v}) / len(y)
            if p > 0:
                out += p * np.log(p / (_count(X, y, {"y": c}) / len(y) * np.mean(X[:, j] == v)))
    return out


# ---------------------------------------------------------------------------- estimates
def test_a2de_joint_is_the_mean_of_the_spndes_written_out():
    X, y = _categories(120, 3)
    X, y = X[:, :4], y
    Xt, _ = _categories(15, 4)
    est = AnDE(n=2).fit(X, y)
    joint = est.predict_joint_log_proba(Xt[:, :4])
    for row, x in zip(joint, Xt[:, :4], strict=True):
        expected, level = _ande_joint(X, y, x, 2)
        assert level == 2
        np.testing.assert_allclose(row, np.log(expected), rtol=1e-12)


def test_rows_without_a_usable_pair_fall_back_to_aode_then_naive_bayes():
    """min_count=6: pairs of values seen together fewer times leave the average, a row
    with none of them gets AODE's joint (and its posteriors), a row whose values are all
    rarer than that the naive Bayes density (as AODE gives it)."""
    rng = np.random.default_rng(0)
    z = rng.integers(0, 3, 200)
    X = np.column_stack(
        [np.where(rng.random(200) < 0.93, z, rng.integers(0, 3, 200)) for _ in "abc"]
    )
    y = LABELS[np.where(rng.random(200) < 0.8, z, rng.integers(0, 3, 200))]
    rows = np.array([[1, 0, 2], [2, 0, 1], [0, 0, 1], [1, 1, 1]])
    est = AnDE(n=2, min_count=6).fit(X, y)
    aode = AODE(min_count=6).fit(X, y)
    levels = []
    for x, got, by_aode in zip(
        rows, est.predict_joint_log_proba(rows), aode.predict_joint_log_proba(rows), strict=True
    ):
        expected, level = _ande_joint(X, y, x, 2, min_count=6)
        levels.append(level)
        np.testing.assert_allclose(got, np.log(expected), rtol=1e-12)
        if level == 1:
            np.testing.assert_allclose(got, by_aode, rtol=1e-12)
    assert levels == [1, 1, 2, 2]
    rare = AnDE(n=2, min_count=1000).fit(X, y)  # no value is that frequent: naive Bayes
    nb = AODE(min_count=1000).fit(X, y)  # (both its density, each under its own prior)
    np.testing.assert_allclose(rare.log_likelihood(rows), nb.log_likelihood(rows), rtol=1e-12)


def test_a3de_falls_back_through_a2de():
    X, y = _categories(150, 5)
    X = X[:, :4]
    x = np.array(["low", "top", "top", "low"], dtype=object)
    est = AnDE(n=3, min_count=2).fit(X, y)
    expected, level = _ande_joint(X, y, x, 3, min_count=2)
    np.testing.assert_allclose(est.predict_joint_log_proba(x[None]), np.log(expected)[None])
    rows, _ = _categories(40, 6)
    levels = {_ande_joint(X, y, r, 3, min_count=2)[1] for r in rows[:, :4]}
    assert {2, 3} <= levels
    for r in rows[:, :4]:
        want = np.log(_ande_joint(X, y, r, 3, min_count=2)[0])
        np.testing.assert_allclose(est.predict_joint_log_proba(r[None])[0], want, rtol=1e-12)


def test_a2de_with_back_off_is_the_m_estimate_written_out():
    X, y = _categories(120, 3)
    X = X[:, :4]
    Xt, _ = _categories(10, 4)
    est = AnDE(n=2, backoff=2.5).fit(X, y)
    for x, got in zip(Xt[:, :4], est.predict_joint_log_proba(Xt[:, :4]), strict=True):
        sets = list(itertools.combinations(range(4), 2))
        assert all(_count(X, y, {s: x[s] for s in S}) >= 1 for S in sets)
        expected = [np.mean([_spnde(X, y, x, c, S, backoff=2.5) for S in sets]) for c in LABELS]
        np.testing.assert_allclose(got, np.log(expected), rtol=1e-12)


def test_every_child_at_once_equals_each_table():
    rng = np.random.default_rng(3)
    sizes = np.array([3, 0, 1, 4])
    counts = rng.integers(0, 4, size=(2, 3, 2, sizes.sum())).astype(float)
    counts[:, 1, 0] = 0  # a parent combination never seen
    for alpha in (1.0, 0.0):
        got = children_cells(counts, sizes, alpha)
        ends = np.concatenate([[0], np.cumsum(sizes)])
        each = [
            cpt.lookup_table(counts[..., a:b], alpha, "smooth")
            for a, b in zip(ends[:-1], ends[1:], strict=True)
        ]
        np.testing.assert_array_equal(got, np.concatenate(each, axis=-1))
    X, y = train()
    Xt, _ = holdout()
    Xt = np.array(Xt, dtype=object)
    Xt[::3, 1] = "new"
    ignore = AnDE(unseen="ignore").fit(X, y)
    np.testing.assert_array_equal(
        ignore.predict_proba(Xt), ignore.predict_proba(np.where(Xt == "new", None, Xt))
    )


@pytest.mark.parametrize(
    "params", [{}, {"min_count": 30}, {"backoff": 3.0}, {"alpha": 0.5}, {"smoothing": "hdp"}]
)
def test_n1_is_aode(params):
    X, y = train()
    Xt, _ = holdout()
    Xt = np.array(Xt, dtype=object)
    Xt[::7, 2] = None  # missing values
    Xt[::11, 0] = "new"  # a value never seen
    a, b = AnDE(n=1, **params).fit(X, y), AODE(**params).fit(X, y)
    assert_same_model(a, b, Xt, tol=1e-14)
    np.testing.assert_array_equal(a.class_marginal_, b.class_marginal_)


def test_the_class_conditional_density_sums_to_one():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(300, 4))
    X[:, 1] = np.where(rng.random(300) < 0.7, X[:, 0], X[:, 1])
    y = np.where(rng.random(300) < 0.8, "common", "rare")
    grid = np.array(np.meshgrid(*[[0, 1, 2]] * 4, indexing="ij")).reshape(4, -1).T
    # (n=3 at min_count=1 falls back to A2DE for the triples never seen: no longer a
    # normalised mixture; every triple taken, it is)
    for est in (AnDE(n=2), AnDE(n=3, min_count=0), WAODE()):
        est.fit(X, y)
        total = np.exp(est.log_likelihood(grid)).sum(axis=0)
        np.testing.assert_allclose(total, 1.0, rtol=1e-12)


# ---------------------------------------------------------------------------- WAODE
def test_waode_weights_are_the_mutual_information_and_average_by_them():
    X, y = _categories(200, 7)
    X = X[:, :4]
    Xt, _ = _categories(20, 8)
    est = WAODE().fit(X, y)
    info = np.array([_information(X, y, j) for j in range(4)])
    np.testing.assert_allclose(est.weights_, info, rtol=1e-12)
    for x, got in zip(Xt[:, :4], est.predict_joint_log_proba(Xt[:, :4]), strict=True):
        parts = np.array([[_spnde(X, y, x, c, (p,)) for c in LABELS] for p in range(4)])
        np.testing.assert_allclose(got, np.log(info @ parts / info.sum()), rtol=1e-12)


def test_waode_without_informative_attributes_is_aode():
    X = np.tile([[0, 0], [0, 1], [1, 0], [1, 1]], (10, 1))  # each pair 5 times per class
    y = np.repeat(["a", "b"], 20)
    est, aode = WAODE().fit(X, y), AODE().fit(X, y)
    assert est.weights_.max() < 1e-15
    np.testing.assert_allclose(est.predict_proba(X), aode.predict_proba(X), rtol=1e-14)


# ---------------------------------------------------------------------------- counts
def _unseen_batch():
    X, y = train()
    order = np.argsort(X[:, 0] == "top", kind="stable")  # the last batch brings "top"
    return X[order], y[order]


@pytest.mark.parametrize("make", [lambda: AnDE(n=2), lambda: AnDE(n=3), WAODE])
@pytest.mark.parametrize("dense", [True, False])
def test_batches_with_new_values_merge_exactly(make, dense, monkeypatch):
    if not dense:  # the sparse storage of the pair counts gives the same numbers
        monkeypatch.setattr(pair_counts, "DENSE_BYTES", 0)
    X, y = _unseen_batch()
    Xt, _ = holdout()
    parts = make()
    for rows in np.array_split(np.arange(len(X)), 4):
        parts.partial_fit(X[rows], y[rows], classes=LABELS)
    assert_same_model(parts, make().fit(X, y), Xt, tol=1e-12)


def test_weighted_rows_equal_repeated_rows():
    X, y = train()
    Xt, _ = holdout()
    w = np.random.default_rng(2).integers(0, 3, len(y))
    repeated = np.repeat(np.arange(len(y)), w)
    for make in (AnDE, WAODE):
        a = make().fit(X, y, sample_weight=w.astype(float))
        assert_same_model(a, make().fit(X[repeated], y[repeated]), Xt, tol=1e-12)


def test_dask_fit_equals_the_fit_in_memory():
    da = pytest.importorskip("dask.array")
    X, y = train()
    Xd = da.from_array(X.astype(object), chunks=((150, 0, 97, 153), (6,)))
    yd = da.from_array(y, chunks=200)
    Xt, _ = holdout()
    for make in (AnDE, WAODE, lambda: AnDE(n=3, subsumption=5)):
        assert_same_model(make().fit(Xd, yd), make().fit(X, y), Xt, tol=1e-12)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "est, error, match",
    [
        (AnDE(n=0), ValueError, r"n=0 must be >= 1 and at most .* \(n_features = 6\).*from 1"),
        (AnDE(n=7), ValueError, r"n=7 must be >= 1 and at most the number of features"),
        (AnDE(n=1.5), TypeError, "n must be an integer"),
        (AnDE(n=True), TypeError, "n must be an integer"),
        (AnDE(min_count=-1), ValueError, "min_count must be a number >= 0"),
        (AnDE(alpha=-1), ValueError, "alpha must be a finite number >= 0"),
        (AnDE(unseen="drop"), ValueError, "unseen must be one of"),
        (AnDE(discretize="kmeans"), ValueError, "discretize"),
        (AnDE(subsumption=0), ValueError, "subsumption must be False, True"),
        (WAODE(backoff=-2), ValueError, "backoff must be a finite number >= 0"),
    ],
)
def test_bad_parameters_are_refused_by_name(est, error, match):
    X, y = train()
    with pytest.raises(error, match=match):
        est.fit(X, y)
    assert not hasattr(est, "classes_")


def test_n_up_to_the_number_of_features():
    X, y = train()
    X3 = X[:, :3]
    est = AnDE(n=3).fit(X3, y)  # one estimator: the joint table of the three, smoothed
    x = X3[0]
    np.testing.assert_allclose(
        est.predict_joint_log_proba(x[None])[0],
        [np.log(_spnde(X3, y, x, c, (0, 1, 2))) for c in LABELS],
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match=r"n=4 .*n_features = 3"):
        AnDE(n=4).fit(X[:, :3], y)


def test_tables_beyond_the_limit_are_refused_before_counting(monkeypatch):
    monkeypatch.setattr(cpt, "TABLE_BYTES", 200_000)
    X, y = train()
    AODE().fit(X, y)  # AODE's tables fit
    with pytest.raises(ValueError, match=r"too many value combinations.*Set a smaller n \(n=2"):
        AnDE(n=2).fit(X, y)


# ---------------------------------------------------------------------------- introspection
def test_cpt_sample_summary_and_saving(tmp_path):
    X, y = train()
    Xt, _ = holdout()
    est = AnDE(n=2).fit(X, y)
    table = est.cpt(4, parents=(0, 2))
    F = table.counts[:, 1, 3, 2]  # classes with x0, x2, x4 at their 2nd, 4th, 3rd values
    values = [est.categories_[j] for j in (0, 2, 4)]
    where = (X[:, 0] == values[0][1]) & (X[:, 2] == values[1][3]) & (X[:, 4] == values[2][2])
    np.testing.assert_array_equal(F, [np.sum(where & (y == c)) for c in LABELS])
    np.testing.assert_allclose(table.proba.sum(axis=-1), 1.0)
    with pytest.raises(ValueError, match="not a parent set"):
        est.cpt(4, parents=(0, 1, 2))
    Xs, ys = est.sample(300, random_state=0)
    assert Xs.shape == (300, 6) and set(ys) <= set(LABELS)
    assert "n=2 super-parents" in est.summary()
    for model in (est, WAODE().fit(X, y), AnDE(subsumption=True).fit(X, y)):
        save(model, tmp_path / "m")
        back = load(tmp_path / "m")
        np.testing.assert_array_equal(back.predict_proba(Xt), model.predict_proba(Xt))
        assert back.get_params() == model.get_params()


def test_dependence_graph_draws_the_estimator_of_given_super_parents():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from bayesrule.plot import dependence_graph

    X, y = train()
    d = X.shape[1]
    for est, chosen, edges in ((AnDE(), (2, 0), 2 * (d - 2) + 1), (WAODE(), 3, d - 1)):
        est.fit(X, y)
        with pytest.raises(TypeError, match=rf"{type(est).__name__} averages .*super_parents="):
            dependence_graph(est)
        ax = dependence_graph(est, super_parents=chosen)
        assert len([p for p in ax.patches if p.get_gid() == "edge"]) == edges
        assert "super-parent" in ax.get_title()
    with pytest.raises(ValueError, match=r"super_parents must be 2 distinct column positions"):
        dependence_graph(AnDE().fit(X, y), super_parents=(1, 1))
