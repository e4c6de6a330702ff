"""The numba kernels of :mod:`bayesrule.stats.pair_counts` (imported only where numba is):
the per-class Gram matrices of one-hot rows, counted pair by pair (:func:`upper_gram`),
or, for rows of weight 0 or 1 and features of few values, as the shared bits of each
one-hot column's bit set of rows (:func:`bit_masks`, :func:`mask_gram`: a popcount per
64 rows and pair of columns instead of an increment per row and pair of features)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._kernels import _jit


@_jit
def upper_gram(codes, offsets, y, w, lo, hi, out):
    """``out[y_i, u, v] += w_i`` for rows ``lo:hi`` and each pair of their one-hot columns
    ``u <= v`` (``u = offsets[j] + codes[i, j]``, codes < 0 missing); only the upper
    triangle (the caller mirrors it). ``w`` of length 0: every weight 1. Returns False
    where a class or code is out of range (nothing counted for that row)."""
    d = codes.shape[1]
    W = out.shape[1]
    unit = w.shape[0] == 0
    columns = offsets[:d].copy()
    ok = True
    for i in range(lo, hi):
        c = y[i]
        if c < 0 or c >= out.shape[0]:
            ok = False
            continue
        weight = 1.0 if unit else w[i]
        m = 0
        for j in range(d):
            code = codes[i, j]
            if code >= 0:
                u = offsets[j] + code
                if u >= offsets[j + 1] or u >= W:
                    ok = False
                    m = 0
                    break
                columns[m] = u
                m += 1
        for a in range(m):
            u = columns[a]
            for b in range(a, m):
                out[c, u, columns[b]] += weight
    return ok


@intrinsic
def popcount(typingctx, x_t):
    """The number of set bits of a uint64 (LLVM's ``ctpop``: one instruction, or SIMD
    in a loop, where the CPU has it)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        ctpop = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(ctpop, [args[0]])

    return sig, codegen


@_jit
def row_positions(y, w, C, pos):
    """``pos[i]``: row i's position among the rows of its class of weight 1 (-1 for a row
    of weight 0: left out); returns the number of such rows per class, or an empty
    array where a class is out of range or a weight neither 0 nor 1 (``w`` of length 0:
    every weight 1)."""
    counts = np.zeros(C, dtype=np.int64)
    unit = w.shape[0] == 0
    for i in range(y.shape[0]):
        c = y[i]
        weight = 1.0 if unit else w[i]
        if c < 0 or c >= C or not (weight == 0.0 or weight == 1.0):
            return np.zeros(0, dtype=np.int64)
        if weight == 0.0:
            pos[i] = -1
            continue
        pos[i] = counts[c]
        counts[c] += 1
    return counts


@_jit
def bit_masks(codes, offsets, y, pos, j0, j1, masks):
    """``masks[c, u]``: the bit set of the rows of class c (at their ``pos``) whose
    one-hot column u is 1, for the columns of features ``j0:j1``. Returns False where a
    code is out of range (nothing set for it)."""
    n = codes.shape[0]
    ok = True
    for j in range(j0, j1):
        start, width = offsets[j], offsets[j + 1] - offsets[j]
        for i in range(n):
            code = codes[i, j]
            k = pos[i]
            if code < 0 or k < 0:
                continue
            if code >= width:
                ok = False
                continue
            masks[y[i], start + code, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    return ok


@_jit
def mask_gram(masks, owner, offsets, first, step, out):
    """``out[c, u, v]`` = the rows of class c with one-hot columns u and v both 1 (the
    bits their masks share), for ``u = first, first + step, ...`` and ``v >= u`` outside
    u's feature (0 there) or ``v = u``: the upper triangle of :func:`upper_gram`'s."""
    C, W, words = masks.shape
    for c in range(C):
        for u in range(first, W, step):
            s = np.uint64(0)
            for k in range(words):
                s += popcount(masks[c, u, k])
            out[c, u, u] = s
            for v in range(offsets[owner[u] + 1], W):
                s = np.uint64(0)
                for k in range(words):
                    s += popcount(masks[c, u, k] & masks[c, v, k])
                out[c, u, v] = s
