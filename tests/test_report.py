import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from bayesrule.report import Report, report

# Eight samples, fixed posteriors and decisions; the sample index is the only feature.
Y_TRUE = np.array(["a", "a", "a", "b", "b", "c", "c", "c"])
PRED = np.array(["a", "b", "reject", "b", "b", "c", "a", "reject"], dtype=object)
PROBA = np.array(
    [
        [0.8, 0.1, 0.1],
        [0.2, 0.7, 0.1],
        [0.4, 0.4, 0.2],
        [0.1, 0.9, 0.0],
        [0.0, 1.0, 0.0],
        [0.1, 0.1, 0.8],
        [0.9, 0.05, 0.05],
        [0.3, 0.3, 0.4],
    ]
)
LOSS_REJECT = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0.3, 0.3, 0.3]])


class FakeEstimator:
    """Returns fixed outputs for rows X[:, 0] = sample index."""

    def __init__(self, classes, pred, proba, loss, reject_label="reject"):
        self.classes_ = np.asarray(classes)
        self.loss_ = SimpleNamespace(matrix=np.asarray(loss, dtype=float))
        self.reject_label_ = reject_label
        extra = [reject_label] if self.loss_.matrix.shape[0] > len(classes) else []
        self.actions_ = np.array(list(classes) + extra, dtype=object)
        self._pred, self._proba = np.asarray(pred, dtype=object), np.asarray(proba)

    def fit(self, X, y):  # pragma: no cover - only marks the object as an estimator
        return self

    def _rows(self, X):
        return np.asarray(X)[:, 0].astype(int)

    def predict(self, X):
        return self._pred[self._rows(X)]

    def predict_proba(self, X):
        return self._proba[self._rows(X)]

    def risk(self, X):
        return self.predict_proba(X) @ self.loss_.matrix.T


X8 = np.arange(8).reshape(-1, 1)


@pytest.fixture
def rejecting():
    return FakeEstimator(["a", "b", "c"], PRED, PROBA, LOSS_REJECT)


@pytest.fixture
def plain():
    pred = np.array(["a", "b", "a", "b", "b", "c", "a", "c"], dtype=object)
    return FakeEstimator(["a", "b", "c"], pred, PROBA, 1 - np.eye(3))


def test_per_class_rates_with_reject(rejecting):
    rep = report(rejecting, X8, Y_TRUE)
    assert isinstance(rep, Report)
    assert rep.has_reject
    assert rep.classes.tolist() == ["a", "b", "c"]
    assert rep.actions.tolist() == ["a", "b", "c", "reject"]
    assert rep.support.tolist() == [3, 2, 3]
    np.testing.assert_allclose(rep.accuracy, [1 / 3, 1, 1 / 3])
    np.testing.assert_allclose(rep.error, [1 / 3, 0, 1 / 3])
    np.testing.assert_allclose(rep.reject, [1 / 3, 0, 1 / 3])
    np.testing.assert_allclose(rep.accuracy + rep.error + rep.reject, 1.0)


def test_overall_rates_confusion_and_risks_with_reject(rejecting):
    rep = report(rejecting, X8, Y_TRUE)
    assert rep.overall_accuracy == pytest.approx(4 / 8)
    assert rep.overall_error == pytest.approx(2 / 8)
    assert rep.overall_reject == pytest.approx(2 / 8)
    assert rep.accepted_accuracy == pytest.approx(4 / 6)
    np.testing.assert_array_equal(rep.confusion_matrix, [[1, 1, 0, 1], [0, 2, 0, 0], [1, 0, 1, 1]])
    # losses incurred: 0, 1, .3, 0, 0, 0, 1, .3
    assert rep.empirical_risk == pytest.approx(2.6 / 8)
    # conditional risks of the chosen actions: .2, .3, .3, .1, 0, .2, .1, .3
    assert rep.expected_risk == pytest.approx(1.5 / 8)
    p_true = [0.8, 0.2, 0.4, 0.9, 1.0, 0.8, 0.05, 0.4]
    assert rep.log_loss == pytest.approx(-sum(map(math.log, p_true)) / 8, abs=1e-9)
    assert rep.n_samples == 8


