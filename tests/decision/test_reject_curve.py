"""Chow's error-reject curve: closed form, monotonicity, agreement with a refit, the plot."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from bayesrule import GaussianNB, LossMatrix, QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.decision import reject_curve
from bayesrule.report import report

KEYS = ["cost", "reject_rate", "accepted_error", "expected_accepted_error", "risk"]


def two_gaussians(n, seed):
    """Classes 0 and 1 equally likely, x | k ~ N(2k - 1, 1)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return rng.normal(2.0 * y - 1.0, 1.0)[:, None], y


def chow_closed_form(cost):
    """Reject iff |x| < t with sigmoid(2t) = 1 - c (the true posterior is sigmoid(2x))."""
    t = 0.5 * np.log((1.0 - cost) / cost)
    reject = norm.cdf(t - 1.0) - norm.cdf(-t - 1.0)
    error = norm.cdf(-t - 1.0)  # joint: accepted and wrong
    return reject, error / (1.0 - reject), error + cost * reject


@pytest.fixture(scope="module")
def true_model():
    return GaussianNB.from_parameters([[-1.0], [1.0]], [[1.0], [1.0]])


@pytest.fixture(scope="module")
def fruit_qda():
    train, test = fruit(1000, random_state=0), fruit(1000, random_state=1)
    return QuadraticDiscriminant().fit(train.data, train.target), test.data, test.target


def test_two_gaussians_match_chow_closed_form(true_model):
    n = 200_000
    X, y = two_gaussians(n, 0)
    costs = np.array([0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.45])
    curve = reject_curve(true_model, X, y, costs=costs)
    reject, accepted_error, risk = chow_closed_form(costs)
    se = np.sqrt(0.25 / n)  # binomial standard error bound
    np.testing.assert_allclose(curve["reject_rate"], reject, atol=5 * se)
    se_acc = np.sqrt(accepted_error * (1 - accepted_error) / (n * (1 - reject)))
    assert np.all(np.abs(curve["accepted_error"] - accepted_error) < 5 * se_acc)
    # the posteriors are the true ones: the expected error has only the sampling noise of x
    assert np.all(np.abs(curve["expected_accepted_error"] - accepted_error) < 3 * se_acc)
    np.testing.assert_allclose(curve["risk"], risk, atol=5 * se)
    np.testing.assert_allclose(curve["expected_risk"], risk, atol=5 * se)
    # at 0.1: |x| < ln(9)/2 = 1.0986 is rejected, 52.14% of samples
    assert reject[2] == pytest.approx(0.52135, abs=1e-5)


def test_monotone_in_the_cost(true_model):
    n = 50_000
    X, y = two_gaussians(n, 1)
    costs = np.linspace(0.0, 0.5, 201)
    curve = reject_curve(true_model, X, y, costs=costs)
    assert np.all(np.diff(curve["reject_rate"]) <= 0)
    assert np.all(np.diff(curve["expected_accepted_error"]) >= 0)
    assert curve["reject_rate"][0] == 1.0 and curve["reject_rate"][-1] == 0.0
    # the empirical error follows the expected one within sampling noise
    acc = curve["accepted_error"][1:]
    exp = curve["expected_accepted_error"][1:]
    n_acc = n * (1 - curve["reject_rate"][1:])
    assert np.all(np.abs(acc - exp) <= 4 * np.sqrt(exp * (1 - exp) / n_acc) + 1e-3)
    # and never falls by more than noise as the cost rises
    drop = np.maximum.accumulate(acc) - acc
    assert drop.max() < 4 * np.sqrt(0.16 * 0.84 / (0.3 * n))


@pytest.mark.parametrize("cost", [0.03, 0.12, 0.3, 0.5])
def test_equals_refitting_with_a_reject_loss(cost, fruit_qda):
    model, X, y = fruit_qda
    curve = reject_curve(model, X, y, costs=[cost])
    refit = QuadraticDiscriminant(loss=LossMatrix.with_reject(3, cost))
    refit.fit(*fruit(1000, random_state=0, return_X_y=True))
    pred = refit.predict(X)
    kept = pred != "reject"
    assert curve["reject_rate"][0] == pytest.approx(1 - kept.mean(), abs=1e-15)
    assert curve["accepted_error"][0] == pytest.approx(np.mean(pred[kept] != y[kept]), abs=1e-15)
    rep = report(refit, X, y)
    assert curve["risk"][0] == pytest.approx(rep.empirical_risk, abs=1e-12)
    assert curve["expected_risk"][0] == pytest.approx(rep.expected_risk, abs=1e-12)
    assert rep.overall_reject == pytest.approx(curve["reject_rate"][0], abs=1e-15)


