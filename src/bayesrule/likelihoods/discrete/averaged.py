"""Averaged n-dependence estimators (AnDE) and weighted AODE (WAODE).

AnDE (Webb, Boughton, Zheng, Ting and Salem 2012) generalises AODE from one super-parent
to sets ``S`` of ``n``: each super-parent n-dependence estimator (SPnDE) estimates

    P(y, x) = P(y, x_S) prod_{j not in S} P(x_j | y, x_S),
    P(y, x_S) = (F(y, x_S) + alpha) / (n_S + alpha k prod_{s in S} O_s),
    P(x_j | y, x_S) = (F(y, x_S, x_j) + alpha) / (F(y, x_S) + alpha O_j),

``n_S`` the rows where all of ``S`` is observed, ``k`` the classes (AODE's estimates for
n = 1). AnDE averages, in probability space, the SPnDEs of the sets whose values in the
row were seen together at least ``min_count`` times; a row with none falls back to
A(n-1)DE, and so on down to AODE and naive Bayes (as in the paper). n = 1 is AODE. As
there, ``p(x|c) = P(c, x) / P(c)`` with ``P(c)`` the class probability the top level's
estimates imply (``class_marginal_``, the estimators' default prior).

WAODE (Jiang and Zhang 2006, Weka's ``WAODE``) weighs AODE's SPODEs by the mutual
information ``I(X_p; C)`` of their super-parent with the class (empirical, in nats:
:func:`~bayesrule.likelihoods.discrete.structure.class_information`); a row whose usable
SPODEs all carry no information gets AODE.

Counts beyond pairs come from :class:`~bayesrule.stats.set_counts.SetCounts` (additive:
``partial_fit`` and Dask add batches). Every level is scored by table lookup
(:mod:`bayesrule._engines.lookup`): a component per parent set, one row of cells per
combination of its parents' slots (the head ``P(y, x_S) / P(y)``, then each child's
``O_j + 2`` cells), a gate per component (1 where ``min_count`` is met).
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from ..._engines.lookup import score
from ..._text import class_names
from ..._validation import check_integer
from ...stats.pair_counts import count_pairs, encode_table
from ...stats.set_counts import count_sets, layout
from ..base import Undetermined
from .averaged_tables import Counts, check_size, joint_parts, level_plan
from .cpt import proba
from .one_dependence import OneDependence
from .structure import class_information

#: per fitted family, the plans of its levels: derived from the counts, so kept beside
#: the model, never in its saved state
_LEVELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class AveragedDependence(OneDependence):
    """AnDE and WAODE (see the module docstring).

    Parameters
    ----------
    n : int, default=2
        Super-parents per estimator, ``1 <= n <= n_features``; n = 1 is AODE.
    min_count : float, default=1
        A parent set takes part for a row when its values were seen together at least
        this (weighted) number of times in training (a missing or never seen parent:
        never).
    subsumption : bool or int, default=False
        Subsumption resolution at prediction
        (:mod:`~bayesrule.likelihoods.discrete.subsumption`).
    weighted : bool, default=False
        WAODE: the SPODEs weighted by ``I(X_p; C)`` (n = 1 only).
    alpha, unseen, discretize, n_bins, backoff, smoothing
        As in :class:`~bayesrule.likelihoods.discrete.one_dependence.OneDependence`.
    """

    title = "averaged n-dependence estimators"
    parents = "all"  # the one-dependence machinery builds every SPODE: the last fallback

    def __init__(
        self,
        n=2,
        min_count=1,
        subsumption=False,
        weighted=False,
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=0.0,
        smoothing="lidstone",
    ):
        self.n = n
        self.min_count = min_count
        self.subsumption = subsumption
        self.weighted = weighted
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing

    def _check_n(self, d: int) -> int:
        n = check_integer(
            "n",
            self.n,
            1,
            d + 1,
            kind="an integer >= 1 (the super-parents of each estimator)",
            why=f"n={self.n!r} must be >= 1 and at most the number of features (n_features = "
            f"{d}): each estimator conditions on n super-parent attributes. Set n from 1 "
            f"(AODE) to {d}.",
        )
        if not isinstance(self.weighted, (bool, np.bool_)):
            raise TypeError(f"weighted must be True or False, got {self.weighted!r}")
        if self.weighted and n != 1:
            raise ValueError(
                f"weighted=True weighs one-dependence estimators: n must be 1, got {n}"
            )
        return n

    def check_state(self, n_classes: int, n_features: int) -> None:
        """As AODE's, and the subset counts (not derived) checked: for n >= 2, one flat
        float64 array per subset size 3 .. min(n + 1, d), each of the length its layout
        gives (:func:`~bayesrule.stats.set_counts.layout`), finite and non-negative."""
        super().check_state(n_classes, n_features)
        n = self._check_n(n_features)
        stats = self.stats_
        top = min(n + 1, n_features) if n > 1 else 2
        sets = getattr(stats, "sets", [])
        if len(sets) != max(top - 2, 0):
            raise ValueError(f"the counts hold subsets up to {2 + len(sets)}, not {top}")
        sizes = tuple(int(c.size) for c in stats.categories)
        for m, flat in enumerate(sets, start=3):
            length = n_classes * layout(sizes, m)[1]
            if not (
                isinstance(flat, np.ndarray)
                and flat.dtype == np.float64
                and flat.shape == (length,)
                and np.isfinite(flat).all()
                and (flat >= 0).all()
            ):
                raise ValueError(
                    f"the counts of the {m}-subsets are not {length} non-negative float64 numbers"
                )

    # ----------------------------------------------------------------- statistics
    def statistics(self, X, y, n_classes, sample_weight=None):
        """Pairwise counts and, for n >= 2, the counts of every subset of up to n + 1
        attributes (:class:`~bayesrule.stats.set_counts.SetCounts`)."""
        self._check_params()
        y = np.asarray(y, dtype=np.intp)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        categories, codes = encode_table(self._discrete_table(X, y, n_classes, w), w)
        n = self._check_n(len(categories))
        pairs = count_pairs(categories, codes, y, n_classes, w)
        if n == 1:
            return pairs
        sizes = np.array([c.size for c in categories], dtype=np.intp)
        check_size(sizes, n_classes, n)  # before counting: refused tables count nothing
        return count_sets(pairs, codes, y, w, min(n + 1, sizes.size))

    # ----------------------------------------------------------------- tables
    def _build(self, stats) -> None:
        super()._build(stats)  # AODE's SPODEs (the last fallback) and naive Bayes
        _LEVELS.pop(self, None)
        n = self._check_n(len(stats.categories))
        if self.weighted:
            self.weights_ = class_information(stats)
        self._averaged = False
        levels = self._level_sets()
        if not levels:  # AODE (n=1), or no informative super-parent
            return
        check_size(self._sizes, stats.n_classes, n)
        counts = Counts(stats)
        marginal = self._implied_marginal(counts, *levels[0])
        if (marginal <= 0).any():
            empty = np.flatnonzero(marginal <= 0)
            raise Undetermined(
                f"{class_names(empty)} {'has' if empty.size == 1 else 'have'} no samples "
                "yet, so the estimated frequencies (which the densities divide by) are 0."
            )
        # AODE's rows: its joint over its own class marginal, here over the top level's;
        # naive Bayes's (no super-parent usable) stay the density they are
        self._aode_shift = np.log(self.class_marginal_) - np.log(marginal)
        self._aode_usable = [
            np.concatenate([F.sum(axis=0) >= self.min_count, [False, False]])
            for F in counts.singles
        ]
        self.class_marginal_ = marginal
        self._averaged = True

    def _level_sets(self) -> list:
        """Per level, top first, its parent sets and their log weights (None: equal):
        the sets of n .. 2 super-parents, or WAODE's informative SPODEs; [] for AODE."""
        d = self._sizes.size
        if self.weighted:
            kept = np.flatnonzero(self.weights_ > 0)
            return [([(int(p),) for p in kept], np.log(self.weights_[kept]))] if kept.size else []
        n = self._check_n(d)
        return [(list(itertools.combinations(range(d), k)), None) for k in range(n, 1, -1)]

    def _level_plans(self) -> list:
        """The lookup plans of the levels (:func:`.averaged_tables.level_plan`), made from
        the counts when first asked for and kept beside the model, never saved (as the
        plans of :mod:`.plans`)."""
        plans = _LEVELS.get(self)
        if plans is None:
            counts, log_class = Counts(self.stats_), np.log(self.class_marginal_)
            plans = [level_plan(self, counts, s, log_class, w) for s, w in self._level_sets()]
            _LEVELS[self] = plans
        return plans

    def class_major_blocks(self, X, *, relative: bool, finish=None):
        self.check_ready()
        if getattr(self, "_averaged", False):
            self._level_plans()  # made once, here, before the worker threads need them
        return super().class_major_blocks(X, relative=relative, finish=finish)

    def _implied_marginal(self, counts, sets, log_weight) -> np.ndarray:
        """``P(y) = sum_{x_S} P(y, x_S)``, averaged (weighted) over the parent sets
        observed in training; the class frequencies where none is."""
        parts, weights = [], []
        for t, S in enumerate(sets):
            F = counts.get(S)
            if F.sum() > 0:
                num, den = joint_parts(F, self.alpha, self.smoothing)
                parts.append(num.reshape(F.shape[0], -1).sum(axis=1) / den)
                weights.append(1.0 if log_weight is None else np.exp(log_weight[t]))
        if not parts:
            return counts.stats.class_weight / counts.stats.class_weight.sum()
        return np.average(parts, axis=0, weights=weights)

    def _term_plans(self) -> list | None:
        # the levels' fall-through ends in AODE shifted per row: reported whole
        return None if getattr(self, "_averaged", False) else super()._term_plans()

    def _class_major(self, X, relative: bool) -> np.ndarray:
        if not getattr(self, "_averaged", False):
            return super()._class_major(X, relative)
        levels = self._level_plans()
        X = self.coerce(X)
        codes = self._codes(X)
        out = np.empty((self.n_classes_, codes.shape[0]))
        todo = np.arange(codes.shape[0])
        for plan in levels:  # n, n - 1, ..., 2 (or WAODE's weighted SPODEs)
            part, used = score(plan, codes[todo], self._sizes)
            done = used > 0
            out[:, todo[done]] = part[:, done]
            todo = todo[~done]
            if todo.size == 0:
                return out
        out[:, todo] = super()._class_major(X[todo], relative)
        spodes = np.zeros(todo.size, dtype=bool)
        for p, usable in enumerate(self._aode_usable):
            spodes |= usable[codes[todo, p]]
        out[:, todo[spodes]] += self._aode_shift[:, None]
        return out

    # ----------------------------------------------------------------- introspection
    def table(self, j: int, parents=()) -> tuple[np.ndarray, np.ndarray]:
        """Counts and probabilities ``P(x_j | c, x_parents)`` of up to n parents."""
        if len(parents) < 2:
            return super().table(j, parents)
        counts = self.stats_.subset([*parents, j])
        return counts, proba(counts, self.alpha, self.backoff, smoothing=self.smoothing)

    def n_parameters(self) -> int:
        """Free parameters of the top level: per parent set S, ``C (prod O_S - 1) +
        sum_{j not in S} C prod O_S (O_j - 1)`` (AODE's for n = 1 and WAODE)."""
        if not getattr(self, "_averaged", False) or self.weighted:
            return super().n_parameters()
        sets = self._level_sets()[0][0]
        sizes, C = self._sizes, self.n_classes_
        free = np.maximum(sizes - 1, 0)
        out = 0
        for S in sets:
            combos = int(np.prod(sizes[list(S)]))
            out += C * max(combos - 1, 0) + C * combos * int(free.sum() - free[list(S)].sum())
        return out

    def sample(self, counts, random_state) -> np.ndarray:
        """Draws per class: a parent set (uniformly; WAODE: by weight), its values from
        ``P(y, x_S)``, then every other attribute given them."""
        if not getattr(self, "_averaged", False):
            return super().sample(counts, random_state)
        sets, log_weight = self._level_sets()[0]
        weights = None if log_weight is None else np.exp(log_weight)
        rng = random_state
        counts = np.asarray(counts, dtype=np.intp)
        codes = np.zeros((int(counts.sum()), self._sizes.size), dtype=np.intp)
        p = None if weights is None else weights / weights.sum()
        which = rng.choice(len(sets), size=codes.shape[0], p=p)
        tables, stats = {}, Counts(self.stats_)
        start = 0
        for c, k in enumerate(counts.tolist()):
            for t in np.unique(which[start : start + k]).tolist():
                rows = start + np.flatnonzero(which[start : start + k] == t)
                S = list(sets[t])
                others = [j for j in range(self._sizes.size) if j not in S]
                if t not in tables:
                    num = joint_parts(stats.get(S), self.alpha, self.smoothing)[0]
                    tables[t] = [num / num.sum(axis=tuple(range(1, num.ndim)), keepdims=True)] + [
                        proba(
                            stats.get([*S, j]), self.alpha, self.backoff, smoothing=self.smoothing
                        )
                        for j in others
                    ]
                joint = tables[t][0][c].ravel()
                cdf = np.cumsum(joint)
                flat = (rng.random(rows.size)[:, None] * cdf[-1] >= cdf).sum(axis=1)
                codes[np.ix_(rows, S)] = np.column_stack(
                    np.unravel_index(flat.clip(max=joint.size - 1), tables[t][0].shape[1:])
                )
                for j, table in zip(others, tables[t][1:], strict=True):
                    self._draw(codes, rows, j, tuple(S), table[c], rng, c)
            start += k
        return self._values(codes, rng)

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: the estimators averaged, their fallbacks and the binning."""
        lines = self._header(feature_names)
        d = len(feature_names)
        n = self._check_n(d)
        if self.weighted:
            shown = ", ".join(
                f"{name} {w:.4g}"
                for name, w in zip(feature_names, self.weights_.tolist(), strict=True)
            )
            lines.append(
                f"  weighs {d} SPODEs by I(X_p; class) in nats (where the super-parent's value "
                f"was seen at least min_count={self.min_count!r} times): {shown}"
            )
        else:
            lines.append(
                f"  averages the SPnDEs of every set of n={n} super-parents whose values were "
                f"seen together at least min_count={self.min_count!r} times; else A(n-1)DE, "
                "down to AODE and naive Bayes"
            )
        relations = getattr(self, "_generalisations", None)
        if relations is not None:
            lines.append(
                f"  subsumption resolution (subsumption={self.subsumption!r}): "
                f"{relations[0].size} value pairs where one generalises the other"
            )
        lines.append(f"  free parameters of the tables: {self.n_parameters():,}")
        return lines
