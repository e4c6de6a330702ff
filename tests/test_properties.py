"""Property-based checks (hypothesis) of every estimator of the registry on hostile data.

Each case starts from the data its estimator takes (the registry's makers) and lets
hypothesis change it the way real files do: columns scaled to 1e-300 or 1e300, shifted
far from zero, made constant, rows duplicated, classes of one row, infinities. Whatever
comes, an estimator either refuses with ``ValueError``/``TypeError`` or fits, lets no
``RuntimeWarning`` escape (the suite turns them into errors), predicts on the very rows it
was fitted on with finite posteriors that sum to 1, and keeps its two identities: fit
equals summed ``partial_fit``, and integer weights equal duplicated rows.

The budget is bounded (a fixed number of examples per case, derandomised so that CI
sees the same cases every run) and every example has a deadline, so a hang fails.
"""

from __future__ import annotations

import functools
import os
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from registry import CASES, Case, data_for
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from bayesrule.estimators import ESTIMATORS

ALLOWED = (ValueError, TypeError, NotFittedError)

pytestmark = [
    # whatever the configuration: a RuntimeWarning escaping the library fails the case
    pytest.mark.filterwarnings("error::RuntimeWarning"),
    # the registry's EM cases run a fixed number of iterations from a fixed start (tol=0)
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
]

SCALES = [1e-300, 1e-150, 1e-20, 1e-6, 1.0, 1e6, 1e20, 1e150, 1e300]
SHIFTS = [0.0, 0.0, 0.0, 1e8, -1e15, 1e300]

#: examples per case and property: bounded for `make test`; set BAYESRULE_EXAMPLES for a
#: deeper search (e.g. 500) by hand
EXAMPLES = int(os.environ.get("BAYESRULE_EXAMPLES", "12"))

BUDGET = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=10),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _cases() -> list[Case]:
    """The registry's contract cases and every estimator at its defaults (where the
    contract runs it otherwise)."""
    cases = list(CASES)
    have = {repr(case.make()) for case in cases}
    for entry in ESTIMATORS:
        make = entry.cls
        if "random_state" in make().get_params():  # seeded: the properties compare fits
            make = functools.partial(entry.cls, random_state=0)
        if repr(make()) not in have:
            cases.append(Case(make, data_for(entry.cls), _as_at_defaults(entry.cls)))
    return cases


def _as_at_defaults(cls) -> dict:
    """The properties that do not apply to ``cls`` at its defaults: those of the
    registry's case with the same settings but for the ones that do not change which
    properties hold (seeds, sizes of a search)."""
    minor = {"random_state", "max_components", "max_iter", "tol"}
    defaults = cls().get_params()
    for case in CASES:
        params = case.make().get_params()
        if type(case.make()) is cls and all(
            params[k] == v for k, v in defaults.items() if k not in minor
        ):
            return case.not_applicable
    return {}


PARAMS = [pytest.param(case, id=case.id) for case in _cases()]


#: shifts relative to a column's own magnitude that leave six digits of its spread: the
#: identities (fit = summed partial_fit, weights = duplicates) hold to rounding, and a
#: column shifted beyond that holds no more digits than the rounding of its mean
RELATIVE_SHIFTS = [0.0, 0.0, 1e3, -1e6]


@st.composite
def hostile(draw, case: Case, well_posed: bool = False):
    """(X, y) from ``case``'s data, changed by hypothesis (``well_posed``: shifts that
    keep the columns' digits, for the identities that hold to rounding)."""
    n = draw(st.integers(2, 40))
    X, y = case.data(n, draw(st.integers(0, 10_000)))
    y = np.array(y, copy=True)
    numeric = _numeric_columns(X)
    if well_posed and case.make().__sklearn_tags__().input_tags.categorical:
        numeric = []  # codes stay codes: scaled, they are measurements binned on batch 1
    X = _copy(X)
    if numeric and draw(st.integers(0, 4)) == 0:  # small counts with many ties
        for j in numeric:
            _set_column(X, j, np.round(np.abs(_column(X, j))) % 4)
    elif numeric:
        chosen = draw(st.lists(st.sampled_from(numeric), max_size=len(numeric), unique=True))
        for j in chosen:
            _set_column(X, j, _column(X, j) * draw(st.sampled_from(SCALES)))
            column = _column(X, j)
            if well_posed:
                size = np.nanmax(np.abs(column), initial=0.0)
                shift = draw(st.sampled_from(RELATIVE_SHIFTS)) * size
            else:
                shift = draw(st.sampled_from(SHIFTS))
            _set_column(X, j, column + shift)
        if draw(st.booleans()):  # a constant column
            j = draw(st.sampled_from(numeric))
            _set_column(X, j, np.full(n, _column(X, j)[0]))
        if draw(st.integers(0, 9)) == 0:  # an infinity: must be refused
            j = draw(st.sampled_from(numeric))
            column = _column(X, j)
            column[draw(st.integers(0, n - 1))] = draw(st.sampled_from([np.inf, -np.inf]))
            _set_column(X, j, column)
    labels = draw(st.sampled_from(["as drawn", "one class", "a class of one row"]))
    if labels == "one class":
        y[:] = y[0]
    elif labels == "a class of one row":
        y[:] = y[0]
        y[-1] = "zz" if y.dtype.kind in "UO" else y.max() + 1
    return X, y


def _numeric_columns(X) -> list[int]:
    if isinstance(X, pd.DataFrame):
        return [j for j, c in enumerate(X.columns) if X[c].dtype.kind == "f"]
    if sp.issparse(X) or np.asarray(X).dtype.kind == "f":
        return list(range(X.shape[1]))
    return []


