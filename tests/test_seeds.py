"""The worked examples of the seed documents (DESIGN.md section 4), to the printed digits."""

import numpy as np
import pytest

from bayesrule import (
    BayesClassifier,
    GaussianNB,
    LinearDiscriminant,
    LossMatrix,
    QuadraticDiscriminant,
    bayes,
    report,
)
from bayesrule.datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_MEANS, FRUIT_PRIORS, fruit
from bayesrule.decision import bayes_action, conditional_risk
from bayesrule.likelihoods import Gaussian

X_FRUIT = np.array([[170.0, 585.0]])
SEED_LOSS = [[0, 2, 3], [1, 0, 2], [1, 1, 0]]


def seed_fruit_model(**kwargs):
    return QuadraticDiscriminant.from_parameters(
        FRUIT_MEANS, FRUIT_COVARIANCES, priors=FRUIT_PRIORS, classes=FRUIT_CLASSES, **kwargs
    )


def test_fruit_likelihoods_003():
    like = np.exp(seed_fruit_model().log_likelihood(X_FRUIT))[0]
    np.testing.assert_allclose(like, [6.1364e-5, 3.3501e-5, 2.9236e-7], rtol=5e-5)


def test_fruit_evidence_posteriors_and_decision_003():
    model = seed_fruit_model()
    evidence = np.exp(model.log_evidence(X_FRUIT))[0]
    assert evidence == pytest.approx(3.8004e-5, rel=5e-5)
    np.testing.assert_allclose(model.predict_proba(X_FRUIT)[0], [0.6459, 0.3526, 0.0015], atol=5e-5)
    assert model.predict(X_FRUIT)[0] == "apple"


def test_fruit_bayes_theorem_by_hand_003():
    posterior, evidence = bayes([0.4, 0.4, 0.2], [6.1364e-5, 3.3501e-5, 2.9236e-7])
    assert evidence == pytest.approx(3.8004e-5, rel=5e-5)
    np.testing.assert_allclose(posterior, [0.6459, 0.3526, 0.0015], atol=5e-5)


def test_fruit_loss_matrix_changes_the_decision_003():
    model = seed_fruit_model(loss=SEED_LOSS)
    np.testing.assert_allclose(model.risk(X_FRUIT)[0], [0.7097, 0.6489, 0.9985], atol=1e-3)
    assert model.predict(X_FRUIT)[0] == "orange"
    # the seed's own arithmetic, on its rounded posteriors, gives its printed digits
    rounded = np.array([[0.6459, 0.3526, 0.0015]])
    np.testing.assert_allclose(
        conditional_risk(rounded, LossMatrix(SEED_LOSS)), [[0.7097, 0.6489, 0.9985]], atol=1e-12
    )
    assert bayes_action(rounded, LossMatrix(SEED_LOSS))[0] == 1


def test_zero_one_loss_is_one_minus_posterior_003():
    model = seed_fruit_model(loss=LossMatrix.zero_one(3))
    post = model.predict_proba(X_FRUIT)
    np.testing.assert_allclose(model.risk(X_FRUIT), 1 - post, atol=1e-15)
    assert 1 - post[0, 0] == pytest.approx(0.3541, abs=1e-4)


def _region_share(model, label):
    g1, g2 = np.meshgrid(np.linspace(80, 320, 120), np.linspace(500, 680, 120))
    grid = np.column_stack([g1.ravel(), g2.ravel()])
    return np.mean(model.predict(grid) == label)


def test_costly_oranges_enlarge_the_orange_region_003():
    base = _region_share(seed_fruit_model(loss=SEED_LOSS), "orange")
    shortage = _region_share(seed_fruit_model(loss=[[0, 100, 3], [1, 0, 2], [1, 100, 0]]), "orange")
    assert shortage > base + 0.05


def test_a_larger_prior_enlarges_its_region_003():
    small = _region_share(seed_fruit_model(), "apple")
    big = QuadraticDiscriminant.from_parameters(
        FRUIT_MEANS, FRUIT_COVARIANCES, priors=[0.8, 0.1, 0.1], classes=FRUIT_CLASSES
    )
    assert _region_share(big, "apple") > small


