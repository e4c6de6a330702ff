"""Conjugate-prior MAP EM for Gaussian mixtures: mclust's ``priorControl()``.

Fraley and Raftery (2007), "Bayesian regularization for normal mixture estimation and
model-based clustering": every component of a class's mixture gets the conjugate prior
``mu_k | Sigma_k ~ N(mu_P, Sigma_k / kappa_P)`` with an inverse-Wishart covariance
(dense models: scale ``Lambda_P``, ``nu_P`` degrees of freedom) or inverse-gamma
variances (diagonal models: scale ``s_P^2``), no prior on the weights; each M step of
EM is then the posterior mode given the responsibilities, so no component's covariance
ever becomes singular. :func:`resolve_prior` fills the hyperparameters left out as
mclust's ``defaultPrior`` does, from the class's rows and the number of components G:
``kappa_P = 0.01``, ``mu_P`` the class mean, ``nu_P = d + 2``, ``Lambda_P`` the class
covariance (denominator n - 1; its diagonal where n <= d) times ``G^(-2/d)``, and
``s_P^2 = G^(-2/d)`` times the class's mean variance.

**The M step as pseudo-statistics.** With soft counts ``n_k``, means ``xbar_k``, centred
scatters ``W_k``, ``n = sum_k n_k`` and ``B_k = kappa_P n_k / (kappa_P + n_k) (xbar_k -
mu_P)(xbar_k - mu_P)^T``, mclust 6.0.0's ``me*p`` Fortran steps equal the structure's own
maximum-likelihood M step (:meth:`~bayesrule.likelihoods.covariance.Structure.estimate`)
applied to ``W_k + B_k`` plus a share of the prior's scale and to ``n_k`` plus a pseudo
count (:func:`pseudo_statistics`; d features, G components):

| model | scale added to each component | count of component k |
| --- | --- | --- |
| EII | none (mclust's ``meeiip`` leaves ``s_P^2`` out) | ``n_k + 1 + (nu + 2) / (d G)`` |
| VII | ``s_P^2 / d`` per variance | ``n_k + 1 + (nu + 2) / d`` |
| EEI | ``s_P^2 / G`` | ``n_k + (nu + 2) / G`` |
| VEI | ``s_P^2`` | ``n_k + (nu + 3) / d`` |
| EVI | ``s_P^2`` | ``n_k + (nu + 2) / G`` |
| VVI | ``s_P^2`` | ``n_k + nu + 3`` |
| EEE | ``Lambda_P / G`` | ``n_k + 1 + (nu + d + 1) / G`` |
| EEV | ``Lambda_P`` | ``n_k + (nu + d + 2) / G`` |
| VEV | ``Lambda_P`` | ``n_k`` (mclust's ``mevevp`` divides by ``d n_k``) |
| VVV | ``Lambda_P`` | ``n_k + nu + d + 2`` |

(e.g. VVV: ``Sigma_k = (Lambda_P + W_k + B_k) / (nu + n_k + d + 2)``; EEE: ``(Lambda_P +
sum_k (W_k + B_k)) / (nu + n + d + 1 + G)``). The means are the posterior means
``(n_k xbar_k + kappa_P mu_P) / (n_k + kappa_P)``, except EEI's, which mclust leaves at
``xbar_k``; the weights are ``n_k / n``. From the same partition, EM with these steps ends
where mclust's ``me(..., prior = priorControl())`` ends: 1e-9 relative or closer on
iris and wine (``tests/likelihoods/test_mixture_prior.py``). mclust has no MAP step for
VEE, EVE, VVE and EVV ("not available with prior"): they are refused
(:data:`PRIOR_MODELS`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import numpy as np

from ...stats.moments import ClassMoments
from ..conjugate import (
    NormalGamma,
    NormalInverseWishart,
    _array,
    _dof,
    _family_or_raise,
    _positive,
    _rate,
    _scale,
    _shrinkage,
)
from ..covariance import cholesky_factor, get_structure
from ..parametrisation import SYNONYMS

#: mclust's models with a MAP M step (``mstep<model>(..., prior=)``); scikit-learn's
#: "full", "tied", "diag", "spherical" (and "tied_diag", "tied_spherical") are VVV, EEE,
#: VVI, VII (EEI, EII)
PRIOR_MODELS = ("EII", "VII", "EEI", "VEI", "EVI", "VVI", "EEE", "EEV", "VEV", "VVV")

#: the values ``prior`` may name
PRIOR_NAMES = ("default",)

_MCLUST_NAME = {structure: model for model, structure in SYNONYMS.items()}

SUPPORTED = (
    "the models with a conjugate prior are EII, VII, EEI, VEI, EVI, VVI, EEE, EEV, VEV and "
    "VVV (scikit-learn's 'spherical', 'diag', 'tied' and 'full' are VII, VVI, EEE and VVV)"
)


def mclust_name(covariance: str) -> str:
    """mclust's name of a covariance structure ("full" is "VVV")."""
    return _MCLUST_NAME.get(covariance, covariance)


