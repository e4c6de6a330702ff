"""Checks of the mixture parameters and data, naming the parameter and the fix."""

from __future__ import annotations

import numbers

import numpy as np

from ..._validation import check_integer, check_nonnegative
from ..covariance import get_structure
from .map_step import check_prior_spec
from .model import COVARIANCES, MCLUST_MODELS, NAMES, MixtureModel
from .starts import INIT_METHODS

#: the initial parameters a Mixture may be given, per class
INITS = ("weights_init", "means_init", "precisions_init")

#: the values of ``covariance`` that make BIC choose the structure, and the structures
#: each searches: mclust's 14 (as ``MclustDA``), or scikit-learn's four
SEARCHES = {"bic": MCLUST_MODELS, "sklearn": COVARIANCES}


def check_covariance(covariance) -> str:
    """A mixture's covariance structure: one of
    :data:`~bayesrule.likelihoods.mixture.model.NAMES` (kept as given)."""
    if not isinstance(covariance, str) or covariance not in NAMES:
        raise ValueError(
            f"covariance must be one of scikit-learn's {list(COVARIANCES)} or mclust's "
            f"{list(MCLUST_MODELS)} for a mixture, got {covariance!r}"
        )
    return covariance


def searched(covariance) -> tuple[str, ...] | None:
    """The structures BIC chooses among for ``covariance`` ("bic": mclust's 14,
    "sklearn": scikit-learn's four), or None for one fixed structure."""
    return SEARCHES.get(covariance) if isinstance(covariance, str) else None


