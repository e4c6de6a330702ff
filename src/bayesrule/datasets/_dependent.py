"""Pairs of attributes that depend on each other given the class (semi-naive Bayes)."""

from __future__ import annotations

import functools
import numbers

import numpy as np
from sklearn.utils import Bunch

from ._common import _check_n, _result, _rng

#: first word of the seeds of the true parameters: they never depend on ``random_state``
_THETA_SEED = 20_070
_PERM_SEED = 20_071
#: concentration of the Dirichlet the per-class distributions are drawn from (below 1:
#: uneven distributions, so that the classes differ)
_CONCENTRATION = 0.7

_DESCR = """\
Dependent attribute pairs (synthetic, semi-naive Bayes)
-------------------------------------------------------

{n_classes} classes, {n_pairs} pairs of discrete attributes (a_k, b_k) named
a0, b0, a1, b1, ..., each with the values 0 .. {last_value}, dependence strength
s = {strength:g}.

Each class has prior 1/{n_classes}. Given the class c, the pairs are independent of
each other, and within pair k:

    a_k ~ Categorical(theta[c, k])
    b_k = perm[c, k][a_k]           with probability s,
    b_k ~ Categorical(phi[c, k])    otherwise, independently of a_k,

so that P(b_k | a_k, c) = s [b_k == perm[c, k][a_k]] + (1 - s) phi[c, k][b_k]. The
dependence itself differs between classes: perm[c, k][a] = sigma_k[(a + c) mod V]
for a random permutation sigma_k of the V values, so two classes (up to V of them)
map every value of a_k to different values of b_k. With s = 0 every attribute is
independent of the others given the class: the data come from a naive Bayes model
exactly. With s near 1, b_k repeats what a_k says and naive Bayes counts the same
evidence twice, with the wrong sign where the classes' permutations disagree.

theta[c, k] and phi[c, k] are drawn from a Dirichlet(0.7, ..., 0.7) and sigma_k
uniformly, from fixed seeds: the true model depends only on (n_pairs, n_values,
n_classes), never on random_state (and one pair's or class's parameters do not
change when pairs or classes are added). The class counts are as equal as they
can be (the first n_samples mod n_classes classes have one sample more), every
class has at least one sample, and the rows come in random order.

``log_joint(X)`` gives ln P(x, c) under the true model, (n, n_classes); subtract
its logsumexp over the classes for the true posterior, the Bayes-optimal one.
"""


def _true_parameters(n_pairs: int, n_values: int, n_classes: int):
    """theta, phi (C, P, V) and perm (C, P, V), each (c, k) from its own fixed seed."""
    theta = np.empty((n_classes, n_pairs, n_values))
    phi = np.empty((n_classes, n_pairs, n_values))
    perm = np.empty((n_classes, n_pairs, n_values), dtype=np.int64)
    alpha = np.full(n_values, _CONCENTRATION)
    shift = np.arange(n_values)
    for k in range(n_pairs):
        sigma = np.random.default_rng([_PERM_SEED, n_values, k]).permutation(n_values)
        for c in range(n_classes):
            rng = np.random.default_rng([_THETA_SEED, n_values, k, c])
            theta[c, k] = rng.dirichlet(alpha)
            phi[c, k] = rng.dirichlet(alpha)
            perm[c, k] = sigma[(shift + c) % n_values]
    return theta, phi, perm


