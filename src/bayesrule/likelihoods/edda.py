"""EDDA: the covariance structure of a Gaussian classifier chosen by BIC.

Eigenvalue decomposition discriminant analysis (Bensmail and Celeux 1996; mclust's
``MclustDA(modelType="EDDA")``) fits one Gaussian per class with each of mclust's 14
parametrisations of the covariances (:mod:`bayesrule.likelihoods.parametrisation`) and
keeps the one of largest

    ``BIC = 2 ln L - df ln n``,

``df = C d + nVarParams(model, C, d)`` (the means and the covariances; the class
proportions are the same in every model and not counted, as in mclust's
``bic(..., equalPro = TRUE)``), ``n`` the number (total weight) of training rows. A model
whose ML covariances are singular, or whose M-step is not determined, scores NaN (mclust's
NA). Ties go to the model listed first (the simpler).

``ln L`` is the log-likelihood of the training data under the fitted densities with
their labels, ``sum_i ln N(x_i; mu_{y_i}, Sigma_{y_i})``, which the class moments give
exactly: ``-1/2 sum_k [n_k (d ln 2 pi + ln |Sigma_k|) + tr(Sigma_k^-1 W_k)]``. So the
choice is made from mergeable statistics: ``partial_fit`` and Dask blocks choose as
``fit`` does. mclust (6.0) scores instead the mixture log-likelihood
``sum_i ln sum_k pi_k N(x_i; mu_k, Sigma_k)`` of the same fitted parameters (its
``estep``), which ignores the labels the parameters were fitted to and needs the data;
on iris, scaled wine and the Palmer penguins both criteria choose the same model (VEV,
VVE, VVE).

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from bayesrule.likelihoods import Gaussian
>>> X, y = load_iris(return_X_y=True)
>>> g = Gaussian(covariance="bic").fit(X, y, n_classes=3)
>>> g.covariance_, round(g.bic_["VEV"], 2), round(g.bic_["VVV"], 2)
('VEV', -238.89, -257.61)
"""

from __future__ import annotations

import numpy as np

from ..stats.moments import ClassMoments
from .base import Undetermined
from .covariance import Parametrised, Structure, cholesky_factor, get_structure, pooled_moments
from .parametrisation import MODELS, covariances, n_covariance_parameters

__all__ = ["BIC", "as_kind", "bic_table", "choose", "class_log_likelihood", "structure_for"]

#: the ``covariance`` of a Gaussian that chooses its structure by BIC
BIC = "bic"

LOG_2PI = float(np.log(2.0 * np.pi))


def choosing(covariance) -> bool:
    """Whether ``covariance`` asks for the structure to be chosen by BIC."""
    return isinstance(covariance, str) and covariance == BIC


def structure_for(covariance) -> Structure:
    """The structure whose statistics a Gaussian of ``covariance`` keeps: full class
    moments for ``"bic"`` (every model can be estimated from them), else its own
    structure; a ValueError naming every choice for an unknown one."""
    if choosing(covariance):
        return get_structure("full")
    try:
        return get_structure(covariance)
    except ValueError as exc:
        raise ValueError(f"{exc}; or 'bic' (the structure of largest BIC: EDDA)") from None


def check_plain(covariance, structure: Structure, shrinkage, pooling) -> None:
    """ValueError where ``shrinkage`` or ``pooling`` is given to ``"bic"`` or to one of
    mclust's parametrisations (they apply to "full" and "tied" only)."""
    if not (choosing(covariance) or isinstance(structure, Parametrised)):
        return
    if shrinkage is not None or pooling not in (None, 0, 0.0):
        raise ValueError(
            f"shrinkage and pooling apply to the 'full' and 'tied' covariances only, not "
            f"covariance={covariance!r}; leave them at None and 0."
        )


def as_kind(stats: ClassMoments, kind: str) -> ClassMoments:
    """Full class moments as the layout ``kind`` ("full", "tied" or "diag"); other
    statistics as they are."""
    if stats.kind != "full" or kind == "full":
        return stats
    if kind == "tied":
        return pooled_moments(stats)
    if kind == "diag":
        return ClassMoments(stats.count, stats.mean, np.einsum("kjj->kj", stats.scatter), "diag")
    raise ValueError(f"kind must be 'full', 'tied' or 'diag', got {kind!r}")


def class_log_likelihood(counts, scatters, covs) -> float:
    """``sum_k -1/2 [n_k (d ln 2 pi + ln |Sigma_k|) + tr(Sigma_k^-1 W_k)]``: the
    log-likelihood of the rows of each class under its own Gaussian at the class mean,
    from the weights ``counts`` (C,), centred scatters (C, d, d) and covariances
    (C, d, d); NaN where a covariance is singular (see
    :func:`~bayesrule.likelihoods.covariance.cholesky_factor`).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[[2.0, 0.0], [0.0, 8.0]]])  # 2 rows, variances 1 and 4
    >>> ll = class_log_likelihood([2.0], W, W / 2)
    >>> bool(np.isclose(ll, -0.5 * (2 * (2 * np.log(2 * np.pi) + np.log(4.0)) + 4)))
    True
    """
    total = 0.0
    for n_k, W_k, S_k in zip(counts, scatters, covs, strict=True):
        L = cholesky_factor(S_k)
        if L is None:
            return float("nan")
        root = np.linalg.solve(L, np.linalg.solve(L, W_k).T)  # L^-1 W L^-T
        log_det = 2.0 * np.log(np.diag(L)).sum()
        total -= 0.5 * (n_k * (S_k.shape[0] * LOG_2PI + log_det) + np.trace(root))
    return float(total)


def bic_table(stats: ClassMoments, models=MODELS) -> dict[str, float]:
    """BIC of each model (NaN where it cannot be fitted), from full class moments."""
    n, scatter = stats.count, stats.snapped()
    C, d = stats.mean.shape
    table = {}
    for model in models:
        try:
            covs = covariances(model, n, scatter)
        except Undetermined:
            table[model] = float("nan")
            continue
        table[model] = bic_value(model, class_log_likelihood(n, scatter, covs), C, d, n.sum())
    return table


def bic_value(model: str, log_likelihood: float, n_classes: int, d: int, n: float) -> float:
    """EDDA's ``2 ln L - df ln n`` of ``model``: ``df`` the class means and the
    covariance parameters (module docstring)."""
    df = n_classes * d + n_covariance_parameters(model, n_classes, d)
    return float(2.0 * log_likelihood - df * np.log(n))


def choose(stats: ClassMoments) -> tuple[str, dict[str, float]]:
    """The model of largest BIC (the first one on a tie) and every model's BIC, from
    full class moments; Undetermined when no model can be fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats import class_moments
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2)) * [1.0, 3.0]  # one diagonal shape for both
    >>> y = np.repeat([0, 1], 200)
    >>> choose(class_moments(X, y, 2, kind="full"))[0]
    'EEI'
    """
    return choose_from(bic_table(stats))


def choose_from(table: dict[str, float]) -> tuple[str, dict[str, float]]:
    """The model of largest BIC in ``{model: BIC}`` (the first on a tie) and the table;
    Undetermined when every BIC is NaN."""
    scores = np.array(list(table.values()))
    if np.isnan(scores).all():
        raise Undetermined(
            "no covariance structure can be estimated by maximum likelihood from these "
            "data: every one of mclust's 14 is singular (fewer rows than features in a "
            "class, or features constant within the classes). Give a structure and "
            "reg_covar, a regularised estimate (estimate='map'), or more rows."
        )
    return list(table)[int(np.nanargmax(scores))], table
