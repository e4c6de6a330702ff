"""Figures of the decision layer: Chow's error-reject curve, the risk-coverage curve of
selective classification, and the reliability diagram of posteriors.

matplotlib is imported only when a function here is called (as in :mod:`bayesrule.plot`,
which re-exports these functions).
"""

from __future__ import annotations

import numpy as np

from ..decision.reject import reject_curve as _reject_curve
from ..decision.selective import SelectiveClassifier, risk_coverage_curve
from ..metrics import expected_calibration_error, reliability_table
from ._axes import _pyplot

__all__ = ["reject_curve", "reliability_diagram", "risk_coverage"]


def reject_curve(estimator, X, y, costs=None, *, ax=None, n_labels=6, title=None):
    """Draw Chow's error-reject curve: reject rate against the error on accepted samples.

    One panel: x is the fraction rejected, y the error rate on the samples kept; the
    solid line with dots is the empirical error (from the labels), the dashed line the
    expected error (from the posteriors, the mean of ``1 - max_j P(w_j|x)``). Every
    point is one reject cost ``c`` (reject when the largest posterior is below
    ``1 - c``); a few points are labelled ``c=...`` so the cost can be read off the
    curve. The curves come from
    :func:`bayesrule.decision.reject_curve` (one ``predict_proba``).

    Parameters
    ----------
    estimator : fitted classifier with ``classes_`` and ``predict_proba``
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels.
    costs : array-like, optional
        Reject costs; default 41 from 0 to ``1 - 1/C`` (as
        :func:`bayesrule.decision.reject_curve`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure's.
    n_labels : int, default=6
        How many points (spread along the curve) get their cost written beside them.
    title : str, optional
        Default: "Error-reject curve (Chow's rule)".

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesrule
    >>> from bayesrule.datasets import fruit
    >>> from bayesrule.plot.decision import reject_curve
    >>> X, y = fruit(300, random_state=0, return_X_y=True)
    >>> ax = reject_curve(bayesrule.QuadraticDiscriminant().fit(X, y), X, y)
    >>> ax.get_xlabel()
    'reject rate'
    >>> plt.close(ax.figure)
    """

    plt = _pyplot()
    curve = _reject_curve(estimator, X, y, costs=costs)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 4.5))
    order = np.argsort(curve["reject_rate"], kind="stable")
    rate = curve["reject_rate"][order]
    ax.plot(
        rate,
        curve["accepted_error"][order],
        "o-",
        color="#1f77b4",
        markersize=3,
        label="empirical (labels)",
    )
    ax.plot(
        rate,
        curve["expected_accepted_error"][order],
        "--",
        color="#ff7f0e",
        label="expected (posteriors)",
    )
    # label points of distinct reject rates (the smallest cost reaching each), spread out
    rates = np.unique(rate)
    cost = curve["cost"]
    at_rate = [np.flatnonzero(curve["reject_rate"] == r) for r in rates]
    at_rate = np.array([same[np.argmin(cost[same])] for same in at_rate])
    picks = np.linspace(0, len(rates) - 1, min(max(int(n_labels), 0), len(rates)))
    for i in at_rate[np.unique(picks.round().astype(int))]:
        ax.annotate(
            f"c={cost[i]:.2f}",
            (curve["reject_rate"][i], curve["accepted_error"][i]),
            textcoords="offset points",
            xytext=(4, 5),
            fontsize="x-small",
        )
    ax.set_xlabel("reject rate")
    ax.set_ylabel("error rate on accepted samples")
    ax.set_ylim(bottom=0.0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    ax.set_title(title if title is not None else "Error-reject curve (Chow's rule)")
    return ax


def risk_coverage(model, X, y, *, ax=None, title=None):
    """Draw the error on the accepted rows against the share accepted (every threshold
    of :func:`bayesrule.decision.risk_coverage_curve`); for a fitted
    :class:`~bayesrule.decision.SelectiveClassifier`, also its ``max_error`` and the
    point of its threshold.

    Parameters
    ----------
    model : fitted SelectiveClassifier, or a fitted classifier with ``predict_proba``
        (scored by its largest posterior)
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels.
    ax : matplotlib.axes.Axes, optional
    title : str, optional
        Default: "Risk-coverage curve".

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.datasets import load_breast_cancer
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.plot import risk_coverage
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> ax = risk_coverage(GaussianNB().fit(X, y), X, y)
    >>> ax.get_xlabel()
    'coverage (share of rows accepted)'
    >>> plt.close(ax.figure)
    """
    plt = _pyplot()
    curve = risk_coverage_curve(model, X, y)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 4.5))
    ax.plot(curve["coverage"], curve["risk"], "-", color="#1f77b4", label="error on accepted")
    if isinstance(model, SelectiveClassifier):
        ax.axhline(model.max_error, color="#d62728", ls="--", lw=1, label="max_error")
        accepted = curve["threshold"] >= model.threshold_
        if accepted.any():
            k = np.flatnonzero(accepted)[-1]
            ax.plot(
                curve["coverage"][k],
                curve["risk"][k],
                "o",
                color="#d62728",
                label=f"threshold {model.threshold_:.3g}",
            )
    ax.set_xlabel("coverage (share of rows accepted)")
    ax.set_ylabel("error rate on accepted rows")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(bottom=0.0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    ax.set_title(title if title is not None else "Risk-coverage curve")
    return ax


def reliability_diagram(estimator, X, y, *, n_bins=15, ax=None, title=None):
    """Draw the accuracy of the rows in each bin of their top posterior against the
    bin's mean posterior (the diagonal: calibrated), with the rows per bin as bars and
    the expected calibration error in the title.

    Parameters
    ----------
    estimator : fitted classifier with ``classes_`` and ``predict_proba``
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels.
    n_bins : int, default=15
        Equal-width bins of the top posterior (:func:`bayesrule.metrics.reliability_table`).
    ax : matplotlib.axes.Axes, optional
    title : str, optional
        Default: "Reliability (ECE ...)".

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.datasets import load_breast_cancer
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.plot import reliability_diagram
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> ax = reliability_diagram(GaussianNB().fit(X, y), X, y)
    >>> ax.get_title().startswith("Reliability (ECE ")
    True
    >>> plt.close(ax.figure)
    """
    plt = _pyplot()
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    classes = np.asarray(estimator.classes_)
    table = reliability_table(y, proba, classes, n_bins)
    ece = expected_calibration_error(y, proba, classes, n_bins)
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 5.0))
    full = table["count"] > 0
    width = table["upper"] - table["lower"]
    share = table["count"] / table["count"].sum()
    ax.bar(
        table["lower"],
        share,
        width=width,
        align="edge",
        color="#c7c7c7",
        edgecolor="white",
        label="share of rows",
    )
    ax.plot([0, 1], [0, 1], ":", color="black", lw=1, label="calibrated")
    ax.plot(
        table["confidence"][full], table["accuracy"][full], "o-", color="#1f77b4", label="accuracy"
    )
    ax.set_xlabel("top posterior (confidence)")
    ax.set_ylabel("accuracy")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    ax.set_title(title if title is not None else f"Reliability (ECE {ece:.3f})")
    return ax
