"""More figures of a fitted classifier: a sweep over priors and the training data.

matplotlib is optional (``pip install 'bayesrule[plot]'``) and imported only when a
figure is drawn. The figures share :mod:`bayesrule.plot`'s colours: class ``k`` of
``classes_`` always has the same colour, and grey means "reject".
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import encode_labels
from ..report import _check_fitted
from ._axes import _class_colors, _label_axes, _pyplot
from .regions import _prior_values, _priors_text, decision_regions_under
from .slices import Slice


def _sweep_entries(estimator, priors_list) -> list:
    classes = np.asarray(estimator.classes_)
    if priors_list is None:
        C = len(classes)
        entries = [("uniform", "uniform"), ("fitted", None)]
        for k, label in enumerate(classes.tolist()):
            favour = np.full(C, 0.4 / (C - 1)) if C > 1 else np.ones(1)
            favour[k] = 0.6 if C > 1 else 1.0
            entries.append((f"favour {label}", favour))
    elif isinstance(priors_list, dict):
        if priors_list and all(isinstance(v, (int, float)) for v in priors_list.values()):
            raise ValueError(
                "priors_list is a dict of numbers, one priors spec; give a list of priors "
                "(e.g. [priors]) or a dict from panel title to priors."
            )
        entries = [(str(name), spec) for name, spec in priors_list.items()]
    else:
        entries = [
            ("fitted" if p is None else p if isinstance(p, str) else "priors", p)
            for p in priors_list
        ]
    if not entries:
        raise ValueError("priors_list is empty; give at least one priors to draw.")
    return [(name, spec, _prior_values(estimator, spec)) for name, spec in entries]


def prior_sweep(
    estimator,
    X=None,
    y=None,
    *,
    priors_list=None,
    loss=None,
    ncols=3,
    figsize=None,
    resolution=150,
    legend="first",
    **kwargs,
):
    """A grid of decision-region panels, one per priors (seed 003's figure 9).

    Parameters
    ----------
    estimator : fitted bayesrule estimator with 2 features (or a :class:`Slice`)
    X, y : array-like, optional
        Data setting the area and drawn on every panel.
    priors_list : list or dict, optional
        The priors of each panel (None = the fitted priors, "uniform", "empirical", an
        array or a dict label -> probability), or a dict from panel name to priors.
        Default: uniform, the fitted priors, then each class favoured with 0.6 and
        the other classes sharing 0.4.
    loss : None, array-like or LossMatrix, optional
        Loss for every panel (as in :func:`decision_regions_under`).
    ncols : int, default=3
        Panels per row.
    figsize : (float, float), optional
        Default: 4 x 3.4 inches per panel.
    resolution : int, default=150
    legend : {"first", "all", "none"}, default="first"
        Which panels keep their legend.
    **kwargs
        ``padding``, ``xlim``, ``ylim``, ``alpha`` of ``decision_regions``.

    Returns
    -------
    ndarray of matplotlib.axes.Axes
        One per priors, in order (unused grid cells are removed); the figure is
        ``axes[0].figure``. Each is titled with its name and the priors, one line each.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesrule
    >>> from bayesrule.datasets import fruit
    >>> X, y = fruit(100, random_state=0, return_X_y=True)
    >>> clf = bayesrule.QuadraticDiscriminant(priors=[0.4, 0.2, 0.4]).fit(X, y)
    >>> axes = prior_sweep(clf, X, resolution=30)
    >>> print(axes[0].get_title())
    uniform
    apple 0.33, grapefruit 0.33, orange 0.33
    >>> print(axes[1].get_title())
    fitted
    apple 0.40, grapefruit 0.20, orange 0.40
    >>> len(axes), len(axes[0].figure.axes)
    (5, 5)
    >>> plt.close(axes[0].figure)
    """

    plt = _pyplot()
    _check_fitted(estimator)
    if isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or ncols < 1:
        raise ValueError(f"ncols must be a positive integer, got {ncols!r}.")
    if legend not in ("first", "all", "none"):
        raise ValueError(f"legend must be 'first', 'all' or 'none', got {legend!r}.")
    entries = _sweep_entries(estimator, priors_list)
    classes = np.asarray(estimator.classes_)
    n = len(entries)
    ncols = min(int(ncols), n)
    nrows = math.ceil(n / ncols)
    figsize = (4.0 * ncols, 3.4 * nrows) if figsize is None else figsize
    fig, grid = plt.subplots(nrows, ncols, figsize=figsize, squeeze=False, layout="constrained")
    axes = grid.ravel()
    for extra in axes[n:]:
        fig.delaxes(extra)
    for i, (ax, (name, spec, values)) in enumerate(zip(axes, entries, strict=False)):
        title = f"{name}\n{_priors_text(classes, values)}"
        decision_regions_under(
            estimator,
            X,
            y,
            priors=spec,
            loss=loss,
            ax=ax,
            title=title,
            resolution=resolution,
            **kwargs,
        )
        if legend == "none" or (legend == "first" and i > 0):
            ax.get_legend().remove()
        ax.title.set_fontsize("small")
    return axes[:n]


def scatter(estimator, X, y=None, *, ax=None, size=10, alpha=1.0, title=None):
    """Scatter the (training) data of two features, coloured by class.

    Parameters
    ----------
    estimator : fitted bayesrule estimator, :class:`Slice` or None
        Gives the classes, and so the colours, of the other figures; None takes the
        sorted labels of ``y``, as estimators do. A ``Slice`` picks its two columns of ``X``.
    X : array-like or DataFrame of shape (n_samples, 2)
    y : array-like of shape (n_samples,), optional
        Labels; without them the points are black.
    ax : matplotlib.axes.Axes, optional
    size : float, default=10
        Marker area.
    alpha : float, default=1.0
        Opacity of the points.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        One collection of points per class (labelled with it), in ``classes_`` order.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayesrule.datasets import fruit
    >>> X, y = fruit(50, random_state=0, return_X_y=True)
    >>> ax = scatter(None, X, y)
    >>> [(c.get_label(), len(c.get_offsets())) for c in ax.collections]
    [('apple', 50), ('grapefruit', 50), ('orange', 50)]
    >>> plt.close(ax.figure)
    """

    plt = _pyplot()
    columns = getattr(X, "columns", None)
    if isinstance(estimator, Slice):
        data, labels = estimator.data(X), list(estimator.feature_names_in_)
    else:
        data = np.asarray(X, dtype=float)
        names = getattr(estimator, "feature_names_in_", None)
        labels = columns if columns is not None else names
    if data.ndim != 2 or data.shape[1] != 2:
        raise ValueError(f"X must have shape (n_samples, 2), got {data.shape}.")
    if ax is None:
        _, ax = plt.subplots()
    if y is None:
        ax.scatter(data[:, 0], data[:, 1], s=size, c="k", marker=".", linewidths=0, alpha=alpha)
    else:
        y = np.asarray(y)
        if y.shape != (data.shape[0],):
            raise ValueError(f"X has {data.shape[0]} samples but y has shape {y.shape}.")
        classes = np.unique(y) if estimator is None else np.asarray(estimator.classes_)
        index = encode_labels(y, classes)
        for k, (label, color) in enumerate(
            zip(classes.tolist(), _class_colors(len(classes)), strict=True)
        ):
            rows = index == k
            ax.scatter(
                data[rows, 0],
                data[rows, 1],
                s=size,
                color=color,
                edgecolors="k",
                linewidths=0.2 if size >= 8 else 0.0,
                alpha=alpha,
                label=str(label),
            )
        ax.legend(loc="best", fontsize="small")
    return _label_axes(ax, labels, title)
