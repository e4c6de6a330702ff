import importlib.util
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import PathCollection, QuadMesh  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

from bayesrule import GaussianMixtureBayes, LossMatrix, MixedNB, QuadraticDiscriminant
from bayesrule.datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_MEANS, FRUIT_PRIORS, fruit
from bayesrule.plot import (  # noqa: E402
    REJECT_COLOR,
    Slice,
    decision_regions,
    decision_regions_under,
    prior_sweep,
    scatter,
    slice_for,
)
from bayesrule.plot.figure import KINDS, draw  # noqa: E402
from bayesrule.plot.slices import feature_positions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
X, Y = fruit(200, random_state=0, return_X_y=True)
PRIORS = dict(zip(FRUIT_CLASSES, FRUIT_PRIORS.tolist(), strict=True))
SEED_LOSS = LossMatrix([[0, 2, 3], [1, 0, 2], [1, 1, 0]], classes=list(FRUIT_CLASSES))
ORANGE_SHORTAGE = LossMatrix([[0, 100, 3], [1, 0, 2], [1, 100, 0]], classes=list(FRUIT_CLASSES))
TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c"]


@pytest.fixture(scope="module")
def qda():
    return QuadraticDiscriminant(priors=PRIORS).fit(X, Y)


@pytest.fixture(scope="module")
def seed_model():
    """Seed 003's true parameters, classes in the fitted (sorted) order."""
    order = np.argsort(FRUIT_CLASSES)
    return QuadraticDiscriminant.from_parameters(
        FRUIT_MEANS[order],
        FRUIT_COVARIANCES[order],
        priors=FRUIT_PRIORS[order],
        classes=np.array(FRUIT_CLASSES)[order],
    )


def _mesh(ax):
    """Cell centres (n, 2) and region values (n,) of the first QuadMesh of ``ax``."""
    mesh = next(c for c in ax.collections if isinstance(c, QuadMesh))
    corners = mesh.get_coordinates()
    centres = ((corners[:-1, :-1] + corners[1:, 1:]) / 2).reshape(-1, 2)
    return centres, np.asarray(mesh.get_array()).ravel()


def _index(labels, actions):
    actions = list(actions)
    return np.array([actions.index(v) for v in labels])


def _value_at(ax, x, y):
    centres, values = _mesh(ax)
    return values[np.argmin(((centres - [x, y]) ** 2).sum(axis=1))]


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


# decision_regions_under ----------------------------------------------------------------


def test_regions_under_other_priors_equal_predict_with_priors(qda):
    priors = {"apple": 0.1, "orange": 0.1, "grapefruit": 0.8}
    ax = decision_regions_under(qda, X, Y, priors=priors, resolution=60)
    centres, values = _mesh(ax)
    expected = _index(qda.predict(centres, priors=priors), qda.classes_)
    np.testing.assert_array_equal(values, expected)
    fitted = _index(qda.predict(centres), qda.classes_)
    assert (expected != fitted).sum() > 20  # the priors really move the boundaries
    grapefruit = list(qda.classes_).index("grapefruit")
    assert (values == grapefruit).sum() > (fitted == grapefruit).sum()
    assert ax.get_title() == "priors apple 0.10, grapefruit 0.80, orange 0.10"


def test_no_overrides_draws_what_decision_regions_draws(qda):
    a = _mesh(decision_regions_under(qda, X, resolution=30))[1]
    b = _mesh(decision_regions(qda, X, resolution=30))[1]
    np.testing.assert_array_equal(a, b)


def test_reject_row_follows_chows_rule(qda):
    ax = decision_regions_under(qda, X, loss=LossMatrix.with_reject(3, 0.2), resolution=80)
    centres, values = _mesh(ax)
    proba = qda.predict_proba(centres)
    np.testing.assert_array_equal(values == 3, proba.max(axis=1) < 0.8)
    assert 0 < (values == 3).mean() < 0.5
    np.testing.assert_array_equal(values[values < 3], proba.argmax(axis=1)[values < 3])
    assert _legend(ax) == ["apple", "grapefruit", "orange", "reject"]
    mesh = next(c for c in ax.collections if isinstance(c, QuadMesh))
    assert mesh.cmap(mesh.norm(3))[:3] == pytest.approx(to_rgb(REJECT_COLOR))
    assert ax.get_title() == "zero-one loss, reject cost 0.2"


