"""A fitted Gaussian mixture density ``p(x) = sum_k w_k N(x; mu_k, Sigma_k)``.

:class:`MixtureModel` evaluates ``ln w_k + ln N_k(x)`` with the Cholesky factors ``U_k``
of the precisions (``U_k U_k^T = Sigma_k^-1``): ``z_k = U_k^T (x - r) - U_k^T (mu_k - r)``
on rows centred at a reference ``r`` (the training mean), for all K components with one
matrix product (the factors side by side), in class-major blocks of rows that stay in
cache; ``ln p(x)`` is then a log-sum-exp over components. The factors and shapes are
scikit-learn's (``GaussianMixture.precisions_cholesky_``).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import logsumexp

from ..._engines.threads import one_blas_thread
from ..base import BLOCK_BYTES
from ..covariance import SINGULAR_RTOL, STRUCTURES, get_structure
from ..marginal import log_density_observed
from ..parametrisation import MODELS

LOG_2PI = np.log(2.0 * np.pi)

#: the four structures of scikit-learn's GaussianMixture (``covariance_type``).
COVARIANCES = ("full", "tied", "diag", "spherical")

#: mclust's 14 models (``mclust.options("emModelNames")``), "E" meaning shared by the
#: components of one class's mixture: EII is "tied_spherical", VII "spherical", EEI
#: "tied_diag", VVI "diag", EEE "tied", VVV "full"; the other eight are
#: :class:`~bayesrule.likelihoods.covariance.Parametrised` structures.
MCLUST_MODELS = MODELS

#: every name a mixture's covariance may have (the search values "bic" and "sklearn"
#: aside): the structures of :mod:`~bayesrule.likelihoods.covariance` and mclust's names
NAMES = (*(name for name in STRUCTURES if name not in MODELS), *MODELS)

#: the temporaries of one block of rows take about this many bytes (larger blocks cost
#: fewer Python calls; these still run near cache speed).


def row_block(n_components: int, n_features: int) -> int:
    """Rows per block of the E and M steps (temporaries of about ``BLOCK_BYTES``)."""
    K, d = n_components, n_features
    return max(64, BLOCK_BYTES // (8 * (2 * K * d + d + 2 * K)))


def has_missing(X: np.ndarray) -> bool:
    """Whether ``X`` holds a NaN (one reduction, no temporary array)."""
    return bool(X.size) and bool(np.isnan(X.min()))


def centred_block(X: np.ndarray, reference: np.ndarray, out=None) -> np.ndarray:
    """Rows ``X`` (m, d) as the E step takes them: ``(X - reference).T`` over a row of
    ones, shape (d + 1, m) (``out`` an optional buffer of that shape)."""
    m, d = X.shape
    if out is None:
        out = np.empty((d + 1, m))
    np.subtract(X.T, reference[:, None], out=out[:d])
    out[d] = 1.0
    return out


class MixtureModel:
    """A fitted Gaussian mixture density (one class's ``p(x|w)``).

    Build it with :func:`~bayesrule.likelihoods.mixture.fit_mixture`; attributes follow
    scikit-learn's ``GaussianMixture``. ``MixtureModel(covariance, weights, means,
    covariances, precisions_cholesky, reference)`` rebuilds one from its parameters
    (``n_iter_``, ``converged_``, ``lower_bound_``, ``lower_bounds_`` are then set apart).

    Attributes
    ----------
    covariance : str
        One of :data:`NAMES`: scikit-learn's four or mclust's 14 (any name
        :func:`~bayesrule.likelihoods.covariance.get_structure` takes; "tied" and mclust's
        "E" are shared by the components).
    n_components : int
    weights_ : ndarray of shape (K,)
    means_ : ndarray of shape (K, d)
    covariances_ : ndarray
        The structure's native shape: (K, d, d) full and the dense mclust models,
        (d, d) tied (EEE), (K, d) diag and VEI/EVI, (K,) spherical, (d,) tied_diag
        (EEI), () tied_spherical (EII).
    precisions_cholesky_ : ndarray
        Upper factors ``U`` with ``U U^T`` the precision, in the same shapes (diagonal
        and spherical: ``1 / sqrt(variance)``).
    n_iter_ : int
        EM iterations of the kept run.
    converged_ : bool
    lower_bound_ : float
        Mean (weighted) log-likelihood per sample at the last E step.
    lower_bounds_ : list of float
        The lower bound of every iteration of the kept run (EM never lowers it; with
        ``reg_covar > 0`` up to that regularisation's tiny effect).
    reference_ : ndarray of shape (d,)
        The point the data are centred at when densities are evaluated.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.mixture.em import fit_mixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(-3, 1, (300, 1)), rng.normal(3, 1, (300, 1))])
    >>> model = fit_mixture(X, None, 2, random_state=0)
    >>> np.sort(model.means_.ravel()).round(1), model.weights_.round(2)
    (array([-3.,  3.]), array([0.5, 0.5]))
    >>> model.log_density(np.array([[0.0], [3.0]])).round(3)
    array([-5.574, -1.54 ])
    """

    def __init__(self, covariance, weights, means, covariances, precisions_cholesky, reference):
        self.covariance = covariance
        self.n_components = len(weights)
        self.weights_ = weights
        self.means_ = means
        self.covariances_ = covariances
        self.precisions_cholesky_ = precisions_cholesky
        self.reference_ = reference
        self.n_iter_, self.converged_ = 0, False
        self.lower_bound_, self.lower_bounds_ = -np.inf, []
        self._prepare()

    def _prepare(self):
        """The E step's arrays: factors side by side (with the projected means as an
        extra column), or scales and shifts for diagonal structures; constants."""
        U, K = self.precisions_cholesky_, self.n_components
        d = self.means_.shape[1]
        centred = self.means_ - self.reference_
        if get_structure(self.covariance).dense:  # Cholesky factors, not scales
            mats = np.broadcast_to(U, (K, d, d))
            factors = np.empty((K * d, d + 1))  # rows U_k^T, last column -U_k^T (mu_k - r)
            factors[:, :d] = np.swapaxes(mats, 1, 2).reshape(K * d, d)
            factors[:, d] = -np.einsum("kj,kjl->kl", centred, mats).reshape(K * d)
            self._factors = factors
            log_det = np.log(np.einsum("kjj->kj", mats)).sum(axis=1)
        else:
            scale = diagonal_scales(self.covariance, U, K)  # (K, 1) or (K, d)
            self._factors = scale[:, :, None]
            self._shift = (centred * scale)[:, :, None]
            log_det = np.log(scale).sum(axis=1) * (d if scale.shape[1] == 1 else 1)
        with np.errstate(divide="ignore"):  # a zero weight: -inf, the component is off
            self._const = (np.log(self.weights_) + log_det - 0.5 * d * LOG_2PI)[:, None]

    def check_state(self, n_features: int) -> None:
        """Refuse (ValueError) parameters no EM run gives (e.g. from an edited file)."""
        from .state import check_mixture_model

        check_mixture_model(self, n_features, precisions_cholesky)

    # ----------------------------------------------------------------- evaluation
    def _block_log_prob(self, Xa: np.ndarray, Z=None, out=None) -> np.ndarray:
        """``ln w_k + ln N_k(x)`` of a block, shape (K, m).

        ``Xa`` (d + 1, m) holds the rows centred at ``reference_``, transposed, and a last
        row of ones; ``Z`` (K d, m) and ``out`` (K, m) are optional buffers.
        """
        K, m = self.n_components, Xa.shape[1]
        d = Xa.shape[0] - 1
        if get_structure(self.covariance).dense:  # z_k = U_k^T (x - mu_k), one product
            Z = np.matmul(self._factors, Xa, out=Z)
        else:
            out_z = None if Z is None else Z.reshape(K, d, m)
            Z = np.multiply(Xa[None, :d], self._factors, out=out_z)
            Z -= self._shift
        Z = Z.reshape(K, d, m)
        out = np.einsum("kdm,kdm->km", Z, Z, out=out)
        out *= -0.5
        out += self._const
        return out

    def _blocks(self, X):
        """Row slices of ``X`` and their blocks for :meth:`_block_log_prob`."""
        step = row_block(self.n_components, self.means_.shape[1])
        for start in range(0, X.shape[0], step):
            rows = slice(start, min(start + step, X.shape[0]))
            yield rows, centred_block(X[rows], self.reference_)

    def component_log_density(self, X) -> np.ndarray:
        """``ln w_k + ln N(x; mu_k, Sigma_k)`` for every row and component, shape (n, K);
        a row with missing values (NaN) gets the density of its observed coordinates."""
        X = np.asarray(X, dtype=np.float64)
        out = np.empty((X.shape[0], self.n_components))
        if has_missing(X):
            missing = np.isnan(X).any(axis=1)
            out[missing] = self._observed_log_prob(X[missing]).T
            out[~missing] = self.component_log_density(X[~missing])
            return out
        with one_blas_thread(), np.errstate(over="ignore", invalid="ignore"):
            for rows, Xa in self._blocks(X):
                out[rows] = self._block_log_prob(Xa).T
        return out

    def _observed_log_prob(self, X) -> np.ndarray:
        """``ln w_k + ln N(x_o; mu_ko, Sigma_koo)`` of rows with missing values, (K, m):
        the missing coordinates integrated out exactly
        (:func:`~bayesrule.likelihoods.marginal.log_density_observed`)."""
        with one_blas_thread():
            out = log_density_observed(X, self.means_, self.full_covariances())
        with np.errstate(divide="ignore"):  # a zero weight: -inf, the component is off
            out += np.log(self.weights_)[:, None]
        return out

    def log_density(self, X) -> np.ndarray:
        """``ln p(x)`` of the mixture for every row of ``X``, shape (n,). A row with
        missing values (NaN) gets the density of its observed coordinates,
        ``ln sum_k w_k N(x_o; mu_ko, Sigma_koo)`` (0 when none is observed); complete
        rows take the fast path."""
        X = np.asarray(X, dtype=np.float64)
        if has_missing(X):
            missing = np.isnan(X).any(axis=1)
            out = np.empty(X.shape[0])
            part = X[missing]
            part = np.where(
                np.isnan(part).all(axis=1), 0.0, logsumexp(self._observed_log_prob(part), axis=0)
            )
            out[missing] = part  # (nothing observed: exactly ln 1, whatever the weights' rounding)
            out[~missing] = self.log_density(X[~missing])
            return out
        out = np.empty(X.shape[0])
        with one_blas_thread(), np.errstate(all="ignore"):  # far rows: -inf
            for rows, Xa in self._blocks(X):
                log_prob = self._block_log_prob(Xa)
                norm = log_prob.max(axis=0)
                norm[~np.isfinite(norm)] = 0.0
                log_prob -= norm
                np.exp(log_prob, out=log_prob)
                total = log_prob.sum(axis=0)
                np.log(total, out=total)
                out[rows] = total + norm
        return out

    def full_covariances(self) -> np.ndarray:
        """Every component's covariance as a full matrix, shape (K, d, d)."""
        K, d = self.means_.shape
        return get_structure(self.covariance).full(self.covariances_, K, d)

    def sample(self, n, rng) -> np.ndarray:
        """``n`` draws: a component from the weights, then its Gaussian; shape (n, d).

        Rows come grouped by component (as scikit-learn's ``sample``).
        """
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(rng)
        K, d = self.means_.shape
        counts = rng.multinomial(int(n), self.weights_ / self.weights_.sum())
        factors = np.linalg.cholesky(self.full_covariances())
        draws = [
            self.means_[k] + rng.standard_normal((int(c), d)) @ factors[k].T
            for k, c in enumerate(counts)
        ]
        return np.concatenate(draws) if draws else np.empty((0, d))

    def n_parameters(self) -> int:
        """Free parameters (scikit-learn's ``_n_parameters``), see :func:`n_free`."""
        return n_free(self.covariance, *self.means_.shape)

    def bic(self, X, sample_weight=None) -> float:
        """``-2 sum_i w_i ln p(x_i) + p ln(sum_i w_i)`` (lower is better), ``p(x_i)`` the
        density of row i's observed coordinates; a row with nothing observed says nothing
        and is left out of both sums, as EM leaves it out."""
        X = np.asarray(X, dtype=np.float64)
        ll = self.log_density(X)
        w = np.ones(len(ll)) if sample_weight is None else np.asarray(sample_weight, float)
        keep = w > 0  # a zero-weight row says nothing, even where its density is 0
        if np.isnan(X).any():
            keep &= ~np.isnan(X).all(axis=1)
        total = w[keep].sum()
        return float(-2.0 * (w[keep] @ ll[keep]) + self.n_parameters() * np.log(total))

    def __repr__(self) -> str:
        return (
            f"MixtureModel(covariance={self.covariance!r}, n_components={self.n_components}, "
            f"n_iter_={self.n_iter_}, lower_bound_={self.lower_bound_:.6g})"
        )


