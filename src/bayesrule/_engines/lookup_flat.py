"""A lookup plan in the form the compiled kernel reads (:mod:`._lookup_kernels`).

:func:`flat_plan` rewrites a :class:`~bayesrule._engines.lookup.Plan` for rows of
given column sizes, without changing what it computes:

* every term indexes a row's *keys* ``[codes, slots, 0]`` (2d + 1 per row: code j at
  j, slot j at d + j, the 0 that padding terms read);
* the terms every factor of a component shares (same column, kind and multiplier: the
  super-parents of an AnDE component laid out outermost in its tables) are taken out
  and summed once per row and component;
* each factor's cell is its component's base + the shared terms + a *partial cell*
  (its own terms plus its base's offset from the component's base); factors of
  different components with the same partial cell (AODE's child j in every SPODE whose
  tables lie at the same offsets) share it, so a row computes each once;
* the kernel reads a factor *direct* (its component's base + offset + C times the row's
  code) where every factor's own term is one code of multiplier 1, unless the partial
  cells are shared (at most half as many as the factors: AODE's SPODEs) and the tables
  small (:data:`CACHED_TABLES`), where each lookup reads a partial cell the row
  computed once;
* offsets and multipliers are in doubles (times C), unsigned;
* every cell a valid row can reach is checked to lie inside the tables (the kernel does
  not check its reads), and the rows per block are chosen from the sizes of the tables
  and of the per-row work (:func:`block_rows`).
"""

from __future__ import annotations

import weakref

import numpy as np

#: per plan, its kernel forms by column sizes: derived, so kept beside the plan (a plan a
#: model holds is saved with it; these never are)
_FLAT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: per-row arrays of one block (keys, partial cells, sums) take at most about this many bytes
ROW_BYTES = 1 << 21
#: the component scores of one group of components in a block take at most this many bytes
GROUP_BYTES = 1 << 21
#: tables of at most this many bytes in all stay in cache from block to block: where the
#: factors share partial cells (at most half as many), the kernel reads those (fewer
#: loads a lookup, more bytes a row); larger tables are read direct (more rows a block,
#: each table read from memory fewer times: A2DE's 70 MB)
CACHED_TABLES = 1 << 21
#: a block has at least enough rows to read each component's tables about this many
#: times over in lookups (each table is brought into cache once per block)
TABLE_REUSE = 4


