"""Bayesian estimates of Gaussian classes: ``estimate="map"`` and ``"predictive"``.

A Gaussian family with ``estimate="ml"`` plugs the maximum-likelihood parameters into the
density. Under a conjugate prior (:mod:`bayesrule.likelihoods.conjugate`: normal-inverse-
Wishart for full and tied covariances, normal-gamma per feature for the diagonal ones)
the same class moments give instead

* ``"map"``: the posterior-mode means and covariances, used as a Gaussian (mclust's
  ``priorControl()`` estimates), so no covariance is ever singular;
* ``"predictive"``: the posterior predictive density ``p(x | X_c)``, the parameters
  integrated out: a multivariate Student-t (full, tied, spherical) or a product of
  univariate t's (diagonal), wider than the plug-in Gaussian where a class has few rows.

Both depend on the mergeable class moments only, so ``partial_fit`` and Dask
collections give what ``fit`` gives. ``log_marginal_likelihood_`` (the evidence
``ln p(X_c)`` per class) comes with either. ``prior=None`` takes the structure's
default prior, "empirical-bayes" the hyperparameters of largest evidence
(:func:`~bayesrule.likelihoods.conjugate_evidence.empirical_bayes`).
"""

from __future__ import annotations

import numpy as np

from .conjugate import NormalGamma, NormalInverseWishart, check_prior
from .conjugate_evidence import empirical_bayes
from .conjugate_posterior import ConjugatePosterior, posterior
from .student import isotropic_t_logpdf, log_gamma_ratio, multivariate_t_logpdf

#: the values of ``estimate``
ESTIMATES = ("ml", "map", "predictive")
#: the structures with a conjugate prior (mclust's names resolve to these)
CONJUGATE = ("full", "tied", "diag", "tied_diag", "spherical", "tied_spherical")

LOG_PI = np.log(np.pi)


def check_estimate(estimate, prior) -> str:
    """``estimate`` validated with ``prior``: ValueError/TypeError naming the fix."""
    if not isinstance(estimate, str) or estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {list(ESTIMATES)}, got {estimate!r}")
    if prior is None:
        return estimate
    if estimate == "ml":
        raise ValueError(
            f"prior={prior!r} is used by estimate='map' or 'predictive' only; set one of "
            "them, or drop the prior."
        )
    if isinstance(prior, str):
        if prior != "empirical-bayes":
            raise ValueError(
                f"prior must be None, 'empirical-bayes', a NormalInverseWishart or a "
                f"NormalGamma, got {prior!r}"
            )
    elif not isinstance(prior, (NormalInverseWishart, NormalGamma)):
        raise TypeError(
            "prior must be None, 'empirical-bayes', a NormalInverseWishart (full and tied "
            "covariances) or a NormalGamma (diagonal ones), from "
            f"bayesrule.likelihoods.conjugate; got {prior!r}"
        )
    return estimate


def check_structure(structure, estimate) -> None:
    """ValueError when ``estimate`` is Bayesian and the structure has no conjugate prior."""
    if estimate != "ml" and structure.name not in CONJUGATE:
        raise ValueError(
            f"estimate={estimate!r} needs a covariance with a conjugate prior: full (VVV), "
            "tied (EEE), diag (VVI), spherical (VII), tied_diag (EEI) or tied_spherical "
            f"(EII); covariance={structure.name!r} is fitted by maximum likelihood only."
        )


def check(like, structure) -> None:
    """The Gaussian family's ``estimate`` and ``prior`` checked with its structure."""
    estimate = check_estimate(getattr(like, "estimate", "ml"), getattr(like, "prior", None))
    if estimate == "ml":
        return
    if isinstance(like.covariance, str) and like.covariance == "bic":
        raise ValueError(
            f"covariance='bic' chooses the structure by maximum-likelihood BIC; with "
            f"estimate={estimate!r} name a structure (e.g. 'full', 'tied' or 'diag')."
        )
    if like.shrinkage is not None or getattr(like, "pooling", 0.0) != 0.0:
        raise ValueError(
            f"estimate={estimate!r} regularises through its prior; leave shrinkage=None "
            "and pooling=0."
        )
    check_structure(structure, estimate)


def set_posterior(like, stats, structure):
    """Give the Gaussian family ``like`` its parameters from the posterior of ``stats``:
    the MAP means and covariances (the Gaussian's parameters for either estimate),
    ``predictive_`` for the predictive densities, ``log_marginal_likelihood_`` (C,) and
    ``prior_`` (the prior resolved). Returns ``like``."""
    post = fitted_posterior(like.prior, stats, structure)
    like.prior_, like.log_marginal_likelihood_ = post.prior, post.log_evidence
    like.epsilon_, like.auto_regularisation_ = 0.0, None
    like._set_parameters(post.map_means, post.map_covariances, stats.total_mean(), stats.count)
    like.predictive_ = Predictive(post) if like.estimate == "predictive" else None
    like.stats_, like.pending_ = stats, None
    return like


def fitted_posterior(prior, stats, structure) -> ConjugatePosterior:
    """The posterior of the classes' parameters given their moments, under ``prior``
    (None: the structure's default; "empirical-bayes": chosen by evidence)."""
    if isinstance(prior, str):
        prior = empirical_bayes(stats, structure.name)
    else:
        prior = check_prior(prior, structure.name)
    return posterior(prior, stats, structure.name)


class Predictive:
    """The posterior predictive densities of fitted classes, with their factors cached.

    Parameters
    ----------
    post : ConjugatePosterior
    """

    def __init__(self, post: ConjugatePosterior):
        self.post = post
        self.dense = post.predictive_scale.ndim >= 2 and post.structure in ("full", "tied")
        if self.dense:
            self.precision_cholesky = post.predictive_precision_cholesky()
        else:
            self.scales = post.class_scales()

    def log_density(self, X) -> np.ndarray:
        """``ln p(x | X_c)`` of rows X, shape (C, rows); for the diagonal structures a
        missing value (NaN) leaves its feature's factor out."""
        post = self.post
        loc, df = post.predictive_location, post.predictive_df
        if self.dense:
            factor = post.predictive_factor if post.structure == "tied" else None
            return multivariate_t_logpdf(X, loc, self.precision_cholesky, df, factor)
        if post.structure in ("spherical", "tied_spherical"):
            return isotropic_t_logpdf(X, loc, self.scales, df)
        return _diagonal_t(X, loc, self.scales, df)


def _diagonal_t(X, location, scale, df) -> np.ndarray:
    """Products of univariate t's over each row's observed features, (C, rows)."""
    C, d = location.shape
    df = np.broadcast_to(np.reshape(df, (C, -1)), (C, d))
    scale = np.broadcast_to(scale, (C, d))
    const = log_gamma_ratio(0.5 * df, 0.5) - 0.5 * (np.log(df) + LOG_PI + np.log(scale))
    out = np.empty((C, X.shape[0]))
    observed = ~np.isnan(X)
    Xz = np.where(observed, X, 0.0)
    for c in range(C):
        z = (Xz - location[c]) ** 2 / (df[c] * scale[c])
        terms = const[c] - 0.5 * (df[c] + 1.0) * np.log1p(z)
        out[c] = np.where(observed, terms, 0.0).sum(axis=1)
    return out
