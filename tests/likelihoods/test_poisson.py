"""PoissonNB and the Poisson family: numbers by hand from scipy.stats.poisson, the
smoothing formula, missing values, sparse input, additive statistics (partial_fit,
weights, Dask), saved models, bad input, the command line and scikit-learn's checks."""

from __future__ import annotations

import subprocess
import sys

import dask.array as da
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from registry import assert_same_model, check_cases
from scipy.special import gammaln, logsumexp
from scipy.stats import poisson

from bayesrule import MixedNB, PoissonNB
from bayesrule.io import load, save
from bayesrule.likelihoods import Poisson
from bayesrule.stats.counts import CountStats

LABELS = np.array(["ant", "bee", "cat"])
RATES = np.array([[0.2, 3.0, 1.0, 0.0, 5.0], [2.5, 0.5, 1.0, 0.4, 0.1], [1.0, 1.0, 6.0, 2.0, 0.0]])


def counts(n=300, seed=0, rates=RATES):
    """Integer counts (as floats) drawn Poisson from ``rates`` per class."""
    rng = np.random.default_rng(seed)
    y = rng.choice(len(rates), size=n, p=[0.5, 0.3, 0.2])
    y[: len(rates)] = np.arange(len(rates))  # every class present
    return rng.poisson(rates[y]).astype(float), LABELS[y]


def by_hand(rates, prior, X):
    """Log-likelihoods, joints and posteriors from scipy.stats.poisson.logpmf; NaN
    entries are left out of the sums."""
    logpmf = poisson.logpmf(np.nan_to_num(X)[:, None, :], rates[None, :, :])  # (n, C, d)
    loglik = np.where(np.isnan(X)[:, None, :], 0.0, logpmf).sum(axis=2)
    joint = loglik + np.log(prior)
    evidence = logsumexp(joint, axis=1)
    return loglik, joint, evidence, np.exp(joint - evidence[:, None])


def weighted_rates(X, y, classes, alpha=0.0, w=None):
    """``(S_cj + alpha) / N_cj`` directly from the rows (NaN not observed)."""
    w = np.ones(len(y)) if w is None else w
    out = []
    for c in classes:
        rows, wc = X[y == c], w[y == c]
        observed = ~np.isnan(rows)
        S = (np.nan_to_num(rows) * wc[:, None]).sum(axis=0)
        N = (observed * wc[:, None]).sum(axis=0)
        out.append((S + alpha) / N)
    return np.array(out)


# ---------------------------------------------------------------------------- the numbers
@pytest.mark.parametrize("alpha", [0.0, 1.0, 0.37])
def test_posteriors_equal_scipy_by_hand(alpha):
    X, y = counts(400, 0, RATES + 0.05)  # every rate > 0: alpha=0 stays finite
    Xt, _ = counts(60, 1, RATES + 0.05)
    clf = PoissonNB(alpha=alpha, priors=[0.2, 0.5, 0.3]).fit(X, y)
    np.testing.assert_allclose(clf.rate_, weighted_rates(X, y, LABELS, alpha), rtol=1e-14)
    loglik, joint, evidence, post = by_hand(clf.rate_, np.array([0.2, 0.5, 0.3]), Xt)
    np.testing.assert_allclose(clf.log_likelihood(Xt), loglik, rtol=1e-12)
    np.testing.assert_allclose(clf.predict_joint_log_proba(Xt), joint, rtol=1e-12)
    np.testing.assert_allclose(clf.log_evidence(Xt), evidence, rtol=1e-12)
    np.testing.assert_allclose(clf.predict_proba(Xt), post, rtol=1e-12, atol=1e-300)
    log_post = joint - evidence[:, None]  # absolute error: log-posteriors near 0 are tiny
    np.testing.assert_allclose(clf.predict_log_proba(Xt), log_post, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), LABELS[np.argmax(post, axis=1)])
    # ln x! is shared by the classes: the relative log-likelihood leaves it out
    rel = clf.likelihood_.relative_log_likelihood(Xt)
    log_factorials = np.broadcast_to(gammaln(Xt + 1).sum(axis=1)[:, None], rel.shape)
    np.testing.assert_allclose(rel - loglik, log_factorials, rtol=1e-12, atol=1e-12)


