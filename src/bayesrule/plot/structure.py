"""The attribute dependence graph of a fitted semi-naive Bayes classifier.

matplotlib is an optional dependency (``pip install 'bayesrule[plot]'``), imported
only when the figure is drawn. :func:`dependence_graph` takes a fitted semi-naive model
and an optional matplotlib ``Axes``, and returns the Axes it drew on: the structure of
anything with a ``parents_`` list (SPODE, TAN, KDB, SKDB, StructureSearch), one member
of an ESKDB, the super-parent n-dependence estimator of chosen super-parents of an
AODE, WAODE or AnDE, and the weighted hidden parents of an HNB.
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


def _averaged_parents(estimator, super_parents, d: int) -> tuple[list, tuple]:
    """The SPnDE of ``super_parents`` of an AODE, WAODE or AnDE: every other attribute
    given all of them, each super-parent given the ones before it (their joint); and
    the super-parents."""
    name = type(estimator).__name__
    n = getattr(estimator, "n", 1)
    if super_parents is None:
        example = tuple(range(n))
        raise TypeError(
            f"{name} averages one estimator per set of {n} super-parent"
            f"{'s' if n > 1 else ''}, so it has no single structure: pass "
            f"super_parents={example!r} (any {n} column position{'s' if n > 1 else ''}) "
            "to draw the estimator of those super-parents."
        )
    chosen = (super_parents,) if isinstance(super_parents, numbers.Integral) else super_parents
    try:
        chosen = tuple(int(p) for p in chosen if isinstance(p, numbers.Integral))
    except TypeError:
        chosen = ()
    if len(chosen) != n or len(set(chosen)) != n or not all(0 <= p < d for p in chosen):
        raise ValueError(
            f"super_parents must be {n} distinct column position{'s' if n > 1 else ''} in "
            f"[0, {d}) ({name} conditions on {n}), got {super_parents!r}."
        )
    out = [chosen] * d
    for i, p in enumerate(chosen):
        out[p] = chosen[:i]
    return [tuple(ps) for ps in out], chosen


def _structure(estimator, member, super_parents):
    """``(parents, modelled, weights, what)``: per attribute its parent columns, the
    attributes in the model, per arc its weight (HNB's hidden parents) or None, and a
    title suffix; the parents checked."""
    _check_fitted(estimator)
    name = type(estimator).__name__
    d = getattr(estimator, "n_features_in_", None)
    what, weights, source = "", None, estimator
    members = getattr(estimator, "members_", None)
    if members is not None:  # ESKDB: one member's selective KDB
        index = 0 if member is None else member
        if not isinstance(index, numbers.Integral) or not 0 <= index < len(members):
            raise ValueError(
                f"member must be an integer in [0, {len(members)}) (the ensemble's members), "
                f"got {member!r}."
            )
        source, what = members[int(index)], f" (member {int(index) + 1} of {len(members)})"
    elif member is not None:
        raise TypeError(f"member= draws one member of an ensemble (ESKDB); {name} is none.")
    parents = getattr(source, "parents_", None)
    averaged = hasattr(getattr(estimator, "likelihood_", None), "super_parents_")
    if parents is None and averaged:  # AODE, WAODE, AnDE: one estimator per parent set
        parents, chosen = _averaged_parents(estimator, super_parents, int(d))
        plural = "s" if len(chosen) > 1 else ""
        what = f" (super-parent{plural} {', '.join(map(str, chosen))})"
    elif super_parents is not None:
        raise TypeError(
            f"super_parents= chooses the estimator of an AODE, WAODE or AnDE; {name} is none."
        )
    if parents is None and getattr(estimator, "weights_", None) is not None:  # HNB
        weights = np.asarray(estimator.weights_, dtype=np.float64)
        parents = [tuple(int(p) for p in np.flatnonzero(weights[:, j] > 0)) for j in range(d)]
        what = " (hidden parents: arrow width by weight)"
    if parents is None:
        raise TypeError(
            "dependence_graph draws SPODE, TAN, KDB, SKDB, StructureSearch (a fitted "
            "parents_ list), ESKDB (member=), AODE, WAODE and AnDE (super_parents=) and HNB; "
            f"{name} has no attribute structure. Fit one of those to draw its structure."
        )
    parents = _checked(name, [tuple(p) for p in parents], d)
    selected = getattr(source, "selected_", None)  # SKDB: the attributes it models
    modelled = set(range(len(parents))) if selected is None else {int(j) for j in selected}
    return parents, modelled, weights, what


def _checked(name: str, parents, d) -> list[tuple[int, ...]]:
    """``parents`` as tuples of checked column indices, or a clear error."""
    n = len(parents)
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


def dependence_graph(
    estimator,
    *,
    ax=None,
    show_class=True,
    feature_names=None,
    title=None,
    member=None,
    super_parents=None,
):
    """Draw the attribute dependence structure of a fitted semi-naive Bayes classifier.

    One node per attribute and an arrow from each parent attribute to its child
    (``estimator.parents_[j]`` is the tuple of parent columns of attribute ``j``).
    The nodes are layered by depth: depth 0 holds the attributes without attribute
    parents, and ``depth(j) = 1 + max(depth(p) for p in parents_[j])``; the nodes of
    one layer are spread evenly left to right in column order, so every arrow points
    down. With ``show_class`` the class, every attribute's implicit parent, is a node
    at the top with lighter arrows to all attributes. An attribute that a selective
    KDB (SKDB) left out of its model (not in ``selected_``) is drawn unlinked, in a
    dashed box, without a class arrow.

    Models without one structure: an ESKDB draws one member (``member``, the first by
    default); an AODE, WAODE or AnDE the estimator of the ``super_parents`` given (every
    other attribute depends on them, and they on each other in their order); an HNB
    draws each attribute's hidden parent as arrows from the attributes it mixes, their
    widths proportional to the weights ``weights_``, the nodes on a circle (the
    hidden parents make cycles).

    Parameters
    ----------
    estimator : fitted SPODE, TAN, KDB, SKDB, StructureSearch, ESKDB, AODE, WAODE, AnDE or HNB
        Anything fitted (with ``classes_``) that has a ``parents_`` list, or one of the
        models above.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure sized to the graph is made if None.
    show_class : bool, default=True
        Draw the class node and its arrows to every attribute.
    feature_names : sequence of str, optional
        Node labels, one per attribute; default ``estimator.feature_names_in_`` if
        fitted on a DataFrame, else ``x0, x1, ...``.
    title : str, optional
        Default ``"<EstimatorName> dependence structure"`` (with the member, the
        super-parents or "hidden parents" where they apply); ``""`` for none.
    member : int, optional
        ESKDB: which member to draw, from 0 (default 0).
    super_parents : int or tuple of int
        AODE and WAODE: one column position, AnDE: ``n`` of them; required for those.

    Returns
    -------
    matplotlib.axes.Axes
        Node labels are ``ax.texts`` (the class node last) and arrows are
        ``FancyArrowPatch`` objects in ``ax.patches``, with gid ``"edge"`` between
        attributes (``"hidden-edge"`` for HNB) and ``"class-edge"`` from the class.

    Raises
    ------
    TypeError
        If the estimator has no attribute structure (e.g. GaussianNB), if an AODE, WAODE
        or AnDE comes without ``super_parents``, or ``member``/``super_parents`` is given
        to a model they do not apply to.
    ValueError
        If ``feature_names`` does not hold one name per attribute, or ``member`` or
        ``super_parents`` is out of range.

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
    >>> from bayesrule import AODE
    >>> ax = dependence_graph(AODE().fit(X, y), super_parents=1)
    >>> ax.get_title()
    'AODE dependence structure (super-parent 1)'
    >>> plt.close("all")
    """
    parents, modelled, weights, what = _structure(estimator, member, super_parents)
    n = len(parents)
    names = _names(estimator, feature_names, n)

    plt = _pyplot()
    from matplotlib.patches import FancyArrowPatch

    pos = {}
    if weights is None:  # a DAG: layered by depth
        depth = _depths(parents)
        n_layers = max(depth, default=-1) + 1
        layers = [[j for j in range(n) if depth[j] == k] for k in range(n_layers)]
        for k, layer in enumerate(layers):
            pos.update({j: ((i + 1) / (len(layer) + 1), -float(k)) for i, j in enumerate(layer)})
    else:  # hidden parents in both directions: a circle
        n_layers, layers = 3, [list(range(n))[: max(3, (n + 1) // 2)]]
        for j in range(n):
            angle = np.pi / 2 - 2 * np.pi * j / max(n, 1)
            pos[j] = (0.5 + 0.4 * np.cos(angle), -1.0 + 1.0 * np.sin(angle))
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
        # an arrow that skips a layer bends outwards, around the nodes between; on the
        # circle each arrow bends a little, so that a -> b and b -> a do not overlap
        side = np.sign(xa - xb) or (-1) ** (b + (a if a != "class" else 1))
        rad = 0.3 * side if ya - yb > 1 else 0.0
        if weights is not None and a != "class":
            rad = 0.12
        style["connectionstyle"] = f"arc3,rad={rad:g}"
        ax.add_patch(Edge((boxes[a], boxes[b]), gid=gid, **_ARROW, **style))

    for j in sorted(modelled) if show_class else ():
        arrow("class", j, "class-edge", color="0.6", linewidth=0.8, alpha=0.8)
    top = float(weights.max()) if weights is not None and weights.size else 1.0
    for j, ps in enumerate(parents):
        for p in ps:
            if weights is None:
                arrow(p, j, "edge", color="#1f4e79", linewidth=1.4)
            else:
                share = float(weights[p, j]) / top if top > 0 else 0.0
                arrow(
                    p,
                    j,
                    "hidden-edge",
                    color="#1f4e79",
                    linewidth=0.3 + 3.0 * share,
                    alpha=0.25 + 0.75 * share,
                )
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.5 - n_layers, 1.5 if show_class else 0.5)
    ax.set_axis_off()
    if title is None:
        title = f"{type(estimator).__name__} dependence structure{what}"
    if title:
        ax.set_title(title)
    return ax
