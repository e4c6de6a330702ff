"""What every class-conditional density shares: evaluation in bounded row blocks.

A family implements ``_class_major(X_block, relative) -> (C, rows)`` (log-densities,
class-major so that reductions over classes run along contiguous memory) and
``_row_block(n_features) -> rows`` (how many rows a block may have). This base turns
them into ``log_likelihood`` and ``relative_log_likelihood`` of shape (n, C), and the
classifier uses ``class_major_blocks`` to apply priors and normalise block by block.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from sklearn.base import BaseEstimator

from .._blocks import BLOCK_BYTES  # noqa: F401 (the families import it from here)
from .._engines.threads import in_order
from .._validation import as_float_block, check_nonnegative
from .state import check_likelihood

#: the largest magnitude the families that square deviations evaluate (their
#: ``largest_magnitude``): squares and their sums over many rows stay far from overflow
SQUARING_LIMIT = 1e100


class Undetermined(ValueError):
    """The statistics seen so far do not determine the parameters (e.g. a class without
    data yet); ``partial_fit`` keeps them and waits for more data."""


def check_alpha(alpha) -> float:
    """``alpha`` as a float >= 0, or TypeError/ValueError naming it."""
    return check_nonnegative("alpha", alpha, " (1 is Laplace smoothing, 0 the ML estimates)")


class Likelihood(BaseEstimator):
    """Base of the class-conditional densities p(x|w) (see the module docstring).

    Families with additive statistics implement ``statistics(X, y, n_classes,
    sample_weight)`` (an object with ``merge(other)``) and ``set_statistics(stats)``
    (smoothing and regularisation applied there); ``fit`` and ``partial_fit`` below are
    then one path.
    """

    #: what X may hold (see ``bayesrule._validation.INPUT_KINDS``): "dense" finite
    #: floats, "missing" floats with NaN, "sparse" also scipy sparse, "any" hashables.
    input_kind = "dense"
    #: True when X must be non-negative (counts)
    positive_only = False
    #: the largest magnitude of a value the family fits on without overflow: families
    #: that square deviations (Gaussian, kernel, mixture) refuse training values beyond
    #: 1e100 (at prediction a far value is explained where its density overflows)
    largest_magnitude = np.inf

    def blockwise_reason(self) -> str | None:
        """Why statistics of row blocks cannot simply be merged into this family's fit,
        or None when they can. A family with a reason is fitted on a Dask collection by
        its own ``fit_blocks(blocks, n_classes)`` (``blocks`` a
        :class:`~bayesrule._blocks.Blocks`; passes over the blocks: EM, a second pass for
        Ledoit-Wolf) if it has one, and refused with the reason otherwise."""
        if not hasattr(self, "statistics"):
            return f"{type(self).__name__} has no additive statistics"
        return None

    def prepare(self, n_features: int) -> None:
        """Set up what ``set_statistics`` needs besides the statistics (``fit`` does it)."""

    def check_state(self, n_classes: int, n_features: int) -> None:
        """Refuse (ValueError) fitted state that no fit gives, e.g. read from an edited
        model file: the family's own invariants (:mod:`bayesrule.likelihoods.state`)."""
        check_likelihood(self, n_classes, n_features)

    def check_ready(self) -> None:
        """Raise ValueError while ``partial_fit`` has not yet seen enough data."""
        if getattr(self, "pending_", None):
            raise ValueError(
                f"the statistics seen so far do not determine the parameters yet: "
                f"{self.pending_} Call partial_fit with more data before predicting."
            )

    def fit(self, X, y, n_classes, sample_weight=None):
        """Estimate the densities of ``n_classes`` classes from ``X`` and class indices ``y``."""
        self.prepare(X.shape[1])
        return self.set_statistics(self.statistics(X, y, n_classes, sample_weight))

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        """Add a block of data to the statistics and re-derive the parameters; while
        they are :class:`Undetermined`, keep the statistics and say why in ``pending_``."""
        stats = self.statistics(X, y, n_classes, sample_weight)
        if getattr(self, "stats_", None) is not None:
            stats = self.stats_.merge(stats)
        before = dict(vars(self))
        try:
            self.set_statistics(stats)
        except Exception as exc:  # all or nothing: the fitted state stays as it was
            vars(self).clear()
            vars(self).update(before)
            if not isinstance(exc, Undetermined):
                raise
            self.stats_, self.pending_ = stats, str(exc)
            return self
        self.pending_ = None
        return self

    def coerce(self, X):
        """``X`` (a column block of a table, see ``Product``) as this family evaluates it."""
        return as_float_block(X, sparse=self.input_kind == "sparse")

    def describe_impossible(self, X) -> str | None:
        """Why some row of ``X`` has no finite log-likelihood in any class, or None."""
        return None

    def class_major_blocks(
        self, X, *, relative: bool, finish=None
    ) -> Iterator[tuple[slice, np.ndarray]]:
        """Row slices of ``X`` and their log-likelihoods, shape (C, rows) each.

        With ``relative=True`` a family may leave out a term that depends on the row but
        not on the class (posteriors are unchanged by it). ``finish(rows, block)``, if
        given, is applied to each block where it is computed (by the worker thread, for
        families that use them), and its result is yielded instead of the block.
        """
        self.check_ready()
        n, d = X.shape
        step = max(1, min(self._row_block(d), n))
        slices = [slice(start, min(start + step, n)) for start in range(0, n, step)]

        def run(rows):
            with np.errstate(over="ignore", invalid="ignore"):  # overflow: -inf, reported later
                block = self._class_major(X[rows], relative)
            return block if finish is None else finish(rows, block)

        yield from in_order(run, slices, min(len(slices), self._workers(n, d)))

    def _workers(self, n: int, d: int) -> int:
        """Threads that evaluate row blocks of an (n, d) ``X`` at once: 1, unless the
        family's evaluation spends its time in NumPy loops that release the GIL."""
        return 1

    def best_class_blocks(self, X, *, log_prior, finish) -> Iterator[tuple[slice, np.ndarray]]:
        """Row slices of ``X`` and the class of highest joint in each row (intp).

        ``finish(rows, block)`` is the reference: it adds ``log_prior`` (C,) to a block of
        relative log-likelihoods, checks it and returns its argmax over classes. Here it
        is applied to every block; a family may give the same classes faster and call
        ``finish`` only on the blocks it cannot vouch for.
        """
        return self.class_major_blocks(X, relative=True, finish=finish)

    def _evaluate(self, X, relative: bool) -> np.ndarray:
        self.check_ready()
        out = np.empty((X.shape[0], self.n_classes_))
        for rows, block in self.class_major_blocks(X, relative=relative):
            out[rows] = block.T
        return out

    def log_likelihood(self, X) -> np.ndarray:
        """ln p(x|w_c) for every row of ``X`` and every class, shape (n, C)."""
        return self._evaluate(X, relative=False)

    def log_terms(self, X) -> tuple[list[str], np.ndarray]:
        """Additive terms of ln p(x|w_c): ``(names, terms)``, terms of shape (n, C, T)
        summing over T to :meth:`log_likelihood` up to a term that depends on the row
        but not on the class (so their differences between classes sum to the log
        likelihood ratios exactly). Names are format strings over feature indices
        (``"{2}"``: feature 2). Here one term, the whole; families that break it down
        (per feature, per attribute given its parents, linear and quadratic parts)
        override this (``bayesrule.explain``)."""
        return ["likelihood (as a whole)"], self.log_likelihood(X)[:, :, None]

    def relative_log_likelihood(self, X) -> np.ndarray:
        """ln p(x|w_c) up to a term that depends on the row but not on the class."""
        return self._evaluate(X, relative=True)