def _categorical(rng_u: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Inverse-CDF draws: ``rng_u`` (n, P) uniforms, ``probs`` (n, P, V) -> values (n, P)."""
    cdf = np.cumsum(probs, axis=-1)
    cdf[..., -1] = 1.0
    return (rng_u[..., None] >= cdf).sum(axis=-1)


def _log_joint(X, *, theta, phi, perm, strength):
    """ln P(x, c) of the rows of ``X`` under the true model, (n, C)."""
    n_classes, n_pairs, n_values = theta.shape
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != 2 * n_pairs:
        raise ValueError(
            f"X must be a 2-D array with {2 * n_pairs} columns (a0, b0, a1, b1, ...), "
            f"got shape {X.shape}."
        )
    if X.dtype.kind not in "iuf" or not np.all((X >= 0) & (X < n_values) & (X == np.round(X))):
        raise ValueError(f"X must hold the integers 0 .. {n_values - 1} only.")
    X = X.astype(np.int64)
    a, b = X[:, 0::2], X[:, 1::2]
    pair = np.arange(n_pairs)
    # (C, n, P): per class, row and pair
    log_a = np.log(theta[:, pair, a])
    p_b = strength * (perm[:, pair, a] == b) + (1.0 - strength) * phi[:, pair, b]
    with np.errstate(divide="ignore"):
        log_b = np.log(p_b)
    return (log_a + log_b).sum(axis=-1).T - np.log(n_classes)


def _check_strength(strength: object) -> float:
    if isinstance(strength, bool) or not isinstance(strength, numbers.Real):
        raise TypeError(f"strength must be a number between 0 and 1, got {strength!r}.")
    if not 0.0 <= strength <= 1.0:
        raise ValueError(
            f"strength must be between 0 (naive Bayes) and 1 (b a function of a), got {strength!r}."
        )
    return float(strength)


def _check_at_least(value: object, name: str, low: int, why: str) -> int:
    value = _check_n(value, name)
    if value < low:
        raise ValueError(f"{name} must be at least {low} ({why}), got {value}.")
    return value


def dependent_pairs(
    n_samples: int = 1000,
    *,
    n_pairs: int = 3,
    n_values: int = 4,
    n_classes: int = 2,
    strength: float = 0.9,
    random_state: int | np.random.Generator | None = None,
    return_X_y: bool = False,
) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """Draw discrete attribute pairs that are strongly dependent given the class.

    The attributes come in pairs (a_k, b_k). Given the class c (prior 1/n_classes),
    a_k ~ Categorical(theta[c, k]); with probability ``strength``, b_k =
    perm[c, k][a_k], a class-specific permutation of the values, otherwise b_k ~
    Categorical(phi[c, k]) independently of a_k. Pairs are independent of each other
    given the class. So P(b_k | a_k, c) = strength [b_k == perm[c, k][a_k]] +
    (1 - strength) phi[c, k][b_k]: naive Bayes, which assumes P(b_k | c), is wrong
    whenever ``strength > 0``, and exact at ``strength=0``. The true parameters come
    from fixed seeds (they depend on ``n_pairs``, ``n_values`` and ``n_classes``
    only); ``random_state`` changes the samples only. See ``DESCR`` for details.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples, at least ``n_classes``. The class counts are as equal as
        they can be (the first ``n_samples % n_classes`` classes have one more) and
        the rows are in random order.
    n_pairs : int, default=3
        Number of attribute pairs; the data have ``2 * n_pairs`` columns.
    n_values : int, default=4
        Number of values of every attribute (0 .. n_values - 1), at least 2.
    n_classes : int, default=2
        Number of classes (labels 0 .. n_classes - 1), at least 2.
    strength : float, default=0.9
        Probability, in [0, 1], that b_k copies a_k through the class's permutation.
        0 gives a naive Bayes model; 1 makes b_k a function of a_k and the class.
    random_state : int, numpy.random.Generator or None, default=None
        Seed or generator passed to :func:`numpy.random.default_rng`; the same
        integer always gives the same data.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        With keys ``data`` (n_samples, 2 * n_pairs) int64 in columns a0, b0, a1, b1,
        ...; ``target`` (n_samples,) int64 labels; ``feature_names``; ``target_names``
        ``arange(n_classes)``; the true parameters ``theta`` and ``phi``
        (n_classes, n_pairs, n_values), ``perm`` (n_classes, n_pairs, n_values) int64,
        ``strength`` and ``priors`` (n_classes,) all 1/n_classes; ``log_joint``, a
        callable taking rows X (n, 2 * n_pairs) of values 0 .. n_values - 1 and
        returning ln P(x, c) under the true model, (n, n_classes) (``-inf`` where
        impossible); and ``DESCR``.
    (X, y) : tuple of ndarray
        If ``return_X_y`` is True.

    Raises
    ------
    TypeError
        If an integer parameter is not an integer, ``strength`` is not a number, or
        ``random_state`` cannot seed a generator.
    ValueError
        If ``n_samples < n_classes``, ``n_pairs < 1``, ``n_values < 2``,
        ``n_classes < 2`` or ``strength`` is outside [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import logsumexp
    >>> from bayesrule.datasets import dependent_pairs
    >>> data = dependent_pairs(1000, n_pairs=2, n_values=3, strength=0.9, random_state=0)
    >>> data.data.shape, data.feature_names, np.bincount(data.target).tolist()
    ((1000, 4), ['a0', 'b0', 'a1', 'b1'], [500, 500])
    >>> data.perm[:, 0]  # pair 0: class 0 maps a -> b one way, class 1 another
    array([[2, 1, 0],
           [1, 0, 2]])
    >>> copied = data.data[:, 1] == data.perm[data.target, 0, data.data[:, 0]]
    >>> bool(copied.mean() > 0.9)
    True
    >>> joint = data.log_joint(data.data)  # ln P(x, c) under the true model, (1000, 2)
    >>> posterior = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    >>> posterior[:3].round(3), data.target[:3]
    (array([[0., 1.],
           [1., 0.],
           [1., 0.]]), array([1, 0, 0]))
    >>> float(np.mean(joint.argmax(axis=1) == data.target))  # the Bayes classifier
    0.989
    """
    n_classes = _check_at_least(n_classes, "n_classes", 2, "a classification needs two")
    n = _check_at_least(n_samples, "n_samples", n_classes, "one sample per class")
    n_pairs = _check_n(n_pairs, "n_pairs")
    n_values = _check_at_least(n_values, "n_values", 2, "an attribute needs two values")
    strength = _check_strength(strength)
    rng = _rng(random_state)

    theta, phi, perm = _true_parameters(n_pairs, n_values, n_classes)
    y = rng.permutation(np.arange(n, dtype=np.int64) % n_classes)
    u_a, u_copy, u_b = rng.random((3, n, n_pairs))
    a = _categorical(u_a, theta[y])
    free_b = _categorical(u_b, phi[y])
    copied_b = perm[y[:, None], np.arange(n_pairs), a]
    X = np.empty((n, 2 * n_pairs), dtype=np.int64)
    X[:, 0::2] = a
    X[:, 1::2] = np.where(u_copy < strength, copied_b, free_b)
    return _result(
        X,
        y,
        return_X_y,
        feature_names=[f"{ab}{k}" for k in range(n_pairs) for ab in "ab"],
        target_names=np.arange(n_classes),
        theta=theta,
        phi=phi,
        perm=perm,
        strength=strength,
        priors=np.full(n_classes, 1.0 / n_classes),
        log_joint=functools.partial(
            _log_joint, theta=theta.copy(), phi=phi.copy(), perm=perm.copy(), strength=strength
        ),
        DESCR=_DESCR.format(
            n_classes=n_classes, n_pairs=n_pairs, last_value=n_values - 1, strength=strength
        ),
    )
