"""The contract every estimator keeps (DESIGN.md, principle 9), each property once.

Every test here is parametrised over ``registry.CASES``: every estimator of
:data:`bayesrule.estimators.ESTIMATORS`, under the settings and on the data
``tests/registry.py`` gives it. Posteriors are probabilities and the zero-one decision
is their argmax; fit equals summed partial_fit, integer weights equal duplicated rows
and zero weights dropped rows; log-likelihoods are scipy.stats' densities; decisions
follow the loss (Chow's reject rule, whose reject rate falls as the reject cost rises);
samples reproduce the model's moments and a model refitted on them agrees with it; BIC
and AIC count its parameters; priors may be given in any form and default to the class
frequencies; a row with every feature missing gets the prior (estimators without
missing values refuse NaN by name); a saved model predicts the same.

A property that does not apply to a case is left out of its parametrisation with the
reason the registry gives, and where the estimator refuses the operation, the refusal is
tested (``test_what_does_not_apply_is_refused``).
"""

from __future__ import annotations

import itertools
import sys
from functools import cache

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from registry import CASES, LABELS, PROPERTIES, assert_same_model, contract_params
from scipy.special import gammaln, logsumexp
from scipy.stats import bernoulli, multinomial, multivariate_normal, norm, poisson

from bayesrule import ComplementNB, LossMatrix
from bayesrule import io as bio
from bayesrule.estimators import ESTIMATORS
from bayesrule.likelihoods import (
    Bernoulli,
    Categorical,
    Gaussian,
    Kernel,
    Mixture,
    Multinomial,
    Poisson,
)
from bayesrule.likelihoods.discrete.averaged import AveragedDependence
from bayesrule.likelihoods.discrete.network import DiscreteNetwork
from bayesrule.likelihoods.discrete.one_dependence import OneDependence
from bayesrule.likelihoods.product import Product

N_TEST = 400
SEEDS_LOSS = np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 2.0], [1.0, 1.0, 0.0]])


def contract(prop=None):
    """Parametrise a test over every case where ``prop`` applies (every case for None)."""

    def mark(func):
        func.contract_property = prop
        return pytest.mark.parametrize("case", contract_params(prop))(func)

    return mark


def nan_contract(allowed: bool):
    """Parametrise over the cases whose estimator takes missing values (NaN or None in
    X, its ``allow_nan`` tag), or over the others."""

    def mark(func):
        func.contract_property = "allow_nan" if allowed else "refuses_nan"
        params = [p for p in contract_params() if allows_nan(p.values[0]) is allowed]
        return pytest.mark.parametrize("case", params)(func)

    return mark


def allows_nan(case) -> bool:
    return case.make().__sklearn_tags__().input_tags.allow_nan


# ---------------------------------------------------------------------------- data
@cache
def _draw(maker, n, seed):
    X, y = maker(n, seed)
    for a in (X, y):
        if isinstance(a, np.ndarray):
            a.setflags(write=False)
    return X, y


def train(case):
    return _draw(case.data, case.n_train, 0)


def holdout(case):
    return _draw(case.data, N_TEST, 1)


def take(X, rows):
    """Rows of an array, CSR matrix or DataFrame."""
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


def blank(X, k):
    """``k`` rows shaped as X's with every feature missing."""
    if isinstance(X, pd.DataFrame):
        out = X.iloc[:k].copy()
        for column in out.columns:
            value = None if out[column].dtype == object else np.nan
            out[column] = pd.Series([value] * k, index=out.index, dtype=out[column].dtype)
        return out
    if sp.issparse(X):
        return sp.csr_matrix(np.full((k, X.shape[1]), np.nan))
    out = np.array(X[:k])
    out[:] = None if out.dtype == object else np.nan
    return out


def dense(X) -> np.ndarray:
    """X as a NumPy array (objects where the columns are of several kinds)."""
    if isinstance(X, pd.DataFrame):
        return X.to_numpy(dtype=object)
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def first_column(X) -> np.ndarray:
    return dense(X)[:, 0]


# ---------------------------------------------------------------------------- fitted parameters
#: fitted parameters compared between two fits that must agree (those an estimator or its
#: likelihood has; a likelihood's blocks and mixtures are compared the same way)
PARAMETERS = (
    "means_",
    "covariances_",
    "weights_",
    "bandwidth_",
    "feature_count_",
    "feature_log_prob_",
    "rate_",
    "categories_",
    "category_count_",
    "parents_",
    "super_parents_",
    "class_marginal_",
    "counts_",
    "bin_edges_",
    "mixtures_",
    "blocks_",
    "bic_",
)


def parameters(obj) -> dict:
    """The fitted parameters of an estimator (its class weights and its likelihood's) or
    of a likelihood family."""
    like = getattr(obj, "likelihood_", None)
    if like is not None:
        return {
            "class_count_": obj.class_count_,
            "class_prior_": obj.class_prior_,
            **{f"likelihood_.{k}": v for k, v in parameters(like).items()},
        }
    out = {}
    for name in PARAMETERS:
        try:
            out[name] = getattr(obj, name)
        except AttributeError:
            pass
    return out


