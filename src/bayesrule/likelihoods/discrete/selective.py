"""Selective k-dependence Bayes (SKDB): KDB's attributes and k chosen by leave-one-out.

Martinez, Webb, Chen and Zaidi (2016, *JMLR* 17(44)). Attributes are ordered by
``I(X_j; C)``; each has up to ``k_max`` earlier ones of highest ``I(X_i; X_j | C)`` as
ranked parents. Every model nested in that structure, the first ``s`` attributes of the
order (s = 0 .. d) each with its first ``k`` ranked parents (k = 0 .. k_max), is scored by
leave-one-out over the training rows from the counts of the ``k_max`` structure
(:mod:`~bayesrule.likelihoods.discrete.selective_loo`), and the best is kept:

    P(c | x) ∝ P(c) prod_{j among the first s} P(x_j | c, x_{pa_j}),   |pa_j| <= k.

The attributes left out drop out of the product (the density is over the selected ones).
The fit makes three passes over the rows, after the bins (``discretize``): the pair
counts, the counts of the parent combinations, and the leave-one-out scores; on a Dask
collection each is one pass over its blocks, merged in a tree, so the model equals the
one fitted in memory. The tables are those of KDB with the chosen k over the chosen
attributes (:mod:`~bayesrule.likelihoods.discrete.cpt`; the same fallbacks for missing
parents); the leave-one-out uses the ``alpha``/``backoff`` estimates whatever the
``smoothing`` of the final tables (the authors' code smooths hierarchically after the
selection too).
"""

from __future__ import annotations

import functools

import numpy as np

from ..._engines.lookup import Factors, Plan, score
from ..._validation import check_integer
from ...stats.pair_counts import PairCounts
from . import hdp
from .cpt import check_tables, lookup_table, proba, subsets
from .learned import free_parameters, own_table
from .network import DiscreteNetwork, _add_counts, _block_count
from .selective_loo import CRITERIA, Scorer, choose, ranked_parents, selective_losses, subset_counts
from .structure import class_information, conditional_information

#: ``_rows`` of a member whose stages its ensemble runs (``set_statistics`` stops there)
STAGED = "staged"


