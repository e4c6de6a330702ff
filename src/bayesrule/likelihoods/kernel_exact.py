"""Exact evaluation of a one-dimensional Gaussian kernel sum, in bounded memory.

``log_kernel_sum(x, t, w, h) = ln sum_i w_i exp(-(x - t_i)^2 / (2 h^2))`` over blocks of
test values x blocks of training values (temporaries of about ``base.BLOCK_BYTES``).
"""

from __future__ import annotations

import numpy as np

from .base import BLOCK_BYTES

#: test values per evaluation block (sorted, so that a block needs few training values).
TEST_BLOCK = 512

#: training values whose kernel terms are all below e^-TAIL of a test value's nearest
#: term (with the sample size and weights folded in) are skipped: they change the sum by
#: less than e^-TAIL relative, far below rounding.
TAIL = 40.0


def log_kernel_sum(x: np.ndarray, t: np.ndarray, w: np.ndarray, h: float) -> np.ndarray:
    """``ln sum_i w_i exp(-(x - t_i)^2 / (2 h^2))`` at the test values ``x``; ``t`` the
    training values in increasing order (finite), ``w`` their positive weights.

    In units ``u = (x - ref) / (sqrt(2) h)`` the sum is one of ``exp(-(u - t_i)^2)``.
    Each test value's sum is shifted by its nearest training value (found in the sorted
    training values), so every term is at most 1 and the nearest is exactly 1: no
    underflow however far the point. Test values are processed in sorted blocks of at
    most ``TEST_BLOCK`` values whose windows of training values overlap (a block never
    spans two disjoint windows, such as values beyond either end of the data), and
    training values farther than the terms that can matter (``TAIL`` below the shifted
    maximum, relative) are skipped.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.kernel_exact import log_kernel_sum
    >>> x = np.array([0.0, 100.0])  # ln(1 + e^-1/2), and the nearest term, e^-4900.5
    >>> log_kernel_sum(x, np.array([0.0, 1.0]), np.ones(2), 1.0).round(6).tolist()
    [0.474077, -4900.5]
    """
    ref = t[t.size // 2]
    scale = 1.0 / (np.sqrt(2.0) * h)
    w_top = w.max()
    tail = TAIL + np.log(t.size) - np.log(w.min() / w_top)  # skipped: < e^-TAIL of the sum
    sort = np.argsort(x, kind="stable")
    xs = x[sort]
    u = (xs - ref) * scale
    k = np.searchsorted(t, xs)
    below = (t[np.maximum(k - 1, 0)] - ref) * scale  # the neighbours, in units of u
    above = (t[np.minimum(k, t.size - 1)] - ref) * scale
    shift = np.minimum(np.square(u - below), np.square(u - above))  # nearest: min u^2
    reach = np.sqrt(shift + tail) / scale  # each test value's window, in units of x
    first = np.searchsorted(t, xs - reach, side="left")
    end = np.searchsorted(t, xs + reach, side="right")
    out = np.empty(u.size)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        for rows in _blocks(first, end):
            ur, sr = u[rows], shift[rows]
            lo, hi = first[rows].min(), end[rows].max()
            acc = np.zeros(ur.size)
            width = max(1, BLOCK_BYTES // (8 * ur.size))
            for start in range(lo, hi, width):  # only the training values in the window
                stop = min(start + width, hi)
                e = np.subtract.outer(ur, (t[start:stop] - ref) * scale)
                np.square(e, out=e)
                np.subtract(sr[:, None], e, out=e)
                np.exp(e, out=e)
                acc += e @ (w[start:stop] / w_top)
            out[rows] = np.log(acc) - sr
    result = np.empty(u.size)
    result[sort] = out
    return result + np.log(w_top)


def distinct(t: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of the sorted ``t`` and the summed weights ``w`` of each (the
    kernel sum is the same: tied values' terms are equal).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.kernel_exact import distinct
    >>> distinct(np.array([0.0, 0.0, 1.0, 2.0, 2.0]), np.array([1.0, 2.0, 1.0, 0.5, 0.5]))
    (array([0., 1., 2.]), array([3., 1., 1.]))
    """
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    if starts.size == t.size:
        return t, w
    return t[starts], np.add.reduceat(w, starts)


def _blocks(first: np.ndarray, end: np.ndarray) -> list[slice]:
    """Runs of at most ``TEST_BLOCK`` consecutive test values (sorted) whose training
    windows ``[first, end)`` overlap, cut where a window starts after all the earlier
    ones end."""
    cuts = np.flatnonzero(first[1:] >= np.maximum.accumulate(end[:-1])) + 1
    bounds = np.concatenate(([0], cuts, [first.size]))
    step = max(1, TEST_BLOCK)
    return [
        slice(a, min(a + step, b))
        for a0, b in zip(bounds[:-1], bounds[1:], strict=True)
        for a in range(int(a0), int(b), step)
    ]
