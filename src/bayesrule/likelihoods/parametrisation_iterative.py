"""The M-steps of mclust's covariance parametrisations that have no closed form.

With ``Sigma_k = lambda_k D_k A_k D_k^T`` (volume, shape with ``|A_k| = 1``,
orientation), weights ``n_k`` and centred scatter matrices ``W_k`` of G groups, the ML
estimate minimises ``sum_k n_k ln |Sigma_k| + tr(W_k Sigma_k^-1)``. Five models are
solved here by iteration, the others in closed form in
:mod:`bayesrule.likelihoods.parametrisation`:

* ``VEI`` (``Sigma_k = lambda_k A``, diagonal) alternates ``lambda_k = tr(W_k A^-1) /
  (d n_k)`` and ``A`` the diagonal of ``sum_k W_k / lambda_k`` scaled to determinant 1
  (Celeux and Govaert 1995); ``VEV`` (``lambda_k D_k A D_k^T``) is the same iteration on
  the eigenvalues of each ``W_k`` (its eigenvectors are ``D_k``, eigenvalues matched in
  decreasing order); ``VEE`` (``lambda_k C``) alternates ``lambda_k = tr(W_k C^-1) /
  (d n_k)`` and ``C = sum_k W_k / lambda_k`` scaled to determinant 1. In the log
  parameters these are convex problems: any start reaches the one optimum.
* ``EVE`` (``lambda D A_k D^T``) and ``VVE`` (``lambda_k D A_k D^T``) share one
  orientation D. Given D, volumes and shapes are closed forms of the rotated variances
  ``diag(D^T W_k D)`` (EVI's and VVI's); given them, D minimises
  ``sum_k tr(W_k D M_k D^T)`` with ``M_k = (lambda_k A_k)^-1`` over orthogonal matrices,
  by the majorisation-minimisation steps of Browne and McNicholas (2014): with
  ``alpha_k`` the largest eigenvalue of ``W_k`` and ``beta_k`` the largest entry of
  ``M_k``, ``D`` becomes the orthogonal polar factor ``U V^T`` of
  ``F = sum_k (alpha_k I - W_k) D M_k`` (then of ``F = sum_k W_k D (beta_k I - M_k)``),
  ``F = U S V^T``; each step lowers the objective. They start, as mclust does, from
  ``D = I``.

Iterations stop when no variance ``(lambda_k A_k)_j`` (along D, with an orientation)
changes by more than ``tol`` relative, nor (VEE) any entry of ``Sigma_k`` in units of
its standard deviations ``s_j s_l``, nor (EVE, VVE) any entry of the unit columns of D
(mclust's ``emControl()$tol[2]``, ``sqrt(eps)``), or after ``max_iter`` iterations with
a :class:`~sklearn.exceptions.ConvergenceWarning`.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .base import Undetermined

__all__ = ["common_orientation", "eigen", "geometric_mean", "varying_volume", "vee"]


def geometric_mean(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """``prod(values) ** (1 / d)`` along ``axis``, computed in logarithms (positive
    values; a zero gives 0)."""
    with np.errstate(divide="ignore"):
        return np.exp(np.log(values).mean(axis=axis))


#: why a variance or determinant of an M-step is 0, in its messages
SINGULAR = (
    "fewer rows than features, a feature constant within the group, or a linear "
    "combination of features"
)


def require_positive(
    values, model: str, what: str, per_group: bool = True, cause: str = SINGULAR
) -> None:
    """Undetermined unless every entry of ``values`` (one row per group, unless not
    ``per_group``) is positive and finite: ``what`` names the quantity, ``cause`` says
    why it may be 0."""
    values = np.asarray(values)
    bad = ~(np.isfinite(values) & (values > 0))
    if not bad.any():
        return
    if per_group:
        what += f" of group {int(np.argwhere(bad)[0][0])}"
    raise Undetermined(
        f"the M-step of model {model!r} is not determined: {what} is not positive "
        f"({cause}); use a simpler structure (e.g. 'EEE' or 'VVI'), a regularised "
        "estimate (estimate='map'), or remove the feature."
    )


def eigen(scatters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (G, d), in decreasing order and at least 0, and the matching
    eigenvectors (G, d, d, in columns) of each scatter matrix."""
    values, vectors = np.linalg.eigh(scatters)
    return np.maximum(values[:, ::-1], 0.0), vectors[:, :, ::-1]


