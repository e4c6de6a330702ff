"""The figures of the ``bayesrule plot`` command: :func:`draw` makes any of them
(``--kind regions``, ``posterior``, ``likelihood``, ``components``, ``bic``) from a
fitted model and its data; a model of more than two features is drawn through
:func:`~bayesrule.plot.slices.slice_for`, which the title says. matplotlib is imported
only when a figure is drawn.
"""

from __future__ import annotations

import math
from functools import partial
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from ..report import _check_fitted
from ._axes import _pyplot
from .densities import likelihood_contours, posterior_map
from .mixture import bic_curve, mixture_components
from .regions import decision_regions
from .slices import slice_for

#: The kinds of figure :func:`draw` makes.
KINDS = ("regions", "posterior", "likelihood", "components", "bic")


def _is_mixture(model) -> bool:
    return getattr(getattr(model, "likelihood_", None), "mixtures_", None) is not None


def _marginal(model, features, names):
    """A Gaussian mixture classifier's components on two features (their marginals)."""
    idx = list(features)
    mixtures = [
        SimpleNamespace(
            weights_=m.weights_,
            means_=m.means_[:, idx],
            full_covariances=partial(np.asarray, m.full_covariances()[:, idx][:, :, idx]),
        )
        for m in model.likelihood_.mixtures_
    ]
    return SimpleNamespace(
        classes_=model.classes_,
        n_features_in_=2,
        feature_names_in_=names,
        likelihood_=SimpleNamespace(mixtures_=mixtures),
    )


def _limits(plane: np.ndarray, padding: float = 0.1) -> list:
    limits = []
    for k in range(2):
        col = plane[:, k][np.isfinite(plane[:, k])]
        if col.size == 0:
            raise ValueError("the two features have no finite value to draw.")
        lo, hi = float(col.min()), float(col.max())
        pad = padding * (hi - lo) if hi > lo else max(abs(lo), 1.0) * 0.5
        limits.append((lo - pad, hi + pad))
    return limits


def draw(model, X=None, y=None, *, kind, features=None, ax=None, class_label=None, max_points=5000):
    """Draw one of the ``bayesrule plot`` command's figures of a fitted model.

    Parameters
    ----------
    model : fitted bayesrule estimator
    X : DataFrame or array-like of shape (n_samples, n_features)
        Data as given to the model (a DataFrame may have more columns, e.g. the
        target); it sets the area drawn and is drawn on top. Not needed for "bic".
    y : array-like of shape (n_samples,), optional
        True labels of ``X``; the points are coloured by class.
    kind : {"regions", "posterior", "likelihood", "components", "bic"}
        Decision regions (grey where the model rejects), posterior heat maps,
        class-conditional density contours, a Gaussian mixture's components as
        ellipses, or a mixture's BIC against its number of components.
    features : pair of names or indices, or a string "A,B", optional
        The plane's two features; needed when the model has more than two. The
        others are then held at their mean or most frequent value (a :func:`slice_for`
        slice, named in the title); "components" draws the components' marginals.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if None.
    class_label : label, optional
        For "posterior": the one class to draw on ``ax``. Without it, a new figure has
        one heat map per class.
    max_points : int, default=5000
        At most this many points are drawn (a fixed random subset); the area still
        covers all of ``X``.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on (for per-class posteriors, the first panel); save the figure
        with ``ax.figure.savefig(path)``.

    Raises
    ------
    ValueError
        For an unknown kind, a model without two features to plot and no
        ``features``, unknown or non-numeric features, data without the model's
        columns, or "components"/"bic" on a model that is not a Gaussian mixture.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.datasets import load_iris
    >>> from bayesrule import QuadraticDiscriminant
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> clf = QuadraticDiscriminant().fit(X, y)
    >>> ax = draw(clf, X, y, kind="regions", features="petal length (cm),petal width (cm)")
    >>> print(ax.get_title())
    slice through petal length (cm), petal width (cm)
    others at their mean
    >>> plt.close(ax.figure)
    """
    if kind not in KINDS:
        raise ValueError(f"unknown plot kind {kind!r}; choose one of {', '.join(KINDS)}.")
    _check_fitted(model)
    if kind in ("components", "bic") and not _is_mixture(model):
        raise ValueError(
            f"kind {kind!r} draws Gaussian mixture models, and this model is a "
            f"{type(model).__name__}; fit a GaussianMixtureBayes (model 'mixture') to draw it."
        )
    if kind == "bic":
        return bic_curve(model, ax=ax)
    if X is None:
        raise ValueError(f"kind {kind!r} draws the model over its data; give the data X.")
    if sp.issparse(X):
        raise ValueError(
            f"kind {kind!r} draws a plane of two numeric features, and X is a sparse "
            "matrix (word counts?); there is no plane to draw."
        )
    d = int(model.n_features_in_)
    if features is None:
        if d != 2:
            raise ValueError(
                f"the model has {d} features and a figure shows two; choose them with "
                "features=(A, B) (--features A,B); the others are held at their mean."
            )
        features = (0, 1)
    view = slice_for(model, X, features)
    plane = view.data(X)
    direct = d == 2 and view.features == (0, 1)
    est, title = (model, None) if direct else (view, view.title)
    if title is not None and len(title) > 60:  # two lines fit a default-sized figure
        title = title.replace("; ", "\n")
    if y is not None:
        y = np.asarray(y)
        if y.shape != (plane.shape[0],):
            raise ValueError(f"X has {plane.shape[0]} samples but y has shape {y.shape}.")
    xlim, ylim = _limits(plane)
    if plane.shape[0] > max_points:
        keep = np.sort(np.random.default_rng(0).choice(plane.shape[0], max_points, replace=False))
        plane, y = plane[keep], None if y is None else y[keep]
    area = {"xlim": xlim, "ylim": ylim}
    if kind == "regions":
        return decision_regions(est, plane, y, ax=ax, title=title, **area)
    if kind == "likelihood":
        return likelihood_contours(est, plane, y=y, ax=ax, title=title, **area)
    if kind == "components":
        if not direct:
            names = view.feature_names_in_
            est = _marginal(model, view.features, names)
            title = f"components on {names[0]}, {names[1]}\n(marginals over the other features)"
        return mixture_components(est, plane, y, ax=ax, title=title)
    if class_label is not None:
        label = f"P({class_label} | x)" + ("" if title is None else f"\n{title}")
        return posterior_map(est, class_label, plane, y=y, ax=ax, title=label, **area)
    if ax is not None:
        raise ValueError(
            "a posterior figure has a panel per class; give class_label= to draw one on ax."
        )
    classes = np.asarray(model.classes_)
    ncols = min(len(classes), 3)
    nrows = math.ceil(len(classes) / ncols)
    plt = _pyplot()
    fig, grid = plt.subplots(
        nrows, ncols, figsize=(4.4 * ncols, 3.6 * nrows), squeeze=False, layout="constrained"
    )
    axes = grid.ravel()
    for extra in axes[len(classes) :]:
        fig.delaxes(extra)
    for k, panel in enumerate(axes[: len(classes)]):
        posterior_map(est, k, plane, y=y, ax=panel, **area)
    if title is not None:
        fig.suptitle(title)
    return axes[0]
