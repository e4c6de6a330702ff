"""Evaluation report of a fitted Bayes classifier: the accuracy table, and more."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.metrics import log_loss

from ._validation import encode_labels
from .decision import conditional_risk
from .decision._loss import is_zero_one_matrix
from .metrics import brier_score, expected_calibration_error, reliability_table

__all__ = ["Report", "report"]


def _check_fitted(estimator) -> None:
    """NotFittedError unless ``estimator`` has ``classes_`` (duck-typed, any object)."""
    if getattr(estimator, "classes_", None) is None:
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet; call fit(X, y) "
            "before using it here."
        )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    return np.divide(num, den, out=np.full(np.broadcast(num, den).shape, np.nan), where=den > 0)


def _plain(value: float) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


@dataclass(frozen=True, eq=False, repr=False)
class Report:
    """Scores of a classifier on labelled data; ``print()`` shows them as tables.

    Per class c, ``accuracy[c]`` is the fraction of its samples decided c,
    ``error[c]`` the fraction decided another class and ``reject[c]`` the fraction
    rejected, so the three sum to 1. The ``overall_*`` values are the same fractions
    over all samples. Rates of a class without samples are NaN.

    Attributes
    ----------
    classes : ndarray of shape (C,)
    actions : ndarray of shape (a,)
        The classes, followed by the reject label when the loss has a reject row.
    support : ndarray of shape (C,)
        Number of samples of each class.
    accuracy, error, reject : ndarray of shape (C,)
    overall_accuracy, overall_error, overall_reject : float
    confusion_matrix : ndarray of shape (C, a)
        Counts; rows are true classes, columns the actions taken.
    log_loss : float
        Cross-entropy of the posteriors, :func:`sklearn.metrics.log_loss`.
    brier_score : float
        Mean squared distance of the posteriors from the one-hot true class
        (:func:`bayesrule.metrics.brier_score`).
    calibration_error : float
        Top-label expected calibration error over 15 bins
        (:func:`bayesrule.metrics.expected_calibration_error`).
    reliability : dict of ndarray
        The bins behind it (:func:`bayesrule.metrics.reliability_table`).
    expected_risk : float
        Mean conditional risk R(a(x) | x) of the chosen actions, from the posteriors.
    empirical_risk : float
        Mean loss L[a(x), true class] actually incurred.
    accepted_accuracy : float
        Accuracy on the samples not rejected (NaN if all were rejected).
    cost_matrix : ndarray of shape (C, a)
        The cost-weighted confusion matrix: ``confusion_matrix[j, i] * L[i, j]``, the
        loss incurred by deciding action i on the samples of true class j; it sums to
        ``n_samples * empirical_risk``.
    class_risk : ndarray of shape (C,)
        Mean loss incurred on each true class (the class-conditional risks that the
        minimax rule equalises); NaN for a class without samples.
    loss : ndarray of shape (a, C)
        The estimator's loss ``L[action, true class]`` the risks are under. ``print()``
        shows the cost-weighted table unless it is zero-one (it would repeat the
        confusion matrix's off-diagonal).
    deciding : tuple of (str, int)
        The likelihood terms (features; attributes given their parents) that most often
        weigh most for the decision against the runner-up, and in how many rows
        (``explain``); empty where no term is a feature's (mixtures, kernel densities).
    """

    classes: np.ndarray
    actions: np.ndarray
    support: np.ndarray
    accuracy: np.ndarray
    error: np.ndarray
    reject: np.ndarray
    overall_accuracy: float
    overall_error: float
    overall_reject: float
    confusion_matrix: np.ndarray
    log_loss: float
    brier_score: float
    calibration_error: float
    reliability: dict
    expected_risk: float
    empirical_risk: float
    accepted_accuracy: float
    cost_matrix: np.ndarray
    class_risk: np.ndarray
    loss: np.ndarray
    deciding: tuple = ()

    @property
    def has_reject(self) -> bool:
        """Whether the decisions include a reject action."""
        return len(self.actions) == len(self.classes) + 1

    def _zero_one(self) -> bool:
        """Whether the loss was zero-one (the cost matrix repeats the confusion)."""
        return is_zero_one_matrix(self.loss)

    @property
    def n_samples(self) -> int:
        """Number of samples scored."""
        return int(self.support.sum())

    def to_dict(self) -> dict:
        """The report as plain Python types (lists, floats, ints; NaN as None)."""
        out = {
            "classes": self.classes.tolist(),
            "actions": self.actions.tolist(),
            "reject_label": self.actions.tolist()[-1] if self.has_reject else None,
            "per_class": [
                {
                    "label": label,
                    "n": int(n),
                    "accuracy": _plain(acc),
                    "error": _plain(err),
                    "reject": _plain(rej),
                }
                for label, n, acc, err, rej in zip(
                    self.classes.tolist(),
                    self.support,
                    self.accuracy,
                    self.error,
                    self.reject,
                    strict=True,
                )
            ],
            "overall": {
                "n": self.n_samples,
                "accuracy": _plain(self.overall_accuracy),
                "error": _plain(self.overall_error),
                "reject": _plain(self.overall_reject),
            },
            "confusion_matrix": self.confusion_matrix.tolist(),
            "cost_matrix": self.cost_matrix.tolist(),
            "class_risk": [_plain(r) for r in self.class_risk],
            "loss": self.loss.tolist(),
        }
        for key in (
            "log_loss",
            "brier_score",
            "calibration_error",
            "expected_risk",
            "empirical_risk",
            "accepted_accuracy",
        ):
            out[key] = _plain(getattr(self, key))
        out["reliability"] = {
            k: [_plain(v) for v in values.tolist()] for k, values in self.reliability.items()
        }
        return out

    def __repr__(self) -> str:
        return (
            f"Report(n_samples={self.n_samples}, accuracy={self.overall_accuracy:.4f}, "
            f"reject={self.overall_reject:.4f}, log_loss={self.log_loss:.4f})"
        )

    def __str__(self) -> str:
        names = [str(c) for c in self.classes]
        header = ["", "Accuracy (%)", "Error (%)"] + (["Reject (%)"] if self.has_reject else [])
        rows = []
        for name, *rates in zip(names, self.accuracy, self.error, self.reject, strict=True):
            rows.append([name] + [f"{100 * r:.1f}" for r in rates[: len(header) - 1]])
        overall = (self.overall_accuracy, self.overall_error, self.overall_reject)
        rows.append(["Overall"] + [f"{100 * r:.1f}" for r in overall[: len(header) - 1]])
        lines = _table(header, rows)

        columns = names + (["reject"] if self.has_reject else [])
        counts = [[n, *map(str, r)] for n, r in zip(names, self.confusion_matrix, strict=True)]
        lines += ["", "Confusion matrix (rows: true class, columns: decision)"]
        lines += _table(["", *columns], counts)
        if not self._zero_one():  # under zero-one loss it is the confusion's off-diagonal
            costs = [
                [n, *(f"{v:.4g}" for v in r), f"{m:.4f}"]
                for n, r, m in zip(names, self.cost_matrix, self.class_risk, strict=True)
            ]
            lines += ["", "Cost-weighted confusion matrix (loss incurred; rows: true class)"]
            lines += _table(["", *columns, "Mean loss"], costs)

        lines += [
            "",
            f"Log loss:       {self.log_loss:.4f}",
            f"Brier score:    {self.brier_score:.4f}",
            f"Calibration error (ECE, 15 bins): {self.calibration_error:.4f}",
            f"Expected risk:  {self.expected_risk:.4f}",
            f"Empirical risk: {self.empirical_risk:.4f}",
        ]
        if self.has_reject:
            lines.append(f"Accuracy on accepted samples (%): {100 * self.accepted_accuracy:.1f}")
        if self.deciding:
            shown = ", ".join(f"{name} ({rows})" for name, rows in self.deciding)
            lines.append(f"Terms that most often decide (rows): {shown}")
        return "\n".join(lines)


def _table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    """Plain-text table: the first ``left`` columns left-aligned, the others right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        return "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return [line(header), rule, *(line(r) for r in rows)]


def report(estimator, X, y) -> Report:
    """Score a fitted Bayes classifier on labelled data.

    Parameters
    ----------
    estimator : fitted classifier
        Needs ``classes_``, ``predict`` and ``predict_proba``; ``actions_`` and ``loss_``
        where it has them (else its classes and zero-one loss).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels, each one of ``estimator.classes_``.

    Returns
    -------
    Report
        Per-class and overall accuracy, error and reject rates (the source's accuracy
        table), confusion matrix, log loss, expected risk (from the posteriors) beside
        empirical risk (from the labels) under the estimator's loss, and the
        cost-weighted confusion matrix.

    Raises
    ------
    ValueError
        If ``y`` is empty, has the wrong length, or holds labels the estimator
        was not fitted on.

    Examples
    --------
    >>> from bayesrule import QuadraticDiscriminant
    >>> from bayesrule.datasets import fruit
    >>> from bayesrule.report import report
    >>> train, test = fruit(1000, random_state=0), fruit(1000, random_state=1)
    >>> priors = dict(zip(train.target_names, train.priors))  # classes_ get sorted
    >>> clf = QuadraticDiscriminant(priors=priors).fit(train.data, train.target)
    >>> rep = report(clf, test.data, test.target)
    >>> 0.96 < rep.overall_accuracy < 0.99
    True
    >>> print(str(rep).splitlines()[0])
                Accuracy (%)  Error (%)
    """
    _check_fitted(estimator)
    classes = np.asarray(estimator.classes_)
    actions = np.asarray(getattr(estimator, "actions_", classes))
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] == 0:
        raise ValueError(f"y must be a non-empty 1-d array of labels, got shape {y.shape}.")
    y_idx = encode_labels(y, classes)
    # the estimator's own decisions (a meta-estimator may not take the least-risk action)
    a_idx = encode_labels(estimator.predict(X), actions, name="estimator.predict(X)")
    if a_idx.shape[0] != y.shape[0]:
        n = a_idx.shape[0]
        raise ValueError(f"X has {n} sample{'' if n == 1 else 's'} but y has {y.shape[0]}.")
    proba = np.asarray(estimator.predict_proba(X), dtype=float)
    n_classes, n_actions = len(classes), len(actions)
    if n_actions not in (n_classes, n_classes + 1):
        raise ValueError(f"estimator has {n_actions} actions_ for {n_classes} classes_.")

    confusion = np.zeros((n_classes, n_actions), dtype=np.int64)
    np.add.at(confusion, (y_idx, a_idx), 1)
    support = confusion.sum(axis=1)
    correct = np.diag(confusion[:, :n_classes])
    rejected = confusion[:, n_classes] if n_actions > n_classes else np.zeros_like(support)
    accuracy = _ratio(correct, support)
    reject = _ratio(rejected, support)
    n = y.shape[0]
    accepted = n - rejected.sum()

    fitted_loss = getattr(estimator, "loss_", None)  # none: zero-one (e.g. Calibrated)
    if fitted_loss is None:
        fitted_loss = 1.0 - np.eye(n_actions, n_classes)
    loss = np.asarray(getattr(fitted_loss, "matrix", fitted_loss), dtype=float)
    risk = conditional_risk(proba, loss)  # from the same posteriors, not a second pass
    if loss.shape != (n_actions, n_classes) or risk.shape != (n, n_actions):
        raise ValueError(
            f"loss_ has shape {loss.shape} and risk(X) {risk.shape}; expected "
            f"{(n_actions, n_classes)} and {(n, n_actions)} for the estimator's actions_."
        )
    cost_matrix = confusion * loss.T  # [j, i]: count of (class j, action i) x L[i, j]
    return Report(
        classes=classes,
        actions=actions,
        support=support,
        accuracy=accuracy,
        error=_ratio(support - correct - rejected, support),
        reject=reject,
        overall_accuracy=float(correct.sum() / n),
        overall_error=float((n - correct.sum() - rejected.sum()) / n),
        overall_reject=float(rejected.sum() / n),
        confusion_matrix=confusion,
        log_loss=float(log_loss(y, proba, labels=classes)),
        brier_score=brier_score(y, proba, classes),
        calibration_error=expected_calibration_error(y, proba, classes),
        reliability=reliability_table(y, proba, classes),
        expected_risk=float(risk[np.arange(n), a_idx].mean()),
        empirical_risk=float(loss[a_idx, y_idx].mean()),
        accepted_accuracy=float(correct.sum() / accepted) if accepted else math.nan,
        cost_matrix=cost_matrix,
        class_risk=_ratio(cost_matrix.sum(axis=1), support),
        loss=loss,
        deciding=deciding_terms(estimator, X),
    )


#: rows explained at once by :func:`deciding_terms`
EXPLAIN_ROWS = 2000


def deciding_terms(estimator, X, top: int = 5) -> tuple:
    """The likelihood terms that most often weigh most for the decided class against
    the runner-up (:meth:`bayesrule.explain.Explanation.deciding_features`), counted over
    every row: ``((name, rows), ...)``; empty where the estimator has no ``explain`` or
    no term of its likelihood is a feature's."""
    if not hasattr(estimator, "explain"):
        return ()
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    counts: dict = {}
    for start in range(0, n, EXPLAIN_ROWS):
        rows = slice(start, start + EXPLAIN_ROWS)
        part = X.iloc[rows] if hasattr(X, "iloc") else X[rows]
        why = estimator.explain(part)
        if not any(why.of_features):
            return ()
        for name, found in why.deciding_features(top=len(why.names)):
            counts[name] = counts.get(name, 0) + found
    ranked = sorted(counts.items(), key=lambda item: -item[1])[:top]
    return tuple(ranked)
