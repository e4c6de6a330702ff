"""Figures of a fitted two-feature Bayes classifier: regions, posteriors, likelihoods.

matplotlib is an optional dependency (``pip install 'bayesrule[plot]'``); it is
imported only when a function here is called. Every function takes an optional
matplotlib ``Axes`` and returns the Axes it drew on.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import encode_labels
from ..report import _check_fitted

#: Colour of the reject action's region.
REJECT_COLOR = "#b3b3b3"

# tab10 without its grey, so that grey only ever means "reject".
_CLASS_COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
    "#17becf",
)


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            "bayesrule.plot needs matplotlib, which is not installed; "
            "install it with: pip install 'bayesrule[plot]'"
        ) from exc
    return plt


def _class_colors(n: int) -> list:
    if n <= len(_CLASS_COLORS):
        return list(_CLASS_COLORS[:n])
    import matplotlib as mpl

    return [mpl.colormaps["turbo"](t) for t in np.linspace(0.05, 0.95, n)]


def _check_two_features(estimator, func: str) -> int:
    _check_fitted(estimator)
    d = getattr(estimator, "n_features_in_", None)
    if d is not None and d != 2:
        raise ValueError(
            f"{func} draws a plane, so it needs an estimator fitted on exactly 2 features, "
            f"but this one has {d}. Fit a copy on two columns, e.g. X[:, [0, 1]], to plot it."
        )
    return 2


def _grid(estimator, X, xlim, ylim, padding, resolution, func):
    """Grid axes (xs, ys) and the (resolution**2, 2) points, in the estimator's input type.

    Checks first that the estimator is fitted on two features.
    """
    _check_two_features(estimator, func)
    if isinstance(resolution, bool) or not isinstance(resolution, (int, np.integer)):
        raise TypeError(f"resolution must be an integer, got {resolution!r}.")
    if resolution < 2:
        raise ValueError(f"resolution must be at least 2, got {resolution}.")
    limits = [xlim, ylim]
    if X is not None:
        if sp.issparse(X):
            raise TypeError(f"{func} draws a plane of two numeric features; X is sparse.")
        try:
            data = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"{func} draws a plane of two numeric features, and X has values that are "
                f"not numbers ({exc}); categorical features have no plane to draw."
            ) from exc
        if data.ndim != 2 or data.shape[1] != 2:
            raise ValueError(f"X must have shape (n_samples, 2), got {data.shape}.")
        for k in range(2):
            if limits[k] is None:
                lo, hi = np.nanmin(data[:, k]), np.nanmax(data[:, k])
                pad = padding * (hi - lo) if hi > lo else max(abs(lo), 1.0) * 0.5
                limits[k] = (lo - pad, hi + pad)
    if limits[0] is None or limits[1] is None:
        raise ValueError(f"{func} needs X, or both xlim and ylim, to know which area to draw.")
    xs = np.linspace(*map(float, limits[0]), resolution)
    ys = np.linspace(*map(float, limits[1]), resolution)
    xx, yy = np.meshgrid(xs, ys)
    points = np.column_stack([xx.ravel(), yy.ravel()])
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        try:
            import pandas as pd
        except ImportError:
            pass
        else:
            points = pd.DataFrame(points, columns=list(names))
    return xs, ys, points


def _label_axes(ax, names, title):
    """Name the two axes (``names``, else ``x[0]``/``x[1]``) and set ``title`` if given."""
    labels = [str(n) for n in names] if names is not None else ["x[0]", "x[1]"]
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    if title is not None:
        ax.set_title(title)
    return ax


def _finish(ax, estimator, title, xs, ys):
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    return _label_axes(ax, getattr(estimator, "feature_names_in_", None), title)


def _scatter(ax, X, y, estimator, colors, size=10):
    if X is None:
        if y is not None:
            raise ValueError("y was given without X; pass the samples X that y labels.")
        return
    data = np.asarray(X, dtype=float)
    if y is None:
        ax.scatter(data[:, 0], data[:, 1], s=size, c="k", marker=".", linewidths=0)
        return
    y_idx = encode_labels(y, estimator.classes_)
    if y_idx.shape[0] != data.shape[0]:
        raise ValueError(f"X has {data.shape[0]} samples but y has {y_idx.shape[0]}.")
    ax.scatter(
        data[:, 0],
        data[:, 1],
        s=size,
        c=[colors[i] for i in y_idx],
        edgecolors="k",
        linewidths=0.2,
    )


def decision_regions(
    estimator,
    X=None,
    y=None,
    *,
    ax=None,
    resolution: int = 300,
    padding: float = 0.1,
    xlim=None,
    ylim=None,
    alpha: float = 0.35,
    title: str | None = None,
    priors=None,
    loss=None,
):
    """Colour the plane by the Bayes action of a fitted two-feature classifier.

    Each grid cell gets the colour of ``estimator.predict`` there: one colour per
    class and grey for the reject action, labelled "reject" (with the
    ``reject_label_`` when it is another label).

    Parameters
    ----------
    estimator : fitted bayesrule estimator with 2 features
    X : array-like of shape (n_samples, 2), optional
        Data whose range sets the area drawn; plotted on top.
    y : array-like of shape (n_samples,), optional
        True labels of ``X``; the points are coloured by them.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if None.
    resolution : int, default=300
        Grid points along each axis.
    padding : float, default=0.1
        Margin around the data, as a fraction of each feature's range.
    xlim, ylim : (float, float), optional
        Area to draw; each overrides the range taken from ``X``. Both are needed
        without ``X``.
    alpha : float, default=0.35
        Opacity of the regions.
    title : str, optional
    priors, loss : optional
        Decide under these priors and/or this loss matrix instead of the fitted ones,
        without refitting (see :func:`decision_regions_under`).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesrule
    >>> from bayesrule.datasets import fruit
    >>> from bayesrule.plot import decision_regions
    >>> X, y = fruit(200, random_state=0, return_X_y=True)
    >>> clf = bayesrule.QuadraticDiscriminant().fit(X, y)
    >>> ax = decision_regions(clf, X, y, resolution=50)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['apple', 'grapefruit', 'orange']
    >>> plt.close(ax.figure)
    """
    if priors is not None or loss is not None:  # decide under other priors or loss
        from .extra import decision_regions_under

        return decision_regions_under(
            estimator,
            X,
            y,
            priors=priors,
            loss=loss,
            ax=ax,
            resolution=resolution,
            padding=padding,
            xlim=xlim,
            ylim=ylim,
            alpha=alpha,
            title=title,
        )
    plt = _pyplot()
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    xs, ys, points = _grid(estimator, X, xlim, ylim, padding, resolution, "decision_regions")
    classes = np.asarray(estimator.classes_)
    actions = np.asarray(getattr(estimator, "actions_", classes))
    n_classes = len(classes)
    colors = _class_colors(n_classes)
    action_colors = colors + [REJECT_COLOR] * (len(actions) - n_classes)
    index = encode_labels(estimator.predict(points), actions, name="estimator.predict")
    if ax is None:
        _, ax = plt.subplots()
    ax.pcolormesh(
        xs,
        ys,
        index.reshape(len(ys), len(xs)),
        cmap=ListedColormap(action_colors),
        norm=BoundaryNorm(np.arange(len(actions) + 1) - 0.5, len(actions)),
        alpha=alpha,
        shading="nearest",
        rasterized=True,
    )
    _scatter(ax, X, y, estimator, colors)
    label = getattr(estimator, "reject_label_", "reject")
    reject = "reject" if label == "reject" else f"reject ({label})"
    labels = [str(c) for c in classes] + [reject] * (len(actions) - n_classes)
    handles = [
        Patch(facecolor=c, edgecolor="none", alpha=alpha, label=lab)
        for c, lab in zip(action_colors, labels, strict=True)
    ]
    ax.legend(handles=handles, loc="best", fontsize="small")
    return _finish(ax, estimator, title, xs, ys)


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


def posterior_map(
    estimator,
    class_index_or_label,
    X=None,
    *,
    y=None,
    ax=None,
    resolution: int = 200,
    padding: float = 0.1,
    xlim=None,
    ylim=None,
    cmap: str = "viridis",
    colorbar: bool = True,
    title: str | None = None,
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
    plt = _pyplot()
    xs, ys, points = _grid(estimator, X, xlim, ylim, padding, resolution, "posterior_map")
    k = _class_position(estimator, class_index_or_label)
    proba = np.asarray(estimator.predict_proba(points), dtype=float)[:, k]
    if ax is None:
        _, ax = plt.subplots()
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


def likelihood_contours(
    estimator,
    X=None,
    *,
    y=None,
    ax=None,
    levels=8,
    resolution: int = 200,
    padding: float = 0.1,
    xlim=None,
    ylim=None,
    title: str | None = None,
):
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
    plt = _pyplot()
    from matplotlib.lines import Line2D

    if not hasattr(estimator, "log_likelihood"):
        raise TypeError(
            f"likelihood_contours needs an estimator with log_likelihood(X); "
            f"{type(estimator).__name__} has none."
        )
    xs, ys, points = _grid(estimator, X, xlim, ylim, padding, resolution, "likelihood_contours")
    density = np.exp(np.asarray(estimator.log_likelihood(points), dtype=float))
    classes = np.asarray(estimator.classes_)
    colors = _class_colors(len(classes))
    if ax is None:
        _, ax = plt.subplots()
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
