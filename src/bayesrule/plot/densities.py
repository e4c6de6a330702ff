"""Posterior maps and likelihood contours of a fitted two-feature classifier.

Every function takes an optional matplotlib ``Axes`` and returns the Axes it drew on.
"""

from __future__ import annotations

import numpy as np

from ._axes import _class_colors, _finish, _pyplot, _scatter, with_area


def _class_position(estimator, class_index_or_label) -> int:
    labels = np.asarray(estimator.classes_).tolist()
    if class_index_or_label in labels:
        return labels.index(class_index_or_label)
    value = class_index_or_label
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if -len(labels) <= value < len(labels):
            return int(value) % len(labels)
    raise ValueError(
        f"class_index_or_label={value!r} is neither a class label {labels} "
        f"nor an index below {len(labels)}."
    )


@with_area(resolution=200, padding=0.1)
def posterior_map(
    estimator,
    class_index_or_label,
    X=None,
    *,
    y=None,
    area,
    cmap="viridis",
    colorbar=True,
    title=None,
):
    """Heat map of the posterior P(w | x) of one class over the plane.

    Parameters
    ----------
    estimator : fitted bayesrule estimator with 2 features
    class_index_or_label : label or int
        The class: a label of ``estimator.classes_`` (looked up first), else its
        position in ``classes_``.
    X : array-like of shape (n_samples, 2), optional
        Data whose range sets the area drawn; plotted on top.
    y : array-like of shape (n_samples,), optional
        True labels of ``X``; the points are coloured by class.
    ax : matplotlib.axes.Axes, optional
    resolution, padding, xlim, ylim :
        As in :func:`decision_regions`.
    cmap : str, default="viridis"
    colorbar : bool, default=True
        Add a colour bar for the probability scale.
    title : str, optional
        Default: ``"P(<label> | x)"``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesrule
    >>> from bayesrule.datasets import fruit
    >>> from bayesrule.plot import posterior_map
    >>> X, y = fruit(200, random_state=0, return_X_y=True)
    >>> clf = bayesrule.QuadraticDiscriminant().fit(X, y)
    >>> ax = posterior_map(clf, "orange", X, resolution=50)
    >>> ax.get_title()
    'P(orange | x)'
    >>> plt.close(ax.figure)
    """
    _pyplot()  # matplotlib, or an ImportError that says how to install it
    xs, ys, points = area.grid(estimator, X, "posterior_map")
    k = _class_position(estimator, class_index_or_label)
    proba = np.asarray(estimator.predict_proba(points), dtype=float)[:, k]
    ax = area.axes()
    label = str(np.asarray(estimator.classes_)[k])
    mesh = ax.pcolormesh(
        xs,
        ys,
        proba.reshape(len(ys), len(xs)),
        cmap=cmap,
        vmin=0.0,
        vmax=1.0,
        shading="nearest",
        rasterized=True,
    )
    if colorbar:
        ax.figure.colorbar(mesh, ax=ax, label=f"P({label} | x)")
    _scatter(ax, X, y, estimator, _class_colors(len(estimator.classes_)), size=6)
    return _finish(ax, estimator, f"P({label} | x)" if title is None else title, xs, ys)


@with_area(resolution=200, padding=0.1)
def likelihood_contours(estimator, X=None, *, y=None, area, levels=8, title=None):
    """Contours of each class-conditional density p(x | w) over the plane.

    Parameters
    ----------
    estimator : fitted bayesrule estimator with 2 features and ``log_likelihood``
    X : array-like of shape (n_samples, 2), optional
        Data whose range sets the area drawn; plotted on top.
    y : array-like of shape (n_samples,), optional
        True labels of ``X``; the points are coloured by class.
    ax : matplotlib.axes.Axes, optional
    levels : int or array-like, default=8
        Number of contour levels per class, evenly spaced between 0 and the class's
        highest density on the grid, or the density values to draw.
    resolution, padding, xlim, ylim :
        As in :func:`decision_regions`.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesrule
    >>> from bayesrule.datasets import fruit
    >>> from bayesrule.plot import likelihood_contours
    >>> X, y = fruit(200, random_state=0, return_X_y=True)
    >>> clf = bayesrule.QuadraticDiscriminant().fit(X, y)
    >>> ax = likelihood_contours(clf, X, levels=5, resolution=60)
    >>> len(ax.get_legend().get_texts())
    3
    >>> plt.close(ax.figure)
    """
    _pyplot()  # matplotlib, or an ImportError that says how to install it
    from matplotlib.lines import Line2D

    if not hasattr(estimator, "log_likelihood"):
        raise TypeError(
            f"likelihood_contours needs an estimator with log_likelihood(X); "
            f"{type(estimator).__name__} has none."
        )
    xs, ys, points = area.grid(estimator, X, "likelihood_contours")
    density = np.exp(np.asarray(estimator.log_likelihood(points), dtype=float))
    classes = np.asarray(estimator.classes_)
    colors = _class_colors(len(classes))
    ax = area.axes()
    handles = []
    for k, label in enumerate(classes.tolist()):
        z = density[:, k].reshape(len(ys), len(xs))
        lv = levels
        if isinstance(levels, (int, np.integer)):
            # evenly spaced strictly inside (0, peak), so each class shows `levels` rings
            lv = z.max() * np.arange(1, levels + 1) / (levels + 1)
        if z.max() > 0:
            ax.contour(xs, ys, z, levels=lv, colors=[colors[k]], linewidths=1.0)
        handles.append(Line2D([], [], color=colors[k], label=str(label)))
    _scatter(ax, X, y, estimator, colors, size=6)
    ax.legend(handles=handles, loc="best", fontsize="small")
    return _finish(ax, estimator, title, xs, ys)