def _assert_close(a, b, tol, where):
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for key in a:
            _assert_close(a[key], b[key], tol, f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            _assert_close(u, v, tol, f"{where}[{i}]")
    elif a is None or isinstance(a, str):
        assert a == b, where
    elif hasattr(a, "__dict__") and not isinstance(a, np.ndarray):  # a family, a mixture
        assert type(a) is type(b), where
        pa, pb = parameters(a), parameters(b)
        assert list(pa) == list(pb), where
        for key in pa:
            _assert_close(pa[key], pb[key], tol, f"{where}.{key}")
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, where
        if a.dtype.kind not in "fiub" or b.dtype.kind not in "fiub":
            np.testing.assert_array_equal(a, b, err_msg=where)
        elif np.all(np.isfinite(b)) and np.array_equal(b, np.round(b)):
            np.testing.assert_array_equal(a, b, err_msg=where)  # counts add exactly
        else:
            finite = np.abs(b[np.isfinite(b)])
            scale = finite.max() if finite.size else 0.0
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale, err_msg=where)


def assert_same_fit(a, b, X, tol):
    """Two fits agree: every fitted parameter, the posteriors and joint log-probabilities
    on X (to ``tol``), and the decisions."""
    pa, pb = parameters(a), parameters(b)
    assert list(pa) == list(pb)
    for key in pa:
        _assert_close(pa[key], pb[key], tol, key)
    assert_same_model(a, b, X, tol)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


# ---------------------------------------------------------------------------- coverage
def test_every_estimator_of_the_registry_gets_every_contract_test():
    """Each contract test runs every estimator of ESTIMATORS, or the registry says why a
    case is left out (and the refusal test holds the cases that refuse)."""
    module = sys.modules[__name__]
    tests = [f for f in vars(module).values() if hasattr(f, "contract_property")]
    assert len(tests) >= 15
    classes = [entry.cls for entry in ESTIMATORS]
    assert {case.cls for case in CASES} == set(classes)
    ids = [case.id for case in CASES]
    assert len(set(ids)) == len(ids)

    def ran(func):
        marks = [m for m in func.pytestmark if m.name == "parametrize" and m.args[0] == "case"]
        return {p.values[0].id for p in marks[0].args[1]}

    marks = test_what_does_not_apply_is_refused.pytestmark
    refused = {(p.values[0].id, p.values[1]) for p in marks[0].args[1]}  # what that test ran
    without_nan = ran(test_missing_values_are_refused_by_name)
    for func in tests:
        prop, covered = func.contract_property, ran(func)
        for case in CASES:
            if case.id in covered:
                continue
            if prop == "allow_nan":
                assert case.id in without_nan, (func.__name__, case.id)
            elif prop == "refuses_nan":
                assert allows_nan(case), (func.__name__, case.id)
            elif prop in PROPERTIES:
                assert prop in case.not_applicable, (func.__name__, case.id)
                why = case.not_applicable[prop]
                assert why.reason, (func.__name__, case.id)
                assert (why.raises is None) is ((case.id, prop) not in refused)
            else:
                pytest.fail(f"{func.__name__} leaves out {case.id}")
    for case in CASES:  # nothing is declared out of a property without a reason
        assert all(why.reason for why in case.not_applicable.values()), case.id


REFUSALS = [
    (case, prop)
    for case in CASES
    for prop, why in case.not_applicable.items()
    if why.raises is not None
]


def _refused_operations(prop):
    if prop == "partial_fit":
        return [lambda est, X, y: est.partial_fit(X, y, classes=LABELS)]
    if prop == "evidence":
        return [
            lambda est, X, y: est.fit(X, y).log_evidence(X),
            lambda est, X, y: est.fit(X, y).bic(X, y),
            lambda est, X, y: est.fit(X, y).aic(X, y),
        ]
    raise AssertionError(f"no refusal known for {prop}")


@pytest.mark.parametrize("case, prop", [pytest.param(c, p, id=f"{c.id}-{p}") for c, p in REFUSALS])
def test_what_does_not_apply_is_refused(case, prop):
    """A property left out with an error in the registry: the estimator refuses the
    operation with that error (a partial_fit that does not exist is not an attribute)."""
    X, y = train(case)
    why = case.not_applicable[prop]
    if prop == "partial_fit":
        assert not hasattr(case.make(), "partial_fit")
    for operation in _refused_operations(prop):
        with pytest.raises(why.raises, match=why.match):
            operation(case.estimator(), X, y)