def flat_plan(plan, sizes: np.ndarray) -> tuple:
    """The kernel's tuple for ``plan`` and columns of ``sizes`` (kept on the plan).

    ``(table, C, starts, factor partials, component bases, shared columns, shared
    multipliers, partial columns, partial multipliers, partial offsets, gate bases,
    gate columns, gate multipliers, gate values, their logs, log weights, plain, rows
    per block, components per group, direct, factor columns, factor offsets, narrow)``:
    ``narrow`` where a row's keys fit in 16 bits; with
    ``direct`` a factor's cell is its component's base + its offset + C times the row's
    key of its term (a code, or the 0 of none), else its component's base + its partial
    cell.
    """
    key = tuple(sizes.tolist())
    kept = _FLAT.setdefault(plan, {})
    if key in kept:
        return kept[key]
    d = sizes.size
    none = 2 * d
    T = plan.n_components
    C = plan.table.shape[1]
    factors, starts = plan.factors, np.asarray(plan.starts, dtype=np.intp)
    F = factors.base.size
    if starts.size < 1 or starts[0] != 0 or starts[-1] != F or (np.diff(starts) < 0).any():
        raise ValueError("the plan's starts do not split its factors into components")
    col, mult = terms(factors, d)
    owner = np.repeat(np.arange(T), np.diff(starts))
    scol, smult = _shared(col, mult, starts, none)
    col, mult = _packed(col, mult, none)
    spans = zip(starts[:-1], starts[1:], strict=True)
    cbase = np.array([factors.base[a:b].min() if b > a else 0 for a, b in spans], dtype=np.intp)
    rel = factors.base - cbase[owner] if F else np.zeros(0, dtype=np.intp)
    rows = np.column_stack([rel, col, mult]) if F else np.zeros((0, 1 + 2 * col.shape[1]))
    unique, fidx = np.unique(rows.astype(np.intp), axis=0, return_inverse=True)
    K = col.shape[1]
    poff, pcol, pmult = unique[:, 0], unique[:, 1 : 1 + K], unique[:, 1 + K :]
    top = np.concatenate([sizes + 1, sizes, [0]])  # the largest key of each kind
    reach = cbase[owner] + _reach(scol, smult, top)[owner] + rel + _reach(col, mult, top)
    if F and reach.max() >= plan.table.shape[0]:
        raise ValueError("the plan's factors reach cells outside its table")
    gbase, gcol, gmult, gval = _gates(plan, d, top)
    logw = np.zeros(T) if plan.log_weight is None else np.asarray(plan.log_weight, float)
    if logw.shape != (T,):
        raise ValueError(f"the plan's log weights have shape {logw.shape}, not ({T},)")
    u = lambda a: np.ascontiguousarray(a, dtype=np.uint64)  # noqa: E731
    table = np.ascontiguousarray(plan.table, dtype=np.float64).reshape(-1)
    # direct: every factor's own term a code of multiplier 1 (AnDE's children) or none
    # (its heads): its cell the row's code times C plus a constant, no partial cells
    own = col[:, 0] if F else np.zeros(0, dtype=np.intp)
    narrow = int(sizes.max(initial=0)) + 1 < 2**16  # a row's keys in 16 bits
    direct = bool(
        F
        and col.shape[1] == 1
        and np.all((own == none) | ((own < d) & (mult[:, 0] == 1)))
        and narrow
        and not (2 * unique.shape[0] <= F and plan.table.nbytes <= CACHED_TABLES)
    )
    if direct:  # the partial cells are not used
        unique, pcol, pmult, poff = unique[:0], pcol[:0], pmult[:0], poff[:0]
    # the keys (16 bits where narrow), partial cells and the sums: the more rows per
    # block, the more rarely each table is read
    per_row = (2 if narrow else 8) * (none + 1) + 8 * (unique.shape[0] + 6 * C + 1)
    rows = block_rows(plan.table.shape[0], F, per_row)
    flat = (
        table,
        C,
        u(starts),
        u(fidx.reshape(-1)),
        u(cbase * C),
        u(scol),
        u(smult * C),
        u(pcol),
        u(pmult * C),
        u(poff * C),
        u(gbase),
        u(gcol),
        u(gmult),
        gval,
        np.log(gval, out=np.full(gval.shape, -np.inf), where=gval > 0),
        logw,
        T == 1 and plan.gates is None,
        rows,
        max(1, min(T, GROUP_BYTES // (8 * C * rows))),
        direct,
        u(own),
        u(rel * C),
        narrow,
    )
    kept[key] = flat
    return flat


def block_rows(cells: int, factors: int, per_row: int) -> int:
    """Rows per block: as many as :data:`ROW_BYTES` of per-row arrays allow, and at
    least enough that the lookups read each component's tables :data:`TABLE_REUSE`
    times over (a table comes into cache once per block); 64 to 16384."""
    reuse = TABLE_REUSE * cells / max(factors, 1)
    return int(np.clip(max(ROW_BYTES // per_row, reuse), 64, 16384))


def terms(factors, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Each term's key position (code j: j, slot j: d + j, none: 2d) and multiplier;
    ValueError for a column beyond ``d`` or a negative base or multiplier."""
    if (factors.cols >= d).any() or (factors.mults < 0).any() or (factors.base < 0).any():
        raise ValueError(f"a plan's factors need columns below {d} and bases, multipliers >= 0")
    on = factors.cols >= 0
    col = np.where(on, factors.cols + d * factors.parent, 2 * d).astype(np.intp)
    return col, np.where(on, factors.mults, 0).astype(np.intp)


def _shared(col, mult, starts, none) -> tuple[np.ndarray, np.ndarray]:
    """Per component the terms all its factors have (taken out of ``col``, ``mult`` in
    place: set to padding), as (T, S) columns and multipliers."""
    shared = []
    for a, b in zip(starts[:-1], starts[1:], strict=True):
        found = []
        for k in range(col.shape[1] if b - a > 1 else 0):
            term = (col[a, k], mult[a, k])
            hits = (col[a:b] == term[0]) & (mult[a:b] == term[1])
            if term[0] != none and hits.any(axis=1).all():
                found.append(term)
                first = hits.argmax(axis=1)  # out of each factor once
                col[np.arange(a, b), first] = none
                mult[np.arange(a, b), first] = 0
        shared.append(found)
    width = max([len(s) for s in shared] + [1])
    scol = np.full((len(shared), width), none, dtype=np.intp)
    smult = np.zeros((len(shared), width), dtype=np.intp)
    for t, found in enumerate(shared):
        for k, (c, m) in enumerate(found):
            scol[t, k], smult[t, k] = c, m
    return scol, smult


def _packed(col, mult, none) -> tuple[np.ndarray, np.ndarray]:
    """Each factor's terms first, padding last, as few columns as the most terms."""
    order = np.argsort(col == none, axis=1, kind="stable")
    col, mult = np.take_along_axis(col, order, 1), np.take_along_axis(mult, order, 1)
    width = max(int((col != none).sum(axis=1).max(initial=0)), 1)
    return col[:, :width], mult[:, :width]


def _reach(col, mult, top) -> np.ndarray:
    """The largest sum of each row's terms (keys at most ``top``), in floats (no
    wrap-around: a sum beyond any table is refused)."""
    return (top[col] * mult.astype(np.float64)).sum(axis=1)


def _gates(plan, d: int, top) -> tuple:
    """Gate bases, columns, multipliers and the gate table (ones without gates)."""
    T = plan.n_components
    if plan.gates is None:
        col = np.full((T, 1), 2 * d, dtype=np.intp)
        return np.zeros(T, dtype=np.intp), col, np.zeros((T, 1), dtype=np.intp), np.ones(1)
    gates = plan.gates
    if gates.base.shape != (T,):
        raise ValueError(f"the plan has {gates.base.size} gate factors for {T} components")
    col, mult = terms(gates, d)
    values = np.ascontiguousarray(plan.gate_table, dtype=np.float64).reshape(-1)
    if T and (gates.base + _reach(col, mult, top)).max() >= values.size:
        raise ValueError("the plan's gates reach cells outside its gate table")
    if np.isnan(values).any() or (values < 0).any():
        raise ValueError("the plan's gate values must be numbers >= 0")
    return gates.base.astype(np.intp), col, mult, values