def test_seed_discriminant_coefficients_003():
    # the seed prints the estimates of its run and the W, w, w0 they give (eqs. 24-26)
    means = [
        [150.37973903, 560.89604937],
        [159.35012433, 614.69751562],
        [230.0805077, 619.66884803],
    ]
    covs = [
        [[183.4614201, 0.7174097], [0.7174097, 202.94687409]],
        [[252.52231456, -1.79687041], [-1.79687041, 141.14576154]],
        [[413.33749814, 6.07561807], [6.07561807, 207.31687782]],
    ]
    model = QuadraticDiscriminant.from_parameters(means, covs, priors=[0.4, 0.4, 0.2])
    np.testing.assert_allclose(
        model.quadratic_coef_[0],
        [[-2.72540631e-03, 9.63421064e-06], [9.63421064e-06, -2.46373300e-03]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(model.coef_[1], [0.66208303, 4.36348344], rtol=1e-6)
    np.testing.assert_allclose(model.coef_[2], [0.51292673, 2.97396193], rtol=1e-6)
    np.testing.assert_allclose(
        model.intercept_, [-841.28722445, -1400.01961304, -987.73148023], rtol=1e-8
    )


def test_fruit_accuracy_near_the_seed_table_003():
    train, test = fruit(1000, random_state=0), fruit(1000, random_state=1)
    priors = dict(zip(train.target_names, train.priors, strict=True))
    model = QuadraticDiscriminant(priors=priors).fit(train.data, train.target)
    rep = report(model, test.data, test.target)
    assert 0.965 <= rep.overall_accuracy <= 0.985
    # the estimates are close to the truth (about 3 standard errors at n = 1000)
    order = [list(model.classes_).index(c) for c in FRUIT_CLASSES]
    np.testing.assert_allclose(model.means_[order], FRUIT_MEANS, atol=2.0)
    np.testing.assert_allclose(model.covariances_[order], FRUIT_COVARIANCES, atol=40.0)


def test_four_class_table_004():
    mu = [[1.6, 2.4, 4.3], [1.5, 2.9, 6.1], [1.8, 2.5, 4.2], [1.1, 3.1, 5.6]]
    sd = np.array([[0.1, 0.5, 0.2], [0.2, 0.6, 0.9], [0.3, 0.3, 0.3], [0.2, 0.7, 0.3]])
    x = [[1.67, 2.00, 4.23]]
    nb = GaussianNB.from_parameters(mu, sd**2)
    # the seed's unscaled g drops (2 pi)^(-3/2) and the equal priors
    g = np.exp(nb.log_likelihood(x))[0] * (2 * np.pi) ** 1.5
    np.testing.assert_allclose(g[:3], [53.5, 0.242, 8.37], rtol=2e-3)
    assert g[3] == pytest.approx(3.53e-6, rel=2e-3)
    assert nb.predict(x)[0] == 0
    np.testing.assert_allclose(nb.predict_proba(x)[0], g / g.sum(), rtol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        GaussianNB,
        QuadraticDiscriminant,
        LinearDiscriminant,
        lambda: BayesClassifier(Gaussian("diag")),
    ],
)
def test_two_class_gaussian_example_002(make):
    X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]], dtype=float)
    y = np.array([1, 1, 1, 2, 2, 2])
    model = make().fit(X, y)
    assert model.predict([[-0.8, -1.0]])[0] == 1
    np.testing.assert_allclose(model.class_prior_, [0.5, 0.5])


def test_red_and_blue_boxes_002():
    # P(red) = 0.4; red: 2 apples 6 oranges; blue: 3 apples 1 orange
    post_apple, p_apple = bayes([0.4, 0.6], [2 / 8, 3 / 4])
    post_orange, p_orange = bayes([0.4, 0.6], [6 / 8, 1 / 4])
    assert p_apple == pytest.approx(0.55)
    assert p_apple + p_orange == pytest.approx(1.0)
    assert post_orange[0] == pytest.approx(2 / 3)
    # arrays of observations: the class axis is the last one
    posts, evid = bayes([0.4, 0.6], [[2 / 8, 3 / 4], [6 / 8, 1 / 4]])
    np.testing.assert_allclose(evid, [0.55, 0.45])
    np.testing.assert_allclose(posts.sum(axis=1), 1.0)


def test_ml_estimates_divide_by_n_000():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 2)) @ [[1.0, 0.3], [0.0, 2.0]]
    y = np.repeat([0, 1], 25)
    qda = QuadraticDiscriminant().fit(X, y)
    for c in (0, 1):
        np.testing.assert_allclose(qda.covariances_[c], np.cov(X[y == c].T, bias=True), rtol=1e-12)
