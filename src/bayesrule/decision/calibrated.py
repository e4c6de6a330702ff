"""Calibrated posteriors as a layer over any classifier: temperature or vector scaling
of its log posteriors, fitted on held-out rows (Guo et al. 2017).

``"temperature"`` divides every log posterior by one ``T > 0`` (overconfident models,
naive Bayes on dependent features, get ``T > 1``); ``"vector"`` gives each class its own
scale and bias, ``softmax(a_c ln P(c|x) + b_c)`` (which can also move the class
frequencies the posteriors imply: Alexandari et al. 2020's bias-corrected scaling). Both
keep the ranking of the classes within a row (temperature) or nearly so, and are fitted
by maximum likelihood of the held-out labels.

Log posteriors are floored at ``ln(eps)`` (about -36) before scaling, as scikit-learn's
``log_loss`` clips probabilities at eps. The calibrated posteriors are under the class
frequencies of the training rows; other priors at prediction time reweight them by Bayes'
rule, ``P'(c|x) ∝ P(c|x) pi'_c / pi_c``, and a loss matrix decides by the least
conditional risk, as every bayesrule estimator.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import log_softmax, softmax
from sklearn.utils import indexable
from sklearn.utils.validation import check_is_fitted

from .._validation import unique_labels_sorted
from ..priors import resolve_priors
from ._crossfit import HeldOutRule, aligned_proba, check_calibration, check_labels, cross_fit
from ._loss import as_loss_matrix, bayes_action

__all__ = ["Calibrated"]

METHODS = ("temperature", "vector")

#: log posteriors are floored at ln(machine epsilon), as scikit-learn's ``log_loss``
#: clips probabilities at eps: naive Bayes reaches posteriors of e^-5000 for a class,
#: whose held-out misses would otherwise dominate the fit (a temperature of 30 on
#: digits, posteriors flattened below their accuracy)
_FLOOR = float(np.log(np.finfo(np.float64).eps))


class Calibrated(HeldOutRule):
    """A classifier whose posteriors are recalibrated on held-out rows.

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` (``predict_log_proba`` used if present)
    method : {"temperature", "vector"}, default="temperature"
    cv : int >= 2 or float in (0, 1), default=5
        Where the held-out posteriors come from: cross-fitting (every row held out once,
        the estimator then refitted on all of them) or a held-out fraction.
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    estimator_, classes_
    temperature_ : float
        ``T`` (``"temperature"``; 1 for ``"vector"``).
    scale_, bias_ : ndarray of shape (C,)
        The per-class scale and bias of the log posteriors (``1 / T`` and 0 for
        ``"temperature"``).
    class_prior_ : ndarray of shape (C,)
        The class frequencies of the training rows: the priors the calibrated posteriors
        are under.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.decision import Calibrated
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = Calibrated(GaussianNB(), random_state=0).fit(X, y)
    >>> bool(model.temperature_ > 1)  # naive Bayes is overconfident here
    True
    >>> model.predict_proba(X[:2], priors=[0.5, 0.5]).round(3).tolist()
    [[0.996, 0.004], [0.996, 0.004]]
    """

    def __init__(self, estimator, *, method="temperature", cv=5, random_state=None):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the estimator, and the scaling on its held-out log posteriors."""
        X, y = indexable(X, y)
        y = check_labels(y)
        classes = unique_labels_sorted(y)
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        cv = check_calibration(self.cv, allow_none=False, owner="Calibrated")
        if classes.size < 2:
            raise ValueError(f"Calibrated needs at least 2 classes in y, got {classes.size}.")

        def held_out(model, X_part, _y_train):
            return _log_posteriors(model, X_part, classes)

        final, _, rows, logp = cross_fit(self.estimator, X, y, cv, self.random_state, held_out)
        truth = np.searchsorted(classes, y[rows])
        C = classes.size
        if self.method == "temperature":
            temperature = _fit_temperature(logp, truth)
            scale, bias = np.full(C, 1.0 / temperature), np.zeros(C)
        else:
            temperature = 1.0
            scale, bias = _fit_vector(logp, truth, C)
        self._adopt(final, classes)
        self.temperature_ = float(temperature)
        self.scale_, self.bias_ = scale, bias
        counts = np.bincount(np.searchsorted(classes, y), minlength=C).astype(float)
        self.class_prior_ = counts / counts.sum()
        return self

    def predict_log_proba(self, X, priors=None) -> np.ndarray:
        """Calibrated log posteriors (n, C), under ``priors`` if given (else the class
        frequencies of the training rows)."""
        check_is_fitted(self, "estimator_")
        out = log_softmax(
            _log_posteriors(self.estimator_, X, self.classes_) * self.scale_ + self.bias_, axis=1
        )
        if priors is not None:
            new = resolve_priors(priors, self.classes_, None)
            with np.errstate(divide="ignore"):
                out = log_softmax(out + np.log(new) - np.log(self.class_prior_), axis=1)
        return out

    def predict_proba(self, X, priors=None) -> np.ndarray:
        """Calibrated posteriors (n, C), under ``priors`` if given."""
        return np.exp(self.predict_log_proba(X, priors))

    def predict(self, X, priors=None, loss=None) -> np.ndarray:
        """The class of least conditional risk under ``loss`` (zero-one by default) and
        the calibrated posteriors (under ``priors`` if given)."""
        proba = self.predict_proba(X, priors)
        lm = None if loss is None else as_loss_matrix(loss, self.classes_.size, self.classes_)
        if lm is not None and lm.has_reject:
            raise ValueError("loss has a reject row; give the (C, C) loss of the classes.")
        return self.classes_[bayes_action(proba, lm)]


def _log_posteriors(model, X, classes) -> np.ndarray:
    """The model's log posteriors (n, C) in ``classes`` order, floored (finite)."""
    if callable(getattr(model, "predict_log_proba", None)) and np.array_equal(
        np.asarray(model.classes_), classes
    ):
        logp = np.asarray(model.predict_log_proba(X), dtype=np.float64)
    else:
        with np.errstate(divide="ignore"):
            logp = np.log(aligned_proba(model, X, classes))
    return np.maximum(logp, _FLOOR)


def _nll(logits: np.ndarray, truth: np.ndarray) -> float:
    return float(-log_softmax(logits, axis=1)[np.arange(truth.size), truth].mean())


def _fit_temperature(logp: np.ndarray, truth: np.ndarray) -> float:
    """The ``T`` of least held-out log loss of ``softmax(logp / T)``, searched over
    ``ln T`` in [-7, 7]."""
    found = minimize_scalar(
        lambda t: _nll(logp * np.exp(-t), truth), bounds=(-7.0, 7.0), method="bounded"
    )
    return float(np.exp(found.x))


def _fit_vector(logp: np.ndarray, truth: np.ndarray, C: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-class scale and bias of least held-out log loss (L-BFGS, exact gradient;
    the first class's bias fixed at 0, as only differences matter)."""
    onehot = np.zeros_like(logp)
    onehot[np.arange(truth.size), truth] = 1.0
    n = truth.size

    def loss(theta):
        a, b = theta[:C], np.r_[0.0, theta[C:]]
        z = logp * a + b
        value = -(log_softmax(z, axis=1) * onehot).sum() / n
        residual = (softmax(z, axis=1) - onehot) / n
        return value, np.r_[(residual * logp).sum(axis=0), residual.sum(axis=0)[1:]]

    start = np.r_[np.full(C, 1.0 / _fit_temperature(logp, truth)), np.zeros(C - 1)]
    found = minimize(loss, start, jac=True, method="L-BFGS-B")
    return found.x[:C].copy(), np.r_[0.0, found.x[C:]]
