"""Readable text of a fitted estimator: classes, priors, loss and every parameter."""

from __future__ import annotations

import numpy as np

from ._text import block
from .likelihoods import Gaussian


def summarize(estimator) -> str:
    """The text behind ``estimator.summary()``."""
    like = estimator.likelihood_
    lines = [
        f"{type(estimator).__name__} ({type(like).__name__} likelihood"
        + (f", covariance={like.covariance!r})" if hasattr(like, "covariance") else ")"),
        f"  features: {estimator.n_features_in_}",
    ]
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        lines.append(f"  feature names: {', '.join(map(str, names))}")
    lines.append("  class        count        prior")
    for label, n, p in zip(
        estimator.classes_.tolist(), estimator.class_count_, estimator.class_prior_, strict=True
    ):
        lines.append(f"  {str(label):<12} {n:<12g} {p:.6g}")
    actions = ", ".join(map(str, estimator.actions_.tolist()))
    lines += block(
        f"loss matrix (rows: actions {actions}; columns: classes)", estimator.loss_.matrix
    )
    if not isinstance(like, Gaussian):  # it describes itself (Gaussians: coefficients too)
        names = names if names is not None else [f"x{j}" for j in range(estimator.n_features_in_)]
        lines += like.describe(estimator.classes_.tolist(), [str(n) for n in names])
        return "\n".join(lines)
    per_class = _coefficients(estimator, like) if hasattr(estimator, "coef_") else None
    lines += like.parameter_lines(estimator.classes_.tolist(), per_class)
    if getattr(like, "epsilon_", 0):
        lines.append(f"regularisation added to variances: {like.epsilon_:.6g}")
    if getattr(like, "auto_regularisation_", None) is not None:  # reg_covar="auto"
        lines += block(
            "reg_covar='auto' added to the variances of singular covariances (one row each)",
            like.auto_regularisation_,
        )
    return "\n".join(lines)


def _coefficients(estimator, like):
    """Per class, the lines of the discriminant ``g(x) = x^T W x + w^T x + w0``."""
    if like.structure_.dense:
        W, name = estimator.quadratic_coef_, "W (quadratic_coef_)"
    else:  # diagonal: no (C, d, d) matrices, just their diagonals
        W = np.broadcast_to(-0.5 * like.precisions_cholesky_, like.means_.shape)
        name = "diagonal of W (quadratic_coef_)"
    w, w0 = estimator.coef_, estimator.intercept_

    def lines(c):
        return [*block(name, W[c]), *block("w (coef_)", w[c]), f"  w0 (intercept_): {w0[c]:.8g}"]

    return lines
