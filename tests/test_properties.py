"""Contract properties over every estimator of the registry (DESIGN.md, principle 9).

Posteriors are probabilities, fit equals summed partial_fit, integer weights equal
duplicated rows, nothing underflows with thousands of features, decisions follow the loss
(Chow's reject rule included), samples reproduce the parameters, BIC/AIC count what they
should, and priors and ``from_parameters`` keep the classes in order.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from registry import ESTIMATORS
from scipy.stats import multivariate_normal

from bayesrule import (
    GaussianNB,
    LinearDiscriminant,
    LossMatrix,
    NearestMean,
    QuadraticDiscriminant,
)

NAMES = list(ESTIMATORS)
LABELS = np.array(["ant", "bee", "cat"])
SEEDS_LOSS = np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 2.0], [1.0, 1.0, 0.0]])


@cache
def _blobs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Three overlapping classes in 4 features, unequal sizes and covariances."""
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, 1.0, 0.0, -1.0], [0.5, 2.5, 1.0, 0.0]])
    y = rng.choice(3, size=n, p=[0.45, 0.35, 0.2])
    X = np.empty((n, 4))
    for c in range(3):
        A = np.eye(4) * (0.8 + 0.3 * c) + 0.3 * rng.normal(size=(4, 4))
        X[y == c] = means[c] + rng.standard_normal(((y == c).sum(), 4)) @ A.T
    X.setflags(write=False)
    labels = LABELS[y]
    labels.setflags(write=False)
    return X, labels


def train():
    return _blobs(300, 0)


def holdout():
    return _blobs(400, 1)


def make(name, **params):
    est = ESTIMATORS[name]()
    return est.set_params(**params) if params else est


def params_of(est) -> dict[str, np.ndarray]:
    """Every fitted parameter that must agree between two equal fits."""
    like = est.likelihood_
    return {
        "class_count_": est.class_count_,
        "class_prior_": est.class_prior_,
        "means_": like.means_,
        "covariances_": np.asarray(like.covariances_),
    }


def assert_same_fit(a, b, X, tol=1e-10):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    pa, pb = params_of(a), params_of(b)
    for key in pa:
        desired = pb[key]
        scale = max(float(np.max(np.abs(desired))), 1e-300)
        np.testing.assert_allclose(pa[key], desired, rtol=tol, atol=tol * scale, err_msg=key)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=tol)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


# ---------------------------------------------------------------------------- posteriors


@pytest.mark.parametrize("name", NAMES)
def test_posteriors_are_probabilities_and_decide_by_argmax(name):
    X, y = train()
    Xt, _ = holdout()
    est = make(name).fit(X, y)
    P = est.predict_proba(Xt)
    assert P.shape == (len(Xt), 3)
    assert np.all(P >= 0) and np.all(P <= 1)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    logP = est.predict_log_proba(Xt)
    with np.errstate(divide="ignore"):
        logp_of_p = np.log(P)
    finite = np.isfinite(logp_of_p)
    assert finite.mean() > 0.9
    np.testing.assert_allclose(logP[finite], logp_of_p[finite], rtol=1e-12, atol=1e-12)
    assert np.all(logP[~finite] < -700)  # underflowed in P, still a number in log space
    np.testing.assert_array_equal(est.predict(Xt), est.classes_[np.argmax(P, axis=1)])
    np.testing.assert_array_equal(est.classes_, LABELS)
    assert 0.6 < est.score(Xt, holdout()[1]) < 1.0  # overlapping, learnable classes


# ---------------------------------------------------------------------------- partial_fit


@pytest.mark.parametrize("name", NAMES)
def test_fit_equals_summed_partial_fit(name):
    X, y = train()
    whole = make(name).fit(X, y)
    parts = make(name)
    for start, stop in [(0, 17), (17, 160), (160, 300)]:  # uneven batches
        parts.partial_fit(X[start:stop], y[start:stop], classes=LABELS if start == 0 else None)
    assert_same_fit(parts, whole, holdout()[0])


