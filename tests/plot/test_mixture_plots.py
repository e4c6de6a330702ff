import subprocess
import sys

import matplotlib
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

from bayesrule import QuadraticDiscriminant  # noqa: E402
from bayesrule.datasets import two_modes  # noqa: E402
from bayesrule.estimators.mixture import GaussianMixtureBayes  # noqa: E402
from bayesrule.plot.mixture import bic_curve, mixture_components  # noqa: E402

X, Y = two_modes(random_state=0, return_X_y=True)


@pytest.fixture(scope="module")
def fixed():
    return GaussianMixtureBayes({1: 1, 2: 3}, random_state=0).fit(X, Y)


@pytest.fixture(scope="module")
def chosen():
    return GaussianMixtureBayes("bic", max_components=4, random_state=0).fit(X, Y)


def _ellipses(ax):
    return [p for p in ax.patches if isinstance(p, Ellipse)]


def _boundary(ellipse):
    """Points on an ellipse's outline, in data coordinates (its path is the unit circle
    under the patch transform)."""
    t = np.linspace(0, 2 * np.pi, 73)
    return ellipse.get_patch_transform().transform(np.column_stack([np.cos(t), np.sin(t)]))


# ------------------------------------------------------------------ mixture_components
def test_one_ellipse_per_component_at_the_means(fixed):
    ax = mixture_components(fixed, X, Y)
    assert isinstance(ax, Axes)
    ellipses = _ellipses(ax)
    assert len(ellipses) == 1 + 3
    centres = np.array([e.center for e in ellipses])
    means = np.vstack([m.means_ for m in fixed.mixtures_.values()])
    np.testing.assert_allclose(centres, means)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["1 (1)", "2 (3)"]


@pytest.mark.parametrize("n_std", [1.0, 2.0, 3.5])
def test_ellipses_are_contours_at_n_std_mahalanobis_distance(fixed, n_std):
    ax = mixture_components(fixed, n_std=n_std)
    ellipses = iter(_ellipses(ax))
    for m in fixed.mixtures_.values():
        for mean, cov in zip(m.means_, m.full_covariances(), strict=True):
            diff = _boundary(next(ellipses)) - mean
            dist = np.sqrt(np.einsum("ij,jk,ik->i", diff, np.linalg.inv(cov), diff))
            np.testing.assert_allclose(dist, n_std, rtol=1e-6)


def test_heavier_components_are_drawn_stronger(fixed):
    ax = mixture_components(fixed)
    ellipses = _ellipses(ax)[1:]  # class 2's three components
    weights = fixed.mixtures_[2].weights_
    widths = np.array([e.get_linewidth() for e in ellipses])
    alphas = np.array([e.get_edgecolor()[3] for e in ellipses])
    assert np.argmax(widths) == np.argmax(weights) and np.argmin(widths) == np.argmin(weights)
    assert alphas[np.argmax(weights)] == pytest.approx(1.0)
    assert np.all(np.diff(alphas[np.argsort(weights)]) > 0)


def test_weights_are_written_beside_the_means(fixed):
    ax = mixture_components(fixed)
    texts = [t.get_text() for t in ax.texts]
    expected = [f"{w:.2f}" for m in fixed.mixtures_.values() for w in m.weights_]
    assert texts == expected
    assert len(mixture_components(fixed, annotate=False).texts) == 0


def test_data_are_drawn_and_shown(fixed):
    ax = mixture_components(fixed, X, Y)
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(points) == 1 and len(points[0].get_offsets()) == len(X)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < X[:, 0].min() and x1 > X[:, 0].max()
    assert y0 < X[:, 1].min() and y1 > X[:, 1].max()


def test_without_data_the_area_holds_every_ellipse(fixed):
    ax = mixture_components(fixed)
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    for e in _ellipses(ax):
        pts = _boundary(e)
        assert x0 <= pts[:, 0].min() and pts[:, 0].max() <= x1
        assert y0 <= pts[:, 1].min() and pts[:, 1].max() <= y1


def test_given_axes_limits_and_title_are_used(fixed):
    _, ax = plt.subplots()
    out = mixture_components(fixed, ax=ax, xlim=(-1, 1), ylim=(-2, 2), title="modes")
    assert out is ax
    assert ax.get_xlim() == (-1.0, 1.0) and ax.get_ylim() == (-2.0, 2.0)
    assert ax.get_title() == "modes"