def test_reject_cost_widens_band_as_it_falls(qda):
    rates = []
    for cost in (0.3, 0.1, 0.02):
        ax = decision_regions_under(qda, X, loss=LossMatrix.with_reject(3, cost), resolution=50)
        rates.append((_mesh(ax)[1] == 3).mean())
    assert rates[0] < rates[1] < rates[2]


def test_seed_loss_decides_orange_at_the_worked_example(seed_model):
    # seed 003: at x = [170, 585] the posteriors favour apple (0.6459), but the loss
    # [[0, 2, 3], [1, 0, 2], [1, 1, 0]] makes "orange" the least risky action
    area = {"xlim": (160, 180), "ylim": (575, 595), "resolution": 21}
    classes = list(seed_model.classes_)
    zero_one = decision_regions_under(seed_model, loss=LossMatrix.zero_one(3), **area)
    assert _value_at(zero_one, 170, 585) == classes.index("apple")
    seed = decision_regions_under(seed_model, loss=SEED_LOSS, **area)
    assert _value_at(seed, 170, 585) == classes.index("orange")
    assert seed.get_title() == "loss [0 3 2; 1 0 1; 1 2 0]"  # aligned to the sorted classes


def test_loss_regions_are_the_least_risk_actions_and_boundaries_move(seed_model):
    apple, grapefruit, orange = 0, 1, 2
    assert list(seed_model.classes_) == ["apple", "grapefruit", "orange"]
    regions = {}
    for name, loss in [("zero-one", None), ("seed", SEED_LOSS), ("shortage", ORANGE_SHORTAGE)]:
        ax = decision_regions_under(seed_model, X, loss=loss, resolution=80)
        centres, regions[name] = _mesh(ax)
        if loss is not None:
            risk = seed_model.predict_proba(centres) @ loss.aligned(seed_model.classes_).matrix.T
            np.testing.assert_array_equal(regions[name], risk.argmin(axis=1))
    before, seed, shortage = regions["zero-one"], regions["seed"], regions["shortage"]
    # seed 003: the seed's loss moves orange into apple and grapefruit into orange, never back
    assert ((before == apple) & (seed == orange)).sum() > 0
    assert ((before == orange) & (seed == grapefruit)).sum() > 0
    assert ((before == orange) & (seed == apple)).sum() == 0
    assert ((before == grapefruit) & (seed == orange)).sum() == 0
    # a shortage of oranges (loss 100 for missing one) makes the orange region much larger
    assert (shortage == orange).sum() > 1.3 * (before == orange).sum()
    assert ((before == orange) & (shortage != orange)).sum() == 0


def test_title_can_be_given_or_dropped(qda):
    assert (
        decision_regions_under(qda, X, priors="uniform", title="mine", resolution=10).get_title()
        == "mine"
    )
    assert (
        decision_regions_under(qda, X, priors="uniform", title="", resolution=10).get_title() == ""
    )
    assert decision_regions_under(qda, X, resolution=10).get_title() == ""


def test_bad_priors_or_loss_raise_before_drawing(qda):
    with pytest.raises(ValueError, match="sum"):
        decision_regions_under(qda, X, priors=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="3 classes"):
        decision_regions_under(qda, X, loss=np.ones((2, 2)))
    assert plt.get_fignums() == []


# prior_sweep ---------------------------------------------------------------------------


