"""EM for the mixture of a small class, in one piece and all starts at once:
:func:`fit_small` and :func:`iterate_small`.

The blocked passes of :mod:`~bayesrule.likelihoods.mixture.em` keep their temporaries in
cache and share rows between threads, which pays on large classes; on a class of a few
hundred rows their fixed cost per iteration (blocks, buffers, statistics objects, a
factorisation per component) is most of an iteration, and a BIC search runs thousands of
them. Here, where the S x K x n x d temporaries of S runs are small (:func:`is_small`),
the runs of several candidates of one structure (every k and every k-means start of a
BIC search) go in lockstep, an iteration being a handful of whole-array operations for
all of them: the E step on all rows, components and runs at once, the M step's scatter
about each component's own mean (exact centring, as the blocked path's second pass), and
one batched Cholesky factorisation. The covariances of the six structures of
:mod:`~bayesrule.likelihoods.covariance` (mclust's EII, VII, EEI, VVI, EEE, VVV) are
batched too; mclust's eight other models take theirs run by run from the structure's
estimate (on the components each run has). Mixtures of fewer components than the
largest are padded with components of weight 0, which change nothing. A run that has
converged stops changing while the others go on; a run that fails stops the runs of its
candidate only. The updates, the responsibilities' floor, the lower bound, the stopping
rule and the choice among the starts are those of
:func:`~bayesrule.likelihoods.mixture.steps.em_steps` and
:func:`~bayesrule.likelihoods.mixture.em.fit_mixture`; the results agree with the blocked
path to rounding (``tests/likelihoods/test_mixture_em.py``).
"""

from __future__ import annotations

import numpy as np

from ...stats.moments import ClassMoments
from ..covariance import Parametrised, get_structure
from .map_step import map_means, pseudo_statistics
from .model import LOG_2PI, MixtureModel, precisions_cholesky

#: added to every component's total responsibility, as scikit-learn does: an empty
#: component keeps a finite mean and the covariance ``reg_covar * I``.
COUNT_EPS = 10 * np.finfo(np.float64).eps

#: responsibilities are kept above exp(LOG_TINY_RESP) / K (about 1e-200): smaller ones
#: change nothing, but their products would be denormal numbers, which make the M step's
#: matrix products several times slower.
LOG_TINY_RESP = -460.0

NOT_FINITE = (
    "the mixture's log-likelihood is not finite (samples so far from every component "
    "that their densities underflow); standardise the features."
)

#: runs are "small" when their S x K x n x (d + 1) temporaries hold at most this many
#: numbers
SMALL_CELLS = 1 << 18


def is_small(n_rows: int, n_components: int, n_features: int, n_runs: int = 1) -> bool:
    """Whether ``n_runs`` EM runs on ``n_rows`` rows go in one piece."""
    return n_runs * n_rows * n_components * (n_features + 1) <= SMALL_CELLS


def _precisions(covariance: str, cov: np.ndarray, reg: float):
    """Upper Cholesky factors of the precisions of S runs' covariances (S, ...) at once,
    and ``{run: ValueError}`` of the runs whose covariances have none (where a
    factorisation fails, or ``reg == 0`` asks for its checks, the checked
    :func:`~bayesrule.likelihoods.mixture.model.precisions_cholesky` runs run by run and
    gives them and their message)."""
    if reg > 0:
        if not get_structure(covariance).dense:
            if (cov > 0).all():
                return 1.0 / np.sqrt(cov), {}
        else:
            try:  # L^-1 is lower triangular: its transpose is the upper factor U = L^-T
                return np.linalg.inv(np.linalg.cholesky(cov)).swapaxes(-1, -2), {}
            except np.linalg.LinAlgError:
                pass
    factors, errors = np.ones_like(cov), {}
    for s, c in enumerate(cov):
        try:
            factors[s] = precisions_cholesky(covariance, c, reg)
        except ValueError as exc:
            errors[s] = exc
    return factors, errors