def not_available(covariance: str) -> str:
    """Why a model has no prior (refusal reasons and errors)."""
    return (
        f"mclust has no MAP M step for covariance={covariance!r} (its prior= is 'not "
        f"available with prior'); {SUPPORTED}"
    )


@dataclass(frozen=True, eq=False)
class MapPrior:
    """A resolved prior of one class's mixture, in mclust's terms.

    Attributes
    ----------
    model : str
        mclust's name of the covariance model.
    shrinkage : float
        ``kappa_P > 0``.
    mean : ndarray of shape (d,)
    dof : float
        ``nu_P`` (for a :class:`~bayesrule.likelihoods.conjugate.NormalGamma`, twice its
        shape).
    scale : ndarray
        ``Lambda_P`` (d, d) for the dense models; ``s_P^2`` (twice a NormalGamma's
        rate) for the diagonal ones, () or per feature (d,).
    """

    model: str
    shrinkage: float
    mean: np.ndarray
    dof: float
    scale: np.ndarray

    def centred(self, reference) -> MapPrior:
        """The same prior in coordinates centred at ``reference``."""
        return replace(self, mean=self.mean - reference)


# --------------------------------------------------------------------- the prior
def check_prior_spec(prior, covariance) -> None:
    """ValueError/TypeError naming the fix where ``prior`` (None, "default", a
    NormalInverseWishart or a NormalGamma) cannot serve ``covariance`` (a structure, or
    "bic"/"sklearn": a search, which takes "default" only)."""
    if prior is None:
        return
    if isinstance(prior, str):
        if prior not in PRIOR_NAMES:
            raise ValueError(
                "prior must be None (maximum likelihood), 'default' (mclust's "
                "priorControl()), a NormalInverseWishart (dense models) or a NormalGamma "
                f"(diagonal models), got {prior!r}"
            )
    elif not isinstance(prior, NormalInverseWishart | NormalGamma):
        raise TypeError(
            "prior must be None, 'default', a NormalInverseWishart or a NormalGamma (from "
            f"bayesrule.likelihoods.conjugate), got {type(prior).__name__}"
        )
    if covariance in ("bic", "sklearn"):
        if not isinstance(prior, str):
            raise ValueError(
                f"covariance={covariance!r} searches models of both prior families (dense "
                "and diagonal), so it takes prior='default'; name one covariance to give "
                f"a {type(prior).__name__}."
            )
        return
    if mclust_name(covariance) not in PRIOR_MODELS:
        raise ValueError(f"prior={_shown(prior)}: {not_available(covariance)}; or prior=None.")
    if not isinstance(prior, str):
        _family_or_raise(covariance, prior)
        if mclust_name(covariance) == "EII" and prior.rate is not None:
            raise ValueError(
                "mclust's EII M step with a prior does not use the prior's scale (rate): "
                "leave NormalGamma(rate=None) for covariance 'EII', or use 'VII'."
            )


def _shown(prior) -> str:
    return repr(prior) if isinstance(prior, str) else type(prior).__name__ + "(...)"


def class_moments(X: np.ndarray, w) -> tuple[float, np.ndarray, np.ndarray]:
    """Total weight, mean and covariance (denominator total - 1, R's ``var``; the total
    where it is below 2) of a class's rows."""
    total = float(X.shape[0] if w is None else w.sum())
    mean = np.average(X, axis=0, weights=w)
    centred = X - mean
    weighted = centred if w is None else centred * w[:, None]
    cov = weighted.T @ centred / (total - 1.0 if total >= 2 else total)
    return total, mean, 0.5 * (cov + cov.T)


