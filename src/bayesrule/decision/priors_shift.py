"""Priors that change: posteriors moved to other priors, and the priors of new data.

A classifier trained where the classes had priors ``P_train`` gives posteriors
``p(w_j|x)``. Where only the priors differ (the class-conditional densities stay), the
posteriors under new priors ``P_new`` follow without refitting::

    p_new(w_j|x)  =  p(w_j|x) P_new(w_j) / P_train(w_j)  /  sum_k (same for k)

and the priors of an unlabelled data set are re-estimated by the EM of Saerens,
Latinne and Decaestecker (2002), which alternates that adjustment (E-step) with the mean
of the adjusted posteriors (M-step), as R's mclust ``classPriorProbs`` does.

Examples
--------
Two Gaussian classes trained at 50/50, new data drawn at 80/20:

>>> import numpy as np
>>> from bayesrule import GaussianNB
>>> from bayesrule.decision import estimate_priors
>>> rng = np.random.default_rng(0)
>>> X = np.r_[rng.normal(0, 1, (5000, 1)), rng.normal(2, 1, (5000, 1))]
>>> model = GaussianNB().fit(X, np.repeat([0, 1], 5000))
>>> X_new = np.r_[rng.normal(0, 1, (8000, 1)), rng.normal(2, 1, (2000, 1))]
>>> estimate_priors(model, X_new).round(2)
array([0.8, 0.2])
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import encode_labels

__all__ = ["estimate_priors", "shift_posteriors"]


def shift_posteriors(proba, new_priors, old_priors) -> np.ndarray:
    """Posteriors computed under ``old_priors`` moved to ``new_priors``.

    Parameters
    ----------
    proba : array-like of shape (n, C)
        Posteriors ``p(w_j|x)`` under ``old_priors`` (rows sum to 1).
    new_priors, old_priors : array-like of shape (C,)
        ``old_priors`` must be positive.

    Returns
    -------
    ndarray of shape (n, C)
        ``proba * new / old``, each row renormalised to sum to 1. A row that gives zero
        posterior to every class with a positive new prior (the classifier is certain of
        a class the new priors exclude) carries no usable evidence and gets the new
        priors themselves.

    Examples
    --------
    >>> from bayesrule.decision.priors_shift import shift_posteriors
    >>> shift_posteriors([[0.5, 0.5]], [0.8, 0.2], [0.5, 0.5])
    array([[0.8, 0.2]])
    """
    p = np.asarray(proba, dtype=np.float64)
    ratio = np.asarray(new_priors, dtype=np.float64) / np.asarray(old_priors, dtype=np.float64)
    out = p * ratio
    total = out.sum(axis=1, keepdims=True)
    empty = (total <= 0).ravel()
    if empty.any():
        new = np.asarray(new_priors, dtype=np.float64)
        out[empty], total[empty] = new, new.sum()
    out /= total
    return out


def training_priors(estimator, y=None, sample_weight=None) -> np.ndarray:
    """The priors a fitted classifier's ``predict_proba`` is computed under.

    ``class_prior_`` when the classifier has it (every bayesrule estimator, scikit-learn's
    GaussianNB), else ``exp(class_log_prior_)``, else the class frequencies of ``y``
    (weighted by ``sample_weight``), in ``classes_`` order.
    """
    classes = estimator.classes_
    prior = getattr(estimator, "class_prior_", None)
    if prior is None and getattr(estimator, "class_log_prior_", None) is not None:
        prior = np.exp(estimator.class_log_prior_)
    if prior is None:
        if y is None:
            raise TypeError(
                f"{type(estimator).__name__} does not record the priors its posteriors are "
                "computed under (no class_prior_); wrap it in bayesrule.BayesDecision, "
                "which records the class frequencies of its training labels."
            )
        y = np.asarray(y)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        idx = encode_labels(y, np.asarray(classes))
        prior = np.bincount(idx, weights=w, minlength=len(classes)).astype(np.float64)
        prior /= prior.sum()
    prior = np.asarray(prior, dtype=np.float64)
    if prior.shape != (len(classes),) or not (prior > 0).all():
        raise ValueError(
            f"the training priors {prior.tolist()} must be positive, one per class "
            f"{classes.tolist()}; every class needs training samples."
        )
    return prior


def _check_features(estimator, X) -> None:
    """ValueError naming the mismatch when X's columns are not those of the fit."""
    n_expected = getattr(estimator, "n_features_in_", None)
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.shape(X)
    if len(shape) != 2:
        raise ValueError(
            f"X_new must be 2-D (samples x features), got shape {tuple(shape)}; reshape a "
            "single feature with X.reshape(-1, 1)."
        )
    if n_expected is not None and shape[1] != n_expected:
        raise ValueError(
            f"X_new has {shape[1]} features but {type(estimator).__name__} was fitted on "
            f"{n_expected}; estimate_priors needs the same features (columns, in the same "
            "order) as the training data."
        )
    names = getattr(estimator, "feature_names_in_", None)
    columns = getattr(X, "columns", None)
    if names is not None and columns is not None:
        columns = np.asarray(columns, dtype=object)
        if len(columns) != len(names) or not (columns == np.asarray(names, dtype=object)).all():
            raise ValueError(
                f"X_new has columns {columns.tolist()} but {type(estimator).__name__} was "
                f"fitted on {list(names)}; estimate_priors needs the same features in the "
                "same order."
            )


