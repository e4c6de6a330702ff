"""The evidence of Gaussian classes under conjugate priors, and empirical Bayes.

:func:`log_marginal_likelihood` is ``ln p(X)``, the training data's probability with
the class parameters integrated out (closed form, from
:class:`~bayesrule.stats.moments.ClassMoments`; see
:mod:`bayesrule.likelihoods.conjugate_posterior` for the formulas and the rule that
splits a tied structure's shared part among the classes). :func:`empirical_bayes`
chooses the hyperparameters that maximise it (type-II maximum likelihood). Class
proportions with a Dirichlet(alpha) prior have posterior mean
``(n_c + alpha_c) / (n + sum(alpha))`` (:func:`dirichlet_class_prior`).

Examples
--------
>>> import numpy as np
>>> from bayesrule.stats import class_moments
>>> from bayesrule.likelihoods.conjugate_evidence import (
...     empirical_bayes, log_marginal_likelihood)
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(60, 2)) * [1.0, 3.0]
>>> y = np.repeat([0, 1, 2], 20)
>>> X[y == 1] += 1.0
>>> stats = class_moments(X, y, 3, kind="diag")
>>> per_class, total = log_marginal_likelihood(None, stats, "diag")
>>> per_class.shape, bool(np.isclose(per_class.sum(), total))
((3,), True)
>>> chosen = empirical_bayes(stats, "diag")
>>> bool(log_marginal_likelihood(chosen, stats, "diag")[1] > total)
True
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.optimize import minimize

from ..stats.moments import ClassMoments
from .conjugate import check_prior
from .conjugate_posterior import posterior
from .covariance import get_structure

#: empirical Bayes searches each hyperparameter within these factors of its bounds:
#: shrinkage kappa0 and the scale (or rate) multiplier in [1e-8, 1e8], and the
#: degrees of freedom beyond d - 1 (or the gamma shape) in [1e-3, 1e8]
SEARCH_RANGE = 1e8
SMALLEST_DOF_EXCESS = 1e-3


def log_marginal_likelihood(prior, stats: ClassMoments, structure="full"):
    """``ln p(X_c)`` per class and ``ln p(X)`` in total, the parameters integrated out.

    Parameters
    ----------
    prior : NormalInverseWishart, NormalGamma or None
        None: the structure's default prior (resolved from ``stats``).
    stats : ClassMoments
    structure : str or Structure

    Returns
    -------
    per_class : ndarray of shape (C,)
        Each class's log evidence; for tied structures the part shared through the
        common covariance is split in proportion to the class counts.
    total : float
        Their sum, the log evidence of all the data.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import multivariate_t
    >>> from bayesrule.stats import class_moments
    >>> from bayesrule.likelihoods.conjugate import NormalInverseWishart
    >>> from bayesrule.likelihoods.conjugate_evidence import log_marginal_likelihood
    >>> prior = NormalInverseWishart(mean=[0.0], shrinkage=1.0, dof=3.0, scale=[[2.0]])
    >>> one = class_moments(np.array([[1.5]]), np.array([0]), 1, kind="full")
    >>> per_class, total = log_marginal_likelihood(prior, one, "full")
    >>> # one row: the prior predictive t_{nu0}(mu0, Psi0 (kappa0 + 1) / (kappa0 nu0))
    >>> bool(np.isclose(total, multivariate_t([0.0], [[4.0 / 3.0]], df=3).logpdf([1.5])))
    True
    """
    post = posterior(prior, stats, structure)
    return post.log_evidence, post.total_log_evidence


def empirical_bayes(stats: ClassMoments, structure="full", prior=None, *, fit_dof=False):
    """The prior whose hyperparameters maximise the log evidence of ``stats``.

    Starting from ``prior`` (None: the default; its mean is kept), the shrinkage
    kappa0 and a multiplier of the scale matrix Psi0 (the rate b0 for
    :class:`NormalGamma`), and with ``fit_dof`` the degrees of freedom nu0 (the shape
    a0), are chosen by L-BFGS-B on their logarithms (nu0 as ``ln(nu0 - d + 1)``), within
    :data:`SEARCH_RANGE`. The result is never worse than the starting prior.

    Parameters
    ----------
    stats : ClassMoments
    structure : str or Structure
    prior : NormalInverseWishart, NormalGamma or None
    fit_dof : bool, default=False
        Also choose the degrees of freedom (or the gamma shape).

    Returns
    -------
    NormalInverseWishart or NormalGamma
        Resolved (every hyperparameter set).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats import class_moments
    >>> from bayesrule.likelihoods.conjugate_evidence import empirical_bayes
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(40, 2))
    >>> stats = class_moments(X, np.repeat([0, 1], 20), 2, kind="full")
    >>> prior = empirical_bayes(stats, "tied")
    >>> type(prior).__name__, bool(prior.shrinkage > 0.01)   # equal means: shrink
    ('NormalInverseWishart', True)
    """
    structure = get_structure(structure)
    base = check_prior(prior, structure).resolve(stats, structure)
    d = stats.mean.shape[1]
    dense = structure.dense

    def make(theta):
        shrinkage, multiple = float(np.exp(theta[0])), float(np.exp(theta[1]))
        if dense:
            dof = base.dof if len(theta) < 3 else d - 1.0 + float(np.exp(theta[2]))
            return replace(base, shrinkage=shrinkage, scale=base.scale * multiple, dof=dof)
        shape = base.shape if len(theta) < 3 else float(np.exp(theta[2]))
        return replace(base, shrinkage=shrinkage, rate=base.rate * multiple, shape=shape)

    def loss(theta):
        return -posterior(make(theta), stats, structure).total_log_evidence

    wide = np.log(SEARCH_RANGE)
    start = [np.log(base.shrinkage), 0.0]
    bounds = [(-wide, wide), (-wide, wide)]
    if fit_dof:
        start.append(np.log(base.dof - d + 1.0 if dense else base.shape))
        bounds.append((np.log(SMALLEST_DOF_EXCESS), wide))
    start = np.clip(start, [b[0] for b in bounds], [b[1] for b in bounds])
    result = minimize(loss, start, method="L-BFGS-B", bounds=bounds)
    best = result.x if np.isfinite(result.fun) and result.fun < loss(start) else start
    return make(best)
