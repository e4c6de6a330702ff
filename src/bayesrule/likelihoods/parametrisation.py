"""mclust's 14 parametrisations of Gaussian covariances, and their ML M-steps.

Each covariance is decomposed as ``Sigma_k = lambda_k D_k A_k D_k^T`` (Banfield and
Raftery 1993; Celeux and Govaert 1995): a volume ``lambda_k``, a diagonal shape ``A_k``
with ``|A_k| = 1`` and an orthogonal orientation ``D_k``. A model's three letters say
whether each is Equal across groups, Varying, or the Identity:

| model | Sigma_k | as a structure of :class:`~bayesrule.likelihoods.Gaussian` |
| --- | --- | --- |
| EII | ``lambda I`` | ``"tied_spherical"`` |
| VII | ``lambda_k I`` | ``"spherical"`` |
| EEI | ``lambda A`` | ``"tied_diag"`` |
| VEI | ``lambda_k A`` | ``"VEI"`` (iterative) |
| EVI | ``lambda A_k`` | ``"EVI"`` |
| VVI | ``lambda_k A_k`` | ``"diag"`` |
| EEE | ``lambda D A D^T`` | ``"tied"`` |
| VEE | ``lambda_k D A D^T`` | ``"VEE"`` (iterative) |
| EVE | ``lambda D A_k D^T`` | ``"EVE"`` (iterative, MM) |
| VVE | ``lambda_k D A_k D^T`` | ``"VVE"`` (iterative, MM) |
| EEV | ``lambda D_k A D_k^T`` | ``"EEV"`` |
| VEV | ``lambda_k D_k A D_k^T`` | ``"VEV"`` (iterative) |
| EVV | ``lambda D_k A_k D_k^T`` | ``"EVV"`` |
| VVV | ``lambda_k D_k A_k D_k^T`` | ``"full"`` |

:func:`covariances` is the M-step: from group weights ``n_k`` and centred scatter
matrices ``W_k`` (``sum_i z_ik (x_i - mu_k)(x_i - mu_k)^T``) it returns the ML
covariances, in closed form where one exists (with ``n = sum_k n_k`` and ``gm`` the
geometric mean of a vector):

* EII ``tr(W) / (n d) I``, VII ``tr(W_k) / (n_k d) I``, EEI ``diag(W) / n``,
  VVI ``diag(W_k) / n_k``, EEE ``W / n``, VVV ``W_k / n_k`` (``W = sum_k W_k``);
* EVI ``lambda diag(W_k) / gm(diag(W_k))`` with ``lambda = sum_k gm(diag(W_k)) / n``;
* EVV ``lambda W_k / |W_k|^(1/d)`` with ``lambda = sum_k |W_k|^(1/d) / n``;
* EEV ``L_k diag(sum_j w_j / n) L_k^T`` with ``W_k = L_k diag(w_k) L_k^T`` (eigenvalues
  in decreasing order);

and by iteration for VEI, VEE, VEV, EVE and VVE
(:mod:`~bayesrule.likelihoods.parametrisation_iterative`).
"""

from __future__ import annotations

import numpy as np

from .parametrisation_iterative import (
    common_orientation,
    eigen,
    geometric_mean,
    require_positive,
    varying_volume,
    vee,
)

__all__ = ["MODELS", "SYNONYMS", "covariances", "n_covariance_parameters", "variances"]

#: mclust's 14 models, in its order (``mclust.options("emModelNames")``)
MODELS = (
    "EII", "VII", "EEI", "VEI", "EVI", "VVI", "EEE",
    "VEE", "EVE", "VVE", "EEV", "VEV", "EVV", "VVV",
)  # fmt: skip

#: the models with diagonal covariances (their M-step needs only diagonal scatters)
DIAGONAL = MODELS[:6]

#: the six models that are structures of their own, by their structure names
SYNONYMS = {
    "EII": "tied_spherical",
    "VII": "spherical",
    "EEI": "tied_diag",
    "VVI": "diag",
    "EEE": "tied",
    "VVV": "full",
}


