"""dependence_graph: the parent structure of SPODE / TAN / KDB drawn as a layered graph.

The semi-naive estimators are written in parallel, so these tests use stub classes
with the fitted attributes the function reads (``classes_``, ``parents_``, ...).
"""

import subprocess
import sys
from types import SimpleNamespace

import matplotlib
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

matplotlib.use("Agg")
import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

from bayesrule import GaussianNB  # noqa: E402
from bayesrule.plot import dependence_graph as reexported  # noqa: E402
from bayesrule.plot.structure import _depths, dependence_graph  # noqa: E402


class _Fitted:
    def __init__(self, parents, names=None):
        self.parents_ = [tuple(p) for p in parents]
        self.n_features_in_ = len(parents)
        self.classes_ = np.array([0, 1])
        if names is not None:
            self.feature_names_in_ = np.array(names, dtype=object)


class TAN(_Fitted):
    pass


class KDB(_Fitted):
    pass


class AODE:
    def __init__(self, fitted=True):
        if fitted:
            self.classes_ = np.array([0, 1])
            self.n_features_in_ = 3
            self.likelihood_ = SimpleNamespace(super_parents_=[0, 1, 2])  # one per SPODE


TREE = [(), (0,), (0,), (1,)]  # x0 -> x1 -> x3, x0 -> x2
# KDB with k=2: x0 root, x1 <- x0, x2 <- x0,x1, x3 <- x1,x2, x4 <- x0,x3
KDB2 = [(), (0,), (0, 1), (1, 2), (0, 3)]


def _nodes(ax):
    """{label: (x, y)} of the node texts."""
    return {t.get_text(): t.get_position() for t in ax.texts}


def _arrows(ax, gid=None):
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    return [p for p in arrows if gid is None or p.get_gid() == gid]


def _edge_set(ax, gid="edge"):
    """(parent label, child label) of each arrow, from its end points."""
    where = {pos: label for label, pos in _nodes(ax).items()}
    edges = []
    for arrow in _arrows(ax, gid):
        a, b = arrow._posA_posB
        edges.append((where[tuple(a)], where[tuple(b)]))
    return edges


# ------------------------------------------------------------------ structure drawn
def test_tree_nodes_arrows_and_labels():
    ax = dependence_graph(TAN(TREE))
    assert isinstance(ax, Axes)
    assert [t.get_text() for t in ax.texts] == ["x0", "x1", "x2", "x3", "class"]
    assert len(_arrows(ax)) == 3 + 4  # tree edges + one from the class to each attribute
    assert sorted(_edge_set(ax)) == [("x0", "x1"), ("x0", "x2"), ("x1", "x3")]
    assert sorted(_edge_set(ax, "class-edge")) == [("class", f"x{j}") for j in range(4)]
    assert ax.get_title() == "TAN dependence structure"


def test_without_class_only_attribute_edges():
    ax = dependence_graph(TAN(TREE), show_class=False, title="")
    assert [t.get_text() for t in ax.texts] == ["x0", "x1", "x2", "x3"]
    assert len(_arrows(ax)) == 3
    assert _arrows(ax, "class-edge") == []
    assert ax.get_title() == ""


def test_layers_by_depth_spread_evenly_in_column_order():
    ax = dependence_graph(TAN(TREE))
    assert ax.get_ylim() == (-2.5, 1.5) and ax.get_xlim() == (0.0, 1.0)
    pos = _nodes(ax)
    # depth: x0 0; x1, x2 1; x3 2; class above all
    assert pos["x0"] == (0.5, 0.0)
    assert pos["x1"] == pytest.approx((1 / 3, -1.0))
    assert pos["x2"] == pytest.approx((2 / 3, -1.0))
    assert pos["x3"] == (0.5, -2.0)
    assert pos["class"] == (0.5, 1.0)
    for j, parents in enumerate(TREE):
        for p in parents:
            assert pos[f"x{j}"][1] < pos[f"x{p}"][1]


def test_kdb_two_parents_per_node():
    ax = dependence_graph(KDB(KDB2))
    pos = _nodes(ax)
    assert len(_arrows(ax, "edge")) == sum(len(p) for p in KDB2) == 7
    assert len(_arrows(ax, "class-edge")) == 5
    expected = {(f"x{p}", f"x{j}") for j, ps in enumerate(KDB2) for p in ps}
    assert set(_edge_set(ax)) == expected
    assert _depths(KDB2) == [0, 1, 2, 3, 4]  # a chain: x2 waits for x1, x3 for x2, ...
    assert [pos[f"x{j}"][1] for j in range(5)] == [0.0, -1.0, -2.0, -3.0, -4.0]
    for j, ps in enumerate(KDB2):
        assert all(pos[f"x{j}"][1] < pos[f"x{p}"][1] for p in ps)
    # an arrow that skips a layer bends around the nodes between, others are straight
    for (a, b), arrow in zip(_edge_set(ax), _arrows(ax, "edge"), strict=True):
        skips = pos[a][1] - pos[b][1] > 1
        assert abs(arrow.get_connectionstyle().rad) == (0.3 if skips else 0.0), (a, b)