def check_data(X, sample_weight):
    """Float rows, finite but for missing values (NaN), and their weights (None: unit);
    rows of zero weight are left out, and so are rows with nothing observed (their
    observed-data likelihood is 1 whatever the parameters: they say nothing)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a non-empty 2-d array (n_samples, n_features), got {X.shape}")
    if np.isinf(X).any():
        raise ValueError("X must be finite (no infinity; NaN marks a missing value).")
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (X.shape[0],) or not np.isfinite(w).all() or (w < 0).any():
            raise ValueError(
                f"sample_weight must be {X.shape[0]} finite non-negative numbers, got "
                f"shape {w.shape}"
            )
        if not (w > 0).any():
            raise ValueError("sample_weight is zero everywhere; give some samples weight.")
    keep = informative(X, w)
    if not keep.any():
        raise ValueError("every row of X is missing (NaN) everywhere; give observed values.")
    if keep.all():
        return X, w
    return X[keep], None if w is None else w[keep]


def informative(X: np.ndarray, w) -> np.ndarray:
    """The rows EM learns from: of positive weight, with something observed."""
    keep = ~np.isnan(X).all(axis=1) if np.isnan(X).any() else np.ones(X.shape[0], dtype=bool)
    return keep if w is None else keep & (w > 0)


def check_enough_rows(K: int, n: int) -> None:
    """ValueError when a mixture of K components is asked of fewer than K rows."""
    if n < K:
        raise ValueError(
            f"n_components={K} is more than the {n} samples (with positive weight); use "
            f"n_components <= {n}."
        )


def _check_previous(previous, covariance: str, K: int, d: int):
    if not isinstance(previous, MixtureModel):
        raise TypeError(f"previous must be a MixtureModel (warm start), got {previous!r}")
    have = (previous.covariance, previous.n_components, previous.means_.shape[1])
    if have != (covariance, K, d):
        raise ValueError(
            f"previous has covariance={have[0]!r}, {have[1]} components and {have[2]} "
            f"features; a warm start needs covariance={covariance!r}, {K} and {d}."
        )


def check_covariance_name(covariance, named: str = "covariance") -> None:
    """TypeError unless ``covariance`` is a string, ValueError unless it names a
    structure or a search; ``named`` is how the message names it."""
    if not isinstance(covariance, str):
        raise TypeError(
            f"{named} must be a string naming a structure (e.g. 'full' or 'VEV') or "
            f"'bic', got {type(covariance).__name__} {covariance!r}"
        )
    if searched(covariance) is None and covariance not in NAMES:
        raise ValueError(
            f"{named} must be one of scikit-learn's {list(COVARIANCES)}, mclust's "
            f"{list(MCLUST_MODELS)}, 'bic' (BIC chooses among mclust's 14) or 'sklearn' "
            f"(among scikit-learn's four), or a dict of them per class, got {covariance!r}"
        )


def check_mixture_params(mixture, n_classes: int) -> dict:
    """A :class:`Mixture`'s validated settings (its initial parameters by name);
    ValueError/TypeError naming the parameter."""
    check_nonnegative("reg_covar", mixture.reg_covar)
    check_nonnegative("tol", mixture.tol)
    check_integer("max_iter", mixture.max_iter, 0)
    if isinstance(mixture.n_init, str):
        if mixture.n_init != "auto":
            raise ValueError(f"n_init must be an integer >= 1 or 'auto', got {mixture.n_init!r}")
    else:
        check_integer("n_init", mixture.n_init, 1)
    check_integer("max_components", mixture.max_components, 1)
    if not isinstance(mixture.init, str):
        raise TypeError(f"init must be 'kmeans' or 'hc', got {type(mixture.init).__name__}")
    if mixture.init not in INIT_METHODS:
        raise ValueError(
            f"init must be one of {list(INIT_METHODS)} (k-means partitions, or mclust's "
            f"agglomerative tree), got {mixture.init!r}"
        )
    covariances = mixture.covariance
    if isinstance(covariances, dict):  # per class
        _check_keys("covariance", covariances, n_classes)
    else:
        covariances = {None: covariances}
    for c, covariance in covariances.items():
        check_covariance_name(covariance, "covariance" if c is None else f"covariance[{c}]")
        check_prior_spec(getattr(mixture, "prior", None), covariance)
    k = mixture.n_components
    if isinstance(k, str):
        if k != "bic":
            raise ValueError(f"n_components must be an int, a dict or 'bic', got {k!r}")
    elif isinstance(k, dict):
        _check_keys("n_components", k, n_classes)
        for c, value in k.items():
            check_integer(f"n_components[{c}]", value, 1)
    else:
        check_integer("n_components", k, 1)
    inits = {}
    for name in INITS:
        value = getattr(mixture, name)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise TypeError(f"{name} must be None or a dict {{class index: array}}, got {value!r}")
        _check_keys(name, value, n_classes)
        if value and k == "bic":
            raise ValueError(
                f"{name} fixes the number of components, so it cannot be combined with "
                "n_components='bic'; give n_components as an int or a dict."
            )
        if value and name == "precisions_init":
            for c in value:
                covariance = mixture.for_class(c).covariance
                if searched(covariance):
                    raise ValueError(
                        "precisions_init fixes the covariance structure, so it cannot be "
                        f"combined with covariance={covariance!r}."
                    )
        inits[name] = value
    return inits


def _check_keys(name: str, value: dict, n_classes: int):
    bad = [
        c
        for c in value
        if not isinstance(c, numbers.Integral) or isinstance(c, bool) or not 0 <= c < n_classes
    ]
    if bad:
        raise ValueError(
            f"{name} must be keyed by class index 0 .. {n_classes - 1}, got keys {bad!r}"
        )


# --------------------------------------------------------------------- initial parameters
def _array(name: str, value, shape: tuple, why: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of numbers, got {value!r}") from exc
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} ({why}), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite.")
    return arr


def check_inits(covariance: str, K: int, d: int, weights, means, precisions):
    """The given initial weights, means and precision factors (None where not given)."""
    if weights is not None:
        weights = _array("weights_init", weights, (K,), f"one per component, K={K}")
        total = weights.sum()
        if (weights < 0).any() or abs(total - 1.0) > 1e-6:
            raise ValueError(
                f"weights_init must be non-negative and sum to 1, got {weights.tolist()} "
                f"(sum {total!r})"
            )
        weights = weights / total
    if means is not None:
        means = _array("means_init", means, (K, d), f"K={K} components x d={d} features")
    if precisions is None:
        return weights, means, None
    structure = get_structure(covariance)
    shape = structure.native_shape(K, d)
    why = f"covariance={covariance!r}, K={K} components, d={d} features"
    P = _array("precisions_init", precisions, shape, why)
    if not structure.dense:
        if (P <= 0).any():
            raise ValueError(f"precisions_init must be positive for covariance={covariance!r}")
        return weights, means, np.sqrt(P)
    mats = P[None] if structure.tied else P
    U = np.empty_like(mats)
    for k, M in enumerate(mats):
        scale = np.abs(M).max()
        if (np.abs(M - M.T) > 1e-10 * scale).any():
            raise ValueError(f"precisions_init[{k}] must be a symmetric matrix.")
        try:  # upper U with U U^T = P: the lower factor of P with rows and columns reversed
            U[k] = np.linalg.cholesky(M[::-1, ::-1])[::-1, ::-1]
        except np.linalg.LinAlgError:
            raise ValueError(f"precisions_init[{k}] must be positive definite.") from None
    return weights, means, U[0] if structure.tied else U
