"""SPODE, AODE, TAN and KDB scored by the compiled lookup kernel: equal to the formulas
written from the training rows (AODE) or from the fitted tables (TAN, KDB), and to the
NumPy reference, with missing and unseen values, ``min_count`` gates, naive-Bayes
fallbacks and ``alpha=0``; the plan is derived, never saved, and follows ``partial_fit``."""

import numba  # noqa: F401  (a test extra: the compiled path must be the one tested)
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from bayesrule import AODE, KDB, SPODE, TAN, AnDE
from bayesrule._engines import lookup
from bayesrule._engines.lookup import Plan
from bayesrule.io import load, save
from bayesrule.likelihoods.discrete.cpt import flat_index, lookup_table

C = 3


@pytest.fixture(autouse=True)
def compiled_for_any_size(monkeypatch):
    monkeypatch.setattr(lookup, "COMPILED_FROM", 0)
    monkeypatch.delenv(lookup.DISABLE_ENV, raising=False)
    assert lookup.compiled(1)


def reference(monkeypatch, call):
    """``call()`` with the NumPy reference scoring."""
    with monkeypatch.context() as m:
        m.setenv(lookup.DISABLE_ENV, "1")
        assert not lookup.compiled()
        return call()


def data(seed, n=600, d=5, values=4, missing=0.1):
    """Dependent categorical columns (small integers as floats), NaN where missing;
    queries with values never seen (9) and missing ones."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = np.empty((n, d))
    X[:, 0] = (y + rng.integers(0, 2, n)) % values
    for j in range(1, d):
        copy = rng.random(n) < 0.6
        X[:, j] = np.where(copy, (X[:, j - 1] + y) % values, rng.integers(0, values, n))
    X[rng.random((n, d)) < missing] = np.nan
    Q = X[:80].copy()
    Q[rng.random(Q.shape) < 0.15] = 9.0
    Q[rng.random(Q.shape) < 0.15] = np.nan
    Q[0] = np.nan  # every value missing: naive Bayes of nothing, the prior
    return X, y, Q


def lidstone(count, total, alpha, size):
    if size == 0:
        return 1.0
    den = total + alpha * size
    return (count + alpha) / den if den > 0 else 1.0 / size


def aode_log_joint(X, y, q, c, alpha, min_count):
    """Webb's AODE joint of query ``q`` and class c from the rows (see one_dependence)."""
    n, d = X.shape
    seen = ~np.isnan(X)
    cats = [np.unique(X[seen[:, j], j]) for j in range(d)]

    def child(j, rows):  # P(x_j = q_j | rows) as the tables give it; 1 if q_j is missing
        if np.isnan(q[j]):
            return 1.0
        rows = rows & seen[:, j]
        count = (rows & (X[:, j] == q[j])).sum() if q[j] in cats[j] else 0
        return lidstone(count, rows.sum(), alpha, cats[j].size)

    def joint_parts(p):
        return (y[:, None] == np.arange(C))[seen[:, p]].sum(axis=0) + alpha * cats[p].size, (
            seen[:, p].sum() + alpha * C * cats[p].size
        )

    marginal = np.mean([num / den for num, den in map(joint_parts, range(d)) if den > 0], axis=0)
    usable = [
        p
        for p in range(d)
        if not np.isnan(q[p]) and q[p] in cats[p] and (X[:, p] == q[p]).sum() >= min_count
    ]
    if not usable:
        terms = [child(j, y == c) for j in range(d)]
        return np.log(marginal[c]) + np.log(terms).sum()
    spodes = []
    for p in usable:
        top = ((y == c) & (X[:, p] == q[p])).sum() + alpha
        value = top / (seen[:, p].sum() + alpha * C * cats[p].size)
        for j in range(d):
            if j != p:
                value *= child(j, (y == c) & (X[:, p] == q[p]))
        spodes.append(value)
    return np.log(np.mean(spodes))


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0])
@pytest.mark.parametrize("min_count", [1, 150, np.inf])  # 150: about half the values
def test_aode_equals_webbs_formula_from_the_rows(monkeypatch, alpha, min_count):
    X, y, Q = data(0)
    model = AODE(alpha=alpha, min_count=min_count).fit(X, y)
    with np.errstate(divide="ignore"):
        want = np.array(
            [[aode_log_joint(X, y, q, c, alpha, min_count) for c in range(C)] for q in Q]
        )
    got = model.likelihood_.log_likelihood(Q) + np.log(model.likelihood_.class_marginal_)
    if min_count == 150:  # rows with usable super-parents and rows with none (naive Bayes)
        counts = [(X[:, j, None] == Q[:, j]).sum(axis=0) >= 150 for j in range(X.shape[1])]
        assert 0 < np.any(counts, axis=0).mean() < 1
    finite = np.isfinite(want)
    assert finite.mean() > 0.25 and (alpha > 0 or not finite.all())  # alpha=0: some -inf
    np.testing.assert_array_equal(np.isfinite(got), finite)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-12)
    plain = reference(monkeypatch, lambda: model.likelihood_.log_likelihood(Q))
    np.testing.assert_allclose(
        got[finite], (plain + np.log(model.likelihood_.class_marginal_))[finite], rtol=1e-13
    )


