"""Gaussian mixture class-conditionals: Bayes' rule with a mixture of Gaussians per class.

``p(x|w_c) = sum_k alpha_ck N(x; mu_ck, Sigma_ck)``, fitted per class by EM (seed 000,
section 3.4); the number of components per class may be chosen by BIC. The density
lives in :class:`~bayesrule.likelihoods.mixture.Mixture`; this preset adds the class
labels: its dictionaries are keyed by label, the likelihood's by class position.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import check_integer, fit_labels
from ..likelihoods.mixture import MIXTURE, Mixture
from ..likelihoods.mixture.checks import check_covariance_name
from .preset import Preset

#: the parameters that may be dictionaries from class label to a value
_PER_CLASS = ("n_components", "covariance", "weights_init", "means_init", "precisions_init")


class StreamingUnavailable(NotImplementedError, AttributeError):
    """``partial_fit`` of a model without additive statistics: a NotImplementedError
    that is also an AttributeError, so ``hasattr(model, "partial_fit")`` is False."""


class GaussianMixtureBayes(Preset):
    """Bayes' rule with a Gaussian mixture per class, fitted by EM.

    Each class ``c`` has its own mixture ``p(x|c) = sum_k alpha_ck N(x; mu_ck,
    Sigma_ck)`` (seed 000, section 3.4), fitted by expectation-maximisation on that
    class's samples as scikit-learn's :class:`~sklearn.mixture.GaussianMixture` does
    (k-means initialisation, ``reg_covar`` added to every covariance, the same stopping
    rule). The number of components can differ between classes, or be chosen per class
    by the Bayesian information criterion. Priors, loss and the reject option are those
    of :class:`~bayesrule.BayesClassifier`.

    Parameters
    ----------
    n_components : int, dict or "bic", default="bic"
        Components per class: "bic" fits 1 to ``max_components`` components for each
        class and keeps the lowest BIC (mclust's approach; the candidates BIC cannot
        judge are left out and listed in ``refused_``: more components than the class
        has distinct samples, more free parameters than samples, and, after EM, a
        component backed by fewer than d + 1 samples' weight or at the variance floor,
        see :mod:`~bayesrule.likelihoods.mixture.search`); one number for every class
        (1 is :class:`~bayesrule.QuadraticDiscriminant` with ``reg_covar``); or a dict
        from class label to number (classes left out get 1).
    max_components : int, default=10
        The largest number of components tried with ``n_components="bic"``.
    covariance : str or dict, default="full"
        Covariance structure of the components within a class (a dict from class label
        to structure gives each class its own; classes left out get "full"):
        scikit-learn's "full",
        "tied" (one covariance shared by a class's components), "diag" or
        "spherical"; or one of mclust's 14 models ``Sigma_k = lambda_k D_k A_k
        D_k^T`` (volume, shape, orientation), "EII", "VII", "EEI", "VEI", "EVI",
        "VVI", "EEE", "VEE", "EVE", "VVE", "EEV", "VEV", "EVV", "VVV", "E" meaning
        shared by a class's components (EEE is "tied", VVV "full", VVI "diag", VII
        "spherical"). "bic" chooses the model per class by BIC among mclust's 14 (as
        mclust's ``MclustDA``; the one-component models of a form are one model, fitted
        once and listed under each name); "sklearn" chooses among scikit-learn's four.
    reg_covar : float, default=1e-6
        Added to the diagonal of every covariance (keeps them positive definite).
    max_iter : int, default=200
        EM iterations per initialisation.
    tol : float, default=1e-4
        EM stops when the mean log-likelihood per sample gains less than this.
    n_init : int or "auto", default="auto"
        k-means starts per class and number of components, each followed by EM; the run
        of highest likelihood is kept. The starts of a class and k are shared by the
        covariance structures of ``covariance="bic"``. "auto": 3 when BIC chooses the
        number of components (a light k-means, repeated partitions run once), else 1
        (scikit-learn's ``GaussianMixture`` default and its k-means).
    init : {"kmeans", "hc"}, default="kmeans"
        EM's starts: ``n_init`` k-means partitions per class and k, or "hc", mclust's:
        one partition per k cut from a model-based agglomerative tree of the class
        (:mod:`~bayesrule.likelihoods.mixture.hierarchical`; ``n_init`` is unused, and
        the starts depend on ``random_state`` only for a class of more than 2,000 rows,
        whose tree grows on a random 2,000, the others joining the nearest cluster
        mean; k-means starts a k above the class's distinct rows). "hc" also judges a
        search's candidates as mclust does (every one EM fits gets its BIC; only a
        component at the variance floor is refused), so ``GaussianMixtureBayes("bic",
        covariance="bic", init="hc", max_components=5, reg_covar=0)`` chooses the
        models of mclust's ``MclustDA``.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the k-means initialisation (and ``n_init`` restarts).
    weights_init, means_init, precisions_init : dict, default=None
        Starting points per class, as scikit-learn's ``GaussianMixture`` takes them,
        keyed by class label: weights (K,), means (K, d), precisions in the shape of
        ``covariance``. Classes without an entry start from k-means.
    warm_start : bool, default=False
        A second ``fit`` starts EM from the mixtures of the first (the classes and
        features must be the same).
    prior : None, "default", NormalInverseWishart or NormalGamma, default=None
        None: maximum-likelihood EM. Otherwise every M step is the posterior mode under
        mclust's conjugate prior (``priorControl()``; Fraley and Raftery 2007): a
        normal prior on each component's mean given its covariance and an
        inverse-Wishart (inverse-gamma for the diagonal models) on the covariance, none
        on the weights, so no component collapses onto a few rows. "default" is
        mclust's ``defaultPrior``, computed from each class's rows for each covariance
        model and number of components k: shrinkage 0.01, mean the class mean, dof
        d + 2, scale the class covariance times ``k^(-2/d)`` (diagonal models: the
        class's mean variance times ``k^(-2/d)``). A
        :class:`~bayesrule.likelihoods.conjugate.NormalInverseWishart` (the dense models
        EEE, EEV, VEV, VVV, i.e. "tied" and "full") or a
        :class:`~bayesrule.likelihoods.conjugate.NormalGamma` (EII, VII, EEI, VEI, EVI,
        VVI, i.e. "spherical" and "diag"; mclust's dof is twice its shape, its scale
        twice its rate) fixes the hyperparameters it gives, the others taking those
        defaults. mclust has no MAP step for VEE, EVE, VVE and EVV: they raise
        ValueError, and ``covariance="bic"`` leaves them out (listed in ``refused_``)
        and fits one-component models as mclust does under a prior (VII, VVI, VVV: one
        per form). BIC is mclust's: the log-likelihood at the MAP estimate with the
        usual number of parameters. ``reg_covar`` is still added (0 reproduces mclust's
        numbers). Not with missing values or Dask collections. See
        :mod:`~bayesrule.likelihoods.mixture.map_step` for the updates.
    priors, loss, reject_label
        As in :class:`~bayesrule.BayesClassifier`.

    Attributes
    ----------
    mixtures_ : dict
        Class label -> fitted ``MixtureModel`` with ``weights_``, ``means_``,
        ``covariances_`` (scikit-learn's shapes), ``n_iter_``, ``converged_`` and
        ``lower_bound_``.
    bic_ : dict
        Class label -> ``{(covariance, n_components): BIC}`` of every candidate fitted
        for that class that BIC may judge (one entry unless ``n_components`` or
        ``covariance`` is "bic").
    refused_ : dict
        Class label -> ``{(covariance, n_components): reason}`` of every candidate of
        the search without a BIC: not fitted (e.g. ``"more free parameters than rows
        (29 > 20; ...)"``, which is why a small class tries fewer than
        ``max_components``), degenerate after EM, or failed. ``summary()`` lists them.
    n_iter_ : ndarray of shape (C,)
        EM iterations of each class's chosen mixture.
    likelihood_ : Mixture
        The fitted class-conditional densities, indexed by class position.
    classes_, class_count_, class_prior_, n_features_in_, feature_names_in_
        As in :class:`~bayesrule.BayesClassifier`.

    Notes
    -----
    Missing values (NaN) are allowed in ``fit`` and in prediction. A row with missing
    values is scored by the density of its observed coordinates (the missing ones
    integrated out exactly: ``sum_k alpha_ck N(x_o; mu_cko, Sigma_ckoo)``; a row with
    nothing observed gets the priors as posteriors). A class whose rows have missing
    values is fitted by EM over the missing coordinates as well as the components, its
    BIC from the observed-data log-likelihood; k-means starts it on the rows completed
    by the conditional means of one Gaussian fitted to the class (see
    :mod:`~bayesrule.likelihoods.mixture.em_missing`). Classes without missing values
    are fitted exactly as without them. A Dask collection must be free of NaN.

    There is no ``partial_fit``: EM needs all the data of a class at once, so the
    attribute raises ``NotImplementedError`` (and ``hasattr(model, "partial_fit")``
    is False, which tells scikit-learn's tools the same).

    On a Dask collection, EM runs over the row blocks: one pass per iteration, shared by
    all classes and, with ``"bic"``, by all their candidates. The candidates, the choice
    and ``bic_`` are the in-memory fit's (up to the order of floating-point sums) from
    the same ``random_state`` where each class has at most 20,000 rows: the k-means
    start there sees a class's first 20,000. ``warm_start`` works there too: a refit on
    a Dask collection starts from the last fit's mixtures (made in memory or on Dask) as
    a refit in memory does.

    Examples
    --------
    Seed 000's example: class 2 has two modes, which BIC finds.

    >>> from bayesrule.datasets import two_modes
    >>> from bayesrule.estimators.mixture import GaussianMixtureBayes
    >>> X, y = two_modes(random_state=0, return_X_y=True)
    >>> gmm = GaussianMixtureBayes(max_components=4, random_state=0).fit(X, y)
    >>> {c: m.n_components for c, m in gmm.mixtures_.items()}
    {1: 1, 2: 2}
    >>> gmm.mixtures_[2].means_.round(1)   # the true modes: (3, -1) and (2, 3)
    array([[ 2.9, -1.2],
           [ 2. ,  3. ]])
    >>> gmm.mixtures_[2].weights_.round(2)
    array([0.48, 0.52])
    >>> gmm.predict([[0.0, 0.0], [3.0, -1.0], [2.0, 3.0]])
    array([1, 2, 2])
    >>> sorted(gmm.bic_[2])[:2]   # every candidate's BIC is kept
    [('full', 1), ('full', 2)]
    >>> print(gmm.refused_[2][("full", 4)])   # and why a candidate has none
    a component backed by fewer than d + 1 rows' weight (component 2 holds 1 < d + 1 = 3)

    A prior keeps a component from collapsing onto repeated rows (without it, and
    without ``reg_covar``, EM stops there on a singular covariance):

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(0, 1, (30, 2)), np.tile([[4.0, 4.0]], (10, 1)),
    ...                     rng.normal(8, 1, (40, 2))])
    >>> y = np.repeat([0, 1], 40)
    >>> gmm = GaussianMixtureBayes(2, reg_covar=0.0, prior="default", random_state=0)
    >>> gmm.fit(X, y).mixtures_[0].weights_.round(2)
    array([0.75, 0.25])
    >>> gmm.mixtures_[0].covariances_[1].round(3)   # the repeated point's component
    array([[0.115, 0.095],
           [0.095, 0.092]])
    >>> gmm.predict([[4.0, 4.0], [8.0, 8.0]])
    array([0, 1])
    """

    _parameters = MIXTURE
    _positional = ("n_components",)

    # ------------------------------------------------------------------ fitting
    def _fit(self, X, y, sample_weight):
        """Fit a Gaussian mixture to each class by EM, and the priors."""
        self._labels = _labels_and_counts(y, sample_weight)  # label-keyed parameters need them
        # the last fit, for warm_start (a fit on a Dask collection drops it before it
        # makes the likelihood)
        self._last = (None, None)  # not shipped to every Dask block task when unused
        if self.warm_start:
            self._last = getattr(self, "classes_", None), getattr(self, "likelihood_", None)
        try:
            return super()._fit(X, y, sample_weight)
        finally:
            del self._labels, self._last

    @property
    def partial_fit(self):
        """Not available: EM needs all the data of a class at once (use ``fit``)."""
        raise StreamingUnavailable(
            f"{type(self).__name__}.partial_fit: EM needs all the data of a class at once, "
            "so streaming EM is not available; use fit"
        )

    def _make_likelihood(self):
        labels = getattr(self, "_labels", None)
        per_class = {name: getattr(self, name) for name in _PER_CLASS}
        if labels is None:  # before fit (tags), or y unreadable (fit then explains)
            per_class = {k: (None if isinstance(v, Mapping) else v) for k, v in per_class.items()}
        else:
            per_class = {k: _by_position(k, v, *labels) for k, v in per_class.items()}
        like = Mixture(**(self._family_options() | per_class))
        classes, previous = getattr(self, "_last", (None, None))
        if (
            bool(self.warm_start)
            and labels is not None
            and previous is not None
            and np.array_equal(np.asarray(classes, dtype=object), labels[0].astype(object))
        ):
            like.mixtures_ = previous.mixtures_  # EM starts from the last fit's mixtures
        return like

    # ------------------------------------------------------------------ fitted parameters
    @property
    def mixtures_(self) -> dict:
        """Class label -> fitted ``MixtureModel`` (weights, means, covariances, ...)."""
        check_is_fitted(self, "likelihood_")
        return dict(zip(self.classes_.tolist(), self.likelihood_.mixtures_, strict=True))

    @property
    def bic_(self) -> dict:
        """Class label -> ``{(covariance, n_components): BIC}`` of every candidate fitted."""
        check_is_fitted(self, "likelihood_")
        return dict(zip(self.classes_.tolist(), self.likelihood_.bic_, strict=True))

    @property
    def refused_(self) -> dict:
        """Class label -> ``{(covariance, n_components): reason}`` of every candidate of
        the search with no BIC: not fitted (too few rows or distinct rows for it),
        degenerate after EM, or failed (see :mod:`~bayesrule.likelihoods.mixture.search`)."""
        check_is_fitted(self, "likelihood_")
        return dict(zip(self.classes_.tolist(), self.likelihood_.refused_, strict=True))

    @property
    def n_iter_(self) -> np.ndarray:
        """EM iterations of each class's chosen mixture, shape (C,), ``classes_`` order."""
        check_is_fitted(self, "likelihood_")
        return np.array([m.n_iter_ for m in self.likelihood_.mixtures_])


def _labels_and_counts(y, sample_weight):
    """Sorted class labels of ``y`` and each class's number of samples with positive
    weight; None when ``y`` or the weights cannot be read (``fit`` then validates them
    and says why)."""
    try:
        y = column_or_1d(np.asarray(y), warn=False)
        check_classification_targets(y)
        classes, index = fit_labels(y)
        positive = None if sample_weight is None else np.asarray(sample_weight, float) > 0
        counts = np.bincount(index, weights=positive, minlength=len(classes))
    except Exception:  # noqa: BLE001 - fit's own validation reports the problem
        return None
    return classes, counts.astype(int)


def _key(label):
    return label.item() if isinstance(label, np.generic) else label


def _by_position(name, value, classes, counts):
    """A label-keyed parameter as the likelihood takes it (keyed by class position),
    with the number of components checked against each class's samples."""
    labels = classes.tolist()
    if (
        value is not None
        and name not in ("n_components", "covariance")
        and not isinstance(value, Mapping)
    ):
        raise TypeError(
            f"{name} must be None or a dict from class label to array, e.g. "
            f"{{{labels[0]!r}: ...}}, got {type(value).__name__}"
        )
    if isinstance(value, Mapping):
        position = {label: i for i, label in enumerate(labels)}
        unknown = [k for k in value if _key(k) not in position]
        if unknown:
            raise ValueError(
                f"{name} has entries for {unknown}, which are not classes of y {labels}; "
                "key the dict by class labels."
            )
        if name == "n_components":
            for label, k in value.items():
                check_integer(f"n_components[{label!r}]", k, 1)
        if name == "covariance":  # named by label here (the likelihood has positions)
            for label, structure in value.items():
                check_covariance_name(structure, f"covariance[{label!r}]")
        value = {position[_key(k)]: v for k, v in value.items()}
    if name == "n_components" and not isinstance(value, str):
        wanted = value if isinstance(value, Mapping) else dict.fromkeys(range(len(labels)), value)
        for i, k in wanted.items():
            if isinstance(k, numbers.Integral) and not isinstance(k, bool) and 0 < counts[i] < k:
                raise ValueError(
                    f"n_components={int(k)} for class {labels[i]!r}, which has only "
                    f"{counts[i]} sample{'s' if counts[i] > 1 else ''} (with positive weight); "
                    "a mixture needs at least one sample per component: use fewer "
                    "components for it, or n_components='bic'."
                )
    return value