@pytest.mark.parametrize("name", NAMES)
def test_partial_fit_with_a_batch_lacking_a_class(name):
    X, y = train()
    first, rest = X[:100], X[100:]
    y_first, y_rest = y[:100], y[100:]
    middle = y_rest != "bee"
    batches = [
        (first, y_first),
        (rest[middle][:80], y_rest[middle][:80]),  # no "bee" at all
        (
            np.concatenate([rest[middle][80:], rest[~middle]]),
            np.concatenate([y_rest[middle][80:], y_rest[~middle]]),
        ),
    ]
    assert "bee" not in set(batches[1][1])
    parts = make(name)
    for i, (Xb, yb) in enumerate(batches):
        parts.partial_fit(Xb, yb, classes=["cat", "ant", "bee"] if i == 0 else None)
    Xall = np.concatenate([b[0] for b in batches])
    yall = np.concatenate([b[1] for b in batches])
    assert_same_fit(parts, make(name).fit(Xall, yall), holdout()[0])


# ---------------------------------------------------------------------------- weights


@pytest.mark.parametrize("name", NAMES)
def test_integer_weights_equal_duplicated_rows(name):
    X, y = train()
    w = np.random.default_rng(3).integers(1, 4, size=len(y))
    weighted = make(name).fit(X, y, sample_weight=w)
    duplicated = make(name).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_same_fit(weighted, duplicated, holdout()[0])


@pytest.mark.parametrize("name", NAMES)
def test_zero_weights_equal_dropped_rows(name):
    X, y = train()
    w = (np.random.default_rng(4).random(len(y)) < 0.7).astype(float)
    weighted = make(name).fit(X, y, sample_weight=w)
    dropped = make(name).fit(X[w > 0], y[w > 0])
    assert_same_fit(weighted, dropped, holdout()[0])


# ---------------------------------------------------------------------------- many features


def _wide(d: int, n_train: int, n_test: int, seed: int = 0):
    """Three classes whose means differ by N(0, 0.3^2) per feature; unit variances."""
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 0.3, size=(3, d))
    y = rng.integers(0, 3, size=n_train + n_test)
    X = means[y] + rng.standard_normal((n_train + n_test, d))
    return X[:n_train], LABELS[y[:n_train]], X[n_train:], LABELS[y[n_train:]]


# expected ln p(x|true class) per feature for unit-variance features: -(ln(2 pi) + 1) / 2
PER_FEATURE = -0.5 * (np.log(2 * np.pi) + 1.0)

WIDE = {
    # name: (estimator, d, whether the fitted variances are close to 1 per feature)
    "GaussianNB": (lambda: GaussianNB(), 5000, True),
    "NearestMean": (lambda: NearestMean(), 5000, True),
    # LDA at d=5000, n=400 takes ~5 s (Cholesky and inverse of a 5000 x 5000 matrix),
    # so the fast test uses d=2000; d=5000 runs under the slow mark.
    "LinearDiscriminant": (lambda: LinearDiscriminant(reg_covar=1.0), 2000, False),
}


def _check_wide(make_est, d, near_one):
    X, y, Xt, yt = _wide(d, 400, 300)

    est = make_est().fit(X, y)
    P = est.predict_proba(Xt)
    assert np.all(np.isfinite(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xt), yt)  # well separated in d dimensions
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], yt)

    ll = est.log_likelihood(Xt)
    assert np.all(np.isfinite(ll))
    own = ll[np.arange(len(yt)), np.searchsorted(est.classes_, yt)]
    assert np.all(own < -700)  # exp() of it would underflow: log space is needed
    if near_one:
        np.testing.assert_allclose(own, d * PER_FEATURE, rtol=0.05)
    else:
        assert np.all((own > 2.0 * d * PER_FEATURE) & (own < 0.5 * d * PER_FEATURE))
    assert np.all(np.isfinite(est.predict_log_proba(Xt)))
    assert np.all(np.isfinite(est.log_evidence(Xt)))


@pytest.mark.parametrize("name", list(WIDE))
def test_many_features_do_not_underflow(name):
    _check_wide(*WIDE[name])


@pytest.mark.slow
def test_lda_with_5000_features_does_not_underflow():
    _check_wide(lambda: LinearDiscriminant(reg_covar=1.0), 5000, False)


# ---------------------------------------------------------------------------- decisions


def _int_labels(y):
    return np.searchsorted(LABELS, y) * 10 + 5  # 5, 15, 25


