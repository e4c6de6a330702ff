"""Named Gaussian classifiers: thin presets of :class:`~bayesrule.BayesClassifier`.

Each preset fixes the covariance structure of a :class:`~bayesrule.likelihoods.Gaussian`
and exposes its parameters and the seeds' discriminant coefficients
``g_i(x) = x^T W_i x + w_i^T x + w_i0`` (seed 003, equations 23-26).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import check_integer
from .gaussian_parameters import _GaussianParameters
from .preset import Preset, fitted
from .projection import discriminant_directions


class QuadraticDiscriminant(_GaussianParameters, Preset):
    """Gaussian classes with their own full covariance (quadratic boundaries).

    ML estimates: ``mu_c = mean`` and ``Sigma_c = (1/n_c) sum (x - mu_c)(x - mu_c)^T``.

    Parameters
    ----------
    reg_covar : "auto" or float, default="auto"
        "auto" keeps each class's ML covariance where it is non-singular and adds
        ``1e-6`` times each feature's variance (over all the training data, or in the
        class where larger) to the diagonal of a singular one (a class with fewer
        samples than features, a feature constant within the class); the features'
        units do not matter. A float is added to the diagonal of every covariance; ``0``
        refuses singular covariances with a ValueError. A class whose rows are all
        equal (one row, say) gets the added variances alone: a density of width about
        0.1 % of each feature's spread around that row (a float > 0 sets another). See
        :mod:`bayesrule.likelihoods.regularisation`.
    pooling : float in [0, 1] or "cv", default=0.0
        Regularised discriminant analysis (Friedman 1989): each class's covariance is
        ``(1 - lambda) S_c + lambda S``, S the pooled covariance (1: the linear
        discriminant's). "cv" chooses it by 5-fold cross-validated log loss (``fit``
        in memory; :mod:`bayesrule.likelihoods.rda`).
    shrinkage : None, float in [0, 1] or "cv", default=None
        RDA's ``gamma``: then ``(1 - gamma) S_c + gamma tr(S_c) / d I`` (None: 0).
        Small classes in many dimensions want both.
    {covariance_estimator}
        each class's covariance is ``clone(estimator).fit(X_c).covariance_`` on the
        class's rows ``X_c``.
        {estimator_rules}
    {bayes}
    priors, loss, reject_label
        As in :class:`~bayesrule.BayesClassifier`.

    Examples
    --------
    Seed 003's fruit with its true parameters and priors 0.4, 0.4, 0.2:

    >>> import numpy as np
    >>> from bayesrule import QuadraticDiscriminant
    >>> qda = QuadraticDiscriminant.from_parameters(
    ...     means=[[150, 560], [160, 615], [230, 620]],
    ...     covariances=[np.diag([200, 200]), np.diag([250, 150]), np.diag([400, 200])],
    ...     priors=[0.4, 0.4, 0.2], classes=["apple", "orange", "grapefruit"],
    ...     loss=[[0, 2, 3], [1, 0, 2], [1, 1, 0]])
    >>> x = [[170, 585]]
    >>> [f"{v:.4e}" for v in np.exp(qda.log_likelihood(x))[0]]
    ['6.1364e-05', '3.3501e-05', '2.9236e-07']
    >>> qda.predict_proba(x).round(4), qda.risk(x).round(4)
    (array([[0.6459, 0.3526, 0.0015]]), array([[0.7098, 0.6489, 0.9985]]))
    >>> qda.predict(x)
    array(['orange'], dtype='<U10')

    Each class's covariance from a scikit-learn estimator (OAS shrinkage) on its rows:

    >>> from sklearn.covariance import OAS
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> qda = QuadraticDiscriminant(covariance_estimator=OAS()).fit(X, y)
    >>> bool(np.allclose(qda.covariances_[0], OAS().fit(X[y == 0]).covariance_))
    True
    >>> qda.predict_proba(X[[70, 77]]).round(4)
    array([[0.    , 0.4183, 0.5817],
           [0.    , 0.8093, 0.1907]])
    """

    _fixed = {"covariance": "full"}
    _parameters = {
        "reg_covar": "auto",
        "pooling": 0.0,
        "shrinkage": None,
        "covariance_estimator": None,
        "estimate": "ml",
        "prior": None,
    }

    def _can_partial_fit(self):
        self._refuse_streaming()
        if "cv" in (self.pooling, self.shrinkage):
            raise AttributeError(
                "partial_fit is not available with pooling or shrinkage 'cv': the choice "
                "cross-validates on all the data at once; use fit, or floats."
            )
        return True

    @available_if(_can_partial_fit)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled data (not with 'cv' or a covariance_estimator); see
        BayesClassifier."""
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    lambda_ = fitted("RDA's ``lambda``: the pooling used (chosen when ``pooling='cv'``).")
    gamma_ = fitted("RDA's ``gamma``: the shrinkage used (chosen when ``shrinkage='cv'``).")
    _given = ("covariances", "(C, d, d)")


