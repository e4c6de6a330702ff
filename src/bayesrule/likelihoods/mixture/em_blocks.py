"""EM over row blocks (a :class:`~bayesrule._blocks.Blocks`; a Dask collection's, in
practice): :func:`fit_mixtures_blocks`.

Every mixture asked for (one per class, or every candidate of every class when BIC
chooses the number of components or the structure) and every restart runs in lockstep:
each iteration is one pass over the blocks, in which a block's task computes the E step
and the M step's statistics (:func:`~bayesrule.likelihoods.mixture.em._pass_rows`, the
in-memory pass) of every run still going, on that run's class rows. The statistics merge
in a tree and each run's parameters are updated on the caller's side
(:func:`~bayesrule.likelihoods.mixture.steps.em_steps`, the in-memory updates and
stopping rule), then go to the blocks with the next pass. From the same start the result equals the
in-memory fit up to the order of floating-point sums. Without initial parameters, the
k-means start of a class sees its first ``sample_rows`` rows (the in-memory fit sees all
of them); the starts are drawn from the random state in the in-memory order (class by
class, k by k, restart by restart, shared by the structures of a class and k), so a class
with at most ``sample_rows`` rows starts where it does in memory. A spec may also start
from a previous fit (``warm_start``): one run from its parameters, with its last lower
bound as the stopping rule's previous value, as
:func:`~bayesrule.likelihoods.mixture.em.fit_mixture` does with ``previous``.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ...stats.moments import merge
from ..covariance import get_structure
from .checks import _check_previous, check_enough_rows, check_inits
from .em import (
    _initial,
    _pass_rows,
    better,
    continued,
    em_steps,
    warn_unconverged,
)
from .model import MixtureModel
from .starts import draw_starts


class Fitted(NamedTuple):
    """One spec's result: its model (None when it failed and errors="keep"), its BIC on
    all of the class's rows, the warnings to show if it is used (message, category)
    and the error that stopped it."""

    model: MixtureModel | None
    bic: float
    warnings: list
    error: Exception | None = None


class Distinct:
    """At most ``cap`` distinct rows of a class (as bytes, -0.0 read as 0.0); the union
    of two keeps ``min(number of distinct rows, cap)`` exact, so blocks merge in a tree."""

    def __init__(self, rows: np.ndarray, cap: int):
        self.rows, self.cap = np.unique(rows)[:cap], cap

    @classmethod
    def of(cls, X: np.ndarray, cap: int) -> Distinct:
        X = np.ascontiguousarray(X + 0.0)
        return cls(X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel(), cap)

    def __add__(self, other: Distinct) -> Distinct:
        return Distinct(np.concatenate([self.rows, other.rows]), self.cap)

    def __len__(self) -> int:
        return self.rows.shape[0]


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
    weights."""
    X, y, w = part
    keep = y == c
    if w is not None:
        keep &= w > 0
    return np.asarray(X[keep], dtype=np.float64), None if w is None else w[keep]


def _sums(part, n_classes, components=0):
    if np.isnan(part[0]).any():
        raise ValueError(
            "X contains missing values (NaN), which EM over the blocks of a Dask "
            "collection does not handle; compute the collection and fit in memory (EM "
            "then runs over the missing coordinates too), or impute them first."
        )
    out = {}
    for c in range(n_classes):
        X, w = _rows(part, c)
        if X.shape[0]:
            w = np.ones(X.shape[0]) if w is None else w
            out[c] = (X.shape[0], float(w.sum()), w @ X)
            if components:
                out[c] += (Distinct.of(X, components * (X.shape[1] + 1)),)
    return out


def class_sums(blocks, n_classes: int, components: int = 0) -> dict:
    """One pass over the blocks: per class with rows of positive weight, ``(rows, total
    weight, weighted sum of X)`` and, with ``components`` K, its :class:`Distinct` rows up
    to ``K (d + 1)`` (enough to tell whether a mixture of K or fewer components, of any
    structure, has the distinct samples it needs)."""
    return blocks.map_reduce(_sums, _combine, n_classes, components) or {}


