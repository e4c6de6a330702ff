"""Categorical class-conditional densities: ``p(x|c) = prod_j P(x_j | c)`` over any values.

Each feature takes values from a finite set (strings, booleans, numbers, pandas
categories, or a mix of these). The statistics are, per feature, the sorted values seen
in training and a (C, O_j) table of weighted counts; two blocks merge by the union of
their values, so ``fit`` equals merged ``partial_fit`` batches even when the batches see
different values. Parameters are the Lidstone estimates of seed 002 (eq. 11)

    P(x_j = v | c) = (N_cjv + alpha) / (N_cj + alpha O_j),

``N_cj`` the weight of class c's samples where feature j is observed and ``O_j`` the
number of values feature j took in training. Missing values (NaN, None, pandas NA) drop
out of the statistics and out of the product. Continuous columns are binned as
``discretize`` says (:mod:`~bayesrule.likelihoods.discrete.binning`, shared with the
semi-naive families), or refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._text import FEATURES_SHOWN, block, class_names
from ..stats.values import check_unseen, encode, lookup, numeric, union, value_codes, value_table
from .base import BLOCK_BYTES, Likelihood, check_alpha
from .discrete.binning import Binning
from .discrete.cpt import lookup_table
from .discrete.discretize import check_discretize


# --------------------------------------------------------------------------- statistics
@dataclass
class CategoryCounts:
    """Per feature: the sorted values seen, and their weighted counts per class (C, O_j)."""

    categories: list
    counts: list

    def merge(self, other: CategoryCounts) -> CategoryCounts:
        """The statistics of both blocks together (values: the union; counts realigned)."""
        if len(self.counts) != len(other.counts):
            raise ValueError(
                f"cannot merge statistics of {len(self.counts)} and {len(other.counts)} features."
            )
        categories, counts = [], []
        for j, (a, ca, b, cb) in enumerate(
            zip(self.categories, self.counts, other.categories, other.counts, strict=True)
        ):
            both = union(a, b)
            table = np.zeros((ca.shape[0], both.size))
            table[:, lookup(both, a, j)] += ca
            table[:, lookup(both, b, j)] += cb
            categories.append(both)
            counts.append(table)
        return CategoryCounts(categories, counts)


# --------------------------------------------------------------------------- the family
class Categorical(Binning, Likelihood):
    """Categorical class-conditional densities, one independent categorical per feature.

    Parameters
    ----------
    alpha : float, default=1.0
        Lidstone lambda: ``(N_cjv + alpha) / (N_cj + alpha O_j)``. 1 is Laplace
        smoothing, 0 the maximum-likelihood estimates (a value never seen with a class
        then makes that class impossible).
    unseen : {"smooth", "ignore", "error"}, default="smooth"
        A value that feature j never took in training: "smooth" gives it count 0 in the
        formula above, ``alpha / (N_cj + alpha O_j)``; "ignore" drops the feature for
        that sample (as a missing value); "error" raises ValueError naming the feature
        and the value.
    discretize : {"auto", "mdl", "quantile"} or None, default=None
        How to bin float columns (see :mod:`~bayesrule.likelihoods.discrete.binning`).
        None: values as they are, a column of floats that are not whole numbers refused
        with a ValueError.
    n_bins : int, default=5
        Bins per column for ``discretize="quantile"``.

    Attributes
    ----------
    categories_ : list of ndarray
        The values of each feature seen in training (with positive weight), sorted;
        numeric arrays for numeric columns, object arrays otherwise.
    category_count_ : list of ndarray of shape (C, O_j)
        Weighted count of each value per class.
    feature_log_prob_ : list of ndarray of shape (C, O_j)
        ``ln P(x_j = v | c)``.
    unseen_log_prob_ : ndarray of shape (C, d)
        What an unseen value adds to ``ln p(x|c)`` under the ``unseen`` policy.
    bin_edges_ : list
        Per feature None, or the inner cut points that bin it (its values are then the
        bin numbers).

    Notes
    -----
    With ``alpha=0`` a class that never observed feature j gets the limit of the
    formula as alpha goes to 0: every value ``1 / O_j``. A feature never observed in
    training (``O_j = 0``) adds nothing for any class.

    Examples
    --------
    Seed 002's hiking data, and a weather never seen in training:

    >>> import numpy as np
    >>> from bayesrule.likelihoods import Categorical
    >>> X = np.array([["sunny", "unhappy", "free"], ["sunny", "happy", "free"],
    ...               ["rainy", "happy", "free"], ["sunny", "unhappy", "busy"],
    ...               ["rainy", "unhappy", "busy"]], dtype=object)
    >>> y = np.array([1, 1, 0, 1, 0])           # 0: N, 1: P
    >>> cat = Categorical(alpha=1).fit(X, y, n_classes=2)
    >>> cat.categories_[0]
    array(['rainy', 'sunny'], dtype=object)
    >>> np.exp(cat.feature_log_prob_[0]).round(3)  # rows: N, P; columns: rainy, sunny
    array([[0.75, 0.25],
           [0.2 , 0.8 ]])
    >>> query = np.array([["windy", "happy", "free"]], dtype=object)
    >>> np.exp(cat.log_likelihood(query)).round(4)  # (1/4)(1/2)(1/2), (1/5)(2/5)(3/5)
    array([[0.0625, 0.048 ]])
    """

    input_kind = "any"
    title = "Categorical"

    def __init__(self, alpha=1.0, unseen="smooth", discretize=None, n_bins=5):
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins

    coerce = staticmethod(value_table)

    def _check_params(self) -> float:
        alpha = check_alpha(self.alpha)
        check_unseen(self.unseen)
        check_discretize(self.discretize, self.n_bins)
        return alpha

    # ----------------------------------------------------------------- statistics
    def statistics(self, X, y, n_classes, sample_weight=None) -> CategoryCounts:
        """Per feature the values seen and their weighted counts per class."""
        self._check_params()
        y = np.asarray(y, dtype=np.intp)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        X = self._discrete_table(X, y, n_classes, w)
        keep = None if w is None else w > 0  # zero-weight rows add no values either
        categories, counts = [], []
        for j in range(X.shape[1]):
            values, codes, observed = encode(X[:, j], j, keep)
            size = n_classes * values.size
            index = y[observed] * values.size + codes
            weights = None if w is None else w[observed]
            table = np.bincount(index, weights=weights, minlength=size)
            categories.append(values)
            counts.append(table.astype(np.float64).reshape(n_classes, values.size))
        return CategoryCounts(categories, counts)

    def set_statistics(self, stats: CategoryCounts):
        """Lidstone estimates from the counts (smoothing applied here only)."""
        alpha = self._check_params()
        # columns: the values, then "unseen", then "missing" (adds 0); see likelihoods.cpt
        tables = [lookup_table(counts, alpha, self.unseen) for counts in stats.counts]
        self.categories_ = list(stats.categories)
        self.category_count_ = list(stats.counts)
        self.feature_log_prob_ = [table[:, :-2] for table in tables]
        self.unseen_log_prob_ = np.column_stack([table[:, -2] for table in tables])
        self._tables = tables
        self._indexes = {}  # feature -> {value: position}, built when first needed
        self.stats_ = stats
        return self

    # ----------------------------------------------------------------- evaluation
    @property
    def n_classes_(self) -> int:
        return self.category_count_[0].shape[0]

    def _row_block(self, n_features: int) -> int:
        return max(64, BLOCK_BYTES // (8 * (2 * self.n_classes_ + 4)))

    def _codes(self, column: np.ndarray, j: int) -> np.ndarray:
        """Column index into feature j's table: value, O_j (unseen) or O_j + 1 (missing)."""
        return value_codes(self.categories_[j], column, j, self.unseen, self._indexes)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        X = self._binned(self.coerce(X))
        if X.shape[1] != len(self.categories_):
            raise ValueError(
                f"X has {X.shape[1]} features, but the model was fitted on {len(self.categories_)}."
            )
        out = np.zeros((self.n_classes_, X.shape[0]))
        for j, table in enumerate(self._tables):
            out += table[:, self._codes(X[:, j], j)]
        return out

    def log_terms(self, X) -> tuple[list[str], np.ndarray]:
        """One term per feature: ``ln P(x_j | c)`` (0 where x_j is missing)."""
        self.check_ready()
        X = self._binned(self.coerce(X))
        if X.shape[1] != len(self.categories_):
            return super().log_terms(X)  # raises the usual error
        terms = np.stack(
            [table[:, self._codes(X[:, j], j)].T for j, table in enumerate(self._tables)], axis=2
        )
        return [f"{{{j}}}" for j in range(X.shape[1])], terms

    def describe_impossible(self, X) -> str | None:
        """Name the feature and value that have probability zero (alpha=0)."""
        X = self._binned(self.coerce(X))
        with np.errstate(invalid="ignore"):
            ll = self._class_major(X, relative=False)
        rows = np.flatnonzero(np.isneginf(ll).all(axis=0))
        if rows.size == 0:
            return None
        i = rows[0]
        reasons = []
        for j, table in enumerate(self._tables):
            code = self._codes(X[i : i + 1, j], j)[0]
            zero = np.flatnonzero(np.isneginf(table[:, code]))
            if zero.size:
                value = X[i, j]
                kind = "never seen in training" if code == len(self.categories_[j]) else ""
                what = kind or f"with zero count in {class_names(zero)}"
                reasons.append(f"feature {j} has the value {value!r}, {what}")
        return (
            f"a sample has probability zero in every class with alpha={self.alpha!r}: "
            + "; ".join(reasons[:5])
            + ". Set alpha > 0 (alpha=1 is Laplace smoothing) so that such values keep a "
            "small probability"
            + (", or unseen='ignore'." if "never seen" in " ".join(reasons) else ".")
        )

    # ----------------------------------------------------------------- model size, sampling
    def n_parameters(self) -> int:
        """Free parameters: ``C * sum_j (O_j - 1)``."""
        return self.n_classes_ * sum(max(c.size - 1, 0) for c in self.categories_)

    def sample(self, counts, random_state) -> np.ndarray:
        """``counts[c]`` draws of class c, rows in class order, shape (sum(counts), d).

        Numeric when every feature's values are numbers, else an object array; a
        feature never observed in training comes out missing (NaN or None).
        """
        rng = random_state
        counts = np.asarray(counts, dtype=np.intp)
        cats = self.categories_
        if all(numeric(c) for c in cats if c.size):
            kinds = [c.dtype for c in cats if c.size] or [np.dtype(float)]
            dtype = np.result_type(*kinds, *([float] if any(c.size == 0 for c in cats) else []))
            empty = np.nan
        else:
            dtype, empty = object, None
        out = np.empty((int(counts.sum()), len(cats)), dtype=dtype)
        start = 0
        for c, k in enumerate(counts.tolist()):
            rows = slice(start, start + k)
            for j, values in enumerate(cats):
                if values.size == 0:
                    out[rows, j] = empty
                    continue
                cdf = np.cumsum(np.exp(self.feature_log_prob_[j][c]))
                pick = np.searchsorted(cdf, rng.random(k) * cdf[-1], side="right")
                out[rows, j] = values[pick.clip(max=values.size - 1)]
            start += k
        return self._unbin(out, rng)

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: per feature its values and ``P(value | class)``."""
        lines = [
            f"Categorical, alpha={self.alpha!r}, unseen={self.unseen!r}; P(value | class), "
            f"rows: classes {', '.join(map(str, classes))}"
        ]
        if any(e is not None for e in getattr(self, "bin_edges_", None) or ()):
            lines += [f"  discretize={self.discretize!r}:", *self._bin_lines(feature_names)]
        for j, name in enumerate(feature_names[:FEATURES_SHOWN]):
            values = self.categories_[j]
            shown = values[:FEATURES_SHOWN]
            more = f" ... ({values.size - shown.size} more)" if values.size > shown.size else ""
            title = f"{name}: values {', '.join(map(str, shown.tolist()))}{more}"
            lines += block(title, np.exp(self.feature_log_prob_[j][:, : shown.size]))
        if len(feature_names) > FEATURES_SHOWN:
            lines.append(f"  ... ({len(feature_names) - FEATURES_SHOWN} more features)")
        return lines
