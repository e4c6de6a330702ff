"""The attribute dependence graph of a fitted semi-naive Bayes classifier.

matplotlib is an optional dependency (``pip install 'bayesrule[plot]'``), imported
only when the figure is drawn. :func:`dependence_graph` takes a fitted SPODE, TAN or
KDB (anything with a ``parents_`` list) and an optional matplotlib ``Axes``, and
returns the Axes it drew on.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..report import _check_fitted
from ._axes import _pyplot

__all__ = ["dependence_graph"]

_NODE = {"boxstyle": "round,pad=0.4", "facecolor": "#deebf7", "edgecolor": "#1f77b4"}
_LEFT_OUT_NODE = {
    "boxstyle": "round,pad=0.4",
    "facecolor": "white",
    "edgecolor": "0.6",
    "linestyle": "--",
}
_CLASS_NODE = {"boxstyle": "round,pad=0.4", "facecolor": "#f0f0f0", "edgecolor": "0.45"}
# zorder 2: below the opaque boxes, so that a line crossing a node passes behind it
_ARROW = {"arrowstyle": "-|>", "mutation_scale": 12, "shrinkA": 2, "shrinkB": 2, "zorder": 2}


def _parents(estimator) -> list[tuple[int, ...]]:
    """``estimator.parents_`` as tuples of checked column indices, or a clear error."""
    _check_fitted(estimator)
    parents = getattr(estimator, "parents_", None)
    name = type(estimator).__name__
    if parents is None:
        what = {"AnDE": "one estimator per set of n super-parents"}.get(name)
        if name in ("AODE", "WAODE"):
            what = "one SPODE per super-parent" + (" (weighted)" if name == "WAODE" else "")
        hint = (
            f" {name} averages {what}, so it has no single structure; fit "
            "SPODE(parent=j) to draw the one with super-parent j."
            if what
            else " Fit one of those to draw its structure."
        )
        raise TypeError(
            "dependence_graph draws SPODE, TAN and KDB, whose fitted parents_ lists each "
            f"attribute's parent attributes, and {name} has no parents_.{hint}"
        )
    parents = [tuple(p) for p in parents]
    n = len(parents)
    d = getattr(estimator, "n_features_in_", None)
    if d is not None and d != n:
        raise ValueError(f"{name}.parents_ has {n} entries but n_features_in_ is {d}.")
    for j, ps in enumerate(parents):
        for p in ps:
            if not isinstance(p, numbers.Integral) or not 0 <= p < n or p == j:
                raise ValueError(
                    f"{name}.parents_[{j}] = {ps!r} must hold column indices in [0, {n}) "
                    f"other than {j}."
                )
    return [tuple(int(p) for p in ps) for ps in parents]


def _depths(parents: list[tuple[int, ...]]) -> list[int]:
    """Depth 0 for attributes without attribute parents, else 1 + their parents' deepest."""
    n, depth = len(parents), {}
    while len(depth) < n:
        ready = [j for j in range(n) if j not in depth and all(p in depth for p in parents[j])]
        if not ready:
            cycle = [j for j in range(n) if j not in depth]
            raise ValueError(
                f"parents_ is not acyclic: attributes {cycle} are on or below a cycle."
            )
        depth.update({j: 1 + max((depth[p] for p in parents[j]), default=-1) for j in ready})
    return [depth[j] for j in range(n)]


def _names(estimator, feature_names, n: int) -> list[str]:
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
        if feature_names is None:
            return [f"x{j}" for j in range(n)]
    elif isinstance(feature_names, str) or np.ndim(feature_names) != 1:
        raise TypeError(f"feature_names must be a list of {n} names, got {feature_names!r}.")
    names = [str(v) for v in feature_names]
    if len(names) != n:
        raise ValueError(
            f"feature_names has {len(names)} names but the estimator has {n} attributes; "
            f"pass one name per column."
        )
    return names