def _check_model(model) -> str:
    if not isinstance(model, str) or model not in MODELS:
        raise ValueError(f"model must be one of mclust's {list(MODELS)}, got {model!r}")
    return model


def n_covariance_parameters(model: str, G: int, d: int) -> int:
    """Free parameters of the G covariances of ``model`` in d dimensions (mclust's
    ``nVarParams``): each equal volume counts 1 (varying: G), each equal shape ``d - 1``,
    each equal orientation ``d (d - 1) / 2``.

    Parameters
    ----------
    model : str
        One of :data:`MODELS`.
    G, d : int
        Groups and dimensions.

    Returns
    -------
    int

    Examples
    --------
    >>> from bayesrule.likelihoods.parametrisation import n_covariance_parameters
    >>> [n_covariance_parameters(m, 3, 4) for m in ("EII", "VEV", "VVV")]
    [1, 24, 30]
    """
    _check_model(model)
    volume, shape, orientation = model
    count = 1 if volume == "E" else G
    if shape != "I":
        count += (d - 1) * (1 if shape == "E" else G)
    if orientation != "I":
        count += d * (d - 1) // 2 * (1 if orientation == "E" else G)
    return int(count)


def _check(model, counts, scatters):
    model = _check_model(model)
    counts = np.asarray(counts, dtype=np.float64)
    scatters = np.asarray(scatters, dtype=np.float64)
    if counts.ndim != 1 or scatters.ndim not in (2, 3) or scatters.shape[0] != counts.size:
        raise ValueError(
            f"counts must have shape (G,) and scatters (G, d, d) or (G, d), got "
            f"{counts.shape} and {scatters.shape}"
        )
    if scatters.ndim == 3 and scatters.shape[1] != scatters.shape[2]:
        raise ValueError(f"scatters must be square matrices, got shape {scatters.shape}")
    if scatters.ndim == 2 and model not in DIAGONAL:
        raise ValueError(
            f"model {model!r} needs full scatter matrices (G, d, d), got diagonals {scatters.shape}"
        )
    if not (np.isfinite(counts).all() and np.isfinite(scatters).all()):
        raise ValueError("counts and scatters must be finite.")
    if (counts < 0).any() or counts.sum() <= 0:
        raise ValueError(f"counts must be >= 0 with a positive sum, got {counts}")
    if "V" in model:  # a varying parameter divides by its group's weight
        require_positive(counts, model, "the weight n_k", cause="a group without data")
    return model, counts, scatters


def variances(
    model: str, counts, diagonals, *, tol: float = 1.49e-8, max_iter: int = 1000
) -> np.ndarray:
    """The ML variances (G, d) of a diagonal model (EII, VII, EEI, VEI, EVI, VVI) from
    the diagonals (G, d) of the groups' scatter matrices.

    Parameters
    ----------
    model : str
        One of the six diagonal models of :data:`MODELS`.
    counts : array-like of shape (G,)
        Group weights ``n_k``.
    diagonals : array-like of shape (G, d)
        Diagonals of the centred scatter matrices ``W_k``.
    tol, max_iter
        Convergence of VEI's iteration (see :func:`covariances`).

    Returns
    -------
    ndarray of shape (G, d)

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.parametrisation import variances
    >>> variances("EVI", [2.0, 2.0], [[1.0, 4.0], [2.0, 2.0]])  # lambda A_k
    array([[0.5, 2. ],
           [1. , 1. ]])
    """
    model, counts, diagonals = _check(model, counts, diagonals)
    if diagonals.ndim == 3:
        diagonals = np.einsum("kjj->kj", diagonals)
    if model not in DIAGONAL:
        raise ValueError(f"variances takes a diagonal model {list(DIAGONAL)}, got {model!r}")
    G, d = diagonals.shape
    n = counts.sum()
    ones = np.ones((G, d))
    if model == "EII":
        return ones * diagonals.sum() / (n * d)
    if model == "VII":
        return ones * (diagonals.sum(axis=1) / (counts * d))[:, None]
    if model == "EEI":
        return ones * diagonals.sum(axis=0) / n
    if model == "VVI":
        return diagonals / counts[:, None]
    if model == "EVI":
        require_positive(diagonals, model, "a variance")
        volumes = geometric_mean(diagonals)
        return diagonals * (volumes.sum() / n / volumes)[:, None]
    return varying_volume(model, counts, diagonals, tol, max_iter)  # VEI


