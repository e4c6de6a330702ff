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

#: a block's temporaries are bounded by about this many bytes.
BLOCK_BYTES = 1 << 23


class Likelihood(BaseEstimator):
    """Base of the class-conditional densities p(x|w) (see the module docstring)."""

    def check_ready(self) -> None:
        """Raise ValueError when the parameters are not determined yet."""

    def class_major_blocks(self, X, *, relative: bool) -> Iterator[tuple[slice, np.ndarray]]:
        """Row slices of ``X`` and their log-likelihoods, shape (C, rows) each.

        With ``relative=True`` a family may leave out a term that depends on the row but
        not on the class (posteriors are unchanged by it).
        """
        self.check_ready()
        n, d = X.shape
        step = max(1, min(self._row_block(d), n))
        with np.errstate(over="ignore", invalid="ignore"):  # overflow: -inf, reported later
            for start in range(0, n, step):
                rows = slice(start, min(start + step, n))
                yield rows, self._class_major(X[rows], relative)

    def _evaluate(self, X, relative: bool) -> np.ndarray:
        self.check_ready()
        out = np.empty((X.shape[0], self.n_classes_))
        for rows, block in self.class_major_blocks(X, relative=relative):
            out[rows] = block.T
        return out

    def log_likelihood(self, X) -> np.ndarray:
        """ln p(x|w_c) for every row of ``X`` and every class, shape (n, C)."""
        return self._evaluate(X, relative=False)

    def relative_log_likelihood(self, X) -> np.ndarray:
        """ln p(x|w_c) up to a term that depends on the row but not on the class."""
        return self._evaluate(X, relative=True)
