"""EM over the row blocks of a Dask collection: :func:`fit_mixture_blocks`.

Each iteration runs the E step and the M step's statistics of every block as one task
(:func:`~bayesrule.likelihoods.em._pass_rows`, the in-memory pass), merges the
statistics in a tree, and derives the parameters on the caller's side; the new
parameters go to the blocks with the next iteration's tasks. The updates, stopping rule
and choice among restarts are :func:`~bayesrule.likelihoods.em.fit_mixture`'s, so from
the same start the result equals the in-memory fit up to the order of floating-point
sums. Without initial parameters, the k-means start sees the first ``sample_rows`` rows
(the in-memory fit sees all of them).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ..stats import merge
from .covariance import get_structure
from .em import (
    _initial,
    _pass_rows,
    check_covariance,
    check_int,
    check_real,
    iterate,
    warn_unconverged,
)
from .mixture_model import check_inits


def _tree(parts, combine):
    import dask

    parts = list(parts)
    while len(parts) > 1:
        parts = [
            dask.delayed(combine)(*parts[i : i + 2]) if i + 1 < len(parts) else parts[i]
            for i in range(0, len(parts), 2)
        ]
    return parts[0].compute()


def _add(a, b):
    if a is None or b is None:
        return b if a is None else a
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _merge_pass(a, b):
    if a is None or b is None:
        return b if a is None else a
    return merge(a[0], b[0]), a[1] + b[1]


def _sums(part):
    X, w = part
    if X.shape[0] == 0:
        return None
    w = np.ones(X.shape[0]) if w is None else w
    return X.shape[0], float(w.sum()), w @ X


def _block_pass(model, part, kind):
    X, w = part
    if X.shape[0] == 0:
        return None
    resp = np.empty((model.n_components, X.shape[0]))
    with np.errstate(under="ignore"):
        return _pass_rows(model, X, w, slice(0, X.shape[0]), kind, resp)


def _log_likelihood(model, part):
    X, w = part
    if X.shape[0] == 0:
        return None
    ll = model.log_density(X)
    return (float(ll.sum() if w is None else w @ ll),)


def _head(parts, rows: int):
    """The first ``rows`` rows of the blocks, computed block by block."""
    Xs, ws = [], []
    for part in parts:
        X, w = part.compute()
        Xs.append(X)
        ws.append(np.ones(X.shape[0]) if w is None else w)
        if sum(x.shape[0] for x in Xs) >= rows:
            break
    return np.concatenate(Xs)[:rows], np.concatenate(ws)[:rows]


def fit_mixture_blocks(
    parts,
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
    sample_rows=20_000,
):
    """Fit a Gaussian mixture to rows held in blocks: ``parts`` are Dask delayed
    ``(X, w)`` pairs (``w`` None or positive weights). Returns the MixtureModel and its
    BIC on all rows."""
    K = check_int("n_components", n_components, 1)
    covariance = check_covariance(covariance)
    reg = check_real("reg_covar", reg_covar)
    max_iter = check_int("max_iter", max_iter, 0)
    tol = check_real("tol", tol)
    n_init = check_int("n_init", n_init, 1)
    import dask

    sums = _tree((dask.delayed(_sums)(p) for p in parts), _add)
    if sums is None:
        raise ValueError("no rows (with positive weight) in the blocks.")
    n, total, weighted = sums
    if n < K:
        raise ValueError(
            f"n_components={K} is more than the {n} samples (with positive weight); use "
            f"n_components <= {n}."
        )
    reference = weighted / total
    d = reference.size
    inits = check_inits(covariance, K, d, weights_init, means_init, precisions_init)
    kind = get_structure(covariance).stats_kind

    def run(model):
        return _tree((dask.delayed(_block_pass)(model, p, kind) for p in parts), _merge_pass)

    rs = check_random_state(random_state)
    given = all(v is not None for v in inits)
    head = (None, None) if given else _head(parts, max(sample_rows, K))
    best = None
    for _ in range(1 if given else n_init):
        start = _initial(*head, K, covariance, reg, rs, inits, reference)
        model = iterate(start, run, total, reg, max_iter, tol, -np.inf)
        if best is None or model.lower_bound_ > best.lower_bound_ or max_iter == 0:
            best = model
    warn_unconverged(best, max_iter, tol)
    (ll,) = _tree((dask.delayed(_log_likelihood)(best, p) for p in parts), _add)
    return best, float(-2.0 * ll + best.n_parameters() * np.log(total))
