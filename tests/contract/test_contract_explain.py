"""``explain`` on every estimator of the registry: the terms of the log posterior odds of
the decided class against each other class sum to the model's own log odds (from
``predict_joint_log_proba``) to 1e-10, the prior's term is the log prior ratio, and the
families that break their log-likelihood down do (more than one likelihood term)."""

from __future__ import annotations

import numpy as np
import pytest
from registry import CASES
from test_contract import holdout, train

from bayesrule import ESKDB, HNB, WAODE, AnDE, BayesClassifier, KernelNB
from bayesrule.explain import Explanation

#: estimators whose likelihood explain reports whole (one term), and why
WHOLE = {
    KernelNB: "kernel densities",
    HNB: "hidden parents mixing attributes",
    ESKDB: "an average of networks",
    AnDE: "levels falling through to AODE",
    WAODE: "levels falling through to AODE",
    BayesClassifier: "any likelihood object",
}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_explain_terms_sum_to_the_log_odds(case):
    X, y = train(case)
    Xt, _ = holdout(case)
    rows = np.arange(40)
    Xt = Xt.iloc[rows] if hasattr(Xt, "iloc") else Xt[rows]
    est = case.estimator().fit(X, y)
    why = est.explain(Xt)
    assert isinstance(why, Explanation)
    n, C, T = why.terms.shape
    assert (n, C) == (40, len(est.classes_)) and len(why.names) == T
    joint = est.predict_joint_log_proba(Xt)
    k = why.decided_index
    expected = joint[np.arange(n), k][:, None] - joint
    finite = np.isfinite(expected)
    scale = np.maximum(1.0, np.abs(why.terms).sum(axis=2).max(axis=1))[:, None]
    assert np.all(
        np.abs(why.log_odds() - expected)[finite]
        <= 1e-10 * np.broadcast_to(scale, expected.shape)[finite]
    )
    prior = np.log(est.class_prior_)
    np.testing.assert_allclose(why.odds_terms(0)[:, 0], prior[k[0]] - prior, atol=1e-12)
    # the decision explained, taken from the terms by the model's rule, is the model's
    decision = est.predict(Xt)
    np.testing.assert_array_equal(why.decision, decision)
    classes = np.isin(decision, est.classes_)
    np.testing.assert_array_equal(why.decided[classes], decision[classes])
    whole = type(est) in WHOLE
    if not whole:
        assert T > 2, f"{type(est).__name__}: the likelihood is not broken down: {why.names}"
    text = why.text(0)
    assert "total (ln odds)" in text and str(why.decided[0]) in text
