"""EM for one Gaussian mixture density on rows with missing values (NaN):
:func:`fit_missing`, which :func:`~bayesrule.likelihoods.mixture.em.fit_mixture` runs
when its rows hold NaN.

The likelihood maximised is that of what was observed, ``sum_i w_i ln sum_k pi_k
N(x_io; mu_ko, Sigma_koo)`` (each row's missing coordinates integrated out), by EM over
the missing coordinates as well as the components:

* the **E step** is :func:`bayesrule.stats.missing_em.mixture_e_step`: responsibilities
  from the marginal densities of each row's observed coordinates, then the expected
  complete-data statistics (each missing part filled with its conditional mean under the
  component, the conditional covariance added to the scatter), and the observed-data
  log-likelihood;
* the **M step** is the complete-data one of
  :func:`~bayesrule.likelihoods.mixture.steps.em_steps` (the covariance structure's
  estimate, any of scikit-learn's four or mclust's 14, then ``reg_covar``), with the
  same ``10 * eps`` per component, stopping rule (the mean observed-data log-likelihood
  changes by less than ``tol``), warnings and choice among restarts.

**Start.** One Gaussian is fitted to the rows by EM over their missing coordinates
(:func:`~bayesrule.stats.missing_em.fit_gaussian_missing`, full ML covariance plus
``reg_covar``); each row is completed by its conditional mean under it
(:func:`filled_rows`), and k-means partitions of the completed rows start the runs, as
they start EM on complete data. From a partition, the first M step takes the expected
statistics of each part under that one Gaussian (missing coordinates filled by their
conditional means, their conditional covariances added): on complete rows this is the
plain M step of the partition. Given initial parameters and warm starts are taken as
on complete data.

The Dask path (:mod:`~bayesrule.likelihoods.mixture.em_blocks`) refuses missing values.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..._engines.threads import one_blas_thread
from ...stats.conditional import Conditioned, missing_patterns, row_chunks
from ...stats.missing_em import expected_moments, fit_gaussian_missing, mixture_e_step
from ...stats.moments import ClassMoments
from ..covariance import get_structure
from .model import MixtureModel, covariances_from_precisions, precisions_cholesky
from .starts import kmeans_labels
from .steps import better, continued, em_steps, parameters

#: the one-Gaussian fit that starts EM stops when its log-likelihood changes by less
#: than this share (it is only a start), or after START_ITER steps
START_TOL = 1e-6
START_ITER = 100

#: the last few one-Gaussian starts, by a digest of their rows, weights and reg_covar
#: (a BIC search fits many candidates to the same class)
_STARTS: dict[bytes, tuple] = {}
_KEPT_STARTS = 4


def observed_mean(X: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Each feature's (weighted) mean over the rows where it is observed; ValueError
    where a feature is never observed."""
    seen = ~np.isnan(X)
    sw = np.ones(X.shape[0]) if w is None else w
    total = sw @ seen
    if (total <= 0).any():
        raise ValueError(
            f"features {np.flatnonzero(total <= 0).tolist()} have no observed value (every "
            "value NaN, or only rows of weight 0); drop them."
        )
    return (sw @ np.where(seen, X, 0.0)) / total


