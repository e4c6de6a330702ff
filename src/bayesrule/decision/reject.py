"""The reject option, measured: Chow's error-reject curve and rejection by low evidence.

Chow's rule with a reject action of cost ``c`` (zero-one loss otherwise,
:meth:`LossMatrix.with_reject`) rejects a sample when its largest posterior is below
``1 - c``: the risk of deciding, ``1 - max_j P(w_j|x)``, exceeds the risk of rejecting.
Sweeping ``c`` from 0 (reject all that is not certain) to ``1 - 1/C`` (reject nothing)
traces the trade-off between the reject rate and the error on the samples kept.

Rejection by low evidence is the other kind: a sample far from every class (an outlier,
small ``p(x)``) can have a confident posterior, so Chow's rule keeps it;
``predict(X, reject_below_evidence=t)`` rejects the samples with ``ln p(x) < t``.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import encode_labels
from ._loss import LossMatrix, reject_and_actions

__all__ = ["reject_curve", "reject_low_evidence"]


def _costs(costs, n_classes: int) -> np.ndarray:
    if costs is None:
        # denser near 0, where the reject rate moves fastest
        return (1.0 - 1.0 / n_classes) * np.linspace(0.0, 1.0, 41) ** 2
    try:
        c = np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"costs must be numbers, got {costs!r}") from exc
    if c.ndim == 0:
        c = c.reshape(1)
    if c.ndim != 1 or c.size == 0:
        raise ValueError(
            f"costs must be a non-empty 1-d array of reject costs, got shape {c.shape}"
        )
    if not np.all(np.isfinite(c)) or (c < 0).any():
        raise ValueError(f"reject costs must be finite and >= 0, got {c.tolist()}")
    return c


def reject_curve(estimator, X, y, costs=None) -> dict:
    """Chow's error-reject trade-off of a fitted classifier over a range of reject costs.

    One call to ``estimator.predict_proba(X)``; for each cost ``c`` the samples whose
    largest posterior is below ``1 - c`` are rejected (what the estimator would decide
    with ``loss=LossMatrix.with_reject(C, c)``, whatever its own loss), the others are
    given the class of largest posterior.

    Parameters
    ----------
    estimator : fitted classifier
        Any object with ``classes_`` and ``predict_proba`` (a bayesrule estimator, or a
        scikit-learn classifier).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels, each one of ``estimator.classes_``.
    costs : array-like of shape (k,), optional
        Reject costs, each >= 0, kept in the order given. Default: 41 costs from 0 to
        ``1 - 1/C`` (beyond which nothing is ever rejected: the largest of C posteriors
        is at least 1/C), ``(1 - 1/C) * t**2`` for ``t`` evenly spaced in [0, 1] so
        that they are denser at small costs, where the reject rate moves fastest.

    Returns
    -------
    dict of ndarray of shape (k,)
        ``cost``; ``reject_rate`` (fraction rejected); ``accepted_error`` (empirical
        error rate on the accepted samples, from the labels); ``expected_accepted_error``
        (the mean of ``1 - max_j P(w_j|x)`` over the accepted samples, from the
        posteriors); ``risk`` (empirical risk of Chow's loss: errors on the accepted
        samples over all samples, plus ``cost * reject_rate``) and ``expected_risk``
        (the same from the posteriors). When every sample is rejected the two
        ``accepted`` errors are 0 (nothing accepted, nothing wrong), never NaN.

    Notes
    -----
    As the cost rises the reject rate never increases and ``expected_accepted_error``
    never decreases (the samples let in are the least certain ones); the empirical
    ``accepted_error`` follows within sampling noise. A sample is rejected when
    ``1 - max_j P(w_j|x) > c``: at equality the class is kept, as
    :func:`bayes_action` breaks ties towards the first (class) action.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.decision import reject_curve
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 2000)
    >>> X = rng.normal(2.0 * y - 1.0, 1.0)[:, None]
    >>> clf = GaussianNB().fit(X, y)
    >>> curve = reject_curve(clf, X, y, costs=[0.1, 0.3, 0.5])
    >>> curve["reject_rate"].round(2), curve["accepted_error"].round(3)
    (array([0.52, 0.2 , 0.  ]), array([0.03 , 0.091, 0.151]))
    """
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet; call fit(X, y) "
            "before reject_curve."
        )
    classes = np.asarray(classes)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] == 0:
        raise ValueError(f"y must be a non-empty 1-d array of labels, got shape {y.shape}.")
    y_idx = encode_labels(y, classes)
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    if proba.shape != (y.shape[0], len(classes)):
        raise ValueError(
            f"predict_proba(X) has shape {proba.shape}; expected ({y.shape[0]}, "
            f"{len(classes)}) for y's {y.shape[0]} labels and the estimator's classes."
        )
    cost = _costs(costs, len(classes))

    # risk of deciding each sample: 1 - max posterior, sorted; accepted at cost c are r <= c
    risk_decide = 1.0 - proba.max(axis=1)
    wrong = proba.argmax(axis=1) != y_idx
    order = np.argsort(risk_decide, kind="stable")
    r_sorted = risk_decide[order]
    n = y.shape[0]
    errors = np.concatenate([[0.0], np.cumsum(wrong[order])])
    expected = np.concatenate([[0.0], np.cumsum(r_sorted)])
    accepted = np.searchsorted(r_sorted, cost, side="right")
    n_acc = np.maximum(accepted, 1)  # 0 accepted: 0 / 1 = 0, no NaN
    reject_rate = 1.0 - accepted / n
    return {
        "cost": cost,
        "reject_rate": reject_rate,
        "accepted_error": errors[accepted] / n_acc,
        "expected_accepted_error": expected[accepted] / n_acc,
        "risk": errors[accepted] / n + cost * reject_rate,
        "expected_risk": expected[accepted] / n + cost * reject_rate,
    }


def reject_low_evidence(decisions, log_evidence, threshold, reject_label, classes):
    """``decisions`` with the samples of ``log_evidence < threshold`` set to the reject label.

    The array keeps the type of the estimator's actions with a reject action (object
    when the reject label and the classes differ in kind), so it holds the label even
    when the loss has no reject row.
    """
    if not isinstance(threshold, numbers.Real) or isinstance(threshold, bool):
        raise TypeError(
            f"reject_below_evidence must be a number (a threshold on ln p(x)), got {threshold!r}"
        )
    if np.isnan(threshold):
        raise ValueError("reject_below_evidence must be a number or -inf, not NaN")
    _, actions = reject_and_actions(
        reject_label, classes, LossMatrix.with_reject(len(classes), 1.0)
    )
    out = np.asarray(decisions).astype(actions.dtype)
    out[np.asarray(log_evidence) < threshold] = reject_label
    return out