def test_prior_sweep_default_panels_and_titles(qda):
    axes = prior_sweep(qda, X, Y, resolution=30)
    assert len(axes) == 5 and all(isinstance(a, Axes) for a in axes)
    assert len(axes[0].figure.axes) == 5  # the sixth grid cell is removed
    assert [a.get_title() for a in axes] == [
        "uniform\napple 0.33, grapefruit 0.33, orange 0.33",
        "fitted\napple 0.40, grapefruit 0.20, orange 0.40",
        "favour apple\napple 0.60, grapefruit 0.20, orange 0.20",
        "favour grapefruit\napple 0.20, grapefruit 0.60, orange 0.20",
        "favour orange\napple 0.20, grapefruit 0.20, orange 0.60",
    ]
    assert axes[0].get_legend() is not None
    assert all(a.get_legend() is None for a in axes[1:])
    w, h = axes[0].figure.get_size_inches()
    assert (w, h) == pytest.approx((12.0, 6.8))
    centres, values = _mesh(axes[3])
    favour = {"apple": 0.2, "grapefruit": 0.6, "orange": 0.2}
    np.testing.assert_array_equal(values, _index(qda.predict(centres, priors=favour), qda.classes_))


def test_prior_sweep_named_priors_and_layout(qda):
    axes = prior_sweep(
        qda,
        X,
        priors_list={"even": "uniform", "as fitted": None},
        ncols=1,
        legend="none",
        resolution=20,
    )
    assert [a.get_title().split("\n")[0] for a in axes] == ["even", "as fitted"]
    assert all(a.get_legend() is None for a in axes)
    assert [a.get_subplotspec().rowspan.start for a in axes] == [0, 1]
    listed = prior_sweep(qda, X, priors_list=[None, "uniform", [0.2, 0.3, 0.5]], resolution=20)
    assert [a.get_title().split("\n")[0] for a in listed] == ["fitted", "uniform", "priors"]
    assert listed[2].get_title().split("\n")[1] == "apple 0.20, grapefruit 0.30, orange 0.50"


def test_prior_sweep_errors(qda):
    with pytest.raises(ValueError, match="empty"):
        prior_sweep(qda, X, priors_list=[])
    with pytest.raises(ValueError, match="ncols"):
        prior_sweep(qda, X, ncols=0)
    with pytest.raises(ValueError, match="one priors spec"):
        prior_sweep(qda, X, priors_list={"apple": 0.5, "orange": 0.3, "grapefruit": 0.2})
    with pytest.raises(ValueError, match="legend"):
        prior_sweep(qda, X, legend="some")


# scatter -------------------------------------------------------------------------------