def test_fruit_numbers(fruit_qda):
    curve = reject_curve(*fruit_qda, costs=[0.1, 2 / 3])
    assert curve["reject_rate"][1] == 0.0  # at 1 - 1/C nothing is rejected
    assert curve["accepted_error"][1] == pytest.approx(0.0243, abs=1e-4)  # plain QDA error
    assert 0.05 < curve["reject_rate"][0] < 0.1
    assert curve["accepted_error"][0] < curve["accepted_error"][1] / 2


def test_default_costs_and_shapes(fruit_qda):
    curve = reject_curve(*fruit_qda)
    assert list(curve)[:5] == KEYS
    assert {len(v) for v in curve.values()} == {41}
    assert curve["cost"][0] == 0.0 and curve["cost"][-1] == pytest.approx(2 / 3)
    assert np.all(np.diff(curve["cost"]) > 0)
    assert all(np.isfinite(v).all() for v in curve.values())
    assert curve["reject_rate"][-1] == 0.0


def test_all_rejected_gives_zero_accepted_error_not_nan():
    X = np.array([[-0.1], [0.1], [0.2]])
    model = GaussianNB.from_parameters([[-1.0], [1.0]], [[1.0], [1.0]])
    curve = reject_curve(model, X, [0, 1, 0], costs=0.0)
    assert curve["reject_rate"].tolist() == [1.0]
    assert curve["accepted_error"].tolist() == [0.0]
    assert curve["expected_accepted_error"].tolist() == [0.0]
    assert curve["risk"].tolist() == [0.0]


def test_costs_kept_in_given_order():
    X, y = two_gaussians(500, 2)
    model = GaussianNB().fit(X, y)
    up = reject_curve(model, X, y, costs=[0.1, 0.2, 0.3])
    down = reject_curve(model, X, y, costs=[0.3, 0.2, 0.1])
    for key in KEYS:
        np.testing.assert_array_equal(up[key], down[key][::-1])


def test_any_scikit_learn_classifier_with_string_labels():
    X, y = two_gaussians(2000, 3)
    labels = np.array(["neg", "pos"])[y]
    lr = LogisticRegression().fit(X, labels)
    curve = reject_curve(lr, X, labels, costs=[0.2, 0.5])
    proba = lr.predict_proba(X)
    rejected = 1 - proba.max(axis=1) > 0.2
    assert curve["reject_rate"][0] == pytest.approx(rejected.mean())
    wrong = lr.predict(X) != labels
    assert curve["accepted_error"][1] == pytest.approx(wrong.mean())


def test_bad_input(fruit_qda):
    model, X, y = fruit_qda
    with pytest.raises(NotFittedError):
        reject_curve(QuadraticDiscriminant(), X, y)
    with pytest.raises(ValueError, match=">= 0"):
        reject_curve(model, X, y, costs=[0.1, -0.2])
    with pytest.raises(ValueError, match="finite"):
        reject_curve(model, X, y, costs=[np.nan])
    with pytest.raises(ValueError, match="1-d"):
        reject_curve(model, X, y, costs=[[0.1, 0.2]])
    with pytest.raises(ValueError, match="non-empty"):
        reject_curve(model, X, y, costs=[])
    with pytest.raises(TypeError, match="numbers"):
        reject_curve(model, X, y, costs=["cheap"])
    with pytest.raises(ValueError, match="not among the classes"):
        reject_curve(model, X, np.where(y == "apple", "pear", y))
    with pytest.raises(ValueError, match="predict_proba"):
        reject_curve(model, X, y[:10])


# ------------------------------------------------------------------------------ the figure
def test_plot_writes_a_png(tmp_path, fruit_qda):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bayesrule.plot.decision import reject_curve as plot_reject_curve

    model, X, y = fruit_qda
    ax = plot_reject_curve(model, X, y)
    path = tmp_path / "reject_curve.png"
    ax.figure.savefig(path, dpi=60)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    curve = reject_curve(model, X, y)
    empirical, expected = ax.get_lines()[:2]
    order = np.argsort(curve["reject_rate"], kind="stable")
    np.testing.assert_array_equal(empirical.get_xdata(), curve["reject_rate"][order])
    np.testing.assert_array_equal(empirical.get_ydata(), curve["accepted_error"][order])
    np.testing.assert_array_equal(expected.get_ydata(), curve["expected_accepted_error"][order])
    labels = [t.get_text() for t in ax.texts]
    assert 2 <= len(labels) <= 6 and all(t.startswith("c=") for t in labels)
    assert "c=0.00" in labels  # the point that rejects everything
    assert ax.get_xlabel() == "reject rate"
    plt.close(ax.figure)

    fig, given = plt.subplots()
    assert plot_reject_curve(model, X, y, costs=[0.1, 0.2], ax=given, n_labels=0) is given
    assert len(given.texts) == 0 and len(given.get_lines()[0].get_xdata()) == 2
    plt.close(fig)
