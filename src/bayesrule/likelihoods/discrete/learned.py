"""Bayesian network classifiers with learned structure: TAN and k-dependence Bayes.

``p(x|c) = prod_j P(x_j | c, pa_j)`` with each attribute's parents ``pa_j`` learned from
the pairwise counts (:mod:`~bayesrule.likelihoods.discrete.structure`):

* :class:`TreeAugmented` (Friedman, Geiger and Goldszmidt 1997): the maximum spanning
  tree over ``I(X_i; X_j | C)`` (Chow-Liu) or another edge score, directed away from
  ``root`` (or as Weka 3.6's TAN search directs it);
* :class:`KDependence` (Sahami 1996): attributes in order of ``I(X_j; C)``, each with
  up to ``k`` earlier ones of highest ``I(X_i; X_j | C)`` as parents.

A missing (or never seen) parent value makes its child fall back to the counts summed
over that parent (see :mod:`~bayesrule.likelihoods.discrete.cpt`); a missing attribute drops
out of the product.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ..._engines import lookup
from ..._validation import check_integer, check_nonnegative, column_position
from ...stats.pair_counts import PairCounts
from .cpt import check_tables, flat_index, lookup_table, n_free, proba, subsets
from .network import DiscreteNetwork
from .plans import sum_plan
from .structure import (
    check_direction,
    check_edge_score,
    class_information,
    conditional_information,
    edge_weights,
    kdb_parents,
    spanning_tree,
    topological_order,
)


def own_table(like, j: int, parents=None) -> tuple[np.ndarray, np.ndarray]:
    """The counts ``like.counts_[j]`` of attribute j given its own parents and their
    probabilities under the family's smoothing; ``parents`` None or those parents."""
    if parents is not None and tuple(parents) != like.parents_[j]:
        raise ValueError(f"attribute {j}'s parents are {like.parents_[j]}, not {tuple(parents)}.")
    counts = like.counts_[j]
    return counts, proba(counts, like.alpha, like.backoff, like.stats_.single(j), like.smoothing)


def free_parameters(like, attributes) -> int:
    """``sum_j C prod(O_pa_j) (O_j - 1)`` over ``attributes`` of a fitted network."""
    sizes = like._sizes
    return sum(n_free(sizes[list(like.parents_[j])], sizes[j], like.n_classes_) for j in attributes)


