"""Figures of Gaussian mixture classifiers: the components as ellipses, and BIC curves.

matplotlib is an optional dependency (``pip install 'bayesrule[plot]'``), imported
only when a function here is called. Both functions take a fitted
:class:`~bayesrule.estimators.mixture.GaussianMixtureBayes` (or a ``BayesClassifier``
whose likelihood is a ``Mixture``) and an optional matplotlib ``Axes``, and return
the Axes they drew on.
"""

from __future__ import annotations

import numpy as np

from ..report import _check_fitted
from ._axes import _class_colors, _finish, _pyplot, _scatter, with_area

__all__ = ["bic_curve", "mixture_components"]

#: line styles of the covariance structures in :func:`bic_curve`
_STYLES = {"full": "-", "tied": "--", "diag": "-.", "spherical": ":"}


def _mixtures(estimator, func: str) -> list:
    """The fitted per-class mixtures (class order), or a clear error."""
    _check_fitted(estimator)
    models = getattr(getattr(estimator, "likelihood_", None), "mixtures_", None)
    if models is None:
        raise TypeError(
            f"{func} draws Gaussian mixture models, and {type(estimator).__name__} is not "
            "one; fit a GaussianMixtureBayes (or a BayesClassifier with a Mixture "
            "likelihood)."
        )
    return list(models)


def _ellipse(mean, cov, n_std: float):
    """Centre, width, height and angle (degrees) of the ``n_std`` ellipse of N(mean, cov)."""
    values, vectors = np.linalg.eigh(cov)
    values = np.clip(values, 0.0, None)
    width, height = 2.0 * n_std * np.sqrt(values[::-1])
    angle = np.degrees(np.arctan2(vectors[1, -1], vectors[0, -1]))
    return tuple(mean), width, height, angle


def _limits(X, models, n_std, padding, xlim, ylim):
    lows, highs = [], []
    for model in models:
        half = n_std * np.sqrt(np.diagonal(model.full_covariances(), axis1=1, axis2=2))
        lows.append((model.means_ - half).min(axis=0))
        highs.append((model.means_ + half).max(axis=0))
    if X is not None:
        X = X[np.isfinite(X).all(axis=1)]
        if X.shape[0]:
            lows.append(X.min(axis=0))
            highs.append(X.max(axis=0))
    low, high = np.min(lows, axis=0), np.max(highs, axis=0)
    pad = padding * np.where(high > low, high - low, 1.0)
    limits = [(low[k] - pad[k], high[k] + pad[k]) for k in range(2)]
    return [
        tuple(map(float, given)) if given is not None else limits[k]
        for k, given in enumerate((xlim, ylim))
    ]


@with_area(padding=0.05)
def mixture_components(estimator, X=None, y=None, *, area, n_std=2.0, annotate=True, title=None):
    """Draw each class's Gaussian components as ellipses over the data.

    Every component ``k`` of class ``c`` is an ellipse ``n_std`` standard deviations
    around its mean ``mu_ck`` (the contour of ``N(mu_ck, Sigma_ck)`` at Mahalanobis
    distance ``n_std``), in the class's colour; the larger its weight ``alpha_ck``
    relative to the class's largest, the wider and more opaque its outline. The
    means are marked with crosses, labelled with their weights when ``annotate``.

    Parameters
    ----------
    estimator : fitted GaussianMixtureBayes with 2 features
    X : array-like of shape (n_samples, 2), optional
        Data to draw under the ellipses (and to include in the area shown).
    y : array-like of shape (n_samples,), optional
        True labels of ``X``; the points are coloured by class.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if None.
    n_std : float, default=2.0
        Size of the ellipses in standard deviations (2 holds about 86 % of a
        two-dimensional Gaussian's mass).
    padding : float, default=0.05
        Margin around the ellipses and data, as a fraction of each feature's range.
    xlim, ylim : (float, float), optional
        Area to draw, overriding the one computed.
    annotate : bool, default=True
        Write each component's weight beside its mean.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayesrule.datasets import two_modes
    >>> from bayesrule.estimators.mixture import GaussianMixtureBayes
    >>> from bayesrule.plot.mixture import mixture_components
    >>> X, y = two_modes(random_state=0, return_X_y=True)
    >>> gmm = GaussianMixtureBayes({1: 1, 2: 2}, random_state=0).fit(X, y)
    >>> ax = mixture_components(gmm, X, y)
    >>> len(ax.patches)   # one ellipse per component: 1 + 2
    3
    >>> plt.close(ax.figure)
    """

    _pyplot()  # matplotlib, or an ImportError that says how to install it
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D
    from matplotlib.patches import Ellipse

    models = _mixtures(estimator, "mixture_components")
    d = getattr(estimator, "n_features_in_", None)
    if d != 2:
        raise ValueError(
            f"mixture_components draws ellipses in a plane, so it needs a model fitted on "
            f"exactly 2 features, but this one has {d}. Fit a copy on two columns, e.g. "
            "X[:, [0, 1]], to draw it."
        )
    if isinstance(n_std, bool) or not isinstance(n_std, (int, float, np.number)):
        raise TypeError(f"n_std must be a positive number, got {n_std!r}.")
    if not np.isfinite(n_std) or n_std <= 0:
        raise ValueError(f"n_std must be a positive finite number, got {n_std!r}.")
    data = None
    if X is not None:
        data = np.asarray(X, dtype=float)
        if data.ndim != 2 or data.shape[1] != 2:
            raise ValueError(f"X must have shape (n_samples, 2), got {data.shape}.")
    classes = np.asarray(estimator.classes_)
    colors = _class_colors(len(classes))
    ax = area.axes()
    _scatter(ax, data, y, estimator, colors, size=8)
    handles = []
    for c, (label, model) in enumerate(zip(classes.tolist(), models, strict=True)):
        weights = np.asarray(model.weights_, dtype=float)
        covariances = model.full_covariances()
        for k in range(len(weights)):
            centre, width, height, angle = _ellipse(model.means_[k], covariances[k], n_std)
            share = weights[k] / weights.max()
            ax.add_patch(
                Ellipse(
                    centre,
                    width,
                    height,
                    angle=angle,
                    facecolor=to_rgba(colors[c], 0.05 + 0.2 * share),
                    edgecolor=to_rgba(colors[c], 0.4 + 0.6 * share),
                    linewidth=0.75 + 1.75 * share,
                )
            )
            if annotate:
                ax.annotate(
                    f"{weights[k]:.2f}",
                    centre,
                    xytext=(4, 4),
                    textcoords="offset points",
                    fontsize="small",
                )
        ax.plot(
            *model.means_.T,
            linestyle="none",
            marker="X",
            markersize=8,
            color=colors[c],
            markeredgecolor="k",
            markeredgewidth=0.5,
        )
        handles.append(
            Line2D(
                [],
                [],
                marker="X",
                linestyle="none",
                color=colors[c],
                markeredgecolor="k",
                label=f"{label} ({len(weights)})",
            )
        )
    ax.legend(handles=handles, loc="best", fontsize="small", title="class (components)")
    (x0, x1), (y0, y1) = _limits(data, models, n_std, area.padding, area.xlim, area.ylim)
    return _finish(ax, estimator, title, (x0, x1), (y0, y1))