# ---------------------------------------------------------------------------- posteriors
@contract()
def test_posteriors_are_probabilities(case):
    X, y = train(case)
    Xt, yt = holdout(case)
    est = case.estimator().fit(X, y)
    np.testing.assert_array_equal(est.classes_, LABELS)
    P = est.predict_proba(Xt)
    assert P.shape == (N_TEST, 3)
    assert np.all(P >= 0) and np.all(P <= 1)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    logP = est.predict_log_proba(Xt)
    with np.errstate(divide="ignore"):
        log_of_P = np.log(P)
    finite = np.isfinite(log_of_P)
    assert finite.mean() > 0.9
    np.testing.assert_allclose(logP[finite], log_of_P[finite], rtol=1e-12, atol=1e-12)
    assert np.all(logP[~finite] < -700)  # underflowed in P, still a number in log space
    np.testing.assert_allclose(np.exp(logP), P, rtol=1e-12, atol=0)
    joint = est.predict_joint_log_proba(Xt)
    np.testing.assert_allclose(
        joint, est.log_likelihood(Xt) + np.log(est.class_prior_), rtol=1e-12, atol=1e-12
    )
    if case.applies("evidence"):
        evidence = est.log_evidence(Xt)
        np.testing.assert_allclose(evidence, logsumexp(joint, axis=1), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(evidence[:, None] + logP, joint, rtol=1e-12, atol=1e-9)
    assert 0.6 < est.score(Xt, yt) < 1.0  # overlapping, learnable classes


@contract()
def test_zero_one_decision_is_the_argmax(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    est = case.estimator().fit(X, y)
    P = est.predict_proba(Xt)
    np.testing.assert_array_equal(est.predict(Xt), est.classes_[np.argmax(P, axis=1)])
    np.testing.assert_allclose(est.risk(Xt), 1.0 - P, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- additive statistics
def _batches(kind, X, y):
    """Row indices of the batches, and whether ``classes`` goes with every batch."""
    n = len(y)
    if kind == "uneven":  # classes only with the first batch
        return [np.arange(0, 17), np.arange(17, 160), np.arange(160, n)], False
    if kind == "shuffled":
        return np.array_split(np.random.default_rng(8).permutation(n), 5), True
    if kind == "sorted":  # the batches see different values of the first feature
        order = np.argsort(np.asarray(first_column(X), dtype=str), kind="stable")
        return np.array_split(order, 4), True
    assert kind == "lacking-a-class"  # the middle batch has no "bee"
    rest = np.arange(100, n)
    no_bee = rest[y[rest] != "bee"]
    middle = no_bee[:80]
    last = np.setdiff1d(rest, middle)
    assert "bee" not in set(y[middle])
    return [np.arange(100), middle, last], False


@pytest.mark.parametrize("batches", ["uneven", "shuffled", "sorted", "lacking-a-class"])
@contract("partial_fit")
def test_fit_equals_summed_partial_fit(case, batches):
    X, y = train(case)
    Xt, _ = holdout(case)
    rows, every_time = _batches(batches, X, y)
    order = ["cat", "ant", "bee"] if batches == "lacking-a-class" else LABELS
    first = rows[0]
    kept = (
        case.first_batch(case.make(), take(X, first), y[first], order) if case.first_batch else {}
    )
    whole = case.estimator(**kept).fit(X, y)
    parts = case.estimator()
    for i, r in enumerate(rows):
        classes = order if i == 0 or every_time else None
        parts.partial_fit(take(X, r), y[r], classes=classes)
    assert_same_fit(parts, whole, Xt, case.tol)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # EM: tol=0
@contract("sample_weight")
def test_integer_weights_equal_duplicated_rows(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    w = np.random.default_rng(3).integers(0, 4, size=len(y))
    w[:3] = 1
    start = case.start(case.make(), X, y) if case.start else {}
    weighted = case.estimator(**start).fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(len(y)), w)
    repeated = case.estimator(**start).fit(take(X, rows), y[rows])
    assert_same_fit(weighted, repeated, Xt, case.tol)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # EM: tol=0
@contract("sample_weight")
def test_zero_weights_equal_dropped_rows(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    w = (np.random.default_rng(4).random(len(y)) < 0.7).astype(float)
    start = case.start(case.make(), X, y) if case.start else {}
    weighted = case.estimator(**start).fit(X, y, sample_weight=w)
    kept = np.flatnonzero(w)
    dropped = case.estimator(**start).fit(take(X, kept), y[kept])
    assert_same_fit(weighted, dropped, Xt, tol=0)  # the same rows: the same numbers


# ---------------------------------------------------------------------------- scipy.stats
def _gaussian(family, X, y, Xt):
    X, Xt = np.asarray(X, dtype=float), np.asarray(Xt, dtype=float)
    means, covs = family.means_, family.full_covariances()
    out = np.zeros((len(Xt), len(means)))
    for k in range(len(means)):
        for i, x in enumerate(Xt):  # a missing feature is marginalised out
            ok = ~np.isnan(x)
            if ok.any():
                out[i, k] = multivariate_normal(means[k][ok], covs[k][np.ix_(ok, ok)]).logpdf(x[ok])
    return out


def _mixture(family, X, y, Xt):
    Xt = np.asarray(Xt, dtype=float)
    return np.column_stack(
        [
            logsumexp(
                [
                    np.log(w) + multivariate_normal(mu, S).logpdf(Xt)
                    for w, mu, S in zip(m.weights_, m.means_, m.full_covariances(), strict=True)
                ],
                axis=0,
            )
            for m in family.mixtures_
        ]
    )


def _kernel(family, X, y, Xt):
    X, Xt = np.asarray(X, dtype=float), np.asarray(Xt, dtype=float)
    h = family.bandwidth_
    out = np.zeros((len(Xt), h.shape[0]))
    for c in range(h.shape[0]):
        for j in range(X.shape[1]):
            t = X[y == c, j]
            t = t[~np.isnan(t)]
            x = Xt[:, j]
            terms = norm.logpdf(x[:, None], loc=t[None, :], scale=h[c, j])
            out[:, c] += np.where(np.isnan(x), 0.0, logsumexp(terms, axis=1) - np.log(t.size))
    return out


def _bernoulli(family, X, y, Xt):
    Xt = np.asarray(Xt, dtype=float)
    if family.binarize is not None:
        Xt = np.where(np.isnan(Xt), np.nan, Xt > family.binarize)
    p = np.exp(family.feature_log_prob_)
    terms = bernoulli.logpmf(np.nan_to_num(Xt)[:, None, :], p[None])
    return np.where(np.isnan(Xt)[:, None, :], 0.0, terms).sum(axis=2)


def _multinomial(family, X, y, Xt):
    """scipy's multinomial pmf without the multinomial coefficient, which the family
    leaves out by design (it depends on the row only)."""
    Xt = np.nan_to_num(np.asarray(Xt, dtype=float))  # a missing count contributes nothing
    theta = np.exp(family.feature_log_prob_)
    n = Xt.sum(axis=1)
    coefficient = gammaln(n + 1) - gammaln(Xt + 1).sum(axis=1)
    pmf = np.column_stack([multinomial.logpmf(Xt, n, p) for p in theta])
    return pmf - coefficient[:, None]


def _poisson(family, X, y, Xt):
    Xt = np.asarray(Xt, dtype=float)
    terms = poisson.logpmf(np.nan_to_num(Xt)[:, None, :], family.rate_[None])
    return np.where(np.isnan(Xt)[:, None, :], 0.0, terms).sum(axis=2)


def _categorical(family, X, y, Xt):
    """Each feature's value drawn once from the class's categorical distribution (a
    multinomial of one trial)."""
    out = np.zeros((len(Xt), len(family.feature_log_prob_[0])))
    for j, (values, logp) in enumerate(
        zip(family.categories_, family.feature_log_prob_, strict=True)
    ):
        for i, v in enumerate(Xt[:, j]):
            if pd.isna(v):
                continue
            onehot = np.asarray(values == v, dtype=float)
            assert onehot.sum() == 1, (j, v)
            for c, lp in enumerate(logp):
                out[i, c] += multinomial.logpmf(onehot, 1, np.exp(lp))
    return out


def _product(family, X, y, Xt):
    return sum(reference(block, X[:, cols], y, Xt[:, cols]) for block, cols in family.blocks_)


#: scipy.stats' log-density of each family, from its fitted parameters (and, for the
#: kernel density, its training data)
REFERENCES = {
    Gaussian: _gaussian,
    Mixture: _mixture,
    Kernel: _kernel,
    Bernoulli: _bernoulli,
    Multinomial: _multinomial,
    Poisson: _poisson,
    Categorical: _categorical,
    Product: _product,
}


def reference(family, X, y, Xt):
    assert type(family) in REFERENCES, (
        f"no scipy.stats reference for {type(family).__name__}: add one here, or declare "
        "'scipy' not applicable to the estimator in tests/registry.py"
    )
    return REFERENCES[type(family)](family, X, y, Xt)


@contract("scipy")
def test_log_likelihood_matches_scipy_stats(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    est = case.estimator().fit(X, y)
    codes = np.searchsorted(est.classes_, y)
    expected = reference(est.likelihood_, dense(X), codes, dense(Xt))
    np.testing.assert_allclose(est.log_likelihood(Xt), expected, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------- decisions
def _int_labels(y):
    return np.searchsorted(LABELS, y) * 10 + 5  # 5, 15, 25


REJECT_COSTS = sorted({*np.linspace(0.0, 1.0, 21).round(12), 0.4, 0.7, 0.9, 2 / 3, 5.0})


@pytest.mark.parametrize("labels", ["str", "int"])
@contract()
def test_reject_rate_falls_as_the_reject_cost_rises(case, labels):
    """Chow's rule: reject exactly where max_j P(w_j|x) < 1 - t, else decide the argmax;
    the reject rate falls as the cost t rises and is 0 from t = 1 - 1/C on."""
    X, y = train(case)
    Xt, _ = holdout(case)
    if labels == "int":
        y = _int_labels(y)
    reject = "reject" if labels == "str" else -1
    base = case.estimator().fit(X, y)
    P = base.predict_proba(Xt)
    pmax = P.max(axis=1)
    argmax = base.classes_[P.argmax(axis=1)]
    rates = {}
    for t in REJECT_COSTS:
        if t == 0:  # rejecting for free: the loss matrix warns about the free action
            with pytest.warns(UserWarning, match="costs nothing"):
                loss = LossMatrix.with_reject(3, t)
        else:
            loss = LossMatrix.with_reject(3, t)
        est = case.estimator(loss=loss).fit(X, y)
        assert est.reject_label_ == reject
        np.testing.assert_allclose(est.predict_proba(Xt), P, rtol=0, atol=1e-15)
        pred = est.predict(Xt)
        rejected = pmax < 1 - t
        rates[t] = np.mean(pred == reject)
        if t == 0:  # a posterior of exactly 1 ties with the free reject: either is right
            assert np.all(pred[rejected] == reject)
            continue
        np.testing.assert_array_equal(pred == reject, rejected, err_msg=str(t))
        np.testing.assert_array_equal(pred[~rejected].astype(argmax.dtype), argmax[~rejected])
    assert np.all(np.diff([rates[t] for t in REJECT_COSTS]) <= 0), rates
    assert rates[0.0] > 0.5  # zero cost: reject all but the (numerically) certain
    assert rates[0.05] > rates[0.2] > rates[0.4] >= rates[0.5] > 0
    assert all(rate == 0 for t, rate in rates.items() if t >= 2 / 3 - 1e-12), rates


@contract()
def test_custom_loss_decides_by_least_risk(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    est = case.estimator(loss=SEEDS_LOSS).fit(X, y)
    P = est.predict_proba(Xt)
    R = est.risk(Xt)
    np.testing.assert_allclose(R, P @ SEEDS_LOSS.T, rtol=1e-14, atol=1e-15)
    pred = est.predict(Xt)
    np.testing.assert_array_equal(pred, est.classes_[np.argmin(R, axis=1)])
    assert np.any(pred != est.classes_[np.argmax(P, axis=1)])  # the loss changes some
    # a reject row given as part of a (C + 1, C) matrix
    L = np.vstack([SEEDS_LOSS, [0.4, 0.4, 0.4]])
    est = case.estimator(loss=L).fit(X, y)
    R = est.risk(Xt)
    np.testing.assert_allclose(R, P @ L.T, rtol=1e-14, atol=1e-15)
    actions = np.array([*LABELS, "reject"])
    np.testing.assert_array_equal(est.predict(Xt), actions[np.argmin(R, axis=1)])


# ---------------------------------------------------------------------------- priors
@contract()
def test_priors_as_uniform_list_and_dict_agree(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    forms = {
        "uniform": "uniform",
        "list": [1 / 3, 1 / 3, 1 / 3],
        "array": np.full(3, 1 / 3),
        "dict": {"cat": 1 / 3, "ant": 1 / 3, "bee": 1 / 3},
    }
    fitted = {k: case.estimator(priors=v).fit(X, y) for k, v in forms.items()}
    ref = fitted["uniform"]
    np.testing.assert_allclose(ref.class_prior_, 1 / 3, rtol=1e-15)
    for key, est in fitted.items():
        np.testing.assert_allclose(est.class_prior_, ref.class_prior_, rtol=1e-15, err_msg=key)
        np.testing.assert_allclose(est.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-15)
        np.testing.assert_array_equal(est.predict(Xt), ref.predict(Xt))

    skewed_list = case.estimator(priors=[0.6, 0.3, 0.1]).fit(X, y)
    skewed_dict = case.estimator(priors={"bee": 0.3, "cat": 0.1, "ant": 0.6}).fit(X, y)
    np.testing.assert_allclose(skewed_list.class_prior_, [0.6, 0.3, 0.1], rtol=1e-15)
    np.testing.assert_allclose(skewed_dict.class_prior_, [0.6, 0.3, 0.1], rtol=1e-15)
    np.testing.assert_array_equal(skewed_list.predict(Xt), skewed_dict.predict(Xt))
    # priors move the decisions towards the favoured class
    assert np.mean(skewed_list.predict(Xt) == "ant") > np.mean(ref.predict(Xt) == "ant")
    # the default is the class frequencies, or the priors a preset names as its default
    named = case.estimator().get_params()["priors"] or "empirical"
    default = case.estimator().fit(X, y)
    same = case.estimator(priors=named).fit(X, y)
    np.testing.assert_array_equal(same.class_prior_, default.class_prior_)


@contract("empirical_prior")
def test_the_default_prior_is_the_class_frequency(case):
    X, y = train(case)
    w = np.random.default_rng(7).integers(1, 4, size=len(y)).astype(float)
    for weights in (None, w):
        est = case.estimator(priors="empirical").fit(X, y, sample_weight=weights)
        ones = np.ones(len(y)) if weights is None else weights
        counts = np.array([ones[y == c].sum() for c in LABELS])
        np.testing.assert_allclose(est.class_count_, counts, rtol=1e-15)
        np.testing.assert_allclose(est.class_prior_, counts / counts.sum(), rtol=1e-15)
    # every preset but ComplementNB (uniform, as Rennie et al. and scikit-learn) defaults
    # to them
    default = case.estimator().fit(X, y)
    expected = "uniform" if isinstance(default, ComplementNB) else None
    assert default.get_params()["priors"] == expected
    frequencies = np.array([np.mean(y == c) for c in LABELS])
    np.testing.assert_allclose(default.class_prior_, 1 / 3 if expected else frequencies)


# ---------------------------------------------------------------------------- the generative model
N_SAMPLES = 200_000
Z = 5.0  # standard errors allowed per statistic (seeded draws)


def _moments(family, Xs, codes):
    """(statistic, expected, standard error) of each moment that the family's
    parameters fix, per class: means (and Gaussian covariances), Bernoulli and
    Poisson means, categorical frequencies."""
    out = []
    for c in range(codes.max() + 1):
        rows = Xs[codes == c]
        n = len(rows)
        if isinstance(family, Gaussian):
            S = family.full_covariances()[c]
            Xc = np.asarray(rows, dtype=float)
            out.append((Xc.mean(axis=0), family.means_[c], np.sqrt(np.diag(S) / n)))
            # Var(S_jl) = (S_jl^2 + S_jj S_ll) / n for Gaussian data
            se = np.sqrt((S**2 + np.outer(np.diag(S), np.diag(S))) / n)
            out.append((np.cov(Xc.T, bias=True), S, se))
        elif isinstance(family, Mixture):
            m = family.mixtures_[c]
            Xc = np.asarray(rows, dtype=float)
            out.append((Xc.mean(axis=0), m.weights_ @ m.means_, np.sqrt(Xc.var(axis=0) / n)))
        elif isinstance(family, (Bernoulli, Poisson)):
            mean = (
                np.exp(family.feature_log_prob_[c])
                if isinstance(family, Bernoulli)
                else family.rate_[c]
            )
            var = mean * (1 - mean) if isinstance(family, Bernoulli) else mean
            out.append((np.asarray(rows, dtype=float).mean(axis=0), mean, np.sqrt(var / n)))
        elif isinstance(family, Kernel):  # a weighted training value plus N(0, h^2)
            values, weights = family.stats_.values[c], family.stats_.weights[c]
            mean = np.array(
                [np.average(v[~np.isnan(v)], weights=weights[~np.isnan(v)]) for v in values.T]
            )
            spread = np.array(
                [
                    np.average((v[~np.isnan(v)] - m) ** 2, weights=weights[~np.isnan(v)])
                    for v, m in zip(values.T, mean, strict=True)
                ]
            )
            var = spread + family.bandwidth_[c] ** 2
            out.append((np.asarray(rows, dtype=float).mean(axis=0), mean, np.sqrt(var / n)))
        elif isinstance(family, Multinomial):  # x_j ~ Poisson(L_c theta_cj)
            stats = family.stats_
            mean = (
                stats.feature_sum[c].sum()
                / stats.class_weight[c]
                * np.exp(family.feature_log_prob_[c])
            )
            out.append((np.asarray(rows, dtype=float).mean(axis=0), mean, np.sqrt(mean / n)))
        elif isinstance(family, Categorical):
            for j, (values, logp) in enumerate(
                zip(family.categories_, family.feature_log_prob_, strict=True)
            ):
                p = np.exp(logp[c])
                freq = np.array([np.mean(rows[:, j] == v) for v in values])
                out.append((freq, p, np.sqrt(p * (1 - p) / n)))
    if isinstance(family, Product):
        for block, cols in family.blocks_:
            out += _moments(block, Xs[:, cols], codes)
    elif not isinstance(family, WITHOUT_MOMENTS):
        assert out, f"no moments written here for {type(family).__name__}"
    return out


# semi-naive networks: their per-attribute marginals need the whole network summed out,
# which this test does not write independently; their samples are still checked for the
# class frequencies here and refitted in test_a_model_refitted_on_its_samples_agrees_with_it
WITHOUT_MOMENTS = (OneDependence, DiscreteNetwork)


@contract("sample")
def test_samples_reproduce_the_model(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    est = case.estimator().fit(X, y)
    Xs, ys = est.sample(N_SAMPLES, random_state=0)
    assert Xs.shape == (N_SAMPLES, X.shape[1]) and ys.shape == (N_SAMPLES,)
    assert set(ys.tolist()) <= set(LABELS.tolist())
    for k, c in enumerate(est.classes_):
        p, freq = est.class_prior_[k], np.mean(ys == c)
        assert abs(freq - p) < Z * np.sqrt(p * (1 - p) / N_SAMPLES), (c, freq, p)
    codes = np.searchsorted(est.classes_, ys)
    for statistic, expected, se in _moments(est.likelihood_, dense(Xs), codes):
        assert np.all(np.abs(statistic - expected) < Z * se), (statistic, expected, se)
    a, b = est.sample(30, random_state=4), est.sample(30, random_state=4)
    np.testing.assert_array_equal(dense(a[0]), dense(b[0]))
    np.testing.assert_array_equal(a[1], b[1])


@contract("refit_on_samples")
def test_a_model_refitted_on_its_samples_agrees_with_it(case):
    """(A kernel density refitted on its own draws is smoothed twice: close, not equal.)
    The draws are 200,000, or 1,000 per free parameter where more (KDB's tables over
    pairs of parents: the rarest parent combinations get about 80 draws of 200,000)."""
    X, y = train(case)
    Xt, _ = holdout(case)
    est = case.estimator().fit(X, y)
    count = getattr(est.likelihood_, "n_parameters", lambda: 0)
    Xs, ys = est.sample(max(N_SAMPLES, 1000 * count()), random_state=0)
    if isinstance(X, pd.DataFrame):  # the draws in the columns and dtypes of X
        Xs = pd.DataFrame(dense(Xs), columns=X.columns).astype(X.dtypes.to_dict())
    again = case.estimator().fit(Xs, ys)
    diff = np.abs(again.predict_proba(Xt) - est.predict_proba(Xt))
    assert diff.mean() < 0.01 and np.quantile(diff, 0.99) < 0.06, (diff.mean(), diff.max())


def _free(sizes, parents, C=3):
    return sum(C * np.prod([sizes[p] for p in pa]) * (sizes[j] - 1) for j, pa in enumerate(parents))


def _covariance_parameters(covariance, C, d):
    """Free covariance parameters of C groups in d dimensions (mclust's nVarParams for
    its 14 names, written out here from the volume / shape / orientation counts)."""
    rotations = d * (d - 1) // 2
    return {
        "full": C * d * (d + 1) // 2,
        "tied": d * (d + 1) // 2,
        "diag": C * d,
        "spherical": C,
        "tied_diag": d,
        "tied_spherical": 1,
        "EII": 1,
        "VII": C,
        "EEI": d,
        "VEI": C + (d - 1),
        "EVI": 1 + C * (d - 1),
        "VVI": C * d,
        "EEE": d + rotations,
        "VEE": C + (d - 1) + rotations,
        "EVE": 1 + C * (d - 1) + rotations,
        "VVE": C * d + rotations,
        "EEV": d + C * rotations,
        "VEV": C + (d - 1) + C * rotations,
        "EVV": 1 + C * (d - 1) + C * rotations,
        "VVV": C * (d + rotations),
    }[covariance]


def counted_parameters(family, C=3):
    """The free parameters of a fitted family, counted from its structure."""
    if isinstance(family, Gaussian):
        C, d = family.means_.shape
        return C * d + _covariance_parameters(family.covariance_, C, d)
    if isinstance(family, Mixture):  # per class: weights, means, covariances
        k = family.n_components  # the components asked for (BIC: the ones it chose)
        ks = [m.n_components for m in family.mixtures_] if isinstance(k, str) else [k] * C
        shapes = [(k, m.means_.shape[1]) for k, m in zip(ks, family.mixtures_, strict=True)]
        return sum(
            (k - 1) + k * d + _covariance_parameters(family.covariance, k, d) for k, d in shapes
        )
    if isinstance(family, Bernoulli):
        return family.feature_log_prob_.size
    if isinstance(family, Poisson):
        return family.rate_.size
    if isinstance(family, Kernel):  # the bandwidths (the training data are no parameters)
        return family.bandwidth_.size
    if isinstance(family, Multinomial):
        C, d = family.feature_log_prob_.shape
        return C * (d - 1)
    if isinstance(family, Categorical):
        return C * sum(values.size - 1 for values in family.categories_)
    if isinstance(family, Product):
        return sum(counted_parameters(block, C) for block, _ in family.blocks_)
    sizes = [values.size for values in getattr(family, "categories_", [])]
    if hasattr(family, "members_"):  # ESKDB: its members' tables
        return sum(counted_parameters(m, C) for m in family.members_)
    if hasattr(family, "selected_"):  # SKDB: one table per selected attribute
        pa = family.parents_
        return sum(
            C * np.prod([sizes[p] for p in pa[j]]) * (sizes[j] - 1) for j in family.selected_
        )
    if hasattr(family, "parents_"):  # TAN, KDB: one table per attribute
        return _free(sizes, family.parents_, C)
    if isinstance(family, AveragedDependence) and family.n > 1:  # AnDE: each parent set's
        d = len(sizes)
        return sum(  # P(x_S | c), then every other attribute given x_S
            C * (np.prod([sizes[s] for s in S]) - 1)
            + sum(
                C * np.prod([sizes[s] for s in S]) * (sizes[j] - 1) for j in range(d) if j not in S
            )
            for S in itertools.combinations(range(d), family.n)
        )
    if isinstance(family, OneDependence):  # SPODE, AODE, WAODE: each super-parent's tables
        d = len(sizes)
        return sum(
            _free(sizes, [() if j == p else (p,) for j in range(d)], C)
            for p in (range(d) if family.parents == "all" else family.super_parents_)
        )
    raise AssertionError(f"no parameter count written here for {type(family).__name__}")


@pytest.mark.parametrize("priors", [None, "uniform"])
@contract("evidence")
def test_bic_and_aic_count_the_parameters(case, priors):
    X, y = train(case)
    est = case.estimator(priors=priors).fit(X, y)
    n, C = len(y), len(est.classes_)
    k = est.likelihood_.n_parameters()
    assert k == counted_parameters(est.likelihood_, C)
    k += C - 1 if priors is None else 0  # known priors are not estimated
    joint = est.predict_joint_log_proba(X)
    ll = joint[np.arange(n), np.searchsorted(est.classes_, y)].sum()
    np.testing.assert_allclose(est.bic(X, y), -2 * ll + k * np.log(n), rtol=1e-12)
    np.testing.assert_allclose(est.aic(X, y), -2 * ll + 2 * k, rtol=1e-12)


# ---------------------------------------------------------------------------- missing values
@nan_contract(allowed=True)
def test_every_feature_missing_gives_the_prior(case):
    X, y = train(case)
    est = case.estimator(priors=[0.5, 0.3, 0.2]).fit(X, y)
    empty = blank(X, 5)
    np.testing.assert_array_equal(est.log_likelihood(empty), 0.0)
    np.testing.assert_allclose(
        est.predict_proba(empty), np.tile([0.5, 0.3, 0.2], (5, 1)), rtol=1e-14
    )
    if case.applies("evidence"):
        np.testing.assert_allclose(est.log_evidence(empty), 0.0, atol=1e-15)
    np.testing.assert_array_equal(est.predict(empty), ["ant"] * 5)


def _with_holes(X, seed):
    """A copy of X with 60 cells missing."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(X.shape[0], size=60, replace=False)
    cols = rng.integers(0, X.shape[1], size=60)
    if isinstance(X, pd.DataFrame):
        X = X.copy()
        for r, c in zip(rows, cols, strict=True):
            column = X.columns[c]
            X.iloc[r, c] = None if X[column].dtype == object else np.nan
        return X
    if sp.issparse(X):
        X = X.toarray()
        X[rows, cols] = np.nan
        return sp.csr_matrix(X)
    X = np.array(X)
    X[rows, cols] = None if X.dtype == object else np.nan
    return X


def _stack(X, Y):
    if isinstance(X, pd.DataFrame):
        return pd.concat([X, Y], ignore_index=True)
    return sp.vstack([X, Y]).tocsr() if sp.issparse(X) else np.concatenate([X, Y])


@nan_contract(allowed=True)
def test_fit_with_missing_values(case):
    """Cells missing in training leave a model that predicts finite posteriors, and a row
    with every feature missing adds to its class's count but to no feature statistic."""
    X, y = train(case)
    Xt, _ = holdout(case)
    Xm = _with_holes(X, 5)
    est = case.estimator().fit(Xm, y)
    P = est.predict_proba(_with_holes(Xt, 6))
    assert np.all(np.isfinite(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    more = case.estimator().fit(_stack(Xm, blank(X, 1)), np.concatenate([y, y[:1]]))
    np.testing.assert_allclose(
        est.log_likelihood(Xt), more.log_likelihood(Xt), rtol=1e-10, atol=1e-10
    )
    assert more.class_count_.sum() == est.class_count_.sum() + 1


@nan_contract(allowed=False)
def test_missing_values_are_refused_by_name(case):
    X, y = train(case)
    Xm = _with_holes(X, 5)
    with pytest.raises(ValueError, match="NaN"):
        case.estimator().fit(Xm, y)
    fitted = case.estimator().fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        fitted.predict(Xm)


# ---------------------------------------------------------------------------- the model as a whole
@contract()
def test_summary_names_every_class(case):
    X, y = train(case)
    text = case.estimator().fit(X, y).summary()
    for label in LABELS:
        assert label in text


@contract()
def test_saved_and_loaded_models_predict_the_same(case, tmp_path):
    X, y = train(case)
    Xt, _ = holdout(case)
    est = case.estimator().fit(X, y)
    bio.save(est, tmp_path / "model.bayes")
    back = bio.load(tmp_path / "model.bayes")
    assert type(back) is type(est)
    assert {k: repr(v) for k, v in back.get_params().items()} == {
        k: repr(v) for k, v in est.get_params().items()
    }
    assert_same_fit(back, est, Xt, tol=0)
    np.testing.assert_array_equal(back.predict_proba(Xt), est.predict_proba(Xt))
    if case.applies("partial_fit"):  # the statistics came back too
        back.partial_fit(take(X, np.arange(50)), y[:50])
        est.partial_fit(take(X, np.arange(50)), y[:50])
        np.testing.assert_array_equal(back.predict_proba(Xt), est.predict_proba(Xt))