def network_log_likelihood(like, Q):
    """sum_j ln P(x_j | c, pa_j) from the fitted tables (an unavailable parent: its slot)."""
    codes = like._codes(Q)
    slot = np.minimum(codes, like._sizes)
    out = np.zeros((codes.shape[0], like.n_classes_))
    for j, (pa, table) in enumerate(zip(like.parents_, like._tables, strict=True)):
        pa = list(pa)
        keys = np.column_stack([slot[:, pa], codes[:, j]])
        out += table[:, flat_index(keys, [*(like._sizes[pa] + 1), like._sizes[j] + 2])].T
    return out


@pytest.mark.parametrize(
    "model", [TAN(), TAN(alpha=0.0, backoff=0.0), KDB(k=1), KDB(k=2), KDB(k=3, backoff=0.0)]
)
def test_networks_equal_their_tables(monkeypatch, model):
    X, y, Q = data(1)
    like = model.fit(X, y).likelihood_
    want = network_log_likelihood(like, Q)
    got = like.log_likelihood(Q)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-13, atol=1e-13)
    plain = reference(monkeypatch, lambda: like.log_likelihood(Q))
    np.testing.assert_allclose(got[finite], plain[finite], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize(
    "model", [SPODE(), SPODE(parent=2), AODE(backoff=3.0), AODE(min_count=40), AnDE(n=2)]
)
def test_posteriors_equal_the_numpy_reference(monkeypatch, model):
    X, y, Q = data(2)
    model.fit(X, y)
    got = model.predict_proba(Q)
    np.testing.assert_allclose(got, reference(monkeypatch, lambda: model.predict_proba(Q)), 1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-14)


@pytest.mark.parametrize("model", [AODE(), TAN(), KDB(k=2)])
def test_threads_give_the_same_bits(model):
    X, y, _ = data(3, n=3000)
    model.fit(X, y)
    big = np.tile(X, (8, 1))  # several row blocks
    with threadpool_limits(limits=1, user_api="blas"):
        one = model.predict_proba(big)
    np.testing.assert_array_equal(model.predict_proba(big), one)


def test_partial_fit_scores_with_the_new_tables():
    X, y, Q = data(4)
    model = AODE().partial_fit(X[:300], y[:300], classes=range(C))
    before = model.predict_proba(Q)
    model.partial_fit(X[300:], y[300:])
    np.testing.assert_allclose(model.predict_proba(Q), AODE().fit(X, y).predict_proba(Q), 1e-12)
    assert not np.allclose(model.predict_proba(Q), before)


@pytest.mark.parametrize("model", [AODE(min_count=30), SPODE(parent=None), TAN(), KDB(k=2)])
def test_the_plan_is_derived_never_saved(tmp_path, model):
    X, y, Q = data(5)
    model.fit(X, y)
    proba = model.predict_proba(Q)  # the plan made and kept beside the model
    assert not any(isinstance(v, Plan) for v in vars(model.likelihood_).values())
    path = tmp_path / "model.npz"
    save(model, path)
    with np.load(path) as z:
        document = bytes(z["__bayesrule__.json"]).decode()
    assert "likelihoods.discrete" in document
    assert "lookup" not in document  # no Plan, no Factors in the file
    again = load(path)  # checked against the statistics (AODE, SPODE, TAN) or the tables
    np.testing.assert_array_equal(again.predict_proba(Q), proba)


def test_unseen_error_names_the_value_on_the_compiled_path():
    X, y, Q = data(6)
    model = AODE(unseen="error").fit(X, y)
    Q = np.nan_to_num(Q, nan=1.0).clip(max=3.0)
    model.predict_proba(Q)  # every value seen
    Q[5, 3] = 9.0
    with pytest.raises(ValueError, match=r"feature 3 has the value .*9\.0.*, never seen"):
        model.predict_proba(Q)


@pytest.mark.parametrize("alpha", [1.0, 0.0])
@pytest.mark.parametrize("unseen", ["smooth", "ignore"])
def test_spode_tables_at_once_equal_the_tables_one_by_one(alpha, unseen):
    """The children of each super-parent from the dense counts at once (Lidstone, no
    back-off) equal ``lookup_table`` child by child, a never-observed column included."""
    X, y, _ = data(7)
    X[:, 4] = np.nan  # never observed
    like = AODE(alpha=alpha, unseen=unseen).fit(X, y).likelihood_
    for p, _, _, flat, base, stride, others in like._spodes:
        tables = [
            lookup_table(like.stats_.blocks([(p, j)])[0], alpha, unseen).reshape(C, -1)
            for j in others
        ]
        np.testing.assert_array_equal(flat, np.concatenate(tables, axis=1))
        np.testing.assert_array_equal(base, np.cumsum([0] + [t.shape[1] for t in tables])[:-1])
        np.testing.assert_array_equal(stride, like._sizes[others] + 2)
