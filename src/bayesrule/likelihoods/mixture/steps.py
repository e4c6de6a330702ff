"""The updates of EM shared by its in-memory, blocked and missing-value runs: the M step
(:func:`parameters`), EM as a generator over passes (:func:`em_steps`: the stopping rule
and the lower bounds), warm starts (:func:`continued`), the choice among restarts
(:func:`better`) and the warning of a run stopped at ``max_iter``."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ...stats.moments import ClassMoments
from ..covariance import get_structure
from .em_small import COUNT_EPS
from .map_step import map_parameters
from .model import MixtureModel, precisions_cholesky


def parameters(stats: ClassMoments, covariance: str, reg_covar: float, reference, prior=None):
    """The M step: weights, means and covariances from soft statistics (centred at
    ``reference``), with scikit-learn's ``10 * eps`` per component and ``reg_covar``;
    with a ``prior`` (a resolved :class:`~bayesrule.likelihoods.mixture.map_step.MapPrior`)
    the MAP step of :func:`~bayesrule.likelihoods.mixture.map_step.map_parameters`."""
    if prior is not None:
        return map_parameters(stats, covariance, reg_covar, reference, prior)
    count = stats.count + COUNT_EPS
    # the mean of sum(r x) / (sum(r) + 10 eps), as scikit-learn's, in centred coordinates
    means = stats.mean * (stats.count / count)[:, None] + reference
    structure = get_structure(covariance)
    cov = structure.estimate(ClassMoments(count, stats.mean, stats.scatter, stats.kind))
    cov = structure.add_to_diagonal(cov, reg_covar)
    return count / count.sum(), means, cov


def better(best: MixtureModel | None, model: MixtureModel, max_iter: int) -> MixtureModel:
    """The run to keep of two restarts: the higher final lower bound (the first on ties;
    with ``max_iter=0``, the last start)."""
    if best is None or model.lower_bound_ > best.lower_bound_ or max_iter == 0:
        return model
    return best


def warn_unconverged(best: MixtureModel, max_iter: int, tol: float, where: str = "") -> None:
    """ConvergenceWarning when the kept run stopped at ``max_iter`` before ``tol``
    (``where``: what to name first, e.g. the class)."""
    if not best.converged_ and max_iter > 0:
        warnings.warn(
            (f"{where}: " if where else "")
            + f"EM stopped after max_iter={max_iter} iterations before the lower bound "
            f"changed by less than tol={tol:g} (last change "
            f"{_last_change(best):.3g}); increase max_iter or tol, try other "
            "initialisations, or check for degenerate data.",
            ConvergenceWarning,
            stacklevel=3,
        )


def _last_change(model: MixtureModel) -> float:
    b = model.lower_bounds_
    return abs(b[-1] - b[-2]) if len(b) >= 2 else float("inf")


def continued(previous, covariance: str, reference) -> MixtureModel:
    """A warm start: the previous fit's parameters, centred on this data's ``reference``."""
    return MixtureModel(
        covariance,
        previous.weights_,
        previous.means_,
        previous.covariances_,
        previous.precisions_cholesky_,
        reference,
    )


def em_steps(model, total, reg, max_iter, tol, bound, prior=None):
    """EM as a generator: yields the model whose pass it needs, receives that pass's
    ``(statistics, sum w ln p)``, and returns the final model (several runs can then
    share one pass over the data). ``prior``: a resolved MapPrior makes every M step
    the MAP one (the lower bounds stay log-likelihoods, which MAP EM may lower slightly:
    it raises the log posterior)."""
    covariance, reference = model.covariance, model.reference_
    bounds, converged = [], False
    for _ in range(max_iter):
        stats, ll = yield model
        new = ll / total  # mean log-likelihood under the parameters before this M step
        if not np.isfinite(new):
            raise ValueError(
                "the mixture's log-likelihood is not finite (samples so far from every "
                "component that their densities underflow); standardise the features."
            )
        weights, means, cov = parameters(stats, covariance, reg, reference, prior)
        U = precisions_cholesky(covariance, cov, reg)
        model = MixtureModel(covariance, weights, means, cov, U, reference)
        bounds.append(new)
        change, bound = new - bound, new
        if abs(change) < tol:
            converged = True
            break
    model.n_iter_, model.converged_ = len(bounds), converged
    model.lower_bound_ = bound if max_iter > 0 else -np.inf
    model.lower_bounds_ = bounds
    return model