def dependence_graph(estimator, *, ax=None, show_class=True, feature_names=None, title=None):
    """Draw the attribute dependence structure of a fitted SPODE, TAN or KDB.

    One node per attribute and an arrow from each parent attribute to its child
    (``estimator.parents_[j]`` is the tuple of parent columns of attribute ``j``).
    The nodes are layered by depth: depth 0 holds the attributes without attribute
    parents, and ``depth(j) = 1 + max(depth(p) for p in parents_[j])``; the nodes of
    one layer are spread evenly left to right in column order, so every arrow points
    down. With ``show_class`` the class, every attribute's implicit parent, is a node
    at the top with lighter arrows to all attributes. An attribute that a selective
    KDB (SKDB) left out of its model (not in ``selected_``) is drawn unlinked, in a
    dashed box, without a class arrow.

    Parameters
    ----------
    estimator : fitted SPODE, TAN or KDB
        Anything fitted (with ``classes_``) that has a ``parents_`` list.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the graph is made if None.
    show_class : bool, default=True
        Draw the class node and its arrows to every attribute.
    feature_names : sequence of str, optional
        Node labels, one per attribute; default ``estimator.feature_names_in_`` if
        fitted on a DataFrame, else ``x0, x1, ...``.
    title : str, optional
        Default ``"<EstimatorName> dependence structure"``; ``""`` for none.

    Returns
    -------
    matplotlib.axes.Axes
        Node labels are ``ax.texts`` (the class node last) and arrows are
        ``FancyArrowPatch`` objects in ``ax.patches``, with gid ``"edge"`` between
        attributes and ``"class-edge"`` from the class.

    Raises
    ------
    TypeError
        If the estimator has no ``parents_`` (e.g. AODE or GaussianNB).
    ValueError
        If ``feature_names`` does not hold one name per attribute.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from bayesrule import TAN
    >>> from bayesrule.plot import dependence_graph
    >>> X = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]])
    >>> y = np.array([0, 1, 0, 1, 0, 1])
    >>> ax = dependence_graph(TAN().fit(X, y))
    >>> len(ax.texts)  # three attributes and the class
    4
    >>> len(ax.patches)  # a tree's 2 edges and 3 from the class
    5
    >>> plt.close("all")
    """
    parents = _parents(estimator)
    n = len(parents)
    names = _names(estimator, feature_names, n)
    depth = _depths(parents)
    selected = getattr(estimator, "selected_", None)  # SKDB: the attributes it models
    modelled = set(range(n)) if selected is None else {int(j) for j in selected}

    plt = _pyplot()
    from matplotlib.patches import FancyArrowPatch

    n_layers = max(depth, default=-1) + 1
    layers = [[j for j in range(n) if depth[j] == k] for k in range(n_layers)]
    pos = {}
    for k, layer in enumerate(layers):
        pos.update({j: ((i + 1) / (len(layer) + 1), -float(k)) for i, j in enumerate(layer)})
    if ax is None:
        width = max(map(len, layers), default=1)
        height = 1.1 * (n_layers + bool(show_class)) + 0.5
        _, ax = plt.subplots(figsize=(max(4.0, 1.3 * width), max(2.5, height)))
    if show_class:
        pos["class"] = (0.5, 1.0)
    boxes = {}
    for key in sorted(pos, key=lambda k: n if k == "class" else k):  # in column order
        label, style = ("class", _CLASS_NODE) if key == "class" else (names[key], _NODE)
        left_out = key != "class" and key not in modelled
        style = _LEFT_OUT_NODE if left_out else style
        boxes[key] = ax.text(*pos[key], label, ha="center", va="center", bbox=style, zorder=3)
        boxes[key].set_gid(
            "class-node" if key == "class" else "left-out-node" if left_out else "node"
        )

    class Edge(FancyArrowPatch):
        """An arrow clipped to its end nodes' boxes, placed as it is drawn (below them)."""

        def __init__(self, ends, **kwargs):
            self.ends = ends
            patches = {"patchA": ends[0].get_bbox_patch(), "patchB": ends[1].get_bbox_patch()}
            super().__init__(ends[0].get_position(), ends[1].get_position(), **patches, **kwargs)

        def draw(self, renderer):
            for text in self.ends:
                text.update_bbox_position_size(renderer)
            super().draw(renderer)

    def arrow(a, b, gid, **style):
        (xa, ya), (xb, yb) = pos[a], pos[b]
        # an arrow that skips a layer bends outwards, around the nodes between
        side = np.sign(xa - xb) or (-1) ** (b + (a if a != "class" else 1))
        rad = 0.3 * side if ya - yb > 1 else 0.0
        style["connectionstyle"] = f"arc3,rad={rad:g}"
        ax.add_patch(Edge((boxes[a], boxes[b]), gid=gid, **_ARROW, **style))

    for j in sorted(modelled) if show_class else ():
        arrow("class", j, "class-edge", color="0.6", linewidth=0.8, alpha=0.8)
    for j, ps in enumerate(parents):
        for p in ps:
            arrow(p, j, "edge", color="#1f4e79", linewidth=1.4)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.5 - n_layers, 1.5 if show_class else 0.5)
    ax.set_axis_off()
    if title is None:
        title = f"{type(estimator).__name__} dependence structure"
    if title:
        ax.set_title(title)
    return ax