def test_ml_rates_are_the_weighted_means():
    X, y = counts(500, 2)
    w = np.random.default_rng(3).uniform(0.1, 3.0, size=len(y))
    clf = PoissonNB(alpha=0).fit(X, y, sample_weight=w)
    for c, label in enumerate(LABELS):
        rows = y == label
        np.testing.assert_allclose(
            clf.rate_[c], np.average(X[rows], axis=0, weights=w[rows]), rtol=1e-13
        )
        np.testing.assert_allclose(clf.feature_count_[c], w[rows] @ X[rows], rtol=1e-13)
    np.testing.assert_allclose(clf.class_count_, [w[y == c].sum() for c in LABELS], rtol=1e-13)


def test_alpha_smoothing_formula():
    X = np.array([[2, 0, 1], [4, 0, np.nan], [0, 1, 3], [1, 0, 5], [3, 2, 0]], float)
    y = np.array([0, 0, 1, 1, 1])
    like = Poisson(alpha=2.5).fit(X, y, n_classes=2)
    # class 0: S = [6, 0, 1], N = [2, 2, 1] (one value missing); class 1: S = [4, 3, 8], N = 3
    expected = np.array([[8.5 / 2, 2.5 / 2, 3.5 / 1], [6.5 / 3, 5.5 / 3, 10.5 / 3]])
    np.testing.assert_allclose(like.rate_, expected, rtol=1e-15)
    np.testing.assert_array_equal(like.feature_count_, [[6, 0, 1], [4, 3, 8]])
    assert like.n_parameters() == 6


def test_a_zero_rate_gives_probability_zero_not_nan():
    X = np.array([[2, 0, 1], [4, 0, 2], [0, 1, 3], [1, 3, 5]], float)
    clf = PoissonNB(alpha=0).fit(X, ["a", "a", "b", "b"])
    assert clf.rate_[0, 1] == 0.0 and not np.isnan(clf.rate_).any()
    Xt = np.array([[1, 0, 2], [1, 2, 2]], float)
    ll = clf.log_likelihood(Xt)
    assert not np.isnan(ll).any()
    np.testing.assert_allclose(ll, by_hand(clf.rate_, np.ones(2) / 2, Xt)[0], rtol=1e-12)
    assert ll[1, 0] == -np.inf and np.isfinite(ll[0]).all()
    np.testing.assert_array_equal(clf.predict_proba(Xt)[1], [0.0, 1.0])
    assert clf.predict(Xt)[1] == "b"
    for Xs in (sp.csr_array(Xt), Xt):  # sparse and dense: the same -inf, the same classes
        np.testing.assert_array_equal(clf.log_likelihood(Xs), ll)
        np.testing.assert_array_equal(clf.predict(Xs), clf.predict(Xt))
    # a count impossible in every class: refused, naming the feature and alpha
    both = PoissonNB(alpha=0).fit(np.c_[X, np.zeros(4)], ["a", "a", "b", "b"])
    with pytest.raises(ValueError, match=r"feature 3 = 1, which has probability 0.*alpha"):
        both.predict([[1, 0, 2, 1]])


def test_non_integer_counts_use_the_gamma_continuation():
    clf = PoissonNB().fit([[0.5, 2.0], [1.5, 0.0], [3.0, 1.0], [2.0, 4.0]], [0, 0, 1, 1])
    x = np.array([[1.5, 0.25]])
    lam = clf.rate_
    expected = (x * np.log(lam) - lam - gammaln(x + 1)).sum(axis=1)
    np.testing.assert_allclose(clf.log_likelihood(x)[0], expected, rtol=1e-13)
    whole = np.array([[2.0, 3.0]])  # at whole numbers it is the Poisson pmf
    np.testing.assert_allclose(
        clf.log_likelihood(whole)[0], poisson.logpmf(whole, lam).sum(axis=1), rtol=1e-13
    )


