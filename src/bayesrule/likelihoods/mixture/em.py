"""EM for one Gaussian mixture density: :func:`fit_mixture`.

The numerics are scikit-learn's ``GaussianMixture`` (initial responsibilities from
k-means, the same updates with ``10 * eps`` added to each component's weight, the same
lower bound, stopping rule and choice among restarts), computed the bayesrule way:

* the **E step** is :class:`~bayesrule.likelihoods.mixture.model.MixtureModel`'s
  evaluation (one matrix product for all components) and a log-sum-exp;
* the **M step** is the plain Gaussian fit with the responsibilities as weights: the
  components are the "classes" of the soft moments of :mod:`bayesrule.stats`
  (:class:`~bayesrule.stats.soft_moments.SoftSums`: all K second moments from one matrix product,
  centred exactly, with a second pass for a component far from the data's mean), row
  ranges merge with :func:`~bayesrule.stats.moments.merge`, and the covariance
  :class:`~bayesrule.likelihoods.covariance.Structure` turns the statistics into
  parameters, ``reg_covar`` then added to the diagonal;
* both run in one pass over blocks of rows (temporaries that stay in cache, one
  reused set per thread), the row ranges shared by threads with BLAS single-threaded,
  responsibilities kept above about 1e-200 (denormal numbers would slow the products
  several times; such responsibilities change nothing).

Sample weights make a weighted EM: integer weights equal duplicated rows (the k-means
initialisation aside, which sees the weights but draws its seeds differently).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import numpy as np
from sklearn.utils import check_random_state

from ..._engines.threads import n_threads, one_blas_thread
from ..._validation import check_integer, check_nonnegative
from ...stats.moments import class_moments, merge
from ...stats.soft_moments import SoftSums, exact_scatter
from ..covariance import get_structure
from .checks import (
    _check_previous,
    check_covariance,
    check_data,
    check_enough_rows,
    check_inits,
)
from .em_small import LOG_TINY_RESP, fit_small, is_small, iterate_small
from .map_step import resolve_prior
from .model import (
    MixtureModel,
    centred_block,
    covariances_from_precisions,
    precisions_cholesky,
    row_block,
)
from .starts import kmeans_labels
from .steps import better, continued, em_steps, parameters, warn_unconverged

__all__ = [
    "better",
    "continued",
    "em_pass",
    "em_steps",
    "fit_mixture",
    "parameters",
    "warn_unconverged",
]

#: a pass splits its rows into ranges of PASS_ROWS (the same ranges for any number of
#: threads, which :func:`~bayesrule._engines.threads.n_threads` chooses).
PASS_ROWS = 1 << 13


# --------------------------------------------------------------------- the EM passes
class _Buffers:
    """Temporaries of one thread's blocks of ``m`` rows, reused block after block."""

    def __init__(self, m: int, K: int, d: int, kind: str):
        self.Xa = np.empty((d + 1, m))
        self.Z = np.empty((K * d, m))
        self.log_prob = np.empty((K, m))
        self.norm, self.mass = np.empty(m), np.empty(m)
        self.work = None if kind == "diag" else np.empty((K, d, m))


def _pass_rows(model: MixtureModel, X, w, rows: slice, kind: str, resp_out: np.ndarray):
    """E step and M-step statistics of ``X[rows]``: (ClassMoments, sum w ln p).

    The weighted responsibilities are also written to ``resp_out[:, rows]`` (K, n), for
    the exact second pass of a component whose moments would cancel.
    """
    with np.errstate(under="ignore", over="ignore", invalid="ignore", divide="ignore"):
        K, d = model.means_.shape
        step = row_block(K, d)
        sums = SoftSums.zeros(K, d, kind)
        buffers, total = {}, 0.0
        for start in range(rows.start, rows.stop, step):
            block = slice(start, min(start + step, rows.stop))
            m = block.stop - block.start
            buf = buffers.get(m) or buffers.setdefault(m, _Buffers(m, K, d, kind))
            Xa = centred_block(X[block], model.reference_, out=buf.Xa)
            log_prob = model._block_log_prob(Xa, Z=buf.Z, out=buf.log_prob)
            norm = np.max(log_prob, axis=0, out=buf.norm)
            log_prob -= norm
            np.maximum(log_prob, LOG_TINY_RESP, out=log_prob)  # no denormals below
            resp = np.exp(log_prob, out=log_prob)
            mass = np.sum(resp, axis=0, out=buf.mass)
            resp /= mass
            np.log(mass, out=mass)
            mass += norm  # ln p(x) of each row
            if w is None:
                total += float(mass.sum())
            else:
                total += float(mass @ w[block])
                resp *= w[block]
            resp_out[:, block] = resp
            sums.add(Xa[:d], resp, work=buf.work)

        def exact(k, mean):
            out = 0.0
            for start in range(rows.start, rows.stop, step):
                block = slice(start, min(start + step, rows.stop))
                Xt = np.subtract(X[block].T, model.reference_[:, None])
                out = out + exact_scatter(Xt, resp_out[k, block], mean, kind)
            return out

        return sums.centred(exact), total