def _log_prob(Xc, weights, means, U, structure) -> np.ndarray:
    """``ln w_k + ln N(x; mu_k, Sigma_k)`` of centred rows for S runs, shape (S, K, n)."""
    d = Xc.shape[1]
    if structure.dense:
        if structure.tied:  # U (S, d, d)
            Z = (Xc @ U)[:, None] - (means @ U)[:, :, None, :]
        else:  # U (S, K, d, d)
            Z = Xc @ U - means[..., None, :] @ U
        log_det = np.log(np.diagonal(U, axis1=-2, axis2=-1)).sum(axis=-1)
        if structure.tied:
            log_det = log_det[:, None]
    else:  # scales (S, K or 1, 1 or d): one per component or shared, per feature or not
        S = U.shape[0]
        scale = np.reshape(
            U, (S, 1 if structure.tied else -1, 1 if structure.form == "spherical" else d)
        )
        Z = (Xc - means[..., None, :]) * scale[:, :, None, :]
        log_det = np.log(scale).sum(axis=-1) * (d if scale.shape[-1] == 1 else 1)
    with np.errstate(divide="ignore"):  # a zero weight: -inf, the component is off
        const = np.log(weights) + log_det - 0.5 * d * LOG_2PI
    out = np.einsum("...nd,...nd->...n", Z, Z)
    out *= -0.5
    out += const[..., None]
    return out


def _m_step(Xc, R, structure, reg, on, prior=None):
    """Weights (S, K), means (S, K, d; centred coordinates) and covariances of S runs
    from responsibilities ``R`` (S, K, n), the sample weights included (the
    :class:`~bayesrule.likelihoods.covariance.Structure` estimates, batched), and
    ``{run: ValueError}`` of the runs whose covariances have no estimate (their
    covariances are then placeholders). ``on`` (S, K): the components each run has
    (the others are padding, of weight 0). ``prior``: a MapPrior in the centred
    coordinates makes it the MAP step (:mod:`~bayesrule.likelihoods.mixture.map_step`)."""
    raw = R.sum(axis=-1)
    count = raw + COUNT_EPS
    first = R @ Xc
    mean = first / np.where(raw > 0, raw, 1.0)[..., None]  # 0 where no weight
    diff = Xc - mean[..., None, :]  # (S, K, n, d): exact centring about each mean
    weighted = diff * R[..., None]
    counted = np.where(on, count, 0.0)
    if structure.dense:
        scatter = weighted.swapaxes(-1, -2) @ diff
        scatter = 0.5 * (scatter + scatter.swapaxes(-1, -2))
    else:
        scatter = np.einsum("...nd,...nd->...d", weighted, diff)
    if prior is not None:  # the ML step of the pseudo-statistics, MAP means, n_k / n
        kind = "full" if structure.dense else "diag"
        pseudo, scatter = pseudo_statistics(prior, raw, mean, scatter, kind, on)
        count = np.where(on, pseudo, 1.0)  # (padding's placeholder covariance aside)
        cov, errors = _covariances(structure, count, pseudo, mean, scatter, on)
        cov = structure.add_to_diagonal(cov, reg)
        weights = np.where(on, raw, 0.0)
        weights = weights / weights.sum(axis=-1, keepdims=True)
        return [weights, map_means(prior, raw, mean), cov], errors
    cov, errors = _covariances(structure, count, counted, mean, scatter, on)
    cov = structure.add_to_diagonal(cov, reg)
    return [counted / counted.sum(axis=-1, keepdims=True), first / count[..., None], cov], errors


def _covariances(structure, count, counted, mean, scatter, on):
    """The covariances of S runs (S, native shape) from their components' counts (S, K;
    ``counted``: 0 for padding), means and centred scatters (S, K, d, d) or (S, K, d),
    and ``{run: ValueError}`` (see :func:`_m_step`). scikit-learn's four and mclust's
    tied diagonal models are batched; mclust's other eight go run by run through the
    structure's estimate, on the components each run has."""
    pad = np.eye(scatter.shape[-1]) if structure.dense else 1.0  # any positive definite
    errors = {}
    if isinstance(structure, Parametrised):
        cov = np.empty_like(scatter)
        for s, keep in enumerate(on):
            stats = ClassMoments(
                count[s, keep], mean[s, keep], scatter[s, keep], structure.stats_kind
            )
            try:
                cov[s, keep] = structure.estimate(stats)
            except ValueError as exc:
                errors[s] = exc
                cov[s, keep] = pad
        cov[~on] = pad
        return cov, errors
    if structure.form == "spherical":
        scatter = scatter.mean(axis=-1)  # trace / d per component
    if structure.tied:  # pooled over the components a run has (padding has no scatter)
        total = counted.sum(axis=-1)
        return scatter.sum(axis=1) / total.reshape(-1, *[1] * (scatter.ndim - 2)), errors
    cov = scatter / count.reshape(*count.shape, *[1] * (scatter.ndim - 2))
    cov[~on] = pad
    return cov, errors


