import subprocess
import sys

import matplotlib
import numpy as np
import pytest
from scipy.stats import multivariate_normal

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import QuadMesh  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402

from bayesrule.plot import REJECT_COLOR, decision_regions, likelihood_contours, posterior_map

MEANS = np.array([[-1.0, 0.0], [1.0, 0.0]])


class FakeTwoFeature:
    """Two unit Gaussians at (-1, 0) and (1, 0); rejects when |x0| <= 0.5."""

    def __init__(self, reject=True, feature_names=None):
        self.classes_ = np.array(["a", "b"])
        self.reject_label_ = "reject"
        self.actions_ = np.array(["a", "b", "reject"] if reject else ["a", "b"])
        self.n_features_in_ = 2
        if feature_names is not None:
            self.feature_names_in_ = np.array(feature_names, dtype=object)
        self.reject = reject
        self.calls = []

    def fit(self, X, y):  # pragma: no cover
        return self

    def log_likelihood(self, X):
        X = np.asarray(X, dtype=float)
        return np.column_stack([multivariate_normal(m).logpdf(X) for m in MEANS])

    def predict_proba(self, X):
        self.calls.append(X)
        x0 = np.asarray(X, dtype=float)[:, 0]
        p_b = 1.0 / (1.0 + np.exp(-2.0 * x0))  # equal priors, unit variances
        return np.column_stack([1 - p_b, p_b])

    def predict(self, X):
        self.calls.append(X)
        x0 = np.asarray(X, dtype=float)[:, 0]
        out = np.where(x0 < 0, "a", "b").astype(object)
        if self.reject:
            out[np.abs(x0) <= 0.5] = "reject"
        return out


class FakeThreeFeature(FakeTwoFeature):
    def __init__(self):
        super().__init__()
        self.n_features_in_ = 3


X = np.array([[-2.0, -1.0], [-1.5, 1.0], [1.5, -1.0], [2.0, 1.0]])
Y = np.array(["a", "a", "b", "b"])


def _cell_rgb(ax, x, y):
    """RGB of the region mesh at the grid cell nearest (x, y)."""
    mesh = next(c for c in ax.collections if isinstance(c, QuadMesh))
    corners = mesh.get_coordinates()  # (ny + 1, nx + 1, 2) cell corners
    coords = (corners[:-1, :-1] + corners[1:, 1:]) / 2
    values = np.asarray(mesh.get_array()).reshape(coords.shape[:2])
    dist = (coords[..., 0] - x) ** 2 + (coords[..., 1] - y) ** 2
    i, j = np.unravel_index(np.argmin(dist), dist.shape)
    return tuple(mesh.cmap(mesh.norm(values[i, j]))[:3]), values[i, j]


def _legend_rgb(ax):
    leg = ax.get_legend()
    return {
        t.get_text(): to_rgb(h.get_facecolor())
        for t, h in zip(leg.get_texts(), leg.legend_handles, strict=True)
    }


def test_decision_regions_returns_axes_with_legend():
    ax = decision_regions(FakeTwoFeature(), X, Y, resolution=41)
    assert isinstance(ax, Axes)
    assert list(_legend_rgb(ax)) == ["a", "b", "reject"]
    assert ax.get_xlabel() == "x[0]" and ax.get_ylabel() == "x[1]"


def test_region_colours_match_predictions_at_known_points():
    ax = decision_regions(FakeTwoFeature(), X, Y, resolution=81)
    legend = _legend_rgb(ax)
    rgb, value = _cell_rgb(ax, -2.0, 0.0)
    assert value == 0 and rgb == pytest.approx(legend["a"])
    rgb, value = _cell_rgb(ax, 2.0, 0.5)
    assert value == 1 and rgb == pytest.approx(legend["b"])
    rgb, value = _cell_rgb(ax, 0.0, 0.0)
    assert value == 2 and rgb == pytest.approx(legend["reject"])
    assert legend["reject"] == pytest.approx(to_rgb(REJECT_COLOR))
    assert len({legend["a"], legend["b"], legend["reject"]}) == 3


