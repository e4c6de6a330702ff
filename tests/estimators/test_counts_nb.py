"""Bernoulli, multinomial and complement naive Bayes: parity with scikit-learn, additive
statistics, missing values, the linear form, bad input, sampling and sparse scale.

Parity is checked on scikit-learn's digits (8 x 8 images with pixel counts 0..16): the
multinomial and complement models on the counts, the Bernoulli model on the pixels
binarised at 4, each dense and as a CSR matrix.
"""

from __future__ import annotations

import tracemalloc
from functools import cache

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import datasets
from sklearn import naive_bayes as sk_nb

from bayesrule import BernoulliNB, ComplementNB, MultinomialNB
from bayesrule.likelihoods import Bernoulli, Complement, Multinomial
from bayesrule.likelihoods import count_family as counts
from bayesrule.stats import counts as count_stats

TOL = 1e-8


@cache
def digits():
    X, y = datasets.load_digits(return_X_y=True)
    X.setflags(write=False)
    return X, y


def pairs():
    """(name, bayesrule estimator, scikit-learn estimator) of the same model."""
    return [
        ("bernoulli", BernoulliNB(binarize=4.0), sk_nb.BernoulliNB(binarize=4.0)),
        (
            "bernoulli-a0.5",
            BernoulliNB(alpha=0.5, binarize=4.0),
            sk_nb.BernoulliNB(alpha=0.5, binarize=4.0),
        ),
        ("multinomial", MultinomialNB(), sk_nb.MultinomialNB()),
        ("multinomial-a0.1", MultinomialNB(alpha=0.1), sk_nb.MultinomialNB(alpha=0.1)),
        ("complement", ComplementNB(), sk_nb.ComplementNB()),  # at both defaults
        ("complement-norm", ComplementNB(norm=True), sk_nb.ComplementNB(norm=True)),
    ]


PAIRS = {name: (ours, theirs) for name, ours, theirs in pairs()}
FORMATS = ["dense", "csr"]


def test_complement_nb_decides_under_uniform_priors_unless_told():
    X, y = digits()
    keep = (y != 3) | (np.arange(len(y)) % 4 == 0)  # one class four times rarer
    X, y = X[keep], y[keep]
    assert ComplementNB().get_params()["priors"] == "uniform"
    uniform = ComplementNB().fit(X, y)
    np.testing.assert_allclose(
        uniform.predict_proba(X), sk_nb.ComplementNB().fit(X, y).predict_proba(X), atol=TOL
    )
    weighted = ComplementNB(priors="empirical").fit(X, y)
    shift = weighted.predict_joint_log_proba(X) - uniform.predict_joint_log_proba(X)
    np.testing.assert_allclose(
        shift - shift[:, :1],
        np.broadcast_to(np.log(weighted.class_count_ / weighted.class_count_[0]), shift.shape),
        atol=1e-9,
    )


def as_format(X, fmt):
    return sp.csr_matrix(X) if fmt == "csr" else np.asarray(X)


# ---------------------------------------------------------------------------- parity
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(PAIRS))
def test_equals_scikit_learn_on_digits(name, fmt):
    ours, theirs = (e.__class__(**e.get_params()) for e in PAIRS[name])
    X, y = digits()
    Xf = as_format(X, fmt)
    ours.fit(Xf, y)
    theirs.fit(Xf, y)
    np.testing.assert_allclose(ours.predict_proba(Xf), theirs.predict_proba(Xf), rtol=0, atol=TOL)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
    np.testing.assert_array_equal(ours.predict(Xf), theirs.predict(Xf))
    assert ours.predict(Xf).tolist() == theirs.predict(Xf).tolist()


@pytest.mark.parametrize("name", ["bernoulli", "multinomial", "complement-norm"])
def test_sample_weights_equal_scikit_learns(name):
    ours, theirs = (e.__class__(**e.get_params()) for e in PAIRS[name])
    X, y = digits()
    w = np.random.default_rng(0).uniform(0.0, 3.0, size=len(y))
    ours.fit(sp.csr_matrix(X), y, sample_weight=w)
    theirs.fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=TOL)
    np.testing.assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=1e-12)
    np.testing.assert_allclose(ours.class_count_, theirs.class_count_, rtol=1e-12)


