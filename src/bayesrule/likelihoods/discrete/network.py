"""Semi-naive Bayes over discrete features: each attribute may depend on other attributes.

``P(c | x) ∝ P(c) prod_j P(x_j | c, pa_j)`` (seed 002, eq. 13). The families here share
the pairwise counts of :mod:`~bayesrule.stats.pair_counts` (additive, so
``partial_fit`` adds batches), the Lidstone tables of :mod:`~bayesrule.likelihoods.discrete.cpt`,
the categorical family's unseen-value policy and missing values, and the binning of
continuous columns (:mod:`~bayesrule.likelihoods.discrete.discretize`):

* :class:`~bayesrule.likelihoods.discrete.one_dependence.OneDependence`: SPODE (one super-parent
  for every other attribute) and AODE (Webb, Boughton and Wang 2005: the average of the
  SPODEs in probability space), in ``one_dependence.py``;
* :class:`~bayesrule.likelihoods.discrete.learned.TreeAugmented` (TAN) and
  :class:`~bayesrule.likelihoods.discrete.learned.KDependence` (KDB) in ``learned.py``.

Rows are looked up as codes (:func:`~bayesrule.stats.values.value_codes`): a
value's position, ``O_j`` for a value never seen, ``O_j + 1`` for a missing one.

On a Dask collection (:meth:`DiscreteNetwork.fit_blocks`) the fit passes over the row
blocks: the bins first (each float column's distinct values and their class weights add
up over blocks), then the pair counts, then, for KDB with ``k >= 2``, the counts of the
parent combinations of the structure chosen from them; each pass merges its blocks in a
tree, so the model equals the one fitted in memory.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..._engines.lookup import code_tables, compiled, numeric_codes
from ..._engines.threads import n_threads
from ...stats.pair_counts import PairCounts, count_pairs, encode_table
from ...stats.values import check_unseen, lookup, numeric, value_codes, value_table
from ..base import BLOCK_BYTES, Likelihood, check_alpha
from .binning import Binning, bin_columns
from .cpt import check_backoff, flat_index, proba
from .discretize import check_discretize
from .hdp import check_smoothing
from .plan_terms import staged_terms

#: per fitted family, the lookup plans its tables give (``_make_plan``): derived, so
#: kept beside the model, never in its saved state
_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: per fitted family, :func:`~bayesrule._engines.lookup.code_tables` of its values
#: (derived from ``categories_``, never saved)
_CODE_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class DiscreteNetwork(Binning, Likelihood):
    """What the semi-naive families share: parameters, binning, counts and codes."""

    input_kind = "any"
    title = "semi-naive Bayes"
    #: the tables' smoothing (:mod:`~bayesrule.likelihoods.discrete.hdp`): a family that
    #: takes the parameter stores its own; one that does not has the Lidstone tables
    smoothing = "lidstone"

    coerce = staticmethod(value_table)

    def _check_params(self) -> float:
        check_unseen(self.unseen)
        check_discretize(self.discretize, self.n_bins)
        check_backoff(self.backoff)
        check_smoothing(self.smoothing)
        return check_alpha(self.alpha)

    # ----------------------------------------------------------------- statistics
    def statistics(self, X, y, n_classes, sample_weight=None) -> PairCounts:
        """Pairwise class-conditional counts of the (binned) table."""
        self._check_params()
        y = np.asarray(y, dtype=np.intp)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        categories, codes = encode_table(self._discrete_table(X, y, n_classes, w), w)
        if self._needs_rows(codes.shape[1]):  # counted in _build (_count_rows), let go then
            self._rows = (codes, y, w)
        return count_pairs(categories, codes, y, n_classes, w)

    def _needs_rows(self, n_features: int) -> bool:
        """Whether ``_build`` counts more than the pair counts hold (KDB with k >= 2),
        from the training rows: kept by ``statistics``, or another pass over the blocks."""
        return False

    def _count_rows(self, count, categories) -> dict:
        """``count(codes, y, w)``, a dict of additive arrays, over the training rows as
        codes of ``categories``: the rows ``statistics`` kept, or after ``fit_blocks`` one
        more pass over the blocks, their dicts added up in a tree; {} without either."""
        rows = self.__dict__.pop("_rows", None)
        if rows is None:
            return {}
        if isinstance(rows, tuple):  # (codes, y, w) of statistics
            return count(*rows)
        counted = rows.map_reduce(_block_count, _add_counts, self.bin_edges_, categories, count)
        return {} if counted is None else counted

    def _after_statistics(self, blocks, stats) -> None:
        if self._needs_rows(len(stats.categories)):
            self._rows = blocks  # a third pass, over the blocks, in _build

    def set_statistics(self, stats: PairCounts):
        """Probability tables from the counts (smoothing applied here only)."""
        self._check_params()
        if getattr(self, "bin_edges_", None) is None:  # counts merged from blocks elsewhere
            self.bin_edges_, self._bin_bounds = [None] * len(stats.categories), {}
        self.stats_ = stats
        self.categories_ = list(stats.categories)
        self._sizes = np.array([c.size for c in stats.categories], dtype=np.intp)
        self._indexes = {}
        _PLANS.pop(self, None)
        _CODE_TABLES.pop(self, None)
        self._build(stats)
        return self

    # ----------------------------------------------------------------- scoring
    def _plan(self):
        """The family's lookup plans (:meth:`_make_plan`), made from its fitted tables
        when first asked for (after ``fit``, ``partial_fit`` or loading a file)."""
        plans = _PLANS.get(self)
        if plans is None:
            plans = _PLANS[self] = self._make_plan()
        return plans

    def _make_plan(self):
        """The plans (:mod:`~bayesrule.likelihoods.discrete.plans`) that ``_class_major``
        scores with."""
        raise NotImplementedError

    def class_major_blocks(self, X, *, relative: bool, finish=None):
        self.check_ready()
        if type(self)._make_plan is not DiscreteNetwork._make_plan:
            self._plan()  # made once, here, before the worker threads need it
        return super().class_major_blocks(X, relative=relative, finish=finish)

    def _term_plans(self) -> list | None:
        """The plans whose terms ``log_terms`` reports, tried in order for each row (the
        first with a usable component scores it): the family's own plans (AODE's
        SPODEs, then naive Bayes); None, reported whole, for a family scored otherwise."""
        if type(self)._make_plan is DiscreteNetwork._make_plan:
            return None
        plans = self._plan()
        return list(plans) if isinstance(plans, tuple) else [plans]

    def log_terms(self, X) -> tuple[list[str], np.ndarray]:
        """One term per attribute given its parents (one component), or per attribute
        over the components averaged, with the super-parents' and the averaging's own
        terms (:mod:`.plan_terms`)."""
        self.check_ready()
        plans = self._term_plans()
        if plans is None:
            return super().log_terms(X)
        return staged_terms(plans, self._codes(X), self._sizes)

    def _workers(self, n: int, d: int) -> int:
        """Threads for row blocks: the compiled lookups release the GIL."""
        return n_threads() if compiled() else 1

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
        kept = _CODE_TABLES.get(self)
        if kept is None:  # made once per fitted model (also after loading a file)
            kept = _CODE_TABLES[self] = (code_tables(self.categories_),)
        fast = None if kept[0] is None else numeric_codes(X, None, self.unseen, kept[0])
        if fast is not None and (fast[1] < 0 or self.unseen != "error"):
            return fast[0]
        codes = np.empty(X.shape, dtype=np.intp)
        for j, values in enumerate(self.categories_):  # raises for unseen="error"
            codes[:, j] = value_codes(values, X[:, j], j, self.unseen, self._indexes)
        return codes

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
            if values.size == 0:
                out[:, j] = np.nan if out.dtype.kind == "f" else None
            else:
                out[:, j] = values[codes[:, j]]
        return self._unbin(out, rng)

    def _draw(self, codes, rows, j, parents, table, rng, c) -> None:
        """Draw feature j of ``rows`` of class c from ``table`` (O_pa..., O_j) given parents."""
        if table.shape[-1] == 0:  # never observed in training: comes out missing
            return
        if table.size == 0:  # a parent never observed: the child's own distribution
            table, parents = (
                proba(self.stats_.single(j), self.alpha, smoothing=self.smoothing)[c],
                (),
            )
        p = table.reshape(-1, table.shape[-1])[
            flat_index(codes[rows][:, list(parents)], table.shape[:-1])
        ]
        cdf = np.cumsum(p, axis=1)
        pick = (rng.random(rows.size)[:, None] * cdf[:, -1:] >= cdf).sum(axis=1)
        codes[rows, j] = pick.clip(max=table.shape[-1] - 1)

    def _header(self, feature_names) -> list[str]:
        lines = [
            f"{self.title}, alpha={self.alpha!r}, backoff={self.backoff!r}, "
            f"smoothing={self.smoothing!r}, unseen={self.unseen!r}, "
            f"discretize={self.discretize!r}"
        ]
        return lines + self._bin_lines(feature_names)

    def _describe_structure(self, parents, feature_names) -> list[str]:
        lines = ["  structure (each attribute <- its parents; the class is a parent of all):"]
        for j, pa in enumerate(parents):
            names = ", ".join(["class", *(str(feature_names[p]) for p in pa)])
            lines.append(f"    {feature_names[j]} <- {names}")
        return lines


# ----------------------------------------------------------------- block tasks (Dask)
def _block_count(part, edges, categories, count):
    """``count(codes, y, w)`` of a checked block, its codes those of ``categories`` (the
    values of all the blocks), binned with ``edges``."""
    X, y, w = part
    y = np.asarray(y, dtype=np.intp)
    w = None if w is None else np.asarray(w, dtype=np.float64)
    seen_values, codes = encode_table(bin_columns(value_table(X), edges), w)
    for j, values in enumerate(seen_values):
        seen = codes[:, j] >= 0
        if seen.any():
            codes[seen, j] = lookup(categories[j], values, j)[codes[seen, j]]
    return count(codes, y, w)


def _add_counts(a, b=None):
    if a is None or b is None:
        return b if a is None else a
    return {key: a[key] + b[key] for key in a}
