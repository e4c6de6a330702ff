"""Figures of the decision layer: Chow's error-reject curve.

matplotlib is imported only when a function here is called (as in :mod:`bayesrule.plot`,
which re-exports these functions).
"""

from __future__ import annotations

import numpy as np

from ..decision.reject import reject_curve as _reject_curve
from ._axes import _pyplot

__all__ = ["reject_curve"]


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