def test_the_posterior_of_a_hand_computed_multinomial():
    """Seed 000's formula: theta = (N_cj + 1) / (N_c + d), joint = prior * prod theta^x."""
    X = np.array([[2, 1, 0], [3, 0, 1], [0, 1, 4], [1, 0, 3]], float)
    y = ["ham", "ham", "spam", "spam"]
    est = MultinomialNB().fit(X, y)
    theta = np.array([[6 / 10, 2 / 10, 2 / 10], [2 / 12, 2 / 12, 8 / 12]])
    np.testing.assert_allclose(np.exp(est.feature_log_prob_), theta, rtol=1e-14)
    x = np.array([1.0, 2.0, 1.0])
    joint = 0.5 * np.prod(theta**x, axis=1)
    np.testing.assert_allclose(est.predict_proba([x])[0], joint / joint.sum(), rtol=1e-13)


# ---------------------------------------------------------------------------- statistics add
def test_statistics_merge_and_record_observed_counts():
    X = np.array([[1.0, np.nan, 2.0], [0.0, 3.0, np.nan], [4.0, 1.0, 0.0]])
    y = np.array([0, 0, 1])
    w = np.array([2.0, 1.0, 0.5])
    s = count_stats.count_statistics(X, y, 2, w)
    np.testing.assert_array_equal(s.class_weight, [3.0, 0.5])
    np.testing.assert_array_equal(s.feature_sum, [[2.0, 3.0, 4.0], [2.0, 0.5, 0.0]])
    np.testing.assert_array_equal(s.observed, [[3.0, 1.0, 2.0], [0.5, 0.5, 0.5]])
    sparse = count_stats.count_statistics(sp.csr_array(X), y, 2, w)
    for field in ("class_weight", "feature_sum", "observed"):
        np.testing.assert_array_equal(getattr(sparse, field), getattr(s, field))
    merged = count_stats.count_statistics(X[:1], y[:1], 2, w[:1]).merge(
        count_stats.count_statistics(X[1:], y[1:], 2, w[1:])
    )
    np.testing.assert_array_equal(merged.observed, s.observed)
    with pytest.raises(ValueError, match="same classes and features"):
        s.merge(count_stats.count_statistics(X[:, :2], y, 2))


