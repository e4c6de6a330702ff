"""What every figure shares: pyplot on demand, the class colours (grey is "reject"),
the grid of a two-feature model, axis labels and the training points.

matplotlib is an optional dependency (``pip install 'bayesrule[plot]'``); it is
imported only when a figure is drawn.
"""

from __future__ import annotations

from inspect import signature
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._signatures import declared_function, parameters
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


class Area(NamedTuple):
    """Where a figure draws: its Axes (None: a new figure) and the part of the plane
    (``xlim``/``ylim``, else the data's range widened by ``padding``), sampled on a
    ``resolution`` x ``resolution`` grid where the figure evaluates the model."""

    ax: object = None
    xlim: object = None
    ylim: object = None
    padding: float = 0.0
    resolution: int | None = None

    def axes(self):
        """The Axes to draw on: ``ax``, or a new figure's."""
        return self.ax if self.ax is not None else _pyplot().subplots()[1]

    def grid(self, estimator, X, func: str):
        """:func:`_grid` over this area."""
        return _grid(estimator, X, self.xlim, self.ylim, self.padding, self.resolution, func)


def with_area(**defaults):
    """Decorator of a figure function that takes ``area`` (an :class:`Area`): its callers
    pass ``ax``, the ``resolution`` and ``padding`` of ``defaults`` (with those
    defaults), ``xlim`` and ``ylim`` as keyword arguments instead, and see them in its
    signature."""
    area = parameters({"ax": None, **defaults, "xlim": None, "ylim": None})

    def decorate(draw):
        own = [p for p in signature(draw).parameters.values() if p.name != "area"]
        cut = next((i for i, p in enumerate(own) if p.kind == p.KEYWORD_ONLY), len(own))
        leading = own[:cut] + area + own[cut:]

        def body(*values):
            arguments = dict(zip([p.name for p in leading], values, strict=True))
            where = Area(**{p.name: arguments.pop(p.name) for p in area})
            return draw(**arguments, area=where)

        function = declared_function(draw.__name__, leading, body, draw.__doc__)
        function.__module__ = draw.__module__
        return function

    return decorate


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
