"""dependence_graph on the fitted models without a single parents_ list: an ESKDB's
members, the weighted hidden parents of an HNB (real fits, not stubs)."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from bayesrule import ESKDB, HNB, SKDB  # noqa: E402
from bayesrule.plot import dependence_graph  # noqa: E402


def _data(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, d))
    X[:, 1] = np.where(rng.random(n) < 0.8, X[:, 0], X[:, 1])  # x1 follows x0
    X[:, 2] = np.where(rng.random(n) < 0.7, y, X[:, 2])  # x2 follows the class
    return X, y


def _edges(ax, gid):
    return [p for p in ax.patches if p.get_gid() == gid]


def test_eskdb_draws_the_member_asked_for():
    X, y = _data()
    est = ESKDB(n_estimators=3, k_max=2, random_state=0).fit(X, y)
    for m, member in enumerate(est.members_):
        ax = dependence_graph(est, member=m)
        assert len(_edges(ax, "edge")) == sum(len(p) for p in member.parents_)
        left_out = [t for t in ax.texts if t.get_gid() == "left-out-node"]
        assert len(left_out) == X.shape[1] - len(member.selected_)
        assert ax.get_title() == f"ESKDB dependence structure (member {m + 1} of 3)"
        plt.close("all")
    assert dependence_graph(est).get_title().endswith("(member 1 of 3)")  # the first
    with pytest.raises(ValueError, match=r"member must be an integer in \[0, 3\)"):
        dependence_graph(est, member=3)
    with pytest.raises(TypeError, match="member= draws one member of an ensemble"):
        dependence_graph(SKDB().fit(X, y), member=0)
    plt.close("all")


def test_hnb_draws_its_hidden_parents_weighted():
    X, y = _data()
    est = HNB().fit(X, y)
    ax = dependence_graph(est)
    arrows = _edges(ax, "hidden-edge")
    W = est.weights_
    assert len(arrows) == int((W > 0).sum())  # one arrow per attribute mixed in
    widths = sorted(a.get_linewidth() for a in arrows)
    assert widths[-1] == pytest.approx(3.3) and widths[0] < widths[-1]
    strongest = np.unravel_index(np.argmax(W), W.shape)  # x0 -> x1 or x1 -> x0
    assert set(strongest) == {0, 1}
    assert "hidden parents" in ax.get_title()
    with pytest.raises(TypeError, match="super_parents= chooses the estimator"):
        dependence_graph(est, super_parents=0)
    plt.close("all")
