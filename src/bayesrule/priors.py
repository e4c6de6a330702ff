"""Class priors P(w): class frequencies, uniform, a Dirichlet posterior mean, or the
user's own, with one validation.

Examples
--------
>>> import numpy as np
>>> from bayesrule.priors import resolve_priors
>>> classes = np.array(["apple", "orange", "grapefruit"])
>>> counts = np.array([300.0, 200.0, 500.0])
>>> resolve_priors(None, classes, counts)
array([0.3, 0.2, 0.5])
>>> resolve_priors("uniform", classes, counts).round(4)
array([0.3333, 0.3333, 0.3333])
>>> resolve_priors({"apple": 0.4, "orange": 0.4, "grapefruit": 0.2}, classes, counts)
array([0.4, 0.4, 0.2])
>>> resolve_priors(Dirichlet(1.0), classes, np.array([3.0, 0.0, 1.0]))
array([0.57142857, 0.14285714, 0.28571429])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

#: how far the given priors may sum from one before they are refused.
SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Dirichlet:
    """Class proportions with a Dirichlet(``alpha``) prior: the priors are its posterior
    mean ``(n_c + alpha_c) / (n + sum(alpha))`` (``alpha = 1``: Laplace's rule of
    succession; towards 0: the class frequencies). A class with few rows keeps a prior
    away from 0.

    Parameters
    ----------
    alpha : float or sequence of float, default=1.0
        Concentrations, > 0: one for every class, or one per class in ``classes_`` order.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.priors import Dirichlet
    >>> X = np.array([[0.0], [0.2], [0.4], [3.0]])
    >>> GaussianNB(priors=Dirichlet(1.0)).fit(X, [0, 0, 0, 1]).class_prior_
    array([0.66666667, 0.33333333])
    """

    alpha: float | tuple = 1.0

    def proportions(self, class_count) -> np.ndarray:
        """The posterior-mean priors given (weighted) class counts."""
        counts = np.asarray(class_count, dtype=np.float64)
        alpha = check_class_alpha(self.alpha, counts.shape[0])
        return (counts + alpha) / (counts.sum() + alpha.sum())


def check_class_alpha(alpha, n_classes: int) -> np.ndarray:
    """Dirichlet concentrations ``alpha`` (a scalar or one per class) as a (C,) array:
    TypeError for a non-number, ValueError for a wrong length or a value not finite > 0.

    Examples
    --------
    >>> check_class_alpha(0.5, 3)
    array([0.5, 0.5, 0.5])
    """
    why = f"Dirichlet alpha must be a number or an array of numbers, got {alpha!r}"
    if isinstance(alpha, (bool, str, bytes)):
        raise TypeError(why)
    try:
        arr = np.asarray(alpha, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(why) from None
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != n_classes):
        raise ValueError(
            f"Dirichlet alpha must be a scalar or have one entry per class ({n_classes}), "
            f"got shape {arr.shape}"
        )
    if not np.isfinite(arr).all() or not (arr > 0).all():
        raise ValueError(f"Dirichlet alpha must be finite and > 0, got {alpha!r}")
    return np.broadcast_to(arr, (n_classes,)).copy()


def priors_estimated(priors) -> bool:
    """Whether the ``priors`` parameter asks for priors estimated from the data (None or
    "empirical"): they then count as free parameters, and families may supply them."""
    return priors is None or (isinstance(priors, str) and priors == "empirical")


def resolve_priors(priors, classes: np.ndarray, class_count: np.ndarray | None) -> np.ndarray:
    """Turn the ``priors`` parameter into an array of probabilities in ``classes`` order.

    Parameters
    ----------
    priors : None, "empirical", "uniform", Dirichlet, array-like or dict
        None and "empirical": class frequencies ``n_j / n`` from ``class_count``;
        :class:`Dirichlet`: its posterior mean given ``class_count``;
        "uniform": ``1 / C`` each; an array in ``classes`` order; or a dict from every
        class label to its probability.
    classes : ndarray of shape (C,)
    class_count : ndarray of shape (C,) or None
        Weighted counts; needed for the empirical priors.

    Returns
    -------
    ndarray of shape (C,)
        Non-negative, summing to one.
    """
    n_classes = len(classes)
    if isinstance(priors, Dirichlet):
        if class_count is None or not np.asarray(class_count).sum() > 0:
            raise ValueError(
                "priors=Dirichlet(...) needs class counts, and this model has none (it "
                "was built from parameters); give priors as 'uniform', an array or a dict."
            )
        return priors.proportions(class_count)
    if priors_estimated(priors):
        if class_count is None:
            raise ValueError(
                "priors='empirical' needs class counts; give priors as 'uniform', an "
                "array or a dict when the model is built from parameters."
            )
        counts = np.asarray(class_count, dtype=np.float64)
        if not counts.sum() > 0:
            raise ValueError(
                "priors='empirical' needs class counts, and this model has none (it was "
                "built from parameters); give priors as 'uniform', an array or a dict."
            )
        return counts / counts.sum()
    if isinstance(priors, str):
        if priors == "uniform":
            return np.full(n_classes, 1.0 / n_classes)
        raise ValueError(
            f"priors={priors!r} is not understood; use None, 'empirical', 'uniform', "
            "an array of probabilities in classes_ order, or a dict label -> probability."
        )
    if isinstance(priors, Mapping):
        missing = [c for c in classes.tolist() if c not in priors]
        extra = [k for k in priors if k not in set(classes.tolist())]
        if missing or extra:
            raise ValueError(
                f"priors dict must have exactly the classes {classes.tolist()} as keys; "
                f"missing {missing}, unknown {extra}."
            )
        values = np.array([priors[c] for c in classes.tolist()], dtype=np.float64)
    else:
        try:
            values = np.asarray(priors, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"priors must be None, a string, an array of numbers or a dict; got {priors!r}"
            ) from exc
        if values.ndim != 1 or values.shape[0] != n_classes:
            raise ValueError(
                f"priors has shape {values.shape} but there are {n_classes} classes "
                f"{classes.tolist()}; give one probability per class, in that order."
            )
    if not np.all(np.isfinite(values)) or (values < 0).any():
        raise ValueError(f"priors must be finite and non-negative, got {values.tolist()}")
    total = values.sum()
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(
            f"priors must sum to 1 (within {SUM_TOLERANCE}), but they sum to {total:.8g}; "
            "divide them by their sum."
        )
    return values / total
