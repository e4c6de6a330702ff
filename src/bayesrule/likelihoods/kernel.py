"""Kernel density naive Bayes: a Gaussian kernel density per feature and class.

``p(x_j | c) = sum_i w_i N(x_j; x_ij, h_cj^2) / sum_i w_i`` over the training samples i
of class c whose feature j is observed, and ``p(x|c) = prod_j p(x_j|c)`` (naive Bayes).
A kernel density estimate is nonparametric: the model is its training data, so the
statistics are the data themselves (per class values and weights), and merging two blocks
concatenates them (``partial_fit`` appends).

The bandwidth ``h_cj`` is the kernel's standard deviation. The rules are scipy's
``gaussian_kde`` factors for one dimension times the class's standard deviation of the
feature, ``sigma_cj``:

* ``"scott"``: ``h = sigma * n^(-1/5)``;
* ``"silverman"``: ``h = sigma * (3 n / 4)^(-1/5)``;

where ``n = sum_i w_i`` over the observed values and ``sigma^2 = sum_i w_i (x_i - m)^2 /
(n - 1)``. Sample weights count samples: integer weights equal duplicated rows (scipy's
``gaussian_kde`` instead treats weights as reliability weights, ``n_eff = (sum w)^2 / sum
w^2``; both agree for unit weights). Where ``sigma`` is 0 or undefined (the feature is
constant in the class, or the class has one sample's weight), the feature's standard
deviation over all classes' values is used instead, and 1.0 where that is 0 too;
``bandwidth_`` shows the result.

Evaluation (``algorithm``). ``"exact"``: per class and feature, blocks of test values x
blocks of training values (temporaries of about ``base.BLOCK_BYTES``); each kernel sum is
shifted by its largest term (the nearest training value, found by binary search in the
sorted values), so far-away points keep finite log-likelihoods, and training values too
far from a block of sorted test values to change its sums are skipped. It costs about one
kernel term per training value within some 9 bandwidths of the test value: with Scott's
rule, most of the class's values. ``"binned"``: at fit, each density is binned onto a grid
of nodes ``h / 64`` apart and convolved with the kernel (:mod:`.kernel_grid`); a test
value's log-density is interpolated between its two grid nodes, with an absolute error of
at most about 0.002 (typically below 1e-4). Tail policy: a value farther than 4
(``kernel_grid.REACH``) bandwidths from every training value of the class (outside the
grid) is evaluated
exactly, so its log-density stays finite wherever the exact one is. ``"auto"`` bins a
density whose observed training values number, or weigh, at least ``AUTO_MIN`` (1000),
and evaluates the smaller ones exactly. A density whose grid would exceed
``kernel_grid.NODES + 4 * rows`` nodes (bandwidths tiny against the spread of its values)
is evaluated exactly under every setting; ``binned_`` shows the choice.
"""

from __future__ import annotations

import numbers
import weakref
from dataclasses import dataclass

import numpy as np

from .._engines.threads import n_threads
from .._text import FEATURES_SHOWN, block, class_name
from . import kernel_exact, kernel_grid
from .base import BLOCK_BYTES, SQUARING_LIMIT, Likelihood, Undetermined

RULES = ("scott", "silverman")
ALGORITHMS = ("auto", "exact", "binned")

#: test values (rows x features) from which row blocks are evaluated by threads
THREADED_VALUES = 1 << 17

#: "auto" bins a density with at least this many observed training values (or this weight)
AUTO_MIN = 1000
LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)

#: per fitted Kernel, the sorted training values and weights its exact evaluations used
#: (derived from ``stats_``, so kept beside the model: not in its saved state)
_SORTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass
class KernelData:
    """The training data of each class: its statistics (they merge by concatenation).

    Parameters
    ----------
    values : tuple of ndarray of shape (n_c, d)
        Each class's training rows, NaN where a value is missing.
    weights : tuple of ndarray of shape (n_c,)
        Their sample weights (all positive: zero-weight rows are left out).
    """

    values: tuple
    weights: tuple

    def merge(self, other: KernelData) -> KernelData:
        """The data of both blocks (class by class, ``self`` first)."""
        if len(self.values) != len(other.values) or any(
            a.shape[1] != b.shape[1] for a, b in zip(self.values, other.values, strict=True)
        ):
            raise ValueError("cannot merge kernel data of other classes or features.")
        return KernelData(
            tuple(np.concatenate(p) for p in zip(self.values, other.values, strict=True)),
            tuple(np.concatenate(p) for p in zip(self.weights, other.weights, strict=True)),
        )