def covariances(
    model: str,
    counts: np.ndarray,
    scatters: np.ndarray,
    *,
    tol: float = 1.49e-8,
    max_iter: int = 1000,
) -> np.ndarray:
    """The ML covariances of G groups under one of mclust's models (the M-step).

    Parameters
    ----------
    model : str
        One of :data:`MODELS` (``"EII"`` ... ``"VVV"``).
    counts : ndarray of shape (G,)
        Group weights ``n_k`` (sums of responsibilities or sample weights; need not be
        integers).
    scatters : ndarray of shape (G, d, d), or (G, d) for a diagonal model
        Centred weighted scatter matrices ``W_k = sum_i z_ik (x_i - mu_k)(x_i - mu_k)^T``
        (or their diagonals).
    tol : float, default=1.49e-8
        Iterative models (VEI, VEE, EVE, VVE, VEV) stop when no variance (or entry of a
        covariance, relative to its norm) changes by more than ``tol`` relative in an
        iteration: mclust's ``emControl()$tol[2]``, ``sqrt(eps)``.
    max_iter : int, default=1000
        At most this many iterations; a ConvergenceWarning if reached.

    Returns
    -------
    ndarray of shape (G, d, d)
        The covariance of each group. Models that divide by a determinant or a
        variance (EVI, EVV, VEI, VEE, VEV, EVE, VVE, and VII/VVI/VVV for a group of
        zero weight) raise :class:`~bayesrule.likelihoods.base.Undetermined` (a
        ValueError) where that is 0; the others may return singular matrices.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.parametrisation import covariances
    >>> W = np.array([[[4.0, 1.0], [1.0, 2.0]], [[2.0, 0.0], [0.0, 8.0]]])
    >>> covariances("EEE", [2.0, 2.0], W)[0]  # the pooled W / n
    array([[1.5 , 0.25],
           [0.25, 2.5 ]])
    >>> covariances("VII", [2.0, 2.0], W)[:, 0, 0]  # tr(W_k) / (n_k d)
    array([1.5, 2.5])
    >>> values = np.linalg.eigvalsh(covariances("VEV", [2.0, 2.0], W))  # iterated
    >>> values.round(4)  # lambda_k D_k A D_k^T: two volumes ...
    array([[0.7272, 2.4264],
           [1.0994, 3.6684]])
    >>> (values[:, 1] / values[:, 0]).round(4)  # ... and one shape
    array([3.3368, 3.3368])
    """
    model, counts, scatters = _check(model, counts, scatters)
    if model in DIAGONAL:
        var = variances(model, counts, scatters, tol=tol, max_iter=max_iter)
        return np.einsum("kj,jl->kjl", var, np.eye(var.shape[1]))
    G, d = scatters.shape[:2]
    n = counts.sum()
    if model == "EEE":
        return np.broadcast_to(scatters.sum(axis=0) / n, (G, d, d)).copy()
    if model == "VVV":
        return scatters / counts[:, None, None]
    if model == "EVV":
        sign, logdet = np.linalg.slogdet(scatters)
        require_positive(np.where(np.isfinite(logdet), sign, 0.0), model, "the determinant")
        volumes = np.exp(logdet / d)  # |W_k|^(1/d)
        return scatters * (volumes.sum() / n / volumes)[:, None, None]
    if model in ("EVE", "VVE"):
        return common_orientation(model, counts, scatters, tol, max_iter)
    if model == "VEE":
        return vee(counts, scatters, tol, max_iter)
    values, vectors = eigen(scatters)
    if model == "EEV":
        var = np.broadcast_to(values.sum(axis=0) / n, (G, d))
    else:  # VEV: VEI's iteration on the eigenvalues
        var = varying_volume(model, counts, values, tol, max_iter)
    return np.einsum("kjl,kl,kil->kji", vectors, var, vectors)