# --------------------------------------------------------------------- precisions
def diagonal_scales(covariance: str, U: np.ndarray, K: int) -> np.ndarray:
    """The ``1 / sigma`` of a diagonal structure's K components from its precision
    factors ``U`` in the native shape: (K, 1) for a spherical form (one per component,
    or shared), (K, d) for a diagonal one."""
    structure = get_structure(covariance)
    U = np.asarray(U, dtype=np.float64)
    if structure.form == "spherical":
        return np.broadcast_to(np.reshape(U, (-1, 1)), (K, 1))
    return np.broadcast_to(U, (K, U.shape[-1]))


def n_free(covariance: str, K: int, d: int) -> int:
    """Free parameters of a K-component mixture in d dimensions: K - 1 weights, K d means
    and the covariances' parameters."""
    return K - 1 + K * d + get_structure(covariance).n_parameters(K, d)


def singular_message(k: int, covariance: str, reg_covar: float) -> str:
    """Why component k cannot be used, and what to change."""
    if reg_covar == 0:
        structure = get_structure(covariance)
        which = f"the covariance of mixture component {k}"
        if structure.tied:
            which = "the shared covariance"
        diag = " or covariance='diag'" if structure.dense else ""
        return (
            f"{which} became singular (a component collapsed onto too few distinct "
            f"samples); set reg_covar > 0 (e.g. 1e-6), or use fewer components{diag}."
        )
    return (
        f"the covariance of mixture component {k} is not positive definite even with "
        f"reg_covar={reg_covar!r} (covariance={covariance!r}); increase reg_covar, use "
        "fewer components, or standardise the features."
    )


