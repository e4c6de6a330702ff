"""Class covariances from a scikit-learn covariance estimator (``covariance_estimator=``).

Any object with ``fit(X)`` and a fitted ``covariance_`` (``sklearn.covariance``'s
``LedoitWolf``, ``OAS``, ``ShrunkCovariance``, ``MinCovDet``, ``GraphicalLasso``, ...)
estimates each class's covariance from the class's rows; a tied structure pools them
with weights ``n_c / n`` (scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr",
covariance_estimator=...)`` with its default priors). The estimator sees the rows
themselves, so ``fit`` needs the data in memory, without sample weights; the class
moments are kept for the means and for ``summary``.

The estimators of ``sklearn.covariance`` are registered with :mod:`bayesrule.io`, so a
model holding one saves and loads (as its parameters, never a pickle).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from .._text import class_name
from ..stats.moments import ClassMoments, class_moments

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


def check_estimator(estimator) -> None:
    """TypeError unless ``estimator`` looks like a covariance estimator (has ``fit``)."""
    if not callable(getattr(estimator, "fit", None)) or not hasattr(estimator, "get_params"):
        raise TypeError(
            "covariance_estimator must be a scikit-learn covariance estimator (an object "
            "with fit(X) and a fitted covariance_, e.g. sklearn.covariance.OAS()), got "
            f"{estimator!r}"
        )


def refuse_weights(sample_weight) -> None:
    """ValueError for sample weights (a covariance estimator takes rows only)."""
    if sample_weight is not None:
        raise ValueError(
            "covariance_estimator takes no sample_weight (scikit-learn's covariance "
            "estimators fit rows, not weights); drop sample_weight or the estimator."
        )


def estimated(estimator, X, y, n_classes, *, tied: bool) -> tuple[ClassMoments, np.ndarray]:
    """The class moments (tied or full) of ``X`` and the covariance ``estimator`` gives:
    one per class (C, d, d), or pooled with weights ``n_c / n`` (d, d) when ``tied``."""
    check_estimator(estimator)
    stats = class_moments(X, y, n_classes, None, kind="tied" if tied else "full")
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