@pytest.mark.parametrize("labels", ["str", "int"])
@pytest.mark.parametrize("name", NAMES)
def test_reject_option_follows_chows_rule(name, labels):
    X, y = train()
    Xt, _ = holdout()
    if labels == "int":
        y = _int_labels(y)
    reject = "reject" if labels == "str" else -1
    base = make(name).fit(X, y)
    P = base.predict_proba(Xt)
    pmax = P.max(axis=1)
    argmax = base.classes_[P.argmax(axis=1)]
    rates = []
    for t in (0.05, 0.2, 0.5):
        est = make(name, loss=LossMatrix.with_reject(3, t)).fit(X, y)
        assert est.reject_label_ == reject
        np.testing.assert_allclose(est.predict_proba(Xt), P, rtol=0, atol=1e-15)
        pred = est.predict(Xt)
        rejected = pmax < 1 - t
        assert 0 < rejected.sum() < len(Xt), t  # the test set has both kinds
        assert np.all(pred[rejected] == reject)
        np.testing.assert_array_equal(pred[~rejected].astype(argmax.dtype), argmax[~rejected])
        assert not np.any(pred[~rejected] == reject)
        rates.append(rejected.mean())
        assert np.mean(pred == reject) == rejected.mean()
    assert rates[0] > rates[1] > rates[2]


@pytest.mark.parametrize("name", NAMES)
def test_reject_rate_falls_as_the_reject_cost_rises(name):
    X, y = train()
    Xt, _ = holdout()
    rates = []
    for t in np.linspace(0.0, 1.0, 21):
        if t == 0:  # rejecting for free: the loss matrix warns about the free action
            with pytest.warns(UserWarning, match="costs nothing"):
                loss = LossMatrix.with_reject(3, t)
        else:
            loss = LossMatrix.with_reject(3, t)
        est = make(name, loss=loss).fit(X, y)
        rates.append(np.mean(est.predict(Xt) == "reject"))
        if t >= 1 - 1 / 3:
            assert rates[-1] == 0.0, t
    assert np.all(np.diff(rates) <= 0), rates
    assert rates[0] > 0.5  # zero cost: reject all but the (numerically) certain
    for t in (2 / 3, 0.9, 1.0, 5.0):  # t >= 1 - 1/C: never reject
        est = make(name, loss=LossMatrix.with_reject(3, t)).fit(X, y)
        assert not np.any(est.predict(Xt) == "reject"), t


@pytest.mark.parametrize("name", NAMES)
def test_custom_loss_decides_by_least_risk(name):
    X, y = train()
    Xt, _ = holdout()
    est = make(name, loss=SEEDS_LOSS).fit(X, y)
    P = est.predict_proba(Xt)
    R = est.risk(Xt)
    np.testing.assert_allclose(R, P @ SEEDS_LOSS.T, rtol=1e-14, atol=1e-15)
    pred = est.predict(Xt)
    np.testing.assert_array_equal(pred, est.classes_[np.argmin(P @ SEEDS_LOSS.T, axis=1)])
    zero_one = est.classes_[np.argmax(P, axis=1)]
    assert np.any(pred != zero_one)  # the loss changes some decisions
    # a reject row given as part of a (C + 1, C) matrix
    L = np.vstack([SEEDS_LOSS, [0.4, 0.4, 0.4]])
    est = make(name, loss=L).fit(X, y)
    R = est.risk(Xt)
    np.testing.assert_allclose(R, P @ L.T, rtol=1e-14, atol=1e-15)
    actions = np.array([*LABELS, "reject"])
    np.testing.assert_array_equal(est.predict(Xt), actions[np.argmin(R, axis=1)])


# ---------------------------------------------------------------------------- sampling


@pytest.mark.parametrize("name", NAMES)
def test_sample_moments_match_parameters(name):
    X, y = train()
    est = make(name).fit(X, y)
    n = 200_000
    Xs, ys = est.sample(n, random_state=0)
    assert Xs.shape == (n, 4) and ys.shape == (n,)
    assert set(ys.tolist()) <= set(LABELS.tolist())
    like = est.likelihood_
    means, covs = like.means_, like.full_covariances()
    z = 5.0  # standard errors allowed per statistic (about 100 statistics, seeded)
    for k, c in enumerate(est.classes_):
        p = est.class_prior_[k]
        freq = np.mean(ys == c)
        assert abs(freq - p) < z * np.sqrt(p * (1 - p) / n), (c, freq, p)
        Xc = Xs[ys == c]
        nc = len(Xc)
        S = covs[k]
        se_mean = np.sqrt(np.diag(S) / nc)
        assert np.all(np.abs(Xc.mean(axis=0) - means[k]) < z * se_mean), c
        # Var(S_jl) = (S_jl^2 + S_jj S_ll) / n for Gaussian data
        se_cov = np.sqrt((S**2 + np.outer(np.diag(S), np.diag(S))) / nc)
        assert np.all(np.abs(np.cov(Xc.T, bias=True) - S) < z * se_cov), c


