"""Figure of one decision's explanation: a waterfall of the log-odds terms
(:meth:`bayesrule.BayesClassifier.explain`).

matplotlib is imported only when the function is called (as in :mod:`bayesrule.plot`).
"""

from __future__ import annotations

import numpy as np

from ..explain import Explanation
from ._axes import _pyplot

__all__ = ["explanation"]


def explanation(why, row: int = 0, against=None, *, top: int = 12, ax=None, title=None):
    """Draw the terms of ``ln P(decided|x) / P(against|x)`` for one row as a waterfall.

    Each bar starts where the previous one ended: the prior's term first, then the
    likelihood's terms by decreasing size (the ``top`` largest; the rest summed in one
    bar), and a last bar from 0 to the total, the log odds. Terms for the decided class
    are blue, against it orange.

    Parameters
    ----------
    why : Explanation
        From ``model.explain(X)``.
    row : int, default=0
        The row of ``X`` to draw.
    against : class label, optional
        The class the decision is weighed against; default the runner-up (the most
        probable other class).
    top : int, default=12
        Terms drawn one by one; the others are summed in a bar "other terms".
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure's.
    title : str, optional
        Default: "Why <decided> and not <against> (row <row>)".

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayesrule import CategoricalNB
    >>> from bayesrule.datasets import hiking
    >>> from bayesrule.plot import explanation
    >>> walk = hiking()
    >>> model = CategoricalNB().fit(walk.data, walk.target)
    >>> ax = explanation(model.explain([walk.query]))
    >>> ax.get_title()
    'Why P and not N (row 0)'
    >>> [t.get_text() for t in ax.get_yticklabels()][-1]
    'total (ln odds)'
    >>> plt.close(ax.figure)
    """
    if not isinstance(why, Explanation):
        raise TypeError(
            f"explanation draws what model.explain(X) returns, got {type(why).__name__}"
        )
    n = why.terms.shape[0]
    if not isinstance(row, (int, np.integer)) or not 0 <= row < n:
        raise ValueError(f"row must be an integer in 0 .. {n - 1}, got {row!r}")
    k = why.decided_index[row]
    classes = why.classes.tolist()
    if against is None:
        j = int(why.runners_up[row])
    elif against in classes and classes.index(against) != k:
        j = classes.index(against)
    else:
        others = [c for i, c in enumerate(classes) if i != k]
        raise ValueError(f"against must be one of the other classes {others}, got {against!r}")
    parts = why.odds_terms(row)[j]
    order = 1 + np.argsort(-np.abs(parts[1:]), kind="stable")
    shown = order[:top]
    labels = [why.names[0], *(why.names[t] for t in shown)]
    values = [parts[0], *parts[shown]]
    if order.size > top:
        labels.append(f"other terms ({order.size - top})")
        values.append(parts[order[top:]].sum())
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 0.45 * (len(labels) + 1) + 1.2))
    start = np.concatenate([[0.0], np.cumsum(values)[:-1]])
    y = np.arange(len(labels) + 1)[::-1]
    colors = ["#1f77b4" if v >= 0 else "#ff7f0e" for v in values]
    ax.barh(y[:-1], values, left=start, color=colors)
    total = float(np.sum(parts))
    ax.barh(y[-1], total, color="#555555")
    ax.axvline(0.0, color="black", lw=0.8)
    ax.set_yticks(y, [*labels, "total (ln odds)"])
    ax.set_xlabel(f"ln P({classes[k]}|x) / P({classes[j]}|x)")
    ax.set_title(title or f"Why {classes[k]} and not {classes[j]} (row {row})")
    return ax