def _passes(part, runs: dict):
    """The E step and M-step statistics of every run (key: (class, spec, restart))."""
    out, rows = {}, {}
    for key, model in runs.items():
        X, w = rows[key[0]] if key[0] in rows else rows.setdefault(key[0], _rows(part, key[0]))
        if X.shape[0]:
            resp = np.empty((model.n_components, X.shape[0]))
            kind = get_structure(model.covariance).stats_kind
            out[key] = _pass_rows(model, X, w, slice(0, X.shape[0]), kind, resp)
    return out


def _log_likelihoods(part, models: dict):
    """``sum w ln p(x)`` of every model (key: (class, spec)) on its class's rows."""
    out, rows = {}, {}
    for key, model in models.items():
        X, w = rows[key[0]] if key[0] in rows else rows.setdefault(key[0], _rows(part, key[0]))
        if X.shape[0]:
            ll = model.log_density(X)
            out[key] = (float(ll.sum() if w is None else w @ ll),)
    return out


def _heads(blocks, classes, rows: int) -> dict:
    """The first ``rows`` rows of each class in ``classes``, reading block by block."""
    got = {c: ([], []) for c in classes}
    for X, y, w in blocks:
        for c in classes:
            Xc, wc = _rows((X, y, w), c)
            got[c][0].append(Xc)
            got[c][1].append(np.ones(Xc.shape[0]) if wc is None else wc)
        if all(sum(x.shape[0] for x in got[c][0]) >= rows for c in classes):
            break
    return {c: (np.concatenate(X)[:rows], np.concatenate(w)[:rows]) for c, (X, w) in got.items()}