def test_scatter_one_collection_per_class_in_class_colours(qda):
    ax = scatter(qda, X, Y)
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert [(c.get_label(), len(c.get_offsets())) for c in points] == [
        ("apple", 200),
        ("grapefruit", 200),
        ("orange", 200),
    ]
    for c, color in zip(points, TAB10, strict=True):
        assert tuple(c.get_facecolor()[0][:3]) == pytest.approx(to_rgb(color))
    np.testing.assert_allclose(points[0].get_offsets(), X[Y == "apple"])
    assert _legend(ax) == ["apple", "grapefruit", "orange"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x[0]", "x[1]")


def test_scatter_without_estimator_or_labels():
    ax = scatter(None, X[:90], np.array(["b", "a", "c"] * 30))
    assert [c.get_label() for c in ax.collections] == ["a", "b", "c"]
    ax = scatter(None, X[:7])
    assert len(ax.collections) == 1 and len(ax.collections[0].get_offsets()) == 7
    with pytest.raises(ValueError, match="shape"):
        scatter(None, X[:, :1], Y)
    with pytest.raises(ValueError, match="samples"):
        scatter(None, X, Y[:5])


def test_scatter_names_axes_after_dataframe_columns():
    import pandas as pd

    ax = scatter(None, pd.DataFrame(X, columns=["weight_g", "color_nm"]), Y)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("weight_g", "color_nm")


# slices --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y, QuadraticDiscriminant().fit(X, y)


def test_slice_predictions_hold_the_other_features_at_their_means(iris):
    Xi, yi, model = iris
    s = slice_for(model, Xi, (2, 3))
    assert isinstance(s, Slice)
    assert s.title == "slice through x[2], x[3]; others at their mean"
    assert s.held_ == pytest.approx({"x[0]": Xi[:, 0].mean(), "x[1]": Xi[:, 1].mean()})
    ax = decision_regions(s, s.data(Xi), yi, resolution=50, title=s.title)
    centres, values = _mesh(ax)
    full = np.column_stack(
        [
            np.full(len(centres), Xi[:, 0].mean()),
            np.full(len(centres), Xi[:, 1].mean()),
            centres,
        ]
    )
    np.testing.assert_array_equal(values, _index(model.predict(full), model.classes_))
    assert len(np.unique(values)) == 3
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("x[2]", "x[3]", s.title)
    np.testing.assert_allclose(s.predict_proba(centres[:5]), model.predict_proba(full[:5]))
    np.testing.assert_allclose(s.log_likelihood(centres[:5]), model.log_likelihood(full[:5]))
    np.testing.assert_allclose(s.data(Xi), Xi[:, [2, 3]])


def test_slice_of_named_features_and_priors(iris):
    import pandas as pd

    frame, y = load_iris(return_X_y=True, as_frame=True)
    model = QuadraticDiscriminant().fit(frame, y)
    s = slice_for(model, frame.assign(target=y), "sepal width (cm),petal width (cm)")
    assert s.features == (1, 3)
    assert list(s.held_) == ["sepal length (cm)", "petal length (cm)"]
    assert s.held_["petal length (cm)"] == pytest.approx(frame["petal length (cm)"].mean())
    grid = np.array([[3.0, 0.2], [3.0, 1.3], [3.0, 2.2]])
    full = s.expand(grid)
    assert isinstance(full, pd.DataFrame) and list(full.columns) == list(frame.columns)
    priors = [0.1, 0.1, 0.8]
    np.testing.assert_array_equal(
        s.predict(grid, priors=priors), model.predict(full, priors=priors)
    )


def test_slice_holds_categorical_features_at_their_most_frequent_value():
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "a": rng.normal(size=80),
            "b": rng.normal(size=80),
            "colour": rng.choice(["red", "green", "green"], 80),
            "doors": rng.choice([2, 4, 4, 4], 80),
            "c": rng.normal(2.0, 1.0, size=80),
        }
    )
    labels = np.where(df.a + df.b > 0, "p", "q")
    model = MixedNB().fit(df, labels)  # the integer column is categorical in MixedNB
    s = slice_for(model, df, ["a", "b"])
    assert s.held_ == {"colour": "green", "doors": 4, "c": pytest.approx(df.c.mean())}
    assert s.title == "slice through a, b; others at their mean or most frequent value"
    expected = df.iloc[:3].assign(colour="green", doors=4, c=df.c.mean())
    np.testing.assert_allclose(
        s.predict_proba(df[["a", "b"]].iloc[:3]), model.predict_proba(expected)
    )
    only_cat = slice_for(model, df, ["a", "c"])
    assert only_cat.title.endswith("others at their mean or most frequent value")
    assert slice_for(model, df.drop(columns="c").assign(c=0.0), ["a", "b"]).held_["c"] == 0.0


def test_slice_through_integer_columns_and_unnamed_frames():
    import pandas as pd

    rng = np.random.default_rng(1)
    df = pd.DataFrame({"n": rng.integers(0, 10, 90), "m": rng.integers(0, 10, 90)})
    df["z"] = rng.normal(size=90)
    labels = np.where(df.n > df.m, "hi", "lo")
    model = QuadraticDiscriminant(reg_covar=1e-6).fit(df, labels)
    s = slice_for(model, df, ("n", "z"))
    grid = np.array([[2.5, 0.0], [7.5, 0.0]])
    full = s.expand(grid)
    assert full["n"].tolist() == [2.5, 7.5] and full["m"].tolist() == [df.m.mean()] * 2
    np.testing.assert_array_equal(s.predict(grid), model.predict(full))
    unnamed = QuadraticDiscriminant(reg_covar=1e-6).fit(df.to_numpy(dtype=float), labels)
    s = slice_for(unnamed, df, (0, 2))
    np.testing.assert_allclose(s.data(df), df[["n", "z"]].to_numpy(dtype=float))
    assert s.title == "slice through x[0], x[2]; others at their mean"


