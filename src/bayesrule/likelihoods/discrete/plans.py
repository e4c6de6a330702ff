"""The lookup plans of SPODE, AODE, TAN and KDB, derived from their fitted tables.

Every semi-naive family scores encoded rows through
:func:`bayesrule._engines.lookup.score`. The plans here are made from the tables a
fitted model holds (and a model file saves, checked against its statistics on load):
never saved themselves, they are derived again where they are needed
(:meth:`~bayesrule.likelihoods.discrete.network.DiscreteNetwork._plan`).

* :func:`spode_plan`: a component per SPODE, laid out as AnDE's levels are
  (:mod:`~bayesrule.likelihoods.discrete.averaged_tables`): per slot of the super-parent
  p (a value, or "unavailable") one row of cells, ``ln P(y, x_p) - ln P(y)`` first and
  then each other attribute's ``O_j + 2`` cells of ``ln P(x_j | y, x_p)``, so that every
  factor keys on p's slot; attribute j's cells lie at the same offset in every SPODE
  (p's own place left unused), so that a row's partial cell for j serves every SPODE,
  unless those unused places would add more than :data:`ALIGNED_EXTRA` of the cells
  (an attribute of thousands of values): the children then follow one another;
  the gate is 1 where p's value was seen ``min_count`` times;
* :func:`sum_plan`: one component without gates, a factor per attribute: naive Bayes
  (AODE's fallback) and the networks of TAN and KDB, each attribute's table over its
  parents' slots and its own code, row-major.

Examples
--------
>>> import numpy as np
>>> from bayesrule._engines.lookup import score
>>> tables = [np.log([[0.5, 0.5, 0.5, 1.0], [0.25, 0.75, 0.4, 1.0]])]  # (C, O + 2)
>>> plan = sum_plan(tables, [()], np.array([2]))
>>> out, used = score(plan, np.array([[0], [1], [3]]), np.array([2]))
>>> np.exp(out).round(2)  # classes x rows: value 0, value 1, missing (drops out)
array([[0.5 , 0.5 , 1.  ],
       [0.25, 0.75, 1.  ]])
"""

from __future__ import annotations

import numpy as np

from ..._engines.lookup import Factors, Plan
from .averaged_tables import extended_cells


def spode_plan(spodes, sizes: np.ndarray, C: int) -> Plan:
    """The plan of the SPODEs ``spodes``: per SPODE ``(p, head, usable, flat, base,
    stride, others)`` as :class:`~bayesrule.likelihoods.discrete.one_dependence.OneDependence`
    keeps them (``head`` (C, O_p + 1), ``flat`` each child's (C, O_p + 1, O_j + 2) table
    flattened, at ``base``)."""
    tables, rows, starts, gate_rows, gates = [], [], [0], [], []
    cell = gate = 0
    sizes = np.asarray(sizes, dtype=np.intp)
    every = sizes + 2  # each attribute's cells, at the same offset in every SPODE
    place = 1 + np.cumsum(every) - every
    aligned = _aligned([p for p, *_ in spodes], sizes)
    for p, head, usable, flat, base, stride, others in spodes:
        slots = int(sizes[p]) + 1
        stride = np.asarray(stride, dtype=np.intp)
        if aligned:  # the super-parent's own cells stay unused
            at, width = place[np.asarray(others, dtype=np.intp)], 1 + int(every.sum())
        else:  # packed: the children one after another
            at, width = 1 + np.cumsum(stride) - stride, 1 + int(stride.sum())
        where = child_major_index(slots, stride, np.asarray(base, dtype=np.intp))
        block = np.zeros((slots, width, C))
        block[:, 0] = np.asarray(head).T
        columns = [np.arange(a, a + w) for a, w in zip(at, stride, strict=True)]
        columns = np.concatenate(columns or [[]]).astype(np.intp)
        block[:, columns] = np.moveaxis(np.asarray(flat)[:, where], 0, -1)
        tables.append(block.reshape(-1, C))
        parent = [(p, width, True)]
        rows.append((cell, parent))
        children = zip(others, at.tolist(), strict=True)
        rows += [(cell + a, [*parent, (j, 1, False)]) for j, a in children]
        starts.append(len(rows))
        gate_rows.append((gate, [(p, 1, True)]))
        gates.append(np.asarray(usable, dtype=np.float64))
        cell += slots * width
        gate += slots
    return Plan(
        table=np.concatenate(tables) if tables else np.zeros((0, C)),
        factors=Factors.build(rows),
        starts=np.asarray(starts, dtype=np.intp),
        gates=Factors.build(gate_rows),
        gate_table=np.concatenate(gates) if gates else np.zeros(0),
    )