class SelectiveKDependence(DiscreteNetwork):
    """Selective KDB: the first ``s`` attributes by ``I(X_j; C)`` with up to ``k``
    parents each, ``s`` and ``k <= k_max`` chosen by leave-one-out on the counts.

    Parameters
    ----------
    k_max : int, default=5
        The most attribute parents a candidate may give an attribute (>= 0).
    criterion : {"rmse", "log_loss", "zero_one"}, default="rmse"
        The leave-one-out criterion: the root mean squared ``1 - P(y_i | x_i)`` (the
        paper's), the mean log loss, or the error rate.
    alpha, unseen, discretize, n_bins, backoff, smoothing
        As in :class:`~bayesrule.SKDB`.
    """

    title = "selective k-dependence Bayes"

    def __init__(
        self,
        k_max=5,
        criterion="rmse",
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=5.0,
        smoothing="lidstone",
    ):
        self.k_max = k_max
        self.criterion = criterion
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing

    # ----------------------------------------------------------------- parameters
    def _check_params(self) -> float:
        check_integer(
            "k_max",
            self.k_max,
            0,
            kind="an integer >= 0 (the most attribute parents of a candidate)",
            why=f"k_max={self.k_max!r} must be >= 0: 0 lets leave-one-out choose among the "
            "naive Bayes models of the first s attributes.",
        )
        if not isinstance(self.criterion, str) or self.criterion not in CRITERIA:
            raise ValueError(
                f"criterion must be one of {', '.join(map(repr, CRITERIA))} (the leave-one-"
                f"out score of a candidate), got {self.criterion!r}"
            )
        hdp.check_smoothing(self.smoothing)
        return super()._check_params()

    def blockwise_reason(self) -> str | None:  # fit_blocks: two more passes
        return "selective KDB counts parent combinations and scores its candidates in passes"

    def _needs_rows(self, n_features: int) -> bool:
        return True

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        raise NotImplementedError(
            "selective KDB chooses its attributes and k by leave-one-out over all the data; "
            "use fit (TAN and AODE add up batch by batch)."
        )

    # ----------------------------------------------------------------- the three stages
    def _build(self, stats: PairCounts) -> None:
        rows = self.__dict__.pop("_rows", None)
        if rows is STAGED:  # an ensemble runs the stages, its members' passes shared
            return
        if rows is None:
            raise ValueError(
                "selective KDB needs the training rows (two more passes), not only the counts"
            )
        count = self._plan_structure(stats)
        losses = _over_rows(rows, self._plan_scoring(_over_rows(rows, count, self)), self)
        self._finish(losses)

    def _plan_structure(self, stats: PairCounts, order=None):
        """Stage 1, from the pair counts: the attribute ``order`` (default by
        ``I(X_j; C)``), each attribute's ranked ``k_max`` parents, the tables' size
        checked; returns the counting of the second pass (``count(codes, y, w)``)."""
        self._check_params()
        mi, cmi = class_information(stats), conditional_information(stats)
        order = np.argsort(-mi, kind="stable") if order is None else np.asarray(order)
        ranked = ranked_parents(order, cmi, int(self.k_max), self._sizes, stats.n_classes)
        sizes, C = self._sizes, stats.n_classes
        check_tables(
            8.0 * C * sum(np.prod(sizes[list(pa)] + 1.0) * (sizes[j] + 2) for j, pa in ranked),
            sizes,
            f"Set a smaller k_max (k_max={self.k_max!r}: tables over k_max parents' values), or ",
        )
        self.mutual_information_, self.conditional_mutual_information_ = mi, cmi
        self.order_ = order.astype(np.intp)
        self._ranked = ranked
        return functools.partial(subset_counts, sizes=sizes, n_classes=C, ranked=ranked)

    def _plan_scoring(self, counts: dict):
        """Stage 2, from the counts of every parent subset: the leave-one-out scoring of
        the third pass (``loss(codes, y, w)``)."""
        self._subset_counts = counts
        scorer = Scorer(
            self._ranked,
            counts,
            self.stats_.class_weight,
            alpha=float(self.alpha),
            backoff=float(self.backoff),
            k_max=int(self.k_max),
        )
        return functools.partial(selective_losses, scorer=scorer)

    def _finish(self, losses: dict) -> None:
        """Stage 3: the candidate of least criterion, and its tables."""
        total = max(float(losses["weight"][0]), 1e-300)
        grid = losses[CRITERIA[self.criterion]] / total
        if self.criterion == "rmse":
            grid = np.sqrt(grid)
        s, k = choose(grid)
        self.loss_grid_ = grid
        self._select(s, k)
        del self._subset_counts, self._ranked  # the fit's, not the model's

    def _select(self, s: int, k: int) -> None:
        """The model of the first ``s`` attributes of the order with ``k`` parents each."""
        counts, C, d = self._subset_counts, self.n_classes_, self._sizes.size
        self.n_selected_, self.k_ = int(s), int(k)
        self.selected_ = self.order_[:s].copy()
        self.parents_ = [()] * d
        self.counts_ = [None] * d
        tables = []
        for j, ranked in self._ranked[:s]:
            pa = ranked[:k]
            full = counts[(j, tuple(range(len(pa))))]
            fallbacks = {kept: counts[(j, kept)] for kept in subsets(len(pa))}
            table = lookup_table(
                full, self.alpha, self.unseen, fallbacks, self.backoff, self.smoothing
            )
            self.parents_[j], self.counts_[j] = pa, full
            tables.append(table.reshape(C, -1).T)
        self._table = np.concatenate(tables) if tables else np.zeros((0, C))

    # ----------------------------------------------------------------- evaluation
    def _factors(self) -> Factors:
        """Where each selected attribute looks up in ``_table``: its block of cells,
        its parents' slots and its own code (row-major over (O_pa + 1..., O_j + 2))."""
        sizes, rows, base = self._sizes, [], 0
        for j in self.selected_.tolist():
            shape = [*(sizes[list(self.parents_[j])] + 1), sizes[j] + 2]
            mults = np.cumprod([1, *shape[::-1]])[::-1][1:]
            terms = [(p, int(m), True) for p, m in zip(self.parents_[j], mults, strict=False)]
            rows.append((base, [*terms, (j, 1, False)]))
            base += int(np.prod(shape))
        return Factors.build(rows)

    def _make_plan(self) -> Plan:
        """One component: the selected attributes' factors over ``_table``."""
        return Plan(self._table, self._factors(), np.array([0, self.selected_.size]))

    def _class_major(self, X, relative: bool) -> np.ndarray:
        return score(self._plan(), self._codes(X), self._sizes)[0]

    # ----------------------------------------------------------------- inspection
    def table(self, j: int, parents=None) -> tuple[np.ndarray, np.ndarray]:
        """Counts and probabilities ``P(x_j | c, pa_j)`` of a selected attribute j."""
        if self.counts_[j] is None:
            raise ValueError(
                f"attribute {j} is not among the {self.n_selected_} attributes selected "
                f"({self.selected_.tolist()}): the model has no table for it."
            )
        return own_table(self, j, parents)

    def n_parameters(self) -> int:
        """Free parameters: ``sum_j C prod(O_pa_j) (O_j - 1)`` over the selected j."""
        return free_parameters(self, self.selected_.tolist())

    def sample(self, counts, random_state) -> np.ndarray:
        """Ancestral sampling per class over the selected attributes (in order: parents
        first); an attribute left out is drawn from its marginal, the same in every class
        (the model says nothing of it)."""
        rng = random_state
        counts = np.asarray(counts, dtype=np.intp)
        d = self._sizes.size
        codes = np.zeros((int(counts.sum()), d), dtype=np.intp)
        chosen = self.selected_.tolist()
        tables = {j: self.table(j)[1] for j in chosen}
        start = 0
        for c, k in enumerate(counts.tolist()):
            rows = np.arange(start, start + k)
            for j in chosen:
                self._draw(codes, rows, j, self.parents_[j], tables[j][c], rng, c)
            start += k
        every = np.arange(codes.shape[0])
        for j in sorted(set(range(d)) - set(chosen)):
            marginal = proba(self.stats_.single(j).sum(axis=0, keepdims=True), self.alpha)[0]
            self._draw(codes, every, j, (), marginal, rng, 0)
        return self._values(codes, rng)

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: the binning, the selection and the structure."""
        lines = self._header(feature_names)
        chosen = self.selected_.tolist()
        names = ", ".join(str(feature_names[j]) for j in chosen) or "none (the prior alone)"
        lines.append(
            f"  selected by leave-one-out {self.criterion}: {self.n_selected_} of "
            f"{self._sizes.size} attributes with k = {self.k_} (k_max = {self.k_max}): {names}"
        )
        grid = self.loss_grid_
        lines.append(
            f"  leave-one-out {self.criterion} {grid[self.n_selected_, self.k_]:.6g} "
            f"(every attribute with k_max parents: {grid[-1, -1]:.6g})"
        )
        lines.append("  structure (each attribute <- its parents; the class is a parent of all):")
        for j in chosen:
            parents = ", ".join(["class", *(str(feature_names[p]) for p in self.parents_[j])])
            lines.append(f"    {feature_names[j]} <- {parents}")
        lines.append(f"  free parameters of the tables: {self.n_parameters():,}")
        return lines

    def check_state(self, n_classes: int, n_features: int) -> None:
        """As the base class, and what the fit derives from more than the statistics
        checked against its invariants: the information equal to what the statistics
        give, the order a permutation of attributes, the selection its first
        ``n_selected_``, the parents the ranked ones of that order, the counts and the
        log table of the selected attributes in their shapes (log-probabilities <= 0)."""
        super().check_state(n_classes, n_features)
        sizes = np.asarray(self._sizes)
        d = sizes.size
        mi, cmi = class_information(self.stats_), conditional_information(self.stats_)
        for name, derived in (
            ("mutual_information_", mi),
            ("conditional_mutual_information_", cmi),
        ):
            stored = getattr(self, name)
            if not (
                isinstance(stored, np.ndarray)
                and stored.shape == derived.shape
                and np.allclose(stored, derived, rtol=1e-9, atol=1e-12)
            ):
                raise ValueError(f"{name} differs from what the statistics give")
        order = self.order_
        if not (
            isinstance(order, np.ndarray)
            and order.dtype.kind == "i"
            and order.ndim == 1
            and np.unique(order).size == order.size
            and ((order >= 0) & (order < d)).all()
        ):
            raise ValueError("order_ is not a list of distinct attribute positions")
        s, k = self.n_selected_, self.k_
        if not (isinstance(s, int) and 0 <= s <= order.size and isinstance(k, int) and k >= 0):
            raise ValueError(f"n_selected_={s!r} and k_={k!r} are no candidate of the order")
        if not np.array_equal(self.selected_, order[:s]):
            raise ValueError("selected_ is not the first n_selected_ attributes of order_")
        want = [()] * d
        cmi = self.conditional_mutual_information_
        for j, ranked in ranked_parents(order, cmi, k, sizes, n_classes)[:s]:
            want[j] = ranked
        if [tuple(p) for p in self.parents_] != want:
            raise ValueError("parents_ are not the ranked parents of the selected attributes")
        cells = 0
        for j in range(d):
            counts = self.counts_[j]
            if j not in set(self.selected_.tolist()):
                if counts is not None:
                    raise ValueError(f"attribute {j} is not selected but has counts")
                continue
            shape = (n_classes, *sizes[list(want[j])], int(sizes[j]))
            if not isinstance(counts, np.ndarray) or counts.shape != shape:
                raise ValueError(f"attribute {j}'s counts are not an array of shape {shape}")
            if not np.isfinite(counts).all() or (counts < 0).any():
                raise ValueError(f"attribute {j}'s counts are not non-negative numbers")
            cells += int(np.prod(sizes[list(want[j])] + 1)) * (int(sizes[j]) + 2)
        table = self._table
        if not (isinstance(table, np.ndarray) and table.dtype == np.float64):
            raise ValueError("the log table is not a float64 array")
        if table.shape != (cells, n_classes):
            raise ValueError(f"the log table has shape {table.shape}, not {(cells, n_classes)}")
        if np.isnan(table).any() or (table > 1e-12).any():
            raise ValueError("the log table holds numbers that are not log-probabilities")


def _over_rows(rows, count, like) -> dict:
    """``count(codes, y, w)`` over the training rows: those ``statistics`` kept, or one
    pass over the blocks of ``fit_blocks`` (binned, encoded, added up in a tree)."""
    if isinstance(rows, tuple):
        return count(*rows)
    out = rows.map_reduce(_block_count, _add_counts, like.bin_edges_, like.stats_.categories, count)
    return {} if out is None else out