def test_slice_errors(iris):
    Xi, _, model = iris
    with pytest.raises(ValueError, match="out of range"):
        slice_for(model, Xi, (0, 4))
    with pytest.raises(ValueError, match="must differ"):
        slice_for(model, Xi, (1, 1))
    with pytest.raises(ValueError, match="two features"):
        slice_for(model, Xi, (0, 1, 2))
    with pytest.raises(ValueError, match="3 columns but the model has 4"):
        slice_for(model, Xi[:, :3], (0, 1))
    objects = Xi.astype(object)
    objects[:, 0] = "x"
    with pytest.raises(ValueError, match="'x\\[0\\]' is not numeric"):
        slice_for(model, objects, (0, 1))


def test_feature_names_suggest_the_closest(iris):
    frame, y = load_iris(return_X_y=True, as_frame=True)
    model = QuadraticDiscriminant().fit(frame, y)
    assert feature_positions(model, ["petal width (cm)", 0]) == (3, 0)
    with pytest.raises(ValueError, match="did you mean 'petal width \\(cm\\)'"):
        feature_positions(model, ["petal widht (cm)", "sepal length (cm)"])
    assert feature_positions(iris[2], "3,1") == (3, 1)


# draw ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixture():
    return GaussianMixtureBayes("bic", max_components=3, random_state=0).fit(X, Y)


@pytest.mark.parametrize("kind", ["regions", "posterior", "likelihood"])
def test_draw_two_feature_kinds(qda, kind):
    ax = draw(qda, X, Y, kind=kind)
    assert isinstance(ax, Axes)
    assert ax.get_title() in ("", "P(apple | x)")
    if kind == "regions":
        centres, values = _mesh(ax)
        np.testing.assert_array_equal(values, _index(qda.predict(centres), qda.classes_))
    if kind == "posterior":  # one heat map per class, each with its colour bar
        titles = [a.get_title() for a in ax.figure.axes]  # the panels, then the colour bars
        assert titles == ["P(apple | x)", "P(grapefruit | x)", "P(orange | x)", "", "", ""]
    if kind == "likelihood":
        assert sum(isinstance(c, ContourSet) for c in ax.collections) == 3


def test_draw_mixture_kinds(mixture):
    ax = draw(mixture, X, Y, kind="components")
    n_components = sum(m.n_components for m in mixture.mixtures_.values())
    assert sum(isinstance(p, Ellipse) for p in ax.patches) == n_components
    ax = draw(mixture, kind="bic")
    assert ax.get_ylabel() == "BIC (lower is better)"


def test_draw_slices_models_of_more_features():
    frame, y = load_iris(return_X_y=True, as_frame=True)
    model = QuadraticDiscriminant().fit(frame, y)
    data = frame.assign(species=y)  # extra columns are ignored
    ax = draw(model, data, y, kind="regions", features=("petal length (cm)", "petal width (cm)"))
    title = "slice through petal length (cm), petal width (cm)\nothers at their mean"
    assert ax.get_title() == title  # on two lines, to fit the figure
    assert ax.get_xlabel() == "petal length (cm)"
    ax = draw(model, data, y, kind="posterior", features="petal length (cm),petal width (cm)")
    assert ax.figure.get_suptitle().startswith("slice through petal length (cm)")
    _, ax = plt.subplots()
    out = draw(model, frame, y, kind="posterior", features=(2, 3), ax=ax, class_label=1)
    assert out is ax and ax.get_title().startswith("P(1 | x)\nslice through")
    gmm = GaussianMixtureBayes(2, random_state=0).fit(frame, y)
    ax = draw(gmm, frame, y, kind="components", features=(2, 3))
    assert sum(isinstance(p, Ellipse) for p in ax.patches) == 6
    assert ax.get_title() == (
        "components on petal length (cm), petal width (cm)\n(marginals over the other features)"
    )
    ellipse = next(p for p in ax.patches if isinstance(p, Ellipse))
    means = np.vstack([m.means_[:, [2, 3]] for m in gmm.mixtures_.values()])
    assert np.min(np.abs(means - ellipse.center).sum(axis=1)) < 1e-9


def test_draw_subsamples_points_but_keeps_the_area(qda):
    ax = draw(qda, X, Y, kind="regions", max_points=50)
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert sum(len(c.get_offsets()) for c in points) == 50
    lo, hi = X[:, 0].min(), X[:, 0].max()
    assert ax.get_xlim() == pytest.approx((lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo)))


