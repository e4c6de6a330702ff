"""Subsumption resolution (Zheng and Webb 2006, AODEsr): lazy elimination of the
attribute values that another value of the same row makes redundant.

A value ``x_j`` is a *specialisation* of a value ``x_i`` of another attribute (``x_i`` a
*generalisation* of ``x_j``) when every training row with ``x_j`` also has ``x_i``:
``F(x_i, x_j) = F(x_j)``, counted over all classes, and ``x_j`` was seen more than a
critical number of times ``L`` (so that the relation is not an accident of few rows).
Then ``P(y | x_i, x_j) = P(y | x_j)``, and a one-dependence estimator that multiplies
in both double counts the evidence. At prediction, a row's generalisations are deleted
(treated as missing: they leave the product, and their SPODEs the average) before the
row is scored. Weka 3.6's ``AODEsr`` decides in this order, and so does this module:

* for each attribute ``i`` in column order, ``x_i`` is deleted for the first attribute
  ``j`` (in column order) whose value it generalises, unless ``x_j`` was deleted for
  ``x_i`` itself (``j < i``);
* two values that always occur together (``F(x_i) = F(x_j)`` too) generalise each
  other: only the later attribute's value is deleted;
* a value must be seen *more* than ``L`` times (Weka's test; its default ``L = 50``).

Counts equal to within rounding (a relative ``1e-9``, for fractional weights) count as
equal. Missing and never-seen values take no part.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..._blocks import BLOCK_BYTES

#: Weka's AODEsr's default critical count (``-C 50``): a specialisation is seen more often
CRITICAL = 50
#: relative difference of two counts taken as rounding (fractional weights)
RELATIVE = 1e-9


def check_subsumption(value) -> int | None:
    """``subsumption`` as the critical count (an int >= 1), or None when off; True is
    Weka's 50. A ValueError/TypeError names it and the fix."""
    if value is None or value is False or (isinstance(value, np.bool_) and not value):
        return None
    if value is True or isinstance(value, np.bool_):
        return CRITICAL
    if not isinstance(value, numbers.Integral) or value < 1:
        kind = ValueError if isinstance(value, numbers.Real) else TypeError
        raise kind(
            f"subsumption must be False, True (a specialisation seen more than {CRITICAL} "
            f"times, Weka's AODEsr) or that critical count as an integer >= 1, got {value!r}."
        )
    return int(value)


def generalisations(stats, critical: int) -> tuple[np.ndarray, ...]:
    """The relations of the pairwise counts ``stats``: arrays ``(i, u, j, v)``, one entry
    each value ``u`` of attribute ``i`` that generalises the value ``v`` of attribute
    ``j`` (codes within each attribute), with the ties of values always seen together
    left to the later attribute (see the module docstring)."""
    off = stats.offsets
    W = int(off[-1])
    c, r, s, F = stats.nonzero()
    if W == 0 or F.size == 0:
        return tuple(np.zeros(0, dtype=np.intp) for _ in range(4))
    key = r.astype(np.int64) * W + s
    keys, inverse = np.unique(key, return_inverse=True)
    together = np.bincount(inverse.ravel(), weights=F)  # F(u, v) over the classes
    u, v = np.divmod(keys, W)
    single = np.zeros(W)
    diagonal = u == v
    single[u[diagonal]] = together[diagonal]  # F(u)
    i = np.searchsorted(off, u, side="right") - 1
    j = np.searchsorted(off, v, side="right") - 1
    fv, fu = single[v], single[u]
    close = np.abs(together - fv) <= RELATIVE * fv
    mutual = np.abs(fu - fv) <= RELATIVE * fv
    keep = (i != j) & (fv > critical) & close & (~mutual | (i > j))
    return tuple(a[keep].astype(np.intp) for a in (i, u - off[i], j, v - off[j]))


def resolve(codes: np.ndarray, relations, sizes: np.ndarray) -> np.ndarray:
    """``codes`` (n, d) with each row's deleted generalisations set to missing
    (``O_j + 1``); the input is left as it was.

    Examples
    --------
    Value 0 of attribute 1 generalises value 2 of attribute 0 (relations of
    :func:`generalisations`); a row holding both loses attribute 1's value:

    >>> import numpy as np
    >>> relations = tuple(np.array([v]) for v in (1, 0, 0, 2))  # (i, u, j, v)
    >>> resolve(np.array([[2, 0], [1, 0]]), relations, np.array([3, 2]))
    array([[2, 3],
           [1, 0]])
    """
    i, u, j, v = relations
    if i.size == 0 or codes.shape[0] == 0:
        return codes
    n, d = codes.shape
    out = codes.copy()
    step = max(64, BLOCK_BYTES // max(8 * (i.size + d * d), 1))
    for start in range(0, n, step):
        block = codes[start : start + step]
        hit = (block[:, i] == u) & (block[:, j] == v)  # (rows, relations)
        rows, which = np.nonzero(hit)
        if rows.size == 0:
            continue
        active = np.unique(rows)
        local = np.searchsorted(active, rows)
        general = np.zeros((active.size, d, d), dtype=bool)  # [row, i, j]: x_i generalises x_j
        general[local, i[which], j[which]] = True
        deleted_for = np.full((active.size, d), -1, dtype=np.intp)
        for a in np.unique(i[which]).tolist():  # in column order, as Weka
            candidates = general[:, a, :] & (deleted_for != a)
            found = candidates.any(axis=1)
            deleted_for[found, a] = candidates[found].argmax(axis=1)
        r, col = np.nonzero(deleted_for >= 0)
        out[start + active[r], col] = sizes[col] + 1
    return out