def test_without_reject_error_is_one_minus_accuracy(plain):
    rep = report(plain, X8, Y_TRUE)
    assert not rep.has_reject
    assert rep.confusion_matrix.shape == (3, 3)
    np.testing.assert_allclose(rep.accuracy, [2 / 3, 1, 2 / 3])
    np.testing.assert_allclose(rep.error, 1 - rep.accuracy)
    np.testing.assert_array_equal(rep.reject, 0)
    assert rep.overall_accuracy == pytest.approx(6 / 8)
    assert rep.overall_error == pytest.approx(2 / 8)
    assert rep.overall_reject == 0
    assert rep.accepted_accuracy == pytest.approx(rep.overall_accuracy)
    assert rep.empirical_risk == pytest.approx(2 / 8)
    # zero-one risk of the chosen action is 1 - its posterior
    chosen = [0.8, 0.7, 0.4, 0.9, 1.0, 0.8, 0.9, 0.4]
    assert rep.expected_risk == pytest.approx(np.mean(1 - np.array(chosen)))


def test_text_table_with_reject(rejecting):
    text = str(report(rejecting, X8, Y_TRUE))
    lines = text.splitlines()
    assert lines[0].split() == ["Accuracy", "(%)", "Error", "(%)", "Reject", "(%)"]
    assert set(lines[1]) <= {"-", " "}
    assert lines[2].split() == ["a", "33.3", "33.3", "33.3"]
    assert lines[3].split() == ["b", "100.0", "0.0", "0.0"]
    assert lines[4].split() == ["c", "33.3", "33.3", "33.3"]
    assert lines[5].split() == ["Overall", "50.0", "25.0", "25.0"]
    assert "Confusion matrix" in lines[7]
    assert lines[8].split() == ["a", "b", "c", "reject"]
    assert lines[10].split() == ["a", "1", "1", "0", "1"]
    assert "Log loss:" in text and "Expected risk:  0.1875" in text
    assert "Empirical risk: 0.3250" in text
    assert "Accuracy on accepted samples (%): 66.7" in text


def test_text_table_without_reject_has_no_reject_column(plain):
    text = str(report(plain, X8, Y_TRUE))
    lines = text.splitlines()
    assert lines[0].split() == ["Accuracy", "(%)", "Error", "(%)"]
    assert lines[5].split() == ["Overall", "75.0", "25.0"]
    assert "reject" not in text.lower()
    # columns line up: every number of the first table ends in the same column
    ends = {len(line) for line in lines[2:6]}
    assert len(ends) == 1


def test_to_dict_is_plain_json(rejecting):
    rep = report(rejecting, X8, Y_TRUE)
    d = rep.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert d["classes"] == ["a", "b", "c"]
    assert d["reject_label"] == "reject"
    assert d["per_class"][1] == {"label": "b", "n": 2, "accuracy": 1.0, "error": 0.0, "reject": 0.0}
    assert d["overall"]["accuracy"] == pytest.approx(0.5)
    assert d["confusion_matrix"][2] == [1, 0, 1, 1]
    assert d["empirical_risk"] == pytest.approx(0.325)


def test_numeric_labels_and_numeric_reject_label():
    y = np.array([0, 0, 1, 1])
    pred = np.array([0, -1, 1, 0])
    proba = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8], [0.6, 0.4]])
    loss = [[0, 1], [1, 0], [0.2, 0.2]]
    est = FakeEstimator([0, 1], pred, proba, loss, reject_label=-1)
    rep = report(est, np.arange(4).reshape(-1, 1), y)
    np.testing.assert_array_equal(rep.confusion_matrix, [[1, 0, 1], [1, 1, 0]])
    d = rep.to_dict()
    assert d["classes"] == [0, 1] and d["reject_label"] == -1
    assert type(d["classes"][0]) is int
    json.dumps(d)


def test_class_absent_from_y_gets_nan_rates_without_warning(rejecting):
    rep = report(rejecting, X8[:5], Y_TRUE[:5])
    assert rep.support.tolist() == [3, 2, 0]
    assert np.isnan(rep.accuracy[2]) and np.isnan(rep.error[2])
    assert rep.to_dict()["per_class"][2]["accuracy"] is None
    assert "nan" in str(rep)