# ---------------------------------------------------------------------------- missing values
def binary_data(n=300, d=6, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    p = np.random.default_rng(42).uniform(0.1, 0.9, size=(3, d))
    return (rng.random((n, d)) < p[y]).astype(float), y


def count_data(n=300, d=6, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    rates = np.random.default_rng(43).gamma(2.0, 1.0, size=(3, d))
    return rng.poisson(rates[y]).astype(float), y


@pytest.mark.parametrize("fmt", FORMATS)
def test_bernoulli_missing_feature_is_the_model_without_it(fmt):
    """Training NaN in feature j only changes p_cj (estimated on the rows observing j);
    a NaN at prediction gives the posterior of the model fitted without feature j."""
    X, y = binary_data()
    Xm = X.copy()
    hole = np.random.default_rng(2).random(len(y)) < 0.3
    Xm[hole, 2] = np.nan
    est = BernoulliNB(binarize=None).fit(as_format(Xm, fmt), y)
    keep = [0, 1, 3, 4, 5]
    without = BernoulliNB(binarize=None).fit(X[:, keep], y)
    np.testing.assert_allclose(
        est.feature_log_prob_[:, keep], without.feature_log_prob_, rtol=1e-14
    )
    on_rows = BernoulliNB(binarize=None).fit(X[~hole][:, [2]], y[~hole])
    np.testing.assert_allclose(est.feature_log_prob_[:, [2]], on_rows.feature_log_prob_, rtol=1e-14)
    Xt, _ = binary_data(40, seed=3)
    Xq = Xt.copy()
    Xq[:, 2] = np.nan
    # same priors (est's class counts) so that only the likelihoods are compared
    np.testing.assert_allclose(
        est.predict_proba(as_format(Xq, fmt)),
        without.predict_proba(Xt[:, keep], priors=est.class_prior_),
        atol=1e-12,
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_multinomial_missing_count_drops_out(fmt):
    """A NaN count contributes nothing: the same posterior as the fitted model evaluated
    without that feature, and the statistics ignore it."""
    X, y = count_data()
    Xm = X.copy()
    Xm[::4, 1] = np.nan
    est = MultinomialNB().fit(as_format(Xm, fmt), y)
    zeroed = np.where(np.isnan(Xm), 0.0, Xm)
    np.testing.assert_array_equal(est.feature_count_, MultinomialNB().fit(zeroed, y).feature_count_)
    Xt, _ = count_data(30, seed=5)
    Xq = Xt.copy()
    Xq[:, 3] = np.nan
    L = est.log_likelihood(as_format(Xq, fmt))
    keep = [0, 1, 2, 4, 5]
    np.testing.assert_allclose(L, Xt[:, keep] @ est.feature_log_prob_[:, keep].T, rtol=1e-13)
    assert np.isfinite(est.predict_proba(as_format(Xq, fmt))).all()


@pytest.mark.parametrize("make", [BernoulliNB, MultinomialNB, ComplementNB])
def test_nan_in_sparse_data_equals_nan_in_dense(make):
    X, y = count_data()
    X[::3, 0] = np.nan
    X[1::5, 4] = np.nan
    dense, sparse = make().fit(X, y), make().fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.feature_count_, sparse.feature_count_)
    np.testing.assert_allclose(
        dense.predict_joint_log_proba(X),
        sparse.predict_joint_log_proba(sp.csr_matrix(X)),
        rtol=1e-13,
    )


# ---------------------------------------------------------------------------- linear form
def test_bernoulli_linear_form_on_binary_data():
    X, y = binary_data()
    est = BernoulliNB().fit(X, y)
    lin = X @ est.coef_.T + est.intercept_
    np.testing.assert_allclose(lin, est.predict_joint_log_proba(X), rtol=1e-13)
    p = np.exp(est.feature_log_prob_)
    np.testing.assert_allclose(est.coef_, np.log(p / (1 - p)), rtol=1e-12)
    np.testing.assert_allclose(
        est.intercept_, np.log(1 - p).sum(axis=1) + np.log(est.class_prior_), rtol=1e-12
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_multinomial_linear_form(fmt):
    X, y = digits()
    est = MultinomialNB().fit(as_format(X, fmt), y)
    np.testing.assert_array_equal(est.coef_, est.feature_log_prob_)
    np.testing.assert_allclose(est.intercept_, np.log(est.class_prior_), rtol=1e-15)
    lin = X @ est.coef_.T + est.intercept_
    np.testing.assert_allclose(lin, est.predict_joint_log_proba(as_format(X, fmt)), rtol=1e-13)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("make", [MultinomialNB, ComplementNB])
def test_negative_counts_name_the_feature(make, fmt):
    X, y = count_data()
    X[7, 4] = -2.0
    with pytest.raises(ValueError, match=r"feature 4 has the negative value -2\.0 \(row 7\)"):
        make().fit(as_format(X, fmt), y)


@pytest.mark.parametrize("fmt", FORMATS)
def test_binarize_none_refuses_non_binary_data(fmt):
    X, y = binary_data()
    X[3, 1] = 2.5
    with pytest.raises(ValueError, match=r"binarize=None.*feature 1 .*binarize=0\.0"):
        BernoulliNB(binarize=None).fit(as_format(X, fmt), y)
    est = BernoulliNB(binarize=None).fit(binary_data()[0], y)
    with pytest.raises(ValueError, match=r"binarize=None.*binarize=0\.0"):
        est.predict(as_format(X, fmt))


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"alpha": -1.0}, ValueError, "alpha must be a finite number >= 0"),
        ({"alpha": np.nan}, ValueError, "alpha must be a finite number >= 0"),
        ({"alpha": "one"}, TypeError, "alpha must be a number"),
        ({"alpha": True}, TypeError, "alpha must be a number"),
        ({"binarize": "half"}, TypeError, "binarize must be a finite number"),
    ],
)
def test_bad_parameters(params, error, match):
    X, y = binary_data()
    with pytest.raises(error, match=match):
        BernoulliNB(**params).fit(X, y)
    if "alpha" in params:
        with pytest.raises(error, match=match):
            MultinomialNB(**params).fit(X, y)