def test_feature_names_label_the_axes():
    import pandas as pd

    df = pd.DataFrame(X, columns=["width", "height"])
    gmm = GaussianMixtureBayes({1: 1, 2: 2}, random_state=0).fit(df, Y)
    ax = mixture_components(gmm, df, Y)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("width", "height")


def test_mixture_components_errors(fixed):
    with pytest.raises(NotFittedError):
        mixture_components(GaussianMixtureBayes())
    with pytest.raises(TypeError, match="not one; fit a GaussianMixtureBayes"):
        mixture_components(QuadraticDiscriminant().fit(X, Y))
    three = np.column_stack([X, X[:, 0] - X[:, 1]])
    wide = GaussianMixtureBayes(reg_covar=1e-3).fit(three, Y)
    with pytest.raises(ValueError, match="exactly 2 features, but this one has 3"):
        mixture_components(wide)
    with pytest.raises(ValueError, match="n_std"):
        mixture_components(fixed, n_std=0)
    with pytest.raises(TypeError, match="n_std"):
        mixture_components(fixed, n_std="2")
    with pytest.raises(ValueError, match=r"shape \(n_samples, 2\)"):
        mixture_components(fixed, X[:, :1])


# ------------------------------------------------------------------ bic_curve
def _curves(ax):
    return [line for line in ax.get_lines() if line.get_gid() != "chosen"]


def test_bic_curve_points_are_the_bic_table(chosen):
    ax = bic_curve(chosen)
    curves = _curves(ax)
    assert [c.get_label() for c in curves] == ["class 1, full", "class 2, full"]
    for line, table, refused in zip(
        curves, chosen.bic_.values(), chosen.refused_.values(), strict=True
    ):
        ks, values = line.get_data()
        assert list(ks) == sorted(k for _, k in table)  # refused candidates have no BIC
        assert sorted([*ks, *(k for _, k in refused)]) == [1, 2, 3, 4]
        np.testing.assert_array_equal(values, [table["full", k] for k in ks])
    assert sum(len(c.get_xdata()) for c in curves) == sum(map(len, chosen.bic_.values()))
    assert ax.get_xlabel() == "number of components"


def test_bic_curve_marks_the_chosen_models(chosen):
    ax = bic_curve(chosen, title="BIC")
    marks = [line for line in ax.get_lines() if line.get_gid() == "chosen"]
    assert len(marks) == 2
    for mark, table, m in zip(marks, chosen.bic_.values(), chosen.mixtures_.values(), strict=True):
        best = min(table, key=table.get)
        assert (m.covariance, m.n_components) == best
        assert (mark.get_xdata()[0], mark.get_ydata()[0]) == (best[1], table[best])
    assert [mark.get_xdata()[0] for mark in marks] == [1, 2]
    assert ax.get_title() == "BIC"
    assert "chosen" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_bic_curve_draws_one_line_per_class_and_structure():
    gmm = GaussianMixtureBayes("bic", covariance="sklearn", max_components=3, random_state=0)
    gmm.fit(X, Y)
    _, ax = plt.subplots()
    assert bic_curve(gmm, ax=ax) is ax
    curves = _curves(ax)
    assert len(curves) == 2 * 4
    assert sum(len(c.get_xdata()) for c in curves) == sum(map(len, gmm.bic_.values())) == 24
    styles = {c.get_label().split(", ")[1]: c.get_linestyle() for c in curves}
    assert len(set(styles.values())) == 4


def test_bic_curve_errors(fixed):
    with pytest.raises(ValueError, match=r"n_components=\{1: 1, 2: 3\}.*n_components='bic'"):
        bic_curve(fixed)
    with pytest.raises(NotFittedError):
        bic_curve(GaussianMixtureBayes("bic"))
    with pytest.raises(TypeError, match="not one"):
        bic_curve(QuadraticDiscriminant().fit(X, Y))


# ------------------------------------------------------------------ matplotlib is optional
@pytest.mark.parametrize("call", [mixture_components, bic_curve])
def test_missing_matplotlib_names_the_extra(monkeypatch, chosen, call):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'bayesrule\[plot\]'"):
        call(chosen)


def test_module_imports_without_matplotlib():
    code = (
        "import sys; sys.modules['matplotlib'] = None; "
        "import bayesrule.plot.mixture as p; print(callable(p.bic_curve))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
