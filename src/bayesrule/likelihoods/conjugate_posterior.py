"""Posteriors of Gaussian classes under conjugate priors, from class moments.

:func:`posterior` turns a prior (:mod:`bayesrule.likelihoods.conjugate`) and
:class:`~bayesrule.stats.moments.ClassMoments` (count n_c, mean xbar_c, centred scatter
W_c) into a :class:`ConjugatePosterior` (Murphy 2007, "Conjugate Bayesian analysis of the
Gaussian distribution"). With ``kappa_c = kappa0 + n_c``, every structure has::

    mu_c  = (kappa0 mu0 + n_c xbar_c) / kappa_c                 (MAP and predictive location)
    S_c   = W_c + kappa0 n_c / kappa_c (xbar_c - mu0)(xbar_c - mu0)^T

* "full": per class ``Psi_c = Psi0 + S_c``, ``nu_c = nu0 + n_c``;
* "tied": ``Psi = Psi0 + sum_c S_c``, ``nu = nu0 + n`` (one Sigma, class means given it);
* diagonal structures: ``shape = a0 + m / 2`` and ``rate = b0 + (sum of S's diagonal
  entries) / 2`` over the m values that share a variance: a class and feature ("diag"),
  a feature ("tied_diag"), a class ("spherical", ``m = n_c d``), or all
  ("tied_spherical").

MAP covariances are Fraley and Raftery's (2007), as mclust 6.0.0's M-steps with a
conjugate prior compute them (VVV, EEE, VVI, VII): ``Psi / (nu + d + k)`` for the
inverse-Wishart and ``rate / (shape + (k + 1) / 2)`` for a variance, where ``k`` is the
number of means that share the covariance (1 for "full" and "diag", C for "tied" and
"tied_diag", d for "spherical", C d for "tied_spherical"). For k = 1 these are the modes
of the covariance's marginal posterior. (mclust's EEI and EII steps drop the mean's prior
and the scale respectively; the tied diagonal structures here follow the rule above.)

Predictive densities are Student-t: "full" and "tied" ``t_{nu - d + 1}(mu_c,
Psi (kappa_c + 1) / (kappa_c (nu - d + 1)))``; a variance with (shape, rate) gives
``t_{2 shape}(mu, rate (kappa + 1) / (shape kappa))`` per feature, a product of univariate
t's for "diag" and "tied_diag" and one isotropic multivariate t for the spherical ones.

The log evidence ``ln p(X_c)`` is closed form per class; for tied structures the part
shared through the common covariance is split among the classes in proportion to their
counts (of each feature's values, for "tied_diag"), so the entries add to the exact total.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular

from ..stats.moments import ClassMoments
from .conjugate import check_prior
from .covariance import get_structure
from .student import (
    diagonal_t_logpdf,
    isotropic_t_logpdf,
    log_gamma_ratio,
    multivariate_t_logpdf,
)

LOG_PI = np.log(np.pi)
LOG_2PI = np.log(2.0 * np.pi)


@dataclass(eq=False)
class ConjugatePosterior:
    """The posterior of Gaussian classes under a conjugate prior (see the module).

    Shapes use C classes and d features; "native" is the structure's covariance shape:
    (C, d, d) full, (d, d) tied, (C, d) diag, (d,) tied_diag, (C,) spherical, ()
    tied_spherical.

    Attributes
    ----------
    structure : str
    prior : NormalInverseWishart or NormalGamma
        The resolved prior.
    map_means : ndarray (C, d)
        Posterior means of the class means (also their modes).
    map_covariances : ndarray, native shape
        Posterior-mode covariances (mclust's MAP).
    predictive_location : ndarray (C, d)
    predictive_scale : ndarray, native shape
        Scale of the predictive t; class c's is ``predictive_factor[c]`` times its entry
        (tied structures: the shared one), in variances for the diagonal structures.
    predictive_factor : ndarray (C,)
        ``(kappa_c + 1) / kappa_c`` for tied structures, ones otherwise.
    predictive_df : ndarray (C,) or (C, d)
        Degrees of freedom; per class and feature where the counts are (missing values).
    log_evidence : ndarray (C,)
        ``ln p(X_c)`` per class (tied structures: the shared part split by counts).
    posterior_shrinkage : ndarray (C,) or (C, d)
        kappa_c.
    posterior_dof, posterior_scale : nu and Psi (dense structures), else None
    posterior_shape, posterior_rate : shape and rate per variance (diagonal), else None
    """

    structure: str
    prior: object
    map_means: np.ndarray
    map_covariances: np.ndarray
    predictive_location: np.ndarray
    predictive_scale: np.ndarray
    predictive_factor: np.ndarray
    predictive_df: np.ndarray
    log_evidence: np.ndarray
    posterior_shrinkage: np.ndarray
    posterior_dof: object = None
    posterior_scale: object = None
    posterior_shape: object = None
    posterior_rate: object = None

    @property
    def total_log_evidence(self) -> float:
        """``ln p(X)`` of all the training data, the sum of :attr:`log_evidence`."""
        return float(self.log_evidence.sum())

    def class_scales(self) -> np.ndarray:
        """Every class's predictive scale: (C, d, d) dense, (C, d) diag and tied_diag,
        (C,) spherical ones."""
        C = self.predictive_location.shape[0]
        structure = get_structure(self.structure)
        scale = self.predictive_scale
        if structure.tied:
            scale = np.broadcast_to(scale, (C, *np.shape(scale)))
        return self.predictive_factor.reshape(C, *[1] * (scale.ndim - 1)) * scale

    def predictive_precision_cholesky(self) -> np.ndarray:
        """Dense structures: upper U with ``U U^T = inverse(predictive_scale)``, (C, d, d)
        for "full", (1, d, d) for "tied" (the shared matrix; apply the factor)."""
        scale = np.reshape(self.predictive_scale, (-1, *self.predictive_scale.shape[-2:]))
        out = np.empty_like(scale)
        eye = np.eye(scale.shape[-1])
        for k, S in enumerate(scale):
            out[k] = solve_triangular(np.linalg.cholesky(S), eye, lower=True).T
        return out

    def log_predictive(self, X) -> np.ndarray:
        """Log posterior predictive densities ``ln p(x | X_c)`` of rows X, (C, n)."""
        structure = get_structure(self.structure)
        loc = self.predictive_location
        if structure.dense:
            factor = self.predictive_factor if structure.tied else None
            U = self.predictive_precision_cholesky()
            return multivariate_t_logpdf(X, loc, U, self.predictive_df, factor)
        if structure.form == "spherical":
            return isotropic_t_logpdf(X, loc, self.class_scales(), self.predictive_df)
        return diagonal_t_logpdf(X, loc, self.class_scales(), self.predictive_df)


def posterior(prior, stats: ClassMoments, structure="full") -> ConjugatePosterior:
    """The posterior of Gaussian classes with covariance ``structure`` given ``stats``.

    Parameters
    ----------
    prior : NormalInverseWishart, NormalGamma or None
        None: the default prior of the structure; defaults are resolved from ``stats``.
    stats : ClassMoments
        "full" statistics for "full"; "full" or "tied" for "tied" and the tied
        diagonal structures; "full" or "diag" for "diag" and "spherical" (counts per
        class and feature, from missing values, only for "diag").
    structure : str or Structure
        "full", "tied", "diag", "tied_diag", "spherical" or "tied_spherical".

    Returns
    -------
    ConjugatePosterior

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats import class_moments
    >>> from bayesrule.likelihoods.conjugate import NormalInverseWishart
    >>> from bayesrule.likelihoods.conjugate_posterior import posterior
    >>> X = np.array([[0.0, 1.0], [1.0, 3.0], [2.0, 2.0], [5.0, 6.0], [6.0, 5.0]])
    >>> stats = class_moments(X, np.array([0, 0, 0, 1, 1]), 2, kind="full")
    >>> post = posterior(NormalInverseWishart(shrinkage=1.0), stats, "full")
    >>> post.map_means
    array([[1.45, 2.35],
           [4.6 , 4.8 ]])
    >>> post.predictive_df
    array([6., 5.])
    >>> post.log_predictive(np.array([[1.0, 2.0]])).round(3)
    array([[-1.969],
           [-4.326]])
    """
    structure = get_structure(structure)
    if stats.per_feature and structure.name != "diag":
        raise ValueError(
            f"statistics with counts per feature (missing values) fit covariance='diag' "
            f"only, not {structure.name!r}."
        )
    prior = check_prior(prior, structure).resolve(stats, structure)
    if structure.dense:
        return _inverse_wishart(prior, stats, structure)
    return _gamma(prior, stats, structure)


def _common(prior, stats):
    """kappa_c, mu_c and the shrinkage weights ``kappa0 n_c / kappa_c`` per class (and
    feature, for counts per feature); deviations ``xbar_c - mu0``."""
    k0 = prior.shrinkage
    n = stats.count if stats.per_feature else stats.count[:, None]
    kappa = k0 + n
    mean = (k0 * prior.mean + n * stats.mean) / kappa
    return kappa, mean, k0 * n / kappa, stats.mean - prior.mean


def _log_det(matrices) -> np.ndarray:
    """``ln|A|`` of symmetric positive definite matrices (..., d, d) by Cholesky."""
    L = np.linalg.cholesky(matrices)
    return 2.0 * np.log(np.einsum("...jj->...j", L)).sum(axis=-1)


def _inverse_wishart(prior, stats, structure) -> ConjugatePosterior:
    C, d = stats.mean.shape
    if (stats.kind == "diag") if structure.tied else (stats.kind != "full"):
        need = "'full' or 'tied'" if structure.tied else "'full'"
        raise ValueError(
            f"covariance={structure.name!r} needs {need} statistics, got {stats.kind!r}."
        )
    kappa, mean, weight, delta = _common(prior, stats)
    kappa, weight, n = kappa[:, 0], weight[:, 0], stats.count
    spread = np.einsum("c,cj,ck->cjk", weight, delta, delta)
    nu0, psi0 = prior.dof, prior.scale
    if structure.tied:
        within = stats.scatter.sum(axis=0) if stats.kind == "full" else stats.scatter
        psi, nu, k = psi0 + within + spread.sum(axis=0), nu0 + n.sum(), C
    else:
        psi, nu, k = psi0 + stats.scatter + spread, nu0 + n, 1
    psi = 0.5 * (psi + np.swapaxes(psi, -1, -2))
    df = np.broadcast_to(nu - d + 1.0, (C,)).copy()
    inflation = (kappa + 1.0) / kappa
    if structure.tied:
        scale, factor, map_cov = psi / df[0], inflation, psi / (nu + d + k)
    else:
        scale = psi * (inflation / df)[:, None, None]
        factor, map_cov = np.ones(C), psi / (nu + d + k)[:, None, None]
    # ln p(X_c): the Gamma_d ratio (one term per dimension) and determinants are shared
    # by all classes when the covariance is tied, split in proportion to the counts
    counts = np.atleast_1d(n.sum() if structure.tied else n)
    shared = log_gamma_ratio((nu0 - np.arange(d))[:, None] / 2.0, counts / 2.0).sum(axis=0)
    shared = shared + 0.5 * (nu0 * _log_det(psi0) - nu * _log_det(psi))
    own = 0.5 * d * (np.log(prior.shrinkage) - np.log(kappa)) - 0.5 * d * LOG_PI * n
    if structure.tied:
        shared = shared * np.divide(n, counts, out=np.zeros(C), where=counts > 0)
    return ConjugatePosterior(
        structure=structure.name,
        prior=prior,
        map_means=mean,
        map_covariances=map_cov,
        predictive_location=mean.copy(),
        predictive_scale=scale,
        predictive_factor=factor,
        predictive_df=df,
        log_evidence=own + shared,
        posterior_shrinkage=kappa,
        posterior_dof=np.asarray(nu, dtype=np.float64),
        posterior_scale=psi,
    )


def _diagonal_scatter(stats, structure) -> np.ndarray:
    """Each class's sums of squares (C, d), or their sum over classes (d,) where only
    the tied structures need it (all they get from tied statistics)."""
    if stats.kind == "diag":
        return stats.scatter
    if stats.kind == "full":
        return np.einsum("cjj->cj", stats.scatter)
    if not structure.tied:
        raise ValueError(
            f"covariance={structure.name!r} needs 'full' or 'diag' statistics (one scatter "
            "per class), got 'tied'."
        )
    return np.diag(stats.scatter)


def _gamma(prior, stats, structure) -> ConjugatePosterior:
    C, d = stats.mean.shape
    kappa, mean, weight, delta = _common(prior, stats)
    kappa = np.broadcast_to(kappa, (C, d))
    n = np.broadcast_to(stats.count if stats.per_feature else stats.count[:, None], (C, d))
    within = _diagonal_scatter(stats, structure)
    spread = weight * delta * delta  # (C, d)
    tied, spherical = structure.tied, structure.form == "spherical"
    # reduce over the values that share a variance: classes (tied), features (spherical)
    axes = (0,) * tied + (1,) * spherical
    count = n.sum(axis=axes) if axes else n
    quad = spread.sum(axis=axes) + (within.sum(axis=axes) if within.ndim == 2 else 0.0)
    if within.ndim == 1:  # tied statistics: the sum over classes, per feature
        quad = quad + (within.sum() if spherical else within)
    a0, b0 = prior.shape, prior.rate
    shape, rate = a0 + 0.5 * count, b0 + 0.5 * quad
    sharing = (C if tied else 1) * (d if spherical else 1)
    map_var = rate / (shape + 0.5 * (sharing + 1))
    base = rate / shape
    inflation = (kappa + 1.0) / kappa  # (C, d); constant over features here
    if tied:
        scale, factor = base, inflation[:, 0]
    else:
        scale = base * (inflation[:, 0] if spherical else inflation)
        factor = np.ones(C)
    df = 2.0 * shape
    if not stats.per_feature:  # the same for every feature: one per class
        df = np.broadcast_to(df.reshape(-1, d)[:, 0] if structure.form == "diag" else df, (C,))
    df = np.broadcast_to(df, n.shape if stats.per_feature else (C,)).copy()
    # evidence: a shared part per variance (split among the classes by their counts of
    # its values, where the variance is tied) and each mean's own terms
    shared = log_gamma_ratio(a0, 0.5 * count) - a0 * np.log1p(quad / (2.0 * b0))
    shared = shared - 0.5 * count * np.log(rate)
    own = (0.5 * (np.log(prior.shrinkage) - np.log(kappa)) - 0.5 * LOG_2PI * n).sum(axis=1)
    if tied:
        portion = np.divide(n, count, out=np.zeros((C, d)), where=count > 0)
        shared = (portion * shared).sum(axis=1)
    elif not spherical:
        shared = shared.sum(axis=1)
    return ConjugatePosterior(
        structure=structure.name,
        prior=prior,
        map_means=mean,
        map_covariances=np.asarray(map_var),
        predictive_location=mean.copy(),
        predictive_scale=np.asarray(scale),
        predictive_factor=factor,
        predictive_df=df,
        log_evidence=own + shared,
        posterior_shrinkage=kappa if stats.per_feature else kappa[:, 0].copy(),
        posterior_shape=np.asarray(shape),
        posterior_rate=np.asarray(rate),
    )
