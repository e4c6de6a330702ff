"""Figures of fitted Bayes classifiers (matplotlib, an optional extra).

Every function takes a fitted estimator and an optional matplotlib ``Axes`` and returns
the ``Axes``; pyplot is imported only when a function is called. One module per kind of
figure: ``regions`` (decision regions, posterior maps, likelihood contours of two-feature
models), ``extra`` (decisions under other priors or losses, prior sweeps, scatter plots),
``slices`` (2-D slices of models with more features), ``mixture`` (mixture components, BIC
curves), ``structure`` (dependence graphs of semi-naive Bayes) and ``decision`` (Chow's
error-reject curve).
"""

from .decision import reject_curve
from .extra import Slice, decision_regions_under, prior_sweep, scatter, slice_for
from .mixture import bic_curve, mixture_components
from .regions import REJECT_COLOR, decision_regions, likelihood_contours, posterior_map
from .structure import dependence_graph

__all__ = [
    "REJECT_COLOR",
    "Slice",
    "bic_curve",
    "decision_regions",
    "decision_regions_under",
    "dependence_graph",
    "likelihood_contours",
    "mixture_components",
    "posterior_map",
    "prior_sweep",
    "reject_curve",
    "scatter",
    "slice_for",
]
