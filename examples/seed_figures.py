"""Seed 003's figures of the fruit classifier, drawn with bayesrule.

Fits a quadratic Bayes classifier (one full Gaussian per class, priors apple 0.4,
orange 0.4, grapefruit 0.2) to the synthetic fruit data (weight in g, colour in nm)
and writes the seed's figures, in spirit, as PNG files:

    fig04-06_posteriors.png         posterior heat map of each class (figures 4-6)
    fig07_general_rule.png          regions of the general Bayes rule under the seed's
                                    loss, alone and with the likelihood contours (fig. 7)
    fig08_losses.png                regions under zero-one loss, the seed's loss and the
                                    "orange shortage" loss (figure 8)
    fig09_priors.png                regions under six priors (figure 9)
    fig11_training_data.png         the training data by class (figure 11)
    fig12_likelihoods.png           estimated likelihood contours over the data (fig. 12)
    fig13_estimated_vs_true.png     estimated (solid) and true (dashed) contours (fig. 13)
    reject_option.png               regions with a reject option at two costs (Chow's rule)

Usage: ``python examples/seed_figures.py [OUTPUT_FOLDER]`` (default ``./seed-figures``);
it prints the path of every file it writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from bayesrule import LossMatrix, QuadraticDiscriminant  # noqa: E402
from bayesrule.datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_MEANS, fruit  # noqa: E402
from bayesrule.plot import (  # noqa: E402
    decision_regions_under,
    likelihood_contours,
    posterior_map,
    prior_sweep,
    scatter,
)

#: Resolution of the saved figures, dots per inch.
DPI = 100

#: Each figure's size in inches (width, height); in pixels, times DPI.
SIZES = {
    "fig04-06_posteriors.png": (13.2, 3.6),
    "fig07_general_rule.png": (11.0, 4.4),
    "fig08_losses.png": (15.0, 4.4),
    "fig09_priors.png": (12.0, 6.8),
    "fig11_training_data.png": (6.4, 4.8),
    "fig12_likelihoods.png": (6.4, 4.8),
    "fig13_estimated_vs_true.png": (6.4, 4.8),
    "reject_option.png": (11.0, 4.4),
}

CLASSES = list(FRUIT_CLASSES)  # the seed's order: apple, orange, grapefruit
PRIORS = {"apple": 0.4, "orange": 0.4, "grapefruit": 0.2}
#: The seed's losses, rows "decide apple, orange, grapefruit", columns the true class.
SEED_LOSS = LossMatrix([[0, 2, 3], [1, 0, 2], [1, 1, 0]], classes=CLASSES)
ORANGE_SHORTAGE = LossMatrix([[0, 100, 3], [1, 0, 2], [1, 100, 0]], classes=CLASSES)


def _area(X, resolution, padding=0.1):
    """The area every figure shows: the data's range with a margin, and the grid size."""
    low, high = X.min(axis=0), X.max(axis=0)
    pad = padding * (high - low)
    return {
        "xlim": (low[0] - pad[0], high[0] + pad[0]),
        "ylim": (low[1] - pad[1], high[1] + pad[1]),
        "resolution": resolution,
    }


def _axis_labels(ax):
    ax.set_xlabel("x1 weight (g)")
    ax.set_ylabel("x2 colour (nm)")


def _figure(name, ncols=1, nrows=1):
    fig, axes = plt.subplots(nrows, ncols, figsize=SIZES[name], squeeze=False, layout="constrained")
    return fig, axes.ravel()


def _posteriors(model, X, y, name, resolution):
    fig, axes = _figure(name, ncols=3)
    for ax, label in zip(axes, CLASSES, strict=True):
        posterior_map(model, label, X, ax=ax, resolution=resolution)
        _axis_labels(ax)
    fig.suptitle("Posteriors P(w | x), priors apple 0.4, orange 0.4, grapefruit 0.2")
    return fig


def _general_rule(model, X, y, name, resolution):
    fig, (left, right) = _figure(name, ncols=2)
    area = _area(X, resolution)
    decision_regions_under(model, loss=SEED_LOSS, ax=left, title="decision regions", **area)
    decision_regions_under(model, loss=SEED_LOSS, ax=right, title="with p(x | w)", **area)
    legend = right.get_legend()
    likelihood_contours(model, ax=right, levels=6, **area)
    right.add_artist(legend)  # keep the regions' legend beside the contours' one
    right.get_legend().set_loc("lower right")
    for ax in (left, right):
        _axis_labels(ax)
    fig.suptitle("General Bayes decision rule, loss [[0, 2, 3], [1, 0, 2], [1, 1, 0]]")
    return fig