def _change(new: np.ndarray, old: np.ndarray) -> float:
    """The largest relative change of variances (G, d), or of covariances (G, d, d) in
    units of their standard deviations (``|new - old|_jl / (s_j s_l)``: scale-free)."""
    if new.ndim == 2:
        return float(np.max(np.abs(new - old) / new))
    sd = np.sqrt(np.einsum("kjj->kj", new))
    return float(np.max(np.abs(new - old) / (sd[:, :, None] * sd[:, None, :])))


def _not_converged(model: str, max_iter: int, change: float) -> None:
    warnings.warn(
        f"the M-step of model {model!r} did not converge in max_iter={max_iter} "
        f"iterations (last relative change {change:.3g}); raise max_iter.",
        ConvergenceWarning,
        stacklevel=4,
    )


def varying_volume(
    model: str, counts: np.ndarray, values: np.ndarray, tol: float, max_iter: int
) -> np.ndarray:
    """Variances ``lambda_k a_j`` (G, d) of ``Sigma_k = lambda_k A`` with ``|A| = 1``
    (VEI: ``values`` the diagonals of the scatters; VEV: their eigenvalues, decreasing)."""
    d = values.shape[1]
    require_positive(values.sum(axis=1), model, "the scatter (its trace)")
    scale = values.sum(axis=1) / (d * counts)
    variances = scale[:, None] * np.ones(d)
    change = np.inf
    for _ in range(max_iter):
        pooled = (values / scale[:, None]).sum(axis=0)
        require_positive(pooled, model, "the pooled shape", per_group=False)
        shape = pooled / geometric_mean(pooled)
        scale = (values / shape).sum(axis=1) / (d * counts)
        new = scale[:, None] * shape
        change, variances = _change(new, variances), new
        if change <= tol:
            return variances
    _not_converged(model, max_iter, change)
    return variances


def _normalised(matrix: np.ndarray, model: str) -> np.ndarray:
    """``matrix / |matrix| ** (1 / d)`` (determinant 1), or Undetermined."""
    sign, logdet = np.linalg.slogdet(matrix)
    positive = sign if np.isfinite(logdet) else 0.0
    require_positive(positive, model, "the determinant of the pooled shape", per_group=False)
    return matrix / np.exp(logdet / matrix.shape[-1])


def vee(counts: np.ndarray, scatters: np.ndarray, tol: float, max_iter: int) -> np.ndarray:
    """Covariances (G, d, d) of ``Sigma_k = lambda_k C`` with ``|C| = 1`` (VEE)."""
    d = scatters.shape[-1]
    require_positive(np.trace(scatters, axis1=1, axis2=2), "VEE", "the scatter (its trace)")
    shape = _normalised(scatters.sum(axis=0), "VEE")
    scale = np.trace(np.linalg.solve(shape, scatters), axis1=1, axis2=2) / (d * counts)
    covs = scale[:, None, None] * shape
    change = np.inf
    for _ in range(max_iter):
        shape = _normalised(np.einsum("k,kjl->jl", 1.0 / scale, scatters), "VEE")
        scale = np.trace(np.linalg.solve(shape, scatters), axis1=1, axis2=2) / (d * counts)
        new = scale[:, None, None] * shape
        change, covs = _change(new, covs), new
        if change <= tol:
            return covs
    _not_converged("VEE", max_iter, change)
    return covs


def _rotated(scatters, D, WD=None) -> np.ndarray:
    """``diag(D^T W_k D)`` (G, d), from the products ``WD = W_k D`` where given."""
    WD = scatters @ D if WD is None else WD
    return (WD * D).sum(axis=1)


def _rotated_variances(model, counts, scatters, D, WD=None) -> np.ndarray:
    """The variances (G, d) along the columns of D: closed forms of EVI or VVI on
    ``diag(D^T W_k D)``."""
    rotated = _rotated(scatters, D, WD)
    require_positive(rotated, model, "a variance along the common orientation")
    if model == "VVE":
        return rotated / counts[:, None]
    volumes = geometric_mean(rotated)  # EVE: lambda = sum_k |diag_k|^(1/d) / n
    return rotated * (volumes.sum() / counts.sum() / volumes)[:, None]


