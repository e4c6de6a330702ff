"""Hierarchical Dirichlet smoothing of the tables ``P(x_j | c, pa_1, ..., pa_K)``.

Petitjean, Buntine, Webb and Zaidi (2018, *Machine Learning* 107) estimate each table of a
Bayesian network classifier as the leaves of a tree of Dirichlet processes: the root is
``P(x_j)``, its children ``P(x_j | c)`` (one per class), theirs ``P(x_j | c, pa_1)``, and so
on down to ``P(x_j | c, pa_1, ..., pa_K)``, the parents in the order given (KDB's: highest
``I(X_i; X_j | C)`` first). Each node's distribution has its parent node's as base measure
and a concentration ``c_l`` shared by the nodes of its level. In the Chinese restaurant
franchise the leaves hold the counts ``n`` as customers; each node sends its table counts
``t`` (``1 <= t_v <= n_v`` tables where ``n_v > 0``) up as its parent's customers, and
the posterior mean of each node is

    P(v | node) = (n_v + c_l P(v | parent)) / (N + c_l),    N = sum_v n_v,

the root's base uniform: ``P(v) = (n_v + alpha) / (N + alpha O_j)`` (concentration
``alpha O_j``: the Lidstone ``alpha`` of the other smoothing). Every node sums to 1 over
the ``O_j`` values. A node with no customers predicts its parent; with large
concentrations every node tends to the root, with counts dominating to the ML estimates.

**What is computed here differs from the paper**, which samples the table counts and the
concentrations (Gamma(2, 1) prior) by collapsed Gibbs sampling (5000 sweeps in the
authors' code) and averages the estimates over the sweeps. Here, deterministically (no
random numbers, hence no ``random_state``), a fixed point of three steps, started from
``t = n`` (every customer its own table) and ``c_l = 2`` (the authors' starting value):

1. table counts, leaves upwards: the expected number of tables of ``n`` customers in a
   Chinese restaurant of concentration ``a = c_l P(v | parent)`` (the parent's current
   estimate plugged in), ``E[t] = a (digamma(a + n) - digamma(a))`` (between 1 and ``n``
   for ``n >= 1``; clipped to ``[0, n]`` for fractional weights), instead of a sample from
   their posterior (which would also weigh the parent's own seating);
2. concentrations, root downwards: per level the ``c_l`` in ``[max(alpha, 1e-6), 1e8]``
   of largest Dirichlet-multinomial marginal likelihood of the level's customers given
   the parents' estimates (empirical Bayes, type-II maximum likelihood; no prior on
   ``c_l``). A level whose nodes do not differ from their parents more than sampling
   does gets the upper bound (the level is merged into its parent: a parent attribute
   that tells nothing more is, in effect, dropped); the lower bound ``alpha`` keeps at
   least ``alpha`` rows' worth of the parent in every node (a level whose nodes each saw
   a single value would otherwise give the other values probability ~0);
3. the posterior means above, root downwards;

repeated until the leaves move less than ``tol = 1e-8`` (at most ``max_iter = 100``
times). The estimates are those of that fixed point, not an average over samples. (With
the mode under the authors' Gamma(2, 1) prior instead of step 2's maximum the
concentrations stay near 2, no level merges, and KDB's 10-fold log loss was worse on wine
and breast_cancer (0.086 and 0.237 against 0.056 and 0.192), equal on digits: see
``benchmarks/hdp_compare.py``.)

A value never seen in training (the child slot ``O_j`` of the lookup tables) gets the mass
the formula gives one more value of count 0: ``alpha / (N + alpha O_j)`` at the root, then
``c_l u_parent / (N + c_l)`` at each node below. A parent that is unavailable at prediction
(missing, or a value never seen) is handled as in the Lidstone tables: the child's table
given the other parents, here the leaves of its own tree fitted to the counts of the rows
where those parents and the child are observed (the families' fallback counts). The tree's
own node above the leaves would be the prior for a parent value never seen, but it is
built from table counts and is much flatter than the child's distribution given the
other parents, which is what a missing parent calls for; and when an earlier parent is
missing and a later one observed, the tree has no node for that.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np
from scipy.special import digamma, gammaln

#: the smoothings of the conditional tables
SMOOTHING = ("lidstone", "m-estimate", "hdp")


def check_smoothing(smoothing) -> str:
    """``smoothing`` as one of :data:`SMOOTHING`, or a ValueError naming it."""
    if not isinstance(smoothing, str) or smoothing not in SMOOTHING:
        raise ValueError(
            f"smoothing must be one of {', '.join(map(repr, SMOOTHING))} ('lidstone': the "
            "alpha/backoff estimates; 'm-estimate': alpha pseudo-rows spread evenly over a "
            "table's cells, Weka's AODEsr/WAODE; 'hdp': hierarchical Dirichlet smoothing), got "
            f"{smoothing!r}"
        )
    return smoothing


class Tree(NamedTuple):
    """A fitted tree: per level l = 0 (root, (O_j,)) .. K + 1 (leaves, counts' shape) the
    estimates ``proba[l]``, the unseen-value mass ``unseen[l]`` (shape without the last
    axis), the customers ``customers[l]`` (the counts at the leaves, the children's table
    counts above), and ``concentration`` (K + 2,), the root's ``alpha O_j`` first."""

    proba: list
    unseen: list
    customers: list
    concentration: np.ndarray
    n_iter: int


def expected_tables(n, a) -> np.ndarray:
    """``E[t] = a (digamma(a + n) - digamma(a))``: the expected number of tables of ``n``
    customers in a Chinese restaurant of concentration ``a``; 0 where ``n = 0``, at most
    ``n`` (fractional weights)."""
    n = np.asarray(n, dtype=np.float64)
    a = np.maximum(np.broadcast_to(a, n.shape), 1e-300)
    seen = n > 0
    out = np.zeros(n.shape)
    an, nn = a[seen], n[seen]
    out[seen] = np.minimum(an * digamma_step(an, nn), nn)
    return out


def digamma_step(a, n) -> np.ndarray:
    """``digamma(a + n) - digamma(a)`` (a > 0, n >= 0) without the cancellation of the
    difference for large ``a``: there (a >= 30), the difference of the asymptotic series
    term by term (``log1p(n / a)``, then the differences of ``1/(2x)``, ``1/(12x^2)``,
    ``1/(120x^4)`` and ``1/(252x^6)``: relative error about ``a^-8 / 30``)."""
    a, n = np.asarray(a, dtype=np.float64), np.asarray(n, dtype=np.float64)
    y = a + n
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ix, iy = 1.0 / a, 1.0 / y
        d, s, q = n * ix * iy, ix + iy, ix * ix + iy * iy  # d = 1/a - 1/y
        series = d * (0.5 + s * (1 / 12 - q / 120 + (q * q - ix * ix * iy * iy) / 252))
        return np.where(a < 30.0, digamma(y) - digamma(a), np.log1p(n * ix) + series)


def trigamma(x) -> np.ndarray:
    """The derivative of digamma, for x > 0: six steps of the recurrence, then the
    asymptotic series (relative error below 1e-12)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape)
    for i in range(6):
        out += 1.0 / (x + i) ** 2
    z = 1.0 / (x + 6.0)
    z2 = z * z
    return out + z + z2 / 2 + z * z2 * (1 / 6 - z2 * (1 / 30 - z2 * (1 / 42 - z2 / 30)))


def _level_data(customers, base, axis):
    """What a level's likelihood needs: per cell with customers its count and base
    probability, per node with customers its total."""
    base = np.broadcast_to(np.expand_dims(base, axis), customers.shape)
    seen = customers > 0
    totals = customers.sum(axis=-1)
    return customers[seen], base[seen], totals[totals > 0]


def log_evidence(c, customers, base, axis) -> float:
    """The level's log Dirichlet-multinomial marginal likelihood at concentration ``c``:
    of each node's customers given its parent's estimate ``base``."""
    n, p, totals = _level_data(customers, base, axis)
    value = np.sum(gammaln(c * p + n) - gammaln(c * p))
    return float(value + np.sum(gammaln(c) - gammaln(c + totals)))


def fit_concentration(customers, base, axis, start: float = 2.0, floor: float = 0.0) -> float:
    """The concentration of a level: the maximum of :func:`log_evidence` over ``c`` in
    [max(``floor``, 1e-6), 1e8]: a root of its derivative in ``u = log c`` (>= 0 as
    c -> 0, tending to 0 as c -> inf) by Newton's method from ``start`` kept inside a
    shrinking bracket, or the bound towards which the derivative keeps its sign (where a
    step would leave the bracket, the bound is tried; else bisection)."""
    n, p, totals = _level_data(customers, base, axis)
    lo, hi = np.log(max(floor, 1e-6)), np.log(1e8)
    if totals.size == 0:  # no customers: nothing says the nodes differ from their parents
        return float(np.exp(hi))

    m = n.size
    counts = np.concatenate([n, totals])
    weights = np.concatenate([p, -np.ones(totals.size)])
    curvature = np.concatenate([p * p, -p * p, [float(totals.size)], -np.ones(totals.size)])

    def slope(u):  # d/du log_evidence and its derivative in u
        c = np.exp(u)
        start = np.concatenate([c * p, np.full(totals.size, c)])
        g = weights @ digamma_step(start, counts)
        h = curvature @ trigamma(np.concatenate([start[:m] + n, start[:m], [c], c + totals]))
        return c * g, c * g + c * c * h

    bounds = (lo, hi)
    u = float(np.clip(np.log(start), lo, hi))
    for _ in range(100):
        s, ds = slope(u)
        if s > 0:
            lo = u
        else:
            hi = u
        step = u - s / ds if ds < 0 else (lo + hi) / 2
        if not lo < step < hi:
            bound = bounds[1] if s > 0 else bounds[0]
            if bound in (lo, hi) and u != bound and (slope(bound)[0] > 0) == (s > 0):
                return float(np.exp(bound))  # the slope keeps its sign up to the bound
            step = (lo + hi) / 2
        if abs(step - u) < 1e-10 or hi - lo < 1e-10:
            return float(np.exp(step))
        u = step
    return float(np.exp(u))


def _root(customers, alpha: float) -> tuple[np.ndarray, float]:
    """The root's estimate and unseen mass: Lidstone ``alpha`` over its customers (1/O_j
    each where there are none and alpha = 0, as the Lidstone tables)."""
    size = customers.size
    total = customers.sum() + alpha * size
    if total <= 0:
        return np.full(size, 1.0 / size), 1.0 / size
    return (customers + alpha) / total, alpha / total


def fit(counts, alpha: float, concentration=None, max_iter: int = 100, tol: float = 1e-8):
    """The tree of ``counts`` (C, O_pa1, ..., O_paK, O_j), as a :class:`Tree`.

    ``concentration`` None fits each level's (see the module docstring); a number fixes
    every level below the root at it (the root's is ``alpha O_j``).

    Examples
    --------
    Two classes, each with 2 rows of its own value; concentration 2 below the root. By
    symmetry the root is (1/2, 1/2); each class's 2 customers sit at
    ``E[t] = 1 + 1/2`` tables (a = 2 * 1/2), the root's customers (3/2, 3/2); a leaf
    ``(2 + 2 * 1/2) / (2 + 2) = 3/4``:

    >>> import numpy as np
    >>> tree = fit(np.array([[2.0, 0.0], [0.0, 2.0]]), alpha=1.0, concentration=2.0)
    >>> tree.proba[1]
    array([[0.75, 0.25],
           [0.25, 0.75]])
    >>> tree.customers[0], tree.unseen[1]  # root customers; unseen value 2 * 0.2 / 4
    (array([1.5, 1.5]), array([0.1, 0.1]))
    """
    leaves = np.maximum(np.asarray(counts, dtype=np.float64), 0.0)
    depth = leaves.ndim - 1  # levels below the root
    size = leaves.shape[-1]
    conc = np.full(depth + 1, 2.0 if concentration is None else float(concentration))
    conc[0] = alpha * size
    customers = [leaves] * (depth + 1)
    for level in range(depth, 0, -1):  # start: every customer its own table
        customers[level - 1] = customers[level].sum(axis=level - 1)
    proba = unseen = None
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        if proba is not None:  # table counts, leaves upwards, given the estimates
            for level in range(depth, 0, -1):
                base = conc[level] * np.expand_dims(proba[level - 1], level - 1)
                tables = expected_tables(customers[level], base)
                customers[level - 1] = tables.sum(axis=level - 1)
        root, new = _root(customers[0], alpha)
        estimates, masses = [root], [np.asarray(new)]
        for level in range(1, depth + 1):  # concentrations and estimates, root downwards
            if concentration is None:
                conc[level] = fit_concentration(
                    customers[level], estimates[-1], level - 1, conc[level], alpha
                )
            c, n = conc[level], customers[level]
            total = n.sum(axis=-1) + c
            estimates.append((n + c * np.expand_dims(estimates[-1], level - 1)) / total[..., None])
            masses.append(c * np.expand_dims(masses[-1], level - 1) / total)
        moved = np.inf if proba is None else np.max(np.abs(estimates[-1] - proba[-1]), initial=0)
        proba, unseen = estimates, masses
        if moved < tol:
            break
    return Tree(proba, unseen, customers, conc, n_iter)


def proba(counts, alpha: float) -> np.ndarray:
    """``P(x_j | c, pa)``: the leaves of the tree of ``counts``, same shape."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.shape[-1] == 0:
        return counts.copy()
    return fit(counts, alpha).proba[-1]


def _log(p) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(p)


def lookup_table(counts, alpha: float, unseen: str, fallbacks=None) -> np.ndarray:
    """The extended log table of :func:`~bayesrule.likelihoods.discrete.cpt.lookup_table`,
    shape (C, O_pa1 + 1, ..., O_paK + 1, O_j + 2), from trees: the slots where the parents
    in ``kept`` are available hold the leaves of the tree of ``fallbacks[kept]`` (by
    default ``counts`` summed over the other parents); child slot ``O_j`` the unseen-value
    mass (0, in logs, under ``unseen="ignore"``), ``O_j + 1`` (missing) 0."""
    counts = np.asarray(counts, dtype=np.float64)
    k = counts.ndim - 2
    sizes = counts.shape[1:-1]
    size = counts.shape[-1]
    out = np.zeros((counts.shape[0], *(s + 1 for s in sizes), size + 2))
    if size == 0:  # a feature never observed in training adds nothing
        return out
    fallbacks = fallbacks or {}
    for kept in itertools.chain.from_iterable(
        itertools.combinations(range(k), r) for r in range(k + 1)
    ):
        part = fallbacks.get(kept)
        if part is None:
            dropped = tuple(1 + i for i in range(k) if i not in kept)
            part = counts.sum(axis=dropped) if dropped else counts
        tree = fit(part, alpha)
        where = (slice(None), *(slice(0, sizes[i]) if i in kept else sizes[i] for i in range(k)))
        out[(*where, slice(0, size))] = _log(tree.proba[-1])
        if unseen != "ignore":
            out[(*where, size)] = _log(tree.unseen[-1])
    return out