def _losses(model, X, y, name, resolution):
    fig, axes = _figure(name, ncols=3)
    titles = (
        "zero-one loss (minimum error rate)",
        "seed loss [[0, 2, 3], [1, 0, 2], [1, 1, 0]]",
        "orange shortage [[0, 100, 3], [1, 0, 2], [1, 100, 0]]",
    )
    for ax, loss, title in zip(axes, (None, SEED_LOSS, ORANGE_SHORTAGE), titles, strict=True):
        decision_regions_under(
            model, loss=loss or LossMatrix.zero_one(3), ax=ax, title=title, **_area(X, resolution)
        )
        _axis_labels(ax)
    fig.suptitle(
        "Decision regions under three loss matrices (rows: decide apple, orange, grapefruit)"
    )
    return fig


def _priors(model, X, y, name, resolution):
    sweep = {
        "uniform": "uniform",
        "seed priors": None,
        "apple 0.8": {"apple": 0.8, "orange": 0.1, "grapefruit": 0.1},
        "favour apple": {"apple": 0.6, "orange": 0.2, "grapefruit": 0.2},
        "favour orange": {"apple": 0.2, "orange": 0.6, "grapefruit": 0.2},
        "favour grapefruit": {"apple": 0.2, "orange": 0.2, "grapefruit": 0.6},
    }
    axes = prior_sweep(model, priors_list=sweep, figsize=SIZES[name], **_area(X, resolution))
    for ax in axes:
        _axis_labels(ax)
    fig = axes[0].figure
    fig.suptitle("Minimum-error-rate decision regions under different priors")
    return fig


def _training_data(model, X, y, name, resolution):
    fig, (ax,) = _figure(name)
    scatter(model, X, y, ax=ax, size=6, title="Fruit training data (1000 per class)")
    _axis_labels(ax)
    return fig


def _likelihoods(model, X, y, name, resolution):
    fig, (ax,) = _figure(name)
    scatter(model, X, y, ax=ax, size=5, alpha=0.5)
    likelihood_contours(model, ax=ax, levels=8, **_area(X, resolution))
    ax.set_title("Estimated likelihoods p(x | w) over the training data")
    _axis_labels(ax)
    return fig


def _estimated_vs_true(model, X, y, name, resolution):
    fig, (ax,) = _figure(name)
    order = np.argsort(CLASSES)  # the fitted, sorted class order keeps the colours
    truth = QuadraticDiscriminant.from_parameters(
        FRUIT_MEANS[order], FRUIT_COVARIANCES[order], classes=np.array(CLASSES)[order]
    )
    ax.scatter(*X.T, s=2, color="0.6", linewidths=0)
    likelihood_contours(model, ax=ax, levels=5, **_area(X, resolution))
    handles = ax.get_legend().legend_handles
    before = len(ax.collections)
    likelihood_contours(truth, ax=ax, levels=5, **_area(X, resolution))
    for cs in ax.collections[before:]:
        if isinstance(cs, ContourSet):
            cs.set_linestyle("--")
    handles = [*handles, Line2D([], [], color="k", label="estimated")]
    handles.append(Line2D([], [], color="k", linestyle="--", label="true"))
    ax.legend(handles=handles, loc="lower right", fontsize="small")
    ax.set_title("Estimated (solid) and true (dashed) likelihoods")
    _axis_labels(ax)
    return fig


def _reject(model, X, y, name, resolution):
    fig, axes = _figure(name, ncols=2)
    for ax, cost in zip(axes, (0.05, 0.2), strict=True):
        decision_regions_under(
            model,
            X[::5],  # every fifth fruit, so that the regions show between the points
            y[::5],
            loss=LossMatrix.with_reject(3, cost),
            ax=ax,
            title=f"reject cost {cost}: reject when max P(w | x) < {1 - cost:g}",
            **_area(X, resolution),
        )
        _axis_labels(ax)
    fig.suptitle("Chow's rule: a reject option (grey) between the classes")
    return fig


FIGURES = {
    "fig04-06_posteriors.png": _posteriors,
    "fig07_general_rule.png": _general_rule,
    "fig08_losses.png": _losses,
    "fig09_priors.png": _priors,
    "fig11_training_data.png": _training_data,
    "fig12_likelihoods.png": _likelihoods,
    "fig13_estimated_vs_true.png": _estimated_vs_true,
    "reject_option.png": _reject,
}


def main(argv=None) -> list[Path]:
    """Write every figure into the output folder and return their paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", default="seed-figures", help="output folder")
    parser.add_argument("--n-per-class", type=int, default=1000, help="training fruit per class")
    parser.add_argument("--random-state", type=int, default=0, help="seed of the data")
    parser.add_argument("--resolution", type=int, default=250, help="grid points per axis")
    args = parser.parse_args(argv)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    X, y = fruit(args.n_per_class, random_state=args.random_state, return_X_y=True)
    model = QuadraticDiscriminant(priors=PRIORS).fit(X, y)
    paths = []
    for name, make in FIGURES.items():
        fig = make(model, X, y, name, args.resolution)
        fig.set_size_inches(SIZES[name])
        path = out / name
        fig.savefig(path, dpi=DPI)
        plt.close(fig)
        print(path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    main(sys.argv[1:])