def test_depths_spod_and_forest():
    assert _depths([(1,), (), (1,), (1,)]) == [1, 0, 1, 1]  # SPODE, super-parent 1
    assert _depths([(), (), (0,), (1, 2)]) == [0, 0, 1, 2]
    assert _depths([]) == []


def test_spode_layout_star():
    ax = dependence_graph(TAN([(1,), (), (1,), (1,)]), show_class=False)
    assert [t.get_text() for t in ax.texts] == ["x0", "x1", "x2", "x3"]  # column order
    pos = _nodes(ax)
    assert pos["x1"] == (0.5, 0.0)
    assert [pos[f"x{j}"][0] for j in (0, 2, 3)] == pytest.approx([0.25, 0.5, 0.75])
    assert {pos[f"x{j}"][1] for j in (0, 2, 3)} == {-1.0}


def test_names_from_feature_names_in_and_override():
    model = TAN([(), (0,), (1,)], names=["colour", "size", "weight"])
    assert [t.get_text() for t in dependence_graph(model).texts] == [
        "colour",
        "size",
        "weight",
        "class",
    ]
    ax = dependence_graph(model, feature_names=np.array(["a", "b", "c"]), show_class=False)
    assert [t.get_text() for t in ax.texts] == ["a", "b", "c"]


def test_draws_on_given_axes_and_saves_png(tmp_path):
    fig, (left, right) = plt.subplots(1, 2, figsize=(6, 3), dpi=50)
    ax = dependence_graph(KDB(KDB2), ax=right, title="KDB, k=2")
    left.set_axis_off()
    assert ax is right and len(left.texts) == 0
    assert right.get_title() == "KDB, k=2"
    path = tmp_path / "graph.png"
    fig.savefig(path)
    image = matplotlib.image.imread(path)
    assert image.shape[:2] == (150, 300)
    assert image[:, 150:, :3].std() > 0.05  # the graph's half is not blank
    assert image[:, :150, :3].std() == 0  # the other Axes is untouched (and hidden)


def test_arrows_are_clipped_to_the_boxes_after_drawing():
    ax = dependence_graph(TAN([(), (0,)]), show_class=False)
    ax.figure.canvas.draw()
    path = ax.transData.transform(_arrows(ax)[0].get_path().vertices)  # display coordinates
    start, tip = path[0], path[2]  # shaft start and head tip (then the head's outline)
    parent, child = (t.get_bbox_patch().get_window_extent() for t in ax.texts)
    assert parent.y0 - 10 < start[1] < parent.y0  # leaves the bottom of the parent's box
    assert child.y1 < tip[1] < child.y1 + 10  # the head stops at the top of the child's
    assert start[0] == tip[0] == pytest.approx((parent.x0 + parent.x1) / 2)


def test_reexported_from_plot():
    assert reexported is dependence_graph


# ------------------------------------------------------------------ errors
def test_aode_asks_for_its_super_parent():
    with pytest.raises(
        TypeError, match=r"AODE averages one estimator per set of 1 .*super_parents"
    ):
        dependence_graph(AODE())


def test_other_fitted_classifier_is_type_error():
    model = GaussianNB().fit(np.array([[0.0], [1.0], [2.0], [3.0]]), [0, 0, 1, 1])
    with pytest.raises(TypeError, match=r"SPODE, TAN, KDB.*GaussianNB has no attribute structure"):
        dependence_graph(model)


def test_unfitted_is_not_fitted_error():
    with pytest.raises(NotFittedError, match="AODE"):
        dependence_graph(AODE(fitted=False))
    unfitted = TAN(TREE)
    unfitted.classes_ = None
    with pytest.raises(NotFittedError):
        dependence_graph(unfitted)


def test_feature_names_wrong_length_or_type():
    with pytest.raises(ValueError, match="feature_names has 3 names.*4 attributes"):
        dependence_graph(TAN(TREE), feature_names=["a", "b", "c"])
    with pytest.raises(TypeError, match="feature_names must be a list of 4 names"):
        dependence_graph(TAN(TREE), feature_names="abcd")


def test_bad_parents():
    with pytest.raises(ValueError, match=r"parents_\[1\] = \(1,\)"):
        dependence_graph(TAN([(), (1,)]))
    with pytest.raises(ValueError, match=r"parents_\[0\] = \(5,\).*\[0, 2\)"):
        dependence_graph(TAN([(5,), ()]))
    with pytest.raises(ValueError, match=r"not acyclic: attributes \[0, 1, 2\]"):
        dependence_graph(TAN([(1,), (0,), (1,)]))
    model = TAN(TREE)
    model.n_features_in_ = 5
    with pytest.raises(ValueError, match="4 entries but n_features_in_ is 5"):
        dependence_graph(model)


# ------------------------------------------------------------------ matplotlib is optional
def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'bayesrule\[plot\]'"):
        dependence_graph(TAN(TREE))


def test_module_imports_without_matplotlib():
    code = (
        "import sys; sys.modules['matplotlib'] = None; "
        "import bayesrule.plot.structure as p; print(callable(p.dependence_graph))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
