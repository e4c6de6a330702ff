"""Missing values (NaN) in Gaussian classes whose structure is not diagonal.

At ``fit`` the parameters come from EM over the missing coordinates
(:func:`~bayesrule.stats.missing_em.fit_gaussian_missing`): the E step fills each
missing part with its conditional expectation given the row's observed values (and
adds its conditional covariance to the scatter), the M step is the structure's own
estimate with the family's regularisation. A row with every value missing says nothing
about any class's density and is left out. EM needs the rows in memory: ``partial_fit``
and Dask collections refuse NaN for these structures.

EDDA (``covariance="bic"``) runs that EM for each of mclust's 14 models (to a
looser tolerance, :data:`SEARCH`; the chosen one's then to convergence) and keeps the
largest ``BIC = 2 ln L - df ln n``, ``ln L`` the observed-data log-likelihood
``sum_i ln N(x_io; mu_yi, Sigma_yi,oo)`` (each row's observed coordinates) at the
fitted parameters, ``df`` and ``n`` as without missing values
(:mod:`~bayesrule.likelihoods.edda`); a model whose EM cannot be run (a singular
covariance) scores NaN. The choice and the table are kept as ``em_choice_`` beside the
chosen model's expected full moments (``stats_``), from which the parameters derive
again.

At prediction a row with missing values is scored by the marginal density of its
observed coordinates, the missing ones dropped from each class's mean and covariance
(:func:`~bayesrule.likelihoods.marginal.log_density_observed`); with every value
missing, ``ln p(x|w) = 0`` for every class.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..stats.missing_em import fit_gaussian_missing
from ..stats.missing_start import start_moments
from . import edda
from .covariance import get_structure
from .marginal import log_density_observed
from .parametrisation import MODELS
from .regularisation import check_reg_covar, regularise

#: EDDA's search over missing values: each of the 14 models' EM stops at this relative
#: change of the log-likelihood or after this many steps (their BICs are compared
#: there; the chosen model's EM then runs to 1e-8)
SEARCH = {"tol": 1e-6, "max_iter": 100}


def takes_missing(like) -> bool:
    """Whether the Gaussian family ``like`` accepts NaN: a diagonal structure always
    (left out feature by feature); any other named structure, and "bic", under plain
    maximum likelihood (not a Bayesian estimate, RDA, shrinkage or a covariance
    estimator)."""
    name = getattr(like.covariance, "name", like.covariance)
    if not isinstance(name, str) or getattr(like, "covariance_estimator", None) is not None:
        return False
    if name == "bic":
        name = "full"  # EDDA: every model by EM
    try:
        name = get_structure(name).name
    except ValueError:  # an invalid name: the error comes at fit
        return False
    if name == "diag":
        return True
    regularised = like.shrinkage is not None or getattr(like, "pooling", 0.0) != 0.0
    return getattr(like, "estimate", "ml") == "ml" and not regularised


def _estimator(like, structure, n_classes: int, d: int):
    """The M step of ``structure``: class moments -> (means, full covariances), with the
    family's regularisation."""
    reg = check_reg_covar(like.reg_covar)

    def estimate(stats):
        moments = edda.as_kind(stats, structure.stats_kind)
        cov = structure.estimate(moments)
        cov, _, _ = regularise(structure, cov, moments, reg, like.var_smoothing)
        return stats.mean, structure.full(cov, n_classes, d)

    return estimate


def fit_missing(like, structure, X, y, n_classes, sample_weight):
    """Fit ``like`` (a Gaussian family of a non-diagonal ``structure``, or EDDA) by EM
    over the missing values of ``X``; ``n_iter_`` is the number of E steps (of the
    chosen model's EM, for EDDA)."""
    keep = ~np.isnan(X).all(axis=1)  # blank rows: no information on any density
    X, y = X[keep], y[keep]
    w = None if sample_weight is None else sample_weight[keep]
    if edda.choosing(like.covariance):
        return _fit_edda(like, X, y, n_classes, w)
    stats, like.n_iter_, _ = _em(like, structure, X, y, n_classes, w)
    return like.set_statistics(edda.as_kind(stats, structure.stats_kind))


def _em(like, structure, X, y, n_classes, w, **search):
    """:func:`~bayesrule.stats.missing_em.fit_gaussian_missing` with ``structure``'s M
    step; its ConvergenceWarning names the structure (or, with ``search`` settings,
    is left out: a candidate of EDDA's search)."""
    estimate = _estimator(like, structure, n_classes, X.shape[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        fit = fit_gaussian_missing(X, y, n_classes, w, estimate, **search)
    for warning in caught:
        if not issubclass(warning.category, ConvergenceWarning):
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
        elif not search:
            change = np.diff(fit[2][-2:])
            warnings.warn(
                f"EM over the missing values (covariance={structure.name!r}) did not "
                f"converge in {fit[1]} steps (last change of the log-likelihood "
                f"{change[0] if change.size else np.nan:.3g}); the parameters are the last "
                "step's. Impute the missing values, or drop the rows that miss most, for "
                "a converged fit.",
                ConvergenceWarning,
                stacklevel=4,
            )
    return fit


def _fit_edda(like, X, y, n_classes: int, w):
    """EDDA over missing values (module docstring): every model's EM, searched with
    :data:`SEARCH` settings, the largest BIC; the chosen model's EM then runs to
    convergence."""
    d = X.shape[1]
    n = float(X.shape[0] if w is None else w.sum())
    start_moments(X, y, n_classes, w)  # a feature never observed: its own error, first
    table = {}
    for model in MODELS:
        try:
            fit = _em(like, get_structure(model), X, y, n_classes, w, **SEARCH)
        except (ValueError, np.linalg.LinAlgError):  # a singular covariance: mclust's NA
            table[model] = float("nan")
            continue
        table[model] = edda.bic_value(model, fit[2][-1], n_classes, d, n)
    chosen, _ = edda.choose_from(table)  # Undetermined (naming the fixes) if none fits
    stats, like.n_iter_, trace = _em(like, get_structure(chosen), X, y, n_classes, w)
    table[chosen] = edda.bic_value(chosen, trace[-1], n_classes, d, n)
    like.em_choice_ = (chosen, table)  # set_statistics keeps it (and so does loading)
    return like.set_statistics(stats)


def observed_rows(like, X, out) -> None:
    """Replace in ``out`` (C, rows) the log-densities of the rows of ``X`` with missing
    values by their marginal densities (dense structures)."""
    partial = np.flatnonzero(np.isnan(X).any(axis=1))
    if partial.size:
        out[:, partial] = log_density_observed(X[partial], like.means_, like.full_covariances())