class LinearDiscriminant(
    _GaussianParameters, ClassNamePrefixFeaturesOutMixin, TransformerMixin, Preset
):
    """Gaussian classes sharing one covariance, the pooled ML estimate (linear boundaries).

    ``Sigma = (1/n) sum_c sum_{x in c} (x - mu_c)(x - mu_c)^T``.

    Parameters
    ----------
    reg_covar : "auto" or float, default="auto"
        "auto" keeps the pooled ML covariance where it is non-singular and adds ``1e-6``
        times each feature's variance to its diagonal where it is singular (raw digits:
        constant pixels). A direction with no within-class spread then changes no
        posterior where the class means agree along it (the null space is dropped, as
        scikit-learn's SVD solver does), and decides where they differ (it separates
        the classes). A float is added to the diagonal; ``0`` refuses a singular pooled
        covariance with a ValueError. With no within-class spread at all (one row per
        class) a float > 0 is needed.
    shrinkage : None, "auto" or float in [0, 1], default=None
        A float shrinks towards ``trace / d * I``; "auto" applies Ledoit-Wolf to each
        class and pools (as scikit-learn's lsqr solver; needs ``fit``, in memory or on
        a Dask collection in two passes, not ``partial_fit``).
    {covariance_estimator}
        the shared covariance is ``sum_c n_c / n clone(estimator).fit(X_c).covariance_``
        over the classes' rows ``X_c`` (scikit-learn's
        ``LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=...)``).
        {estimator_rules}
    n_components : None or int, default=None
        Coordinates of :meth:`transform`, from 1 to ``min(C - 1, d)`` (None: all).
    {bayes}
    priors, loss, reject_label
        As in :class:`~bayesrule.BayesClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import LinearDiscriminant
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]], float)
    >>> lda = LinearDiscriminant().fit(X, [1, 1, 1, 2, 2, 2])
    >>> lda.covariances_.round(4)
    array([[0.6667, 0.3333],
           [0.3333, 0.2222]])
    >>> lda.predict([[-0.8, -1.0]])
    array([1])

    The shared covariance from a scikit-learn estimator (OAS shrinkage) on each class's
    rows, pooled:

    >>> from sklearn.covariance import OAS
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> lda = LinearDiscriminant(covariance_estimator=OAS()).fit(X, y)
    >>> lda.predict_proba(X[[70, 77]]).round(4)
    array([[0.    , 0.3038, 0.6962],
           [0.    , 0.638 , 0.362 ]])
    """

    _fixed = {"covariance": "tied"}
    _parameters = {
        "reg_covar": "auto",
        "shrinkage": None,
        "covariance_estimator": None,
        "n_components": None,
        "estimate": "ml",
        "prior": None,
    }
    _given = ("covariance", "(d, d)")

    def _family_options(self) -> dict:
        options = super()._family_options()
        del options["n_components"]  # the projection's, not the density's
        return options

    def _projection(self):
        """``(xbar_, scalings_, explained_variance_ratio_)`` of the fitted model under
        its current priors (:mod:`bayesrule.estimators.projection`)."""
        check_is_fitted(self, "likelihood_")
        most = min(len(self.classes_) - 1, self.n_features_in_)
        k = self.n_components
        if k is not None:
            check_integer(
                "n_components",
                k,
                1,
                most + 1,
                why=f"n_components must be from 1 to min(n_classes - 1, n_features) = {most}, "
                f"got {k!r}",
            )
        return discriminant_directions(self.means_, self.covariances_, self.class_prior_, k)

    @property
    def _n_features_out(self) -> int:
        """Columns of :meth:`transform` (``get_feature_names_out``)."""
        return self._projection()[1].shape[1]

    @property
    def xbar_(self) -> np.ndarray:
        """The prior-weighted mean of the class means, shape (d,): the centre of
        :meth:`transform`."""
        return self._projection()[0]

    @property
    def scalings_(self) -> np.ndarray:
        """Fisher's discriminant directions, shape (d, n_components), scaled so that the
        projected within-class covariance is the identity."""
        return self._projection()[1]

    @property
    def explained_variance_ratio_(self) -> np.ndarray:
        """Share of the between-class spread along each direction, shape (n_components,)."""
        return self._projection()[2]

    def transform(self, X) -> np.ndarray:
        """Rows projected on the discriminant directions, ``(X - xbar_) @ scalings_``,
        shape (n, n_components): the classes' spread relative to their within-class
        spread, at most ``C - 1`` coordinates (a plot of two shows the classes apart)."""
        centre, scalings, _ = self._projection()
        X = self._validated(X)
        return (X - centre) @ scalings

    def _can_partial_fit(self):
        self._refuse_streaming()
        if isinstance(self.shrinkage, str):
            raise AttributeError(
                "partial_fit is not available with shrinkage='auto': Ledoit-Wolf needs all "
                "the data at once; use fit, or a float shrinkage."
            )
        return True

    @available_if(_can_partial_fit)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled data (not with ``shrinkage='auto'`` or a
        ``covariance_estimator``); see BayesClassifier."""
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)


class GaussianNB(_GaussianParameters, Preset):
    """Naive Bayes with a Gaussian per feature and class (diagonal covariances).

    Parameters
    ----------
    var_smoothing : float, default=1e-9
        Added to every variance, times the largest variance of any feature over all
        training data (as scikit-learn's GaussianNB; recomputed from all statistics, so
        ``partial_fit`` agrees with ``fit``).
    {bayes}
    priors, loss, reject_label
        As in :class:`~bayesrule.BayesClassifier`.

    Examples
    --------
    Seed 004's four classes (means and standard deviations of three features) at
    x = [1.67, 2.00, 4.23], equal priors:

    >>> import numpy as np
    >>> from bayesrule import GaussianNB
    >>> mu = [[1.6, 2.4, 4.3], [1.5, 2.9, 6.1], [1.8, 2.5, 4.2], [1.1, 3.1, 5.6]]
    >>> sd = np.array([[0.1, 0.5, 0.2], [0.2, 0.6, 0.9], [0.3, 0.3, 0.3], [0.2, 0.7, 0.3]])
    >>> nb = GaussianNB.from_parameters(mu, sd**2)
    >>> g = np.exp(nb.log_likelihood([[1.67, 2.00, 4.23]])) * (2 * np.pi) ** 1.5
    >>> [f"{v:.3g}" for v in g[0]]
    ['53.5', '0.242', '8.37', '3.53e-06']
    >>> nb.predict([[1.67, 2.00, 4.23]])
    array([0])
    """

    _fixed = {"covariance": "diag", "reg_covar": 0.0}  # var_smoothing is its regularisation
    _parameters = {"var_smoothing": 1e-9, "estimate": "ml", "prior": None}
    _given = ("variances", "(C, d)")

    @property
    def theta_(self) -> np.ndarray:
        """Class means, shape (C, d) (scikit-learn's name)."""
        return self.means_

    @property
    def var_(self) -> np.ndarray:
        """Variances, shape (C, d) (scikit-learn's name)."""
        return self.covariances_


class NearestMean(_GaussianParameters, Preset):
    """Gaussian classes with one shared isotropic variance: the nearest-mean rule.

    With uniform priors the decision is the class whose mean is nearest in Euclidean
    distance (seed 004); other priors shift the boundaries as Bayes' rule says.

    Parameters
    ----------
    priors, loss, reject_label
        As in :class:`~bayesrule.BayesClassifier`.

    Examples
    --------
    >>> from bayesrule import NearestMean
    >>> X = [[0.0, 0.0], [0.0, 2.0], [4.0, 0.0], [4.0, 2.0]]
    >>> nm = NearestMean(priors="uniform").fit(X, ["a", "a", "b", "b"])
    >>> nm.predict([[1.9, 5.0], [2.1, -3.0]])
    array(['a', 'b'], dtype='<U1')
    >>> float(nm.covariances_)  # the pooled variance per feature
    0.5
    """

    _fixed = {"covariance": "tied_spherical"}
    _given = ("variance", "() (one number)")