def test_grid_is_predicted_in_one_call_over_padded_data_range():
    est = FakeTwoFeature()
    ax = decision_regions(est, X, resolution=30, padding=0.25)
    assert len(est.calls) == 1
    assert np.asarray(est.calls[0]).shape == (900, 2)
    # x range [-2, 2] padded by 25 % of 4 on each side; y range [-1, 1] by 0.5
    assert ax.get_xlim() == pytest.approx((-3.0, 3.0))
    assert ax.get_ylim() == pytest.approx((-1.5, 1.5))


def test_limits_without_data_and_overriding_data():
    ax = decision_regions(FakeTwoFeature(), xlim=(-4, 4), ylim=(0, 1), resolution=10)
    assert ax.get_xlim() == pytest.approx((-4, 4))
    ax = decision_regions(FakeTwoFeature(), X, xlim=(-10, 10), resolution=10, padding=0)
    assert ax.get_xlim() == pytest.approx((-10, 10))
    assert ax.get_ylim() == pytest.approx((-1, 1))


def test_no_reject_action_has_no_reject_entry():
    ax = decision_regions(FakeTwoFeature(reject=False), X, Y, resolution=20)
    assert list(_legend_rgb(ax)) == ["a", "b"]


def test_points_are_coloured_by_true_class():
    ax = decision_regions(FakeTwoFeature(), X, Y, resolution=20)
    legend = _legend_rgb(ax)
    points = next(c for c in ax.collections if not isinstance(c, QuadMesh))
    np.testing.assert_allclose(points.get_offsets(), X)
    face = points.get_facecolors()[:, :3]
    np.testing.assert_allclose(face[0], legend["a"])
    np.testing.assert_allclose(face[3], legend["b"])


def test_draws_on_given_axes_and_sets_title():
    _, ax = plt.subplots()
    out = decision_regions(FakeTwoFeature(), X, ax=ax, resolution=10, title="regions")
    assert out is ax
    assert ax.get_title() == "regions"


def test_feature_names_label_axes_and_grid_is_a_dataframe():
    import pandas as pd

    est = FakeTwoFeature(feature_names=["weight_g", "color_nm"])
    ax = decision_regions(est, X, resolution=10)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("weight_g", "color_nm")
    assert isinstance(est.calls[0], pd.DataFrame)
    assert list(est.calls[0].columns) == ["weight_g", "color_nm"]


@pytest.mark.parametrize("func", [decision_regions, likelihood_contours])
def test_three_features_raise(func):
    with pytest.raises(ValueError, match="exactly 2 features.*X\\[:, \\[0, 1\\]\\]"):
        func(FakeThreeFeature(), X)


def test_posterior_map_three_features_raise():
    with pytest.raises(ValueError, match="exactly 2 features"):
        posterior_map(FakeThreeFeature(), 0, X)


def test_missing_area_raises():
    with pytest.raises(ValueError, match="xlim and ylim"):
        decision_regions(FakeTwoFeature(), xlim=(0, 1))
    with pytest.raises(ValueError, match="xlim and ylim"):
        posterior_map(FakeTwoFeature(), "a")


def test_bad_arguments():
    with pytest.raises(ValueError, match="resolution"):
        decision_regions(FakeTwoFeature(), X, resolution=1)
    with pytest.raises(ValueError, match="shape"):
        decision_regions(FakeTwoFeature(), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="'zebra'"):
        decision_regions(FakeTwoFeature(), X, ["a", "b", "zebra", "a"])
    with pytest.raises(ValueError, match="without X"):
        decision_regions(FakeTwoFeature(), y=Y, xlim=(0, 1), ylim=(0, 1))


def test_posterior_map_values_and_class_selection():
    est = FakeTwoFeature()
    ax = posterior_map(est, "b", X, resolution=41)
    assert isinstance(ax, Axes)
    assert ax.get_title() == "P(b | x)"
    mesh = next(c for c in ax.collections if isinstance(c, QuadMesh))
    corners = mesh.get_coordinates()
    coords = ((corners[:-1, :-1] + corners[1:, 1:]) / 2).reshape(-1, 2)
    expected = est.predict_proba(coords)[:, 1]
    np.testing.assert_allclose(np.asarray(mesh.get_array()).ravel(), expected)
    assert mesh.norm.vmin == 0 and mesh.norm.vmax == 1
    # index 0 is class "a"; the two maps add up to one
    ax0 = posterior_map(est, 0, X, resolution=41, colorbar=False)
    mesh0 = next(c for c in ax0.collections if isinstance(c, QuadMesh))
    np.testing.assert_allclose(np.asarray(mesh0.get_array()) + np.asarray(mesh.get_array()), 1.0)
    with pytest.raises(ValueError, match="neither a class label"):
        posterior_map(est, "zebra", X)
    with pytest.raises(ValueError, match="neither a class label"):
        posterior_map(est, 5, X)


