"""What the Gaussian presets share: their fitted parameters, the seeds' discriminant
coefficients ``g_i(x) = x^T W_i x + w_i^T x + w_i0`` (seed 003, equations 23-26) and
``from_parameters``."""

from __future__ import annotations

from inspect import Parameter

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._signatures import declared_function, parameters
from ..likelihoods import Gaussian
from .preset import COMMON, fitted

#: the Bayesian estimates' parameters, for the presets' docstrings (``{bayes}``)
BAYES = """estimate : {"ml", "map", "predictive"}, default="ml"
        Maximum likelihood, the posterior mode, or the posterior predictive Student-t
        under a conjugate ``prior`` (:mod:`bayesrule.likelihoods.bayesian`; the latter
        two give ``log_marginal_likelihood_``).
    prior : None, "empirical-bayes", NormalInverseWishart or NormalGamma, default=None
        The prior of ``estimate="map"``/``"predictive"`` (None: mclust-like defaults,
        :mod:`bayesrule.likelihoods.conjugate`)."""

#: the covariance estimator's parameter, for the presets' docstrings: its name and what it
#: is (``{covariance_estimator}``), then what it gives (the preset's own text), then its
#: rules (``{estimator_rules}``)
COVARIANCE_ESTIMATOR = """covariance_estimator : None or a covariance estimator, default=None
        Any object with ``fit(X)`` and a fitted ``covariance_`` (``sklearn.covariance``'s
        ``OAS()``, ``LedoitWolf()``, ``ShrunkCovariance()``, ``MinCovDet()``, ...), in
        place of the ML estimate:"""
ESTIMATOR_RULES = """``reg_covar`` is still added to its diagonal (the default "auto" only where
        it is singular). It needs ``fit`` with the data in memory (not ``partial_fit``,
        a Dask collection, ``sample_weight`` or missing values) and excludes the other
        estimates (``shrinkage``, RDA's ``pooling``, an ``estimate`` other than "ml"):
        pick one (:mod:`bayesrule.likelihoods.estimated_covariance`)."""

_FROM_PARAMETERS_DOC = """A fitted {name} from known parameters, with no data.

        Parameters
        ----------
        means : array-like of shape (C, d)
        {cov} : array-like of shape {shape}
        priors : None, "uniform", array-like or dict, default=None
            None means uniform (there are no data to count classes in; "empirical" is
            refused).
        classes : array-like of shape (C,), optional
            Class labels in the order of ``means``; default ``0 .. C-1``. The order is kept.
        loss, reject_label
            As in the estimator.

        Returns
        -------
        {name}
            Fitted; ``partial_fit`` is refused (there are no statistics to add to).
        """


