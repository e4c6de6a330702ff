"""One-dependence estimators: SPODE (one super-parent) and AODE (the average of all).

Webb, Boughton and Wang (2005). Each SPODE has one super-parent attribute ``p`` that is
a parent of every other attribute; AODE averages the SPODEs in probability space,
computed in log space. Shared machinery (binning, counts, codes) is in
:mod:`~bayesrule.likelihoods.discrete.network`.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ..._engines import lookup
from ..._text import class_names
from ..._validation import column_position
from ...stats.pair_counts import PairCounts
from ..base import Undetermined
from .cpt import cell_alpha, check_tables, lookup_table, n_free, proba
from .leave_one_out import spode_losses
from .network import DiscreteNetwork
from .plans import spode_children, spode_plan, sum_plan
from .subsumption import check_subsumption, generalisations, resolve


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
        "all": AODE. An int: a SPODE with that super-parent. None: the SPODE of least
        leave-one-out log loss on the training rows
        (:mod:`~bayesrule.likelihoods.discrete.leave_one_out`), chosen by ``fit`` (on
        a Dask collection in a pass over its blocks after the counts) or by the first
        ``partial_fit`` that determines the model, and kept by later batches.
    min_count : float, default=1
        AODE: a SPODE takes part for a row when its super-parent's value has at least
        this (weighted) count in training. A missing or unseen super-parent never does.
    subsumption : bool or int, default=False
        AODEsr: at prediction each row's attribute values that another of its values
        specialises are deleted first (:mod:`~bayesrule.likelihoods.discrete.subsumption`;
        True: Weka's critical count 50, an int: that count).
    alpha, unseen, discretize, n_bins, backoff, smoothing
        As in :class:`~bayesrule.AODE`; ``backoff`` (default 0, Webb's estimates) weighs
        ``P(x_j | y)`` into the tables given a super-parent
        (:mod:`~bayesrule.likelihoods.discrete.cpt`). ``smoothing="hdp"`` smooths the
        tables ``P(x_j | y)`` and ``P(x_j | y, x_p)`` hierarchically
        (:mod:`~bayesrule.likelihoods.discrete.hdp`); ``P(y, x_p)`` and the leave-one-out
        choice of ``parents=None`` keep the Lidstone estimates.
    """

    title = "one-dependence estimator"

    def __init__(
        self,
        parents="all",
        min_count=1,
        subsumption=False,
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=0.0,
        smoothing="lidstone",
    ):
        self.parents = parents
        self.min_count = min_count
        self.subsumption = subsumption
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing

    def _check_params(self) -> float:
        check_subsumption(self.subsumption)
        return super()._check_params()

    def _codes(self, X) -> np.ndarray:
        """Codes of every row and feature; with ``subsumption``, each row's
        generalisations deleted (missing) first."""
        codes = super()._codes(X)
        relations = getattr(self, "_generalisations", None)
        return codes if relations is None else resolve(codes, relations, self._sizes)

    def _chooses(self) -> bool:
        """Whether the super-parent is chosen from the training rows (parents=None)."""
        return self.parents is None

    def blockwise_reason(self) -> str | None:
        if self._chooses():  # fit_blocks: a pass over the rows after the counts
            return "a SPODE chooses its super-parent by leave-one-out over the training rows"
        return super().blockwise_reason()

    def _needs_rows(self, n_features: int) -> bool:
        """Rows to score the candidate super-parents on: those of ``fit``, or of the first
        ``partial_fit`` batch that determines the model (later batches keep its choice)."""
        return self._chooses() and n_features > 1 and "super_parents_" not in vars(self)

    def fit(self, X, y, n_classes, sample_weight=None):
        self.__dict__.pop("super_parents_", None)  # chosen again (partial_fit keeps it)
        return super().fit(X, y, n_classes, sample_weight)

    def fit_blocks(self, blocks, n_classes):
        self.__dict__.pop("super_parents_", None)
        return super().fit_blocks(blocks, n_classes)

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        try:
            return super().partial_fit(X, y, n_classes, sample_weight)
        finally:  # a batch that left the model undetermined keeps no rows
            self.__dict__.pop("_rows", None)

    def _super_parents(self, stats) -> list[int]:
        d = len(stats.categories)
        if isinstance(self.parents, str) and self.parents == "all":
            return list(range(d))
        if not self._chooses():
            return [column_position("parent", self.parents, d, names=False)]
        score = functools.partial(
            spode_losses, stats=stats, alpha=self.alpha, backoff=float(self.backoff)
        )
        loss = self._count_rows(score, stats.categories).get("loss")
        if loss is not None:  # the least loss; near-ties (rounding) to the first
            return [int(np.flatnonzero(loss <= loss.min() + 1e-9 * abs(loss.min()))[0])]
        if d == 1:
            return [0]
        kept = vars(self).get("super_parents_")
        if kept is None:
            raise ValueError(
                "parents=None chooses the super-parent from the training rows, which these "
                "statistics come without; fit on the data, or give the super-parent."
            )
        return list(kept)

    def _build(self, stats: PairCounts) -> None:
        alpha = self.alpha
        m = self.min_count
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, numbers.Real) or not m >= 0:
            raise ValueError(f"min_count must be a number >= 0 (or inf: naive Bayes), got {m!r}")
        C, sizes = stats.n_classes, self._sizes
        supers = self._super_parents(stats)
        slots = sizes + 2
        check_tables(
            8.0 * C * sum((sizes[p] + 1.0) * (slots.sum() - slots[p]) for p in supers),
            sizes,
            "",
        )
        singles = stats.singles()
        marginal = self._class_marginal(stats, singles, supers)
        if (marginal <= 0).any():
            empty = np.flatnonzero(marginal <= 0)
            raise Undetermined(
                f"{class_names(empty)} {'has' if empty.size == 1 else 'have'} no samples "
                "yet, so the estimated frequencies (which the SPODEs' densities divide by) "
                "are 0."
            )
        log_class = np.log(marginal)
        self.class_marginal_ = marginal
        self.super_parents_ = supers
        critical = check_subsumption(self.subsumption)
        self._generalisations = None if critical is None else generalisations(stats, critical)
        smoothing = self.smoothing
        self._naive = [lookup_table(F, alpha, self.unseen, smoothing=smoothing) for F in singles]
        self._spodes = []
        children = {p: [j for j in range(sizes.size) if j != p] for p in supers}
        # Lidstone from dense counts: every child of a super-parent at once
        fast = self.backoff == 0 and smoothing == "lidstone" and stats.gram is not None
        pairs = [] if fast else [(p, j) for p in supers for j in children[p]]
        blocks = iter(stats.blocks(pairs))  # one pass
        every = spode_children(stats, supers, alpha, self.unseen) if fast else {}
        for p in supers:
            others = children[p]
            num, den = self._parent_joint(singles[p], p)
            with np.errstate(divide="ignore"):
                joint = np.log(num) - np.log(den)
            head = np.column_stack([joint - log_class[:, None], np.zeros(C)])
            usable = np.append(singles[p].sum(axis=0) >= self.min_count, False)
            if fast:
                flat, base = every[p]
            else:
                tables = [
                    lookup_table(next(blocks), alpha, self.unseen, None, self.backoff, smoothing)
                    for _ in others
                ]
                flat = np.concatenate([t.reshape(C, -1) for t in tables] or [np.zeros((C, 0))], 1)
                base = np.concatenate([[0], np.cumsum([t[0].size for t in tables])])[:-1]
            self._spodes.append(
                (p, head, usable, flat, base.astype(np.intp), slots[others], others)
            )

    def _parent_joint(self, F: np.ndarray, p: int):
        """Webb's ``P(y, x_p)`` from ``F(y, x_p)`` as numerator (C, O_p) and denominator
        (``alpha`` per cell; ``smoothing="m-estimate"``: ``alpha`` in all)."""
        cells = F.shape[0] * self._sizes[p]
        alpha = cell_alpha(self.alpha, cells, self.smoothing)
        return F + alpha, F.sum() + alpha * cells

    def _class_marginal(self, stats, singles, supers) -> np.ndarray:
        """``P(y)`` implied by the SPODE estimates: ``sum_{x_p} P(y, x_p)``, averaged over
        the super-parents observed in training (the class frequencies where none is)."""
        parts = []
        for p in supers:
            if singles[p].sum() > 0:
                num, den = self._parent_joint(singles[p], p)
                parts.append(num.sum(axis=1) / den)
        if not parts:
            return stats.class_weight / stats.class_weight.sum()
        return np.mean(parts, axis=0)

    def _make_plan(self):
        """The SPODEs' plan and naive Bayes's (:mod:`.plans`), from the fitted tables."""
        naive = sum_plan(self._naive, [()] * self._sizes.size, self._sizes)
        return spode_plan(self._spodes, self._sizes, self.n_classes_), naive

    def _class_major(self, X, relative: bool) -> np.ndarray:
        codes = self._codes(X)
        spodes, naive = self._plan()
        out, used = lookup.score(spodes, codes, self._sizes)
        alone = used <= 0  # no super-parent usable: naive Bayes
        if alone.any():
            out[:, alone] = lookup.score(naive, codes[alone], self._sizes)[0]
        return out

    # ----------------------------------------------------------------- introspection
    def table(self, j: int, parents=()) -> tuple[np.ndarray, np.ndarray]:
        """Counts and probabilities ``P(x_j | c, x_p)``: ``parents`` is () or (p,)."""
        if len(parents) == 0:
            counts = self.stats_.single(j)
        else:
            (p,) = parents
            counts = self.stats_.blocks([(p, j)])[0]
        return counts, proba(counts, self.alpha, self.backoff, smoothing=self.smoothing)

    def parent_proba(self, p: int) -> np.ndarray:
        """The SPODE estimate ``P(y, x_p)``, shape (C, O_p)."""
        num, den = self._parent_joint(self.stats_.single(p), p)
        return num / den

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
        tables = {}  # per super-parent, built when first drawn from (they do not depend on c)
        start = 0
        for c, k in enumerate(counts.tolist()):
            for t, (p, *_, others) in enumerate(self._spodes):
                rows = start + np.flatnonzero(which[start : start + k] == t)
                if rows.size == 0:
                    continue
                if p not in tables:  # all of p's pair counts in one pass
                    num = self._parent_joint(self.stats_.single(p), p)[0]  # P(x_p | y) as
                    total = num.sum(axis=1, keepdims=True)  # the joint's cells give it
                    head = np.where(
                        total > 0, num / np.where(total > 0, total, 1), 1 / max(num.shape[1], 1)
                    )
                    blocks = self.stats_.blocks([(p, j) for j in others])
                    tables[p] = [head] + [
                        proba(n, self.alpha, self.backoff, smoothing=self.smoothing) for n in blocks
                    ]
                self._draw(codes, rows, p, (), tables[p][0][c], rng, c)
                for j, table in zip(others, tables[p][1:], strict=True):
                    self._draw(codes, rows, j, (p,), table[c], rng, c)
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
