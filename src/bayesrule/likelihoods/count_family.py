"""The base of the count families (Bernoulli, multinomial, complement).

:class:`CountLikelihood` holds the additive statistics of
:mod:`~bayesrule.stats.counts`, keeps parameters pending while they are not
determined, and evaluates sparse rows in blocks (sliced from the matrix's own arrays, in
worker threads) with one sparse-dense product each.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._engines import sparse as kernels
from .._engines.threads import in_order, n_threads
from .._text import FEATURES_SHOWN, block, class_name
from ..stats.counts import COUNTS, CountStats, _has_nan, check_values, count_statistics, locate
from .base import BLOCK_BYTES, Likelihood, check_alpha

#: scoring shares rows between worker threads from about this many non-zeros per worker
#: (below it, starting threads costs more than it saves)
SCORE_THREAD_NNZ = 1 << 18


class CountLikelihood(Likelihood):
    """What the count families share: statistics, pending parameters, sparse blocks."""

    input_kind = "sparse"
    #: scikit-learn's ``poor_score`` tag: its generic accuracy check on shifted Gaussian
    #: blobs does not suit count or binary models (scikit-learn marks its own so)
    poor_score = True
    #: how the family reads values: "counts" or a Bernoulli threshold (see count_statistics)
    _values = COUNTS

    def _check_params(self):
        check_alpha(self.alpha)

    def statistics(self, X, y, n_classes, sample_weight=None) -> CountStats:
        """Additive statistics of a block of rows (see :class:`CountStats`)."""
        self._check_params()
        return count_statistics(
            X, y, n_classes, sample_weight, values=self._values, name=type(self).__name__
        )

    def _start(self, stats: CountStats) -> float:
        """Validate parameters and statistics at set_statistics; returns alpha."""
        self._check_params()
        if not isinstance(stats, CountStats):
            raise TypeError(f"statistics must be CountStats, got {type(stats).__name__}")
        return check_alpha(self.alpha)

    def _finish(self, stats: CountStats):
        self.stats_, self.pending_ = stats, None
        return self

    @property
    def n_classes_(self) -> int:
        return self.stats_.class_weight.shape[0]

    @property
    def feature_count_(self) -> np.ndarray:
        """Weighted sum of each feature (binarised for Bernoulli) per class, (C, d)."""
        return self.stats_.feature_sum

    def _row_block(self, n_features: int) -> int:
        return max(64, BLOCK_BYTES // (8 * (2 * n_features + 4 * self.n_classes_)))

    def class_major_blocks(self, X, *, relative: bool, finish=None):
        """Row slices and log-likelihoods (C, rows), in row order.

        Sparse blocks are sized by their non-zeros, sliced from the matrix's arrays, and
        evaluated (and finished, see the base class) by worker threads: the kernels and
        scipy's sparse products release the GIL.
        """
        self.check_ready()
        if not sp.issparse(X):
            if self.positive_only:  # negative counts are refused at prediction as at fit
                check_values(X, COUNTS, type(self).__name__, locate(X))
            yield from super().class_major_blocks(X, relative=relative, finish=finish)
            return
        yield from self._sparse_blocks(
            X, lambda block, rows: self._scored(block, rows, relative, finish)
        )

    def best_class_blocks(self, X, *, log_prior, finish):
        """As the base class; for a sparse ``X`` of a family whose scores are linear
        (:meth:`_linear_weights`), one compiled pass per block gives the classes, and
        only a block it cannot vouch for (a negative count, a joint with no finite
        maximum) is scored and ``finish``-ed, which raises the explaining error."""
        self.check_ready()
        linear = self._linear_weights(X) if sp.issparse(X) and kernels.enabled(X.nnz) else None
        if linear is None:
            yield from super().best_class_blocks(X, log_prior=log_prior, finish=finish)
            return
        W_t, intercept = linear
        w32 = kernels.weights32(W_t, X.nnz)

        def best(block, rows):
            out = np.empty(block.shape[0], dtype=np.intp)
            low, bad, _ = kernels.csr_best_class(block, W_t, intercept, log_prior, out, w32)
            if bad or (self.positive_only and low < 0):
                return self._scored(block, rows, True, finish)
            return out

        yield from self._sparse_blocks(X, best)

    def _linear_weights(self, X) -> tuple[np.ndarray, np.ndarray] | None:
        """``(W_t, intercept)`` where the relative log-likelihood of the sparse rows
        ``X`` is ``X @ W_t + intercept`` (NaN counting as 0), or None where it is not
        (Bernoulli's missing-value and 0/1 rules, probabilities 0, Poisson with missing
        values)."""
        return None

    # ----------------------------------------------------------------- probability 0
    def _set_zero(self, zero: np.ndarray) -> None:
        """Remember where a probability (or rate) is 0, (C, d): alpha = 0 and a feature
        never counted in a class."""
        self.zero_ = zero
        self.zero_columns_ = np.flatnonzero(zero.any(axis=0))

    def _mark_zero(self, X, out: np.ndarray) -> np.ndarray:
        """``out`` (C, rows) with -inf where a positive count of a row meets probability
        0 (the product would be 0 * -inf)."""
        cols = self.zero_columns_
        if cols.size:
            present = X[:, cols] > 0
            present = present.astype(np.float64) if sp.issparse(present) else present * 1.0
            hits = matmul_t(present, np.ascontiguousarray(self.zero_[:, cols].T, dtype=float))
            out[hits > 0] = -np.inf
        return out

    def _sparse_blocks(self, X, work):
        """Row slices of the CSR matrix ``X`` and ``work(block, rows)`` of each block
        (a CSR matrix on slices of X's arrays), in row order; the blocks are sized by
        their non-zeros and worked on by threads, a few in flight at a time."""
        kernels.check_rows(X)  # the blocks are sliced by X's row starts
        n = X.shape[0]
        per_row = 16 * self.n_classes_ + 12 * X.nnz / max(n, 1) + 64
        step = max(64, min(int(BLOCK_BYTES / per_row), n))
        slices = [slice(s, min(s + step, n)) for s in range(0, n, step)]
        workers = min(len(slices), n_threads(), 1 + X.nnz // SCORE_THREAD_NNZ)

        def run(rows):
            lo, hi = int(X.indptr[rows.start]), int(X.indptr[rows.stop])
            block = sp.csr_array(
                (X.data[lo:hi], X.indices[lo:hi], X.indptr[rows.start : rows.stop + 1] - lo),
                shape=(rows.stop - rows.start, X.shape[1]),
            )
            return work(block, rows)

        yield from in_order(run, slices, workers)

    def _scored(self, block, rows: slice, relative: bool, finish=None):
        """``_class_major`` of the CSR block holding the rows ``rows`` of X, then
        ``finish``; negative counts are refused here, naming their row in X."""
        if self.positive_only:
            where = locate(block)
            check_values(
                block.data,
                COUNTS,
                type(self).__name__,
                lambda k: (where(k)[0] + rows.start, where(k)[1]),
            )
        with np.errstate(over="ignore", invalid="ignore"):
            out = self._class_major(block, relative)
        return out if finish is None else finish(rows, out)

    # ----------------------------------------------------------------- explanation
    def log_terms(self, X) -> tuple[list[str], np.ndarray]:
        """One term per feature where the family is a sum over its features (a missing
        value's term 0); the whole otherwise (a probability 0 somewhere)."""
        self.check_ready()
        dense = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        terms = (
            None if getattr(self, "zero_columns_", np.zeros(0)).size else self._feature_terms(dense)
        )
        if terms is None:
            return super().log_terms(X)
        return [f"{{{j}}}" for j in range(dense.shape[1])], terms

    def _feature_terms(self, X: np.ndarray) -> np.ndarray | None:
        """Per feature its term of the log-likelihood, (n, C, d): ``x_j w_cj`` of the
        linear form (Multinomial, Complement); None where not defined."""
        observed = ~np.isnan(X)
        return np.where(observed[:, None, :], np.nan_to_num(X)[:, None, :] * self.coef_t_.T, 0.0)

    # ----------------------------------------------------------------- linear form
    def linear_coef(self) -> np.ndarray:
        """Weights ``w_cj`` of the linear form, (C, d): the joint is ``x @ coef.T +
        intercept + log prior`` (``feature_log_prob_``: ``ln theta_cj`` for Multinomial,
        the complement weights for Complement; Bernoulli overrides)."""
        return self.feature_log_prob_

    def linear_intercept(self) -> np.ndarray:
        """Per-class term of the linear form, (C,): zeros (no multinomial coefficient,
        no other per-class term; Bernoulli overrides)."""
        return np.zeros(self.n_classes_)

    # ----------------------------------------------------------------- helpers
    def _impossible(self, x: np.ndarray) -> np.ndarray | None:
        """Where feature j of the row ``x`` has probability 0 in class c, (C, d) bool;
        None when no parameter is 0 (alpha > 0)."""
        cols = getattr(self, "zero_columns_", None)  # None: a family without zeros
        if cols is None or not cols.size:
            return None
        return self.zero_ & (np.nan_to_num(x) > 0)

    def describe_impossible(self, X) -> str | None:
        """Names a feature whose value has probability 0 in every class (alpha = 0).

        Looks at the row of ``X`` with the most classes of probability 0.
        """
        if self._impossible(np.zeros(X.shape[1])) is None:
            return None
        with np.errstate(over="ignore", invalid="ignore"):
            zero = (self._class_major(X, False) == -np.inf).sum(axis=0)
        if zero.size == 0 or zero.max() == 0:
            return None
        i = int(np.argmax(zero))
        x = X[[i]].toarray().ravel() if sp.issparse(X) else np.asarray(X[i], dtype=float)
        imp = self._impossible(x)
        every = np.flatnonzero(imp.all(axis=0))
        fix = (
            "with alpha=0 (maximum likelihood) what never occurred in training has "
            "probability 0; set alpha > 0 (e.g. alpha=1, Laplace smoothing)."
        )
        name = type(self).__name__
        if every.size:
            j = int(every[0])
            return (
                f"{name}: a sample has feature {j} = {x[j]:g}, which has probability 0 in "
                f"every class; {fix}"
            )
        per_class = ", ".join(
            f"{class_name(c)}: feature {int(np.flatnonzero(row)[0])}"
            for c, row in enumerate(imp)
            if row.any()
        )
        return (
            f"{name}: a sample has a feature of probability 0 in {int(zero[i])} classes "
            f"({per_class}); {fix}"
        )

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: the family's title and, per class, the first features of its
        table (:meth:`_described`)."""
        title, table = self._described()
        return _feature_lines(title, table, classes, feature_names)


def _feature_lines(title: str, table: np.ndarray, classes, names) -> list[str]:
    """``title`` and one block per class of the first 20 features of ``table``."""
    shown = min(FEATURES_SHOWN, table.shape[1])
    lines = [f"{title}; features {', '.join(map(str, names[:shown]))}"]
    for c, label in enumerate(classes):
        lines += block(f"class {label}", table[c, :shown])
    if table.shape[1] > shown:
        lines.append(f"  ... ({table.shape[1] - shown} more features)")
    return lines


def zero_nan(X):
    """``X`` (dense or CSR block) with missing values as 0, and the missing-value
    indicator (same layout, float), or None when nothing is missing."""
    if sp.issparse(X):
        data = X.data
        if not _has_nan(data):
            return X, None
        mask = np.isnan(data)
        clean = sp.csr_array((np.where(mask, 0.0, data), X.indices, X.indptr), shape=X.shape)
        return clean, sp.csr_array((mask.astype(np.float64), X.indices, X.indptr), shape=X.shape)
    if not _has_nan(X):
        return X, None
    mask = np.isnan(X)
    return np.where(mask, 0.0, X), mask.astype(np.float64)


def observed_times_t(X, W_t: np.ndarray) -> np.ndarray:
    """``(X @ W_t).T`` with missing values (NaN) counting as 0, class-major (C, rows)."""
    return matmul_t(X if sp.issparse(X) else zero_nan(X)[0], W_t)


def matmul_t(X, W_t: np.ndarray) -> np.ndarray:
    """``(X @ W_t).T`` for a dense or sparse block: class-major (C, rows), float64 (a
    sparse block's NaN count as 0)."""
    if sp.issparse(X):  # class-major and contiguous: reductions over classes vectorise
        return kernels.csr_times_t(X, W_t)
    return W_t.T @ X.T if X.dtype == np.float64 else W_t.T @ X.T.astype(np.float64)
