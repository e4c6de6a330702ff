"""The minimax rule: the Bayes rule under the least favourable priors.

For priors ``P`` the Bayes rule ``delta_P`` has class-conditional risks

    R_j(P) = sum_i L[i, j] P(delta_P decides i | w_j)

and Bayes risk ``r(P) = sum_j P_j R_j(P)``. When the priors of deployment are unknown,
the minimax rule is the Bayes rule under the priors ``P*`` that maximise ``r`` (the least
favourable priors): its conditional risks are equal (for the classes with ``P*_j > 0``),
so its risk is ``r(P*)`` whatever the true priors are, and no rule has a smaller worst
case.

Estimating ``R_j`` by counting labelled samples gives step functions of ``P`` whose
crossing wanders with every sample. Here the class-conditional expectations are taken
with the model's own posteriors instead: over samples ``x`` from the mixture with the
class frequencies ``pi`` of ``y``, ``E[f(x) | w_j] = mean_x f(x) p(x|w_j) / p(x)``, so

    r(P) = mean_x  min_i  sum_j L[i, j] P_j p(x|w_j) / p(x)

is exactly a mean of minima of linear functions of ``P``: concave and piecewise linear,
with the conditional risks of the rule under ``P`` as its supergradient. Its maximum
over the simplex is found by Kelley's cutting planes (small linear programmes, HiGHS),
exactly up to the solver's tolerance, for any number of classes and any loss, reject
row included; no step size, smoothing or random start is involved, so the answer is
stable. Where the maximum is not unique (e.g. separable classes: ``r = 0`` everywhere),
the most even priors among the maximisers are returned. On finite data the maximum sits
at a kink, where one sample switches action, so the conditional risks there are equal
up to that sample's share (exactly equal only for a randomised rule); they converge as
the data grow. The posteriors must be calibrated for this to be the minimax rule of
the true classes: use held-out data (``Minimax``'s ``calibration``).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import indexable
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import encode_labels, unique_labels_sorted
from ._crossfit import (
    check_calibration,
    check_labels,
    cross_fit,
    likelihood_weights,
    relative_log_likelihood,
)
from ._loss import as_loss_matrix
from .wrap import _PosteriorDecision

__all__ = ["Minimax", "minimax_priors"]


def _bayes_rule(loss: np.ndarray, weights: np.ndarray, priors: np.ndarray):
    """Bayes risk ``r(P)`` and the conditional risks ``R_j`` of the rule under ``P``, from
    (n, C) and (n, a) arrays only (never one of samples by actions by classes)."""
    risks = (weights * priors) @ loss.T  # (n, a): sum_j L[i, j] P_j w[x, j]
    action = np.argmin(risks, axis=1)
    conditional = (loss[action] * weights).mean(axis=0)  # mean of L[delta(x), j] w[x, j]
    return float(risks[np.arange(len(action)), action].mean()), conditional


def least_favourable(weights: np.ndarray, loss: np.ndarray, *, max_iter: int = 500):
    """Maximise ``r(P) = mean_x min_i sum_j L[i, j] P_j weights[x, j]`` over the simplex.

    ``r`` is the minimum over decision rules ``delta`` of the linear functions
    ``P -> sum_j P_j R_j(delta)``; the rule under each trial ``P_k`` gives one of them, a
    plane above ``r`` that touches it at ``P_k``. Kelley's cutting-plane method maximises
    the minimum of the planes found so far (a linear programme in C + 2 variables), adds
    the plane at its maximiser, and stops when that upper bound meets the best ``r``
    found (an exact optimum: ``r`` has finitely many pieces). It starts at uniform priors
    and a tiny bonus on the smallest prior picks the most even maximiser, so a flat
    ``r`` (e.g. separable classes, ``r = 0``) gives uniform priors.

    Parameters
    ----------
    weights : ndarray of shape (n, C)
        ``p(x|w_j) / p(x)`` per sample (see ``likelihood_weights``).
    loss : ndarray of shape (a, C)
    max_iter : int
        Cutting planes at most (a ConvergenceWarning says when they ran out).

    Returns
    -------
    priors : ndarray of shape (C,)
    risk : float
        ``r(priors)``, the minimax risk.
    conditional_risks : ndarray of shape (C,)
        ``R_j`` of the Bayes rule under ``priors``.
    """
    n, C = weights.shape
    scale = max(float(loss.max()), 1e-300)
    tol, eps = 1e-9 * scale, 1e-9 * scale
    priors = np.full(C, 1.0 / C)
    best_r, best_g = _bayes_rule(loss, weights, priors)
    best = priors
    planes = [best_g]
    # variables: P (C), t (the plane minimum), s (the smallest prior); maximise t + eps s
    c = np.r_[np.zeros(C), -1.0, -eps]
    eq = np.r_[np.ones(C), 0.0, 0.0][None, :]
    floor = np.c_[-np.eye(C), np.zeros((C, 1)), np.ones((C, 1))]  # s <= P_j
    bounds = [(0, 1)] * C + [(None, None), (0, 1)]
    for _ in range(max_iter):
        cut = np.c_[-np.asarray(planes), np.ones((len(planes), 1)), np.zeros((len(planes), 1))]
        res = linprog(
            c,
            A_ub=np.r_[cut, floor],
            b_ub=np.zeros(len(planes) + C),
            A_eq=eq,
            b_eq=[1.0],
            bounds=bounds,
            method="highs",
        )
        if res.status != 0:  # pragma: no cover - a bounded, feasible LP
            raise RuntimeError(f"the minimax linear programme failed: {res.message}")
        priors = np.clip(res.x[:C], 0.0, None)
        priors /= priors.sum()
        # the planes' minimum at the LP's point, evaluated exactly (the solver's own t may
        # exceed it by its feasibility tolerance): no gain left there means converged
        upper = min(res.x[C], float((np.asarray(planes) @ priors).min()))
        if upper - best_r <= tol:
            break
        r, g = _bayes_rule(loss, weights, priors)
        planes.append(g)
        if r > best_r + tol:
            best_r, best_g, best = r, g, priors
    else:
        warnings.warn(
            f"the minimax priors did not converge in {max_iter} cutting planes (gap "
            f"{upper - best_r:.3g}); the best priors found are returned.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return best, best_r, best_g


def _class_frequencies(y_idx, n_classes):
    counts = np.bincount(y_idx, minlength=n_classes).astype(np.float64)
    return counts / counts.sum(), counts


def minimax_priors(estimator, X, y, loss=None):
    """The least favourable priors of a fitted classifier and its minimax risk.

    Parameters
    ----------
    estimator : fitted classifier
        With ``log_likelihood`` (bayesrule estimators) or ``predict_proba`` and its
        training priors (``class_prior_``, else the class frequencies of ``y``).
    X : array-like of shape (n_samples, n_features)
        Samples for the expectations over each class, ideally not those the estimator
        was fitted to (held-out data).
    y : array-like of shape (n_samples,)
        Their labels; every class must occur. Their frequencies define the mixture the
        samples come from (see the module's docstring).
    loss : None, array-like or LossMatrix, default=None
        ``L[action, class]``; None: the estimator's ``loss_`` if it has one, else zero-one.

    Returns
    -------
    priors : ndarray of shape (C,)
        The least favourable priors, in ``estimator.classes_`` order.
    risk : float
        The minimax risk ``r(priors)``: the Bayes risk under them, which equals each
        class-conditional risk of their Bayes rule.

    Examples
    --------
    Two unit-variance Gaussians at 0 and 2 under zero-one loss: by symmetry the least
    favourable priors are 1/2 each, and the minimax risk is ``Phi(-1) = 0.1587``:

    >>> import numpy as np
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.decision import minimax_priors
    >>> model = GaussianNB.from_parameters([[0.0], [2.0]], [[1.0], [1.0]])
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (3000, 1)), rng.normal(2, 1, (1000, 1))]
    >>> priors, risk = minimax_priors(model, X, np.repeat([0, 1], [3000, 1000]))
    >>> priors.round(2), round(risk, 2)
    (array([0.5, 0.5]), 0.16)
    """
    check_is_fitted(estimator)
    classes = np.asarray(estimator.classes_)
    y = column_or_1d(np.asarray(y), warn=True)
    y_idx = encode_labels(y, classes)
    loss = as_loss_matrix(
        loss if loss is not None else getattr(estimator, "loss_", None), len(classes), classes
    )
    loglik = relative_log_likelihood(estimator, X, y)
    if loglik.shape[0] != y.shape[0]:
        n, m = loglik.shape[0], y.shape[0]
        raise ValueError(f"X has {n} sample{'s' * (n != 1)} but y has {m} label{'s' * (m != 1)}")
    prior_hat, counts = _class_frequencies(y_idx, len(classes))
    if (counts == 0).any():
        raise ValueError(
            f"every class must occur in y to estimate its conditional risk; "
            f"{classes[counts == 0].tolist()} do not."
        )
    priors, risk, _ = least_favourable(likelihood_weights(loglik, prior_hat), loss.matrix)
    return priors, risk


class Minimax(_PosteriorDecision):
    """The Bayes rule under the least favourable priors of a classifier.

    ``fit`` fits the estimator and finds the priors ``priors_`` that maximise its Bayes
    risk (see :func:`minimax_priors`); ``predict`` takes the Bayes action under them, whose
    class-conditional risks are equal, so its expected loss is ``minimax_risk_`` whatever
    the priors met in use.

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` (or ``log_likelihood``)
    loss : None, array-like or LossMatrix, default=None
        ``L[action, class]``; None: the estimator's ``loss_`` if it has one, else zero-one.
    calibration : None, int >= 2 or float in (0, 1), default=5
        Where the posteriors that define the conditional risks come from. An int ``k``:
        out-of-fold posteriors from ``k`` stratified folds, then the estimator refitted
        on all the data for prediction. In-sample posteriors are over-confident for
        flexible classifiers (a random forest is nearly certain on its training data, so
        every prior would look equally good), hence held-out ones by default. A float
        holds out that fraction once (the estimator used is fitted on the rest); None
        uses the training data (fine for low-variance generative models such as
        QuadraticDiscriminant, and one fit instead of ``k + 1``).
    random_state : None, int or RandomState, default=None
        Shuffling of the folds or the split.
    reject_label : label, default=None
        What ``predict`` returns for a reject row of the loss.

    Attributes
    ----------
    estimator_ : the fitted classifier
    priors_ : ndarray of shape (C,)
        The least favourable priors (also ``class_prior_``: the priors decisions use).
    minimax_risk_ : float
    conditional_risks_ : ndarray of shape (C,)
        The class-conditional risks of the rule, estimated as the priors were.
    classes_, class_count_, train_prior_, loss_, reject_label_, actions_, n_features_in_
        As :class:`bayesrule.decision.BayesDecision`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import QuadraticDiscriminant
    >>> from bayesrule.decision import Minimax
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (900, 1)), rng.normal(2, 1, (100, 1))]
    >>> y = np.repeat([0, 1], [900, 100])
    >>> rule = Minimax(QuadraticDiscriminant(), calibration=None).fit(X, y)
    >>> rule.priors_.round(1)  # not the training 0.9 / 0.1
    array([0.5, 0.5])
    >>> risk_0, risk_1 = rule.conditional_risks_  # equalised, to the rows at the boundary
    >>> bool(abs(risk_0 - risk_1) < 5e-3), bool(abs(risk_0 - rule.minimax_risk_) < 5e-3)
    (True, True)
    """

    def __init__(
        self, estimator, loss=None, *, calibration=5, random_state=None, reject_label=None
    ):
        self.estimator = estimator
        self.loss = loss
        self.calibration = calibration
        self.random_state = random_state
        self.reject_label = reject_label

    def fit(self, X, y):
        """Fit the estimator and the least favourable priors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        X, y = indexable(X, y)
        y = check_labels(y)
        calibration = check_calibration(self.calibration, allow_none=True, owner="Minimax")
        classes = unique_labels_sorted(y)
        if len(classes) < 2:
            raise ValueError(
                f"Minimax needs at least 2 classes in y, got 1 class ({classes.tolist()})."
            )

        def score(model, X_part, y_train):
            loglik = relative_log_likelihood(model, X_part, y_train)
            order = encode_labels(classes, np.asarray(model.classes_))
            return loglik[:, order]

        final, final_y, rows, loglik = cross_fit(
            self.estimator, X, y, calibration, self.random_state, score
        )
        fitted = self._fitted(final, final_y, None)
        prior_hat, _ = _class_frequencies(encode_labels(y[rows], classes), len(classes))
        weights = likelihood_weights(loglik, prior_hat)
        priors, risk, conditional = least_favourable(weights, fitted["loss_"].matrix)
        fitted.update(
            priors_=priors, class_prior_=priors, minimax_risk_=risk, conditional_risks_=conditional
        )
        return self._set(fitted)
