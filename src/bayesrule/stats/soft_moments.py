"""Moments under soft memberships: the M step of EM as the statistics path.

Responsibilities ``resp[i, k]`` act as weights of sample i in component k (the K
components as "classes"); the result is a :class:`~bayesrule.stats.moments.ClassMoments` that
merges like any other, so EM's M step and plain fitting share one path.
"""

from __future__ import annotations

import numpy as np

from .moments import CANCELLATION_LIMIT, KINDS, STATS_BLOCK_BYTES, ClassMoments


def soft_moments(X: np.ndarray, resp: np.ndarray, kind: str = "full", reference=None):
    """Statistics of ``X`` with soft class memberships: row i counts ``resp[i, k]`` in class k.

    The M step of EM: the K mixture components are the "classes" and the
    responsibilities (times any sample weights) are the weights. Block by block, all K
    second moments about ``reference`` come from one matrix product (``resp_k * x`` side
    by side, times ``X``); they are centred at the end by subtracting ``n_k m_k m_k^T``,
    and a class whose mean lies so far from the reference that this would lose digits
    (see ``CANCELLATION_LIMIT``) is recomputed exactly about its own mean (a second
    pass). The result merges with others by :func:`merge`.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    resp : ndarray of shape (n, K)
        Non-negative memberships (need not sum to 1 over a row).
    kind : {"full", "tied", "diag"}
    reference : ndarray of shape (d,), optional
        The point moments are accumulated about; default the column means of ``X``.

    Returns
    -------
    ClassMoments

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.stats.soft_moments import soft_moments
    >>> X = np.array([[0.0], [2.0], [10.0]])
    >>> m = soft_moments(X, np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]), kind="diag")
    >>> m.count, m.mean.ravel(), m.scatter.ravel()
    (array([1.5, 1.5]), array([0.66666667, 7.33333333]), array([ 1.33333333, 21.33333333]))
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    n, d = X.shape
    K = resp.shape[1]
    ref = X.mean(axis=0) if reference is None else np.asarray(reference, dtype=np.float64)
    step = max(1, min(n, STATS_BLOCK_BYTES // (8 * (K * d + d + K))))

    def blocks():
        for start in range(0, n, step):
            rows = slice(start, min(start + step, n))
            yield np.subtract(X[rows].T, ref[:, None]), np.ascontiguousarray(resp[rows].T)

    sums = SoftSums.zeros(K, d, kind)
    for Xt, R in blocks():
        sums.add(Xt, R)
    stats = sums.centred(lambda k, mu: sum(exact_scatter(Xt, R[k], mu, kind) for Xt, R in blocks()))
    stats.mean += ref
    return stats


class SoftSums:
    """Weighted count, sum and second moment of each class about a fixed origin.

    They add block by block (:meth:`add`); :meth:`centred` turns them into
    :class:`ClassMoments`, exact where the origin is far from a class mean.
    """

    def __init__(self, count, first, second, kind):
        self.count, self.first, self.second, self.kind = count, first, second, kind

    @classmethod
    def zeros(cls, n_classes: int, n_features: int, kind: str) -> SoftSums:
        K, d = n_classes, n_features
        second = np.zeros((K, d) if kind == "diag" else (K, d, d))
        return cls(np.zeros(K), np.zeros((K, d)), second, kind)

    def add(self, Xt: np.ndarray, R: np.ndarray, work: np.ndarray | None = None) -> None:
        """Add a block given as ``X.T`` (d, m) and ``resp.T`` (K, m); ``work`` is an
        optional (K, d, m) buffer."""
        K, (d, m) = R.shape[0], Xt.shape
        self.count += R.sum(axis=1)
        self.first += R @ Xt.T
        if self.kind == "diag":
            self.second += R @ (Xt * Xt).T
            return
        weighted = np.multiply(R[:, None, :], Xt[None], out=work)  # each class's rows
        self.second += (weighted.reshape(K * d, m) @ Xt.T).reshape(K, d, d)

    def centred(self, exact) -> ClassMoments:
        """The moments about each class's own mean; ``exact(k, mean_k)`` gives class k's
        centred scatter directly where the subtraction would cancel."""
        K, d = self.first.shape
        present = self.count > 0
        mean = np.divide(
            self.first, self.count[:, None], out=np.zeros((K, d)), where=present[:, None]
        )
        if self.kind == "diag":
            second = self.second
            scatter = second - self.first * mean
            diagonals = second, scatter
        else:
            second = 0.5 * (self.second + np.swapaxes(self.second, 1, 2))
            scatter = second - self.first[:, :, None] * mean[:, None, :]
            scatter = 0.5 * (scatter + np.swapaxes(scatter, 1, 2))
            diagonals = (np.einsum("kjj->kj", a) for a in (second, scatter))
        second_diag, scatter_diag = diagonals
        unsafe = (scatter_diag * CANCELLATION_LIMIT <= second_diag) & (second_diag > 0)
        for k in np.flatnonzero(unsafe.any(axis=1) & present):
            scatter[k] = exact(k, mean[k])
        if self.kind == "tied":
            scatter = scatter.sum(axis=0)
        return ClassMoments(self.count.copy(), mean, scatter, self.kind)


def exact_scatter(Xt: np.ndarray, r: np.ndarray, mean: np.ndarray, kind: str) -> np.ndarray:
    """``sum_i r_i (x_i - mean)(x_i - mean)^T`` (its diagonal for "diag") of ``X.T``."""
    diff = Xt - mean[:, None]
    weighted = diff * r
    if kind == "diag":
        return (weighted * diff).sum(axis=1)
    gram = weighted @ diff.T
    return 0.5 * (gram + gram.T)