def em_pass(model: MixtureModel, X, w, kind: str, pool=None):
    """One E step (under ``model``) and the M step's statistics over all rows of ``X``.

    Returns the merged :class:`~bayesrule.stats.moments.ClassMoments` (centred at the model's
    reference) and ``sum_i w_i ln p(x_i)``. Rows go in ranges of ``PASS_ROWS`` (to the
    threads of a pool, see :func:`thread_pool`, when there is one) whose statistics
    merge in order.
    """
    n = X.shape[0]
    resp = np.empty((model.n_components, n))
    # fixed ranges, whatever the number of threads: the same partial sums merge in the
    # same order, so results do not depend on the machine's thread count
    ranges = [slice(a, min(a + PASS_ROWS, n)) for a in range(0, n, PASS_ROWS)]
    run = lambda r: _pass_rows(model, X, w, r, kind, resp)  # noqa: E731
    # (threads start without the caller's numpy error state: each sets its own)
    results = list(pool.map(run, ranges)) if pool is not None else [run(r) for r in ranges]
    stats, total = results[0]
    for part, ll in results[1:]:
        stats, total = merge(stats, part), total + ll
    return stats, total


def thread_pool(n_rows: int):
    """An executor when the rows are worth sharing between threads, else None."""
    threads = n_threads()
    if threads <= 1 or n_rows < 2 * PASS_ROWS:
        return None
    return ThreadPoolExecutor(max_workers=threads)