def test_all_rejected_accepted_accuracy_is_nan():
    est = FakeEstimator(["a", "b"], ["reject"] * 2, [[0.5, 0.5]] * 2, [[0, 1], [1, 0], [0.1, 0.1]])
    rep = report(est, np.arange(2).reshape(-1, 1), ["a", "b"])
    assert rep.overall_reject == 1.0
    assert math.isnan(rep.accepted_accuracy)
    assert rep.to_dict()["accepted_accuracy"] is None


def test_unknown_labels_are_named(rejecting):
    y = Y_TRUE.copy().astype(object)
    y[0], y[4] = "zebra", "yak"
    with pytest.raises(ValueError, match="'yak', 'zebra'"):
        report(rejecting, X8, y)


def test_length_mismatch_and_empty_y(rejecting):
    with pytest.raises(ValueError, match="8 samples but y has 7"):
        report(rejecting, X8, Y_TRUE[:7])
    with pytest.raises(ValueError, match="non-empty"):
        report(rejecting, X8[:0], Y_TRUE[:0])


def test_unfitted_estimator_raises_not_fitted():
    from sklearn.exceptions import NotFittedError
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(NotFittedError):
        report(LogisticRegression(), X8, Y_TRUE)


def test_repr_is_short(rejecting):
    assert repr(report(rejecting, X8, Y_TRUE)).startswith("Report(n_samples=8, accuracy=0.5000")


def test_fruit_quadratic_discriminant_reproduces_the_seed_accuracy():
    import bayesrule
    from bayesrule.datasets import fruit

    train, test = fruit(1000, random_state=0), fruit(1000, random_state=1)
    priors = dict(zip(train.target_names.tolist(), train.priors.tolist(), strict=True))
    clf = bayesrule.QuadraticDiscriminant(priors=priors).fit(train.data, train.target)
    np.testing.assert_allclose(clf.class_prior_, [0.4, 0.2, 0.4])  # apple, grapefruit, orange
    rep = report(clf, test.data, test.target)
    assert 0.96 < rep.overall_accuracy < 0.99
    assert rep.overall_accuracy == pytest.approx(clf.score(test.data, test.target))
    assert rep.support.tolist() == [1000, 1000, 1000]
    assert not rep.has_reject
    # zero-one loss: the empirical risk is the error rate
    assert rep.empirical_risk == pytest.approx(rep.overall_error)
    assert 0 < rep.log_loss < 0.2
    assert str(rep).splitlines()[-2].startswith("Empirical risk:")
    # QDA's terms: the quadratic one, the linear one per feature, the constant
    assert str(rep).splitlines()[-1].startswith("Terms that most often decide (rows): ")
    assert sum(dict(rep.deciding).values()) == 3000


def test_fruit_report_with_reject_option():
    import bayesrule
    from bayesrule.datasets import fruit

    train, test = fruit(1000, random_state=0), fruit(1000, random_state=1)
    clf = bayesrule.QuadraticDiscriminant(loss=bayesrule.LossMatrix.with_reject(3, 0.1))
    clf.fit(train.data, train.target)
    rep = report(clf, test.data, test.target)
    assert rep.has_reject and rep.actions[-1] == "reject"
    assert 0 < rep.overall_reject < 0.2
    assert rep.accepted_accuracy > rep.overall_accuracy
    # every conditional risk of the chosen action is at most the reject cost
    assert rep.expected_risk <= 0.1 + 1e-12


def test_package_attribute_report_is_the_function():
    import bayesrule
    import bayesrule.report  # noqa: F401  (importing the submodule must not shadow it)

    assert callable(bayesrule.report)
    assert bayesrule.report.__name__ == "report"


# ------------------------------------------------------------------ cost-weighted confusion
def test_cost_weighted_confusion_matrix_with_reject(rejecting):
    rep = report(rejecting, X8, Y_TRUE)
    # counts [[1, 1, 0, 1], [0, 2, 0, 0], [1, 0, 1, 1]] times L[action, true class]
    np.testing.assert_allclose(rep.cost_matrix, [[0, 1, 0, 0.3], [0, 0, 0, 0], [1, 0, 0, 0.3]])
    np.testing.assert_allclose(rep.class_risk, [1.3 / 3, 0.0, 1.3 / 3])
    assert rep.cost_matrix.sum() == pytest.approx(rep.n_samples * rep.empirical_risk)
    d = rep.to_dict()
    assert d["cost_matrix"][2] == [1.0, 0.0, 0.0, 0.3]
    assert d["class_risk"] == pytest.approx([1.3 / 3, 0.0, 1.3 / 3])
    assert d["loss"] == LOSS_REJECT.tolist()


