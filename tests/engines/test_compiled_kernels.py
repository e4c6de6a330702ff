"""The compiled (numba) kernels of the sparse count families against their NumPy/SciPy
fallbacks (``BAYESRULE_NO_NUMBA=1``): the same numbers, the same errors."""

import numba  # noqa: F401  (a test extra: the compiled path must be the one tested)
import numpy as np
import pytest
import scipy.sparse as sp

from bayesrule import BernoulliNB, ComplementNB, MultinomialNB
from bayesrule._engines import sparse as kernels
from bayesrule.stats.counts import count_statistics


@pytest.fixture(autouse=True)
def compiled_for_any_size(monkeypatch):
    """The compiled path for the small matrices of these tests too (by default a matrix
    of fewer than ``COMPILED_FROM`` non-zeros takes the fallback)."""
    monkeypatch.setattr(kernels, "COMPILED_FROM", 0)


@pytest.fixture
def fallback(monkeypatch):
    """A function running ``call`` with the kernels switched off."""

    def run(call):
        with monkeypatch.context() as m:
            m.setenv(kernels.DISABLE_ENV, "1")
            assert not kernels.enabled()
            return call()

    return run


def counts(n, d, n_classes, seed, nan=False, density=0.05):
    rng = np.random.default_rng(seed)
    X = sp.random_array((n, d), density=density, rng=rng, format="csr")
    X.data = np.ceil(X.data * 5)
    if nan:
        X.data[rng.random(X.nnz) < 0.05] = np.nan
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)
    return X, y


def test_the_kernels_are_in_use():
    assert kernels.enabled()


def test_small_matrices_take_the_fallback_with_the_same_numbers(monkeypatch):
    """No compilation for a matrix SciPy scores at once (a first fit on a few rows
    compiled for seconds): below ``COMPILED_FROM`` non-zeros the fallback runs."""
    X, y = counts(60, 40, 3, 5)
    compiled = MultinomialNB().fit(X, y).predict_joint_log_proba(X)
    monkeypatch.setattr(kernels, "COMPILED_FROM", X.nnz + 1)
    assert kernels.enabled() and not kernels.enabled(X.nnz)
    calls = []
    monkeypatch.setattr(kernels, "_compiled", lambda: calls.append(1))
    small = MultinomialNB().fit(X, y).predict_joint_log_proba(X)
    assert not calls  # the compiled kernels were not asked for
    np.testing.assert_array_equal(small, compiled)


@pytest.mark.parametrize("nan", [False, True])
def test_scores_equal_the_sparse_product(fallback, nan):
    X, _ = counts(500, 300, 7, 0, nan=nan)
    W_t = np.random.default_rng(1).normal(size=(300, 7))
    compiled = kernels.csr_times_t(X, W_t)
    expected = (sp.csr_array((np.nan_to_num(X.data), X.indices, X.indptr), X.shape) @ W_t).T
    np.testing.assert_array_equal(compiled, expected)  # same terms, same order
    np.testing.assert_array_equal(fallback(lambda: kernels.csr_times_t(X, W_t)), compiled)


@pytest.mark.parametrize("values", ["counts", 0.5, None])
@pytest.mark.parametrize("weighted", [False, True])
def test_class_sums_equal_the_fallback(fallback, monkeypatch, values, weighted):
    X, y = counts(3000, 400, 5, 2, nan=True)
    if values is None:
        X.data = np.where(np.isnan(X.data), np.nan, 1.0)
    w = np.random.default_rng(3).random(3000) * 3 if weighted else None
    # enough non-zeros per worker that both paths use their threads
    monkeypatch.setattr("bayesrule.stats.counts.THREAD_CHUNK_NNZ", 1000)
    compiled = count_statistics(X, y, 5, w, values=values)
    plain = fallback(lambda: count_statistics(X, y, 5, w, values=values))
    for a, b in [
        (compiled.feature_sum, plain.feature_sum),
        (compiled.observed, plain.observed),
        (compiled.class_weight, plain.class_weight),
    ]:
        if weighted:  # the fallback's threads add partial sums in another grouping
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=0)
        else:
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("model", [MultinomialNB(), BernoulliNB(), ComplementNB()])
def test_models_equal_the_fallback(fallback, model):
    X, y = counts(2000, 150, 4, 4, nan=True)
    w = np.arange(2000) % 3 + 1.0
    fitted = model.fit(X, y, sample_weight=w)
    proba, labels = fitted.predict_proba(X), fitted.predict(X)
    plain = fallback(lambda: type(model)().fit(X, y, sample_weight=w))
    np.testing.assert_array_equal(fitted.feature_log_prob_, plain.feature_log_prob_)
    np.testing.assert_allclose(fallback(lambda: plain.predict_proba(X)), proba, rtol=1e-13)
    np.testing.assert_array_equal(fallback(lambda: plain.predict(X)), labels)


