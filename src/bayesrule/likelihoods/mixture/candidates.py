"""Fitting a class's candidates in memory: :func:`fit_candidates`.

The candidates of one covariance structure that start from k-means (every k of a BIC
search and every start of each) run together in one lockstep EM
(:func:`~bayesrule.likelihoods.mixture.em_small.fit_small`) when their arrays are small;
the others (large classes, warm starts, given initial parameters) one by one through
:func:`~bayesrule.likelihoods.mixture.em.fit_mixture`. Errors and warnings name the class
and the candidate.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._engines.threads import one_blas_thread
from .checks import searched
from .em import fit_mixture, warn_unconverged
from .em_small import fit_small, is_small
from .search import warm_of, where


def fit_candidates(mixture, c, Xc, wc, pairs, starts, options, previous) -> list:
    """Every candidate of class c: ``(pair, model or None, BIC, warnings, error)``.
    The candidates of one structure that start from k-means go together, all their
    k and starts in one lockstep EM when small enough (:func:`fit_small`)."""
    choosing = isinstance(mixture.n_components, str) or searched(mixture.covariance) is not None
    together = {}  # (rows with missing values go one by one, through fit_mixture)
    if not any(v is not None for v in options.values()) and not np.isnan(Xc).any():
        for structure, k in pairs:
            if warm_of(previous, c, structure, k) is None:
                together.setdefault(structure, []).append(k)
    fitted = {}
    n, d = Xc.shape
    for structure, ks in together.items():
        if not is_small(n, max(ks), d, sum(len(starts[k]) for k in ks)):
            continue
        reference = np.average(Xc, axis=0, weights=wc)
        jobs = [(k, starts[k]) for k in ks]
        with one_blas_thread():
            models = fit_small(
                Xc, wc, structure, mixture.reg_covar, mixture.max_iter, mixture.tol, jobs, reference
            )
        fitted.update({(structure, k): m for k, m in zip(ks, models, strict=True)})
    results = []
    for structure, k in pairs:
        try:
            if (structure, k) in fitted:
                model, caught = _finish_one(mixture, c, structure, k, fitted[structure, k])
            else:
                prev = warm_of(previous, c, structure, k)
                model, caught = _fit_one(
                    mixture, c, Xc, wc, structure, k, starts.get(k), options, prev
                )
        except ValueError as exc:
            if not choosing:
                raise
            results.append(((structure, k), None, np.nan, [], exc))  # BIC cannot use it
            continue
        results.append(((structure, k), model, model.bic(Xc, wc), caught, None))
    return results


def _finish_one(mixture, c, structure, k, model):
    """A candidate fitted with others: its error, or it and its warnings, named."""
    named = where(c, k, structure)
    if isinstance(model, Exception):
        raise type(model)(f"{named}: {model}") from model
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_unconverged(model, mixture.max_iter, mixture.tol)
    return model, [(f"{named}: {item.message}", item.category) for item in caught]


def _fit_one(mixture, c, Xc, wc, structure, k, starts, options, previous):
    """One candidate from the k-means partitions ``starts`` (None: no k-means start
    needed), and its warnings (message, category); errors and warnings name the
    class and the candidate."""
    named = where(c, k, structure)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = fit_mixture(
                Xc,
                wc,
                k,
                covariance=structure,
                reg_covar=mixture.reg_covar,
                max_iter=mixture.max_iter,
                tol=mixture.tol,
                n_init=1,
                previous=previous,
                starts=starts,
                **options,
            )
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{named}: {exc}") from exc
    return model, [(f"{named}: {item.message}", item.category) for item in caught]
