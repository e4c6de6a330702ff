"""Class covariances estimated from the rows themselves: a scikit-learn covariance
estimator (``covariance_estimator=``) or Ledoit-Wolf (``shrinkage="auto"``).

Any object with ``fit(X)`` and a fitted ``covariance_`` (``sklearn.covariance``'s
``LedoitWolf``, ``OAS``, ``ShrunkCovariance``, ``MinCovDet``, ``GraphicalLasso``, ...)
estimates each class's covariance from the class's rows (``clone(estimator).fit(X_c)``);
the tied structure pools them with weights ``n_c / n`` (scikit-learn's
``LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=...)`` with its default
priors), the full one keeps one per class. The estimator sees the rows, so ``fit`` needs
the data in memory (not ``partial_fit`` or a Dask collection), without sample weights
or missing values; the class moments are kept for the means and for ``summary``. It
replaces the ML estimate and excludes the family's other estimates (``shrinkage``,
``pooling``, ``estimate="map"``/``"predictive"``); ``reg_covar`` is still applied to
what it gives (the default ``"auto"`` leaves a non-singular estimate as it is).

The Gaussian family keeps the covariance the rows gave as ``row_covariance_`` (None for
the estimates from statistics alone), so that its statistics derive the same parameters
again (a loaded model, :mod:`~bayesrule.likelihoods.state`).

The estimators of ``sklearn.covariance`` (:data:`SKLEARN_ESTIMATORS`) are registered with
:mod:`bayesrule.io`, so a model holding one saves and loads (as its parameters, never a
pickle).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from .._text import class_name
from ..stats.moments import ClassMoments, class_moments
from . import edda
from .ledoit_wolf import ledoit_wolf_fit
from .regularisation import check_counts

#: the estimators of ``sklearn.covariance`` a saved model may name
SKLEARN_ESTIMATORS = (
    "EllipticEnvelope",
    "EmpiricalCovariance",
    "GraphicalLasso",
    "GraphicalLassoCV",
    "LedoitWolf",
    "MinCovDet",
    "OAS",
    "ShrunkCovariance",
)

_IN_MEMORY = "use fit with the data in memory"


def check_estimator(estimator) -> None:
    """TypeError unless ``estimator`` looks like a covariance estimator (an instance
    with ``fit`` and ``get_params``, which ``clone`` copies)."""
    if (
        isinstance(estimator, type)
        or not callable(getattr(estimator, "fit", None))
        or not hasattr(estimator, "get_params")
    ):
        raise TypeError(
            "covariance_estimator must be a scikit-learn covariance estimator (an object "
            "with fit(X) and a fitted covariance_, e.g. sklearn.covariance.OAS(), an "
            f"instance), got {estimator!r}"
        )


def refuse_weights(sample_weight) -> None:
    """ValueError for sample weights (a covariance estimator takes rows only)."""
    if sample_weight is not None:
        raise ValueError(
            "covariance_estimator takes no sample_weight: scikit-learn's covariance "
            "estimators fit rows, not weights (nor unlabelled rows, which EM fits with "
            "posterior weights); drop sample_weight (label or drop the unlabelled rows), "
            "or leave covariance_estimator=None."
        )


def check(like, structure) -> None:
    """The Gaussian family ``like``'s ``covariance_estimator`` checked with its other
    parameters (TypeError for a non-estimator, ValueError for a combination)."""
    estimator = like.covariance_estimator
    if estimator is None:
        return
    check_estimator(estimator)
    if edda.choosing(like.covariance) or structure.name not in ("full", "tied"):
        raise ValueError(
            f"covariance_estimator applies to the 'full' and 'tied' covariances only "
            f"(QuadraticDiscriminant, LinearDiscriminant), not covariance={like.covariance!r}."
        )
    given = {
        "shrinkage": (like.shrinkage, None),
        "pooling": (getattr(like, "pooling", 0.0), 0.0),
        "estimate": (getattr(like, "estimate", "ml"), "ml"),
    }
    for name, (value, default) in given.items():
        if value is not None and value != default:
            raise ValueError(
                f"covariance_estimator={estimator!r} and {name}={value!r} both set the "
                f"covariance; pick one: {name}={default!r} to use the estimator, or "
                "covariance_estimator=None."
            )


def from_rows(like) -> bool:
    """Whether the Gaussian ``like`` estimates its covariance from the rows themselves
    (Ledoit-Wolf or a covariance estimator), not from its statistics alone."""
    return like.shrinkage == "auto" or like.covariance_estimator is not None


def blockwise_reason(like) -> str | None:
    """Why ``like`` cannot merge the statistics of row blocks (None when it can)."""
    if like.covariance_estimator is not None:
        return "covariance_estimator fits each class's rows at once"
    if like.shrinkage == "auto":  # not refused: fit_blocks makes a second pass
        return "shrinkage='auto' (Ledoit-Wolf) needs a second pass over the data"
    return None


def refuse_streaming(like, where: str) -> None:
    """ValueError where a covariance estimator would have to fit rows it cannot see
    at once (``where``: partial_fit, a Dask collection)."""
    if like.covariance_estimator is not None:
        raise ValueError(
            f"covariance_estimator={like.covariance_estimator!r} fits each class's rows "
            f"all at once, which {where} does not give it; {_IN_MEMORY} (or leave "
            "covariance_estimator=None)."
        )


def fit(like, X, y, n_classes, sample_weight) -> tuple[ClassMoments, np.ndarray]:
    """The statistics and the covariance (native shape) of the Gaussian ``like`` whose
    covariance comes from the rows (:func:`from_rows`), fitted on data in memory."""
    if like.covariance_estimator is None:  # shrinkage="auto"
        return ledoit_wolf_fit(X, y, n_classes, sample_weight, check_counts)
    refuse_weights(sample_weight)
    if np.isnan(X).any():
        raise ValueError(
            "X contains NaN (missing values), which covariance_estimator cannot fit; "
            "impute them, drop the rows, or leave covariance_estimator=None (the "
            "maximum-likelihood fit takes them)."
        )
    return estimated(like.covariance_estimator, X, y, n_classes, tied=like.structure_.tied)


def kept(like, covariance):
    """The covariance the rows gave (``covariance``; kept as ``like.row_covariance_``),
    or, when the statistics alone derive the parameters again of a Gaussian that
    estimates from rows, the one kept (None: derived from the statistics)."""
    if covariance is None and from_rows(like):
        covariance = getattr(like, "row_covariance_", None)
    like.row_covariance_ = covariance
    return covariance


def estimated(estimator, X, y, n_classes, *, tied: bool) -> tuple[ClassMoments, np.ndarray]:
    """The class moments (tied or full) of ``X`` and the covariance ``estimator`` gives:
    one per class (C, d, d), or pooled with weights ``n_c / n`` (d, d) when ``tied``."""
    check_estimator(estimator)
    stats = class_moments(X, y, n_classes, None, kind="tied" if tied else "full")
    check_counts(stats)
    d = X.shape[1]
    covariances = np.empty((n_classes, d, d))
    for c in range(n_classes):
        rows = X[y == c]
        fitted = clone(estimator).fit(rows)
        cov = np.asarray(getattr(fitted, "covariance_", None), dtype=np.float64)
        if cov.shape != (d, d) or not np.isfinite(cov).all():
            raise ValueError(
                f"covariance_estimator {estimator!r} gave no finite ({d}, {d}) covariance_ "
                f"for {class_name(c)} ({rows.shape[0]} rows)."
            )
        covariances[c] = cov
    if not tied:
        return stats, covariances
    weights = stats.count / stats.count.sum()
    return stats, np.einsum("c,cjk->jk", weights, covariances)