def _runs(Xc, w, params, U, on, job, covariance, reg, max_iter, tol, bound, prior=None):
    """EM of S runs in lockstep (``params``: weights, means and covariances stacked on a
    first axis, updated in place, as the factors ``U``; ``on``: see :func:`_m_step`).
    ``job[s]``: the job (candidate) of run s; a run that fails stops every run of its
    job. Returns each run's lower bounds, whether it converged, and ``{job: error}``.
    The runs still going are kept together (a run that stops leaves its parameters in
    ``params`` and the working arrays shrink)."""
    structure = get_structure(covariance)
    total = Xc.shape[0] if w is None else w.sum()
    S = U.shape[0]
    bounds = [[] for _ in range(S)]
    converged = np.zeros(S, dtype=bool)
    stores = [*params, U]
    work = [np.array(a) for a in stores]  # weights, means, covariances, factors
    last = np.full(S, bound, dtype=float)
    going, failed = np.arange(S), {}

    def leave(stop: np.ndarray):
        """The runs ``going[stop]`` stop: their parameters go back to the stores."""
        nonlocal going, work, last
        for store, value in zip(stores, work, strict=True):
            store[going[stop]] = value[stop]
        going, last = going[~stop], last[~stop]
        work = [value[~stop] for value in work]

    def fail(bad: np.ndarray, error) -> np.ndarray:
        """Fail the jobs of the runs ``going[bad]``; the mask of the runs of those jobs."""
        for j in np.unique(job[going[bad]]).tolist():
            failed.setdefault(j, error)
        return np.isin(job[going], list(failed))

    for _ in range(max_iter):
        weights, means, _, factors = work
        with np.errstate(under="ignore", over="ignore", invalid="ignore", divide="ignore"):
            log_prob = _log_prob(Xc, weights, means, factors, structure)
            norm = log_prob.max(axis=1, keepdims=True)
            log_prob -= norm
            np.maximum(log_prob, LOG_TINY_RESP, out=log_prob)  # no denormals below
            resp = np.exp(log_prob, out=log_prob)
            mass = resp.sum(axis=1, keepdims=True)
            resp /= mass
            rows_ll = np.log(mass[:, 0]) + norm[:, 0]  # (runs, n)
            new = (rows_ll.sum(axis=1) if w is None else rows_ll @ w) / total
        bad = ~np.isfinite(new)
        if bad.any():
            out = fail(bad, ValueError(NOT_FINITE))
            resp, new = resp[~out], new[~out]
            leave(out)
            if going.size == 0:
                break
        if w is not None:
            resp *= w
        update, estimated = _m_step(Xc, resp, structure, reg, on[going], prior)
        factors, errors = _precisions(covariance, update[2], reg)
        errors.update(estimated)
        if errors:
            out = fail(np.isin(np.arange(going.size), list(errors)), errors[min(errors)])
            update, factors, new = [u[~out] for u in update], factors[~out], new[~out]
            leave(out)
        work = [*update, factors]
        for s, value in zip(going.tolist(), new.tolist(), strict=True):
            bounds[s].append(value)
        change, last = new - last, new
        stop = np.abs(change) < tol
        converged[going[stop]] = True
        if stop.any():
            leave(stop)
        if going.size == 0:
            break
    leave(np.ones(going.size, dtype=bool))
    return bounds, converged, failed


