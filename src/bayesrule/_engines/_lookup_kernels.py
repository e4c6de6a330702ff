"""The numba kernel of :func:`bayesrule._engines.lookup.score` (imported only where numba is).

:func:`score_rows` scores rows ``start:stop`` of a code matrix with a plan in the form
:func:`bayesrule._engines.lookup.flat_plan` gives, writing the class-major output and
the gate sums. It releases the GIL: :func:`~bayesrule._engines.lookup.score` runs it on
row blocks in worker threads. Within a block of rows the loop runs over the components
outside and the rows inside, so that a component's tables stay in cache while every row
of the block looks up in them (A2DE's 435 components hold about 70 MB of tables in all,
one component about 170 kB); each lookup reads C contiguous doubles.

Per row of a block it first computes every *partial cell* the plan's factors use: a
factor's cell is its component's base, plus the terms its component's factors share
(the super-parents' slots times their strides, once per row and component), plus its
partial cell, the same for the factors of every component that look up the same
column at the same offset (AODE's child j in each SPODE). The inner loop is then one
load of a partial cell and one masked SIMD load and add of up to four classes per
factor (:mod:`._lookup_simd`); with partial cells and at most four classes, two rows at
a time (the factors' indices read once for both: the loads, not the adds, bound it).
Indices are unsigned (no negative-index wraparound in the loops) and in units of doubles.

Components are averaged in probability space by a streaming log-sum-exp: per row and
class the largest log-term so far and the sum of the terms' exponentials relative to it,
one ``exp`` per component, class and row. Caching as in :mod:`._kernels`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._kernels import _jit
from ._lookup_simd import sum4, sum4_partial, sum4_partial2

LOG2E = 1.4426950408889634
#: ln(2) in two parts (fdlibm's): k ln2_hi is exact for the k here
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10


@_jit
def _keys(codes, sizes, lo, hi, keys):
    """Per row: the codes, then the parent slots ``min(code, O_j)``, then a 0 (the key
    of padding terms). Returns False where a code is not in 0 .. O_j + 1 (the row then
    scores nothing: its keys are 0)."""
    d = sizes.size
    ok = True
    for r in range(hi - lo):
        for j in range(d):
            code = codes[lo + r, j]
            if code < 0 or code > sizes[j] + 1:
                ok, code = False, 0
            keys[r, j] = code
            keys[r, d + j] = min(code, sizes[j])
        keys[r, 2 * d] = 0
    return ok


@_jit
def _partial(keys, rows, col, mult, off, out):
    """out[r Q + q] = off[q] + sum_k keys[r, col[q, k]] mult[q, k]."""
    Q = off.size
    for r in range(rows):
        for q in range(Q):
            cell = off[q]
            for k in range(col.shape[1]):
                cell += np.uint64(keys[r, col[q, k]]) * mult[q, k]
            out[r * Q + q] = cell


def _jit_contract(function):
    """:func:`._kernels._jit` with multiply-adds fused (``fastmath={"contract"}``: the
    only fast-math flag; no reassociation, NaN and inf kept)."""
    try:
        return numba.njit(nogil=True, cache=True, fastmath={"contract"})(function)
    except RuntimeError:  # no cache folder
        return numba.njit(nogil=True, fastmath={"contract"})(function)


#: 1 / k! for k = 0 .. 13: Taylor's series of exp to r^13 (the rest below 1e-17 for
#: |r| <= ln(2) / 2)
C0, C1, C2, C3 = 1.0, 1.0, 1.0 / 2, 1.0 / 6
C4, C5, C6, C7 = 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040
C8, C9, C10, C11 = 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800
C12, C13 = 1.0 / 479001600, 1.0 / 6227020800


@_jit_contract
def _exp(x, out, bits, n):
    """out[:n] = exp(x[:n]) for x <= 0, within 1 ulp or so, x below -708 (and NaN)
    taken as -708 (exp(-708) ~ 3e-308 next to a sum of at least 1 is nothing). The
    loops hold no calls, so they run on SIMD vectors (libm's exp, a call per value,
    took most of A2DE's time); the polynomial in Estrin's scheme (short chains)."""
    for i in range(n):
        v = x[i]
        v = v if v > -708.0 else -708.0
        k = np.floor(v * LOG2E + 0.5)
        r = (v - k * LN2_HI) - k * LN2_LO  # |r| <= ln(2) / 2
        r2 = r * r
        r4 = r2 * r2
        low = (C0 + C1 * r) + r2 * (C2 + C3 * r) + r4 * ((C4 + C5 * r) + r2 * (C6 + C7 * r))
        high = (C8 + C9 * r) + r2 * (C10 + C11 * r) + r4 * (C12 + C13 * r)
        out[i] = low + (r4 * r4) * high
        bits[i] = (np.int64(k) + 1023) << 52  # 2^k, k in -1022 .. 0
    scale = bits.view(np.float64)
    for i in range(n):
        out[i] *= scale[i]


@_jit
def _merge(terms, groups, m, best, total, x, e, bits):
    """Add the exponentials of ``groups`` rows of ``terms`` (G, m) to the running sums:
    per entry the largest term so far ``best`` and the sum of exponentials relative to
    it ``total``, rescaled to the new largest (one exp per term, and one per entry)."""
    top = x[m:]  # the new largest, beside x
    for i in range(m):
        top[i] = best[i]
    for g in range(groups):
        for i in range(m):
            top[i] = max(top[i], terms[g, i])
    for i in range(m):
        x[i] = best[i] - top[i]
    _exp(x, e, bits, m)
    for i in range(m):
        total[i] *= e[i]
    for g in range(groups):
        for i in range(m):
            x[i] = terms[g, i] - top[i]
        _exp(x, e, bits, m)
        for i in range(m):
            total[i] += e[i]
    for i in range(m):
        best[i] = top[i]


#: the per-row helpers below are inlined by numba itself (``inline="always"``): called as
#: functions, each call's array arguments cost reference counts, and AODE's scoring took
#: 0.136 s instead of 0.077 s on one thread
@numba.njit(inline="always")
def _cell(small, keys, narrow, r, base, cols, mults, t):
    """``base + sum_k key(r, cols[t, k]) mults[t, k]``: a cell from row r's keys (16-bit
    ``small`` where ``narrow``, else ``keys``)."""
    for k in range(cols.shape[1]):
        key = np.uint64(small[r, cols[t, k]]) if narrow else keys[r, cols[t, k]]
        base += key * mults[t, k]
    return base


@numba.njit(inline="always")
def _store(out, g, at, width, a0, a1, a2, a3, shift):
    """``out[g, at + c] = a_c + shift`` for the first ``width`` of the four sums."""
    out[g, at] = a0 + shift
    if width > 1:
        out[g, at + 1] = a1 + shift
    if width > 2:
        out[g, at + 2] = a2 + shift
    if width > 3:
        out[g, at + 3] = a3 + shift


@_jit
def score_rows(codes, sizes, start, stop, flat, out, used):
    """Rows ``start:stop`` of ``codes`` (n, d) scored into ``out[:, start:stop]`` (C, n)
    and ``used[start:stop]`` (the gate sums), ``flat`` the tuple of
    :func:`~bayesrule._engines.lookup.flat_plan`. Returns False if a code was outside
    0 .. O_j + 1 (read as 0 instead: the scores are then not to be used)."""
    (tf, C, starts, fidx, cbase, scol, smult, pcol, pmult, poff) = flat[:10]
    (gbase, gcol, gmult, gval, glog, logw, plain, rows, G) = flat[10:19]
    (direct, dcol, drel, narrow) = flat[19:]
    uC = np.uint64(C)
    d = sizes.size
    T = starts.size - 1
    # a row's keys: in 16 bits where they fit (two cache lines for 30 columns)
    small = np.zeros((rows if narrow else 0, 2 * d + 1), dtype=np.uint16)
    keys = np.empty((0 if narrow else rows, 2 * d + 1), dtype=np.uint64)
    Q = np.uint64(poff.size)
    part = np.empty(rows * poff.size, dtype=np.uint64)
    terms = np.empty((G, rows * C))  # the component scores of a group, (row, class) inside
    best = np.empty(rows * C)
    total = np.empty(rows * C)
    x = np.empty(2 * rows * C)
    e = np.empty(rows * C)
    bits = np.empty(rows * C, dtype=np.int64)
    gate = np.empty(rows)
    ok = True
    for lo in range(start, stop, rows):
        hi = min(stop, lo + rows)
        n = hi - lo
        if narrow:
            ok &= _keys(codes, sizes, lo, hi, small)
            if not direct:
                _partial(small, n, pcol, pmult, poff, part)
        else:
            ok &= _keys(codes, sizes, lo, hi, keys)
            _partial(keys, n, pcol, pmult, poff, part)
        best[: n * C] = -np.inf
        total[: n * C] = 0.0
        gate[:n] = 0.0
        paired = not direct and C <= 4  # two rows a call, sharing the index loads
        for t in range(T):
            g0 = t % G
            weight = math.exp(logw[t])
            f0, f1 = starts[t], starts[t + 1]
            second = False  # row r was scored as the second of a pair
            for r in range(n):
                if second:
                    second = False
                    continue
                at = r * C
                g = _cell(small, keys, narrow, r, gbase[t], gcol, gmult, t)
                value = gval[g]
                if not value > 0.0:
                    for c in range(C):
                        terms[g0, at + c] = -np.inf
                    continue
                gate[r] += weight * value
                shift = 0.0 if plain else logw[t] + glog[g]
                base = _cell(small, keys, narrow, r, cbase[t], scol, smult, t)
                row = np.uint64(r) * Q
                if paired and r + 1 < n:
                    g = _cell(small, keys, narrow, r + 1, gbase[t], gcol, gmult, t)
                    value = gval[g]
                    if value > 0.0:  # rows r and r + 1 at once
                        gate[r + 1] += weight * value
                        shift2 = 0.0 if plain else logw[t] + glog[g]
                        base2 = _cell(small, keys, narrow, r + 1, cbase[t], scol, smult, t)
                        a0, a1, a2, a3, b0, b1, b2, b3 = sum4_partial2(
                            tf, base, base2, part, row, row + Q, fidx, f0, f1, C
                        )
                        _store(terms, g0, at, C, a0, a1, a2, a3, shift)
                        _store(terms, g0, at + C, C, b0, b1, b2, b3, shift2)
                        second = True
                        continue
                # the sums, four classes at a time (written out here: a call per
                # component and row costs more than them)
                for c0 in range(0, C, 4):
                    width = min(4, C - c0)
                    cell = base + np.uint64(c0)
                    if direct:  # SIMD: one masked load and add per lookup
                        a0, a1, a2, a3 = sum4(tf, cell, drel, small, r, dcol, f0, f1, uC, width)
                    else:  # the same, at the row's partial cells
                        a0, a1, a2, a3 = sum4_partial(tf, cell, part, row, fidx, f0, f1, width)
                    _store(terms, g0, at + c0, width, a0, a1, a2, a3, shift)
            if plain:  # one component, no gate: the sum itself
                best[: n * C] = terms[0, : n * C]
            elif g0 == G - 1 or t == T - 1:
                _merge(terms, g0 + 1, n * C, best, total, x, e, bits)
        for r in range(n):
            used[lo + r] = 1.0 if plain else gate[r]
            norm = math.log(gate[r]) if gate[r] > 0.0 else 0.0
            for c in range(C):
                i = r * C + c
                if plain:
                    out[c, lo + r] = best[i]
                elif gate[r] > 0.0:
                    out[c, lo + r] = best[i] + np.log(total[i]) - norm
                else:
                    out[c, lo + r] = -np.inf
    return ok


@_jit
def value_codes(X, values, starts, unseen, codes):
    """codes[i, j] = the position of ``X[i, j]`` among column j's sorted ``values[starts[j]
    : starts[j + 1]]``, ``O_j + 1`` where it is NaN (missing), ``unseen + O_j`` where it
    is not among them (``unseen`` 0: the unseen slot, 1: dropped as missing). Returns the
    flat position ``i d + j`` of the first value not among them, or -1. The position is
    the count of smaller values: counted outright for a few values, else by a binary
    search whose steps select rather than branch (random values mispredict branches)."""
    n, d = X.shape
    first = -1
    for i in range(n):
        for j in range(d):
            v = np.float64(X[i, j])
            lo, hi = starts[j], starts[j + 1]
            size = hi - lo
            if v != v:
                codes[i, j] = size + 1
                continue
            if size <= 16:
                a = lo
                for k in range(lo, hi):
                    a += values[k] < v
            else:
                a, step = lo, size
                while step > 1:
                    half = step >> 1
                    a = a + half if values[a + half - 1] < v else a
                    step -= half
                a += a < hi and values[a] < v
            if a < hi and values[a] == v:
                codes[i, j] = a - lo
            else:
                codes[i, j] = size + unseen
                if first < 0:
                    first = i * d + j
    return first


@_jit
def dense_codes(X, lows, spans, starts, sizes, table, unseen, codes):
    """As :func:`value_codes`, for columns of a few integers: ``X[i, j] - lows[j]``
    looked up in column j's table ``table[starts[j]:]`` of ``spans[j] + 1`` entries
    (-1: a value not seen); a value off the table, or not an integer, is not seen."""
    n, d = X.shape
    first = -1
    for i in range(n):
        for j in range(d):
            v = np.float64(X[i, j])
            size = sizes[j]
            if v != v:
                codes[i, j] = size + 1
                continue
            k = v - lows[j]
            code = -1
            if k >= 0.0 and k <= spans[j] and size > 0:
                at = np.int64(k)
                if at == k:
                    code = table[starts[j] + at]
            if code >= 0:
                codes[i, j] = code
            else:
                codes[i, j] = size + unseen
                if first < 0:
                    first = i * d + j
    return first
