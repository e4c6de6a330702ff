"""The additive terms of a lookup plan's score (:mod:`bayesrule._engines.lookup`): what
``explain`` shows of the semi-naive models.

One component (TAN, KDB, selective KDB, naive Bayes) scores a row as a sum of factors,
one per attribute given its parents: each factor is a term. Several components averaged
in probability space (AODE, SPODEs) score ``ln sum_t v_t exp(s_t)`` with ``v_t = w_t
g_t / sum_u w_u g_u``; with the responsibilities ``r_t = v_t exp(s_t) / sum_u v_u
exp(s_u)`` (per class) that is exactly ``sum_t r_t s_t + sum_t r_t (ln v_t - ln r_t)``:
an attribute's term is its factors' responsibility-weighted sum over the components,
the components' own factors (the super-parents' joint with the class) one term, and
the last sum the term of the averaging itself.
"""

from __future__ import annotations

import numpy as np

from ..._engines.lookup import Plan, slots_of


def _labels(plan: Plan, which: slice) -> list[tuple]:
    """Per factor: ("attr", j, parents) for a factor of attribute j, ("head",) for one
    keyed on parents only."""
    f = plan.factors
    out = []
    for cols, parent in zip(f.cols[which], f.parent[which], strict=True):
        own = [int(c) for c, p in zip(cols, parent, strict=True) if c >= 0 and not p]
        pa = tuple(int(c) for c, p in zip(cols, parent, strict=True) if c >= 0 and p)
        out.append(("attr", own[0], pa) if own else ("head",))
    return out


def plan_terms(plan: Plan, codes: np.ndarray, sizes: np.ndarray):
    """``(labels, terms, used)``: term labels (format strings over feature indices),
    the terms (n, C, T) whose sum is the plan's score, and the gate sums (rows with 0
    have no usable component: their terms are not defined, the caller scores them
    otherwise)."""
    codes = np.asarray(codes)
    slots = slots_of(codes, np.asarray(sizes))
    n, C, T = codes.shape[0], plan.table.shape[1], plan.n_components
    parts = []
    for t in range(T):
        which = slice(plan.starts[t], plan.starts[t + 1])
        cells = plan.factors.cells(codes, slots, which)  # (n, F_t)
        parts.append((_labels(plan, which), plan.table[cells]))  # (n, F_t, C)
    if T == 1 and plan.gates is None:
        labels, values = parts[0]
        names = [_name(label, single=True) for label in labels]
        return names, np.moveaxis(values, 1, 2), np.ones(n)
    gates = np.ones((n, T))
    if plan.gates is not None:
        for t in range(T):
            gates[:, t] = plan.gate_table[plan.gates.cells(codes, slots, slice(t, t + 1))[:, 0]]
    w = np.ones(T) if plan.log_weight is None else np.exp(plan.log_weight)
    used = gates @ w
    with np.errstate(divide="ignore", invalid="ignore"):
        log_v = np.log(gates * w) - np.log(used)[:, None]  # (n, T)
        s = np.stack([values.sum(axis=1) for _, values in parts], axis=2)  # (n, C, T)
        joint = s + log_v[:, None, :]
        top = np.max(joint, axis=2, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        r = np.exp(joint - top)
        r /= r.sum(axis=2, keepdims=True)  # (n, C, T) responsibilities
    keys: dict = {}
    columns = []
    for t, (labels, values) in enumerate(parts):
        for k, label in enumerate(labels):
            key = label[:2]
            if key not in keys:
                keys[key] = len(keys)
                columns.append(np.zeros((n, C)))
            with np.errstate(invalid="ignore"):
                columns[keys[key]] += np.where(r[:, :, t] > 0, r[:, :, t] * values[:, k, :], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.where(r > 0, r * (log_v[:, None, :] - np.log(r)), 0.0).sum(axis=2)
    names = [_name(key, single=False) for key in keys]
    terms = np.stack([*columns, spread], axis=2)
    return [*names, "averaging over the super-parents"], terms, used


def _name(label: tuple, single: bool) -> str:
    if label[0] == "head":
        return "super-parents with the class"
    j = label[1]
    if single and label[2]:
        return f"{{{j}}} | " + ", ".join(f"{{{p}}}" for p in label[2])
    return f"{{{j}}}"


def staged_terms(plans, codes: np.ndarray, sizes: np.ndarray):
    """``(names, terms)`` of rows scored by the first of ``plans`` with a usable
    component (as AODE falls back to naive Bayes), the names the union of the plans'."""
    n = codes.shape[0]
    names: list[str] = []
    parts = []
    todo = np.arange(n)
    for plan in plans:
        if todo.size == 0:
            break
        own, terms, used = plan_terms(plan, codes[todo], sizes)
        done = used > 0
        parts.append((todo[done], own, terms[done]))
        names += [name for name in own if name not in names]
        todo = todo[~done]
    C = plans[0].table.shape[1]
    out = np.zeros((n, C, len(names)))
    for rows, own, terms in parts:
        out[np.ix_(rows, np.arange(C), [names.index(name) for name in own])] = terms
    if todo.size:  # no plan usable: not scored by these plans
        out[todo] = np.nan
    return names, out
