"""Figures of fitted Bayes classifiers (matplotlib, an optional extra).

Every function takes a fitted estimator and an optional matplotlib ``Axes`` and returns
the ``Axes``; pyplot is imported only when a function is called. One module per kind of
figure: ``regions`` (decision regions of two-feature models, also under other priors or
losses), ``densities`` (posterior maps, likelihood contours), ``extra`` (prior sweeps,
scatter plots), ``slices`` (2-D slices of models with more features), ``mixture``
(mixture components, BIC curves), ``structure`` (dependence graphs of semi-naive
Bayes), ``decision`` (Chow's error-reject curve, risk-coverage curves, reliability
diagrams), ``shift`` (estimated priors of new data with intervals) and ``projection``
(data on a Gaussian model's discriminant directions), ``explanation`` (a waterfall
of one decision's log-odds terms); ``_axes`` holds
what they share
(pyplot on demand, colours, grids).
"""

from ._axes import REJECT_COLOR
from .decision import reject_curve, reliability_diagram, risk_coverage
from .densities import likelihood_contours, posterior_map
from .explanation import explanation
from .extra import prior_sweep, scatter
from .mixture import bic_curve, mixture_components
from .projection import discriminant_projection
from .regions import decision_regions, decision_regions_under
from .shift import prior_shift
from .slices import Slice, slice_for
from .structure import dependence_graph

__all__ = [
    "REJECT_COLOR",
    "Slice",
    "bic_curve",
    "decision_regions",
    "decision_regions_under",
    "dependence_graph",
    "discriminant_projection",
    "explanation",
    "likelihood_contours",
    "mixture_components",
    "posterior_map",
    "prior_shift",
    "prior_sweep",
    "reject_curve",
    "reliability_diagram",
    "risk_coverage",
    "scatter",
    "slice_for",
]