def test_cost_table_in_text_with_reject(rejecting):
    lines = str(report(rejecting, X8, Y_TRUE)).splitlines()
    start = lines.index("Cost-weighted confusion matrix (loss incurred; rows: true class)")
    assert lines[start + 1].split() == ["a", "b", "c", "reject", "Mean", "loss"]
    assert lines[start + 3].split() == ["a", "0", "1", "0", "0.3", "0.4333"]
    assert lines[start + 4].split() == ["b", "0", "0", "0", "0", "0.0000"]
    assert lines[start + 5].split() == ["c", "1", "0", "0", "0.3", "0.4333"]
    assert lines[-1] == "Accuracy on accepted samples (%): 66.7"


def test_cost_table_left_out_under_zero_one_loss(plain):
    rep = report(plain, X8, Y_TRUE)
    assert "Cost-weighted" not in str(rep)
    errors = rep.confusion_matrix.astype(float)
    np.fill_diagonal(errors, 0)
    np.testing.assert_array_equal(rep.cost_matrix, errors)  # zero-one: the errors
    np.testing.assert_allclose(rep.class_risk, rep.error)
    assert rep.to_dict()["cost_matrix"] == errors.tolist()


def test_cost_table_shown_for_an_asymmetric_loss_without_reject():
    loss = [[0, 5, 1], [1, 0, 1], [1, 1, 0]]  # deciding a on a true b costs 5
    pred = np.array(["a", "b", "a", "b", "b", "c", "a", "c"], dtype=object)
    rep = report(FakeEstimator(["a", "b", "c"], pred, PROBA, loss), X8, Y_TRUE)
    # errors: a decided b (cost 1), c decided a (cost 1); no b decided a
    np.testing.assert_allclose(rep.cost_matrix, [[0, 1, 0], [0, 0, 0], [1, 0, 0]])
    assert rep.empirical_risk == pytest.approx(2 / 8)
    assert "Cost-weighted confusion matrix" in str(rep)


def test_class_risk_nan_for_an_absent_class(rejecting):
    rep = report(rejecting, X8[:5], Y_TRUE[:5])
    assert math.isnan(rep.class_risk[2])
    assert rep.to_dict()["class_risk"][2] is None


def test_fruit_expected_risk_beside_empirical_under_an_asymmetric_loss():
    import bayesrule
    from bayesrule.datasets import fruit

    train, test = fruit(1000, random_state=0), fruit(1000, random_state=1)
    loss = bayesrule.LossMatrix(
        [[0, 2, 3], [1, 0, 2], [1, 1, 0], [0.3, 0.3, 0.3]],
        classes=["apple", "orange", "grapefruit"],
    )
    clf = bayesrule.QuadraticDiscriminant(loss=loss).fit(train.data, train.target)
    rep = report(clf, test.data, test.target)
    # seed 003's loss: deciding orange on a true grapefruit costs 2 (columns sorted:
    # apple, grapefruit, orange; rows the same, then reject)
    aligned = clf.loss_.matrix
    np.testing.assert_allclose(rep.cost_matrix, rep.confusion_matrix * aligned.T)
    assert rep.cost_matrix[1, 2] == 2 * rep.confusion_matrix[1, 2]
    np.testing.assert_allclose(rep.cost_matrix[:, 3], 0.3 * rep.confusion_matrix[:, 3])
    assert rep.cost_matrix.sum() / 3000 == pytest.approx(rep.empirical_risk)
    np.testing.assert_allclose(rep.class_risk.mean(), rep.empirical_risk)  # equal supports
    # the posteriors' expected risk is close to the risk the labels show
    assert abs(rep.expected_risk - rep.empirical_risk) < 0.01
    assert 0.02 < rep.empirical_risk < 0.05