def fit_mixtures_blocks(
    blocks,
    specs,
    *,
    reg_covar,
    max_iter,
    tol,
    n_init,
    rs,
    sample_rows=20_000,
    sums=None,
    errors="raise",
    plan=None,
    dedupe=False,
    init="kmeans",
) -> list[Fitted]:
    """Fit mixtures to the rows of classes held in ``blocks`` (a Blocks of ``(X, y, w)``).

    ``specs[i]`` is ``(c, where, K, covariance, (weights, means, precisions))``: a
    mixture of class c (several specs may share a class), ``where`` naming it in errors
    and warnings; an optional sixth item, a :class:`MixtureModel` of the same structure,
    K and features (or None), is a warm start: one run from its parameters (the given
    initial ones are checked, then unused) whose first change is measured from its
    ``lower_bound_``, as ``fit_mixture(previous=...)``. The k-means starts are drawn from
    ``rs`` per (class, k), ``n_init`` of them, for the specs that neither start warm nor
    have all their initial parameters given. ``sums``: :func:`class_sums` of the blocks,
    if already computed.
    ``plan``: per class, the k whose k-means starts are drawn, as the in-memory fit draws
    them (:func:`~bayesrule.likelihoods.mixture.search.draw_starts`: class by class, k by
    k, ``n_init`` each, ``dedupe`` dropping repeated partitions; ``init="hc"``: one
    partition per k from mclust's agglomerative tree); the specs of a class
    and k share them (default: every k of a spec that needs a start).
    ``errors="raise"`` raises the first ValueError of a spec (naming it);
    ``errors="keep"`` stops only that spec and returns the error in its result.

    Returns per spec a :class:`Fitted`: the best restart and its BIC on all of the
    class's rows; its warnings are returned, not shown.
    """
    if errors not in ("raise", "keep"):
        raise ValueError(f"errors must be 'raise' or 'keep', got {errors!r}")
    n_classes = 1 + max((spec[0] for spec in specs), default=-1)
    if sums is None:
        sums = class_sums(blocks, n_classes)
    if plan is None:
        plan = {}
        for spec in specs:
            if _warm(spec) is None and any(v is None for v in spec[4]):
                plan.setdefault(spec[0], set()).add(spec[2])
        plan = {c: sorted(ks) for c, ks in plan.items()}
    heads = _heads(blocks, sorted(c for c, ks in plan.items() if ks), sample_rows)
    drawn = {
        c: draw_starts(*heads[c], plan[c], n_init, rs, dedupe, init=init) for c in sorted(heads)
    }
    starts, failed, caught = {}, {}, {i: [] for i in range(len(specs))}
    bounds = {}  # a warm start's previous lower bound (else -inf)
    for i, spec in enumerate(specs):
        c, where, K, covariance, inits = spec[:5]
        previous = _warm(spec)
        try:
            if c not in sums:
                raise ValueError("the class has no samples (with positive weight).")
            reference = sums[c][2] / sums[c][1]
            check_enough_rows(K, sums[c][0])
            inits = check_inits(covariance, K, reference.size, *inits)
            if previous is not None:  # fit_mixture's warm start: one run, no draw
                _check_previous(previous, covariance, K, reference.size)
                starts[c, i, 0] = continued(previous, covariance, reference)
                bounds[c, i, 0] = previous.lower_bound_
                continue
            complete = all(v is not None for v in inits)
            partitions = [None] if complete else drawn[c][K]
            head = heads.get(c, (None, None))
            for r, labels in enumerate(partitions):
                with warnings.catch_warnings(record=True) as seen:
                    warnings.simplefilter("always")
                    start = _initial(*head, K, covariance, reg_covar, rs, inits, reference, labels)
                starts[c, i, r] = start
                caught[i] += [(f"{where}: {item.message}", item.category) for item in seen]
        except (ValueError, TypeError) as exc:
            error = type(exc)(f"{where}: {exc}")
            if errors == "raise" or isinstance(exc, TypeError):
                raise error from exc
            failed[i] = error
            for r in range(max(n_init, len(drawn.get(c, {}).get(K, [])))):
                starts.pop((c, i, r), None)
    runs = {
        key: em_steps(m, sums[key[0]][1], reg_covar, max_iter, tol, bounds.get(key, -np.inf))
        for key, m in starts.items()
    }
    waiting, done = {}, {}
    for key, steps in runs.items():
        _advance(key, steps, None, waiting, done, specs, failed, errors)
    while waiting:
        results = blocks.map_reduce(_passes, _combine, dict(waiting))
        for key in list(waiting):
            if key in waiting:  # not dropped with a failed restart of its spec
                del waiting[key]
                _advance(key, runs[key], results[key], waiting, done, specs, failed, errors)
    best = {}
    for (c, i, _), model in sorted(done.items()):
        if i not in failed:
            best[c, i] = better(best.get((c, i)), model, max_iter)
    for (_, i), model in best.items():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            warn_unconverged(model, max_iter, tol, where=specs[i][1])
        caught[i] += [(str(item.message), item.category) for item in seen]
    lls = blocks.map_reduce(_log_likelihoods, _combine, best) if best else {}
    out = []
    for i, spec in enumerate(specs):
        if i in failed:
            out.append(Fitted(None, float("nan"), [], failed[i]))
            continue
        model, total = best[spec[0], i], sums[spec[0]][1]
        bic = float(-2.0 * lls[spec[0], i][0] + model.n_parameters() * np.log(total))
        out.append(Fitted(model, bic, caught[i]))
    return out


def _warm(spec) -> MixtureModel | None:
    """A spec's warm start (its optional sixth item), or None."""
    return spec[5] if len(spec) > 5 else None


def _advance(key, steps, result, waiting, done, specs, failed, errors):
    """Give a run its pass's result: it waits for the next pass, or it is done; a run
    that fails raises (errors="raise") or stops every restart of its spec."""
    try:
        waiting[key] = next(steps) if result is None else steps.send(result)
    except StopIteration as finished:
        done[key] = finished.value
    except ValueError as exc:
        error = ValueError(f"{specs[key[1]][1]}: {exc}")
        if errors == "raise":
            raise error from exc
        failed.setdefault(key[1], error)
        for other in [k for k in waiting if k[1] == key[1]]:
            del waiting[other]