def one_gaussian(X: np.ndarray, w, reg_covar: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean (d,) and covariance (d, d) of one Gaussian fitted to rows with missing
    values by EM (ML covariance plus ``reg_covar`` on its diagonal); remembered for
    the next few calls with the same rows, weights and ``reg_covar``."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (X, w, reg_covar):
        digest.update(b"-" if part is None else np.ascontiguousarray(part).tobytes())
    key = digest.digest()
    if key not in _STARTS:
        d = X.shape[1]

        def estimate(stats):
            cov = stats.scatter / stats.count[:, None, None] + reg_covar * np.eye(d)
            return stats.mean, cov

        with warnings.catch_warnings():  # a start need not have converged
            warnings.simplefilter("ignore", ConvergenceWarning)
            stats, _, _ = fit_gaussian_missing(
                X, np.zeros(X.shape[0], dtype=np.int64), 1, w, estimate, START_TOL, START_ITER
            )
        mean, cov = estimate(stats)
        while len(_STARTS) >= _KEPT_STARTS:
            _STARTS.pop(next(iter(_STARTS)))
        _STARTS[key] = (mean[0], cov[0])
    return _STARTS[key]


def filled_rows(X: np.ndarray, w, reg_covar: float) -> np.ndarray:
    """The rows of ``X`` with each missing value replaced by its conditional mean given
    the row's observed values, under :func:`one_gaussian` (k-means runs on them)."""
    out = np.array(X, dtype=np.float64, copy=True)
    with one_blas_thread():
        mean, cov = one_gaussian(X, w, reg_covar)
        for observed, rows in missing_patterns(X):
            if observed.all():
                continue
            pattern = Conditioned(mean[None], cov[None], observed)
            for chunk in row_chunks(rows, X.shape[1]):
                out[chunk] = pattern.evaluate(0, X[chunk])[1]
    return out


def as_kind(stats: ClassMoments, kind: str, reference: np.ndarray) -> ClassMoments:
    """Statistics of kind "full" with absolute means as the M step takes them: means
    centred at ``reference``, scatters in the layout ``kind`` ("full", "tied", "diag")."""
    scatter = stats.scatter
    if kind == "tied":
        scatter = scatter.sum(axis=0)
    elif kind == "diag":
        scatter = np.einsum("kjj->kj", scatter).copy()
    return ClassMoments(stats.count, stats.mean - reference, scatter, kind)


def missing_pass(model: MixtureModel, X: np.ndarray, w) -> tuple[ClassMoments, float]:
    """One E step under ``model`` over rows with missing values: the M step's
    statistics (centred at the model's reference, in its structure's layout) and
    ``sum_i w_i ln p(x_io)``, as :func:`~bayesrule.likelihoods.mixture.steps.em_steps`
    receives them."""
    stats, ll = mixture_e_step(X, model.weights_, model.means_, model.full_covariances(), w)
    kind = get_structure(model.covariance).stats_kind
    return as_kind(stats, kind, model.reference_), ll


def _initial(X, w, K, covariance, reg, rs, inits, reference, labels) -> MixtureModel:
    """The first model: the given parameters, the rest from the first M step of a
    k-means partition of the completed rows (see the module docstring)."""
    weights, means, U = inits
    cov = None
    if weights is None or means is None or U is None:
        if labels is None:
            labels = kmeans_labels(filled_rows(X, w, reg), w, K, rs)
        mean, sigma = one_gaussian(X, w, reg)
        member = np.zeros((X.shape[0], K))
        member[np.arange(X.shape[0]), labels] = 1.0
        stats = expected_moments(X, member, np.tile(mean, (K, 1)), np.tile(sigma, (K, 1, 1)), w)
        kind = get_structure(covariance).stats_kind
        first = parameters(as_kind(stats, kind, reference), covariance, reg, reference)
        weights = first[0] if weights is None else weights
        means = first[1] if means is None else means
        cov = first[2]
    if U is None:
        U = precisions_cholesky(covariance, cov, reg)
    else:
        cov = covariances_from_precisions(covariance, U)
    return MixtureModel(covariance, weights, means, cov, U, reference)


def fit_missing(
    X, w, K, covariance, reg, max_iter, tol, n_init, rs, inits, previous=None, starts=None
) -> MixtureModel:
    """EM on rows with missing values (checked by
    :func:`~bayesrule.likelihoods.mixture.em.fit_mixture`, which documents the
    arguments): ``n_init`` runs (or one per partition of ``starts``, or one from
    ``previous``), the run of highest final mean observed-data log-likelihood kept."""
    reference = observed_mean(X, w)
    total = X.shape[0] if w is None else float(w.sum())
    best = None
    for r in range(n_init):
        if previous is not None:
            start, bound = continued(previous, covariance, reference), previous.lower_bound_
        else:
            labels = None if starts is None else starts[r]
            start = _initial(X, w, K, covariance, reg, rs, inits, reference, labels)
            bound = -np.inf
        steps = em_steps(start, total, reg, max_iter, tol, bound)
        try:
            model = next(steps)
            while True:
                model = steps.send(missing_pass(model, X, w))
        except StopIteration as done:
            model = done.value
        best = better(best, model, max_iter)
    return best