class _GaussianParameters:
    """Parameters, discriminant coefficients and ``from_parameters`` of Gaussian presets."""

    _family = Gaussian
    _doc_parts = {
        "common": COMMON,
        "bayes": BAYES,
        "covariance_estimator": COVARIANCE_ESTIMATOR,
        "estimator_rules": ESTIMATOR_RULES,
    }
    _given: tuple[str, str]  # from_parameters' covariance argument: its name and shape

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_given" not in cls.__dict__:
            return
        name, shape = cls._given
        arguments = {"means": Parameter.empty, name: Parameter.empty, "priors": None}
        arguments |= {"classes": None, "loss": None, "reject_label": None}
        signature = [Parameter("cls", Parameter.POSITIONAL_OR_KEYWORD)] + parameters(
            arguments, positional=("means", name, "priors", "classes")
        )
        doc = _FROM_PARAMETERS_DOC.format(name=cls.__name__, cov=name, shape=shape)
        function = declared_function(
            f"{cls.__name__}.from_parameters", signature, _from_parameters, doc
        )
        cls.from_parameters = classmethod(function)

    @property
    def means_(self) -> np.ndarray:
        """Class means, shape (C, d)."""
        check_is_fitted(self, "likelihood_")
        return self.likelihood_.means_

    @property
    def covariances_(self) -> np.ndarray:
        """Covariances in the structure's shape (full (C, d, d), tied (d, d), diag (C, d))."""
        check_is_fitted(self, "likelihood_")
        return self.likelihood_.covariances_

    def _refuse_streaming(self) -> None:
        """AttributeError (``partial_fit`` not available) with a covariance estimator."""
        if self.covariance_estimator is not None:
            raise AttributeError(
                "partial_fit is not available with a covariance_estimator: it fits each "
                "class's rows all at once; use fit with the data in memory."
            )

    log_marginal_likelihood_ = fitted(
        "With estimate='map' or 'predictive': the evidence ``ln p(X_c)`` of each class's "
        "training rows, shape (C,) (its sum: the total)."
    )

    def full_covariances(self) -> np.ndarray:
        """Every class's covariance as a full matrix, shape (C, d, d)."""
        check_is_fitted(self, "likelihood_")
        return self.likelihood_.full_covariances()

    def _precisions(self, *, dense: bool) -> np.ndarray:
        """Precision matrices (C, d, d), or for diagonal structures with ``dense=False``
        just their diagonals (C, d), so wide naive Bayes models build no d x d arrays."""
        self._ready()
        P = self.likelihood_.precisions_cholesky_
        C = len(self.classes_)
        if P.ndim == 3:
            prec = P @ np.swapaxes(P, 1, 2)
        elif dense:
            prec = np.einsum("kj,jl->kjl", P, np.eye(P.shape[1]))
        else:
            prec = P
        return np.broadcast_to(prec, (C, *prec.shape[1:]))

    @property
    def quadratic_coef_(self) -> np.ndarray:
        """``W_i = -1/2 Sigma_i^-1`` (seed 003, eq. 24), shape (C, d, d)."""
        check_is_fitted(self, "likelihood_")
        return -0.5 * self._precisions(dense=True)

    @property
    def coef_(self) -> np.ndarray:
        """``w_i = Sigma_i^-1 mu_i`` (eq. 25), shape (C, d)."""
        check_is_fitted(self, "likelihood_")
        prec = self._precisions(dense=False)
        if prec.ndim == 2:
            return prec * self.means_
        return np.einsum("cjk,ck->cj", prec, self.means_)

    @property
    def intercept_(self) -> np.ndarray:
        """``w_i0 = -1/2 mu_i^T Sigma_i^-1 mu_i - 1/2 ln|Sigma_i| + ln P(w_i)`` (eq. 26).

        Without the class-independent ``-d/2 ln 2 pi``, as the seed writes it.
        """
        check_is_fitted(self, "likelihood_")
        like = self.likelihood_
        half_log_det_prec = like.log_norm_ + 0.5 * like.means_.shape[1] * np.log(2 * np.pi)
        quad = np.einsum("cj,cj->c", self.coef_, self.means_)
        with np.errstate(divide="ignore"):
            return -0.5 * quad + half_log_det_prec + np.log(self.class_prior_)


def _from_parameters(cls, means, covariances, priors, classes, loss, reject_label):
    """A fitted classifier from known parameters, with no data (the body of every
    preset's ``from_parameters``; ``covariances`` is named as its ``_given`` says)."""
    if isinstance(priors, str) and priors == "empirical":
        raise ValueError(
            "priors='empirical' needs data to count classes in; from_parameters takes "
            "None or 'uniform', an array or a dict."
        )
    est = cls(priors="uniform" if priors is None else priors, loss=loss, reject_label=reject_label)
    like = est._make_likelihood().set_parameters(means, covariances, name=cls._given[0])
    C, d = like.means_.shape
    labels = np.arange(C) if classes is None else np.asarray(classes)
    if classes is not None and labels.dtype.kind in "US":
        if not all(isinstance(c, str) for c in classes):  # keep mixed labels as given
            labels = np.asarray(list(classes), dtype=object)
    if labels.shape != (C,) or len(set(labels.tolist())) != C:
        raise ValueError(f"classes must be {C} distinct labels, one per row of means")
    est._check_classes(labels)
    est._check_decision(labels, None)
    est.classes_, est.likelihood_, est.n_features_in_ = labels, like, d
    est.class_count_ = np.zeros(C)
    est._fitted()
    return est
