"""BayesDecision over scikit-learn classifiers, and the free-action warning of LossMatrix."""

import warnings

import numpy as np
import pytest
from registry import check_cases
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from bayesrule import GaussianNB, LossMatrix, QuadraticDiscriminant
from bayesrule.decision import BayesDecision, as_loss_matrix, conditional_risk


def blobs(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(m, 1.0, (n, 2)) for m in (0.0, 1.5, 3.0)])
    return X, np.repeat(np.array(["a", "b", "c"]), n)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lower_risk_than_the_forests_own_predict_on_breast_cancer(seed):
    X, y = load_breast_cancer(return_X_y=True)  # 0 = malignant, 1 = benign
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=seed)
    loss = np.array([[0, 1], [10, 0]])  # calling a malignant tumour benign costs 10
    forest = RandomForestClassifier(random_state=0).fit(Xtr, ytr)
    rule = BayesDecision(RandomForestClassifier(random_state=0), loss=loss).fit(Xtr, ytr)
    risk_forest = loss[forest.predict(Xte), yte].mean()
    risk_rule = loss[rule.predict(Xte), yte].mean()
    assert risk_rule < 0.8 * risk_forest
    # same forest inside (cloned with the same seed): the posteriors are the forest's
    np.testing.assert_array_equal(rule.predict_proba(Xte), forest.predict_proba(Xte))


def test_posteriors_move_to_other_priors():
    X, y = blobs()
    rule = BayesDecision(LogisticRegression()).fit(X, y)
    inner = rule.estimator_.predict_proba(X)
    np.testing.assert_array_equal(rule.predict_proba(X), inner)  # priors=None: unchanged
    np.testing.assert_allclose(rule.train_prior_, [1 / 3] * 3)
    new = np.array([0.6, 0.3, 0.1])
    expected = inner * new / rule.train_prior_
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(rule.predict_proba(X, priors=new), expected)
    fixed = BayesDecision(LogisticRegression(), priors={"a": 0.6, "b": 0.3, "c": 0.1}).fit(X, y)
    np.testing.assert_allclose(fixed.class_prior_, new)
    np.testing.assert_allclose(fixed.predict_proba(X), expected)
    np.testing.assert_allclose(np.exp(fixed.predict_log_proba(X)), expected)


def test_agrees_with_bayesrules_own_priors_and_loss():
    X, y = blobs(seed=1)
    loss = LossMatrix([[0, 2, 3], [1, 0, 2], [1, 1, 0], [0.4, 0.4, 0.4]])
    priors = [0.2, 0.5, 0.3]
    native = QuadraticDiscriminant(loss=loss, priors=priors).fit(X, y)
    rule = BayesDecision(QuadraticDiscriminant(), loss=loss, priors=priors).fit(X, y)
    Xt, _ = blobs(seed=2)
    np.testing.assert_allclose(rule.predict_proba(Xt), native.predict_proba(Xt), atol=1e-12)
    np.testing.assert_array_equal(rule.predict(Xt), native.predict(Xt))
    np.testing.assert_allclose(rule.risk(Xt), native.risk(Xt), atol=1e-12)
    assert rule.reject_label_ == "reject" and "reject" in set(rule.predict(Xt))
    np.testing.assert_allclose(
        rule.risk(Xt, priors="uniform"),
        conditional_risk(rule.predict_proba(Xt, priors="uniform"), rule.loss_),
    )


def test_inner_loss_and_priors_are_used_when_not_given():
    X, y = blobs(seed=3)
    rule = BayesDecision(GaussianNB(priors="uniform")).fit(X[:500], y[:500])
    np.testing.assert_allclose(rule.train_prior_, [0.5, 0.5])  # the inner's class_prior_
    inner = GaussianNB(loss=[[0, 5, 5], [1, 0, 1], [1, 1, 0], [0.5, 0.5, 0.5]], reject_label="?")
    rule = BayesDecision(inner).fit(X, y)
    assert rule.reject_label_ == "?" and "?" in set(rule.predict(X))
    np.testing.assert_array_equal(rule.predict(X), rule.estimator_.predict(X))
    assert rule.loss_ == rule.estimator_.loss_