def resolve_prior(prior, X, w, covariance: str, K: int) -> MapPrior | None:
    """The prior of a class's K-component mixture (None: none), the hyperparameters left
    out filled as mclust's ``defaultPrior(X, G = K, model)`` fills them from the class's
    rows ``X`` (weights ``w``: integer weights as repeated rows); ValueError naming the
    fix for a hyperparameter of another dimension, ``dof <= d - 1``, a scale that is not
    positive definite, or a default scale that is singular (a constant feature)."""
    if prior is None:
        return None
    check_prior_spec(prior, covariance)
    model = mclust_name(covariance)
    dense = get_structure(covariance).dense
    spec = prior
    if isinstance(prior, str):  # "default": every hyperparameter from the data
        spec = NormalInverseWishart() if dense else NormalGamma()
    family = type(spec).__name__
    d = X.shape[1]
    total, mean, cov = class_moments(X, w)
    factor = float(K) ** (-2.0 / d)
    mu = mean if spec.mean is None else _array(spec.mean, f"{family} mean", (d,))
    kappa = _shrinkage(spec.shrinkage, family)
    if dense:
        dof = d + 2.0 if spec.dof is None else _dof(spec.dof, d)
        scale = _default_scale(cov, total, factor) if spec.scale is None else _scale(spec.scale, d)
    else:
        dof = d + 2.0 if spec.shape is None else 2.0 * _positive(spec.shape, "NormalGamma shape")
        if spec.rate is None:
            variances = np.diag(cov)
            _constant_or_raise(variances, "NormalGamma(rate=...)")
            scale = np.asarray(factor * variances.mean())
        else:
            scale = 2.0 * _rate(spec.rate, d, get_structure(covariance).form == "spherical")
    return MapPrior(model, kappa, np.asarray(mu, dtype=np.float64), float(dof), scale)


def _default_scale(cov: np.ndarray, total: float, factor: float) -> np.ndarray:
    """mclust's default ``Lambda_P``: the class covariance times ``G^(-2/d)``, its
    diagonal where the class has no more rows than features (or the covariance is
    singular)."""
    if total > cov.shape[0] and cholesky_factor(cov) is not None:
        return factor * cov
    variances = np.diag(cov)
    _constant_or_raise(variances, "NormalInverseWishart(scale=...)")
    return factor * np.diag(variances)


def _constant_or_raise(variances: np.ndarray, give: str) -> None:
    bad = np.flatnonzero(~(variances > 0))
    if bad.size:
        raise ValueError(
            f"feature {bad[0]} is constant in the class, so mclust's default prior scale "
            f"(from the class's variances) is singular there; give {give} explicitly, or "
            "drop the feature."
        )


# --------------------------------------------------------------------- the M step
def _pseudo_counts(model: str, n, G, d: int, nu: float):
    """Each component's count in the structure's ML step (the module's table)."""
    return {
        "EII": lambda: n + 1.0 + (nu + 2.0) / (d * G),
        "VII": lambda: n + 1.0 + (nu + 2.0) / d,
        "EEI": lambda: n + (nu + 2.0) / G,
        "VEI": lambda: n + (nu + 3.0) / d,
        "EVI": lambda: n + (nu + 2.0) / G,
        "VVI": lambda: n + nu + 3.0,
        "EEE": lambda: n + 1.0 + (nu + d + 1.0) / G,
        "EEV": lambda: n + (nu + d + 2.0) / G,
        "VEV": lambda: n,
        "VVV": lambda: n + nu + d + 2.0,
    }[model]()


def _scale_share(model: str, G, d: int):
    """The share of the prior's scale each component's scatter gets."""
    return {"EII": 0.0, "VII": 1.0 / d, "EEI": 1.0 / G, "EEE": 1.0 / G}.get(model, 1.0)