# --------------------------------------------------------------------- fitting
def fit_mixture(
    X,
    sample_weight,
    n_components,
    *,
    covariance="full",
    reg_covar=1e-6,
    max_iter=200,
    tol=1e-4,
    n_init=1,
    random_state=None,
    weights_init=None,
    means_init=None,
    precisions_init=None,
    previous=None,
    starts=None,
    prior=None,
) -> MixtureModel:
    """Fit a Gaussian mixture density to ``X`` by EM (scikit-learn's numerics).

    Parameters
    ----------
    X : array-like of shape (n, d)
        NaN marks a missing value: EM then runs over the missing coordinates too
        (:mod:`~bayesrule.likelihoods.mixture.em_missing`, its start described there).
    sample_weight : array-like of shape (n,) or None
        Non-negative weights (weighted EM); None means 1 for every row.
    n_components : int
        K >= 1, at most the number of rows with positive weight.
    covariance : str, default="full"
        scikit-learn's "full", "tied", "diag" or "spherical", or one of mclust's 14
        models "EII" ... "VVV" ("E": shared by the components; see
        :data:`~bayesrule.likelihoods.mixture.model.NAMES`).
    reg_covar : float, default=1e-6
        Added to the diagonal of every covariance at each M step.
    max_iter : int, default=200
        EM iterations at most (0: the initial parameters).
    tol : float, default=1e-4
        Stop when the lower bound (mean log-likelihood) changes by less.
    n_init : int, default=1
        Initialisations (k-means with seeds from ``random_state``); the run with the
        highest final lower bound is kept.
    random_state : None, int or RandomState
    weights_init, means_init, precisions_init : array-like, optional
        Initial parameters in scikit-learn's shapes; those not given come from k-means.
    previous : MixtureModel, optional
        Start from this model instead (warm start: one run, its lower bound the start).
    starts : list of ndarray, optional
        Partitions (labels 0 .. K-1 of the rows of ``X``) to start the runs from, one
        run each, instead of ``n_init`` k-means partitions drawn here: the first M step
        is that of the partition (a BIC search shares k-means partitions between the
        covariance structures, see :func:`kmeans_labels`; mclust's
        ``me(model, X, z = unmap(labels))`` starts from a partition the same way).
    prior : None, "default", NormalInverseWishart or NormalGamma, optional
        None: maximum likelihood. Otherwise every M step is the posterior mode under
        mclust's conjugate prior (``priorControl()``), the hyperparameters left out
        filled from ``X`` and K as mclust's ``defaultPrior`` fills them
        (:mod:`~bayesrule.likelihoods.mixture.map_step`); ``reg_covar`` is still added
        (0 reproduces mclust). Not with missing values.

    Returns
    -------
    MixtureModel
        ``ConvergenceWarning`` when the kept run stopped at ``max_iter`` before ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.mixture.em import fit_mixture
    >>> X = np.array([[0.0], [0.2], [0.4], [10.0], [10.2], [10.4]])
    >>> m = fit_mixture(X, None, 2, means_init=[[0.0], [10.0]])
    >>> m.means_.ravel().round(3), m.weights_.round(3), m.n_iter_, m.converged_
    (array([ 0.2, 10.2]), array([0.5, 0.5]), 3, True)
    """
    X, w = check_data(X, sample_weight)
    K = check_integer("n_components", n_components, 1)
    covariance = check_covariance(covariance)
    reg = check_nonnegative("reg_covar", reg_covar)
    max_iter = check_integer("max_iter", max_iter, 0)
    tol = check_nonnegative("tol", tol)
    n_init = check_integer("n_init", n_init, 1)
    n, d = X.shape
    check_enough_rows(K, n)
    inits = check_inits(covariance, K, d, weights_init, means_init, precisions_init)
    if starts is not None:
        n_init = len(starts)
    if all(v is not None for v in inits):
        n_init = 1  # no k-means start: every restart would be the same run
    if previous is not None:
        _check_previous(previous, covariance, K, d)
        n_init = 1
    rs = check_random_state(random_state)
    if prior is not None and np.isnan(X).any():
        raise ValueError(
            "a prior (MAP EM) is not available with missing values (NaN); impute them "
            "first, or use prior=None (EM over the missing coordinates)."
        )
    prior = resolve_prior(prior, X, w, covariance, K)
    if np.isnan(X).any():  # EM over the missing coordinates too
        from .em_missing import fit_missing

        args = (max_iter, tol, n_init, rs, inits, previous, starts)
        with one_blas_thread():  # small solves: BLAS threads would only spin
            best = fit_missing(X, w, K, covariance, reg, *args)
        warn_unconverged(best, max_iter, tol)
        return best
    reference = np.average(X, axis=0, weights=w)
    best = None
    with ExitStack() as stack:
        pool = thread_pool(n)  # our threads share the blocks (chosen before BLAS is limited)
        stack.enter_context(one_blas_thread())
        if pool is not None:
            stack.enter_context(pool)
        if previous is None and all(v is None for v in inits) and pool is None:
            if is_small(n, K, d, n_init):  # every start at once
                if starts is None:
                    starts = [kmeans_labels(X, w, K, rs) for _ in range(n_init)]
                jobs = [(K, starts)]
                best = fit_small(X, w, covariance, reg, max_iter, tol, jobs, reference, prior)[0]
                if isinstance(best, Exception):
                    raise best
                n_init = 0
        for r in range(n_init):
            if previous is not None:
                start = continued(previous, covariance, reference)
                bound = previous.lower_bound_
            else:
                labels = None if starts is None else starts[r]
                start = _initial(X, w, K, covariance, reg, rs, inits, reference, labels, prior)
                bound = -np.inf
            model = _iterate(start, X, w, reg, max_iter, tol, bound, pool, prior)
            best = better(best, model, max_iter)
    warn_unconverged(best, max_iter, tol)
    return best


def _initial(
    X, w, K, covariance, reg, rs, inits, reference, labels=None, prior=None
) -> MixtureModel:
    """Initial model: the given parameters, the rest from k-means responsibilities
    (``labels``: a partition already drawn, else one drawn from ``rs``; with a resolved
    ``prior``, their MAP step)."""
    weights, means, U = inits
    cov = None
    if weights is None or means is None or U is None:
        if labels is None:
            labels = kmeans_labels(X, w, K, rs)
        stats = class_moments(X, labels, K, w, kind=get_structure(covariance).stats_kind)
        km_weights, km_means, cov = parameters(stats, covariance, reg, 0.0, prior)
        weights = km_weights if weights is None else weights
        means = km_means if means is None else means
    if U is None:
        U = precisions_cholesky(covariance, cov, reg)
    else:
        cov = covariances_from_precisions(covariance, U)
    return MixtureModel(covariance, weights, means, cov, U, reference)


def _iterate(model, X, w, reg, max_iter, tol, bound, pool, prior=None) -> MixtureModel:
    """EM from ``model`` until the lower bound changes by less than ``tol`` (a small
    class in one piece, :mod:`~bayesrule.likelihoods.mixture.em_small`)."""
    if pool is None and is_small(X.shape[0], *model.means_.shape):
        return iterate_small(model, X, w, reg, max_iter, tol, bound, prior)
    kind = get_structure(model.covariance).stats_kind
    total = X.shape[0] if w is None else w.sum()
    steps = em_steps(model, total, reg, max_iter, tol, bound, prior)
    try:
        model = next(steps)
        while True:
            model = steps.send(em_pass(model, X, w, kind, pool))
    except StopIteration as done:
        return done.value
