"""Leave-one-out log loss of every SPODE, from the counts and one pass over the rows.

Which attribute makes the best super-parent is a question about classification, not
about how much dependence it explains (a parent nearly duplicated by other attributes
explains the most and leaves them nothing to say about the class). Keogh and Pazzani's
SuperParent chose it by estimated accuracy; here each candidate's SPODE is scored by its
leave-one-out log loss, which the counts give without refitting: a training row is
taken out of every count it is in (``F - 1``), its class posterior computed from what
remains, and ``-ln P(c_i | x_i)`` summed over the rows.

A row of weight ``w`` is left out as one unit of weight (all of it where ``w < 1``) and
its loss counts ``w`` times, so integer weights give the losses of repeated rows. A row
whose super-parent is missing scores as the SPODE would predict it, by naive Bayes; a
missing attribute drops out. The losses add over rows, so row blocks (a Dask
collection's) can be scored apart and summed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .cpt import back_off_prior, smoothed

#: the most a row's loss counts: ``-ln`` of the smallest positive double's precision
#: (a posterior of zero for the true class, possible with ``alpha=0``)
LOSS_CAP = -np.log(np.finfo(np.float64).eps)

#: rows scored at once (memory: a few (rows, classes) arrays)
ROW_CHUNK = 1 << 15


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
    for p in range(d):  # one super-parent's tables at a time
        for start in range(0, y.size, ROW_CHUNK):
            part = slice(start, start + ROW_CHUNK)
            total[p] += model.loss(p, codes[part], y[part], w[part])
    return {"loss": total}


class _Counts:
    """The SPODE tables of every super-parent (log-probabilities, all rows in), and the
    counts to take one row out of them."""

    def __init__(self, stats, alpha, backoff):
        self.stats, self.alpha, self.backoff = stats, alpha, backoff
        self.singles = stats.singles()
        self.C = stats.n_classes
        self.sizes = [c.size for c in stats.categories]
        self._children = {}

    def children(self, p: int) -> list:
        """Per other attribute j: (j, counts F(c, x_p, x_j), their log table)."""
        if p not in self._children:
            self._children.clear()  # one super-parent's tables at a time
            others = [j for j in range(len(self.sizes)) if j != p]
            blocks = self.stats.blocks([(p, j) for j in others])
            self._children[p] = [
                (j, _Child(B, self.alpha, self.backoff))
                for j, B in zip(others, blocks, strict=True)
            ]
        return self._children[p]

    def loss(self, p, codes, y, w) -> float:
        n, rows = y.size, np.arange(y.size)
        delta = np.minimum(w, 1.0)
        a = codes[:, p]
        seen = a >= 0
        joint = np.zeros((n, self.C))
        if not seen.all():
            joint[~seen] = self._naive(codes[~seen], y[~seen], delta[~seen])
        F = self.singles[p]
        if seen.any():  # P(y, x_p) = (F(y, x_p) + alpha) / (n_p + alpha C O_p)
            size, s = self.C * F.shape[1], np.flatnonzero(seen)
            left = F.sum() - delta[s]  # n_p less the row, for every class
            joint[s] = _lidstone(F[:, a[s]].T, left[:, None], self.alpha, size)
            joint[s, y[s]] = _lidstone(F[y[s], a[s]] - delta[s], left, self.alpha, size)
        for j, child in self.children(p):
            b = codes[:, j]
            ok = np.flatnonzero(seen & (b >= 0))
            if ok.size == 0:
                continue
            ai, bi, yi = a[ok], b[ok], y[ok]
            term = child.table[:, ai, bi].T
            term[np.arange(ok.size), yi] = child.own(ai, bi, yi, delta[ok])
            joint[ok] += term
        with np.errstate(invalid="ignore"):  # alpha = 0: every class impossible (-inf)
            log_post = joint[rows, y] - logsumexp(joint, axis=1)
        loss = np.minimum(np.nan_to_num(-log_post, nan=LOSS_CAP), LOSS_CAP)
        return float(w @ loss)

    def _naive(self, codes, y, delta) -> np.ndarray:
        """Naive Bayes joints (rows, C) of rows whose super-parent is missing, each row
        out of its own class's counts."""
        C, alpha = self.C, self.alpha
        own = np.zeros((y.size, C), dtype=bool)
        own[np.arange(y.size), y] = True
        cut = np.where(own, delta[:, None], 0.0)
        weight = self.stats.class_weight
        out = _lidstone(weight[None, :] - cut, weight.sum() - delta[:, None], alpha, C)
        for j, F in enumerate(self.singles):
            b = codes[:, j]
            ok = b >= 0
            if ok.any():
                num = F[:, b[ok]].T - cut[ok]
                out[ok] += _lidstone(num, F.sum(axis=1)[None, :] - cut[ok], alpha, F.shape[1])
        return out


class _Child:
    """One child's counts ``F(c, x_p, x_j)``, their sums and log table (all rows in)."""

    def __init__(self, B, alpha, backoff):
        self.B, self.alpha, self.backoff = B, alpha, backoff
        self.parent_total = B.sum(axis=2)  # F(c, x_p) over rows with x_j seen
        self.single = B.sum(axis=1)  # F(c, x_j) over rows with x_p seen
        prior = back_off_prior(self.single, alpha) if backoff > 0 else None
        self.table = smoothed(B, alpha, backoff, prior)[0]

    def own(self, a, b, y, delta) -> np.ndarray:
        """``ln P(x_j | y_i, x_p)`` of each row's own class with the row taken out."""
        size = self.B.shape[-1]
        num, den = self.B[y, a, b] - delta, self.parent_total[y, a] - delta
        if self.backoff <= 0:
            return _lidstone(num, den, self.alpha, size)
        G = self.single
        prior = np.exp(_lidstone(G[y, b] - delta, G[y].sum(axis=-1) - delta, self.alpha, size))
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(num, 0) + self.backoff * prior) - np.log(
                np.maximum(den, 0) + self.backoff
            )


def _lidstone(num, den, alpha: float, size: int) -> np.ndarray:
    """``ln((num + alpha) / (den + alpha size))``; an empty denominator (alpha = 0 and
    nothing left) gives the limit ``1 / size``."""
    num = np.maximum(num, 0) + alpha
    den = np.maximum(den, 0) + alpha * size
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, np.log(num) - np.log(den), -np.log(max(size, 1)))
