"""mclust's start of EM: model-based agglomerative hierarchical clustering.

mclust's ``Mclust``/``MclustDA`` start EM for every number of components k from the
partition into k clusters of one agglomerative tree (Fraley 1998, "Algorithms for
model-based Gaussian hierarchical clustering"), built once per data set, so a search
over k and the 14 structures is deterministic and needs no restarts. This module builds
that tree as mclust 6 does by default (``mclust.options("hcModelName") = "VVV"``,
``hcUse = "SVD"``):

* **the data it clusters** (:func:`svd_scores`): the columns centred and scaled to unit
  standard deviation (``n - 1``), columns that are then not finite dropped, projected on
  their right singular vectors and each divided by the square root of its singular
  value;
* **the first partition** (:func:`duplicate_groups`): identical rows start as one
  cluster, every other row alone (mclust's ``dupPartition``); a row of sample weight w
  counts as w repeated rows throughout (mclust takes no weights);
* **the merges**: at each step the two clusters whose merge least increases
  ``sum_c T(c)``, with, for a cluster of ``l`` rows, scatter ``W`` (centred sum of squares
  and products) and trace ``t = tr(W)``:
  ``T = l ln(|W / l| + beta (t + alpha) / l)`` (VVV; the determinant counted only when
  ``l > d``), ``alpha = tr(W_all) / (n d)`` and ``beta = 1`` (hcVVV's defaults), or
  ``T = t`` (EII: Ward's criterion, which mclust uses when a class has no more rows than
  dimensions).

Each merge updates the scatter by the rule of the moments (``W_ij = W_i + W_j +
n_i n_j / (n_i + n_j) (m_i - m_j)(m_i - m_j)^T``), and only the costs of the merged
cluster are recomputed; every row's cheapest partner is cached, so a tree of ``n`` rows
costs ``O(n^2 d^3)`` arithmetic in whole-array steps. Equal costs are rare in real
data; where two merges cost the same to the last bit, the order of the rows decides,
which may differ from mclust's.

Examples
--------
>>> import numpy as np
>>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.3], [5.0, 5.2], [5.1, 4.9]])
>>> hierarchical_partitions(X, [1, 2, 3])[2].tolist()
[0, 0, 0, 1, 1]
"""

from __future__ import annotations

import numpy as np

__all__ = ["duplicate_groups", "hierarchical_partitions", "svd_scores"]

#: mclust's hcVVV hyperparameters: ``alpha`` (times ``tr(W_all) / (n d)``) and ``beta``
ALPHA, BETA = 1.0, 1.0


def svd_scores(X: np.ndarray, weights=None) -> np.ndarray:
    """The rows as mclust's ``hc(use="SVD")`` clusters them (module docstring); a row of
    weight w counts as w repeated rows."""
    w = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    n = w.sum()
    mean = w @ X / n
    variance = w @ (X - mean) ** 2 / (n - 1) if n > 1 else np.zeros(X.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        Z = (X - mean) / np.sqrt(variance)
    Z = Z[:, np.isfinite(Z).all(axis=0)]
    if Z.shape[1] == 0:
        return np.zeros((X.shape[0], 1))
    _, s, Vt = np.linalg.svd(Z * np.sqrt(w)[:, None], full_matrices=False)
    keep = s > 0
    return (Z @ Vt[keep].T) / np.sqrt(s[keep])


def duplicate_groups(X: np.ndarray) -> np.ndarray:
    """Labels 0, 1, ... by first appearance, equal for identical rows."""
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse.ravel()]


