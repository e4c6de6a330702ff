"""Binned evaluation of a one-dimensional Gaussian kernel sum: linear binning onto a fine
grid, a convolution with the truncated kernel, and linear interpolation of the log-sum.

This is the binned kernel density estimate of Silverman (1982) and Wand (1994), the method
of R's KernSmooth (``bkde``) and of statsmodels' ``KDEUnivariate(fft=True)``, with two
changes that keep its logarithm accurate everywhere it is used:

* the convolution is a direct sum of non-negative terms with the kernel truncated at
  ``radius`` bandwidths (not an FFT, whose absolute rounding error of about 1e-16 times
  the largest value would swamp the small densities between and beside the data, where
  their logarithms are needed): each grid value has a relative error of about 1e-15;
* the grid covers only the values within ``REACH`` bandwidths of some training value, in
  segments (a run of training values whose gaps are all shorter than twice the truncated
  reach is one segment), so an outlier costs a short segment, not a grid across the gap.

A value whose two neighbouring grid nodes are not both covered gets NaN from
:func:`evaluate`: the caller evaluates it exactly (``Kernel``'s tail policy).

Accuracy. With nodes ``delta = h / STEPS`` apart, linear binning and linear interpolation
each change ``ln sum_i w_i exp(-(x - t_i)^2 / (2 h^2))`` by at most about
``(1 + u^2) delta^2 / (8 h^2)``, ``u`` the distance in bandwidths to the training values
that dominate the sum (``u <= REACH``): at most about 0.002 and typically below 1e-4 with
``STEPS = 64`` and ``REACH = 4``. The kernel is truncated where the terms left out are
below ``e^-TRUNCATION`` of the nearest one (weights and sample size folded in).
``tests/estimators/test_kernel_binned.py`` checks the error against the exact sums and
against scipy and scikit-learn.
"""

from __future__ import annotations

import numpy as np

#: grid nodes per bandwidth (node spacing ``h / STEPS``)
STEPS = 64

#: the grid covers the values within REACH bandwidths of a training value
REACH = 4.0

#: kernel terms below ``e^-TRUNCATION`` of a covered node's nearest term are left out
TRUNCATION = 20.0

#: the most grid nodes one density may have: ``NODES + NODES_PER_ROW * rows``; a density
#: that needs more (bandwidths tiny against the spread of its values) is evaluated exactly
NODES = 1 << 16
NODES_PER_ROW = 4


def radius(weights: np.ndarray) -> float:
    """The kernel's truncation radius in bandwidths for these (positive) weights: terms
    farther than it from a covered node sum to less than ``e^-TRUNCATION`` of the
    nearest training value's term (which is within ``REACH + 1 / STEPS``)."""
    top = weights.max()
    spread = np.log((weights / top).sum()) + np.log(top) - np.log(weights.min())
    return float(np.sqrt((REACH + 1.0 / STEPS) ** 2 + 2.0 * (spread + TRUNCATION)))


def build(t: np.ndarray, w: np.ndarray, h: float) -> tuple | None:
    """The grid of ``ln sum_i w_i exp(-(x - t_i)^2 / (2 h^2))`` for the training values
    ``t`` (sorted, finite) and their weights ``w`` (positive), with bandwidth ``h``.

    Returns ``(starts, bases, counts, log_sum)``: segment s has ``counts[s]`` nodes at
    ``starts[s] + k h / STEPS``, stored at ``log_sum[bases[s] + k]`` (NaN at nodes
    farther than ``REACH`` bandwidths from every training value); or None when the grid
    would need more than ``NODES + NODES_PER_ROW * t.size`` nodes.
    """
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):  # checked below
        return _build(t, w, h)


def _build(t: np.ndarray, w: np.ndarray, h: float) -> tuple | None:
    delta = h / STEPS
    half = int(np.ceil(radius(w) * STEPS))
    w_top = w.max()
    w = w / w_top
    limit = NODES + NODES_PER_ROW * t.size
    gaps = np.diff(t)
    cut = np.flatnonzero(~(gaps <= 2.0 * half * delta + 2.0 * REACH * h)) + 1
    first = np.concatenate(([0], cut))
    last = np.concatenate((cut, [t.size])) - 1
    starts = t[first] - REACH * h
    span = (t[last] - starts + REACH * h) / delta  # nodes up to REACH beyond the last
    if not (np.isfinite(starts).all() and np.isfinite(span).all()):
        return None
    if span.sum() + (span.size + 1) * (half + 2) > limit:
        return None
    counts = np.floor(span).astype(np.intp) + 2
    bases = np.concatenate(([0], np.cumsum(counts[:-1] + half)))
    size = int(bases[-1] + counts[-1])
    segment = np.repeat(np.arange(first.size), last - first + 1)
    p = (t - starts[segment]) / delta
    k = np.minimum(p.astype(np.intp), counts[segment] - 2)
    a = p - k
    k += bases[segment]
    mass = np.bincount(k, w * (1.0 - a), minlength=size)
    mass += np.bincount(k + 1, w * a, minlength=size)
    taps = np.exp(-0.5 * np.square(np.arange(-half, half + 1) / STEPS))
    total = np.convolve(mass, taps)[half : half + size]
    # each node's position and its distance to the nearest training value (the
    # separators between segments, ``half`` nodes each, stay NaN)
    owner = np.repeat(np.arange(first.size), counts + half)[:size]
    node = np.arange(size) - bases[owner]
    inside = node < counts[owner]
    x = starts[owner] + node * delta
    right = np.minimum(np.searchsorted(t, x), t.size - 1)
    near = np.minimum(np.abs(x - t[right]), np.abs(x - t[np.maximum(right - 1, 0)]))
    covered = inside & (near <= (REACH + 1.0 / STEPS) * h) & (total > 0)
    log_sum = np.full(size, np.nan)
    log_sum[covered] = np.log(total[covered]) + np.log(w_top)
    return starts, bases, counts, log_sum


def evaluate(grid: tuple, x: np.ndarray, h: float, offset: float = 0.0) -> np.ndarray:
    """The interpolated log-sums at the values ``x``, plus ``offset`` (NaN where the grid
    does not cover them: outside its segments, or next to a node far from every training
    value)."""
    starts, bases, counts, log_sum = grid
    scale = STEPS / h
    if starts.size == 1:
        p = x - starts[0]
        base, top = int(bases[0]), int(counts[0]) - 1
    else:
        s = np.maximum(np.searchsorted(starts, x, side="right") - 1, 0)
        p = x - starts[s]
        base, top = bases[s], counts[s] - 1
    p *= scale
    q = np.clip(p, 0.0, top)
    outside = p != q  # beyond the segment (or NaN)
    far = outside.any()
    if far:
        q[outside] = 0.0
    k = q.astype(np.intp)
    np.minimum(k, top - 1, out=k)
    q -= k  # the position between nodes k and k + 1
    k += base
    lo = log_sum[k]
    out = log_sum[1:][k]  # the node after k
    out -= lo
    out *= q
    if offset:
        lo += offset
    out += lo
    if far:
        out[outside] = np.nan
    return out