# ---------------------------------------------------------------------------- missing values
def test_missing_values_are_marginalised_as_dropping_the_feature():
    X, y = counts(300, 4)
    Xt, _ = counts(40, 5)
    full = PoissonNB().fit(X, y)
    Xm = Xt.copy()
    Xm[:, 2] = np.nan
    dropped = PoissonNB().fit(np.delete(X, 2, axis=1), y)
    Xd = np.delete(Xt, 2, axis=1)
    np.testing.assert_allclose(full.log_likelihood(Xm), dropped.log_likelihood(Xd), rtol=1e-12)
    np.testing.assert_allclose(full.predict_proba(Xm), dropped.predict_proba(Xd), rtol=1e-12)
    # a row with every value missing: log-likelihood 0, posterior = prior
    empty = np.full((1, X.shape[1]), np.nan)
    np.testing.assert_array_equal(full.log_likelihood(empty), np.zeros((1, 3)))
    np.testing.assert_allclose(full.predict_proba(empty)[0], full.class_prior_, rtol=1e-15)


def test_missing_values_in_training_use_the_observed_rows():
    X, y = counts(300, 6)
    rng = np.random.default_rng(7)
    X[rng.random(X.shape) < 0.2] = np.nan
    Xt, _ = counts(50, 8)
    Xt[rng.random(Xt.shape) < 0.3] = np.nan
    clf = PoissonNB(alpha=0.5).fit(X, y)
    np.testing.assert_allclose(clf.rate_, weighted_rates(X, y, LABELS, 0.5), rtol=1e-13)
    loglik, _, _, post = by_hand(clf.rate_, clf.class_prior_, Xt)
    np.testing.assert_allclose(clf.log_likelihood(Xt), loglik, rtol=1e-12)
    np.testing.assert_allclose(clf.predict_proba(Xt), post, rtol=1e-12)


# ---------------------------------------------------------------------------- sparse input
@pytest.mark.parametrize("numba", [True, False], ids=["compiled", "scipy"])
@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_sparse_csr_equals_dense(numba, alpha, monkeypatch):
    if not numba:
        monkeypatch.setenv("BAYESRULE_NO_NUMBA", "1")
    X, y = counts(400, 9)
    Xt, _ = counts(120, 10)
    Xt[3, 1] = Xt[7, 4] = np.nan  # stored NaN in the CSR matrix: missing
    Xt[11] = np.nan  # a row with every value missing
    dense = PoissonNB(alpha=alpha).fit(X, y)
    for make in (sp.csr_array, sp.csr_matrix):
        lazy = PoissonNB(alpha=alpha).fit(make(X), y)
        np.testing.assert_array_equal(lazy.rate_, dense.rate_)
        S = make(Xt)  # the NaN are stored entries: missing
        assert np.isnan(S.data).sum() == 2 + Xt.shape[1]
        for method in ("log_likelihood", "predict_joint_log_proba", "predict_proba"):
            got, want = getattr(lazy, method)(S), getattr(dense, method)(Xt)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(lazy.predict(S), dense.predict(Xt))
        np.testing.assert_array_equal(lazy.log_likelihood(S)[11], 0.0)  # all missing
        complete = np.nan_to_num(Xt)  # the linear fast path (no missing values)
        np.testing.assert_array_equal(lazy.predict(make(complete)), dense.predict(complete))


# ---------------------------------------------------------------------------- additive statistics
def test_fit_equals_summed_partial_fit():
    X, y = counts(450, 11)
    Xt, _ = counts(80, 12)
    w = np.random.default_rng(13).uniform(0.5, 2.0, size=len(y))
    whole = PoissonNB(alpha=0.3).fit(X, y, sample_weight=w)
    parts = PoissonNB(alpha=0.3)
    for rows in np.array_split(np.arange(len(y)), 4):
        parts.partial_fit(X[rows], y[rows], classes=LABELS, sample_weight=w[rows])
    assert_same_model(parts, whole, Xt, tol=1e-12)
    np.testing.assert_allclose(parts.rate_, whole.rate_, rtol=1e-13)


def test_partial_fit_waits_for_a_class_it_has_not_seen():
    X, y = counts(200, 14)
    clf = PoissonNB().partial_fit(X[y != "cat"], y[y != "cat"], classes=LABELS)
    with pytest.raises(ValueError, match="class 'cat'"):
        clf.predict(X)
    clf.partial_fit(X[y == "cat"], y[y == "cat"])
    assert_same_model(clf, PoissonNB().fit(X, y), X, tol=1e-12)


