"""The Gaussian class-conditional density p(x|w_c) = N(x; mu_c, Sigma_c).

Parameters come from :class:`~bayesrule.stats.moments.ClassMoments` (ML: divide by n), and
regularisation is applied only then. Log-densities are evaluated with Cholesky factors
of the precisions by matrix products, on data centred at a reference point (the training
mean) and in row blocks of bounded size.

The diagonal structure (naive Bayes) also takes missing values (NaN): statistics use the
observed values of each feature (counts per class and feature; ``var_smoothing`` scales
with the largest observed variance), and a missing feature drops out of the product
``prod_j N(x_j; mu_cj, s_cj^2)``, its normalising constant included; a row with every
feature missing has log-likelihood 0 in every class. Rows without NaN keep the
matrix-product path, rows with NaN are evaluated directly. Other structures refuse NaN.
"""

from __future__ import annotations

import numpy as np

from .._text import block
from ..stats.moments import ClassMoments, class_moments
from . import bayesian, edda, estimated_covariance, gaussian_missing, gaussian_terms, rda
from .base import BLOCK_BYTES, SQUARING_LIMIT, Likelihood
from .covariance import get_structure
from .gaussian_blocks import fit_blocks
from .marginal import diagonal_observed
from .regularisation import check_counts, check_reg_covar, check_var_smoothing, regularise

LOG_2PI = np.log(2.0 * np.pi)

#: classes farther than this (squared, in their own standard units) from the reference
#: point are evaluated directly instead of by the expanded quadratic form (which would
#: lose more than about 1e-13 of their log-density).
EXPANSION_LIMIT = 1e3

#: the linear discriminant may run on raw data (its centring folded into the intercept)
#: when every feature's reference lies within this many standard deviations of zero.
FOLD_LIMIT = 1e2