def test_sample_weight_counts_and_passes_through():
    X, y = blobs(seed=4)
    w = np.where(y == "a", 3.0, 1.0)
    rule = BayesDecision(LogisticRegression()).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(rule.class_count_, [900, 300, 300])
    np.testing.assert_allclose(rule.train_prior_, [0.6, 0.2, 0.2])
    same = LogisticRegression().fit(X, y, sample_weight=w)
    np.testing.assert_allclose(rule.estimator_.coef_, same.coef_)


# --------------------------------------------------------------------------- bad input
def test_bad_input():
    X, y = blobs()
    with pytest.raises(NotFittedError):
        BayesDecision(GaussianNB()).predict(X)
    with pytest.raises(ValueError, match="loss matrix has shape"):
        BayesDecision(GaussianNB(), loss=[[0, 1], [1, 0]]).fit(X, y)
    with pytest.raises(ValueError, match="priors must sum to 1"):
        BayesDecision(GaussianNB(), priors=[0.5, 0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="reject_label='a' equals a class"):
        BayesDecision(GaussianNB(), loss=LossMatrix.with_reject(3, 0.1), reject_label="a").fit(X, y)
    rule = BayesDecision(GaussianNB()).fit(X, y)
    with pytest.raises(ValueError, match="priors has shape"):
        rule.predict(X, priors=[0.5, 0.5])


def test_loss_with_a_free_action_warns():
    with pytest.warns(UserWarning, match=r"row\(s\) \[2\].*all zeros"):
        LossMatrix([[0, 1], [1, 0], [0, 0]])
    with pytest.warns(UserWarning, match="costs nothing whatever the class"):
        LossMatrix.with_reject(2, 0.0)
    with pytest.warns(UserWarning, match=r"row\(s\) \[1\] are"):
        as_loss_matrix([[1, 1], [0, 0]], 2, ["a", "b"])
    with pytest.warns(UserWarning, match=r"action\(s\) \['b'\]"):
        LossMatrix([[0, 1], [0, 0]], classes=["a", "b"])
    with warnings.catch_warnings():  # none for sound matrices, or for one action alone
        warnings.simplefilter("error")
        LossMatrix([[0, 1], [1, 0], [0.2, 0.2]])
        LossMatrix([[0, 0]])
        labelled = LossMatrix([[0, 1], [1, 0]], classes=["x", "y"])
        labelled.aligned(np.array(["y", "x"]))
    X, y = blobs()
    with pytest.warns(UserWarning, match="all zeros"):
        BayesDecision(GaussianNB(), loss=[[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 0]]).fit(X, y)


@pytest.mark.parametrize(
    "estimator, check",
    check_cases(
        [
            BayesDecision(GaussianNB()),
            BayesDecision(LogisticRegression()),
            BayesDecision(GaussianNB(), priors="uniform"),
        ]
    ),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kind", ["BayesDecision", "Minimax", "NeymanPearson"])
def test_save_and_load_round_trip(kind, tmp_path):
    from bayesrule import decision
    from bayesrule.io import load, save
    from bayesrule.io.codec import _registry

    cls = getattr(decision, kind)
    assert cls in _registry()[1]  # the package registers them for io
    X, y = blobs(seed=5)
    X, y = X[y != "c"], y[y != "c"]
    est = {
        "BayesDecision": BayesDecision(GaussianNB(), priors=[0.3, 0.7], loss=[[0, 2], [1, 0]]),
        "Minimax": decision.Minimax(QuadraticDiscriminant(), [[0, 4], [1, 0]], random_state=0),
        "NeymanPearson": decision.NeymanPearson(GaussianNB(), random_state=0),
    }[kind].fit(X, y)
    save(est, tmp_path / "model.bayesrule")
    again = load(tmp_path / "model.bayesrule")
    assert (
        type(again) is cls
        and again.get_params(deep=False).keys() == est.get_params(deep=False).keys()
    )
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))
