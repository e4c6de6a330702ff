"""Minimax priors and the Minimax rule against closed forms from the normal CDF.

Two classes N(0, 1) and N(2, 1), loss L[action, class] = [[0, 4], [1, 0]] (missing
class 1 costs four times a false alarm). The Bayes rule under priors (p, 1 - p) decides
class 1 when x > b with ``exp(2b - 2) = p / (4 (1 - p))``; its conditional risks are
``R_0 = 1 * P(x > b | 0) = norm.sf(b)`` and ``R_1 = 4 * P(x < b | 1) = 4 norm.cdf(b - 2)``.
The least favourable p makes them equal.
"""

import math

import numpy as np
import pytest
from registry import check_cases
from scipy.optimize import brentq, fsolve
from scipy.stats import norm
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError

from bayesrule import GaussianNB, LossMatrix, QuadraticDiscriminant
from bayesrule.decision import Minimax, minimax_priors

LOSS = np.array([[0.0, 4.0], [1.0, 0.0]])
N = 20_000


def closed_form_two():
    b = brentq(lambda x: norm.sf(x) - 4 * norm.cdf(x - 2), -5, 5)
    odds = 4 * math.exp(2 * b - 2)  # p / (1 - p)
    return odds / (1 + odds), norm.sf(b)


def gaussians(means, n, seed):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(m, 1, (n, 1)) for m in means])
    return X, np.repeat(np.arange(len(means)), n)


def empirical_conditional_risks(pred, y, loss):
    return np.array([loss[pred[y == j], j].mean() for j in range(loss.shape[1])])


@pytest.mark.parametrize("make", [QuadraticDiscriminant, GaussianNB])
def test_two_gaussians_asymmetric_loss_matches_closed_form(make):
    p0, risk = closed_form_two()
    assert 0.6 < p0 < 0.64  # the closed form itself: not the symmetric 1/2
    model = make().fit(*gaussians([0, 2], N, seed=0))
    X, y = gaussians([0, 2], N, seed=1)
    priors, minimax_risk = minimax_priors(model, X, y, loss=LOSS)
    assert priors.sum() == pytest.approx(1.0)
    assert priors[0] == pytest.approx(p0, abs=1e-2)
    assert minimax_risk == pytest.approx(risk, abs=1e-2)


def test_loss_defaults_to_the_estimators_own():
    model = QuadraticDiscriminant(loss=LOSS).fit(*gaussians([0, 2], N, seed=0))
    X, y = gaussians([0, 2], N, seed=1)
    np.testing.assert_allclose(minimax_priors(model, X, y)[0], minimax_priors(model, X, y, LOSS)[0])
    # zero-one loss and equal variances: the symmetric answer, risk Phi(-1)
    priors, risk = minimax_priors(model, X, y, loss=1 - np.eye(2))
    assert priors[0] == pytest.approx(0.5, abs=1e-2)
    assert risk == pytest.approx(norm.cdf(-1), abs=1e-2)


