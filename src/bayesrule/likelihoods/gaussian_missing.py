"""Missing values (NaN) in Gaussian classes whose structure is not diagonal.

At ``fit`` the parameters come from EM over the missing coordinates
(:func:`~bayesrule.stats.missing_em.fit_gaussian_missing`): the E step fills each
missing part with its conditional expectation given the row's observed values (and
adds its conditional covariance to the scatter), the M step is the structure's own
estimate with the family's regularisation. A row with every value missing says nothing
about any class's density and is left out. EM needs the rows in memory: ``partial_fit``
and Dask collections refuse NaN for these structures.

At prediction a row with missing values is scored by the marginal density of its
observed coordinates, the missing ones dropped from each class's mean and covariance
(:func:`~bayesrule.likelihoods.marginal.log_density_observed`); with every value
missing, ``ln p(x|w) = 0`` for every class.
"""

from __future__ import annotations

import numpy as np

from ..stats.missing_em import fit_gaussian_missing
from . import edda
from .covariance import get_structure
from .marginal import log_density_observed
from .regularisation import check_reg_covar, regularise


def takes_missing(like) -> bool:
    """Whether the Gaussian family ``like`` accepts NaN: a diagonal structure always
    (left out feature by feature); any other named structure under plain maximum
    likelihood (not "bic", a Bayesian estimate, RDA or shrinkage)."""
    name = getattr(like.covariance, "name", like.covariance)
    if not isinstance(name, str) or name == "bic":
        return False
    try:
        name = get_structure(name).name
    except ValueError:  # an invalid name: the error comes at fit
        return False
    if name == "diag":
        return True
    regularised = like.shrinkage is not None or getattr(like, "pooling", 0.0) != 0.0
    return getattr(like, "estimate", "ml") == "ml" and not regularised


def fit_missing(like, structure, X, y, n_classes, sample_weight):
    """Fit ``like`` (a Gaussian family of a non-diagonal ``structure``) by EM over the
    missing values of ``X``; ``n_iter_`` is the number of E steps."""
    keep = ~np.isnan(X).all(axis=1)  # blank rows: no information on any density
    X, y = X[keep], y[keep]
    w = None if sample_weight is None else sample_weight[keep]
    d = X.shape[1]
    reg = check_reg_covar(like.reg_covar)

    def estimate(stats):
        moments = edda.as_kind(stats, structure.stats_kind)
        cov = structure.estimate(moments)
        cov, _, _ = regularise(structure, cov, moments, reg, like.var_smoothing)
        return stats.mean, structure.full(cov, n_classes, d)

    stats, like.n_iter_, _ = fit_gaussian_missing(X, y, n_classes, w, estimate)
    return like.set_statistics(edda.as_kind(stats, structure.stats_kind))


def observed_rows(like, X, out) -> None:
    """Replace in ``out`` (C, rows) the log-densities of the rows of ``X`` with missing
    values by their marginal densities (dense structures)."""
    partial = np.flatnonzero(np.isnan(X).any(axis=1))
    if partial.size:
        out[:, partial] = log_density_observed(X[partial], like.means_, like.full_covariances())
