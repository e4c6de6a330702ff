"""The starts of EM: :func:`kmeans_labels` (scikit-learn's ``KMeans``, as
``GaussianMixture`` starts), :func:`seeded_kmeans` (a light k-means for the many small
starts of a BIC search), mclust's agglomerative tree (:func:`hc_starts`) and
:func:`draw_starts` (the starts of a class, shared by its covariance structures).
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from threadpoolctl import ThreadpoolController

from ..._engines.threads import n_threads
from .hierarchical import hierarchical_partitions

#: the ``init`` settings of a mixture: k-means partitions, or mclust's agglomerative tree
INIT_METHODS = ("kmeans", "hc")

#: mclust's ``mclust.options("subset")``: a class of more rows grows its agglomerative
#: tree on a random subset of this many, the other rows joining their nearest cluster
HC_ROWS = 2000

#: scikit-learn's KMeans gets one OpenMP thread per this many rows (up to
#: :func:`~bayesrule._engines.threads.n_threads`): it starts its threads on every call,
#: which on a class of a few hundred rows costs several times the clustering itself
KMEANS_ROWS_PER_THREAD = 1 << 15

#: :func:`draw_starts` clusters with :func:`seeded_kmeans` up to this many numbers in
#: the rows x clusters distances, and with scikit-learn's KMeans above
LIGHT_CELLS = 1 << 16

#: the OpenMP libraries' controller, found on first use (finding them takes milliseconds)
_OPENMP: list[ThreadpoolController] = []


def kmeans_labels(X, w, K: int, rs) -> np.ndarray:
    """scikit-learn's k-means partition of the rows of ``X`` into K (one initialisation,
    as ``GaussianMixture`` starts), with OpenMP threads by the rows
    (:data:`KMEANS_ROWS_PER_THREAD`)."""
    threads = min(n_threads(), max(1, X.shape[0] // KMEANS_ROWS_PER_THREAD))
    if not _OPENMP:
        _OPENMP.append(ThreadpoolController())
    with _OPENMP[0].limit(limits=threads, user_api="openmp"):  # the calling thread's
        return KMeans(n_clusters=K, n_init=1, random_state=rs).fit(X, sample_weight=w).labels_


def seeded_kmeans(X, w, K: int, rs, max_iter: int = 100) -> np.ndarray:
    """A k-means partition of the rows of ``X`` into K clusters: k-means++ seeds (each
    seed the best of ``2 + ln K`` weighted draws) and Lloyd's iterations until no row
    changes cluster; an emptied cluster takes the row farthest from its centre. The
    same algorithm as scikit-learn's ``KMeans(n_init=1)`` in a few whole-array
    operations, for small data (a BIC search starts hundreds of them).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1]])
    >>> seeded_kmeans(X, None, 2, np.random.RandomState(0)).tolist()
    [0, 0, 0, 1, 1]
    """
    n = X.shape[0]
    sw = np.ones(n) if w is None else np.asarray(w, dtype=float)
    first = rs.choice(n, p=sw / sw.sum())
    centres = [X[first]]
    nearest = ((X - X[first]) ** 2).sum(axis=1)
    trials = 2 + int(np.log(K))
    for _ in range(1, K):
        cumulative = np.cumsum(sw * nearest)
        picks = np.searchsorted(cumulative, rs.uniform(size=trials) * cumulative[-1])
        picks = np.minimum(picks, n - 1)
        candidates = np.minimum(nearest, ((X[None] - X[picks][:, None]) ** 2).sum(axis=-1))
        best = int(np.argmin(candidates @ sw))
        centres.append(X[picks[best]])
        nearest = candidates[best]
    C = np.array(centres)
    squares = (X * X).sum(axis=1)
    labels = None
    for _ in range(max_iter):
        distances = squares[:, None] - 2.0 * X @ C.T + (C * C).sum(axis=1)
        new = distances.argmin(axis=1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        member = np.zeros((K, n))
        member[labels, np.arange(n)] = sw
        counts = member.sum(axis=1)
        for j in np.flatnonzero(counts == 0):  # an empty cluster: the farthest row
            row = int(np.argmax(distances[np.arange(n), labels]))
            member[:, row] = 0.0
            member[j, row], labels[row] = sw[row], j
            distances[row, labels[row]] = -np.inf
        counts = member.sum(axis=1)
        C = (member @ X) / counts[:, None]
    return labels


def _canonical(labels: np.ndarray) -> bytes:
    """A partition's labels renumbered by first appearance (equal for equal partitions)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse].tobytes()


def hc_starts(X, ks, rs, w=None) -> dict[int, list[np.ndarray]]:
    """One partition of the rows per k in ``ks``, cut from mclust's agglomerative tree
    (:func:`~bayesrule.likelihoods.mixture.hierarchical.hierarchical_partitions`, rows
    of weight ``w`` as that many repeated rows). Above :data:`HC_ROWS` rows the tree
    grows on a random subset of that many (drawn from ``rs``, as mclust draws its
    ``subset``) and each other row joins the cluster of nearest mean."""
    n = X.shape[0]
    if n <= HC_ROWS:
        return {k: [labels] for k, labels in hierarchical_partitions(X, ks, weights=w).items()}
    sub = np.sort(rs.choice(n, HC_ROWS, replace=False))
    Xs = X[sub]
    parts = hierarchical_partitions(Xs, ks, weights=None if w is None else w[sub])
    squares = (X * X).sum(axis=1)[:, None]
    out = {}
    for k, labels in parts.items():
        means = np.stack([Xs[labels == j].mean(axis=0) for j in range(k)])
        distances = squares - 2.0 * X @ means.T + (means * means).sum(axis=1)
        full = distances.argmin(axis=1)
        full[sub] = labels
        out[k] = [full]
    return out


def draw_starts(
    X, w, ks, n: int, rs, search: bool, init: str = "kmeans"
) -> dict[int, list[np.ndarray]]:
    """``n`` k-means partitions of the rows for every k in ``ks`` (in that order, then
    start by start, from ``rs``), scikit-learn's KMeans as ``GaussianMixture`` draws
    them. In a ``search`` (BIC chooses), small classes use :func:`seeded_kmeans`, k = 1
    has its one partition without a draw, and a partition equal to an earlier one of the
    same k (up to the order of its clusters) is dropped: its EM run would repeat that
    one's. ``init="hc"``: one partition per k from :func:`hc_starts` instead (k-means
    for a k above the number of distinct rows, which the tree cannot cut)."""
    out = {}
    if init == "hc" and len(ks):
        out = hc_starts(X, ks, rs, w)  # without the k above the distinct rows
        ks = [k for k in ks if k not in out]  # those start from k-means (EM empties some)
    for k in ks:
        if search and k == 1:
            out[k] = [np.zeros(X.shape[0], dtype=np.int64)]
            continue
        light = search and X.shape[0] * k * X.shape[1] <= LIGHT_CELLS
        seen, kept = set(), []
        for _ in range(n):
            labels = (seeded_kmeans if light else kmeans_labels)(X, w, k, rs)
            if search:
                key = _canonical(labels)
                if key in seen:
                    continue
                seen.add(key)
            kept.append(labels)
        out[k] = kept
    return out
