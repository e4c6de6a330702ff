"""Contract properties of every naive Bayes estimator (DESIGN.md, principle 9).

Each runs on data of its own kind (binary, counts, categories, continuous, mixed):
posteriors are probabilities, fit equals summed partial_fit, integer weights equal
duplicated rows, a missing feature drops out of the product (exactly the marginal), a row
with every feature missing gets the prior, decisions follow the loss, samples reproduce
the model, BIC/AIC count its parameters, and thousands of features do not underflow.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from registry import NAIVE_BAYES, assert_same_model
from scipy.integrate import quad

from bayesrule import LossMatrix

NAMES = list(NAIVE_BAYES)
LABELS = np.array(["ant", "bee", "cat"])
SEEDS_LOSS = np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 2.0], [1.0, 1.0, 0.0]])


@cache
def _data(name, n, seed):
    X, y = NAIVE_BAYES[name][1](n, seed)
    X.setflags(write=False)
    return X, y


def train(name):
    return _data(name, 400, 0)


def holdout(name):
    return _data(name, 300, 1)


def make(name, **params):
    est = NAIVE_BAYES[name][0]()
    return est.set_params(**params) if params else est


def kind(name):
    return NAIVE_BAYES[name][2]


def with_missing(X, rows, cols):
    """A copy of X with the given cells missing (NaN, or None in object tables)."""
    X = np.array(X, dtype=X.dtype)
    X[rows, cols] = None if X.dtype == object else np.nan
    return X


# ---------------------------------------------------------------------------- posteriors
@pytest.mark.parametrize("name", NAMES)
def test_posteriors_are_probabilities_and_decide_by_argmax(name):
    X, y = train(name)
    Xt, yt = holdout(name)
    est = make(name).fit(X, y)
    P = est.predict_proba(Xt)
    assert P.shape == (len(Xt), 3) and np.all(P >= 0) and np.all(P <= 1)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    logP = est.predict_log_proba(Xt)
    with np.errstate(divide="ignore"):
        finite = P > 1e-300
        np.testing.assert_allclose(logP[finite], np.log(P[finite]), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xt), est.classes_[np.argmax(P, axis=1)])
    if name != "ComplementNB":  # a score, not a density: no evidence (tested below)
        np.testing.assert_allclose(
            est.log_evidence(Xt)[:, None] + logP,
            est.predict_joint_log_proba(Xt),
            rtol=1e-12,
            atol=1e-9,
        )
    assert est.score(Xt, yt) > 0.55  # learnable classes (chance is below 0.45)


# ---------------------------------------------------------------------------- statistics add
@pytest.mark.parametrize("name", NAMES)
def test_fit_equals_summed_partial_fit(name):
    X, y = train(name)
    Xt, _ = holdout(name)
    whole = make(name).fit(X, y)
    parts = make(name)
    for rows in np.array_split(np.arange(len(X)), 3):
        parts.partial_fit(X[rows], y[rows], classes=LABELS)
    assert_same_model(parts, whole, Xt)


@pytest.mark.parametrize("name", NAMES)
def test_integer_weights_equal_duplicated_rows(name):
    X, y = train(name)
    Xt, _ = holdout(name)
    w = np.random.default_rng(3).integers(0, 4, size=len(X))
    w[:3] = 1  # keep every class present
    weighted = make(name).fit(X, y, sample_weight=w)
    repeated = make(name).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_same_model(weighted, repeated, Xt, tol=1e-9)


# ---------------------------------------------------------------------------- missing values
@pytest.mark.parametrize("name", NAMES)
def test_a_missing_feature_drops_out_of_the_product(name):
    """ln p(x|c) is a sum of per-feature terms: removing feature j subtracts its term,
    whatever the other features are, and removing every feature leaves 0."""
    X, y = train(name)
    Xt, _ = holdout(name)
    est = make(name).fit(X, y)
    Xt = Xt[:40]
    L = est.log_likelihood(Xt)
    d = Xt.shape[1]
    terms = np.stack([L - est.log_likelihood(with_missing(Xt, slice(None), j)) for j in range(d)])
    np.testing.assert_allclose(terms.sum(axis=0), L, rtol=1e-10, atol=1e-9)
    pair = est.log_likelihood(with_missing(Xt, slice(None), [0, 1]))
    np.testing.assert_allclose(pair, L - terms[0] - terms[1], rtol=1e-10, atol=1e-9)
    # every feature missing: the prior is the posterior
    empty = with_missing(Xt[:5], slice(None), slice(None))
    np.testing.assert_array_equal(est.log_likelihood(empty), 0.0)
    np.testing.assert_allclose(est.predict_proba(empty), np.tile(est.class_prior_, (5, 1)))


def _marginal_of_feature(est, x, j, kind_of_data):
    """sum over the values of feature j (or the integral) of p(x|c) / p(x without j | c)."""
    rest = est.log_likelihood(with_missing(x[None], 0, j))[0]
    if kind_of_data == "binary":
        values = [0.0, 1.0]
    elif kind_of_data == "categorical":
        values = list(est.categories_[j])
    else:
        out = []
        for c in range(3):

            def density(t, c=c):
                z = np.array(x[None], dtype=x.dtype)
                z[0, j] = t
                return np.exp(est.log_likelihood(z)[0, c] - rest[c])

            out.append(quad(density, -30, 30, points=[0.0], limit=200)[0])
        return np.array(out)
    total = np.zeros(3)
    for v in values:
        z = np.array(x[None], dtype=x.dtype)
        z[0, j] = v
        total += np.exp(est.log_likelihood(z)[0] - rest)
    return total


@pytest.mark.parametrize(
    "name", [n for n in NAMES if kind(n) in ("binary", "categorical", "continuous")]
)
def test_a_missing_feature_is_exactly_marginalised(name):
    """p(x without j | c) equals the sum (integral) of p(x|c) over the values of x_j."""
    X, y = train(name)
    est = make(name).fit(X, y)
    x = holdout(name)[0][0]
    for j in range(2):
        np.testing.assert_allclose(_marginal_of_feature(est, x, j, kind(name)), 1.0, rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_fit_with_missing_values(name):
    """Cells missing in training leave a model that predicts, with finite posteriors, and
    the observed values alone decide the statistics: dropping a row's only observed
    feature equals giving that row weight zero for that feature's statistics."""
    X, y = train(name)
    Xt, _ = holdout(name)
    rng = np.random.default_rng(5)
    rows = rng.choice(len(X), size=60, replace=False)
    cols = rng.integers(0, X.shape[1], size=60)
    Xm = with_missing(X, rows, cols)
    est = make(name).fit(Xm, y)
    P = est.predict_proba(with_missing(Xt, [0, 1], [0, 1]))
    assert np.all(np.isfinite(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    # a row with every feature missing adds to the class counts but to no feature statistic
    blank = with_missing(X[:1], 0, slice(None))
    more = make(name).fit(np.concatenate([Xm, blank]), np.concatenate([y, y[:1]]))
    la, lb = est.log_likelihood(Xt), more.log_likelihood(Xt)
    np.testing.assert_allclose(la, lb, rtol=1e-10, atol=1e-10)
    assert more.class_count_.sum() == est.class_count_.sum() + 1


# ---------------------------------------------------------------------------- decisions
@pytest.mark.parametrize("name", NAMES)
def test_reject_rate_falls_as_the_reject_cost_rises(name):
    X, y = train(name)
    Xt, _ = holdout(name)
    P = make(name).fit(X, y).predict_proba(Xt)
    rates = []
    for t in (0.05, 0.2, 0.4, 0.7):
        pred = make(name, loss=LossMatrix.with_reject(3, t)).fit(X, y).predict(Xt)
        rejected = P.max(axis=1) < 1 - t
        np.testing.assert_array_equal(pred == "reject", rejected)
        rates.append(rejected.mean())
    assert rates[0] > rates[1] > rates[2] >= rates[3] == 0.0


@pytest.mark.parametrize("name", NAMES)
def test_custom_loss_decides_by_least_risk(name):
    X, y = train(name)
    Xt, _ = holdout(name)
    est = make(name, loss=SEEDS_LOSS).fit(X, y)
    R = est.risk(Xt)
    np.testing.assert_allclose(R, est.predict_proba(Xt) @ SEEDS_LOSS.T, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(est.predict(Xt), est.classes_[np.argmin(R, axis=1)])


# ---------------------------------------------------------------------------- the generative model
@pytest.mark.parametrize("name", [n for n in NAMES if n != "ComplementNB"])
def test_a_model_refitted_on_its_samples_agrees_with_it(name):
    X, y = train(name)
    Xt, _ = holdout(name)
    est = make(name).fit(X, y)
    Xs, ys = est.sample(40_000, random_state=0)
    assert Xs.shape == (40_000, X.shape[1]) and set(ys.tolist()) <= set(LABELS.tolist())
    freq = np.array([np.mean(ys == c) for c in est.classes_])
    np.testing.assert_allclose(freq, est.class_prior_, atol=5 * np.sqrt(0.25 / 40_000))
    again = make(name).fit(Xs, ys)
    diff = np.abs(again.predict_proba(Xt) - est.predict_proba(Xt))
    # a kernel density refitted on its own draws is smoothed twice: close, not equal
    assert diff.mean() < 0.01 and np.quantile(diff, 0.99) < 0.06, (diff.mean(), diff.max())
    a, b = est.sample(30, random_state=4), est.sample(30, random_state=4)
    np.testing.assert_array_equal(a[1], b[1])


def test_complement_scores_have_no_evidence_bic_or_aic():
    X, y = train("ComplementNB")
    est = make("ComplementNB").fit(X, y)
    for call in (lambda: est.log_evidence(X), lambda: est.bic(X, y), lambda: est.aic(X, y)):
        with pytest.raises(TypeError, match="without a normalised density"):
            call()


@pytest.mark.parametrize("name", [n for n in NAMES if n != "ComplementNB"])
def test_bic_and_aic_count_parameters(name):
    X, y = train(name)
    est = make(name).fit(X, y)
    k = est.likelihood_.n_parameters() + 2  # and two free priors
    ll = est.predict_joint_log_proba(X)[np.arange(len(y)), np.searchsorted(est.classes_, y)].sum()
    assert est.bic(X, y) == pytest.approx(-2 * ll + k * np.log(len(y)), rel=1e-12)
    assert est.aic(X, y) == pytest.approx(-2 * ll + 2 * k, rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_summary_names_every_class(name):
    X, y = train(name)
    text = make(name).fit(X, y).summary()
    for label in LABELS:
        assert label in text


WIDE = {"BernoulliNB": "binary", "MultinomialNB": "counts", "CategoricalNB": "categorical"}


@pytest.mark.parametrize("name", list(WIDE))
def test_thousands_of_features_do_not_underflow(name):
    rng = np.random.default_rng(0)
    n, d = 200, 4000
    y = LABELS[rng.integers(0, 3, size=n)]
    if WIDE[name] == "binary":
        X = (rng.random((n, d)) < 0.3).astype(float)
    elif WIDE[name] == "counts":
        X = rng.poisson(1.0, size=(n, d)).astype(float)
    else:
        X = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, size=(n, d))]
    est = make(name).fit(X, y)
    L = est.log_likelihood(X[:20])
    assert np.all(np.isfinite(L)) and np.all(L < -700)  # exp() would underflow
    P = est.predict_proba(X[:20])
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(np.isfinite(est.predict_log_proba(X[:20])))


@pytest.mark.parametrize("name", NAMES)
def test_saved_and_loaded_models_predict_the_same(name, tmp_path):
    from bayesrule import io as io

    X, y = train(name)
    Xt, _ = holdout(name)
    est = make(name).fit(X, y)
    io.save(est, tmp_path / "model.bayes")
    back = io.load(tmp_path / "model.bayes")
    assert type(back) is type(est) and back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.predict_proba(Xt), est.predict_proba(Xt))
    back.partial_fit(X[:50], y[:50])  # the statistics came back too
    est.partial_fit(X[:50], y[:50])
    np.testing.assert_array_equal(back.predict_proba(Xt), est.predict_proba(Xt))
