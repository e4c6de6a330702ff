"""Bayes' theorem in log space: joint, evidence and posterior.

``ln P(w_j|x) = ln p(x|w_j) + ln P(w_j) - ln p(x)`` with
``ln p(x) = logsumexp_j (ln p(x|w_j) + ln P(w_j))``, so nothing underflows however small
the likelihoods are.
"""

from __future__ import annotations

import numpy as np

from .priors import resolve_priors


def log_priors(priors: np.ndarray) -> np.ndarray:
    """``ln P(w)``; a zero prior gives ``-inf`` (that class is never the posterior's)."""
    with np.errstate(divide="ignore"):
        return np.log(priors)


def normalize_log(joint: np.ndarray, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Split joint log-probabilities into log-posteriors and log-evidence.

    ``axis`` is the class axis; works in place on ``joint``.
    """
    top = joint.max(axis=axis, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    joint -= top
    log_sum = np.log(np.exp(joint).sum(axis=axis, keepdims=True))
    joint -= log_sum
    return joint, np.squeeze(top + log_sum, axis=axis)


def normalize(joint: np.ndarray, axis: int = -1) -> np.ndarray:
    """Posteriors from joint log-probabilities (``axis``: the class axis), in place."""
    top = joint.max(axis=axis, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    joint -= top
    np.exp(joint, out=joint)
    joint /= joint.sum(axis=axis, keepdims=True)
    return joint


def bayes(priors, likelihoods):
    """Bayes' theorem for plain numbers or arrays whose last axis is the class.

    Parameters
    ----------
    priors : array-like of shape (C,)
        P(w_j), non-negative and summing to one.
    likelihoods : array-like of shape (..., C)
        p(x|w_j) (densities or probabilities) for one or many observations.

    Returns
    -------
    posterior : ndarray of shape (..., C)
        P(w_j|x).
    evidence : ndarray of shape (...)
        p(x) = sum_j p(x|w_j) P(w_j).

    Examples
    --------
    The fruit of seed 003 at x = [170, 585]:

    >>> from bayesrule import bayes
    >>> posterior, evidence = bayes([0.4, 0.4, 0.2], [6.1364e-5, 3.3501e-5, 2.9236e-7])
    >>> posterior.round(4), float(evidence.round(9))
    (array([0.6459, 0.3526, 0.0015]), 3.8004e-05)

    The red box (P = 0.4; 2 apples, 6 oranges) and the blue box (3 apples, 1 orange),
    given that an orange was drawn:

    >>> post, p_orange = bayes([0.4, 0.6], [6 / 8, 1 / 4])
    >>> round(float(post[0]), 4), round(1 - float(p_orange), 2)
    (0.6667, 0.55)
    """
    p = np.asarray(likelihoods, dtype=np.float64)
    if p.ndim == 0:
        raise ValueError("likelihoods must have a class axis (the last one); got a scalar.")
    n_classes = p.shape[-1]
    prior = resolve_priors(np.asarray(priors, dtype=np.float64), np.arange(n_classes), None)
    if not np.all(np.isfinite(p)) or (p < 0).any():
        raise ValueError("likelihoods must be finite and non-negative.")
    with np.errstate(divide="ignore"):
        joint = np.log(p) + log_priors(prior)
    if np.isneginf(joint).all(axis=-1).any():
        raise ValueError(
            "an observation has zero likelihood under every class with a positive prior; "
            "its posterior is undefined."
        )
    log_post, log_ev = normalize_log(joint)
    return np.exp(log_post), np.exp(log_ev)
