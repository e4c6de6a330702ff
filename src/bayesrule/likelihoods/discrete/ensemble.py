"""An ensemble of selective KDBs (ESKDB, Zhang, Petitjean and Buntine 2020).

Each member is a :class:`~bayesrule.likelihoods.discrete.selective.SelectiveKDependence`
on its own stochastic MDL discretisation of the binned columns and its own attribute
order drawn by mutual information (:mod:`~bayesrule.likelihoods.discrete.random_cuts`),
its attributes and k chosen by leave-one-out. The members' passes over the data are
shared: one for the columns' distinct values (when ``discretize`` bins), one for every
member's pair counts, one for their parent combinations, one for their leave-one-out
scores; in memory as over the blocks of a Dask collection, so the two fits are equal for
the same ``random_state``. In memory the members' work in each pass runs on bayesrule's
own threads (``n_jobs``).

The members' class-conditional likelihoods ``p_m(x | c)`` (each over its own bins) are
combined as posteriors: each normalised over the classes, ``r_m(c | x) = p_m(x | c) /
sum_c' p_m(x | c')``, and averaged,

    p(x | c) = g(x) (1/M) sum_m r_m(c | x),    g(x) = (1/M) sum_m sum_c' p_m(x | c'),

so that under uniform priors the posterior is exactly the average of the members'
posteriors, and under any prior ``pi`` it is ``pi(c) (1/M) sum_m r_m(c | x)`` normalised
(the prior applied once to the average; the paper averages members that each apply the
class frequencies). The likelihood does not depend on the class frequencies, so a row
with every feature missing changes nothing but the prior.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import logsumexp

from ..._blocks import Blocks
from ..._engines.threads import in_order, n_threads
from ...stats.values import value_table
from ..base import BLOCK_BYTES, Likelihood
from .binning import _block_columns, _block_statistics, _merge_columns
from .network import _add_counts, _block_count
from .random_cuts import random_mdl_cuts, sampled_order
from .selective import STAGED, SelectiveKDependence
from .structure import class_information

EMPTY = "X has no rows: every block of the Dask collection is empty."


class SelectiveEnsemble(Likelihood):
    """ESKDB: ``n_estimators`` selective KDBs on random bins and orders, averaged.

    Parameters
    ----------
    n_estimators : int, default=5
        The members (>= 1).
    k_max, criterion, alpha, unseen, discretize, n_bins, backoff, smoothing
        Each member's, as in :class:`SelectiveKDependence`. Under ``discretize="auto"`` or
        ``"mdl"`` each member draws its own cut points of the binned columns;
        ``"quantile"`` bins are the same in every member.
    random_state : None, int, numpy Generator or RandomState, default=None
        The seed of the members' cut points and orders.
    n_jobs : None, -1 or int >= 1, default=None
        Threads for the members' work in memory; None and -1: bayesrule's thread count
        (:func:`~bayesrule._engines.threads.n_threads`).
    """

    input_kind = "any"
    title = "ensemble of selective k-dependence Bayes"
    coerce = staticmethod(value_table)

    def __init__(
        self,
        n_estimators=5,
        k_max=5,
        criterion="rmse",
        random_state=None,
        n_jobs=None,
        alpha=1.0,
        unseen="smooth",
        discretize=None,
        n_bins=5,
        backoff=5.0,
        smoothing="lidstone",
    ):
        self.n_estimators = n_estimators
        self.k_max = k_max
        self.criterion = criterion
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.alpha = alpha
        self.unseen = unseen
        self.discretize = discretize
        self.n_bins = n_bins
        self.backoff = backoff
        self.smoothing = smoothing

    # ----------------------------------------------------------------- parameters
    def _member(self) -> SelectiveKDependence:
        names = ("k_max", "criterion", "alpha", "unseen", "discretize", "n_bins", "backoff")
        return SelectiveKDependence(
            **{name: getattr(self, name) for name in names}, smoothing=self.smoothing
        )

    def _check_params(self) -> int:
        M = self.n_estimators
        if isinstance(M, (bool, np.bool_)) or not isinstance(M, numbers.Integral):
            raise TypeError(f"n_estimators must be an integer >= 1, got {M!r}")
        if M < 1:
            raise ValueError(
                f"n_estimators={M!r}: an ensemble needs at least one member (n_estimators >= 1)"
            )
        jobs = self.n_jobs
        if jobs is not None and (
            isinstance(jobs, (bool, np.bool_))
            or not isinstance(jobs, numbers.Integral)
            or (jobs < 1 and jobs != -1)
        ):
            raise ValueError(f"n_jobs must be None, -1 or an integer >= 1, got {jobs!r}")
        _entropy(self.random_state, peek=True)
        self._member()._check_params()
        return int(M)

    def _member_threads(self) -> int:
        """Threads for the members' work in memory (``n_jobs``), at most one per member."""
        jobs = self.n_jobs
        wanted = n_threads() if jobs is None or jobs == -1 else int(jobs)
        return max(1, min(int(self.n_estimators), wanted))

    def blockwise_reason(self) -> str | None:  # fit_blocks: the members' passes
        return "ESKDB's members learn bins, counts and selections in passes over the data"

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        raise NotImplementedError(
            "ESKDB chooses each member's attributes and k by leave-one-out over all the "
            "data; use fit."
        )

    # ----------------------------------------------------------------- fit
    def fit(self, X, y, n_classes, sample_weight=None):
        """The passes of :meth:`fit_blocks` over the rows in memory, as one block."""
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        return self.fit_blocks(_InMemory([(X, np.asarray(y, dtype=np.intp), w)]), n_classes)

    def fit_blocks(self, blocks, n_classes):
        """Fit on row blocks (a :class:`~bayesrule._blocks.Blocks` of ``(X, y, w)``): the
        passes of the module docstring, every member's work in each."""
        M = self._check_params()
        rngs = [np.random.default_rng(s) for s in _entropy(self.random_state).spawn(M)]
        members = [self._member() for _ in range(M)]
        workers = self._member_threads()
        if self.discretize is not None:
            summary = blocks.map_reduce(_block_columns, _merge_columns, n_classes, self.discretize)
            if summary is None:
                raise ValueError(EMPTY)
            probe = self._member()
            probe._bins_from(summary)  # which columns are binned; continuous ones refused
            for member, rng in zip(members, rngs, strict=True):
                member.bin_edges_ = _random_edges(probe, summary, rng)
                member._bin_bounds = dict(probe._bin_bounds)
        stats = blocks.map_reduce(_members_statistics, _each(_merge), members, n_classes, workers)
        if stats is None:
            raise ValueError(EMPTY)
        for member, part in zip(members, stats, strict=True):
            member._rows = STAGED
            member.set_statistics(part)

        def structure(pair):
            member, rng = pair
            order = sampled_order(class_information(member.stats_), rng)
            return member._plan_structure(member.stats_, order)

        pairs = zip(members, rngs, strict=True)
        counts = self._pass(blocks, members, in_order(structure, pairs, workers))
        pairs = zip(members, counts, strict=True)
        scorers = in_order(lambda mc: mc[0]._plan_scoring(mc[1]), pairs, workers)
        losses = self._pass(blocks, members, scorers)
        for member, loss in zip(members, losses, strict=True):
            member._finish(loss)
        self.members_ = members
        self.n_features_ = len(members[0].categories_)
        return self

    def _pass(self, blocks, members, functions) -> list:
        """One pass over the blocks: each member's ``function(codes, y, w)`` over its
        encoding of the rows, added up."""
        jobs = [
            (m.bin_edges_, m.stats_.categories, f)
            for m, (_, f) in zip(members, functions, strict=True)
        ]
        workers = self._member_threads()
        out = blocks.map_reduce(_members_count, _each(_add_counts), jobs, workers)
        return [{} for _ in jobs] if out is None else out

    # ----------------------------------------------------------------- evaluation
    @property
    def n_classes_(self) -> int:
        return self.members_[0].n_classes_

    def _row_block(self, n_features: int) -> int:
        return max(
            64, BLOCK_BYTES // (16 * self.n_classes_ * len(self.members_) * (n_features + 1))
        )

    def _class_major(self, X, relative: bool) -> np.ndarray:
        scores = np.stack([m._class_major(X, False) for m in self.members_])  # (M, C, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = logsumexp(scores, axis=1, keepdims=True)  # ln sum_c p_m(x | c)
            usable = np.isfinite(z)  # a member that finds the row impossible: left out
            shares = np.where(usable, scores - np.where(usable, z, 0.0), -np.inf)
            out = logsumexp(shares, axis=0) - np.log(usable[:, 0].sum(axis=0))
            if not relative:
                out = out + logsumexp(z[:, 0], axis=0) - np.log(len(self.members_))
        out[:, ~usable.any(axis=(0, 1))] = -np.inf
        out[:, (scores == 0).all(axis=(0, 1))] = 0.0  # every feature missing: exactly 1
        return out

    # ----------------------------------------------------------------- inspection
    def n_parameters(self) -> int:
        """The members' free parameters, summed."""
        return sum(m.n_parameters() for m in self.members_)

    def sample(self, counts, random_state):
        raise NotImplementedError(
            "ESKDB averages the members' posteriors: its class-conditional density "
            "(the average of normalised likelihoods) has no sampler; sample a member's SKDB."
        )

    def describe(self, classes, feature_names) -> list[str]:
        lines = [
            f"{self.title}: {len(self.members_)} members, k_max={self.k_max!r}, "
            f"criterion={self.criterion!r}, alpha={self.alpha!r}, backoff={self.backoff!r}, "
            f"smoothing={self.smoothing!r}, discretize={self.discretize!r}"
        ]
        for i, m in enumerate(self.members_):
            names = ", ".join(str(feature_names[j]) for j in m.selected_.tolist()) or "none"
            bins = sum(e.size + 1 for e in m.bin_edges_ if e is not None)
            lines.append(
                f"  member {i}: {m.n_selected_} attributes, k = {m.k_}, {bins} bins "
                f"of the binned columns: {names}"
            )
        lines.append(f"  free parameters of the tables: {self.n_parameters():,}")
        return lines

    def check_state(self, n_classes: int, n_features: int) -> None:
        """As the base class, and each member checked as a selective KDB of its own."""
        super().check_state(n_classes, n_features)
        members = self.members_
        if not (
            isinstance(members, list)
            and len(members) == self.n_estimators
            and all(type(m) is SelectiveKDependence for m in members)
        ):
            raise ValueError(f"members_ is not a list of {self.n_estimators} selective KDBs")
        for m in members:
            m.check_state(n_classes, n_features)