class Gaussian(Likelihood):
    """Gaussian class-conditional densities with a covariance structure.

    Parameters
    ----------
    covariance : str, default="full"
        Covariance structure: "full", "tied", "diag", "spherical", "tied_diag",
        "tied_spherical" (see :mod:`bayesrule.likelihoods.covariance`), one of mclust's
        14 parametrisations "EII" ... "VVV" (:mod:`~bayesrule.likelihoods.parametrisation`;
        "EEE" is "tied", "VVV" "full", ...), or "bic": the one of the 14 of largest BIC
        (EDDA, :mod:`~bayesrule.likelihoods.edda`), chosen at every fit from full class
        moments (``covariance_`` the choice, ``bic_`` every model's BIC).
    reg_covar : "auto" or float, default="auto"
        A float is added to the diagonal of every covariance when statistics become
        parameters. "auto" leaves non-singular ML covariances as they are and adds
        ``1e-6`` times each feature's variance to the diagonal of a singular one;
        ``0`` refuses singular covariances (see
        :mod:`bayesrule.likelihoods.regularisation`).
    var_smoothing : float, default=0.0
        Also added to the diagonal, times the largest variance of any feature over all
        the training data (scikit-learn's GaussianNB rule).
    shrinkage : None, "auto", "cv" or float in [0, 1], default=None
        Tied structure: shrink the pooled covariance towards ``trace / d * I`` (a
        float), or per class by Ledoit-Wolf ("auto", needs ``fit`` or ``fit_blocks``).
        Full structure: RDA's ``gamma``, each class's towards ``trace / d * I`` ("cv":
        chosen by cross-validation, :mod:`bayesrule.likelihoods.rda`).
    pooling : float in [0, 1] or "cv", default=0.0
        Full structure only: RDA's ``lambda``, each class's covariance towards the
        pooled one (1: linear discriminant analysis).
    estimate : {"ml", "map", "predictive"}, default="ml"
        Plug-in maximum likelihood, the posterior mode, or the posterior predictive
        Student-t under ``prior`` (:mod:`bayesrule.likelihoods.bayesian`).
    prior : None, "empirical-bayes", NormalInverseWishart or NormalGamma, default=None
        The conjugate prior of ``estimate="map"``/``"predictive"`` (None: the default).
    covariance_estimator : None or a scikit-learn covariance estimator, default=None
        "full" and "tied" only: each class's covariance is the estimator's
        ``covariance_`` on the class's rows (pooled with weights ``n_c / n`` when tied),
        then ``reg_covar`` (:mod:`~bayesrule.likelihoods.estimated_covariance`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods import Gaussian
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]], float)
    >>> g = Gaussian("diag").fit(X, np.array([0, 0, 0, 1, 1, 1]), n_classes=2)
    >>> g.means_
    array([[-2.        , -1.33333333],
           [ 2.        ,  1.33333333]])
    >>> g.log_likelihood(np.array([[-0.8, -1.0]])).round(3)
    array([[ -2.213, -19.013]])

    A missing value leaves its feature out; with both missing the row says nothing:

    >>> g.log_likelihood(np.array([[-0.8, np.nan], [np.nan, np.nan]])).round(3)
    array([[-1.796, -6.596],
           [ 0.   ,  0.   ]])
    """

    def __init__(
        self,
        covariance="full",
        reg_covar="auto",
        var_smoothing=0.0,
        shrinkage=None,
        pooling=0.0,
        estimate="ml",
        prior=None,
        covariance_estimator=None,
    ):
        self.covariance = covariance
        self.reg_covar = reg_covar
        self.var_smoothing = var_smoothing
        self.shrinkage = shrinkage
        self.pooling = pooling
        self.estimate = estimate
        self.prior = prior
        self.covariance_estimator = covariance_estimator

    largest_magnitude = SQUARING_LIMIT

    @property
    def input_kind(self) -> str:
        """What X may hold: "missing" (NaN) for the diagonal structure and for the others
        (EDDA's "bic" too) under maximum likelihood, else "dense"
        (:func:`~bayesrule.likelihoods.gaussian_missing.takes_missing`)."""
        return "missing" if gaussian_missing.takes_missing(self) else "dense"

    # ----------------------------------------------------------------- statistics
    def _check_params(self):
        """The structure whose statistics are kept (full ones for "bic"), parameters checked."""
        structure = edda.structure_for(self.covariance)
        check_reg_covar(self.reg_covar)
        check_var_smoothing(self.var_smoothing)
        self._amounts(structure)
        estimated_covariance.check(self, structure)
        bayesian.check(self, structure)
        return structure

    def _amounts(self, structure=None) -> tuple:
        """RDA's ``(lambda, gamma)`` as given (floats or "cv"; zeros but for the full
        structure), validated."""
        structure = edda.structure_for(self.covariance) if structure is None else structure
        pooling = getattr(self, "pooling", 0.0)
        edda.check_plain(self.covariance, structure, self.shrinkage, pooling)
        return rda.check_amounts(structure, self.shrinkage, pooling)

    @property
    def _ledoit_wolf(self) -> bool:
        return self.shrinkage == "auto"

    def _cross_validated(self) -> bool:
        return "cv" in self._amounts()

    def statistics(self, X, y, n_classes, sample_weight=None) -> ClassMoments:
        """Sufficient statistics of a block of data (they add with :func:`merge`)."""
        structure = self._check_params()
        if structure.name != "diag" and np.isnan(X).any():
            raise ValueError(
                f"X contains NaN (missing values), which covariance={self.covariance!r} "
                "fills in by EM over all the rows at once: use fit with the data in memory "
                "(not partial_fit or a Dask collection), impute them, or use "
                "covariance='diag' (GaussianNB), which leaves missing features out."
            )
        return class_moments(X, y, n_classes, sample_weight, kind=structure.stats_kind)

    def blockwise_reason(self) -> str | None:
        return estimated_covariance.blockwise_reason(self)

    def fit(self, X, y, n_classes, sample_weight=None):
        """Estimate the densities of ``n_classes`` classes from ``X`` and class indices ``y``."""
        if self._cross_validated():  # the chosen amounts, read by set_statistics
            self.lambda_, self.gamma_ = rda.choose(
                self, X, y, n_classes, sample_weight, *self._amounts()
            )
        structure = self._check_params()
        self.em_choice_ = None  # EDDA's choice by EM over missing values, if any
        if structure.name != "diag" and self.input_kind == "missing" and np.isnan(X).any():
            return gaussian_missing.fit_missing(self, structure, X, y, n_classes, sample_weight)
        if not estimated_covariance.from_rows(self):  # Ledoit-Wolf, covariance_estimator
            return self.set_statistics(self.statistics(X, y, n_classes, sample_weight))
        return self.set_statistics(*estimated_covariance.fit(self, X, y, n_classes, sample_weight))

    def fit_blocks(self, blocks, n_classes):
        """Fit on row blocks (a :class:`~bayesrule._blocks.Blocks` of ``(X, y, w)``, ``y``
        class positions) as :meth:`fit` on all of them: every block's statistics merged;
        with ``shrinkage="auto"`` a second pass for the Ledoit-Wolf sums (refused with a
        ``covariance_estimator``, which needs the rows in memory)."""
        estimated_covariance.refuse_streaming(self, "a Dask collection (in blocks)")
        self.em_choice_ = None
        return fit_blocks(self, blocks, n_classes)

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        """Add a block of data to the statistics and re-derive the parameters."""
        estimated_covariance.refuse_streaming(self, "partial_fit")
        if self._ledoit_wolf or self._cross_validated():
            raise ValueError(
                f"shrinkage={self.shrinkage!r}, pooling={self.pooling!r}: 'auto' or 'cv' "
                "needs all the data at once; use fit, or floats with partial_fit."
            )
        self.em_choice_ = None  # merged statistics: EDDA chooses from them
        return super().partial_fit(X, y, n_classes, sample_weight)

    # ----------------------------------------------------------------- parameters
    def set_statistics(self, stats: ClassMoments, _covariance=None):
        """Turn statistics into parameters (ML estimates, then regularisation). EDDA
        chooses from ``stats``, unless it chose by EM over missing values
        (``em_choice_``, :mod:`~bayesrule.likelihoods.gaussian_missing`); ``_covariance``
        is one the rows gave (:mod:`~bayesrule.likelihoods.estimated_covariance`)."""
        structure = self._check_params()
        check_counts(stats)
        _covariance = estimated_covariance.kept(self, _covariance)
        chosen = self.covariance if isinstance(self.covariance, str) else structure.name
        bic = None
        if edda.choosing(self.covariance):  # EDDA: every model from the full moments
            given = getattr(self, "em_choice_", None)
            chosen, bic = edda.choose(stats) if given is None else given
            structure = get_structure(chosen)
        self.covariance_, self.bic_ = chosen, bic
        if getattr(self, "estimate", "ml") != "ml":  # MAP or predictive: from the posterior
            return bayesian.set_posterior(self, stats, structure)
        self.predictive_ = None
        if _covariance is not None:
            cov = _covariance
        elif stats.per_feature:  # missing values: observed count per class and feature
            cov = stats.scatter / stats.count
        else:
            cov = structure.estimate(edda.as_kind(stats, structure.stats_kind))
        if structure.tied and structure.dense and self.shrinkage not in (None, "auto"):
            a, d = float(self.shrinkage), cov.shape[0]  # towards trace / d * I
            cov = (1 - a) * cov + a * np.trace(cov) / d * np.eye(d)
        elif structure.name == "full":  # RDA: chosen by "cv", or given
            amounts = self._amounts(structure)
            if "cv" not in amounts:
                self.lambda_, self.gamma_ = amounts
            cov = rda.shrink(cov, stats.count, self.lambda_, self.gamma_)
        cov, self.epsilon_, self.auto_regularisation_ = regularise(
            structure, cov, stats, check_reg_covar(self.reg_covar), self.var_smoothing
        )
        self._set_parameters(stats.mean.copy(), cov, stats.total_mean(), stats.count)
        self.stats_ = stats  # only once the parameters exist
        self.pending_ = None
        return self

    def set_parameters(self, means, covariances, *, name="covariances"):
        """Use given means (C, d) and covariances (native shape) as the parameters.

        ``name`` is the caller's name of the covariance argument (for messages).
        """
        if edda.choosing(self.covariance):
            raise ValueError("covariance='bic' chooses the structure from data; name one.")
        structure = self._check_params()
        means, cov = structure.given(means, covariances, name)
        self.covariance_ = self.covariance if isinstance(self.covariance, str) else structure.name
        self.bic_ = self.predictive_ = None
        self._set_parameters(means, cov, means.mean(axis=0), None, given=name)
        self.stats_ = None
        self.epsilon_, self.auto_regularisation_, self.row_covariance_ = 0.0, None, None
        self.pending_ = None
        return self

    def _set_parameters(self, means, cov, ref, counts, given=None):
        structure = self.structure_
        n_classes, d = means.shape
        kern = structure.kernel(cov, n_classes, d)
        prec, log_det = structure.factorise(kern, counts, given)
        if not structure.dense and not structure.tied:
            # centre each feature on the mean of its tightest class: the expanded
            # Mahalanobis terms then cancel nothing where precisions are large (e.g. a
            # feature constant within a class, with only the smoothing variance)
            ref = means[np.argmax(prec, axis=0), np.arange(d)]
        self.means_ = means
        self.covariances_ = cov
        self.reference_ = np.asarray(ref, dtype=np.float64)
        self.precisions_cholesky_ = prec  # (K, d, d) upper factors, or (K, d) precisions
        self.log_norm_ = np.broadcast_to(log_det - 0.5 * d * LOG_2PI, (n_classes,)).copy()
        centred = means - self.reference_
        if structure.dense:
            if structure.tied:
                self.projected_means_ = centred @ prec[0]
                # relative log-likelihood of centred x: x.(P mu_c) - |U^T mu_c|^2 / 2
                self.linear_coef_ = prec[0] @ self.projected_means_.T  # (d, C)
                spread = np.sqrt(np.diag(kern[0]))
                self.fold_reference_ = bool((np.abs(self.reference_) <= FOLD_LIMIT * spread).all())
                # the intercept for centred x, or for raw x when the centring is folded in
                intercept = -0.5 * (self.projected_means_**2).sum(axis=1) + self.log_norm_
                if self.fold_reference_:
                    intercept -= self.reference_ @ self.linear_coef_
                self.linear_intercept_ = intercept
            else:
                self.projected_means_ = np.einsum("cj,cjk->ck", centred, prec)
        else:
            self.projected_means_ = centred * prec
        # the expanded forms lose about eps * kappa_c of each class's log-density, where
        # kappa_c is its squared distance from the reference in its own standard units
        if structure.dense:
            kappa = (self.projected_means_**2).sum(axis=1)
        else:
            kappa = (centred * self.projected_means_).max(axis=1)
        self.exact_classes_ = np.flatnonzero(kappa > EXPANSION_LIMIT)
        return self

    # ----------------------------------------------------------------- evaluation
    @property
    def structure_(self):
        """The fitted :class:`~bayesrule.likelihoods.covariance.Structure` (for "bic",
        the chosen one: ``covariance_``)."""
        if edda.choosing(self.covariance):
            return get_structure(self.covariance_)
        return get_structure(self.covariance)

    n_classes_ = property(lambda self: self.means_.shape[0], doc="The number of classes C.")
    n_features_ = property(lambda self: self.means_.shape[1], doc="The number of features d.")

    def full_covariances(self) -> np.ndarray:
        """Every class's covariance as a full (C, d, d) matrix."""
        return self.structure_.full(self.covariances_, *self.means_.shape)

    def _row_block(self, n_features: int) -> int:
        structure = self.structure_
        C = self.n_classes_
        width = n_features * (C if structure.dense and not structure.tied else 2) + C
        return max(64, BLOCK_BYTES // (8 * width))

    log_terms = gaussian_terms.log_terms

    def _class_major(self, X, relative: bool) -> np.ndarray:
        """Log-densities of a block of rows, shape (C, rows)."""
        if getattr(self, "predictive_", None) is not None:  # Student-t densities
            return self.predictive_.log_density(X)
        structure = self.structure_
        if structure.name != "diag" and self.input_kind == "missing":
            holes = np.isnan(X).any(axis=1)
            if holes.any():  # their marginal densities replace what the filled rows give
                out = self._class_major(np.where(holes[:, None], self.reference_, X), relative)
                gaussian_missing.observed_rows(self, X, out)
                return out
        if self.exact_classes_.size:
            relative = False  # every class then carries the same (complete) terms
        if structure.dense and structure.tied and relative:
            # the linear discriminant: one matrix product; on raw X with the centring
            # folded into the intercept where the data's offset is small next to their
            # spread, otherwise on centred X (the product would lose digits)
            if not self.fold_reference_:
                X = np.subtract(X, self.reference_, dtype=np.float64)
            out = self.linear_coef_.T @ X.T
            out += self.linear_intercept_[:, None]
            return out
        Xc = np.subtract(X, self.reference_, dtype=np.float64)
        P, M = self.precisions_cholesky_, self.projected_means_
        out = structure.mahalanobis(P, M, self.means_, self.reference_, Xc, relative)
        for c in self.exact_classes_:
            # far from the reference: centre on the class itself, nothing cancels
            diff = np.subtract(X, self.means_[c], dtype=np.float64)
            k = 0 if structure.tied else c
            if structure.dense:
                diff = diff @ P[k]
                out[c] = np.einsum("ij,ij->i", diff, diff)
            else:
                diff *= diff
                out[c] = diff @ P[k]
        out *= -0.5
        out += self.log_norm_[:, None]
        if not structure.dense:
            partial = np.flatnonzero(np.isnan(out).any(axis=0))
            if partial.size:  # missing values (or overflow): exact, per class
                out[:, partial] = diagonal_observed(self, X[partial])
        return out

    # ----------------------------------------------------------------- model size, sampling
    def describe(self, classes, feature_names) -> list[str]:
        """Lines of the fitted parameters for ``summary()``: mean and covariance per class."""
        chosen = f" (chose {self.covariance_!r})" if edda.choosing(self.covariance) else ""
        names = ", ".join(feature_names)
        header = f"Gaussian, covariance={self.covariance!r}{chosen}; features {names}"
        return [header, *self.parameter_lines(classes)]

    def parameter_lines(self, classes, per_class=None) -> list[str]:
        """The shared covariance (tied structures), then per class its mean, its own
        covariance and the lines ``per_class(c)`` adds (e.g. discriminant coefficients)."""
        structure = self.structure_
        lines = []
        if structure.tied:
            lines += block(f"shared covariance ({structure.name})", self.covariances_)
        for c, label in enumerate(classes):
            lines.append(f"class {label}:")
            lines += block("mean", self.means_[c])
            if not structure.tied:
                lines += block(f"covariance ({structure.name})", self.covariances_[c])
            lines += per_class(c) if per_class is not None else []
        return lines

    def n_parameters(self) -> int:
        """Free parameters: the means and the covariances."""
        C, d = self.means_.shape
        return C * d + self.structure_.n_parameters(C, d)

    def sample(self, counts, random_state) -> np.ndarray:
        """``counts[c]`` draws of class c, rows in class order, shape (sum(counts), d)."""
        structure = self.structure_
        return structure.draw(self.means_, self.covariances_, counts, random_state)
