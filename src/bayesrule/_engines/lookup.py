"""Scoring by table lookup: the log-joint of a semi-naive model over encoded rows.

Every semi-naive model (SPODE, AODE, AnDE, TAN, KDB, selective KDB) scores a row the
same way. It is a list of *components* (one per super-parent set for AnDE, one network
for TAN and KDB); a component's score of a row for class c is a sum of *factors*, each
a lookup in one flat log-table ``table`` of shape (cells, C) at the cell

    base_f + sum_k key(row, cols_fk) * mults_fk,

where a column's key is its code (0 .. O_j - 1 a value seen in training, O_j one never
seen, O_j + 1 missing) or, for a factor term marked ``parent``, its *slot*:
``min(code, O_j)`` (the slot O_j meaning "this parent is unavailable"). A column index
of -1 ends a factor's terms. The components are averaged in probability space,

    out(c, row) = ln( sum_t w_t g_t(row) exp(s_t(c, row)) / sum_t w_t g_t(row) ),

``w_t = exp(log_weight_t)`` and ``g_t(row) >= 0`` a per-row gate looked up the same way
in ``gate_table`` (one gate factor per component; AODE's is 1 where the super-parent's
value was seen ``min_count`` times, else 0). With one component and no gate the output
is the sum itself. :func:`score` returns it with the gate sum per row; a row whose gates
are all 0 gets -inf there and the caller gives it a fallback (naive Bayes).

:func:`score` works on row blocks of bounded memory. With numba installed (and not
``BAYESRULE_NO_NUMBA=1``) a compiled kernel (:mod:`._lookup_kernels`, on the plan's
form of :mod:`.lookup_flat`) scores the blocks in :func:`~.threads.n_threads` threads,
releasing the GIL; the NumPy reference (:func:`score_reference`) otherwise, and for
fewer than :data:`COMPILED_FROM` lookups. Both give the same numbers to rounding
(``tests/engines/test_lookup_kernel.py``). Lay a component's table out with its shared
parents outermost, as AnDE's are: the kernel then sums their terms once per row, and
reads a factor with one code of its own as offset + C times the code (SIMD over up to
four classes). A plan is compared by identity; the kernel's form of it is kept beside it
(never in a model file), so build a plan once per fitted model, not per call.

Examples
--------
>>> import numpy as np
>>> table = np.log([[0.5, 0.2], [0.5, 0.8], [1.0, 1.0], [1.0, 1.0]])  # (O + 2, C) cells
>>> plan = Plan(table, Factors.build([(0, [(0, 1, False)])]), np.array([0, 1]))
>>> out, used = score(plan, np.array([[0], [1], [3]]), np.array([2]))
>>> np.exp(out).round(2)  # classes x rows: value 0, value 1, missing (drops out)
array([[0.5, 0.5, 1. ],
       [0.2, 0.8, 1. ]])
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

import numpy as np

from .lookup_flat import flat_plan
from .threads import in_order, n_threads

#: the NumPy reference's temporaries per row block take about this many bytes (as
#: ``bayesrule._blocks.BLOCK_BYTES``, which this lowest layer does not import)
BLOCK_BYTES = 1 << 23
#: set to "1" to score with the NumPy reference even where numba is installed
DISABLE_ENV = "BAYESRULE_NO_NUMBA"
#: fewer lookups (rows x factors) than this go through NumPy: no compilation (seconds,
#: once per machine) for a few rows
COMPILED_FROM = 50_000


@dataclass(frozen=True)
class Factors:
    """Where factors look up: per factor its base cell and up to K (column, multiplier,
    parent?) terms, ``cols`` -1 where a factor has fewer."""

    base: np.ndarray  # (F,) intp
    cols: np.ndarray  # (F, K) intp, -1: no term
    mults: np.ndarray  # (F, K) intp
    parent: np.ndarray  # (F, K) bool: the term keys on the slot, not the code

    @classmethod
    def build(cls, rows) -> Factors:
        """From a list of ``(base, [(col, mult, parent), ...])``."""
        K = max([len(terms) for _, terms in rows] + [1])
        F = len(rows)
        cols = np.full((F, K), -1, dtype=np.intp)
        mults = np.zeros((F, K), dtype=np.intp)
        parent = np.zeros((F, K), dtype=bool)
        base = np.zeros(F, dtype=np.intp)
        for f, (b, terms) in enumerate(rows):
            base[f] = b
            for k, (col, mult, is_parent) in enumerate(terms):
                cols[f, k], mults[f, k], parent[f, k] = col, mult, is_parent
        return cls(base, cols, mults, parent)

    def cells(self, codes: np.ndarray, slots: np.ndarray, which: slice | np.ndarray) -> np.ndarray:
        """The cells (rows, F') of the factors ``which`` for encoded rows."""
        base, cols = self.base[which], self.cols[which]
        mults, parent = self.mults[which], self.parent[which]
        out = np.broadcast_to(base, (codes.shape[0], base.size)).copy()
        for k in range(cols.shape[1]):
            col = cols[:, k]
            on = col >= 0
            if not on.any():
                continue
            keys = np.where(parent[on, k], slots[:, col[on]], codes[:, col[on]])
            out[:, on] += keys * mults[on, k]
        return out


@dataclass(frozen=True, eq=False)  # compared by identity: the kernel's forms are kept per plan
class Plan:
    """A semi-naive model ready to score: tables, factors and components."""

    table: np.ndarray  # (cells, C) float64 log-values
    factors: Factors
    starts: np.ndarray  # (T + 1,) intp: component t owns factors starts[t]:starts[t + 1]
    log_weight: np.ndarray | None = None  # (T,); None: equal weights
    gates: Factors | None = None  # one factor per component, into gate_table
    gate_table: np.ndarray | None = None  # (gate cells,) float64 >= 0

    @property
    def n_components(self) -> int:
        return self.starts.size - 1


def slots_of(codes: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Parent slots of the codes: ``min(code, O_j)``."""
    return np.minimum(codes, sizes)


@cache
def _kernel_module():
    """The compiled kernels' module, or None without numba (imported on first use)."""
    try:
        from . import _lookup_kernels
    except ImportError:
        return None
    return _lookup_kernels


def _kernel():
    module = _kernel_module()
    return None if module is None else module.score_rows


def compiled(work: int | None = None) -> bool:
    """Whether :func:`score` runs the numba kernel (installed, not disabled), for
    ``work`` lookups if given (fewer than :data:`COMPILED_FROM` take NumPy)."""
    if work is not None and work < COMPILED_FROM:
        return False
    return os.environ.get(DISABLE_ENV, "") != "1" and _kernel() is not None


def score(plan: Plan, codes: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(out, gate_sum)``: the averaged log-score (C, n) class-major, and per row the sum
    of its gates' weights (0: no component usable; ``out`` is -inf there). One component
    without gates: the sum of its factors, gate_sum 1.

    With numba the kernel of :mod:`._lookup_kernels` scores row blocks in
    :func:`~bayesrule._engines.threads.n_threads` threads (one, called from a worker
    thread); the NumPy reference otherwise (equal to rounding)."""
    codes = np.asarray(codes)
    sizes = np.asarray(sizes, dtype=np.intp)
    n = codes.shape[0]
    C = plan.table.shape[1]
    if not compiled(n * max(plan.factors.base.size, 1)):
        return score_reference(plan, codes, sizes)
    codes = np.ascontiguousarray(codes, dtype=np.intp)
    if codes.ndim != 2 or codes.shape[1] != sizes.size:
        raise ValueError(f"codes must have shape (n, {sizes.size}), got {codes.shape}")
    flat = flat_plan(plan, sizes)
    rows = flat[17]
    out, used = np.empty((C, n)), np.empty(n)
    kernel = _kernel()
    workers = n_threads()
    step = max(rows, -(-n // (4 * workers)))
    parts = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
    run = lambda part: kernel(codes, sizes, part[0], part[1], flat, out, used)  # noqa: E731
    valid = [ok for _, ok in in_order(run, parts, min(workers, len(parts)))]
    if not all(valid):  # checked in the kernel: each code within its column's table
        raise ValueError("codes must lie in 0 .. O_j + 1 (a value, unseen, missing)")
    return out, used


def code_tables(categories) -> tuple | None:
    """What :func:`numeric_codes` needs of the values ``categories`` of each column (the
    values as float64, and the tables by value where every column is of few integers),
    made once per fitted model by its caller; None where some column's values are not
    numbers (the kernel does not apply)."""
    if not categories or any(c.dtype.kind not in "biuf" for c in categories):
        return None
    values = [np.asarray(c, dtype=np.float64) for c in categories]
    return values, _by_value(values)


def numeric_codes(X, categories, unseen: str, tables=None) -> tuple[np.ndarray, int] | None:
    """The codes (n, d) of a numeric table's rows and the flat position of its first value
    never seen in training (-1: none), as :func:`bayesrule.stats.values.value_codes`
    gives them column by column (``unseen`` "smooth": ``O_j``, else ``O_j + 1``), in one
    compiled pass; None where the kernel does not apply (no numba, a column of other
    values, integers beyond 2**53). Columns of a few integers (bins, small codes) are
    looked up in a table by value, others searched. ``tables``: :func:`code_tables` of
    ``categories``, when the caller keeps them (made here otherwise)."""
    X = np.asarray(X)
    if X.dtype.kind not in "biuf" or not compiled(X.size):
        return None
    tables = code_tables(categories) if tables is None else tables
    if tables is None:
        return None
    values, dense = tables
    if X.dtype not in (np.int64, np.float64) or not X.flags.c_contiguous:
        X = np.ascontiguousarray(X, dtype=np.float64)
    codes = np.empty(X.shape, dtype=np.intp)
    kernels = _kernel_module()
    if dense is not None:
        first = kernels.dense_codes(X, *dense, int(unseen != "smooth"), codes)
        return codes, int(first)
    flat = np.concatenate(values)
    if np.abs(flat).max(initial=0) >= 2.0**53 or (
        X.dtype.kind in "iu" and np.abs(X).max(initial=0) >= 2**53
    ):
        return None
    starts = np.concatenate([[0], np.cumsum([c.size for c in values])]).astype(np.intp)
    first = kernels.value_codes(X, flat, starts, int(unseen != "smooth"), codes)
    return codes, int(first)


#: a column whose values are integers spanning at most this many is looked up by value
DENSE_SPAN = 4096


def _by_value(values) -> tuple | None:
    """Tables from value to code for columns of integers (below 2**52) spanning at most
    :data:`DENSE_SPAN`: per column the lowest value, the span, the table's start, the
    number of values, and the tables (-1: not a value seen); None for other columns."""
    lows, spans = np.zeros(len(values)), np.zeros(len(values), dtype=np.intp)
    for j, v in enumerate(values):
        if v.size == 0:
            continue
        if not (np.abs(v).max() < 2.0**52 and np.array_equal(v, np.round(v))):
            return None
        lows[j], spans[j] = v[0], int(v[-1] - v[0])
        if spans[j] > DENSE_SPAN:
            return None
    starts = np.concatenate([[0], np.cumsum(spans + 1)]).astype(np.intp)
    table = np.full(int(starts[-1]), -1, dtype=np.intp)
    for j, v in enumerate(values):
        table[starts[j] + (v - lows[j]).astype(np.intp)] = np.arange(v.size)
    sizes = np.array([v.size for v in values], dtype=np.intp)
    return lows, spans, starts, sizes, table


def score_reference(plan: Plan, codes, sizes) -> tuple[np.ndarray, np.ndarray]:
    """:func:`score` in NumPy, row block by row block (the reference)."""
    n = codes.shape[0]
    C = plan.table.shape[1]
    out = np.empty((C, n))
    used = np.empty(n)
    step = max(256, BLOCK_BYTES // (8 * C * max(plan.factors.base.size, 1) * 2))
    for start in range(0, n, step):
        part = slice(start, min(n, start + step))
        out[:, part], used[part] = _score_block(plan, codes[part], slots_of(codes[part], sizes))
    return out, used


def _score_block(plan: Plan, codes, slots) -> tuple[np.ndarray, np.ndarray]:
    rows = codes.shape[0]
    C = plan.table.shape[1]
    T = plan.n_components
    weights = np.zeros(rows) if plan.log_weight is None else None
    if T == 1 and plan.gates is None:
        cells = plan.factors.cells(codes, slots, slice(plan.starts[0], plan.starts[1]))
        return plan.table[cells].sum(axis=1).T, np.ones(rows)
    best = np.full((C, rows), -np.inf)
    total = np.zeros((C, rows))
    gate_sum = np.zeros(rows)
    for t in range(T):
        cells = plan.factors.cells(codes, slots, slice(plan.starts[t], plan.starts[t + 1]))
        s = plan.table[cells].sum(axis=1).T  # (C, rows)
        w = 0.0 if weights is not None else plan.log_weight[t]
        if plan.gates is not None:
            g = plan.gate_table[plan.gates.cells(codes, slots, slice(t, t + 1))[:, 0]]
        else:
            g = np.ones(rows)
        on = g > 0
        if not on.any():
            continue
        with np.errstate(divide="ignore"):
            s = np.where(on, s + w + np.log(np.where(on, g, 1.0)), -np.inf)
        gate_sum += np.exp(w) * g
        top = np.maximum(best, s)
        finite = np.isfinite(top)
        safe = np.where(finite, top, 0.0)
        with np.errstate(invalid="ignore", under="ignore"):
            total = total * np.exp(np.where(finite, best - safe, 0.0)) + np.exp(s - safe)
        best = np.where(finite, top, best)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = best + np.log(total) - np.log(gate_sum)
    out[:, gate_sum <= 0] = -np.inf
    return out, gate_sum
