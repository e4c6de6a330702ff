"""The randomness of an ensemble of selective KDBs: stochastic MDL cut points and
attribute orders sampled by mutual information.

Zhang, Petitjean and Buntine (2020, *Knowledge and Information Systems* 62) make the
members of ESKDB differ in two ways, both read from the authors' code:

* **stochastic discretisation**: Fayyad and Irani's recursive MDL split, but at each step
  the cut is *drawn* among the candidate cuts that pass the MDL rule, with probability
  proportional to their margin ``Gain - (log2(N - 1) + Delta) / N`` (instead of taking the
  cut of least class entropy); the two halves are split again the same way. Where no
  candidate of the whole column passes, one cut is drawn with probability proportional to
  its information gain, so that every column with some class information gets a cut;
* **sampled attribute orders**: the order of SKDB (by ``I(X_j; C)``) replaced by a draw
  without replacement with probabilities proportional to ``I(X_j; C)`` among the attributes
  left; attributes of zero mutual information are left out of the order.

Both work on what the passes over the data give (the distinct values of a column and
their class weights; the pair counts), so a member's draws are the same in memory and on
Dask for the same seed.
"""

from __future__ import annotations

import math

import numpy as np

from .discretize import _entropy


def random_mdl_cuts(u: np.ndarray, table: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Sorted cut points (float64) of distinct values ``u`` with class-weight ``table``
    (m, C), drawn as the module docstring says.

    Examples
    --------
    >>> u, table = np.arange(20.0), np.repeat(np.eye(2), 10, axis=0)
    >>> random_mdl_cuts(u, table, np.random.default_rng(0))  # one clean cut
    array([9.5])
    """
    cum = np.vstack([np.zeros(table.shape[1]), np.cumsum(table, axis=0)])
    cuts, stack = [], [(0, u.size, True)]  # half-open ranges of distinct-value indices
    while stack:
        lo, hi, whole_column = stack.pop()
        if hi - lo < 2:
            continue
        whole = cum[hi] - cum[lo]
        left = cum[lo + 1 : hi] - cum[lo]  # the cut after each index lo .. hi - 2
        right = whole - left
        n, n1, n2 = whole.sum(), left.sum(axis=1), right.sum(axis=1)
        if n <= 1:
            continue
        ent, e1, e2 = float(_entropy(whole)), _entropy(left), _entropy(right)
        gain = ent - (n1 * e1 + n2 * e2) / n
        k = int(np.count_nonzero(whole > 0))
        k1, k2 = np.count_nonzero(left > 0, axis=1), np.count_nonzero(right > 0, axis=1)
        delta = math.log2(3**k - 2) - (k * ent - k1 * e1 - k2 * e2)
        margin = gain - (np.log2(n - 1) + delta) / n
        weight = np.where((margin > 0) & (gain > 1e-12), margin, 0.0)
        recurse = weight.sum() > 0
        if not recurse:
            if not whole_column:
                continue
            weight = np.where(gain > 1e-12, gain, 0.0)  # one cut at least, by gain
            if weight.sum() <= 0:
                continue
        i = int(rng.choice(weight.size, p=weight / weight.sum()))
        cuts.append((u[lo + i] + u[lo + i + 1]) / 2)
        if recurse:
            stack += [(lo, lo + i + 1, False), (lo + i + 1, hi, False)]
    return np.asarray(sorted(cuts), dtype=np.float64)


def sampled_order(mi: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Attributes drawn one after the other without replacement, each with probability
    proportional to its ``I(X_j; C)`` among those left; those of zero information are
    left out.

    Examples
    --------
    >>> sampled_order(np.array([0.0, 0.3, 0.0]), np.random.default_rng(0))
    array([1])
    """
    p = np.maximum(np.asarray(mi, dtype=np.float64), 0.0)
    order = []
    while p.sum() > 0:
        j = int(rng.choice(p.size, p=p / p.sum()))
        order.append(j)
        p[j] = 0.0
    return np.asarray(order, dtype=np.intp)
