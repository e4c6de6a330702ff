"""Leave-one-out log loss of every SPODE, from the counts and one pass over the rows.

Which attribute makes the best super-parent is a question about classification, not
about how much dependence it explains (a parent nearly duplicated by other attributes
explains the most and leaves them nothing to say about the class). Keogh and Pazzani's
SuperParent chose it by estimated accuracy; here each candidate's SPODE is scored by its
leave-one-out log loss, which the counts give without refitting: a training row is
taken out of every count it is in (``F - 1``), its class posterior computed from what
remains, and ``-ln P(c_i | x_i)`` summed over the rows. This equals refitting without
each row wherever its removal leaves every value and class seen (a value seen once keeps
its category here, where a refit would drop it).

A row of weight ``w`` is left out as one unit of weight (all of it where ``w < 1``) and
its loss counts ``w`` times, so integer weights give the losses of repeated rows. A row
whose super-parent is missing scores as the SPODE predicts it, by naive Bayes under the
class probabilities its estimates imply; a missing attribute drops out. The losses add
over rows, so row blocks (a Dask collection's) can be scored apart and summed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ..._blocks import BLOCK_BYTES
from .cpt import back_off_prior, lidstone, m_estimate, smoothed

#: the most a row's loss counts: ``-ln`` of the smallest positive double's precision
#: (a posterior of zero for the true class, possible with ``alpha=0``)
LOSS_CAP = -np.log(np.finfo(np.float64).eps)


#: rows scored at once: about four (classes, rows) float arrays in ``BLOCK_BYTES``
def _row_chunk(n_classes: int) -> int:
    return max(1024, BLOCK_BYTES // (32 * n_classes))


def spode_losses(codes, y, w, *, stats, alpha: float, backoff: float) -> dict:
    """``{"loss": (d,)}``: per super-parent the summed leave-one-out log loss of the rows
    (``codes`` of :func:`~bayesrule.stats.pair_counts.encode_table`, -1 where missing,
    classes ``y``, weights ``w`` or None); additive over row blocks."""
    w = np.ones(y.size) if w is None else np.asarray(w, dtype=np.float64)
    keep = w > 0
    codes, y, w = codes[keep], y[keep], w[keep]
    d = codes.shape[1]
    total = np.zeros(d)
    if y.size == 0:
        return {"loss": total}
    model = _Counts(stats, alpha, backoff)
    codes = np.asfortranarray(codes)  # each attribute's codes contiguous
    step = _row_chunk(stats.n_classes)
    for p in range(d):  # one super-parent's tables at a time
        children = model.children(p)
        for start in range(0, y.size, step):
            part = slice(start, start + step)
            total[p] += model.loss(p, children, codes[part], y[part], w[part])
    return {"loss": total}


class _Counts:
    """The counts of every SPODE, and the loss of rows each taken out of them."""

    def __init__(self, stats, alpha, backoff):
        self.stats, self.alpha, self.backoff = stats, alpha, backoff
        self.singles = stats.singles()
        self.C = stats.n_classes

    def children(self, p: int) -> list:
        """Per other attribute j: (j, its :class:`_Child` given the super-parent p)."""
        others = [j for j in range(len(self.singles)) if j != p]
        blocks = self.stats.blocks([(p, j) for j in others])
        return [
            (j, _Child(B, self.alpha, self.backoff)) for j, B in zip(others, blocks, strict=True)
        ]

    def loss(self, p, children, codes, y, w) -> float:
        n, rows = y.size, np.arange(y.size)
        delta = np.minimum(w, 1.0)
        a = codes[:, p]
        seen = a >= 0
        every = bool(seen.all())
        joint = np.zeros((self.C, n))  # class-major: ln P(c, x) of each row, row left out
        F = self.singles[p]
        if not every:  # naive Bayes under the class probabilities the SPODE implies
            joint[:, ~seen] = self._naive(p, codes[~seen], y[~seen], delta[~seen]).T
        s = rows if every else np.flatnonzero(seen)
        if s.size:  # P(y, x_p) = (F(y, x_p) + alpha) / (n_p + alpha C O_p)
            size = self.C * F.shape[1]
            left = F.sum() - delta[s]  # n_p less the row, for every class
            joint[:, s] = lidstone(F[:, a[s]], left[None, :], self.alpha, size)
            joint[y[s], s] = lidstone(F[y[s], a[s]] - delta[s], left, self.alpha, size)
        own_class = y * n + rows  # each row's own class in a flat (C, n) block
        for j, child in children:
            b = codes[:, j]
            full = every and bool((b >= 0).all())  # the usual case: no copies of the rows
            ok = rows if full else np.flatnonzero(seen & (b >= 0))
            if ok.size == 0:
                continue
            ai, bi, yi, di = (a, b, y, delta) if full else (a[ok], b[ok], y[ok], delta[ok])
            cell = ai * child.size + bi
            term = np.take(child.flat, cell, axis=1)  # (C, rows): every class, all rows in
            spot = own_class if full else yi * ok.size + np.arange(ok.size)
            term.reshape(-1)[spot] = child.own(cell, ai, bi, yi, di)
            if full:
                joint += term
            else:
                joint[:, ok] += term
        with np.errstate(invalid="ignore"):  # alpha = 0: every class impossible (-inf)
            log_post = joint[y, rows] - logsumexp(joint, axis=0)
        loss = np.minimum(np.nan_to_num(-log_post, nan=LOSS_CAP), LOSS_CAP)
        return float(w @ loss)

    def _naive(self, p, codes, y, delta) -> np.ndarray:
        """Naive Bayes joints (rows, C) of rows whose super-parent p is missing, each row
        out of its own class's counts, under ``sum_{x_p} P(c, x_p)`` (which such a row
        leaves unchanged)."""
        C, alpha = self.C, self.alpha
        own = np.zeros((y.size, C), dtype=bool)
        own[np.arange(y.size), y] = True
        cut = np.where(own, delta[:, None], 0.0)
        F = self.singles[p]
        out = np.tile(lidstone(F.sum(axis=1), F.sum(), alpha * F.shape[1], C), (y.size, 1))
        for j, F in enumerate(self.singles):
            b = codes[:, j]
            ok = b >= 0
            if ok.any():
                num = F[:, b[ok]].T - cut[ok]
                out[ok] += lidstone(num, F.sum(axis=1)[None, :] - cut[ok], alpha, F.shape[1])
        return out


class _Child:
    """One child's counts ``F(c, x_p, x_j)`` and their sums, flat (cell ``x_p O_j + x_j``),
    and its log table with every row in."""

    def __init__(self, B, alpha, backoff):
        self.alpha, self.backoff = alpha, backoff
        C, self.size = B.shape[0], B.shape[2]
        self.cells = B.shape[1] * self.size
        self.counts = B.reshape(-1)  # F(c, x_p, x_j) at c * cells + cell
        self.parent_total = B.sum(axis=2).reshape(-1)  # F(c, x_p), over rows with x_j seen
        single = B.sum(axis=1)  # F(c, x_j), over rows with x_p seen
        self.single, self.single_total = single.reshape(-1), single.sum(axis=1)
        prior = back_off_prior(single, alpha) if backoff > 0 else None
        self.flat = smoothed(B, alpha, backoff, prior)[0].reshape(C, -1)
        self._unit = None  # own() of unit-weight rows, per (class, cell), when first needed

    def own(self, cell, a, b, y, delta) -> np.ndarray:
        """``ln P(x_j | y_i, x_p)`` of each row's own class with the row taken out: for
        rows of unit weight (the usual case) looked up in a table of every (class, cell)."""
        if (delta == 1.0).all():
            if self._unit is None:
                every = np.arange(self.counts.size)
                c, where = np.divmod(every, self.cells)
                x_p, x_j = np.divmod(where, self.size)
                self._unit = self._own(where, x_p, x_j, c, np.ones(every.size))
            return self._unit[y * self.cells + cell]
        return self._own(cell, a, b, y, delta)

    def _own(self, cell, a, b, y, delta) -> np.ndarray:
        size, alpha = self.size, self.alpha
        num = self.counts[y * self.cells + cell] - delta
        den = self.parent_total[y * (self.cells // size) + a] - delta
        if self.backoff <= 0:
            return lidstone(num, den, alpha, size)
        alone = self.single[y * size + b] - delta, self.single_total[y] - delta
        return m_estimate(num, den, np.exp(lidstone(*alone, alpha, size)), self.backoff)