@pytest.mark.parametrize("where", ["fit", "predict"])
def test_negative_counts_name_their_row_on_both_paths(fallback, where):
    X, y = counts(400, 50, 3, 5)
    X = X.tolil()
    X[237, 11] = -2.0
    X = X.tocsr()
    model = MultinomialNB()
    if where == "predict":
        model.fit(abs(X), y)
        call = lambda: model.predict(X)  # noqa: E731
    else:
        call = lambda: MultinomialNB().fit(X, y)  # noqa: E731
    message = r"feature 11 has the negative value -2\.0 \(row 237\)"
    with pytest.raises(ValueError, match=message):
        call()
    with pytest.raises(ValueError, match=message):
        fallback(call)


@pytest.mark.parametrize("method", ["predict_proba", "predict"])
def test_many_row_blocks_in_threads_name_the_right_row(monkeypatch, method):
    """Prediction checks each block in its worker: the row is counted from X's start."""
    X, y = counts(5000, 40, 3, 6, density=0.3)
    model = MultinomialNB().fit(X, y)
    X = X.tolil()
    X[4321, 7] = -1.0
    X = X.tocsr()
    monkeypatch.setattr("bayesrule.likelihoods.count_family.BLOCK_BYTES", 20_000)
    monkeypatch.setattr("bayesrule.likelihoods.count_family.SCORE_THREAD_NNZ", 100)
    with pytest.raises(ValueError, match=r"\(row 4321\)"):
        getattr(model, method)(X)


@pytest.mark.parametrize("signs", ["<= 0 (float32 sums)", "mixed (float64 sums)"])
@pytest.mark.parametrize("nan", [False, True])
def test_best_class_is_the_argmax_of_the_scores(nan, signs):
    X, _ = counts(600, 80, 6, 7, nan=nan)
    rng = np.random.default_rng(8)
    W_t = -rng.random((80, 6)) + (0.3 if signs.startswith("mixed") else 0.0)
    assert (kernels.weights32(W_t)[0].dtype == np.float32) == signs.startswith("<=")
    W_t[:, 4] = W_t[:, 1]  # classes 1 and 4 tie on every row: the first one wins
    intercept = rng.normal(size=6)
    intercept[4] = intercept[1]
    log_prior = np.log([0.1, 0.3, 0.2, 1.0, 0.3, 0.1])
    log_prior[3] = -np.inf  # class 3 impossible
    joint = (kernels.csr_times_t(X, W_t) + intercept[:, None]) + log_prior[:, None]
    out = np.empty(600, dtype=np.intp)
    low, bad, again = kernels.csr_best_class(X, W_t, intercept, log_prior, out)
    np.testing.assert_array_equal(out, np.argmax(joint, axis=0))
    assert not bad and low == np.nanmin(X.data) and 4 not in out and 3 not in out
    assert again >= np.count_nonzero(out == 1) > 0  # ties of classes 1 and 4: summed again


def test_best_class_decides_as_float64_where_float32_cannot():
    """Two classes whose weights differ below float32's resolution: the rows they lead
    are summed again in float64, which picks the later, slightly higher class."""
    X, _ = counts(400, 60, 3, 13, density=0.2)
    W_t = -np.random.default_rng(14).random((60, 3)) - 0.5
    W_t[:, 2] = W_t[:, 0] * (1 - 1e-12)  # class 2 scores a hair above class 0
    W_t[:, 1] -= 1.0  # class 1 never leads
    out = np.empty(400, dtype=np.intp)
    _, _, again = kernels.csr_best_class(X, W_t, np.zeros(3), np.zeros(3), out)
    expected = np.argmax(kernels.csr_times_t(X, W_t), axis=0)
    np.testing.assert_array_equal(out, expected)
    assert set(out[np.diff(X.indptr) > 0]) == {2} and again == 400


