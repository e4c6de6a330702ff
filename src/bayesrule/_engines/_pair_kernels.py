"""The numba kernel of :mod:`bayesrule.stats.pair_counts` (imported only where numba is):
the per-class Gram matrices of one-hot rows, counted pair by pair."""

from __future__ import annotations

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