def test_sample_is_reproducible():
    X, y = train()
    est = make("QuadraticDiscriminant").fit(X, y)
    a, b = est.sample(50, random_state=7), est.sample(50, random_state=7)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


# ---------------------------------------------------------------------------- BIC / AIC


def _covariance_parameters(est, C, d):
    cov = est._make_likelihood().covariance
    per = {
        "full": C * d * (d + 1) // 2,
        "tied": d * (d + 1) // 2,
        "diag": C * d,
        "spherical": C,
        "tied_diag": d,
        "tied_spherical": 1,
    }
    return per[cov]


@pytest.mark.parametrize("priors", [None, "uniform"])
@pytest.mark.parametrize("name", NAMES)
def test_bic_and_aic_count_parameters(name, priors):
    X, y = train()
    est = make(name, priors=priors).fit(X, y)
    n, d = X.shape
    C = 3
    k = C * d + _covariance_parameters(est, C, d) + (C - 1 if priors is None else 0)
    joint = est.predict_joint_log_proba(X)
    ll = joint[np.arange(n), np.searchsorted(est.classes_, y)].sum()
    np.testing.assert_allclose(est.bic(X, y), -2 * ll + k * np.log(n), rtol=1e-12)
    np.testing.assert_allclose(est.aic(X, y), -2 * ll + 2 * k, rtol=1e-12)