def test_the_training_priors_do_not_matter():
    # trained at 90 / 10, the minimax priors are still those of the closed form
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(0, 1, (9 * N // 5, 1)), rng.normal(2, 1, (N // 5, 1))]
    y = np.repeat([0, 1], [9 * N // 5, N // 5])
    model = QuadraticDiscriminant().fit(X, y)
    priors, _ = minimax_priors(model, *gaussians([0, 2], N, seed=3), loss=LOSS)
    assert priors[0] == pytest.approx(closed_form_two()[0], abs=1e-2)


def test_three_gaussians_zero_one_loss_matches_closed_form():
    # means 0, 2, 4: boundaries b1 = 1 + ln(P0 / P1) / 2 and b2 = 3 + ln(P1 / P2) / 2
    def risks(logits):
        p = np.exp(np.r_[logits, 0.0])
        p /= p.sum()
        b1, b2 = 1 + math.log(p[0] / p[1]) / 2, 3 + math.log(p[1] / p[2]) / 2
        return np.array([norm.sf(b1), norm.cdf(b1 - 2) + norm.sf(b2 - 2), norm.cdf(b2 - 4)]), p

    logits = fsolve(lambda z: np.diff(risks(z)[0]), [0.0, 0.0])
    r, p = risks(logits)
    assert np.ptp(r) < 1e-9 and p[1] > p[0]  # the middle class errs on two sides
    model = QuadraticDiscriminant().fit(*gaussians([0, 2, 4], N, seed=4))
    priors, risk = minimax_priors(model, *gaussians([0, 2, 4], N, seed=5))
    np.testing.assert_allclose(priors, p, atol=1e-2)
    assert risk == pytest.approx(r[0], abs=1e-2)


@pytest.mark.parametrize("calibration", [None, 5, 0.5])
def test_minimax_rule_equalises_the_conditional_risks(calibration):
    p0, risk = closed_form_two()
    rng = np.random.default_rng(6)
    X = np.r_[rng.normal(0, 1, (N, 1)), rng.normal(2, 1, (N // 4, 1))]
    y = np.repeat([0, 1], [N, N // 4])
    rule = Minimax(QuadraticDiscriminant(), LOSS, calibration=calibration, random_state=0)
    rule.fit(X, y)
    assert rule.priors_[0] == pytest.approx(p0, abs=1e-2)
    np.testing.assert_array_equal(rule.class_prior_, rule.priors_)
    assert rule.minimax_risk_ == pytest.approx(risk, abs=1e-2)
    np.testing.assert_allclose(rule.conditional_risks_, risk, atol=1e-2)
    # on fresh labelled data: each class's risk is the minimax risk (sampling error
    # of class 1's risk, 4 x a rate near 0.07 over 100,000 samples: sd 0.003)
    Xt, yt = gaussians([0, 2], 100_000, seed=7)
    measured = empirical_conditional_risks(rule.predict(Xt), yt, LOSS)
    np.testing.assert_allclose(measured, risk, atol=0.015)
    # the Bayes rule under the training priors (80 / 20) is worse in the worst case
    plain = QuadraticDiscriminant(loss=LOSS).fit(X, y)
    assert empirical_conditional_risks(plain.predict(Xt), yt, LOSS).max() > measured.max() + 0.05


def test_with_a_reject_row():
    loss = LossMatrix([[0, 4], [1, 0], [0.3, 0.3]])
    model = QuadraticDiscriminant().fit(*gaussians([0, 2], N, seed=8))
    X, y = gaussians([0, 2], N, seed=9)
    priors, risk = minimax_priors(model, X, y, loss=loss)
    assert risk <= 0.3 + 1e-12  # rejecting everything costs 0.3 under any priors
    rule = Minimax(QuadraticDiscriminant(), loss, calibration=None).fit(*gaussians([0, 2], N, 8))
    np.testing.assert_allclose(rule.priors_, priors, atol=1e-2)
    pred = rule.predict(X)
    assert set(np.unique(pred)) == {-1, 0, 1}
    assert rule.risk(X).shape == (len(X), 3)


def test_separable_classes_give_even_priors():
    X, y = gaussians([0, 100], 50, seed=10)
    model = GaussianNB().fit(X, y)
    priors, risk = minimax_priors(model, X, y)
    np.testing.assert_allclose(priors, [0.5, 0.5])
    assert risk == pytest.approx(0.0, abs=1e-12)


def test_wraps_a_random_forest_with_cross_fitting():
    X, y = gaussians([0, 2], 1000, seed=11)
    rule = Minimax(RandomForestClassifier(50, min_samples_leaf=20, random_state=0), LOSS)
    rule.fit(X, y)
    # held-out forest posteriors are rough; the priors still lean as the closed form does
    assert rule.priors_[0] == pytest.approx(closed_form_two()[0], abs=0.1)
    assert rule.predict(X).shape == (2000,)


def test_string_labels_and_classes_order():
    X, y = gaussians([0, 2], N, seed=12)
    labels = np.array(["healthy", "ill"])[y]
    loss = LossMatrix(LOSS, classes=["healthy", "ill"])
    model = QuadraticDiscriminant().fit(X, labels)
    priors, _ = minimax_priors(model, *gaussians([0, 2], N, seed=13)[:1], labels, loss=loss)
    assert priors[0] == pytest.approx(closed_form_two()[0], abs=1e-2)


# --------------------------------------------------------------------------- bad input
def test_bad_input():
    X, y = gaussians([0, 2], 50, seed=0)
    with pytest.raises(NotFittedError):
        minimax_priors(GaussianNB(), X, y)
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="not among the classes"):
        minimax_priors(model, X, y + 1)
    with pytest.raises(ValueError, match=r"every class must occur in y.*\[1\]"):
        minimax_priors(model, X[:50], y[:50])
    with pytest.raises(ValueError, match="loss matrix has shape"):
        minimax_priors(model, X, y, loss=np.ones((3, 3)) - np.eye(3))
    with pytest.raises(ValueError, match="samples but y has"):
        minimax_priors(model, X, y[:-1])
    with pytest.raises(ValueError, match="calibration must be None"):
        Minimax(GaussianNB(), calibration=1).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        Minimax(GaussianNB()).fit(X, np.zeros(100, int))


@pytest.mark.parametrize(
    "estimator, check",
    check_cases([Minimax(GaussianNB(), calibration=2), Minimax(GaussianNB(), calibration=None)]),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_fifty_classes_need_no_array_of_samples_by_actions_by_classes():
    """Issue 16: the rule under each trial prior is found from the (n, C) weights and
    the (a, C) loss; no (n, a, C) array (here 50x the weights) is ever held."""
    import tracemalloc

    from bayesrule.decision.minimax import least_favourable

    rng = np.random.default_rng(0)
    n, C = 2000, 50
    weights = rng.gamma(2.0, size=(n, C))
    weights /= weights.mean(axis=0)
    loss = 1.0 - np.eye(C)
    with pytest.warns(Warning):  # warm up (imports, LP solver)
        least_favourable(weights, loss, max_iter=3)
    tracemalloc.start()
    with pytest.warns(Warning):  # three cutting planes: not converged
        priors, risk, conditional = least_favourable(weights, loss, max_iter=3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 6 * weights.nbytes  # (n, a, C) alone is 50 * weights.nbytes
    np.testing.assert_allclose(priors.sum(), 1.0)
    assert 0.0 < risk < 1.0 and conditional.shape == (C,)