def test_integer_sample_weights_equal_duplicated_rows():
    X, y = counts(200, 15)
    Xt, _ = counts(60, 16)
    w = np.random.default_rng(17).integers(0, 4, size=len(y))
    w[:3] = 1  # every class keeps a row
    weighted = PoissonNB().fit(X, y, sample_weight=w)
    repeated = PoissonNB().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_same_model(weighted, repeated, Xt, tol=1e-12)


def test_dask_fit_equals_in_memory_fit():
    X, y = counts(600, 18)
    X[np.random.default_rng(19).random(X.shape) < 0.05] = np.nan
    Xt, _ = counts(150, 20)
    w = np.random.default_rng(21).integers(1, 4, size=len(y)).astype(float)
    Xd = da.from_array(X, chunks=(97, X.shape[1]))
    lazy = PoissonNB().fit(
        Xd, da.from_array(y, chunks=150), sample_weight=da.from_array(w, chunks=200)
    )
    eager = PoissonNB().fit(X, y, sample_weight=w)
    assert_same_model(lazy, eager, Xt)
    proba = lazy.predict_proba(da.from_array(Xt, chunks=(64, Xt.shape[1])))
    np.testing.assert_allclose(proba.compute(), eager.predict_proba(Xt), rtol=0, atol=1e-12)


def test_statistics_are_the_count_families_and_merge():
    X, y = counts(100, 22)
    idx = np.searchsorted(LABELS, y)
    like = Poisson()
    a = like.statistics(X[:40], idx[:40], 3)
    b = like.statistics(X[40:], idx[40:], 3)
    assert isinstance(a, CountStats)
    merged = Poisson().set_statistics(a.merge(b))
    np.testing.assert_allclose(merged.rate_, Poisson().fit(X, idx, 3).rate_, rtol=1e-14)


# ---------------------------------------------------------------------------- saved models
def test_save_load_round_trip(tmp_path):
    X, y = counts(300, 23)
    Xt, _ = counts(90, 24)
    Xt[0, 0] = np.nan
    clf = PoissonNB(alpha=0.5, priors="uniform").fit(X, y)
    save(clf, tmp_path / "poisson.model")
    back = load(tmp_path / "poisson.model")
    assert type(back) is PoissonNB and type(back.likelihood_) is Poisson
    assert back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.rate_, clf.rate_)
    np.testing.assert_array_equal(back.predict(Xt), clf.predict(Xt))
    np.testing.assert_array_equal(back.predict_proba(Xt), clf.predict_proba(Xt))
    np.testing.assert_array_equal(back.log_likelihood(Xt), clf.log_likelihood(Xt))
    more, labels = counts(50, 25)  # the statistics came back too: it keeps learning
    back.partial_fit(more, labels)
    whole = PoissonNB(alpha=0.5, priors="uniform").fit(np.r_[X, more], np.r_[y, labels])
    assert_same_model(back, whole, Xt, tol=1e-12)


# ---------------------------------------------------------------------------- bad input
def test_negative_counts_are_refused_at_fit_and_predict():
    X, y = counts(60, 26)
    bad = X.copy()
    bad[5, 2] = -1.0
    with pytest.raises(ValueError, match=r"Negative values in data.*feature 2.*row 5"):
        PoissonNB().fit(bad, y)
    with pytest.raises(ValueError, match=r"Negative values in data.*feature 2"):
        PoissonNB().fit(sp.csr_array(bad), y)
    clf = PoissonNB().fit(X, y)
    for Xs in (bad, sp.csr_array(bad)):
        with pytest.raises(ValueError, match=r"Negative values in data.*feature 2"):
            clf.predict(Xs)


def test_a_feature_never_observed_in_a_class_is_refused():
    X, y = counts(60, 27)
    X[y == "bee", 1] = np.nan
    with pytest.raises(ValueError, match=r"feature 1 of X has no observed value.*class 'bee'"):
        PoissonNB().fit(X, y)
    X[:, 1] = np.nan  # a column of NaN only
    with pytest.raises(ValueError, match=r"feature 1 of X has no observed value"):
        PoissonNB().fit(X, y)