def test_likelihood_contours_one_set_per_class():
    ax = likelihood_contours(FakeTwoFeature(), X, y=Y, levels=5, resolution=60)
    assert isinstance(ax, Axes)
    sets = [c for c in ax.collections if isinstance(c, ContourSet)]
    assert len(sets) == 2
    # five levels evenly spaced below the grid's peak density (the mean is on the grid
    # only approximately, so compare with the true peak loosely)
    peak = multivariate_normal(MEANS[0]).pdf(MEANS[0])
    for s in sets:
        assert len(s.levels) == 5
        np.testing.assert_allclose(np.diff(s.levels), s.levels[0])
        assert s.levels[-1] == pytest.approx(peak * 5 / 6, rel=0.02)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]


def test_likelihood_contours_explicit_levels():
    ax = likelihood_contours(FakeTwoFeature(), X, levels=[0.01, 0.05, 0.1], resolution=40)
    sets = [c for c in ax.collections if isinstance(c, ContourSet)]
    np.testing.assert_allclose(sets[1].levels, [0.01, 0.05, 0.1])


def test_likelihood_contours_needs_log_likelihood():
    class NoLik:
        classes_ = np.array(["a", "b"])
        n_features_in_ = 2

        def fit(self, X, y):  # pragma: no cover
            return self

    with pytest.raises(TypeError, match="log_likelihood"):
        likelihood_contours(NoLik(), X)


@pytest.mark.parametrize(
    "call",
    [
        lambda: decision_regions(FakeTwoFeature(), X),
        lambda: posterior_map(FakeTwoFeature(), 0, X),
        lambda: likelihood_contours(FakeTwoFeature(), X),
    ],
)
def test_missing_matplotlib_names_the_extra(monkeypatch, call):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'bayesrule\[plot\]'"):
        call()


def test_module_imports_without_matplotlib():
    code = (
        "import sys; sys.modules['matplotlib'] = None; "
        "import bayesrule.plot as p; print(callable(p.decision_regions))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_fruit_regions_show_the_reject_colour():
    import bayesrule
    from bayesrule.datasets import fruit

    X, y = fruit(300, random_state=0, return_X_y=True)
    clf = bayesrule.QuadraticDiscriminant(loss=bayesrule.LossMatrix.with_reject(3, 0.1))
    clf.fit(X, y)
    ax = decision_regions(clf, X, y, resolution=120)
    mesh = next(c for c in ax.collections if isinstance(c, QuadMesh))
    values = np.asarray(mesh.get_array())
    assert set(np.unique(values).tolist()) == {0, 1, 2, 3}  # three classes and reject
    assert list(_legend_rgb(ax)) == ["apple", "grapefruit", "orange", "reject"]
    reject_cells = values == 3
    rgb = mesh.cmap(mesh.norm(values[reject_cells][0]))[:3]
    assert rgb == pytest.approx(to_rgb(REJECT_COLOR))
    # the reject band lies between classes: apple wins at its mean, reject occurs somewhere
    assert clf.predict([[150.0, 560.0]])[0] == "apple"
    assert 0 < reject_cells.mean() < 0.5


def test_non_numeric_or_sparse_data_get_a_clear_error():
    import scipy.sparse as sp

    from bayesrule import CategoricalNB, MultinomialNB

    X = np.array([["a", "b"], ["b", "a"], ["a", "a"], ["b", "b"]], dtype=object)
    est = CategoricalNB().fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="not numbers"):
        decision_regions(est, X, [0, 1, 0, 1])
    counts = sp.csr_array(np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 1.0]]))
    est = MultinomialNB().fit(counts, [0, 1, 0, 1])
    with pytest.raises(TypeError, match="sparse"):
        posterior_map(est, 0, counts)