def bic_curve(estimator, *, ax=None, title: str | None = None):
    """Plot BIC against the number of components, one line per class and structure.

    The candidates are those ``fit`` tried with ``n_components="bic"`` (and
    ``covariance="bic"``, which adds a line per covariance structure); the chosen
    model of each class, its lowest BIC, is circled.

    Parameters
    ----------
    estimator : GaussianMixtureBayes fitted with n_components="bic"
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made if None.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayesrule.datasets import two_modes
    >>> from bayesrule.estimators.mixture import GaussianMixtureBayes
    >>> from bayesrule.plot.mixture import bic_curve
    >>> X, y = two_modes(random_state=0, return_X_y=True)
    >>> gmm = GaussianMixtureBayes("bic", max_components=4, random_state=0).fit(X, y)
    >>> ax = bic_curve(gmm)
    >>> [line.get_label() for line in ax.get_lines()[:2]]
    ['class 1, full', 'class 2, full']
    >>> plt.close(ax.figure)
    """

    plt = _pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    models = _mixtures(estimator, "bic_curve")
    tables = getattr(estimator.likelihood_, "bic_", None)
    if tables is None or all(len(table or {}) < 2 for table in tables):
        n_components = getattr(estimator, "n_components", "?")
        raise ValueError(
            f"bic_curve needs the BIC of several candidate models, and this estimator "
            f"was fitted with n_components={n_components!r} (one model per class, no BIC "
            "table to draw); refit it with n_components='bic' to compare 1 to "
            "max_components components."
        )
    classes = np.asarray(estimator.classes_)
    colors = _class_colors(len(classes))
    if ax is None:
        _, ax = plt.subplots()
    chosen = []
    for c, (label, model, table) in enumerate(zip(classes.tolist(), models, tables, strict=True)):
        structures = sorted(
            {s for s, _ in table},
            key=lambda s: list(_STYLES).index(s) if s in _STYLES else len(_STYLES),
        )
        for structure in structures:
            ks = sorted(k for s, k in table if s == structure)
            ax.plot(
                ks,
                [table[structure, k] for k in ks],
                marker="o",
                markersize=4,
                linestyle=_STYLES.get(structure, "-"),
                color=colors[c],
                label=f"class {label}, {structure}",
            )
        best = (model.covariance, model.n_components)
        if best in table:
            chosen.append((best[1], table[best], colors[c]))
    for k, value, color in chosen:
        ax.plot(
            [k],
            [value],
            linestyle="none",
            marker="o",
            markersize=13,
            markerfacecolor="none",
            markeredgecolor=color,
            markeredgewidth=2,
            label="_chosen",
            gid="chosen",
        )
    handles, _ = ax.get_legend_handles_labels()
    handles.append(
        Line2D(
            [],
            [],
            linestyle="none",
            marker="o",
            markersize=10,
            markerfacecolor="none",
            markeredgecolor="k",
            label="chosen",
        )
    )
    ax.legend(handles=handles, loc="best", fontsize="small")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("number of components")
    ax.set_ylabel("BIC (lower is better)")
    if title is not None:
        ax.set_title(title)
    return ax