def precisions_cholesky(covariance: str, cov: np.ndarray, reg_covar: float) -> np.ndarray:
    """Upper Cholesky factors of the precisions (scikit-learn's shapes) from covariances.

    ValueError when a covariance is not positive definite; with ``reg_covar == 0`` also
    when it is numerically singular (a pivot below ``SINGULAR_RTOL`` of its variance).
    """
    structure = get_structure(covariance)
    if not structure.dense:
        bad = ~(cov > 0)
        if reg_covar == 0 and not structure.tied:  # compared with the other components
            bad |= cov < SINGULAR_RTOL * np.max(cov, axis=0, initial=0.0)
        if bad.any():
            k = int(np.argwhere(bad)[0][0]) if cov.ndim and not structure.tied else 0
            raise ValueError(singular_message(k, covariance, reg_covar))
        return 1.0 / np.sqrt(cov)
    mats = cov[None] if structure.tied else cov
    d = mats.shape[-1]
    out = np.empty_like(mats)
    for k, S in enumerate(mats):
        try:
            L = np.linalg.cholesky(S)
        except np.linalg.LinAlgError:
            L = None
        if L is None or (reg_covar == 0 and (np.diag(L) ** 2 < SINGULAR_RTOL * np.diag(S)).any()):
            raise ValueError(singular_message(k, covariance, reg_covar))
        out[k] = solve_triangular(L, np.eye(d), lower=True).T
    return out[0] if structure.tied else out


def covariances_from_precisions(covariance: str, U: np.ndarray) -> np.ndarray:
    """Covariances (native shape) from the upper factors ``U`` of the precisions."""
    structure = get_structure(covariance)
    if not structure.dense:
        return 1.0 / (U * U)
    mats = U[None] if structure.tied else U
    eye = np.eye(mats.shape[-1])
    # Sigma = (U U^T)^-1 = V^T V with V = U^-1
    inv = np.array([solve_triangular(u, eye, lower=False) for u in mats])
    cov = np.swapaxes(inv, 1, 2) @ inv
    return cov[0] if structure.tied else cov