class _Network(DiscreteNetwork):
    """An attribute network with one table per attribute, looked up in one gather each."""

    def _table_counts(self, stats: PairCounts, parents) -> list[tuple[np.ndarray, dict]]:
        """Per attribute its counts ``F(c, x_pa, x_j)``, and for each proper subset of its
        parents (by axis) the counts over that subset: the fallbacks when other parents
        are unavailable. No parent or one: from the pair counts (in one pass); more: from
        the training rows (``_parent_set_counts``: those kept, or a pass over the blocks)."""
        singles = stats.singles()
        pairs = sorted(
            {
                (pa[kept[0]], j)
                for j, pa in enumerate(parents)
                for kept in subsets(len(pa))
                if len(kept) == 1
            }
        )
        pair = dict(zip(pairs, stats.blocks(pairs), strict=True))
        wide = self._parent_set_counts(stats, parents)

        def counts(j, pa):
            if len(pa) == 0:
                return singles[j]
            return pair[(pa[0], j)] if len(pa) == 1 else wide[(j, pa)]

        out = []
        for j, pa in enumerate(parents):
            fallbacks = {
                kept: counts(j, tuple(pa[i] for i in kept)) for kept in subsets(len(pa))[:-1]
            }
            out.append((counts(j, tuple(pa)), fallbacks))
        return out

    def _parent_set_counts(self, stats, parents) -> dict:
        """Counts over two or more parents (only KDB has them)."""
        return {}

    def _fewer_parents(self) -> str:
        """What to change in the structure when its tables are too large."""
        return ""

    def _build(self, stats: PairCounts) -> None:
        mi, cmi = class_information(stats), conditional_information(stats)
        parents = self._structure(mi, cmi)
        sizes, C = self._sizes, stats.n_classes
        check_tables(  # before any parent-set counting
            8.0
            * C
            * sum(np.prod(sizes[list(pa)] + 1.0) * (sizes[j] + 2) for j, pa in enumerate(parents)),
            sizes,
            self._fewer_parents(),
        )
        counts = self._table_counts(stats, parents)
        tables = [
            lookup_table(n, self.alpha, self.unseen, f, self.backoff, self.smoothing).reshape(C, -1)
            for n, f in counts
        ]
        self.parents_ = parents
        self.mutual_information_ = mi
        self.conditional_mutual_information_ = cmi
        self.counts_ = [n for n, _ in counts]
        self._tables = tables

    def _make_plan(self):
        """One component, a factor per attribute (:func:`.plans.sum_plan`)."""
        return sum_plan(self._tables, self.parents_, self._sizes)

    def _class_major(self, X, relative: bool) -> np.ndarray:
        return lookup.score(self._plan(), self._codes(X), self._sizes)[0]

    def check_state(self, n_classes: int, n_features: int) -> None:
        """As the base class, and the tables that a fit derives from more than the
        statistics hold (KDB's parent combinations) checked against their own invariants:
        one float64 table per attribute, (C, prod(O_pa + 1) (O_j + 2)) log-probabilities
        (<= 0, -inf allowed, no NaN), non-negative finite counts of shape (C, O_pa.., O_j)."""
        super().check_state(n_classes, n_features)
        sizes = np.asarray(self._sizes)
        for name, derive in (
            ("mutual_information_", class_information),
            ("conditional_mutual_information_", conditional_information),
        ):
            stored, derived = getattr(self, name), derive(self.stats_)
            if not (
                isinstance(stored, np.ndarray)
                and stored.dtype == derived.dtype
                and stored.shape == derived.shape
                and np.allclose(stored, derived, rtol=1e-9, atol=1e-12)
            ):
                raise ValueError(f"{name} differs from what the statistics give")
        for j, values in enumerate(self.categories_):
            values = np.asarray(values)
            if values.shape != (sizes[j],) or (
                values.dtype.kind in "iuf" and (np.diff(values) <= 0).any()
            ):
                raise ValueError(f"attribute {j}'s categories are not its {sizes[j]} values")
        parts = (self.parents_, self._tables, self.counts_)
        if not all(isinstance(p, (list, tuple)) and len(p) == sizes.size for p in parts):
            raise ValueError(f"the network does not hold one table per attribute ({sizes.size})")
        for j, (pa, table, counts) in enumerate(zip(*parts, strict=True)):
            pa = list(pa)
            shape = (n_classes, int(np.prod(sizes[pa] + 1)) * (int(sizes[j]) + 2))
            shown = f"attribute {j}'s table"
            if not isinstance(table, np.ndarray) or table.dtype != np.float64:
                raise ValueError(f"{shown} is not a float64 array")
            if table.shape != shape:
                raise ValueError(f"{shown} has shape {table.shape}, not {shape}")
            if np.isnan(table).any() or (table > 1e-12).any():
                raise ValueError(f"{shown} holds numbers that are not log-probabilities")
            want = (n_classes, *sizes[pa], int(sizes[j]))
            if not isinstance(counts, np.ndarray) or counts.shape != want:
                raise ValueError(f"attribute {j}'s counts are not an array of shape {want}")
            if not np.isfinite(counts).all() or (counts < 0).any():
                raise ValueError(f"attribute {j}'s counts are not non-negative numbers")

    def table(self, j: int, parents=None) -> tuple[np.ndarray, np.ndarray]:
        """Counts and probabilities ``P(x_j | c, pa_j)`` of attribute j, shape
        (C, O_pa..., O_j); ``parents`` must be None or the attribute's own parents."""
        return own_table(self, j, parents)

    def n_parameters(self) -> int:
        """Free parameters: ``sum_j C prod(O_pa_j) (O_j - 1)``."""
        return free_parameters(self, range(len(self.parents_)))

    def sample(self, counts, random_state) -> np.ndarray:
        """Ancestral sampling per class: parents before children."""
        rng = random_state
        counts = np.asarray(counts, dtype=np.intp)
        codes = np.zeros((int(counts.sum()), self._sizes.size), dtype=np.intp)
        order = topological_order(self.parents_)
        tables = [self.table(j)[1] for j in range(self._sizes.size)]
        start = 0
        for c, k in enumerate(counts.tolist()):
            rows = np.arange(start, start + k)
            for j in order:
                self._draw(codes, rows, j, self.parents_[j], tables[j][c], rng, c)
            start += k
        return self._values(codes, rng)

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: the binning, the structure and the information it came from."""
        lines = self._header(feature_names)
        lines += self._describe_structure(self.parents_, feature_names)
        shown = ", ".join(
            f"{name} {v:.4g}"
            for name, v in zip(feature_names, self.mutual_information_.tolist(), strict=True)
        )
        lines.append(f"  I(X_j; class) in nats: {shown}")
        lines.append(f"  free parameters of the tables: {self.n_parameters():,}")
        return lines


class TreeAugmented(_Network):
    """Tree-augmented naive Bayes: each attribute has the class and at most one attribute
    as parents, the tree of maximum ``I(X_i; X_j | C)`` (or ``edge_score``) rooted at
    ``root``.

    Parameters
    ----------
    root : int or None, default=None
        Column position of the tree's root; None: the attribute of highest ``I(X_j; C)``
        (with ``direction="weka"``: the root the search ends with; must be None).
    alpha, unseen, discretize, n_bins, backoff, smoothing, edge_score, direction
        As in :class:`~bayesrule.TAN`.
    """

    title = "tree-augmented naive Bayes"

    def __init__(
        self,
        root=None,
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=5.0,
        smoothing="lidstone",
        edge_score="cmi",
        direction="root",
    ):
        self.root = root
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing
        self.edge_score = edge_score
        self.direction = direction

    def _structure(self, mi, cmi) -> list[tuple[int, ...]]:
        score = check_edge_score(self.edge_score)
        weka = check_direction(self.direction) == "weka"
        if weka and self.root is not None:
            raise ValueError(
                f"root={self.root!r} cannot be given with direction='weka': Weka's TAN search "
                "chooses the root itself; pass root=None, or direction='root' to keep this root."
            )
        root = None
        if not weka:
            root = (
                int(np.argmax(mi))
                if self.root is None
                else column_position("root", self.root, mi.size, names=False)
            )
        if score == "bayes" and check_nonnegative("alpha", self.alpha) <= 0:
            raise ValueError(
                f"edge_score='bayes' needs alpha > 0, got alpha={self.alpha!r}: the Bayesian "
                "Dirichlet score puts alpha pseudo-counts in every cell (ln Gamma(0) is "
                "infinite); set alpha > 0 or another edge_score."
            )
        self.edge_weights_ = edge_weights(
            self.stats_, cmi, score, self.alpha, self.smoothing, self.direction
        )
        allowed = None if score in ("cmi", "bayes") else self.edge_weights_ >= 0  # bnclassify
        parents, self.root_ = spanning_tree(self.edge_weights_, root, allowed, mi)
        return parents


class KDependence(_Network):
    """k-dependence Bayes: each attribute has the class and up to ``k`` attributes as
    parents (Sahami 1996); ``k=0`` is naive Bayes, ``k=1`` a tree-like network.

    Parameters
    ----------
    k : int, default=2
        The most attribute parents; ``0 <= k < n_features``.
    alpha, unseen, discretize, n_bins, backoff, smoothing, min_cmi
        As in :class:`~bayesrule.KDB`.
    """

    title = "k-dependence Bayes"

    def __init__(
        self,
        k=2,
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=5.0,
        smoothing="lidstone",
        min_cmi=None,
    ):
        self.k = k
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing
        self.min_cmi = min_cmi

    def blockwise_reason(self) -> str | None:
        if isinstance(self.k, numbers.Integral) and self.k >= 2:  # fit_blocks: a second pass
            return "KDB with k >= 2 counts parent combinations chosen from all the data first"
        return super().blockwise_reason()

    def _check_k(self, d: int) -> int:
        return check_integer(
            "k",
            self.k,
            0,
            d,
            kind="an integer (the most attribute parents)",
            why=f"k={self.k!r} must be >= 0 and smaller than the number of features "
            f"(n_features = {d}): an attribute can have at most n_features - 1 parents.",
        )

    def _structure(self, mi, cmi) -> list[tuple[int, ...]]:
        t = self.min_cmi
        t = None if t is None else check_nonnegative("min_cmi", t, " (in nats; None: none)")
        return kdb_parents(mi, cmi, self._check_k(mi.size), t)

    def _fewer_parents(self) -> str:
        return f"Set a smaller k (k={self.k!r}: tables over k parents' values), or "

    def _needs_rows(self, n_features: int) -> bool:
        return self._check_k(n_features) >= 2

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        if self._check_k(np.shape(X)[1]) >= 2:
            raise NotImplementedError(
                "KDB with k >= 2 counts parent combinations chosen from all the data; use "
                "fit (or TAN / AODE, whose counts add up batch by batch)."
            )
        return super().partial_fit(X, y, n_classes, sample_weight)

    def _parent_set_counts(self, stats, parents) -> dict:
        """``F(c, x_S, x_j)`` for every set S of two or more of j's parents, from the
        encoded training rows kept by ``statistics`` (dropped here), or from a pass over
        the row blocks after ``fit_blocks`` (added up)."""
        count = functools.partial(
            parent_set_counts, sizes=self._sizes, n_classes=stats.n_classes, parents=parents
        )
        return self._count_rows(count, stats.categories)


def parent_set_counts(codes, y, w, *, sizes, n_classes, parents) -> dict:
    """``F(c, x_S, x_j)`` of encoded rows (codes, -1 where missing or of weight zero) for
    every set S of two or more of j's ``parents``, keyed ``(j, S)``; additive over rows."""
    w = np.ones(y.size) if w is None else w
    out = {}
    for j, pa in enumerate(parents):
        for kept in subsets(len(pa)):
            if len(kept) < 2:
                continue
            cols = [*(pa[i] for i in kept), j]
            sub = codes[:, cols]
            ok = (sub >= 0).all(axis=1)  # observed, in a row of positive weight
            shape = [n_classes, *sizes[cols]]
            index = flat_index(np.column_stack([y[ok], sub[ok]]), shape)
            counts = np.bincount(index, weights=w[ok], minlength=int(np.prod(shape)))
            out[(j, tuple(cols[:-1]))] = counts.reshape(shape)
    return out