def test_wrong_shapes_and_parameters_are_refused():
    X, y = counts(60, 28)
    clf = PoissonNB().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="samples"):
        PoissonNB().fit(X, y[:-1])
    with pytest.raises(ValueError, match="2D"):
        PoissonNB().fit(X[0], y[:1])
    with pytest.raises(ValueError, match="sample_weight"):
        PoissonNB().fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="alpha"):
        PoissonNB(alpha=-1).fit(X, y)
    with pytest.raises(TypeError, match="alpha"):
        PoissonNB(alpha="1").fit(X, y)


# ---------------------------------------------------------------------------- the model
def test_sample_moments_match_the_rates():
    X, y = counts(600, 29)
    clf = PoissonNB(alpha=0.1).fit(X, y)
    Xs, ys = clf.sample(30000, random_state=0)
    assert Xs.shape == (30000, 5) and set(ys) <= set(LABELS)
    assert np.array_equal(Xs, np.round(Xs)) and Xs.min() >= 0
    for c, label in enumerate(LABELS):
        rows = Xs[ys == label]
        np.testing.assert_allclose(rows.mean(axis=0), clf.rate_[c], atol=0.1)
        np.testing.assert_allclose(rows.var(axis=0), clf.rate_[c], atol=0.25)


def test_bic_summary_and_linear_form():
    X, y = counts(300, 30)
    clf = PoissonNB().fit(X, y)
    joint = clf.predict_joint_log_proba(X)[np.arange(len(y)), np.searchsorted(LABELS, y)]
    k = 3 * 5 + 2  # the rates and two free priors
    assert clf.n_parameters() == k
    np.testing.assert_allclose(clf.bic(X, y), -2 * joint.sum() + k * np.log(len(y)), rtol=1e-12)
    text = clf.summary()
    assert "PoissonNB (Poisson likelihood)" in text and "rate lambda_cj" in text
    assert f"{clf.rate_[0, 1]:.6f}" in text and "class cat:" in text
    like = clf.likelihood_
    linear = X @ like.linear_coef().T + like.linear_intercept()
    np.testing.assert_allclose(linear, like.relative_log_likelihood(X), rtol=1e-12)


def test_a_poisson_block_in_mixed_nb_equals_poisson_nb():
    X, y = counts(200, 31)
    mixed = MixedNB(features=[(Poisson(alpha=0.5), list(range(5)))]).fit(X, y)
    assert_same_model(mixed, PoissonNB(alpha=0.5).fit(X, y), X, tol=1e-12)


# ---------------------------------------------------------------------------- the command
def test_the_command_fits_and_predicts_poisson_nb(tmp_path):
    X, y = counts(120, 32)
    Xt, _ = counts(30, 33)
    columns = [f"n{j}" for j in range(X.shape[1])]
    train = pd.DataFrame(X.astype(int), columns=columns).assign(insect=y)
    train.to_csv(tmp_path / "train.csv", index=False)
    pd.DataFrame(Xt.astype(int), columns=columns).to_csv(tmp_path / "test.csv", index=False)

    def command(*args):
        done = subprocess.run(
            [sys.executable, "-m", "bayesrule", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    out = command(
        "fit", "train.csv", "--target", "insect", "--model", "poisson-nb", "-o", "p.model"
    )
    assert out.startswith("Fitted poisson-nb (PoissonNB) on 120 rows of train.csv: 5 features")
    command("predict", "p.model", "test.csv", "--proba", "-o", "pred.csv")
    pred = pd.read_csv(tmp_path / "pred.csv")
    api = PoissonNB().fit(train[columns], y)
    test = pd.DataFrame(Xt, columns=columns)
    assert pred["decision"].tolist() == api.predict(test).tolist()
    proba = pred[[f"P({c})" for c in LABELS]].to_numpy()
    # the file keeps 6 significant digits
    np.testing.assert_allclose(proba, api.predict_proba(test), rtol=5e-6, atol=1e-300)


# ---------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("estimator, check", check_cases([PoissonNB()]))
def test_sklearn_checks_at_defaults(estimator, check):
    check(estimator)
