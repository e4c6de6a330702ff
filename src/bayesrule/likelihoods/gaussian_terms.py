"""The additive terms of a Gaussian log-density that ``explain`` reports.

Diagonal covariances: one term per feature, ``ln N(x_j; mu_cj, s_cj^2)`` (0 where x_j
is missing). Full or shared ones: seed 003's discriminant ``g_c(x) = x^T W_c x + w_c^T
x + w_c0`` without the prior: the quadratic term ``x^T W_c x`` (``W_c = -Sigma_c^-1 /
2``), a linear term ``x_j w_cj`` per feature (``w_c = Sigma_c^-1 mu_c``) and the
constant ``-mu_c^T Sigma_c^-1 mu_c / 2 - ln|2 pi Sigma_c| / 2``. On raw x, as the seed
writes them: the quadratic and linear terms of far-off data are large and cancel.
"""

from __future__ import annotations

import numpy as np

from .base import Likelihood


def log_terms(like, X) -> tuple[list[str], np.ndarray]:
    """``Gaussian.log_terms``: :func:`gaussian_terms`, or the whole where it gives None."""
    like.check_ready()
    found = gaussian_terms(like, np.asarray(X, dtype=np.float64))
    return Likelihood.log_terms(like, X) if found is None else found


def gaussian_terms(like, X: np.ndarray) -> tuple[list[str], np.ndarray] | None:
    """``(names, terms (n, C, T))`` of a fitted Gaussian family, or None where the family
    reports its log-density whole: Student t densities, or a row with a missing value
    under full or shared covariances (its marginal density is not these terms)."""
    if getattr(like, "predictive_", None) is not None:
        return None
    C, d = like.means_.shape
    P = like.precisions_cholesky_
    if not like.structure_.dense:
        prec = np.broadcast_to(P, (C, d))  # the precisions themselves
        observed = ~np.isnan(X)[:, None, :]
        diff = np.nan_to_num(X)[:, None, :] - like.means_
        own = -0.5 * prec * diff * diff + 0.5 * np.log(prec) - 0.5 * np.log(2 * np.pi)
        return [f"{{{j}}}" for j in range(d)], np.where(observed, own, 0.0)
    if np.isnan(X).any():
        return None
    prec = np.broadcast_to(P @ np.swapaxes(P, 1, 2), (C, d, d))  # upper factors U U^T
    w = np.einsum("cjk,ck->cj", prec, like.means_)
    quad = -0.5 * np.einsum("ij,cjk,ik->ic", X, prec, X)
    const = -0.5 * np.einsum("cj,cj->c", w, like.means_) + like.log_norm_
    const = np.broadcast_to(const, (X.shape[0], C))[:, :, None]
    terms = np.concatenate([quad[:, :, None], X[:, None, :] * w, const], axis=2)
    return ["quadratic x'Wx", *(f"{{{j}}} (linear)" for j in range(d)), "constant"], terms
