"""Readable text of a fitted estimator: classes, priors, loss and every parameter."""

from __future__ import annotations

import numpy as np

from ._text import block
from .likelihoods import Gaussian, get_structure


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
    structure = get_structure(like.covariance)
    cov = like.covariances_
    if structure.tied:
        lines += block(f"shared covariance ({structure.name})", cov)
    coefs = None
    if hasattr(estimator, "coef_"):
        if structure.dense:
            W = estimator.quadratic_coef_
        else:  # diagonal: no (C, d, d) matrices, just their diagonals
            W = np.broadcast_to(-0.5 * like.precisions_cholesky_, like.means_.shape)
        coefs = (W, estimator.coef_, estimator.intercept_)
    for c, label in enumerate(estimator.classes_.tolist()):
        lines.append(f"class {label}:")
        lines += block("mean", like.means_[c])
        if not structure.tied:
            lines += block(f"covariance ({structure.name})", cov[c])
        if coefs is not None:
            name = "W (quadratic_coef_)" if structure.dense else "diagonal of W (quadratic_coef_)"
            lines += block(name, coefs[0][c])
            lines += block("w (coef_)", coefs[1][c])
            lines.append(f"  w0 (intercept_): {coefs[2][c]:.8g}")
    if getattr(like, "epsilon_", 0):
        lines.append(f"regularisation added to variances: {like.epsilon_:.6g}")
    return "\n".join(lines)