class _Tree:
    """The clusters of an agglomeration: counts, means, scatters and terms, and each
    cluster's cheapest partner (a cost matrix with the merged-away rows at +inf)."""

    def __init__(self, Z: np.ndarray, start: np.ndarray, model: str, w: np.ndarray):
        self.model = model
        K = int(start.max()) + 1
        d = Z.shape[1]
        self.d = d
        self.count = np.bincount(start, weights=w, minlength=K)
        self.mean = np.zeros((K, d))
        np.add.at(self.mean, start, w[:, None] * Z)
        self.mean /= self.count[:, None]
        centred = (Z - self.mean[start]) * np.sqrt(w)[:, None]
        self.scatter = np.zeros((K, d, d))
        np.add.at(self.scatter, start, centred[:, :, None] * centred[:, None, :])
        total = (Z - w @ Z / w.sum()) * np.sqrt(w)[:, None]
        spread = float((total * total).sum()) / (w.sum() * d)
        self.alpha = max(ALPHA * spread, np.finfo(float).eps)
        self.trace = np.trace(self.scatter, axis1=-2, axis2=-1).copy()
        self.term = self._terms(self.count, self.trace, lambda mask: self.scatter[mask])
        self.alive = np.ones(K, dtype=bool)
        self.cost = np.full((K, K), np.inf)
        for i in range(1, K):
            self.cost[i, :i] = self._merge_costs(i, np.arange(i))
            self.cost[:i, i] = self.cost[i, :i]
        self.best = self.cost.argmin(axis=1)

    def _terms(self, count, trace, scatter) -> np.ndarray:
        """``T`` of clusters of ``count`` rows, their traces, and ``scatter(mask)`` the
        scatter matrices of the clusters in ``mask`` (only those of more than d rows are
        asked for)."""
        if self.model == "EII":
            return trace
        spread = BETA * (trace + self.alpha) / count
        big = count > self.d
        if big.any():
            sign, logdet = np.linalg.slogdet(scatter(big) / count[big, None, None])
            spread[big] += np.where(sign > 0, np.exp(logdet), 0.0)
        return count * np.log(spread)

    def _merged(self, i: int, others: np.ndarray):
        """Counts, traces and a function of the scatters of cluster i merged with each
        of ``others`` (the scatters computed only where asked)."""
        n_i, n_o = self.count[i], self.count[others]
        n = n_i + n_o
        diff = self.mean[others] - self.mean[i]
        factor = n_i * n_o / n
        trace = self.trace[i] + self.trace[others] + factor * (diff * diff).sum(axis=1)

        def scatter(mask):
            dm = diff[mask]
            outer = factor[mask, None, None] * dm[:, :, None] * dm[:, None]
            return self.scatter[i] + self.scatter[others[mask]] + outer

        return n, trace, scatter

    def _merge_costs(self, i: int, others: np.ndarray) -> np.ndarray:
        n, trace, scatter = self._merged(i, others)
        return self._terms(n, trace, scatter) - self.term[i] - self.term[others]

    def merge(self) -> tuple[int, int]:
        """Merge the cheapest pair (into the lower index); the pair."""
        rows = np.flatnonzero(self.alive)
        mins = self.cost[rows, self.best[rows]]
        a = int(rows[np.argmin(mins)])
        b = int(self.best[a])
        i, j = min(a, b), max(a, b)
        n, trace, scatter = self._merged(i, np.array([j]))
        merged = scatter(np.array([True]))
        self.mean[i] = (self.count[i] * self.mean[i] + self.count[j] * self.mean[j]) / n[0]
        self.count[i], self.trace[i], self.scatter[i] = n[0], trace[0], merged[0]
        self.term[i] = self._terms(n, trace, lambda mask: merged[mask])[0]
        self.alive[j] = False
        self.cost[j, :] = np.inf
        self.cost[:, j] = np.inf
        others = np.flatnonzero(self.alive)
        others = others[others != i]
        if others.size:
            self.cost[i, others] = self._merge_costs(i, others)
            self.cost[others, i] = self.cost[i, others]
        stale = np.flatnonzero(self.alive & ((self.best == i) | (self.best == j)))
        self.best[stale] = self.cost[stale].argmin(axis=1)
        self.best[i] = self.cost[i].argmin()
        better = others[self.cost[others, i] < self.cost[others, self.best[others]]]
        self.best[better] = i
        return i, j


def hierarchical_partitions(X, ks, model: str | None = None, weights=None) -> dict[int, np.ndarray]:
    """The partitions of the rows of ``X`` into k clusters for every k in ``ks``, cut from
    one tree built as mclust's default ``hc`` builds it (module docstring): labels
    0 .. k-1 numbered by first appearance.

    ``model``: "VVV" or "EII"; None takes mclust's choice, VVV when the rows outnumber
    the columns and EII otherwise. ``weights``: a row of weight w counts as w repeated
    rows (which start as one cluster). A k above the number of distinct rows is left out.
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    Z = svd_scores(X, w)
    if model is None:
        model = "VVV" if w.sum() > X.shape[1] else "EII"
    labels = duplicate_groups(X)
    K = int(labels.max()) + 1
    wanted = sorted({int(k) for k in ks if 1 <= int(k) <= K}, reverse=True)
    out: dict[int, np.ndarray] = {}
    if not wanted:
        return out
    tree = _Tree(Z, labels, model, w) if K > wanted[-1] else None
    owner = np.arange(K)  # each starting cluster's current cluster
    for k in range(K, wanted[-1] - 1, -1):
        if k < K:
            i, j = tree.merge()
            owner[owner == j] = i
        if k in wanted:
            out[k] = duplicate_groups(owner[labels][:, None])
    return out