def test_qda_bic_by_hand():
    X = np.array(
        [[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [0.5, 1.5], [1.5, 0.0],
         [4.0, 4.0], [5.0, 6.0], [6.0, 4.5], [5.5, 5.0], [4.5, 6.5], [7.0, 5.5]]
    )  # fmt: skip
    y = np.array(["a"] * 5 + ["b"] * 6)
    n, d, C = 11, 2, 2
    ll = 0.0
    for c in ("a", "b"):
        Xc = X[y == c]
        dens = multivariate_normal(Xc.mean(axis=0), np.cov(Xc.T, bias=True))
        ll += dens.logpdf(Xc).sum() + len(Xc) * np.log(len(Xc) / n)
    k = C * d + C * d * (d + 1) // 2 + (C - 1)
    assert k == 11
    qda = QuadraticDiscriminant().fit(X, y)
    np.testing.assert_allclose(qda.bic(X, y), -2 * ll + k * np.log(n), rtol=1e-12)
    np.testing.assert_allclose(qda.aic(X, y), -2 * ll + 2 * k, rtol=1e-12)
    # known priors are not estimated: C - 1 fewer parameters, ln P(w) = ln 1/2
    qda_u = QuadraticDiscriminant(priors="uniform").fit(X, y)
    ll_u = ll - sum(np.log((y == c).mean()) * (y == c).sum() for c in "ab") + n * np.log(0.5)
    np.testing.assert_allclose(qda_u.bic(X, y), -2 * ll_u + (k - 1) * np.log(n), rtol=1e-12)


def test_bic_prefers_lda_when_the_truth_shares_a_covariance():
    rng = np.random.default_rng(5)
    n, d = 5000, 4
    A = np.eye(d) + 0.4 * rng.normal(size=(d, d))
    y = rng.integers(0, 3, size=n)
    X = np.array([[0, 0, 0, 0], [2, 0, 1, 0], [0, 2, 0, 1]], float)[y]
    X = X + rng.standard_normal((n, d)) @ A.T
    lda = LinearDiscriminant().fit(X, y)
    qda = QuadraticDiscriminant().fit(X, y)
    assert qda.bic(X, y) > lda.bic(X, y) + 50
    # QDA nests LDA: its likelihood is higher, so only the penalty decides
    assert qda.aic(X, y) - 2 * 20 < lda.aic(X, y)


# ---------------------------------------------------------------------------- priors, classes


@pytest.mark.parametrize("name", NAMES)
def test_priors_as_uniform_list_and_dict_agree(name):
    X, y = train()
    Xt, _ = holdout()
    forms = {
        "uniform": "uniform",
        "list": [1 / 3, 1 / 3, 1 / 3],
        "array": np.full(3, 1 / 3),
        "dict": {"cat": 1 / 3, "ant": 1 / 3, "bee": 1 / 3},
    }
    fitted = {k: make(name, priors=v).fit(X, y) for k, v in forms.items()}
    ref = fitted["uniform"]
    np.testing.assert_allclose(ref.class_prior_, 1 / 3, rtol=1e-15)
    for key, est in fitted.items():
        np.testing.assert_allclose(est.class_prior_, ref.class_prior_, rtol=1e-15, err_msg=key)
        np.testing.assert_allclose(est.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-15)
        np.testing.assert_array_equal(est.predict(Xt), ref.predict(Xt))

    skewed_list = make(name, priors=[0.6, 0.3, 0.1]).fit(X, y)
    skewed_dict = make(name, priors={"bee": 0.3, "cat": 0.1, "ant": 0.6}).fit(X, y)
    np.testing.assert_allclose(skewed_list.class_prior_, [0.6, 0.3, 0.1], rtol=1e-15)
    np.testing.assert_allclose(skewed_dict.class_prior_, [0.6, 0.3, 0.1], rtol=1e-15)
    np.testing.assert_array_equal(skewed_list.predict(Xt), skewed_dict.predict(Xt))
    # priors move the decisions towards the favoured class
    assert np.mean(skewed_list.predict(Xt) == "ant") > np.mean(ref.predict(Xt) == "ant")

    empirical = make(name, priors="empirical").fit(X, y)
    default = make(name).fit(X, y)
    counts = np.array([(y == c).sum() for c in LABELS], float)
    np.testing.assert_allclose(default.class_prior_, counts / counts.sum(), rtol=1e-15)
    np.testing.assert_array_equal(empirical.class_prior_, default.class_prior_)


FROM_PARAMETERS = {
    "QuadraticDiscriminant": (
        QuadraticDiscriminant,
        lambda rng: np.array([np.diag([1.0, 2.0]), [[1.0, 0.5], [0.5, 1.5]], np.eye(2) * 0.5]),
    ),
    "LinearDiscriminant": (LinearDiscriminant, lambda rng: np.array([[1.0, 0.3], [0.3, 2.0]])),
    "GaussianNB": (GaussianNB, lambda rng: np.array([[1.0, 2.0], [0.5, 0.5], [2.0, 1.0]])),
    "NearestMean": (NearestMean, lambda rng: np.array(1.5)),
}


@pytest.mark.parametrize("name", list(FROM_PARAMETERS))
def test_from_parameters_keeps_the_given_class_order(name):
    cls, make_cov = FROM_PARAMETERS[name]
    classes = ["z", "a", "m"]
    means = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    cov = make_cov(None)
    est = cls.from_parameters(means, cov, classes=classes, priors=[0.5, 0.3, 0.2])
    np.testing.assert_array_equal(est.classes_, classes)
    np.testing.assert_array_equal(est.means_, means)
    np.testing.assert_array_equal(est.covariances_, cov)
    np.testing.assert_allclose(est.class_prior_, [0.5, 0.3, 0.2], rtol=1e-15)
    # each class's density uses its own row of parameters
    full = est.full_covariances()
    Xt = np.array([[0.1, -0.2], [5.8, 0.3], [-0.4, 6.1], [3.0, 3.0]])
    ll = est.log_likelihood(Xt)
    for k in range(3):
        np.testing.assert_allclose(
            ll[:, k], multivariate_normal(means[k], full[k]).logpdf(Xt), rtol=1e-12
        )
    np.testing.assert_array_equal(est.predict(Xt[:3]), classes)
    # priors as a dict follow the labels, not the sorted order
    by_dict = cls.from_parameters(
        means, cov, classes=classes, priors={"m": 0.2, "z": 0.5, "a": 0.3}
    )
    np.testing.assert_allclose(by_dict.class_prior_, [0.5, 0.3, 0.2], rtol=1e-15)
    np.testing.assert_allclose(by_dict.predict_proba(Xt), est.predict_proba(Xt), atol=1e-15)
    # default: uniform priors and classes 0 .. C-1
    plain = cls.from_parameters(means, cov)
    np.testing.assert_array_equal(plain.classes_, [0, 1, 2])
    np.testing.assert_allclose(plain.class_prior_, 1 / 3)
    np.testing.assert_array_equal(plain.predict(Xt[:3]), [0, 1, 2])
    # a reject label for integer classes is -1, and Chow's rule applies
    t = 0.01
    rej = cls.from_parameters(means, cov, loss=LossMatrix.with_reject(3, t))
    assert rej.reject_label_ == -1
    P = rej.predict_proba(Xt)
    expected = np.where(P.max(axis=1) < 1 - t, -1, P.argmax(axis=1))
    np.testing.assert_array_equal(rej.predict(Xt), expected)
