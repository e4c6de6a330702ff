"""Decision regions of a fitted two-feature classifier, under its own decision or
under other priors and losses (no refit).

Every function takes an optional matplotlib ``Axes`` and returns the Axes it drew on.
"""

from __future__ import annotations

import numpy as np

from .._validation import encode_labels
from ..decision import LossMatrix
from ..decision.posterior_decision import Decision
from ..priors import resolve_priors
from ..report import _check_fitted
from ._axes import REJECT_COLOR, _class_colors, _finish, _pyplot, _scatter, with_area


@with_area(resolution=300, padding=0.1)
def decision_regions(
    estimator, X=None, y=None, *, area, alpha=0.35, title=None, priors=None, loss=None
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
        return decision_regions_under(
            estimator, X, y, priors=priors, loss=loss, alpha=alpha, title=title, **area._asdict()
        )
    _pyplot()  # matplotlib, or an ImportError that says how to install it
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    xs, ys, points = area.grid(estimator, X, "decision_regions")
    classes = np.asarray(estimator.classes_)
    actions = np.asarray(getattr(estimator, "actions_", classes))
    n_classes = len(classes)
    colors = _class_colors(n_classes)
    action_colors = colors + [REJECT_COLOR] * (len(actions) - n_classes)
    index = encode_labels(estimator.predict(points), actions, name="estimator.predict")
    ax = area.axes()
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


def _priors_text(classes, values) -> str:
    return ", ".join(f"{c} {v:.2f}" for c, v in zip(classes.tolist(), values, strict=True))


def _loss_text(loss: LossMatrix) -> str:
    if loss.is_zero_one():
        return "zero-one loss"
    m, c = loss.matrix, loss.n_classes
    square = np.array_equal(m[:c], 1.0 - np.eye(c))
    if square and np.ptp(m[c]) == 0:
        return f"zero-one loss, reject cost {m[c, 0]:g}"
    return "loss [" + "; ".join(" ".join(f"{v:g}" for v in row) for row in m) + "]"


def _prior_values(estimator, priors) -> np.ndarray:
    if priors is None:
        return np.asarray(estimator.class_prior_, dtype=float)
    count = getattr(estimator, "class_count_", None)
    return resolve_priors(priors, np.asarray(estimator.classes_), count)


class _Under:
    """``estimator`` deciding under other priors and/or another loss (for the plots):
    its posteriors under ``priors``, decided by the one decision component."""

    def __init__(self, estimator, priors, loss):
        self.estimator, self.priors = estimator, priors
        self.classes_ = np.asarray(estimator.classes_)
        self.n_features_in_ = getattr(estimator, "n_features_in_", None)
        if getattr(estimator, "feature_names_in_", None) is not None:
            self.feature_names_in_ = estimator.feature_names_in_
        if loss is None:  # the estimator's own loss and actions
            self.loss, self._decision = None, None
            self.actions_ = np.asarray(getattr(estimator, "actions_", self.classes_))
            self.reject_label_ = getattr(estimator, "reject_label_", "reject")
        else:
            label = getattr(estimator, "reject_label_", getattr(estimator, "reject_label", None))
            self._decision = Decision.resolve(self.classes_, loss=loss, reject_label=label)
            self.loss = self._decision.loss
            self.reject_label_, self.actions_ = self._decision.reject_label, self._decision.actions

    def predict(self, X):
        if self._decision is None:
            return self.estimator.predict(X, priors=self.priors)
        return self._decision.decide(self.estimator.predict_proba(X, priors=self.priors))


@with_area(resolution=300, padding=0.1)
def decision_regions_under(
    estimator, X=None, y=None, *, area, priors=None, loss=None, title=None, alpha=0.35
):
    """Decision regions of a fitted classifier under other priors and/or another loss.

    Without refitting: the posteriors are ``estimator.predict_proba(grid, priors=priors)``
    and each cell takes the Bayes action ``argmin_a sum_j L[a, j] P(w_j | x)`` of
    ``loss`` (:func:`bayesrule.decision.bayes_action`), grey where a reject row wins
    (Chow's rule). This is how seed 003's figures 8 and 9 show losses and priors
    moving the boundaries.

    Parameters
    ----------
    estimator : fitted bayesrule estimator with 2 features (or a :class:`Slice`)
    X, y : array-like, optional
        Data setting the area and drawn on top, as in :func:`bayesrule.plot.decision_regions`.
    priors : None, "empirical", "uniform", array-like or dict, optional
        Priors to decide under; None keeps the fitted ones.
    loss : None, array-like or LossMatrix, optional
        Loss to decide under, (C, C) or (C + 1, C) with a reject row last; a
        ``LossMatrix`` with ``classes`` is aligned to ``classes_``. None keeps the
        estimator's own loss.
    ax : matplotlib.axes.Axes, optional
    title : str, optional
        Default: the priors and loss given, e.g. ``"priors a 0.80, b 0.20"``; ``""`` for none.
    resolution, padding, xlim, ylim, alpha
        As in :func:`bayesrule.plot.decision_regions`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesrule
    >>> from bayesrule.datasets import fruit
    >>> X, y = fruit(200, random_state=0, return_X_y=True)
    >>> clf = bayesrule.QuadraticDiscriminant().fit(X, y)
    >>> ax = decision_regions_under(clf, X, y, priors="uniform",
    ...                             loss=bayesrule.LossMatrix.with_reject(3, 0.1), resolution=40)
    >>> ax.get_title()
    'priors apple 0.33, grapefruit 0.33, orange 0.33; zero-one loss, reject cost 0.1'
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['apple', 'grapefruit', 'orange', 'reject']
    >>> plt.close(ax.figure)
    """
    _check_fitted(estimator)
    values = _prior_values(estimator, priors)  # validates the priors before drawing
    under = _Under(estimator, priors, loss)
    if title is None:
        parts = [] if priors is None else [f"priors {_priors_text(under.classes_, values)}"]
        parts += [] if under.loss is None else [_loss_text(under.loss)]
        title = "; ".join(parts) or None
    return decision_regions(under, X, y, title=title, alpha=alpha, **area._asdict())