def estimate_priors(estimator, X_new, *, max_iter=100, tol=1e-6) -> np.ndarray:
    """Class priors of unlabelled data, by the EM of Saerens et al. (2002).

    Starting at the priors the classifier was trained under, ``P_train``, repeat

    * E-step: ``p_new(w_j|x) ∝ p_train(w_j|x) P_new(w_j) / P_train(w_j)``;
    * M-step: ``P_new(w_j) = mean over X_new of p_new(w_j|x)``

    until no prior moves by more than ``tol``. Each step cannot lower the likelihood of
    ``X_new`` under the mixture ``sum_j P(w_j) p(x|w_j)``; the densities are the
    classifier's and stay fixed, so the answer is only as good as its posteriors are
    calibrated. Decide under the result with ``predict(X_new, priors=...)``.

    Parameters
    ----------
    estimator : fitted classifier with ``predict_proba`` and ``classes_``
        Its training priors are ``class_prior_`` (bayesrule estimators, BayesDecision,
        scikit-learn's GaussianNB) or ``exp(class_log_prior_)``; wrap another
        scikit-learn classifier in :class:`bayesrule.BayesDecision` first.
    X_new : array-like of shape (n_samples, n_features)
        Unlabelled samples with the training features.
    max_iter : int, default=100
        EM iterations at most; a ConvergenceWarning says when they ran out.
    tol : float, default=1e-6
        Stop when the largest change of a prior is below this.

    Returns
    -------
    ndarray of shape (C,)
        The estimated priors, in ``classes_`` order, summing to 1.

    Raises
    ------
    ValueError
        X_new with a different number of features (or other column names) than the
        training data; ``max_iter`` not a positive integer; ``tol`` not positive.

    References
    ----------
    M. Saerens, P. Latinne and C. Decaestecker (2002), "Adjusting the outputs of a
    classifier to new a priori probabilities: a simple procedure", Neural Computation
    14(1), 21-41.
    """
    check_is_fitted(estimator)
    if not hasattr(estimator, "predict_proba"):
        raise TypeError(f"estimate_priors needs a classifier with predict_proba, got {estimator!r}")
    if not isinstance(max_iter, numbers.Integral) or isinstance(max_iter, bool) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    if not isinstance(tol, numbers.Real) or isinstance(tol, bool) or not tol > 0:
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    _check_features(estimator, X_new)
    train = training_priors(estimator)
    proba = np.asarray(estimator.predict_proba(X_new), dtype=np.float64)
    ratio = proba / train  # p(x|w_j) / p_train(x): the E-step is a reweighting of this
    priors = train.copy()
    for _ in range(max_iter):
        post = ratio * priors
        total = post.sum(axis=1, keepdims=True)
        total[total == 0] = 1.0  # a sample no class with a positive prior explains
        post /= total
        new = post.mean(axis=0)
        step = np.abs(new - priors).max()
        priors = new
        if step < tol:
            return priors / priors.sum()
    warnings.warn(
        f"estimate_priors did not converge in {max_iter} iterations (last change "
        f"{step:.3g} > tol={tol}); raise max_iter or tol.",
        ConvergenceWarning,
        stacklevel=2,
    )
    return priors / priors.sum()