class Kernel(Likelihood):
    """Naive Bayes with a Gaussian kernel density estimate per feature and class.

    Parameters
    ----------
    bandwidth : {"scott", "silverman"} or float, default="scott"
        The kernel's standard deviation: Scott's or Silverman's rule per class and
        feature (see the module docstring), or one positive float in the features' units.
    algorithm : {"auto", "exact", "binned"}, default="auto"
        How densities are evaluated: exact kernel sums, or interpolated in a grid of the
        kernel sums made at fit (absolute error of ``ln p(x_j|c)`` at most about 0.002);
        ``"auto"`` bins the densities of at least ``AUTO_MIN`` (1000) training values.

    Attributes
    ----------
    bandwidth_ : ndarray of shape (C, d)
        The kernel standard deviation of each class and feature.
    binned_ : ndarray of shape (C, d), dtype bool
        Which densities are evaluated in their grid (the others exactly).
    log_norm_ : ndarray of shape (C, d)
        ``-ln(sqrt(2 pi) h_cj sum_i w_i)``, the log of each density's normaliser.
    stats_ : KernelData
        The training data.

    Notes
    -----
    Missing values (NaN) are left out of the training data of their feature, and a
    missing feature drops out of ``ln p(x|c)`` at prediction (a row with every feature
    missing gets 0 in every class). A class needs at least one observed value of every
    feature.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods import Kernel
    >>> X = np.array([[0.0], [1.0], [10.0], [12.0]])
    >>> k = Kernel(bandwidth=1.0).fit(X, np.array([0, 0, 1, 1]), n_classes=2)
    >>> k.log_likelihood(np.array([[0.5], [np.nan]])).round(4)
    array([[ -1.0439, -46.7371],
           [  0.    ,   0.    ]])
    >>> Kernel().fit(X, np.array([0, 0, 1, 1]), n_classes=2).bandwidth_.round(4)
    array([[0.6156],
           [1.2311]])
    """

    input_kind = "missing"
    largest_magnitude = SQUARING_LIMIT

    def __init__(self, bandwidth="scott", algorithm="auto"):
        self.bandwidth = bandwidth
        self.algorithm = algorithm

    def _check_algorithm(self) -> str:
        if not (isinstance(self.algorithm, str) and self.algorithm in ALGORITHMS):
            raise ValueError(
                f"algorithm must be 'auto', 'exact' or 'binned', got {self.algorithm!r}"
            )
        return self.algorithm

    # ----------------------------------------------------------------- statistics
    def _check_bandwidth(self):
        b = self.bandwidth
        if isinstance(b, str):
            if b not in RULES:
                raise ValueError(
                    f"bandwidth must be 'scott', 'silverman' or a positive float, got {b!r}"
                )
            return b
        if isinstance(b, bool) or not isinstance(b, numbers.Real):
            raise TypeError(
                f"bandwidth must be 'scott', 'silverman' or a positive float, got {b!r}"
            )
        if not (np.isfinite(b) and b > 0):
            raise ValueError(
                f"bandwidth must be a positive finite float (the kernel's standard deviation "
                f"in the features' units), or 'scott' or 'silverman'; got {b!r}"
            )
        return float(b)

    def statistics(self, X, y, n_classes, sample_weight=None) -> KernelData:
        """The rows of each class and their weights (zero-weight rows left out)."""
        self._check_bandwidth()
        self._check_algorithm()
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        keep = w > 0
        if not keep.all():
            X, y, w = X[keep], y[keep], w[keep]
        order = np.argsort(y, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(np.bincount(y, minlength=n_classes))))
        X, w = X[order], w[order]
        parts = [slice(bounds[c], bounds[c + 1]) for c in range(n_classes)]
        return KernelData(tuple(X[s] for s in parts), tuple(w[s] for s in parts))

    # ----------------------------------------------------------------- parameters
    def set_statistics(self, stats: KernelData):
        """Bandwidths and normalisers from the training data."""
        rule = self._check_bandwidth()
        algorithm = self._check_algorithm()
        C = len(stats.values)
        d = stats.values[0].shape[1]
        totals = np.empty((C, d))
        sigma = np.empty((C, d))
        for c, (values, weights) in enumerate(zip(stats.values, stats.weights, strict=True)):
            if values.shape[0] == 0:
                raise Undetermined(
                    f"{class_name(c)} has no samples (zero total weight); every class needs data."
                )
            totals[c], sigma[c] = _weighted_spread(values, weights)
            if (totals[c] <= 0).any():
                j = int(np.flatnonzero(totals[c] <= 0)[0])
                raise Undetermined(
                    f"feature {j} has no observed (non-missing) value in {class_name(c)}, "
                    "so its density there is unknown; give that class data "
                    "for the feature, or drop the feature."
                )
        rows = np.array([(~np.isnan(v)).sum(axis=0) for v in stats.values])  # observed
        if isinstance(rule, float):
            h = np.full((C, d), rule)
        else:
            light = (totals <= 1.0) & (rows > 1)
            if light.any():
                c, j = np.argwhere(light)[0]
                raise ValueError(
                    f"bandwidth={rule!r} counts sample_weight as numbers of samples (integer "
                    f"weights equal repeated rows), but {class_name(c)} has "
                    f"{rows[c, j]} rows of total weight {totals[c, j]:.3g} <= 1 for feature "
                    f"{j}; scale the weights up so that they count samples, or give "
                    "bandwidth as a float."
                )
            if not (sigma > 0).all():  # constant in a class: the spread over all classes
                _, pooled = _weighted_spread(
                    np.concatenate(stats.values), np.concatenate(stats.weights)
                )
                pooled = np.where(pooled > 0, pooled, 1.0)
                sigma = np.where(sigma > 0, sigma, pooled)
            n = totals if rule == "scott" else 0.75 * totals
            h = sigma * n**-0.2
        self.bandwidth_ = h
        self.log_norm_ = -(np.log(h) + np.log(totals) + LOG_SQRT_2PI)
        # each class's rows sorted by each feature (NaN last), and the observed counts
        self._order = [np.argsort(v.T, axis=1).T for v in stats.values]
        self._n_observed = rows
        self._grids = [[None] * d for _ in range(C)]
        if algorithm != "exact":
            many = np.maximum(rows, totals) >= (AUTO_MIN if algorithm == "auto" else 1)
            for c, j in np.argwhere(many):
                t, w = self._sorted(c, j, stats)
                self._grids[c][j] = kernel_grid.build(t, w, h[c, j])
        self.stats_, self.pending_ = stats, None
        _SORTED.pop(self, None)
        return self

    def _sorted(self, c: int, j: int, stats: KernelData | None = None) -> tuple:
        """The distinct observed training values of class c and feature j in increasing
        order, and their summed weights: of ``stats``, or of ``stats_`` (kept for the
        next evaluation)."""
        memo = _SORTED.setdefault(self, {}) if stats is None else {}
        if (c, j) not in memo:
            data = self.stats_ if stats is None else stats
            sort = self._order[c][: self._n_observed[c, j], j]
            memo[c, j] = kernel_exact.distinct(data.values[c][sort, j], data.weights[c][sort])
        return memo[c, j]

    # ----------------------------------------------------------------- evaluation
    @property
    def n_classes_(self) -> int:
        return self.bandwidth_.shape[0]

    @property
    def binned_(self) -> np.ndarray:
        """Which densities are evaluated in their grid, (C, d) bool: those with a grid
        (none in a model saved before grids existed)."""
        grids = getattr(self, "_grids", None)
        if grids is None:
            return np.zeros(self.bandwidth_.shape, bool)
        return np.array([[g is not None for g in row] for row in grids], bool)

    def _row_block(self, n_features: int) -> int:
        """Rows per block: their copy in feature order, the (C, rows) result and about
        eight float columns of one feature's evaluation."""
        return max(64, BLOCK_BYTES // (8 * (n_features + self.n_classes_ + 8)))

    def _workers(self, n: int, d: int) -> int:
        """Row blocks in threads (NumPy's loops release the GIL) from ``THREADED_VALUES``
        values on: a grid evaluation is a dozen passes over each column block."""
        return n_threads() if n * d >= THREADED_VALUES else 1

    def _class_major(self, X, relative: bool) -> np.ndarray:
        """ln p(x|c) (C, rows): per class and feature a kernel sum over training blocks."""
        columns = np.array(X, dtype=np.float64, order="F")  # each feature contiguous
        n, d = columns.shape
        if d != self.bandwidth_.shape[1]:
            raise ValueError(
                f"X has {d} features; the densities describe {self.bandwidth_.shape[1]}"
            )
        grids = getattr(self, "_grids", None) or [[None] * d] * self.n_classes_
        out = np.zeros((self.n_classes_, n))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            for j in range(d):
                x = columns[:, j]
                rows = np.flatnonzero(~np.isnan(x)) if np.isnan(x).any() else None
                if rows is not None:
                    if not rows.size:
                        continue
                    x = x[rows]
                for c in range(self.n_classes_):
                    value = self._feature_log_density(x, grids[c][j], c, j)
                    if rows is None:
                        out[c] += value
                    else:
                        out[c, rows] += value
        return out

    def _feature_log_density(self, x, grid, c: int, j: int) -> np.ndarray:
        """ln p(x_j | c) at observed values ``x``: in the grid where it covers them,
        exactly elsewhere (the tail policy) and where the density has no grid."""
        if grid is None:
            return self._log_density(x, *self._sorted(c, j), c, j)
        value = kernel_grid.evaluate(grid, x, self.bandwidth_[c, j], self.log_norm_[c, j])
        tail = np.flatnonzero(np.isnan(value))
        if tail.size:
            value[tail] = self._log_density(x[tail], *self._sorted(c, j), c, j)
        return value

    def _log_density(self, x, t, w, c, j) -> np.ndarray:
        """ln p(x_j | c), exactly, at observed test values ``x`` of feature j; ``t`` the
        class's observed training values of the feature in increasing order, ``w`` their
        weights (see :func:`.kernel_exact.log_kernel_sum`)."""
        return kernel_exact.log_kernel_sum(x, t, w, self.bandwidth_[c, j]) + self.log_norm_[c, j]

    # ----------------------------------------------------------------- model size, sampling
    def n_parameters(self) -> int:
        """The bandwidths, C * d (a kernel density is nonparametric: its training data
        are not counted as parameters)."""
        return int(self.bandwidth_.size)

    def sample(self, counts, random_state) -> np.ndarray:
        """``counts[c]`` draws of class c, rows in class order, shape (sum(counts), d).

        Each feature independently (they are independent given the class): a training
        value picked with probability proportional to its weight, plus N(0, h^2) noise.
        """
        rng = random_state
        d = self.bandwidth_.shape[1]
        blocks = []
        for c, k in enumerate(counts):
            k = int(k)
            values, weights = self.stats_.values[c], self.stats_.weights[c]
            draw = np.empty((k, d))
            for j in range(d):
                present = ~np.isnan(values[:, j])
                p = weights[present] / weights[present].sum()
                picked = rng.choice(values[present, j], size=k, p=p)
                draw[:, j] = picked + self.bandwidth_[c, j] * rng.standard_normal(k)
            blocks.append(draw)
        return np.concatenate(blocks) if blocks else np.empty((0, d))

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: sample counts per class and the bandwidths."""
        data = self.stats_
        lines = [
            f"Kernel density (Gaussian kernel), bandwidth={self.bandwidth!r}; nonparametric: "
            f"the model keeps its {sum(v.shape[0] for v in data.values)} training samples"
        ]
        for label, values, weights in zip(classes, data.values, data.weights, strict=True):
            lines.append(f"  class {label}: {values.shape[0]} samples, weight {weights.sum():g}")
        binned = self.binned_
        lines.append(
            f"  evaluation (algorithm={self.algorithm!r}): {int(binned.sum())} of {binned.size} "
            f"densities interpolated in grids (nodes h/{kernel_grid.STEPS} apart), the "
            "others summed exactly"
        )
        shown = list(feature_names[:FEATURES_SHOWN])
        title = f"bandwidth h (rows: classes; columns: {', '.join(map(str, shown))})"
        lines += block(title, self.bandwidth_[:, : len(shown)])
        if len(feature_names) > FEATURES_SHOWN:
            lines.append(f"  ... ({len(feature_names) - FEATURES_SHOWN} more features)")
        return lines


def _weighted_spread(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per feature: the observed weight ``n`` and the standard deviation
    ``sqrt(sum w (x - m)^2 / (n - 1))`` (0 where ``n <= 1`` or the values are constant)."""
    missing = np.isnan(values)
    x = np.where(missing, 0.0, values)
    total = weights @ ~missing
    mean = np.divide(weights @ x, total, out=np.zeros(total.shape), where=total > 0)
    x -= mean
    x[missing] = 0.0
    ss = weights @ np.square(x, out=x)
    var = np.divide(ss, total - 1.0, out=np.zeros(total.shape), where=total > 1.0)
    constant = ~(np.fmax.reduce(values, axis=0) > np.fmin.reduce(values, axis=0))
    return total, np.where(constant, 0.0, np.sqrt(var))