@pytest.mark.parametrize(
    "case, value", [("inf value", np.inf), ("NaN weight", None), ("no finite joint", None)]
)
def test_best_class_flags_what_it_cannot_vouch_for(case, value):
    X, _ = counts(50, 10, 3, 9, density=0.5)
    W_t, prior = -np.ones((10, 3)), np.zeros(3)
    if case == "inf value":
        X.data[7] = value
    elif case == "NaN weight":
        W_t[X.indices[0], 2] = np.nan
    else:
        prior[:] = -np.inf
    out = np.empty(50, dtype=np.intp)
    assert kernels.csr_best_class(X, W_t, np.zeros(3), prior, out)[1]


@pytest.mark.parametrize("model", [MultinomialNB(), ComplementNB()])
def test_predict_takes_the_class_of_highest_posterior(fallback, model):
    X, y = counts(3000, 200, 5, 10, nan=True, density=0.1)
    fitted = model.fit(X, y)
    for priors in (None, [0.5, 0.2, 0.1, 0.1, 0.1], [0.0, 0.25, 0.25, 0.25, 0.25]):
        labels = fitted.predict(X, priors=priors)
        proba = fitted.predict_proba(X, priors=priors)
        np.testing.assert_array_equal(labels, fitted.classes_[np.argmax(proba, axis=1)])
        plain = fallback(lambda p=priors: fitted.predict(X, priors=p))
        np.testing.assert_array_equal(plain, labels)
    assert 0 not in labels  # a zero prior is never the decision


@pytest.mark.parametrize("method", ["fit", "predict", "predict_proba"])
def test_a_column_index_out_of_range_is_refused(method):
    X, y = counts(300, 20, 3, 11, density=0.3)
    model = MultinomialNB().fit(X, y)
    bad = X.copy()
    bad.indices[5] = 10_000_000  # a malformed matrix: must not read or write past W
    call = (lambda: MultinomialNB().fit(bad, y)) if method == "fit" else None
    call = call or (lambda: getattr(model, method)(bad))
    with pytest.raises(ValueError, match=r"not a valid CSR matrix: a column index is outside"):
        call()


@pytest.mark.parametrize("method", ["fit", "predict", "predict_proba"])
def test_infinite_counts_get_the_validation_message(method):
    X, y = counts(300, 20, 3, 12, density=0.3)
    model = MultinomialNB().fit(X, y)
    X.data[100] = np.inf
    call = (lambda: MultinomialNB().fit(X, y)) if method == "fit" else None
    call = call or (lambda: getattr(model, method)(X))
    with pytest.raises(ValueError, match="Input X contains infinity"):
        call()


@pytest.mark.parametrize(
    "indptr", [[0, 2_000_000_000, 2, 3], [0, 3, 1, 3], [0, 1, 2, 4], [1, 1, 2, 3]]
)
@pytest.mark.parametrize("method", ["fit", "predict", "predict_proba"])
def test_malformed_row_starts_are_refused_before_any_read(method, indptr):
    X, y = counts(300, 5, 3, 15, density=0.5)
    model = MultinomialNB().fit(X, y)
    bad = sp.csr_array((np.ones(3), np.array([0, 1, 2]), np.array([0, 1, 2, 3])), shape=(3, 5))
    bad.indptr = np.array(indptr, dtype=bad.indices.dtype)  # past scipy's light check
    labels = np.array([0, 1, 2])
    call = (lambda: MultinomialNB().fit(bad, labels)) if method == "fit" else None
    call = call or (lambda: getattr(model, method)(bad))
    with pytest.raises(ValueError, match=r"row starts \(indptr\)|index pointer"):
        call()


def test_few_rows_are_scored_with_the_float64_weights_and_many_with_float32():
    W_t = -np.random.default_rng(16).random((1000, 4))
    assert kernels.weights32(W_t, nnz=50)[0].dtype == np.float64  # no copy for one row
    assert kernels.weights32(W_t, nnz=10_000)[0].dtype == np.float32


def test_ordinary_rows_are_decided_by_the_float32_sums():
    """The certificate must not send most rows to the float64 pass (a bound that is
    always too wide would still give right labels, at twice the cost)."""
    X, y = counts(5000, 300, 8, 17, density=0.1)
    model = MultinomialNB().fit(X, y)
    out = np.empty(5000, dtype=np.intp)
    W_t, intercept = model.likelihood_._linear_weights(X)
    _, _, again = kernels.csr_best_class(X, W_t, intercept, np.log(model.class_prior_), out)
    assert again < 50  # of 5000
    np.testing.assert_array_equal(model.classes_[out], model.predict(X))