def test_bad_norm_and_negative_sparse_threshold():
    X, y = binary_data()
    with pytest.raises(TypeError, match="norm must be True or False"):
        ComplementNB(norm="yes").fit(X, y)
    with pytest.raises(ValueError, match="binarize=-0.5 is negative.*implicit zero"):
        BernoulliNB(binarize=-0.5).fit(sp.csr_matrix(X), y)
    dense = BernoulliNB(binarize=-0.5).fit(X - 1.0, y)  # dense data: any threshold
    np.testing.assert_allclose(
        dense.feature_count_, BernoulliNB(binarize=0.5).fit(X, y).feature_count_
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_alpha_zero_gives_ml_estimates_and_names_impossible_features(fmt):
    X = np.array([[1, 0, 0, 2], [2, 1, 0, 0], [0, 3, 0, 1], [0, 2, 0, 4]], float)
    y = np.array([0, 0, 1, 1])
    est = MultinomialNB(alpha=0).fit(as_format(X, fmt), y)
    np.testing.assert_allclose(np.exp(est.feature_log_prob_[0]), [3 / 6, 1 / 6, 0, 2 / 6])
    # a zero count of a zero-probability feature contributes 0 (never 0 * -inf = NaN)
    L = est.log_likelihood(as_format(np.array([[1.0, 1.0, 0.0, 0.0]]), fmt))
    np.testing.assert_allclose(L, [[np.log(3 / 6) + np.log(1 / 6), -np.inf]])
    P = est.predict_proba(as_format(np.array([[1.0, 1.0, 0.0, 0.0]]), fmt))
    np.testing.assert_array_equal(P, [[1.0, 0.0]])
    with pytest.raises(
        ValueError, match=r"feature 2 = 1, which has probability 0 in every class.*alpha > 0"
    ):
        est.predict(as_format(np.array([[1.0, 0.0, 1.0, 0.0]]), fmt))
    b = BernoulliNB(alpha=0, binarize=None).fit(as_format((X > 0) * 1.0, fmt), y)
    with pytest.raises(ValueError, match=r"Bernoulli: a sample has feature 2 = 1.*alpha > 0"):
        b.predict_proba(as_format(np.array([[1.0, 0.0, 1.0, 0.0]]), fmt))
    # feature 0 is always on in class 0: x_0 = 0 is impossible there, fine in class 1
    np.testing.assert_array_equal(b.predict_proba(np.array([[0.0, 1.0, 0.0, 1.0]])), [[0.0, 1.0]])


def test_alpha_zero_class_without_counts_waits_for_more_data():
    est = MultinomialNB(alpha=0)
    est.partial_fit(np.array([[1.0, 2.0]]), [0], classes=[0, 1])
    with pytest.raises(ValueError, match="no counts.*alpha > 0"):
        est.predict([[1.0, 1.0]])
    est.partial_fit(np.array([[3.0, 1.0]]), [1])
    np.testing.assert_allclose(np.exp(est.feature_log_prob_), [[1 / 3, 2 / 3], [3 / 4, 1 / 4]])
    with pytest.raises(ValueError, match="no counts"):
        MultinomialNB(alpha=0).fit(np.array([[1.0, 2.0], [0.0, 0.0]]), [0, 1])
    with pytest.raises(ValueError, match="occurs only in class 1 .*alpha > 0"):
        ComplementNB(alpha=0).fit(np.array([[1.0, 0.0], [1.0, 3.0]]), [0, 1])


# ---------------------------------------------------------------------------- sampling
def test_bernoulli_samples_have_the_model_frequencies():
    X, y = binary_data(400)
    est = BernoulliNB().fit(X, y)
    Xs, ys = est.sample(30_000, random_state=0)
    assert set(np.unique(Xs).tolist()) <= {0.0, 1.0}
    p = np.exp(est.feature_log_prob_)
    for c, label in enumerate(est.classes_):
        rows = Xs[ys == label]
        se = np.sqrt(p[c] * (1 - p[c]) / len(rows))
        assert np.all(np.abs(rows.mean(axis=0) - p[c]) < 5 * se)


@pytest.mark.parametrize("make", [MultinomialNB, ComplementNB])
def test_multinomial_samples_have_the_model_frequencies(make):
    X, y = count_data(400)
    est = make().fit(X, y)
    Xs, ys = est.sample(20_000, random_state=1)
    stats = est.likelihood_.stats_
    smoothed = stats.feature_sum + est.alpha
    theta = smoothed / smoothed.sum(axis=1, keepdims=True)  # the class's own multinomial
    for c, label in enumerate(est.classes_):
        rows = Xs[ys == label]
        total = rows.sum()
        se = np.sqrt(theta[c] * (1 - theta[c]) / total)
        assert np.all(np.abs(rows.sum(axis=0) / total - theta[c]) < 5 * se)
        mean_length = stats.feature_sum[c].sum() / stats.class_weight[c]
        length = rows.sum(axis=1)
        assert abs(length.mean() - mean_length) < 5 * np.sqrt(mean_length / len(rows))


def test_parameter_counts():
    X, y = count_data()
    assert MultinomialNB().fit(X, y).likelihood_.n_parameters() == 3 * 5
    assert BernoulliNB().fit(X, y).likelihood_.n_parameters() == 3 * 6


# ---------------------------------------------------------------------------- summary
def test_summary_lists_probabilities_per_class():
    X, y = count_data(d=25)
    text = MultinomialNB().fit(X, np.array(["a", "b", "c"])[y]).summary()
    assert "Multinomial, alpha=1.0" in text and "class b" in text
    assert "(5 more features)" in text
    lines = (
        Bernoulli(binarize=1.0).fit(X, y, 3).describe(["a", "b", "c"], [f"f{j}" for j in range(25)])
    )
    assert lines[0].startswith(
        "Bernoulli, alpha=1.0, binarize=1.0: P(x_j = 1 | class); features f0"
    )
    assert "Complement" in ComplementNB().fit(X, y).summary()


# ---------------------------------------------------------------------------- sparse scale
@cache
def wide_sparse(n=20_000, d=50_000, per_row=100, n_classes=5):
    rng = np.random.default_rng(7)
    y = rng.integers(0, n_classes, size=n)
    q = rng.gamma(0.3, 1.0, size=(n_classes, d))
    q /= q.sum(axis=1, keepdims=True)
    cdf = np.cumsum(q, axis=1)
    lengths = rng.poisson(per_row, size=n)
    indptr = np.r_[0, np.cumsum(lengths)]
    cols = np.empty(indptr[-1], dtype=np.int32)
    owner = np.repeat(y, lengths)
    u = rng.random(indptr[-1])
    for c in range(n_classes):
        sel = owner == c
        cols[sel] = np.minimum(np.searchsorted(cdf[c], u[sel]), d - 1)
    X = sp.csr_matrix((rng.integers(1, 4, size=indptr[-1]).astype(float), cols, indptr), (n, d))
    X.sum_duplicates()
    return X, y


def _refuse_dense(*args, **kwargs):
    raise AssertionError("a sparse matrix was densified")


@pytest.mark.parametrize("make", [MultinomialNB, BernoulliNB, ComplementNB])
def test_wide_sparse_data_stay_sparse(make, monkeypatch):
    X, y = wide_sparse()
    for cls in (sp.csr_matrix, sp.csr_array):
        monkeypatch.setattr(cls, "toarray", _refuse_dense)
        monkeypatch.setattr(cls, "todense", _refuse_dense)
    tracemalloc.start()
    try:
        est = make().fit(X, y)
        P = est.predict_proba(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    monkeypatch.undo()
    assert peak < 100 * 2**20  # the dense matrix alone would be 8 GB
    rows = slice(0, 50)
    dense = X[rows].toarray()
    np.testing.assert_allclose(P[rows], est.predict_proba(dense), atol=1e-12)
    onehot = np.eye(5)[y]
    expected = onehot.T @ (X > 0).astype(float) if make is BernoulliNB else onehot.T @ X
    np.testing.assert_array_equal(est.feature_count_, np.asarray(expected))


def test_threaded_counting_and_evaluation_equal_one_thread(monkeypatch):
    rng = np.random.default_rng(0)
    X = sp.random(
        4000,
        300,
        density=0.1,
        format="csr",
        random_state=1,
        data_rvs=lambda k: rng.integers(1, 5, k),
    )
    X.data[::97] = np.nan
    y = rng.integers(0, 5, size=4000)
    w = rng.uniform(0, 2, size=len(y))
    results = {}
    for threads in (1, 3):
        for module in (counts, count_stats):  # counting and evaluation
            monkeypatch.setattr(module, "n_threads", lambda t=threads: t)
            chunk = "SCORE_THREAD_NNZ" if module is counts else "THREAD_CHUNK_NNZ"
            monkeypatch.setattr(module, chunk, 1 << 12)
            monkeypatch.setattr(module, "BLOCK_BYTES", 1 << 16)
        monkeypatch.setattr(count_stats, "CHUNK_NNZ", 1 << 12)
        fitted = [m().fit(X, y, sample_weight=w) for m in (MultinomialNB, BernoulliNB)]
        results[threads] = [
            (f.feature_count_, f.likelihood_.stats_.observed, f.predict_proba(X)) for f in fitted
        ]
    for one, many in zip(results[1], results[3], strict=True):
        np.testing.assert_allclose(one[0], many[0], rtol=1e-12)
        np.testing.assert_allclose(one[1], many[1], rtol=1e-12)
        np.testing.assert_allclose(one[2], many[2], atol=1e-12)


def test_float32_input():
    X, y = digits()
    a = MultinomialNB().fit(X.astype(np.float32), y)
    b = MultinomialNB().fit(X, y)
    np.testing.assert_allclose(
        a.predict_proba(X.astype(np.float32)), b.predict_proba(X), atol=1e-12
    )
    c = BernoulliNB(binarize=4.0).fit(sp.csr_matrix(X.astype(np.float32)), y)
    np.testing.assert_allclose(
        c.feature_log_prob_, BernoulliNB(binarize=4.0).fit(X, y).feature_log_prob_
    )


def test_families_directly_and_their_statistics():
    X, y = count_data()
    m = Multinomial().fit(X, y, n_classes=3)
    c = Complement().fit(X, y, n_classes=3)
    assert m.stats_ is not c.stats_
    np.testing.assert_array_equal(m.feature_count_, c.feature_count_)
    assert m.log_likelihood(X[:4]).shape == (4, 3)


def test_impossible_in_different_features_per_class_names_each():
    X = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 1.0]])
    est = MultinomialNB(alpha=0).fit(X, [0, 1])
    with pytest.raises(
        ValueError,
        match=r"probability 0 in 2 classes \(class 0: feature 1, class 1: "
        r"feature 0\).*alpha > 0",
    ):
        est.predict([[1.0, 1.0, 0.0]])