class _InMemory(Blocks):
    """The rows in memory as the one block of :meth:`SelectiveEnsemble.fit_blocks`."""

    def map_reduce(self, function, merge, *args):
        return function(self.parts[0], *args)

    def __iter__(self):
        yield self.parts[0]


def _entropy(random_state, peek: bool = False) -> np.random.SeedSequence:
    """The seed sequence of ``random_state`` (None: fresh entropy; an int; a numpy
    Generator or RandomState, drawn from unless ``peek``), or a TypeError/ValueError."""
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be None or an integer >= 0, got {random_state}")
        return np.random.SeedSequence(int(random_state))
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(0 if peek else int(random_state.integers(2**63)))
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(0 if peek else int(random_state.randint(2**31)))
    raise TypeError(
        f"random_state must be None, an integer or a numpy Generator/RandomState, got "
        f"{random_state!r}"
    )


def _random_edges(probe, summary, rng) -> list:
    """A member's cut points: the binned columns of ``probe`` (by its ``discretize``)
    cut at random (MDL; "quantile" keeps the probe's cuts)."""
    edges = list(probe.bin_edges_)
    if probe.discretize == "quantile":
        return edges
    for j, cuts in enumerate(edges):
        if cuts is not None:
            u, table = summary[j][3]
            edges[j] = random_mdl_cuts(u, table, rng)
    return edges


# ----------------------------------------------------------------- block tasks
def _members_statistics(part, members, n_classes, workers):
    """Every member's pair counts of a block (each its own bins)."""
    work = lambda m: _block_statistics(part, m, n_classes)  # noqa: E731
    return [stats for _, stats in in_order(work, members, workers)]


def _members_count(part, jobs, workers):
    """Every member's ``count(codes, y, w)`` of a block (each its own bins and values)."""
    work = lambda job: _block_count(part, *job)  # noqa: E731
    return [out for _, out in in_order(work, jobs, workers)]


def _merge(a, b):
    return a.merge(b)


class _each:
    """Merge two lists (or None) item by item with ``merge``."""

    def __init__(self, merge):
        self.merge = merge

    def __call__(self, a, b=None):
        if a is None or b is None:
            return b if a is None else a
        return [self.merge(x, y) for x, y in zip(a, b, strict=True)]