def pseudo_statistics(prior: MapPrior, count, mean, scatter, kind: str, on=None):
    """The counts and scatters whose ML estimate is the MAP one (the module's table).

    Parameters
    ----------
    prior : MapPrior
        In the coordinates of ``mean``.
    count : ndarray of shape (..., K)
        Soft counts ``n_k`` (any leading axes: runs of EM in lockstep).
    mean : ndarray of shape (..., K, d)
        Component means ``xbar_k``.
    scatter : ndarray
        Centred scatters ``W_k``: (..., K, d, d) for ``kind="full"``, (..., K, d) for
        "diag", or their sum over the components (d, d) for "tied".
    kind : {"full", "diag", "tied"}
    on : ndarray of shape (..., K), optional
        The components each run has (the others, padding, keep count and scatter 0).

    Returns
    -------
    count, scatter
        In the shapes given.
    """
    d = mean.shape[-1]
    on = np.ones(np.shape(count), dtype=bool) if on is None else on
    n = np.where(on, count, 0.0)
    G = on.sum(axis=-1, keepdims=True)
    weight = prior.shrinkage * n / (prior.shrinkage + n)  # 0 for an empty component
    delta = mean - prior.mean
    counts = np.where(on, _pseudo_counts(prior.model, n, G, d, prior.dof), 0.0)
    share = np.where(on, _scale_share(prior.model, G, d), 0.0)
    if kind == "diag":
        added = weight[..., None] * delta * delta + share[..., None] * prior.scale
        return counts, scatter + added
    spread = np.einsum("...k,...kj,...kl->...kjl", weight, delta, delta)
    added = spread + share[..., None, None] * prior.scale
    if kind == "tied":
        return counts, scatter + added.sum(axis=-3)
    return counts, scatter + added


def map_means(prior: MapPrior, count, mean) -> np.ndarray:
    """The components' MAP means ``(n_k xbar_k + kappa_P mu_P) / (n_k + kappa_P)`` (EEI:
    ``xbar_k``, as mclust's ``meeeip``), in the coordinates of ``mean`` and ``prior``."""
    if prior.model == "EEI":
        return np.array(mean, dtype=np.float64)
    k = prior.shrinkage
    return (count[..., None] * mean + k * prior.mean) / (count + k)[..., None]


def map_parameters(stats: ClassMoments, covariance: str, reg_covar: float, reference, prior):
    """The MAP M step: weights ``n_k / n``, means and covariances (plus ``reg_covar``)
    from soft statistics centred at ``reference``, ``prior`` a :class:`MapPrior` in the
    data's coordinates."""
    centred = prior.centred(reference)
    structure = get_structure(covariance)
    count, scatter = pseudo_statistics(centred, stats.count, stats.mean, stats.scatter, stats.kind)
    cov = structure.estimate(ClassMoments(count, stats.mean, scatter, stats.kind))
    cov = structure.add_to_diagonal(cov, reg_covar)
    means = map_means(centred, stats.count, stats.mean) + reference
    return stats.count / stats.count.sum(), means, cov


def regularised(mixture):
    """A copy of the mixture (a :class:`~bayesrule.likelihoods.mixture.Mixture`) as the
    candidate rules of :mod:`~bayesrule.likelihoods.mixture.search` read it under a
    prior: no covariance is singular, so the rules of ``reg_covar=0`` do not apply."""
    view = copy.copy(mixture)
    view.reg_covar = np.inf
    return view


def without_prior(pairs: list, refused: dict) -> list:
    """A search's candidates that have a prior; the others go into ``refused`` (with the
    reason)."""
    kept = []
    for structure, k in pairs:
        if mclust_name(structure) in PRIOR_MODELS:
            kept.append((structure, k))
        else:
            refused[structure, k] = (
                "no prior (mclust has no MAP M step for it: 'not available with prior')"
            )
    return kept


#: the model whose MAP step is mclust's one-component fit of each form under a prior
#: (``mvnXII``, ``mvnXXI``, ``mvnXXX``: the MAP steps of VII, VVI and VVV, which EII,
#: EEI and VEV for instance are not)
ONE_COMPONENT = ("VII", "VVI", "VVV")


def one_component_first(pairs: list) -> list:
    """The candidates with the one-component VII, VVI and VVV first, so that a search
    among mclust's models fits each form's one-component model under them (as
    ``mclustBIC`` with a prior does) and lists it under every name of the form
    (:func:`~bayesrule.likelihoods.mixture.search.one_component_aliases`)."""
    first = [(s, k) for s, k in pairs if k == 1 and mclust_name(s) in ONE_COMPONENT]
    return first + [pair for pair in pairs if pair not in first]
