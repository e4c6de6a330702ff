"""Conjugate priors of Gaussian class-conditional densities, and of class proportions.

Two prior families, plain objects holding hyperparameters (``None``: a default drawn
from the data's statistics by ``resolve``, in the spirit of mclust's ``defaultPrior``;
Fraley and Raftery 2007):

* :class:`NormalInverseWishart` for the dense structures ("full": one per class;
  "tied": one inverse-Wishart covariance shared by every class, each class mean with its
  own normal prior given it);
* :class:`NormalGamma` for the diagonal structures ("diag": per class and feature;
  "tied_diag": per feature; "spherical": per class; "tied_spherical": one variance),
  written with the precision ``tau ~ Gamma(shape, rate)``, i.e. an inverse-gamma
  variance, and ``mu | tau ~ N(mean, 1 / (shrinkage tau))``.

The posterior, MAP and predictive quantities are in
:mod:`bayesrule.likelihoods.conjugate_posterior`; the evidence, empirical Bayes and the
Dirichlet prior of class proportions in :mod:`bayesrule.likelihoods.conjugate_evidence`.
Everything is a function of :class:`~bayesrule.stats.moments.ClassMoments`, so
``partial_fit`` and block-wise fitting give the same result as ``fit``.

Examples
--------
>>> import numpy as np
>>> from bayesrule.stats import class_moments
>>> from bayesrule.likelihoods.conjugate import NormalInverseWishart
>>> X = np.array([[0.0, 1.0], [1.0, 3.0], [2.0, 2.0], [5.0, 6.0], [6.0, 5.0]])
>>> stats = class_moments(X, np.array([0, 0, 0, 1, 1]), 2, kind="full")
>>> prior = NormalInverseWishart().resolve(stats, "full")
>>> prior.mean, prior.shrinkage, prior.dof
(array([2.8, 3.4]), 0.01, 4.0)
>>> prior.scale                         # the covariance of all the data (n - 1)
array([[6.7 , 4.85],
       [4.85, 4.3 ]])
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..stats.moments import ClassMoments
from .covariance import Structure, cholesky_factor, get_structure

DENSE = ("full", "tied")
DIAGONAL = ("diag", "tied_diag", "spherical", "tied_spherical")


@dataclass(frozen=True, eq=False)
class NormalInverseWishart:
    """Normal-inverse-Wishart prior of Gaussian classes with dense covariances.

    ``Sigma ~ InvWishart(scale, dof)`` and ``mu_c | Sigma ~ N(mean, Sigma / shrinkage)``:
    one pair per class for the "full" structure; for "tied" one ``Sigma`` shared by every
    class and one mean per class given it.

    Parameters
    ----------
    mean : array of shape (d,), optional
        Prior mean of every class mean. Default: the mean of all the data.
    shrinkage : float, default=0.01
        kappa0 > 0, the prior's weight on ``mean`` in pseudo-observations (mclust's
        default; None means it too).
    dof : float, optional
        nu0 > d - 1. Default ``d + 2`` (mclust's), whose prior mean of Sigma is ``scale``.
    scale : array of shape (d, d), optional
        Psi0, symmetric positive definite. Default (mclust's for one component, G = 1,
        so its factor ``G^(-2/d)`` is 1): the covariance of all the data, classes
        ignored, with denominator ``n - 1`` (R's ``var``; ``n`` where the total weight is
        below 2); its diagonal where that matrix is singular (``n <= d``, collinear
        features). A feature constant over all the data raises ValueError.

    Examples
    --------
    >>> from bayesrule.likelihoods.conjugate import NormalInverseWishart
    >>> NormalInverseWishart(shrinkage=0.5, dof=5.0)
    NormalInverseWishart(mean=None, shrinkage=0.5, dof=5.0, scale=None)
    """

    mean: object = None
    shrinkage: float = 0.01
    dof: float | None = None
    scale: object = None

    def resolve(self, stats: ClassMoments, structure="full") -> NormalInverseWishart:
        """A copy with every default filled from ``stats`` and every value checked.

        Parameters
        ----------
        stats : ClassMoments
            Full or tied statistics of the training data (any number of classes).
        structure : {"full", "tied"}

        Returns
        -------
        NormalInverseWishart
            ``mean`` (d,), ``shrinkage`` and ``dof`` floats, ``scale`` (d, d).
        """
        _family_or_raise(structure, self)
        d = stats.mean.shape[1]
        name = "NormalInverseWishart"
        mean = _mean(self.mean, stats, name)
        shrinkage = _shrinkage(self.shrinkage, name)
        dof = d + 2.0 if self.dof is None else _dof(self.dof, d)
        scale = _default_scale(stats) if self.scale is None else _scale(self.scale, d)
        return replace(self, mean=mean, shrinkage=shrinkage, dof=dof, scale=scale)


@dataclass(frozen=True, eq=False)
class NormalGamma:
    """Normal-gamma prior of Gaussian classes with diagonal (or spherical) covariances.

    Per variance ``sigma^2``: the precision ``1 / sigma^2 ~ Gamma(shape, rate)`` (an
    inverse-gamma variance with that shape and scale ``rate``), and every mean that
    shares it ``mu | sigma^2 ~ N(mean, sigma^2 / shrinkage)``. The variances are one per
    class and feature ("diag"), per feature ("tied_diag"), per class ("spherical") or
    one ("tied_spherical").

    Parameters
    ----------
    mean : array of shape (d,), optional
        Default: the mean of all the data.
    shrinkage : float, default=0.01
        kappa0 > 0, in pseudo-observations (None: 0.01).
    shape : float, optional
        a0 > 0. Default 3/2: mclust's univariate ``dof = 3`` (``shape = dof / 2``), each
        variance a one-dimensional problem; the prior mean of a variance is then
        ``rate / (shape - 1) = 2 rate``.
    rate : float or array of shape (d,), optional
        b0 > 0; a scalar for the spherical structures. Default: half the variance of
        the data, classes ignored (denominator ``n - 1``): each feature's own for "diag"
        and "tied_diag" (so the prior does not depend on the features' units), their
        average for the spherical ones, so that the prior mean of every variance is the
        data's. (mclust's multivariate default for VVI and VII is ``shape = (d + 2) / 2``
        and ``rate`` half the average variance: pass those to reproduce it.)

    Examples
    --------
    >>> from bayesrule.likelihoods.conjugate import NormalGamma
    >>> NormalGamma(shape=2.0)
    NormalGamma(mean=None, shrinkage=0.01, shape=2.0, rate=None)
    """

    mean: object = None
    shrinkage: float = 0.01
    shape: float | None = None
    rate: object = None

    def resolve(self, stats: ClassMoments, structure="diag") -> NormalGamma:
        """A copy with every default filled from ``stats`` and every value checked.

        Parameters
        ----------
        stats : ClassMoments
            Statistics of the training data (any layout).
        structure : {"diag", "tied_diag", "spherical", "tied_spherical"}

        Returns
        -------
        NormalGamma
            ``mean`` (d,), ``shrinkage`` and ``shape`` floats, ``rate`` (d,), or a
            0-d array for the spherical structures.
        """
        spherical = _family_or_raise(structure, self).form == "spherical"
        d = stats.mean.shape[1]
        mean = _mean(self.mean, stats, "NormalGamma")
        shrinkage = _shrinkage(self.shrinkage, "NormalGamma")
        shape = 1.5 if self.shape is None else _positive(self.shape, "NormalGamma shape")
        if self.rate is None:
            var = _total_variance(stats)
            rate = np.asarray(0.5 * var.mean()) if spherical else 0.5 * var
        else:
            rate = _rate(self.rate, d, spherical)
        return replace(self, mean=mean, shrinkage=shrinkage, shape=shape, rate=rate)


def default_prior(structure):
    """The prior with every default for ``structure``: :class:`NormalInverseWishart`
    for "full" and "tied", :class:`NormalGamma` for the diagonal structures."""
    return NormalInverseWishart() if get_structure(structure).dense else NormalGamma()


def check_prior(prior, structure):
    """``prior`` (None: :func:`default_prior`) checked against the structure's family;
    TypeError naming the family to use."""
    if prior is None:
        return default_prior(structure)
    if not isinstance(prior, (NormalInverseWishart, NormalGamma)):
        raise TypeError(
            "prior must be None, a NormalInverseWishart or a NormalGamma, got "
            f"{type(prior).__name__}"
        )
    _family_or_raise(structure, prior)
    return prior


def _family_or_raise(structure, prior) -> Structure:
    """The structure, or TypeError where ``prior`` is not of its family."""
    structure = get_structure(structure)
    family = NormalInverseWishart if structure.dense else NormalGamma
    if not isinstance(prior, family):
        raise TypeError(
            f"covariance={structure.name!r} takes a {family.__name__} prior, got "
            f"{type(prior).__name__}"
        )
    return structure


# ----------------------------------------------------------------- checks of values
def _number(value, name) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def _positive(value, name) -> float:
    value = _number(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return value


def _shrinkage(value, family) -> float:
    return 0.01 if value is None else _positive(value, f"{family} shrinkage")


def _dof(value, d) -> float:
    value = _number(value, "NormalInverseWishart dof")
    if value <= d - 1:
        raise ValueError(
            f"NormalInverseWishart dof must exceed d - 1 = {d - 1} (d = {d} features): "
            f"degrees of freedom {value!r} are at or below d - 1, an improper "
            "inverse-Wishart; use dof >= d + 2 for a prior with a mean (default d + 2)."
        )
    return value


def _array(value, name, shape) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers, got {value!r}") from None
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no NaN or inf), got {value!r}")
    return arr


def _mean(value, stats, family) -> np.ndarray:
    d = stats.mean.shape[1]
    if value is not None:
        return _array(value, f"{family} mean", (d,))
    _data_or_raise(stats, f"{family} mean")
    return np.asarray(stats.total_mean(), dtype=np.float64)


def _scale(value, d) -> np.ndarray:
    scale = _array(value, "NormalInverseWishart scale", (d, d))
    size = np.abs(scale).max() if d else 0.0
    if (np.abs(scale - scale.T) > 1e-10 * size).any():
        raise ValueError("NormalInverseWishart scale must be symmetric.")
    scale = 0.5 * (scale + scale.T)
    if cholesky_factor(scale) is None:
        raise ValueError(
            "NormalInverseWishart scale must be positive definite (a Cholesky factor "
            "exists); its smallest eigenvalue is "
            f"{float(np.linalg.eigvalsh(scale)[0]):.3g}."
        )
    return scale


def _rate(value, d, spherical) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64) if _numeric(value) else None
    if arr is None:
        raise TypeError(f"NormalGamma rate must be a number or an array, got {value!r}")
    if spherical and arr.ndim:
        raise ValueError(
            f"NormalGamma rate must be a scalar for a spherical structure, got shape {arr.shape}"
        )
    if arr.ndim:
        arr = _array(arr, "NormalGamma rate", (d,))
    if not np.isfinite(arr).all() or not (arr > 0).all():
        raise ValueError(f"NormalGamma rate must be finite and > 0, got {value!r}")
    return arr if spherical else np.broadcast_to(arr, (d,)).copy()


def _numeric(value) -> bool:
    try:
        return np.asarray(value).dtype.kind in "biuf" and not isinstance(value, bool)
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------- data defaults
def _data_or_raise(stats, what):
    if not np.asarray(stats.count).sum() > 0:
        raise ValueError(f"the default {what} comes from the data, and the statistics are empty.")


def _denominator(n) -> np.ndarray:
    """R's ``var`` denominator ``n - 1``; ``n`` where the total weight is below 2."""
    return np.where(n >= 2, n - 1.0, n)


def _default_scale(stats: ClassMoments) -> np.ndarray:
    """The covariance of all the data, classes ignored (``n - 1``); its diagonal where
    that is singular."""
    _data_or_raise(stats, "NormalInverseWishart scale")
    if stats.kind == "diag":
        raise ValueError(
            "a NormalInverseWishart prior needs full or tied statistics (a covariance), "
            "got diagonal ones."
        )
    n = stats.count.sum()
    delta = stats.mean - stats.total_mean()
    within = stats.scatter.sum(axis=0) if stats.kind == "full" else stats.scatter
    total = within + np.einsum("c,cj,ck->jk", stats.count, delta, delta)
    total = 0.5 * (total + total.T) / _denominator(n)
    if total.shape[0] < n and cholesky_factor(total) is not None:
        return total
    variances = np.diag(total)
    _constant_or_raise(variances, "scale")
    return np.diag(variances)


def _total_variance(stats: ClassMoments) -> np.ndarray:
    """Each feature's variance over all the data, classes ignored (``n - 1``)."""
    _data_or_raise(stats, "NormalGamma rate")
    n = stats.count.sum(axis=0)
    var = stats.total_variance() * n / _denominator(n)
    _constant_or_raise(var, "rate")
    return var


def _constant_or_raise(variances, what):
    bad = np.flatnonzero(~(variances > 0))
    if bad.size:
        raise ValueError(
            f"feature {bad[0]} is constant over all the data, so the default prior {what} "
            f"is singular there; give {what}= explicitly, or drop the feature."
        )
