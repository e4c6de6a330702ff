"""Covariance structures of a Gaussian class-conditional density, as strategy objects.

Each structure says which statistics it needs, how statistics become covariance
parameters, how many free parameters it has, and how its parameters expand. The Gaussian
likelihood then needs only two kernels: a dense one (Cholesky factors of precisions) and
a diagonal one.

| name | covariance of class c | native shape |
| --- | --- | --- |
| ``"full"`` | its own matrix | (C, d, d) |
| ``"tied"`` | one pooled matrix for all classes | (d, d) |
| ``"diag"`` | its own diagonal | (C, d) |
| ``"spherical"`` | its own ``s_c^2 I`` | (C,) |
| ``"tied_diag"`` | one pooled diagonal | (d,) |
| ``"tied_spherical"`` | one pooled ``s^2 I`` | () |

mclust's names of these six (EII, VII, EEI, VVI, EEE, VVV) are synonyms, and its other
eight parametrisations (VEI, EVI: diagonal, native shape (C, d); VEE, EVE, VVE, EEV, VEV,
EVV: full matrices, (C, d, d)) are :class:`Parametrised` structures, estimated by the
M-steps of :mod:`bayesrule.likelihoods.parametrisation`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular

from .._text import class_name, count
from ..stats.moments import ClassMoments
from .base import Undetermined
from .ledoit_wolf import (  # noqa: F401 (their home before ledoit_wolf.py)
    ledoit_wolf_class,
    ledoit_wolf_fit,
    ledoit_wolf_pooled,
    ledoit_wolf_scales,
    ledoit_wolf_sums,
)
from .parametrisation import MODELS, SYNONYMS, covariances, n_covariance_parameters, variances

#: the smallest variance a diagonal structure takes: below it (subnormal numbers) the
#: precision ``1 / variance`` overflows float64
SMALLEST_VARIANCE = float(np.finfo(np.float64).tiny)


@dataclass(frozen=True)
class Structure:
    """A covariance structure: the form of one class's covariance, and whether it is tied.

    Everything else (the statistics it needs, its estimate, shapes, parameter count)
    follows from these two choices.
    """

    name: str
    form: str  # "full", "diag" or "spherical": the covariance of one class
    tied: bool  # one covariance shared by all classes

    @property
    def dense(self) -> bool:
        """Full matrices (Cholesky kernel) rather than variances."""
        return self.form == "full"

    @property
    def stats_kind(self) -> str:
        """The :class:`~bayesrule.stats.moments.ClassMoments` layout it is estimated from."""
        if self.dense:
            return "tied" if self.tied else "full"
        return "diag"

    def estimate(self, stats: ClassMoments) -> np.ndarray:
        """ML covariance (divide by n) in the native shape."""
        n, scatter = stats.count, stats.snapped()  # constant up to rounding: exactly
        if self.dense:
            return scatter / (n.sum() if self.tied else n[:, None, None])
        if self.form == "spherical":
            scatter = scatter.mean(axis=1)  # trace / d per class
        if self.tied:
            return np.asarray(scatter.sum(axis=0) / n.sum())
        return scatter / n.reshape(-1, *([1] * (scatter.ndim - 1)))

    def add_to_diagonal(self, cov: np.ndarray, value: float) -> np.ndarray:
        """``cov + value * I`` in the native shape."""
        if value == 0:
            return cov
        if self.dense:
            d = cov.shape[-1]
            return cov + value * np.eye(d)
        return cov + value

    def kernel(self, cov: np.ndarray, n_classes: int, n_features: int) -> np.ndarray:
        """Covariances as (K, d, d) for dense structures or (K, d) variances otherwise.

        K is 1 for tied structures and C otherwise.
        """
        k = 1 if self.tied else n_classes
        if self.dense:
            return np.reshape(cov, (k, n_features, n_features))
        return np.broadcast_to(np.reshape(cov, (k, -1)), (k, n_features)).copy()

    def full(self, cov: np.ndarray, n_classes: int, n_features: int) -> np.ndarray:
        """Every class's covariance as a full matrix, shape (C, d, d)."""
        kern = self.kernel(cov, n_classes, n_features)
        if not self.dense:
            kern = np.einsum("kj,jl->kjl", kern, np.eye(n_features))
        return np.broadcast_to(kern, (n_classes, n_features, n_features)).copy()

    def _per_class(self, n_features: int) -> tuple[tuple[int, ...], int]:
        d = n_features
        return {
            "full": ((d, d), d * (d + 1) // 2),
            "diag": ((d,), d),
            "spherical": ((), 1),
        }[self.form]

    def n_parameters(self, n_classes: int, n_features: int) -> int:
        """Free parameters of the covariances."""
        per = self._per_class(n_features)[1]
        return per if self.tied else per * n_classes

    def native_shape(self, n_classes: int, n_features: int) -> tuple[int, ...]:
        """Shape of the covariances as stored (one per class, or one if tied)."""
        shape = self._per_class(n_features)[0]
        return shape if self.tied else (n_classes, *shape)

    def draw(self, means, covariances, counts, rng) -> np.ndarray:
        """``counts[c]`` draws of N(means[c], Sigma_c), rows in class order."""
        C, d = means.shape
        blocks = []
        if self.dense:
            chol = np.linalg.cholesky(self.full(covariances, C, d))
        else:
            sd = np.broadcast_to(np.sqrt(self.kernel(covariances, C, d)), (C, d))
        for c, k in enumerate(counts):
            z = rng.standard_normal((int(k), d))
            blocks.append(means[c] + (z @ chol[c].T if self.dense else z * sd[c]))
        return np.concatenate(blocks) if blocks else np.empty((0, d))

    def given(self, means, covariances, name: str):
        """Known means (C, d) and covariances (native shape) as float arrays, checked:
        shapes, finite values, symmetric matrices (``name``: the caller's argument)."""
        means = np.array(means, dtype=np.float64, ndmin=2)
        n_classes, d = means.shape
        cov = np.asarray(covariances, dtype=np.float64)
        expected = self.native_shape(n_classes, d)
        if cov.shape != expected:
            raise ValueError(
                f"{name} for covariance={self.name!r} with {n_classes} classes and "
                f"{d} features must have shape {expected}, got {cov.shape}"
            )
        if not np.all(np.isfinite(means)) or not np.all(np.isfinite(cov)):
            raise ValueError("means and covariances must be finite.")
        if self.dense:
            kern = self.kernel(cov, n_classes, d)
            scale = np.abs(kern).max(axis=(1, 2), keepdims=True)
            if (np.abs(kern - np.swapaxes(kern, -1, -2)) > 1e-10 * scale).any():
                raise ValueError(f"{name} must be symmetric matrices.")
        return means, cov

    def factorise(self, kern: np.ndarray, counts=None, given=None):
        """Precision factors of the kernel (:meth:`kernel`) and ``ln |Sigma|^(-1/2)`` per
        kernel entry: upper Cholesky factors U (``U U^T = Sigma^-1``) for dense
        structures, precisions ``1 / sigma^2`` otherwise. A singular covariance raises
        :class:`Undetermined` (from data: ``counts``) or ValueError (``given`` parameters,
        named)."""
        if self.dense:
            prec = np.empty_like(kern)
            log_det = np.empty(kern.shape[0])
            for k, S in enumerate(kern):
                U = precision_cholesky(S, k, self.tied, counts, given)
                prec[k] = U
                log_det[k] = np.log(np.diag(U)).sum()
            return prec, log_det
        bad = ~(kern >= SMALLEST_VARIANCE)
        if bad.any():
            k, j = np.argwhere(bad)[0]
            where = "all classes" if self.tied else class_name(k)
            if given is not None:
                raise ValueError(
                    f"{given} must be positive; feature {j} has variance "
                    f"{float(kern[k, j])!r} in {where} (at least {SMALLEST_VARIANCE:g})."
                )
            if kern[k, j] > 0:  # its precision 1 / variance would overflow float64
                raise Undetermined(
                    f"feature {j} has variance {float(kern[k, j]):g} in {where}, too small "
                    "for float64 (its precision overflows); rescale the feature (e.g. "
                    "sklearn.preprocessing.StandardScaler)."
                )
            raise Undetermined(
                f"feature {j} has zero variance in {where}; the density is singular. "
                "Regularise it (reg_covar='auto' or a float > 0, or var_smoothing > 0 for "
                "GaussianNB) or drop the feature."
            )
        prec = 1.0 / kern
        return prec, 0.5 * np.log(prec).sum(axis=1)

    def singular(self, kern: np.ndarray) -> np.ndarray:
        """Which entries of the kernel (:meth:`kernel`) are singular, shape (K,) bool: a
        variance not positive or, for dense ones, :func:`cholesky_factor` refusing."""
        if self.dense:
            return np.array([cholesky_factor(S) is None for S in kern], dtype=bool)
        return ~(kern >= SMALLEST_VARIANCE).all(axis=1)

    def mahalanobis(self, P, M, means, reference, Xc, relative: bool) -> np.ndarray:
        """Squared Mahalanobis distances (C, rows) of rows ``Xc`` (centred on
        ``reference``) to each class mean, from precision factors ``P`` (:meth:`factorise`)
        and the projected means ``M`` (diagonal structures also use ``means``); with
        ``relative`` a tied diagonal structure may leave out the row's own term (the
        same for every class)."""
        C, d = M.shape
        if self.dense and not self.tied:  # z_c = U_c^T (x - mu_c), all classes
            Z = np.concatenate(P, axis=1).T @ Xc.T
            Z -= M.reshape(C * d, 1)
            Z *= Z
            return Z.reshape(C, d, -1).sum(axis=1)
        if self.dense:  # tied: exact ||U^T x - U^T mu_c||^2, no cancellation
            Z = Xc @ P[0]
            maha = np.empty((C, Z.shape[0]))
            for c in range(C):
                diff = Z - M[c]
                maha[c] = np.einsum("ij,ij->i", diff, diff)
            return maha
        # diagonal: sum_j p_cj (x_j - mu_cj)^2 = x^2.p_c - 2 x.(p_c mu_c) + mu_c.(p_c mu_c)
        maha = (-2.0 * M) @ Xc.T
        maha += ((means - reference) * M).sum(axis=1)[:, None]
        if self.tied and relative:
            return maha
        maha += P @ (Xc * Xc).T
        return maha


@dataclass(frozen=True)
class Parametrised(Structure):
    """One of mclust's parametrisations that is not one of the six structures above
    (VEI, EVI, VEE, EVE, VVE, EEV, VEV, EVV): per-class covariances (diagonal for VEI
    and EVI) whose volumes, shapes or orientations are shared, estimated by
    :func:`~bayesrule.likelihoods.parametrisation.covariances` and counted by
    :func:`~bayesrule.likelihoods.parametrisation.n_covariance_parameters`."""

    def estimate(self, stats: ClassMoments) -> np.ndarray:
        """ML covariances in the native shape, from statistics of :attr:`stats_kind`."""
        if self.dense:
            return covariances(self.name, stats.count, stats.snapped())
        return variances(self.name, stats.count, stats.snapped())

    def n_parameters(self, n_classes: int, n_features: int) -> int:
        """Free parameters of the covariances (mclust's ``nVarParams``)."""
        return n_covariance_parameters(self.name, n_classes, n_features)


STRUCTURES = {
    name: Structure(name, form, tied)
    for name, form, tied in (
        ("full", "full", False),
        ("tied", "full", True),
        ("diag", "diag", False),
        ("spherical", "spherical", False),
        ("tied_diag", "diag", True),
        ("tied_spherical", "spherical", True),
    )
}
STRUCTURES.update(
    (name, Parametrised(name, "diag" if name[2] == "I" else "full", False))
    for name in MODELS
    if name not in SYNONYMS
)


def get_structure(name) -> Structure:
    """The structure called ``name`` (one of :data:`STRUCTURES`, or mclust's name of one
    of the six: ``"EEE"`` is ``"tied"``), or a ValueError listing the choices."""
    if isinstance(name, Structure):
        return name
    if isinstance(name, str) and name in SYNONYMS:
        return STRUCTURES[SYNONYMS[name]]
    if not isinstance(name, str) or name not in STRUCTURES:
        ours = [n for n in STRUCTURES if n not in MODELS]
        raise ValueError(
            f"covariance must be one of {ours} or mclust's {list(MODELS)}, got {name!r}"
        )
    return STRUCTURES[name]


def pooled_moments(stats: ClassMoments) -> ClassMoments:
    """The tied statistics (pooled within-class scatter) of full ones."""
    return ClassMoments(stats.count, stats.mean, stats.scatter.sum(axis=0), "tied")


#: a feature counts as a linear combination of the others when its conditional
#: variance falls below this fraction of its variance (scale-free singularity test).
SINGULAR_RTOL = 1e-10


def cholesky_factor(S) -> np.ndarray | None:
    """The lower Cholesky factor of S, or None where S is numerically singular: a
    variance not positive, or a feature's variance given the features before it below
    :data:`SINGULAR_RTOL` of its variance."""
    variances = np.diag(S)
    if not np.all(variances > 0):
        return None
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        return None
    return None if (np.diag(L) ** 2 < SINGULAR_RTOL * variances).any() else L


def precision_cholesky(S, k, tied, counts, given=None) -> np.ndarray:
    """Upper-triangular U with U U^T = inverse(S); ValueError when S is singular."""
    L = cholesky_factor(S)
    if L is not None:
        return solve_triangular(L, np.eye(S.shape[0]), lower=True).T
    where = "the pooled covariance" if tied else f"the covariance of {class_name(k)}"
    if given is not None:
        raise ValueError(f"{given}: {where} is not positive definite.")
    d = S.shape[0]
    size = ""
    if counts is not None and not tied and counts[k] <= d:
        size = f" (it has {count(counts[k], 'sample')} for {count(d, 'feature')})"
    constant = np.flatnonzero(~(np.diag(S) > 0))
    if constant.size:
        within = "within every class" if tied else f"in {class_name(k)}"
        cause = f"feature {constant[0]} is constant {within}"
    else:
        cause = "a feature is a linear combination of others"
    raise Undetermined(
        f"{where} is singular{size}: {cause}. Use reg_covar='auto' (the default: "
        "1e-6 times each feature's variance added where a covariance is singular) or a "
        "float > 0, a regularised estimate (estimate='map'), a simpler structure (e.g. "
        "'EEE' or 'tied': one shared covariance; 'VVI' or 'diag': diagonal), or remove "
        "the feature."
    )