def test_draw_errors(qda, iris):
    with pytest.raises(ValueError, match="unknown plot kind 'contour'; choose one of regions"):
        draw(qda, X, Y, kind="contour")
    with pytest.raises(ValueError, match="has 4 features.*--features A,B"):
        draw(iris[2], iris[0], kind="regions")
    for kind in ("components", "bic"):
        with pytest.raises(ValueError, match="GaussianMixtureBayes"):
            draw(qda, X, Y, kind=kind)
    with pytest.raises(ValueError, match="give the data X"):
        draw(qda, kind="regions")
    with pytest.raises(ValueError, match="sparse"):
        draw(qda, sp.csr_array(X), kind="regions")
    with pytest.raises(ValueError, match="600 samples but y"):
        draw(qda, X, Y[:10], kind="regions")
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="class_label"):
        draw(qda, X, kind="posterior", ax=ax)
    with pytest.raises(ValueError, match="not among the classes"):
        draw(qda, X, np.array(["kiwi"] * len(X)), kind="regions")
    assert KINDS == ("regions", "posterior", "likelihood", "components", "bic")


# examples/seed_figures.py --------------------------------------------------------------


def test_seed_figures_script_writes_every_png(tmp_path):
    path = ROOT / "examples" / "seed_figures.py"
    spec = importlib.util.spec_from_file_location("seed_figures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "figs"
    run = subprocess.run(
        [sys.executable, str(path), str(out), "--n-per-class", "150", "--resolution", "40"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    written = [Path(line) for line in run.stdout.split()]
    assert [p.name for p in written] == list(module.SIZES)
    assert len(written) == 8
    for p in written:
        width, height = module.SIZES[p.name]
        image = plt.imread(p)
        assert image.shape[:2] == (round(height * module.DPI), round(width * module.DPI)), p.name
        assert image[..., :3].std() > 0.05  # not blank


def test_decision_regions_takes_priors_and_loss_overrides():
    from bayesrule import LossMatrix, QuadraticDiscriminant
    from bayesrule.datasets import fruit
    from bayesrule.plot import decision_regions

    X, y = fruit(100, random_state=0, return_X_y=True)
    model = QuadraticDiscriminant().fit(X, y)
    loss = LossMatrix.with_reject(3, 0.1)
    a = decision_regions(model, X, y, priors="uniform", loss=loss, resolution=30)
    b = decision_regions_under(model, X, y, priors="uniform", loss=loss, resolution=30)
    assert a.get_title() == b.get_title()
    np.testing.assert_array_equal(a.collections[0].get_array(), b.collections[0].get_array())
    plt.close("all")


def test_risk_coverage_and_reliability_figures():
    import matplotlib.pyplot as plt
    from sklearn.datasets import load_digits

    from bayesrule import GaussianNB, LinearDiscriminant
    from bayesrule.decision import SelectiveClassifier, risk_coverage_curve
    from bayesrule.metrics import expected_calibration_error
    from bayesrule.plot import reliability_diagram, risk_coverage

    X, y = load_digits(return_X_y=True)
    model = SelectiveClassifier(LinearDiscriminant(), max_error=0.02, random_state=0).fit(X, y)
    ax = risk_coverage(model, X, y)
    curve = risk_coverage_curve(model, X, y)
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_xdata(), curve["coverage"])
    np.testing.assert_array_equal(line.get_ydata(), curve["risk"])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["error on accepted", "max_error"] and labels[2].startswith("threshold")
    plt.close(ax.figure)

    nb = GaussianNB().fit(X, y)
    ax = reliability_diagram(nb, X, y, n_bins=10)
    ece = expected_calibration_error(y, nb.predict_proba(X), nb.classes_, 10)
    assert ax.get_title() == f"Reliability (ECE {ece:.3f})"
    assert len(ax.patches) == 10  # one bar per bin
    assert sum(p.get_height() for p in ax.patches) == pytest.approx(1.0)
    plt.close(ax.figure)
