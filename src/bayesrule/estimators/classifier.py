"""The general Bayes classifier: likelihood x prior / evidence -> minimum-risk action."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._dask import blockwise, is_dask
from .._dask import fit as dask_fit
from .._engines.threads import few_columns_blas
from .._text import labelled
from .._validation import (
    check_class_counts,
    check_sample_weight,
    encode_labels,
    fit_labels,
    unique_labels_sorted,
    validate_X,
    validate_Xy,
)
from ..decision.posterior_decision import prior_of
from ..decision.reject import reject_low_evidence
from ..likelihoods import Gaussian
from ..posterior import log_priors, normalize, normalize_log
from .deciding import Deciding
from .joint_model import JointModel
from .semi_supervised import fit_with_unlabelled, unlabelled_rows


class BayesClassifier(JointModel, Deciding, ClassifierMixin, BaseEstimator):
    """Bayes' rule over any class-conditional density.

    ``P(w|x) = p(x|w) P(w) / p(x)`` in log space, then the action of least conditional
    risk under ``loss``.

    Parameters
    ----------
    likelihood : likelihood object, default=None
        A class-conditional density from :mod:`bayesrule.likelihoods` (cloned at fit).
        None means ``Gaussian("full")``.
    priors : None, "empirical", "uniform", array-like or dict, default=None
        None or "empirical": class frequencies ``n_j / n``; "uniform"; an array in
        ``classes_`` order; or a dict label -> probability. Must be non-negative and sum
        to 1 (within 1e-6).
    loss : None, array-like or LossMatrix, default=None
        None: zero-one loss. A (C, C) matrix ``L[action, true class]``, or (C + 1, C)
        whose last row is the reject action.
    reject_label : label, default=None
        What ``predict`` returns for the reject action: -1 for numeric class labels
        (the smallest label minus one when -1 is a class), "reject" otherwise. Must not
        equal a class.

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    class_count_ : ndarray of shape (C,)
        Weighted training samples per class.
    class_prior_ : ndarray of shape (C,)
        The priors decisions are taken under. This and the three attributes below are
        read from the current ``priors``, ``loss`` and ``reject_label`` when deciding, so
        ``set_params`` changes them on a fitted model without refitting.
    likelihood_ : fitted likelihood object
    loss_ : LossMatrix
    reject_label_ : label
    actions_ : ndarray of shape (a,)
        Labels of the actions ``predict`` can return.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import BayesClassifier
    >>> from bayesrule.likelihoods import Gaussian
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]], float)
    >>> y = np.array([1, 1, 1, 2, 2, 2])
    >>> clf = BayesClassifier(Gaussian("diag")).fit(X, y)
    >>> clf.predict([[-0.8, -1.0]])
    array([1])
    >>> clf.predict_proba([[-0.8, -1.0]]).round(6)
    array([[1., 0.]])
    """

    def __init__(self, likelihood=None, *, priors=None, loss=None, reject_label=None):
        self.likelihood = likelihood
        self.priors = priors
        self.loss = loss
        self.reject_label = reject_label

    # ------------------------------------------------------------------ fitting
    def _make_likelihood(self):
        if self.likelihood is None:
            return Gaussian("full")
        if not hasattr(self.likelihood, "log_likelihood"):
            raise TypeError(
                f"likelihood must be a likelihood object from bayesrule.likelihoods, "
                f"got {self.likelihood!r}"
            )
        return clone(self.likelihood)

    def fit(self, X, y, sample_weight=None, *, unlabeled=None):
        """Estimate the class-conditional densities and priors from data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (any hashable values). A label None or NaN marks a row without
            a label: such rows contribute through EM (semi-supervised fitting,
            :mod:`bayesrule.estimators.semi_supervised`; the record is ``unlabelled_``).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; integer weights equal duplicated rows.
        unlabeled : label, optional
            A label that also marks an unlabelled row (e.g. -1, scikit-learn's
            convention).

        Returns
        -------
        self
        """
        unlabelled = unlabelled_rows(y, unlabeled)
        if unlabelled is not None:
            return fit_with_unlabelled(self, X, y, sample_weight, unlabelled, self._fit)
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        """The supervised fit (every row labelled)."""
        if is_dask(X) or is_dask(y):
            return dask_fit(self, X, y, sample_weight)
        try:
            self._prepare(X)
            like = self._make_likelihood()
            X, y = validate_Xy(
                self, X, y, reset=True, kind=like.input_kind, limit=like.largest_magnitude
            )
            w = check_sample_weight(sample_weight, X)
            classes, y_idx = fit_labels(y)
            self._check_classes(classes)
            counts = np.bincount(y_idx, weights=w, minlength=len(classes)).astype(float)
            check_class_counts(classes, counts)
            self._check_decision(classes, counts)  # bad priors or loss: before fitting
            with few_columns_blas(X.shape[1]):
                likelihood = labelled(classes, like.fit, X, y_idx, len(classes), w)
        except Exception:
            self._forget()  # a failed fit leaves an unfitted estimator, not a mixed one
            raise
        self.classes_, self.class_count_, self.likelihood_ = classes, counts, likelihood
        self._fitted()
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled data; equal to ``fit`` on all batches together (bins
        of continuous columns, ``discretize``, are learned on the first batch).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, optional
            Every class label; required on the first call.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        if unlabelled_rows(y) is not None:
            raise ValueError(
                "partial_fit takes labelled rows only (y holds None or NaN); rows without "
                "a label contribute through EM in fit (semi-supervised fitting)."
            )
        first = not hasattr(self, "likelihood_")
        if first:
            self._prepare(X)  # as fit does: the hook sees the first batch
        if not first and getattr(self.likelihood_, "stats_", True) is None:
            raise ValueError(
                "this model was built with from_parameters and has no statistics to add "
                "data to; fit it on data instead (or build it from data)."
            )
        if first:
            if classes is None:
                raise ValueError(
                    "classes must be given on the first call to partial_fit (every label "
                    "the data will contain)."
                )
            classes = unique_labels_sorted(np.asarray(classes))
        elif classes is not None and not np.array_equal(
            unique_labels_sorted(np.asarray(classes)), self.classes_
        ):
            raise ValueError(
                f"classes={list(classes)} differs from the classes of the first call "
                f"{self.classes_.tolist()}."
            )
        else:
            classes = self.classes_
        self._check_classes(classes)
        like = self._make_likelihood() if first else self.likelihood_
        X, y = validate_Xy(
            self,
            X,
            y,
            reset=first,
            min_samples=1,
            kind=like.input_kind,
            limit=like.largest_magnitude,
        )
        w = check_sample_weight(sample_weight, X)
        y_idx = encode_labels(y, classes)
        counts = np.bincount(y_idx, weights=w, minlength=len(classes)).astype(float)
        if not first:
            counts += self.class_count_
        self._check_decision(classes, counts)  # validated before any state changes
        labelled(classes, like.partial_fit, X, y_idx, len(classes), w)
        self.classes_, self.class_count_, self.likelihood_ = classes, counts, like
        self._fitted()
        return self

    def _prepare(self, X):
        """Hook run first in ``fit`` and the first ``partial_fit`` (a failure in ``fit``
        leaves the estimator unfitted)."""

    def _forget(self):
        """Drop every fitted attribute."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, name)

    def _fitted(self) -> None:
        """Hook run at the end of every fit (and ``partial_fit``), once ``classes_``,
        ``class_count_`` and ``likelihood_`` are set."""

    # ------------------------------------------------------------------ the pipeline
    def _ready(self):
        """NotFittedError before fit; ValueError while partial_fit statistics are incomplete."""
        check_is_fitted(self, "likelihood_")
        check = getattr(self.likelihood_, "check_ready", None)
        if check is not None:
            check()

    def _validated(self, X):
        self._ready()  # (no magnitude limit: evaluating far values is explained where it fails)
        return validate_X(self, X, reset=False, kind=self.likelihood_.input_kind)

    def _prior(self, priors) -> np.ndarray:
        """The priors to decide under: the fitted ones, or ``priors`` given at prediction."""
        chosen = self.priors if priors is None else priors
        return prior_of(chosen, self.classes_, self.class_count_, self._empirical_prior())

    def _joint(self, X, *, relative: bool, prior, then=None) -> np.ndarray:
        """Joint log-probabilities (n, C), block by block, optionally transformed.

        ``then`` maps a block's class-major joint (C, rows) in place to the wanted
        result (posteriors, log-posteriors), so likelihood, prior and normalisation run
        while the block is in cache.
        """
        out = np.empty((X.shape[0], len(self.classes_)))
        for rows, result in self._joint_blocks(X, relative=relative, prior=prior, then=then):
            out[rows] = result.T
        return out

    def _joint_blocks(self, X, *, relative: bool, prior, then=None):
        """Row slices and their class-major joint log-probabilities (C, rows), or what
        ``then`` makes of them (computed where the block is, in a worker thread for the
        families that use them)."""
        _, finish = self._finisher(X, prior, then)
        return self.likelihood_.class_major_blocks(X, relative=relative, finish=finish)

    def _finisher(self, X, prior, then):
        """The log priors (C,) of ``prior`` and ``finish(rows, block)``: adds them to a
        block of log-likelihoods (C, rows) in place, refuses a row with no finite joint
        (naming the cause), and returns ``then`` of the block (the block without it)."""
        log_prior = log_priors(prior)

        def finish(rows, joint):
            joint += log_prior[:, None]
            if not np.isfinite(joint.max(axis=0)).all():
                reason = labelled(self.classes_, self.likelihood_.describe_impossible, X[rows])
                if reason:
                    raise ValueError(reason)
                raise ValueError(
                    "X has values so far from every class that their densities overflow "
                    "(no finite log-likelihood); rescale the features (e.g. standardise "
                    "them) before fitting and predicting."
                )
            return joint if then is None else then(joint)

        return log_prior, finish

    @blockwise("classes")
    def log_likelihood(self, X) -> np.ndarray:
        """``ln p(x|w_j)`` for every sample and class, shape (n, C)."""
        X = self._validated(X)  # NotFittedError before the likelihood is looked up
        return self.likelihood_.log_likelihood(X)

    @blockwise("classes")
    def predict_joint_log_proba(self, X, priors=None) -> np.ndarray:
        """``ln p(x|w_j) + ln P(w_j)``, shape (n, C).

        ``priors`` (as the estimator's parameter) replaces the fitted priors for this
        call only: deciding under other priors needs no refit.
        """
        return self._joint(self._validated(X), relative=False, prior=self._prior(priors))

    def _density_only(self, what: str):
        if not getattr(self.likelihood_, "is_density", True):
            raise TypeError(
                f"{type(self).__name__} scores classes without a normalised density p(x|w), "
                f"so {what} is undefined; use a generative model (e.g. MultinomialNB) for it."
            )

    @blockwise("values")
    def log_evidence(self, X, priors=None) -> np.ndarray:
        """``ln p(x) = ln sum_j p(x|w_j) P(w_j)``, shape (n,)."""
        self._ready()
        self._density_only("the evidence p(x)")
        X = self._validated(X)
        out = np.empty(X.shape[0])
        evidence = lambda joint: normalize_log(joint, axis=0)[1]  # noqa: E731
        blocks = self._joint_blocks(X, relative=False, prior=self._prior(priors), then=evidence)
        for rows, values in blocks:
            out[rows] = values
        return out

    @blockwise("classes")
    def predict_log_proba(self, X, priors=None) -> np.ndarray:
        """Log-posteriors ``ln P(w_j|x)``, shape (n, C); ``priors`` as above."""
        X = self._validated(X)
        return self._joint(
            X, relative=True, prior=self._prior(priors), then=lambda j: normalize_log(j, axis=0)[0]
        )

    @blockwise("classes")
    def predict_proba(self, X, priors=None) -> np.ndarray:
        """Posteriors ``P(w_j|x)``, shape (n, C); each row sums to 1; ``priors`` as above."""
        return self._posteriors(self._validated(X), self._prior(priors))

    def _posteriors(self, X, prior) -> np.ndarray:
        """Posteriors (n, C) of validated rows under the resolved ``prior``."""
        return self._joint(X, relative=True, prior=prior, then=lambda j: normalize(j, axis=0))

    @blockwise("actions")
    def risk(self, X, priors=None, loss=None) -> np.ndarray:
        """Conditional risk ``R(a_i|x) = sum_j L[i, j] P(w_j|x)``, shape (n, a).

        ``loss`` replaces the estimator's for this call, as in :meth:`predict`."""
        checked = self._validated(X)
        decision = self._decision(priors)  # one resolution of the priors for both
        decision = decision.with_loss(loss, X, checked.shape[0], self.classes_)
        return decision.risk(self._posteriors(checked, decision.prior))

    @blockwise("labels")
    def predict(self, X, priors=None, reject_below_evidence=None, loss=None) -> np.ndarray:
        """The Bayes action for each sample: the class of least risk, or the reject label.

        ``priors`` (as the estimator's parameter) decides under other priors, no refit.
        ``loss`` replaces the estimator's loss for this call: a matrix as the parameter,
        one matrix per row of ``X`` (an (n, a, C) array: example-dependent costs), or a
        callable of ``X`` (as given: a DataFrame stays one) returning either, e.g. the
        cost of a missed fraud read from an amount column.
        ``reject_below_evidence``, a number, also gives ``reject_label_`` to the samples
        of evidence ``ln p(x)`` (:meth:`log_evidence`, same priors) below it: outliers
        that look like no class, even with no reject row in the loss (the array then
        holds objects if the label's type differs from the classes'). ``predict_proba``
        and ``risk`` are unaffected. E.g. ``np.quantile(clf.log_evidence(X_train), 0.01)``.
        """
        self._ready()
        checked = self._validated(X)
        decision = self._decision(priors).with_loss(loss, X, checked.shape[0], self.classes_)
        if decision.zero_one:  # the class of highest joint, block by block
            best = np.empty(checked.shape[0], dtype=np.intp)
            first_best = lambda joint: np.argmax(joint, axis=0)  # noqa: E731
            log_prior, finish = self._finisher(checked, decision.prior, first_best)
            blocks = self.likelihood_.best_class_blocks(checked, log_prior=log_prior, finish=finish)
            for rows, labels in blocks:
                best[rows] = labels
            out = decision.actions[best]
        else:
            out = decision.decide(self._posteriors(checked, decision.prior))
        if reject_below_evidence is None:
            return out
        low = self.log_evidence(X, priors=priors)
        return reject_low_evidence(
            out, low, reject_below_evidence, decision.reject_label, self.classes_
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        try:
            like = self._make_likelihood()
        except (TypeError, ValueError):
            return tags
        kind = like.input_kind
        tags.input_tags.allow_nan = kind != "dense"
        tags.input_tags.sparse = kind == "sparse"
        tags.input_tags.categorical = kind == "any"
        tags.input_tags.positive_only = bool(like.positive_only)
        # scikit-learn's generic accuracy check (shifted Gaussian blobs) does not suit
        # binary and count models; it marks its own naive Bayes estimators so
        tags.classifier_tags.poor_score = bool(getattr(like, "poor_score", False))
        return tags
