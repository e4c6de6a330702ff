"""Naive Bayes itself: a product of class-conditional densities over column blocks.

``ln p(x|c) = sum_b ln p_b(x[columns_b] | c)``: each block is any family of
:mod:`bayesrule.likelihoods` (a diagonal Gaussian, categorical, Bernoulli, multinomial,
kernel density...), fitted on its own columns. Statistics are the tuple of the blocks'
statistics, so they add as theirs do. A family that marginalises missing values (NaN,
None, NA) drops a missing feature out of the product; a row with every feature missing
gets the same log-likelihood (0) in every class, so its posterior is the prior.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_magnitude
from .base import Likelihood


@dataclass
class ProductStats:
    """The statistics of each block, in block order."""

    parts: tuple

    def merge(self, other: ProductStats) -> ProductStats:
        return ProductStats(tuple(a.merge(b) for a, b in zip(self.parts, other.parts, strict=True)))


class Product(Likelihood):
    """Independent column blocks, each with its own family (naive Bayes).

    Parameters
    ----------
    blocks : list of (likelihood, columns)
        Each likelihood object (cloned when fitted) models the columns at the given
        integer positions of X. Every column belongs to exactly one block.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods import Categorical, Gaussian
    >>> from bayesrule.likelihoods.product import Product
    >>> X = np.array([[1.0, "red"], [1.2, "red"], [3.1, "blue"], [2.9, "red"]], dtype=object)
    >>> y = np.array([0, 0, 1, 1])
    >>> p = Product([(Gaussian("diag"), [0]), (Categorical(), [1])]).fit(X, y, n_classes=2)
    >>> p.log_likelihood(np.array([[1.1, "red"], [None, None]], dtype=object)).round(3)
    array([[   1.096, -179.81 ],
           [   0.   ,    0.   ]])
    """

    input_kind = "any"

    def __init__(self, blocks=()):
        self.blocks = blocks

    # ----------------------------------------------------------------- structure
    def _checked_blocks(self, n_features: int | None = None) -> list:
        from sklearn.base import clone

        if not isinstance(self.blocks, (list, tuple)) or not self.blocks:
            raise ValueError(
                f"blocks must be a non-empty list of (likelihood, columns) pairs, got "
                f"{self.blocks!r}"
            )
        out, seen = [], {}
        for k, pair in enumerate(self.blocks):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"blocks[{k}] must be a (likelihood, columns) pair, got {pair!r}")
            family, columns = pair
            if not isinstance(family, Likelihood):
                raise TypeError(
                    f"blocks[{k}] must start with a likelihood object from "
                    f"bayesrule.likelihoods, got {family!r}"
                )
            cols = np.asarray(columns)
            if cols.ndim != 1 or cols.size == 0 or cols.dtype.kind not in "iu":
                raise ValueError(
                    f"blocks[{k}] columns must be a non-empty list of integer positions, "
                    f"got {columns!r}"
                )
            for j in cols.tolist():
                if j in seen:
                    raise ValueError(f"column {j} is in blocks {seen[j]} and {k}; give it once.")
                seen[j] = k
            out.append((clone(family), cols))
        if n_features is not None:
            missing = sorted(set(range(n_features)) - set(seen))
            extra = sorted(j for j in seen if not 0 <= j < n_features)
            if extra:
                raise ValueError(f"columns {extra} are not positions of X's {n_features} columns.")
            if missing:
                raise ValueError(
                    f"columns {missing} belong to no block; add them to a block or drop them "
                    "from X."
                )
        return out

    @staticmethod
    def _columns(family, X, cols):
        block = family.coerce(X[:, cols])
        if family.input_kind == "dense" and np.isnan(np.asarray(block, dtype=float)).any():
            raise ValueError(
                f"columns {cols.tolist()} have missing values, which a "
                f"{type(family).__name__} block with {family.get_params()} cannot "
                "marginalise; use a naive Bayes family (e.g. Gaussian('diag')) there."
            )
        return block

    @classmethod
    def _fitted_columns(cls, family, X, cols):
        """A block's columns for its statistics: values its family cannot square refused."""
        block = cls._columns(family, X, cols)
        check_magnitude(block, family.largest_magnitude, type(family).__name__, columns=cols)
        return block

    # ----------------------------------------------------------------- statistics
    def statistics(self, X, y, n_classes, sample_weight=None) -> ProductStats:
        """Each block's statistics of its columns of ``X``."""
        blocks = getattr(self, "blocks_", None) or self._checked_blocks(X.shape[1])
        return ProductStats(
            tuple(
                _in_block(
                    k,
                    family,
                    cols,
                    family.statistics,
                    self._fitted_columns(family, X, cols),
                    y,
                    n_classes,
                    sample_weight,
                )
                for k, (family, cols) in enumerate(blocks)
            )
        )

    def blockwise_reason(self) -> str | None:
        for family, _ in self._checked_blocks():
            reason = family.blockwise_reason()
            if reason:
                return reason
        return None

    def prepare(self, n_features: int) -> None:
        self.blocks_ = self._checked_blocks(n_features)

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        """Add a batch to every block's statistics (the columns are checked on the first)."""
        if getattr(self, "blocks_", None) is None:
            self.prepare(X.shape[1])
        return super().partial_fit(X, y, n_classes, sample_weight)

    def set_statistics(self, stats: ProductStats):
        """Every block's parameters from its statistics."""
        if getattr(self, "blocks_", None) is None:
            raise ValueError("the blocks' columns are not known yet; call fit first.")
        for k, ((family, cols), part) in enumerate(zip(self.blocks_, stats.parts, strict=True)):
            _in_block(k, family, cols, family.set_statistics, part)
        self.stats_, self.pending_ = stats, None
        return self

    # ----------------------------------------------------------------- evaluation
    @property
    def n_classes_(self) -> int:
        return self.blocks_[0][0].n_classes_

    def _row_block(self, n_features: int) -> int:
        return min(family._row_block(len(cols)) for family, cols in self.blocks_)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        out = None
        for k, (family, cols) in enumerate(self.blocks_):
            block = self._columns(family, X, cols)
            part = _in_block(k, family, cols, family._class_major, block, relative)
            out = part if out is None else out + part
        return out

    def log_terms(self, X) -> tuple[list[str], np.ndarray]:
        """Each block's terms, their feature indices those of the whole table."""
        names, parts = [], []
        for k, (family, cols) in enumerate(self.blocks_):
            block = self._columns(family, X, cols)
            own, terms = _in_block(k, family, cols, family.log_terms, block)
            names += [name.format(*(f"{{{c}}}" for c in cols)) for name in own]
            parts.append(terms)
        return names, np.concatenate(parts, axis=2)

    def describe_impossible(self, X) -> str | None:
        for k, (family, cols) in enumerate(self.blocks_):
            reason = family.describe_impossible(family.coerce(X[:, cols]))
            if reason:
                return f"block {k} (columns {cols.tolist()}): {reason}"
        return None

    # ----------------------------------------------------------------- model size, sampling
    def n_parameters(self) -> int:
        """Free parameters: the sum over blocks."""
        return sum(family.n_parameters() for family, _ in self.blocks_)

    def sample(self, counts, random_state) -> np.ndarray:
        """Each block's draws in its columns, rows in class order."""
        parts = [(family.sample(counts, random_state), cols) for family, cols in self.blocks_]
        n = int(np.sum(counts))
        d = sum(len(cols) for _, cols in self.blocks_)
        numeric = all(np.asarray(p).dtype.kind in "fiub" for p, _ in parts)
        out = np.empty((n, d), dtype=np.float64 if numeric else object)
        for values, cols in parts:
            out[:, cols] = values
        return out

    def describe(self, classes, feature_names) -> list[str]:
        """Each block's parameters, under the names of its columns."""
        lines = []
        for family, cols in self.blocks_:
            names = [feature_names[j] for j in cols]
            lines.append(f"block {type(family).__name__} on {', '.join(map(str, names))}:")
            lines += ["  " + line for line in family.describe(classes, names)]
        return lines


def _in_block(k, family, cols, method, *args):
    """``method(*args)``, its ValueError or TypeError saying which columns it is about
    (a family numbers the features of its own block)."""
    try:
        return method(*args)
    except (ValueError, TypeError) as exc:
        raise type(exc)(
            f"block {k} ({type(family).__name__}) on columns {cols.tolist()}, whose "
            f"features 0, 1, ... these are: {exc}"
        ) from exc