#: the aligned layout of :func:`spode_plan` may add at most this share of cells to the
#: packed one (the super-parents' unused places: (O_p + 1)(O_p + 2) each)
ALIGNED_EXTRA = 0.25


def _aligned(parents, sizes: np.ndarray) -> bool:
    """Whether every attribute's cells go at one offset in every SPODE: where the unused
    places cost little (a super-parent of thousands of values would add millions)."""
    slots = sizes[parents] + 1
    packed = int((slots * (1 + (sizes + 2).sum() - (sizes[parents] + 2))).sum())
    extra = int((slots * (sizes[parents] + 2)).sum())
    return extra <= ALIGNED_EXTRA * packed


def spode_children(stats, supers, alpha: float, unseen: str) -> dict:
    """The tables of each super-parent p's children as ``OneDependence`` keeps them, from
    dense pair counts, every super-parent at once (Lidstone, no back-off: what
    :func:`~bayesrule.likelihoods.discrete.cpt.lookup_table` gives child by child):
    ``{p: (flat, base)}``, each child's (C, O_p + 1, O_j + 2) table flattened, side by
    side, and where each starts; the children of p are every other feature."""
    off = stats.offsets
    sizes = np.diff(off)
    d, C = sizes.size, stats.gram.shape[0]
    # the rows of every feature's values, then its slot "unavailable" (their sum)
    slot_rows = off[1:] + np.arange(d)
    value_rows = np.delete(np.arange(int(off[-1]) + d), slot_rows)
    ext = np.zeros((C, int(off[-1]) + d, int(off[-1])))
    ext[:, value_rows] = stats.gram
    np.add.at(ext, (slice(None), slot_rows[np.repeat(np.arange(d), sizes)]), stats.gram)
    cells = extended_cells(ext, sizes, alpha)  # (C, W + d, sum(O_j + 2)), child-major
    widths = sizes + 2
    ends = np.cumsum(widths)
    if unseen == "ignore":  # a value never seen drops out
        cells[..., ends - 2] = 0.0
    out = {}
    for p in supers:
        others = np.array([j for j in range(d) if j != p], dtype=np.intp)
        rows = np.arange(off[p] + p, slot_rows[p] + 1)
        columns = np.concatenate([np.arange(ends[j] - widths[j], ends[j]) for j in others] or [[]])
        out[p] = _child_major(cells[:, rows][:, :, columns.astype(np.intp)], widths[others])
    return out


def child_major_index(slots: int, widths: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Where each cell (slot, child c's value v), slot-major, shape (slots, sum of
    widths), lies when the children are laid out one after another, child c's (slots,
    width_c) block flattened at ``base[c]``: ``base_c + slot width_c + v``."""
    child = np.repeat(np.arange(widths.size), widths)
    value = np.arange(int(widths.sum())) - (np.cumsum(widths) - widths)[child]
    return base[child] + np.arange(slots)[:, None] * widths[child] + value


def _child_major(cells: np.ndarray, widths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cells (C, slots, sum of widths), slot-major, laid out child by child: each child's
    (slots, width) block flattened, and where each starts."""
    slots = cells.shape[1]
    base = slots * (np.cumsum(widths) - widths).astype(np.intp)
    flat = np.empty((cells.shape[0], slots * int(widths.sum())))
    flat[:, child_major_index(slots, widths, base).ravel()] = cells.reshape(cells.shape[0], -1)
    return flat, base


def sum_plan(tables, parents, sizes: np.ndarray) -> Plan:
    """One component summing a factor per attribute j: ``tables[j]`` (C, prod(O_pa + 1)
    (O_j + 2)), row-major over its parents' slots ``parents[j]`` and its own code."""
    C = np.asarray(tables[0]).shape[0] if tables else 1
    rows, cell = [], 0
    for j, (table, pa) in enumerate(zip(tables, parents, strict=True)):
        shape = [*(np.asarray(sizes)[list(pa)] + 1), int(sizes[j]) + 2]
        mults = np.cumprod([1, *shape[::-1]])[::-1][1:].tolist()
        terms = [(int(a), int(m), True) for a, m in zip(pa, mults, strict=False)]
        rows.append((cell, [*terms, (j, 1, False)]))
        cell += np.asarray(table).size // C
    table = np.concatenate([np.asarray(t).reshape(C, -1).T for t in tables] or [np.zeros((0, C))])
    return Plan(table=table, factors=Factors.build(rows), starts=np.array([0, len(rows)]))