def test_bernoulli_alpha_zero_with_missing_values():
    X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    est = BernoulliNB(alpha=0, binarize=None).fit(X, [0, 0, 1, 1])
    # feature 0 is always on in class 0 and off in class 1: missing, it decides nothing
    L = est.log_likelihood([[np.nan, 1.0], [np.nan, np.nan], [1.0, np.nan]])
    np.testing.assert_allclose(L, [[np.log(0.5), np.log(0.5)], [0.0, 0.0], [0.0, -np.inf]])
    np.testing.assert_allclose(est.predict_proba([[1.0, np.nan]]), [[1.0, 0.0]])


def test_in_a_pipeline_after_count_vectorizer():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    docs = ["a great game", "the game was won", "a close election", "the vote was close"]
    labels = ["sports", "sports", "politics", "politics"]
    ours = make_pipeline(CountVectorizer(), MultinomialNB()).fit(docs, labels)
    theirs = make_pipeline(CountVectorizer(), sk_nb.MultinomialNB()).fit(docs, labels)
    new = ["what a great game", "an election vote"]
    np.testing.assert_allclose(ours.predict_proba(new), theirs.predict_proba(new), atol=TOL)
    assert ours.predict(new).tolist() == ["sports", "politics"]


@pytest.mark.parametrize("make", [MultinomialNB, ComplementNB])
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_counts_are_refused_at_prediction_too(make, sparse):
    X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0], [2.0, 1.0, 0.0], [0.0, 2.0, 2.0]])
    est = make().fit(X, [0, 1, 0, 1])
    bad = np.array([[1.0, -2.0, 0.0]])
    with pytest.raises(ValueError, match="Negative values in data.*feature 1"):
        est.predict(sp.csr_array(bad) if sparse else bad)