def _model(covariance, params, s, K, reference, reg, bounds, converged, max_iter):
    """Run s's fitted model, its first K components (its factors from the checked
    factorisation)."""
    weights, means, cov = (p[s] for p in params)
    if not get_structure(covariance).tied:
        cov = cov[:K]
    weights, means = weights[:K], means[:K]
    U = precisions_cholesky(covariance, cov, reg)
    model = MixtureModel(covariance, weights, means + reference, cov, U, reference)
    model.n_iter_, model.converged_ = len(bounds[s]), bool(converged[s])
    model.lower_bound_ = bounds[s][-1] if max_iter > 0 else -np.inf
    model.lower_bounds_ = bounds[s]
    return model


def fit_small(X, w, covariance, reg, max_iter, tol, jobs, reference, prior=None) -> list:
    """EM from k-means partitions, every run of every job at once.

    ``jobs``: ``(K, partitions)`` pairs, the partitions labels 0 .. K-1 of the rows of
    ``X``; ``prior``: a resolved MapPrior (one job then: its hyperparameters depend on
    K) for MAP EM. Returns per job the run of highest final lower bound (the first of equal
    ones; with ``max_iter=0``, the last start), as
    :func:`~bayesrule.likelihoods.mixture.em.fit_mixture` keeps it, or the ValueError
    that stopped one of its runs.
    """
    structure = get_structure(covariance)
    Xc = X - reference
    largest = max(K for K, _ in jobs)
    labels = np.stack([np.asarray(p, dtype=np.int64) for _, starts in jobs for p in starts])
    job = np.repeat(np.arange(len(jobs)), [len(starts) for _, starts in jobs])
    on = np.arange(largest) < np.array([K for K, _ in jobs])[job][:, None]  # (S, K)
    R = (labels[:, None, :] == np.arange(largest)[:, None]).astype(float)
    if w is not None:
        R *= w
    if prior is not None:
        prior = prior.centred(reference)
    params, estimated = _m_step(Xc, R, structure, reg, on, prior)  # the partitions' step
    U, errors = _precisions(covariance, params[2], reg)
    errors.update(estimated)
    failed = {int(job[s]): error for s, error in sorted(errors.items())}
    keep = ~np.isin(job, list(failed))
    bounds, converged = [[] for _ in job], np.zeros(job.size, dtype=bool)
    if keep.any():
        sub = [p[keep] for p in params]
        got = _runs(
            Xc, w, sub, U[keep], on[keep], job[keep], covariance, reg, max_iter, tol, -np.inf,
            prior,
        )  # fmt: skip
        for p, q in zip(params, sub, strict=True):
            p[keep] = q
        for s, b, c in zip(np.flatnonzero(keep).tolist(), got[0], got[1], strict=True):
            bounds[s], converged[s] = b, c
        failed.update(got[2])
    out = []
    for j, (K, _) in enumerate(jobs):
        if j in failed:
            out.append(failed[j])
            continue
        runs = np.flatnonzero(job == j)
        if max_iter == 0:
            best = int(runs[-1])
        else:  # argmax: the first of equal bounds
            best = int(runs[np.argmax([bounds[s][-1] for s in runs])])
        out.append(_model(covariance, params, best, K, reference, reg, bounds, converged, max_iter))
    return out


def iterate_small(model: MixtureModel, X, w, reg, max_iter, tol, bound, prior=None) -> MixtureModel:
    """EM from ``model`` on all of ``X`` at once until the lower bound changes by less
    than ``tol`` (``bound``: the previous one, -inf for a new start; ``prior``: a
    resolved MapPrior for MAP EM)."""
    if max_iter == 0:
        model.n_iter_, model.converged_ = 0, False
        model.lower_bound_, model.lower_bounds_ = -np.inf, []
        return model
    covariance, reference, K = model.covariance, model.reference_, model.n_components
    params = [
        np.array(p, dtype=float)[None]
        for p in (model.weights_, model.means_ - reference, model.covariances_)
    ]
    U = np.array(model.precisions_cholesky_, dtype=float)[None]
    on, job = np.ones((1, K), dtype=bool), np.zeros(1, dtype=int)
    centred = None if prior is None else prior.centred(reference)
    bounds, converged, failed = _runs(
        X - reference, w, params, U, on, job, covariance, reg, max_iter, tol, bound, centred
    )
    if failed:
        raise failed[0]
    return _model(covariance, params, 0, K, reference, reg, bounds, converged, max_iter)
