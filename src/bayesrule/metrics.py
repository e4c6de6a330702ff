"""How well posteriors are calibrated: the Brier score, the expected calibration error
and the reliability table behind both.

Posteriors are calibrated when, among the rows given probability ``p`` for their top
class, a share ``p`` have it as their true class. Decisions by Bayes' rule (a loss
matrix, a reject threshold, other priors) are only as good as that: naive Bayes on
dependent features is typically overconfident.

* :func:`brier_score`: ``mean_i sum_c (P(c|x_i) - [y_i = c])^2`` (Brier 1950), over every
  class; for two classes it is twice scikit-learn's ``brier_score_loss``, which scores
  the positive class alone.
* :func:`expected_calibration_error`: top-label ECE (Guo et al. 2017), the mean gap
  ``|accuracy - confidence|`` over ``n_bins`` equal-width bins of the top posterior,
  weighted by the bins' rows.
* :func:`reliability_table`: the bins themselves.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validation import encode_labels

__all__ = ["brier_score", "expected_calibration_error", "reliability_table"]


def _checked(y, proba, classes):
    proba = np.asarray(proba, dtype=np.float64)
    classes = np.asarray(classes)
    y = np.asarray(y)
    if proba.ndim != 2 or proba.shape != (y.shape[0], classes.size) or y.ndim != 1:
        raise ValueError(
            f"proba must have one row per label and one column per class: got proba of "
            f"shape {proba.shape}, {y.shape[0] if y.ndim else 0} labels and "
            f"{classes.size} classes."
        )
    if not np.isfinite(proba).all() or (proba < 0).any():
        raise ValueError("proba must hold finite non-negative probabilities.")
    return y, proba, encode_labels(y, classes)


def brier_score(y, proba, classes) -> float:
    """Mean squared distance between the posteriors and the one-hot true class.

    Examples
    --------
    >>> from bayesrule.metrics import brier_score
    >>> round(brier_score(["a", "b"], [[0.8, 0.2], [0.4, 0.6]], ["a", "b"]), 12)
    0.2
    """
    _, proba, index = _checked(y, proba, classes)
    onehot = np.zeros_like(proba)
    onehot[np.arange(index.size), index] = 1.0
    return float(np.square(proba - onehot).sum(axis=1).mean())


def reliability_table(y, proba, classes, n_bins: int = 15) -> dict:
    """The rows binned by their top posterior (``n_bins`` equal-width bins of [0, 1],
    each ``(lower, upper]``, the first also holding 0).

    Returns a dict of arrays, one entry per bin: ``lower`` and ``upper`` (the bin's
    edges), ``count``, ``confidence`` (mean top posterior) and ``accuracy`` (share whose
    top class is the true one; NaN for an empty bin).
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"n_bins must be an integer >= 1, got {n_bins!r}")
    _, proba, index = _checked(y, proba, classes)
    top = proba.max(axis=1)
    right = proba.argmax(axis=1) == index
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.clip(np.searchsorted(edges, top, side="left") - 1, 0, n_bins - 1)
    count = np.bincount(which, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = np.bincount(which, top, n_bins) / count
        accuracy = np.bincount(which, right, n_bins) / count
    return {
        "lower": edges[:-1],
        "upper": edges[1:],
        "count": count,
        "confidence": confidence,
        "accuracy": accuracy,
    }


def expected_calibration_error(y, proba, classes, n_bins: int = 15) -> float:
    """``sum_b (n_b / n) |accuracy_b - confidence_b|`` over the bins of
    :func:`reliability_table`.

    Examples
    --------
    >>> from bayesrule.metrics import expected_calibration_error
    >>> proba = [[0.9, 0.1], [0.9, 0.1], [0.3, 0.7], [0.2, 0.8]]
    >>> round(expected_calibration_error([0, 1, 1, 1], proba, [0, 1], n_bins=10), 4)
    0.325
    """
    table = reliability_table(y, proba, classes, n_bins)
    full = table["count"] > 0
    gaps = np.abs(table["accuracy"][full] - table["confidence"][full])
    return float(np.sum(table["count"][full] * gaps) / table["count"].sum())
