"""Semi-naive Bayes over discrete features: each attribute may depend on other attributes.

``P(c | x) ∝ P(c) prod_j P(x_j | c, pa_j)`` (seed 002, eq. 13). The families here share
the pairwise counts of :mod:`~bayesrule.likelihoods.pair_counts` (additive, so
``partial_fit`` adds batches), the Lidstone tables of :mod:`~bayesrule.likelihoods.cpt`,
the categorical family's unseen-value policy and missing values, and the binning of
continuous columns (:mod:`~bayesrule.likelihoods.discretize`):

* :class:`OneDependence`: SPODE (one super-parent for every other attribute) and AODE
  (Webb, Boughton and Wang 2005: the average of the SPODEs in probability space);
* :class:`~bayesrule.likelihoods.network.TreeAugmented` (TAN) and
  :class:`~bayesrule.likelihoods.network.KDependence` (KDB) in ``network.py``.

Rows are looked up as codes (:func:`~bayesrule.likelihoods.values.value_codes`): a
value's position, ``O_j`` for a value never seen, ``O_j + 1`` for a missing one.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import logsumexp

from .._validation import as_table, missing_mask
from .base import BLOCK_BYTES, Likelihood, Undetermined, check_alpha
from .cpt import flat_index, lookup_table, n_free, proba
from .discretize import apply_cuts, check_discretize, cut_points, is_continuous, is_float_column
from .pair_counts import PairCounts, check_table_size, count_pairs
from .structure import class_information
from .values import check_unseen, numeric, value_codes


class DiscreteNetwork(Likelihood):
    """What the semi-naive families share: parameters, binning, counts and codes."""

    input_kind = "any"
    title = "semi-naive Bayes"

    def coerce(self, X):
        """``X`` as a 2-D table: numeric arrays stay numeric, anything else is object."""
        if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "biufO":
            return X
        return as_table(X, min_samples=0)

    def _check_common(self) -> float:
        check_unseen(self.unseen)
        check_discretize(self.discretize, self.n_bins)
        return check_alpha(self.alpha)

    # ----------------------------------------------------------------- binning
    def _learn_bins(self, X, y, n_classes, w) -> None:
        edges, bounds = [None] * X.shape[1], {}
        for j in range(X.shape[1]):
            column = X[:, j]
            if self.discretize is None:
                if is_continuous(column):
                    raise self._continuous_error(column, j)
                continue
            if not is_float_column(column):
                continue
            seen = ~missing_mask(column)
            if w is not None:
                seen &= w > 0
            values = column[seen].astype(np.float64)
            weights = None if w is None else w[seen]
            edges[j] = cut_points(values, y[seen], n_classes, weights, self.discretize, self.n_bins)
            if values.size:
                bounds[j] = (float(values.min()), float(values.max()))
        self.bin_edges_, self._bin_bounds = edges, bounds

    def _continuous_error(self, column, j) -> ValueError:
        value = next(v for v in column.tolist() if v is not None and v == v and v != int(v))
        if self.discretize is not None:
            return ValueError(
                f"feature {j} holds continuous values (e.g. {value!r}) in this batch, but "
                "bins are learned on the first batch of partial_fit, where it was no float "
                "column; pass that column as floats from the first batch on, or fit at once."
            )
        return ValueError(
            f"feature {j} holds continuous values (e.g. {value!r}), but {self.title} models "
            "discrete values: pass discretize='quantile' (equal-frequency bins, n_bins=5) "
            "or discretize='mdl' (supervised MDL cut points, as Weka), or bin the column "
            "yourself. Integer-valued floats (e.g. OrdinalEncoder output) count as codes."
        )

    def _binned(self, X) -> np.ndarray:
        edges = self.bin_edges_
        if all(e is None for e in edges):
            return X
        X = X.astype(np.float64) if numeric(X) else X.copy()
        for j, e in enumerate(edges):
            if e is not None:
                X[:, j] = apply_cuts(X[:, j], e)
        return X

    def _discrete_table(self, X, y, n_classes, w) -> np.ndarray:
        """The training table with continuous columns binned (bins learned on the first)."""
        X = self.coerce(X)
        if getattr(self, "bin_edges_", None) is None:
            self._learn_bins(X, y, n_classes, w)
        elif X.shape[1] != len(self.bin_edges_):
            raise ValueError(
                f"X has {X.shape[1]} features, but the model was fitted on {len(self.bin_edges_)}."
            )
        for j, e in enumerate(self.bin_edges_):
            if e is None and is_continuous(X[:, j]):
                raise self._continuous_error(X[:, j], j)
        return self._binned(X)

    # ----------------------------------------------------------------- statistics
    def statistics(self, X, y, n_classes, sample_weight=None) -> PairCounts:
        """Pairwise class-conditional counts of the (binned) table."""
        self._check_common()
        y = np.asarray(y, dtype=np.intp)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        return count_pairs(self._discrete_table(X, y, n_classes, w), y, n_classes, w)

    def set_statistics(self, stats: PairCounts):
        """Probability tables from the counts (smoothing applied here only)."""
        self._check_common()
        self.stats_ = stats
        self.categories_ = list(stats.categories)
        self._sizes = np.array([c.size for c in stats.categories], dtype=np.intp)
        self._indexes = {}
        self._build(stats)
        return self

    @property
    def n_classes_(self) -> int:
        return self.stats_.n_classes

    def _row_block(self, n_features: int) -> int:
        return max(64, BLOCK_BYTES // (8 * self.n_classes_ * max(n_features, 1) * 2))

    def _codes(self, X) -> np.ndarray:
        """Codes of every row and feature, shape (n, d)."""
        X = self._binned(self.coerce(X))
        if X.shape[1] != len(self.categories_):
            raise ValueError(
                f"X has {X.shape[1]} features, but the model was fitted on {len(self.categories_)}."
            )
        codes = np.empty(X.shape, dtype=np.intp)
        for j, values in enumerate(self.categories_):
            codes[:, j] = value_codes(values, X[:, j], j, self.unseen, self._indexes)
        return codes

    def _naive_tables(self, stats) -> list[np.ndarray]:
        return [
            lookup_table(stats.single(j), self.alpha, self.unseen) for j in range(len(self._sizes))
        ]

    def describe_impossible(self, X) -> str | None:
        return (
            f"a sample has probability zero in every class with alpha={self.alpha!r} (a "
            "value, or a combination of values, never seen with any class). Set alpha > 0 "
            "(alpha=1 is Laplace smoothing) so that such values keep a small probability."
        )

    # ----------------------------------------------------------------- sampling, text
    def _values(self, codes: np.ndarray, rng) -> np.ndarray:
        """Rows of codes (n, d) as values; a binned column uniformly within its bin."""
        cats = self.categories_
        if all(numeric(c) for c in cats if c.size):
            out = np.full(codes.shape, np.nan)
        else:
            out = np.empty(codes.shape, dtype=object)
        for j, values in enumerate(cats):
            edges = self.bin_edges_[j]
            if values.size == 0:
                out[:, j] = np.nan if out.dtype.kind == "f" else None
            elif edges is None:
                out[:, j] = values[codes[:, j]]
            elif j not in self._bin_bounds:  # no value in the batch the bins came from
                out[:, j] = np.nan if out.dtype.kind == "f" else None
            else:
                lo, hi = self._bin_bounds[j]
                cuts = np.concatenate([[lo], edges, [hi]])
                b = values[codes[:, j]].astype(np.intp)
                out[:, j] = cuts[b] + rng.random(b.size) * (cuts[b + 1] - cuts[b])
        return out

    def _draw(self, codes, rows, j, parents, table, rng, c) -> None:
        """Draw feature j of ``rows`` of class c from ``table`` (O_pa..., O_j) given parents."""
        if table.shape[-1] == 0:  # never observed in training: comes out missing
            return
        if table.size == 0:  # a parent never observed: the child's own distribution
            table, parents = proba(self.stats_.single(j), self.alpha)[c], ()
        p = table.reshape(-1, table.shape[-1])[
            flat_index(codes[rows][:, list(parents)], table.shape[:-1])
        ]
        cdf = np.cumsum(p, axis=1)
        pick = (rng.random(rows.size)[:, None] * cdf[:, -1:] >= cdf).sum(axis=1)
        codes[rows, j] = pick.clip(max=table.shape[-1] - 1)

    def _header(self, feature_names) -> list[str]:
        lines = [
            f"{self.title}, alpha={self.alpha!r}, unseen={self.unseen!r}, "
            f"discretize={self.discretize!r}"
        ]
        for j, e in enumerate(self.bin_edges_):
            if e is not None:
                cuts = ", ".join(f"{c:.6g}" for c in e.tolist()) or "none (one bin)"
                lines.append(f"  {feature_names[j]}: {e.size + 1} bins, cut points {cuts}")
        return lines

    def _describe_structure(self, parents, feature_names) -> list[str]:
        lines = ["  structure (each attribute <- its parents; the class is a parent of all):"]
        for j, pa in enumerate(parents):
            names = ", ".join(["class", *(str(feature_names[p]) for p in pa)])
            lines.append(f"    {feature_names[j]} <- {names}")
        return lines


class OneDependence(DiscreteNetwork):
    """One-dependence estimators: SPODE (one super-parent) and AODE (all of them).

    A SPODE with super-parent p (Webb, Boughton and Wang 2005) estimates

        P(y, x) = P(y, x_p) prod_{j != p} P(x_j | y, x_p),
        P(y, x_p) = (F(y, x_p) + alpha) / (n_p + alpha k O_p),    (n_p: rows with x_p seen)
        P(x_j | y, x_p) = (F(y, x_p, x_j) + alpha) / (F(y, x_p) + alpha O_j),

    F weighted counts of training rows (``n_p`` those where x_p is observed), k the
    number of classes. AODE averages, in probability space, the SPODEs whose
    super-parent value was seen at least ``min_count`` times; a row with none gets
    naive Bayes. As a class-conditional density, ``p(x|c) = P(c, x) / P(c)`` with the
    class probability these estimates imply, ``P(c) = sum_{x_p} P(c, x_p)`` averaged over
    the super-parents (``class_marginal_``), so that ``p(x|c)`` sums to 1 over x; the
    estimators take ``P(c)`` as their default prior, which gives exactly the joint above,
    and other priors replace it.

    Parameters
    ----------
    parents : "all", int or None, default="all"
        "all": AODE. An int: a SPODE with that super-parent. None: a SPODE whose
        super-parent is the attribute of highest mutual information with the class.
    min_count : float, default=1
        AODE: a SPODE takes part for a row when its super-parent's value has at least
        this (weighted) count in training. A missing or unseen super-parent never does.
    alpha, unseen, discretize, n_bins
        As in :class:`~bayesrule.AODE`.
    """

    title = "one-dependence estimator"

    def __init__(
        self, parents="all", min_count=1, alpha=1.0, unseen="smooth", discretize=None, n_bins=5
    ):
        self.parents = parents
        self.min_count = min_count
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins

    def _super_parents(self, stats) -> list[int]:
        d = len(stats.categories)
        if isinstance(self.parents, str) and self.parents == "all":
            return list(range(d))
        if self.parents is None:
            return [int(np.argmax(class_information(stats)))]
        p = self.parents
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
            raise TypeError(f"parent must be a column position or name, got {p!r}")
        if not 0 <= p < d:
            raise ValueError(
                f"parent={p!r} is not among the columns: X has {d} features (positions 0 to "
                f"{d - 1})."
            )
        return [int(p)]

    def _build(self, stats: PairCounts) -> None:
        alpha = self.alpha
        m = self.min_count
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, numbers.Real) or not m >= 0:
            raise ValueError(f"min_count must be a number >= 0 (or inf: naive Bayes), got {m!r}")
        C, sizes = stats.n_classes, self._sizes
        supers = self._super_parents(stats)
        slots = sizes + 2
        check_table_size(
            8.0 * C * sum((sizes[p] + 1) * (slots.sum() - slots[p]) for p in supers),
            "probability tables",
            sizes,
        )
        marginal = self._class_marginal(stats, supers)
        if (marginal <= 0).any():
            raise Undetermined(
                f"the classes at positions {np.flatnonzero(marginal <= 0).tolist()} have no "
                "samples yet, so their estimated frequencies (which the SPODEs' densities "
                "divide by) are 0."
            )
        log_class = np.log(marginal)
        self.class_marginal_ = marginal
        self.super_parents_ = supers
        self._naive = self._naive_tables(stats)
        self._spodes = []
        for p in supers:
            others = [j for j in range(sizes.size) if j != p]
            F = stats.single(p)
            with np.errstate(divide="ignore"):
                joint = np.log(F + alpha) - np.log(F.sum() + alpha * C * sizes[p])
            head = np.column_stack([joint - log_class[:, None], np.zeros(C)])
            usable = np.append(F.sum(axis=0) >= self.min_count, False)
            tables = [
                lookup_table(b, alpha, self.unseen) for b in stats.blocks([(p, j) for j in others])
            ]
            flat = np.concatenate([t.reshape(C, -1) for t in tables] or [np.zeros((C, 0))], axis=1)
            base = np.concatenate([[0], np.cumsum([t[0].size for t in tables])])[:-1]
            self._spodes.append(
                (p, head, usable, flat, base.astype(np.intp), slots[others], others)
            )

    def _class_marginal(self, stats, supers) -> np.ndarray:
        """``P(y)`` implied by the SPODE estimates: ``sum_{x_p} P(y, x_p)``, averaged over
        the super-parents observed in training (the class frequencies where none is)."""
        C, alpha = stats.n_classes, self.alpha
        parts = []
        for p in supers:
            F = stats.single(p).sum(axis=1)
            n_p = F.sum()
            if n_p > 0:
                parts.append((F + alpha * self._sizes[p]) / (n_p + alpha * C * self._sizes[p]))
        if not parts:
            return stats.class_weight / stats.class_weight.sum()
        return np.mean(parts, axis=0)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        codes = self._codes(X)
        rows = codes.shape[0]
        C = self.n_classes_
        scores = np.full((len(self._spodes), C, rows), -np.inf)
        used = np.zeros((len(self._spodes), rows), dtype=bool)
        for t, (p, head, usable, flat, base, stride, others) in enumerate(self._spodes):
            cp = np.minimum(codes[:, p], self._sizes[p])
            used[t] = usable[cp]
            if not used[t].any():
                continue
            index = base + cp[:, None] * stride + codes[:, others]
            s = head[:, cp] + np.stack([np.take(f, index).sum(axis=1) for f in flat])
            scores[t] = np.where(used[t], s, -np.inf)
        count = used.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = logsumexp(scores, axis=0) - np.log(count)
        alone = count == 0
        if alone.any():
            out[:, alone] = self._naive_sum(codes[alone])
        return out

    def _naive_sum(self, codes) -> np.ndarray:
        out = np.zeros((self.n_classes_, codes.shape[0]))
        for j, table in enumerate(self._naive):
            out += table[:, codes[:, j]]
        return out

    # ----------------------------------------------------------------- introspection
    def table(self, j: int, parents=()) -> tuple[np.ndarray, np.ndarray]:
        """Counts and probabilities ``P(x_j | c, x_p)``: ``parents`` is () or (p,)."""
        if len(parents) == 0:
            counts = self.stats_.single(j)
        else:
            (p,) = parents
            counts = self.stats_.blocks([(p, j)])[0]
        return counts, proba(counts, self.alpha)

    def parent_proba(self, p: int) -> np.ndarray:
        """The SPODE estimate ``P(y, x_p)``, shape (C, O_p)."""
        F = self.stats_.single(p)
        return (F + self.alpha) / (F.sum() + self.alpha * self.n_classes_ * self._sizes[p])

    def n_parameters(self) -> int:
        """Free parameters: per SPODE ``C (O_p - 1) + sum_{j != p} C O_p (O_j - 1)``."""
        C, sizes = self.n_classes_, self._sizes
        return sum(
            n_free([], sizes[p], C) + sum(n_free([sizes[p]], sizes[j], C) for j in others)
            for p, *_, others in self._spodes
        )

    def sample(self, counts, random_state) -> np.ndarray:
        """Draws per class: a super-parent uniformly (AODE), its value, then the others."""
        rng = random_state
        counts = np.asarray(counts, dtype=np.intp)
        codes = np.zeros((int(counts.sum()), self._sizes.size), dtype=np.intp)
        which = rng.integers(len(self._spodes), size=codes.shape[0])
        start = 0
        for c, k in enumerate(counts.tolist()):
            for t, (p, *_, others) in enumerate(self._spodes):
                rows = start + np.flatnonzero(which[start : start + k] == t)
                if rows.size == 0:
                    continue
                self._draw(codes, rows, p, (), self.table(p)[1][c], rng, c)
                for j in others:
                    self._draw(codes, rows, j, (p,), self.table(j, (p,))[1][c], rng, c)
            start += k
        return self._values(codes, rng)

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: the super-parents and the binning."""
        lines = self._header(feature_names)
        if len(self._spodes) == 1:
            p = self._spodes[0][0]
            lines += self._describe_structure(
                [() if j == p else (p,) for j in range(self._sizes.size)], feature_names
            )
        else:
            lines.append(
                f"  averages {len(self._spodes)} SPODEs, each attribute in turn the super-parent "
                f"of all others, where its value was seen at least min_count={self.min_count!r} "
                "times (else naive Bayes)"
            )
        lines.append(f"  free parameters of the tables: {self.n_parameters():,}")
        return lines
