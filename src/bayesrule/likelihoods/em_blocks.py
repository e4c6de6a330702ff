"""EM over the row blocks of a Dask collection: :func:`fit_mixtures_blocks`.

Every class's mixture (and every restart) runs in lockstep: each iteration is one pass
over the blocks, in which a block's task computes the E step and the M step's
statistics (:func:`~bayesrule.likelihoods.em._pass_rows`, the in-memory pass) of every
run still going, on that run's class rows. The statistics merge in a tree and each
run's parameters are updated on the caller's side (:func:`~bayesrule.likelihoods.em.
em_steps`, the in-memory updates and stopping rule), then go to the blocks with the next
pass. From the same start the result equals the in-memory fit up to the order of
floating-point sums. Without initial parameters, the k-means start of a class sees its
first ``sample_rows`` rows (the in-memory fit sees all of them).
"""

from __future__ import annotations

import numpy as np

from .._dask import tree
from ..stats import merge
from .covariance import get_structure
from .em import _initial, _pass_rows, better, check_enough_rows, em_steps, warn_unconverged
from .mixture_model import check_inits


def _combine(a: dict, b: dict | None = None) -> dict:
    """Per key, both blocks' results together (statistics merged, numbers added)."""
    out = dict(a or {})
    for key, value in (b or {}).items():
        if key not in out:
            out[key] = value
        elif isinstance(value[0], np.ndarray | int | float):
            out[key] = tuple(x + y for x, y in zip(out[key], value, strict=True))
        else:
            out[key] = (merge(out[key][0], value[0]), out[key][1] + value[1])
    return out


def _rows(part, c: int):
    """Class ``c``'s rows of a checked block (positive weight only, as float64) and their
    weights; no rows for an empty block (None)."""
    if part is None:
        return np.empty((0, 0)), None
    X, y, w = part
    keep = y == c
    if w is not None:
        keep &= w > 0
    return np.asarray(X[keep], dtype=np.float64), None if w is None else w[keep]


def _sums(part, n_classes):
    out = {}
    for c in range(n_classes):
        X, w = _rows(part, c)
        if X.shape[0]:
            w = np.ones(X.shape[0]) if w is None else w
            out[c] = (X.shape[0], float(w.sum()), w @ X)
    return out


def _passes(part, runs: dict):
    """The E step and M-step statistics of every run (key: (class, restart))."""
    out, rows = {}, {}
    for key, model in runs.items():
        X, w = rows[key[0]] if key[0] in rows else rows.setdefault(key[0], _rows(part, key[0]))
        if X.shape[0]:
            resp = np.empty((model.n_components, X.shape[0]))
            kind = get_structure(model.covariance).stats_kind
            out[key] = _pass_rows(model, X, w, slice(0, X.shape[0]), kind, resp)
    return out


def _log_likelihoods(part, models: dict):
    out = {}
    for c, model in models.items():
        X, w = _rows(part, c)
        if X.shape[0]:
            ll = model.log_density(X)
            out[c] = (float(ll.sum() if w is None else w @ ll),)
    return out


def _heads(parts, classes, rows: int) -> dict:
    """The first ``rows`` rows of each class in ``classes``, reading block by block."""
    import dask

    got = {c: ([], []) for c in classes}
    for part in parts:
        if (block := dask.compute(part)[0]) is None:
            continue
        X, y, w = block
        for c in classes:
            Xc, wc = _rows((X, y, w), c)
            got[c][0].append(Xc)
            got[c][1].append(np.ones(Xc.shape[0]) if wc is None else wc)
        if all(sum(x.shape[0] for x in got[c][0]) >= rows for c in classes):
            break
    return {c: (np.concatenate(X)[:rows], np.concatenate(w)[:rows]) for c, (X, w) in got.items()}


def fit_mixtures_blocks(parts, specs, *, reg_covar, max_iter, tol, n_init, rs, sample_rows=20_000):
    """Fit one mixture per class to rows held in blocks (Dask delayed ``(X, y, w)``).

    ``specs[c]`` is ``(where, K, covariance, (weights, means, precisions))`` for class c,
    ``where`` naming it in errors and warnings. Returns per class the MixtureModel and
    its BIC on all of the class's rows.
    """
    import dask

    n_classes = len(specs)
    sums = tree([dask.delayed(_sums)(p, n_classes) for p in parts], _combine)
    starts = {}
    need_head = [c for c, spec in enumerate(specs) if any(v is None for v in spec[3])]
    heads = _heads(parts, need_head, sample_rows) if need_head else {}
    for c, (where, K, covariance, inits) in enumerate(specs):
        if c not in sums:
            raise ValueError(f"{where}: the class has no samples (with positive weight).")
        n, total, weighted = sums[c]
        reference = weighted / total
        try:
            check_enough_rows(K, n)
            inits = check_inits(covariance, K, reference.size, *inits)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{where}: {exc}") from exc
        head = heads.get(c, (None, None))
        for r in range(n_init if c in heads else 1):
            key = (c, r)
            starts[key] = _initial(*head, K, covariance, reg_covar, rs, inits, reference)
    runs = {
        key: em_steps(m, sums[key[0]][1], reg_covar, max_iter, tol, -np.inf)
        for key, m in starts.items()
    }
    waiting, done = {}, {}
    for key, steps in runs.items():
        _advance(key, steps, None, waiting, done, specs)
    while waiting:
        results = tree([dask.delayed(_passes)(p, dict(waiting)) for p in parts], _combine)
        for key in list(waiting):
            del waiting[key]
            _advance(key, runs[key], results[key], waiting, done, specs)
    best = {}
    for (c, _), model in sorted(done.items()):
        best[c] = better(best.get(c), model, max_iter)
    for c, model in best.items():
        warn_unconverged(model, max_iter, tol, where=specs[c][0])
    lls = tree([dask.delayed(_log_likelihoods)(p, best) for p in parts], _combine)
    return [
        (best[c], float(-2.0 * lls[c][0] + best[c].n_parameters() * np.log(sums[c][1])))
        for c in range(n_classes)
    ]


def _advance(key, steps, result, waiting, done, specs):
    """Give a run its pass's result: it waits for the next pass, or it is done."""
    try:
        waiting[key] = next(steps) if result is None else steps.send(result)
    except StopIteration as finished:
        done[key] = finished.value
    except ValueError as exc:
        raise ValueError(f"{specs[key[0]][0]}: {exc}") from exc