def _copy(X):
    if isinstance(X, pd.DataFrame):
        return X.copy()
    return X.copy().tolil() if sp.issparse(X) else np.array(X, copy=True)


def _column(X, j) -> np.ndarray:
    if isinstance(X, pd.DataFrame):
        return X.iloc[:, j].to_numpy(float, copy=True)
    if sp.issparse(X):
        return X[:, j].toarray().ravel()
    return X[:, j].astype(float)


def _set_column(X, j, values):
    with np.errstate(over="ignore", invalid="ignore"):  # the data's own overflow: inf
        if isinstance(X, pd.DataFrame):
            X.iloc[:, j] = values
        else:
            X[:, j] = values.reshape(-1, 1) if sp.issparse(X) else values


def _has_infinity(X) -> bool:
    if isinstance(X, pd.DataFrame):
        X = X.select_dtypes("number").to_numpy(float)
    values = X.data if sp.issparse(X) else np.asarray(X)
    return values.dtype.kind == "f" and bool(np.isinf(values).any())


def _final(X):
    return X.tocsr() if sp.issparse(X) else X


def _rows(X, index):
    return X.iloc[index] if isinstance(X, pd.DataFrame) else X[index]


def _fit(estimator, X, y, **kwargs):
    """The fitted estimator, or None where it refused the data as it may."""
    try:
        return estimator.fit(X, y, **kwargs)
    except ALLOWED:
        return None


def _posteriors(model, X, **priors) -> np.ndarray:
    """Posteriors (under ``priors``, if given) finite and summing to 1, and decisions
    among the classes: predict takes whatever predict_proba took."""
    proba = model.predict_proba(X, **priors)
    assert np.all(np.isfinite(proba)), "NaN or inf posteriors"
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    try:
        labels = model.predict(X, **priors)
    except ALLOWED:
        raise AssertionError("predict_proba took the input, predict refused it") from None
    assert np.all(np.isin(labels, model.classes_))
    return proba


@pytest.mark.parametrize("case", PARAMS)
def test_fit_refuses_or_predicts_on_its_own_rows(case):
    @BUDGET
    @given(data=hostile(case))
    def check(data):
        X, y = data
        X = _final(X)
        model = _fit(clone(case.make()), X, y)
        if _has_infinity(X):
            assert model is None, "fitted on an infinite value"
        elif model is not None:
            _posteriors(model, X)

    check()


PRIORS = st.lists(
    st.sampled_from([0.0, 5e-324, 1e-300, 1e-12, 0.2, 0.5, 1.0, 3.0, -0.1, np.nan]),
    min_size=1,
    max_size=4,
)


@pytest.mark.parametrize("case", PARAMS)
def test_any_priors_are_refused_or_give_finite_posteriors(case):
    @BUDGET
    @given(data=hostile(case), priors=PRIORS)
    def check(data, priors):
        X, y = data
        X = _final(X)
        model = _fit(clone(case.make()), X, y)
        if model is None:
            return
        try:
            _posteriors(model, X, priors=np.array(priors))
        except ALLOWED:
            return  # predict_proba refused the priors, as it may (predict may not then)

    check()


def _agree(a, b, X, what):
    pa, pb = _posteriors(a, X), _posteriors(b, X)
    np.testing.assert_allclose(pa, pb, atol=1e-6, err_msg=what)


@pytest.mark.parametrize(
    "case",
    [
        p
        for p in PARAMS
        if p.values[0].applies("partial_fit") and hasattr(p.values[0].make(), "partial_fit")
    ],
)
def test_fit_equals_summed_partial_fit(case):
    @BUDGET
    @given(data=hostile(case, well_posed=True), cut=st.floats(0.2, 0.8))
    def check(data, cut):
        X, y = data
        X = _final(X)
        k = max(1, int(cut * len(y)))
        kept = {}
        if case.first_batch:  # what partial_fit chooses on its first batch and keeps
            try:
                kept = case.first_batch(
                    clone(case.make()), _rows(X, slice(0, k)), y[:k], np.unique(y)
                )
            except ALLOWED:
                return
        whole = _fit(clone(case.make()).set_params(**kept), X, y)
        if whole is None:
            return
        streamed = clone(case.make())
        try:
            streamed.partial_fit(_rows(X, slice(0, k)), y[:k], classes=np.unique(y))
            streamed.partial_fit(_rows(X, slice(k, None)), y[k:])
        except ALLOWED:
            return  # a batch alone may be refusable (e.g. a constant column in it)
        _agree(whole, streamed, X, "fit against summed partial_fit")

    check()


@pytest.mark.parametrize("case", [p for p in PARAMS if p.values[0].applies("sample_weight")])
def test_integer_weights_equal_duplicated_rows(case):
    @BUDGET
    @given(data=hostile(case, well_posed=True), seed=st.integers(0, 1000))
    def check(data, seed):
        X, y = data
        X = _final(X)
        weights = np.random.default_rng(seed).integers(1, 4, size=len(y))
        repeated = np.repeat(np.arange(len(y)), weights)
        extra = case.start(case.make(), X, y) if case.start else {}
        weighted = _fit(
            clone(case.make()).set_params(**extra), X, y, sample_weight=weights.astype(float)
        )
        duplicated = _fit(clone(case.make()).set_params(**extra), _rows(X, repeated), y[repeated])
        assert (weighted is None) == (duplicated is None), "one refused, one fitted"
        if weighted is not None:
            _agree(weighted, duplicated, X, "weights against duplicated rows")

    check()