class _Orientation:
    """The objective of EVE or VVE as a function of the orientation D alone (volumes
    and shapes at their optimum given D), and the MM map that lowers it."""

    def __init__(self, model, counts, scatters):
        self.model, self.counts, self.scatters = model, counts, scatters
        self.alpha = eigen(scatters)[0][:, 0]  # the largest eigenvalue of each W_k

    def objective(self, D) -> float:
        """``sum_k n_k ln |Sigma_k| + tr(W_k Sigma_k^-1)`` up to constants:
        ``sum_k n_k ln |diag(D^T W_k D)|`` (VVE), ``n d ln sum_k gm(diag(D^T W_k D))``
        (EVE); infinite where a rotated variance is not positive."""
        rotated = _rotated(self.scatters, D)
        if not (rotated > 0).all():
            return np.inf
        if self.model == "VVE":
            return float(self.counts @ np.log(rotated).sum(axis=1))
        return float(np.log(geometric_mean(rotated).sum()))

    def step(self, D) -> np.ndarray:
        """One MM iteration: volumes and shapes given D, then D by the two
        majorisations, each the polar factor of its F."""
        W = self.scatters
        WD = W @ D
        weights = 1.0 / _rotated_variances(self.model, self.counts, W, D, WD)  # M_k
        # W_k <= alpha_k I: maximise tr(D^T sum_k (alpha_k I - W_k) D_t M_k)
        F = D * (self.alpha @ weights) - (WD * weights[:, None, :]).sum(axis=0)
        D = _polar(F)
        # M_k <= beta_k I: maximise tr(D^T sum_k W_k D_t (beta_k I - M_k))
        excess = weights.max(axis=1)[:, None] - weights
        return _polar(((W @ D) * excess[:, None, :]).sum(axis=0))


def common_orientation(
    model: str, counts: np.ndarray, scatters: np.ndarray, tol: float, max_iter: int
) -> np.ndarray:
    """Covariances (G, d, d) of ``Sigma_k = lambda(_k) D A_k D^T`` (EVE, VVE).

    MM iterations (:class:`_Orientation`) from ``D = I``, accelerated by SQUAREM
    (Varadhan and Roland 2008) in the Cayley chart of the orthogonal matrices at the
    current D: two MM steps, an extrapolation along them, and one MM step from there,
    kept only where it lowers the objective below the second step's (so every iteration
    descends, to the fixed point of the plain MM iteration, in a fraction of its steps).
    """
    problem = _Orientation(model, counts, scatters)
    D = np.eye(scatters.shape[-1])
    variances = _rotated_variances(model, counts, scatters, D)
    change = np.inf
    for _ in range(max_iter):
        D1 = problem.step(D)
        D2 = problem.step(D1)
        r, v = _cayley_log(D.T @ D1), _cayley_log(D.T @ D2)
        new = _squarem(problem, D, D2, r, v - 2.0 * r)
        new_variances = _rotated_variances(model, counts, scatters, new)
        # the orientation (unit columns) and each variance along it, relative
        change = max(float(np.abs(new - D).max()), _change(new_variances, variances))
        D, variances = new, new_variances
        if change <= tol:
            break
    else:
        _not_converged(model, max_iter, change)
    return np.einsum("jl,kl,il->kji", D, variances, D)


def _squarem(problem: _Orientation, D, D2, r, v) -> np.ndarray:
    """SQUAREM's step length ``a = -|r| / |v|`` (at most -1) and the extrapolated
    ``D (I - K)^-1 (I + K)`` with ``K = -2 a r + a^2 v`` (Cayley coordinates), stabilised
    by one MM step; it replaces ``D2`` only where its objective is lower."""
    norm_r, norm_v = np.linalg.norm(r), np.linalg.norm(v)
    if not (np.isfinite(norm_r) and np.isfinite(norm_v)) or norm_v == 0:
        return D2
    a = min(-norm_r / norm_v, -1.0)
    K = -2.0 * a * r + a * a * v
    trial = problem.step(D @ _cayley(0.5 * (K - K.T)))
    return trial if problem.objective(trial) < problem.objective(D2) else D2


def _cayley(K: np.ndarray) -> np.ndarray:
    """The orthogonal ``(I - K)^-1 (I + K)`` of a skew-symmetric K."""
    eye = np.eye(K.shape[0])
    return np.linalg.solve(eye - K, eye + K)


def _cayley_log(Q: np.ndarray) -> np.ndarray:
    """The skew-symmetric K with ``_cayley(K) = Q`` (Q orthogonal, no eigenvalue -1:
    NaN where there is one)."""
    eye = np.eye(Q.shape[0])
    try:
        return np.linalg.solve((Q + eye).T, (Q - eye).T).T  # (Q - I)(Q + I)^-1
    except np.linalg.LinAlgError:
        return np.full_like(Q, np.nan)


def _polar(F: np.ndarray) -> np.ndarray:
    """The orthogonal matrix nearest F: ``U V^T`` of its SVD ``U S V^T``, maximising
    ``tr(D^T F)`` over orthogonal D."""
    U, _, Vt = np.linalg.svd(F)
    return U @ Vt
