"""Checks of fitted state that did not come from ``fit`` (a model file): each family's
own invariants, derived from what the family already knows.

:meth:`Likelihood.check_state <bayesrule.likelihoods.base.Likelihood.check_state>` runs
:func:`check_likelihood`:

* statistics (the dataclasses ``stats_`` holds) have exactly their declared fields,
  finite numbers (NaN only where a field holds data with missing values) and
  non-negative counts and weights (every numeric field but :data:`SIGNED`);
* a family with statistics derives its parameters again from them, with the family's
  own checks (a singular covariance, a class without data, a negative count are
  refused there) and floating point errors raised; every fitted attribute must equal
  the derived one or keep its invariants (:func:`as_valid`), so a forged parameter or
  a wrong shape or dtype is refused (an attribute an older version did not write is
  derived). A family whose fit needs more than its statistics (``blockwise_reason()``:
  Ledoit-Wolf shrinkage, KDB's parent combinations) may fail to derive them, and is
  then checked as below;
* any other family has no NaN in its fitted numbers, and each object it holds that
  defines ``check_state()`` (e.g. a mixture's components) runs it;
* it has ``n_classes`` classes.

The loaded model then evaluates exactly as the one saved.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings

import numpy as np

#: fields of statistics whose numbers may be negative (sums of values, not of weights)
SIGNED = frozenset({"mean", "scatter", "values", "categories"})
#: fields of statistics that hold data, NaN where a value is missing
WITH_MISSING = frozenset({"values"})


def check_statistics(stats, where: str) -> None:
    """Refuse statistics whose fields or numbers no fit can give (ValueError)."""
    if isinstance(stats, (list, tuple)):
        for i, part in enumerate(stats):
            check_statistics(part, f"{where}[{i}]")
        return
    if not dataclasses.is_dataclass(stats):
        return
    names = {f.name for f in dataclasses.fields(stats)}
    if set(vars(stats)) != names:
        raise ValueError(
            f"{where} holds the attributes {sorted(vars(stats))}, not the fields "
            f"{sorted(names)} of {type(stats).__name__}"
        )
    for name in sorted(names):
        value = getattr(stats, name)
        if dataclasses.is_dataclass(value) or (
            isinstance(value, (list, tuple)) and any(map(dataclasses.is_dataclass, value))
        ):
            check_statistics(value, f"{where}.{name}")
        else:
            check_numbers(value, f"{where}.{name}", name in SIGNED, name in WITH_MISSING)


def check_numbers(value, where: str, signed=True, missing=False, logs=False) -> None:
    """Refuse non-finite numbers (but NaN where ``missing``, -inf where ``logs``: the
    log of a zero probability) or, unless ``signed``, negative ones in an array, a
    number or a list/tuple of them."""
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_numbers(item, f"{where}[{i}]", signed, missing, logs)
        return
    if isinstance(value, (float, int, np.number)) and not isinstance(value, bool):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray) or value.dtype.kind in "OUSb":
        return
    if value.dtype.kind not in "iuf":
        raise ValueError(f"{where} has dtype {value.dtype}, not a number type")
    bad = np.isinf(value) if missing else ~np.isfinite(value)
    if logs:
        bad &= value != -np.inf
    if bad.any():
        raise ValueError(f"{where} holds {value[bad].flat[0]}, not a finite number")
    if not signed and (value < 0).any():
        raise ValueError(f"{where} holds {value[value < 0].flat[0]}, but it counts weights (>= 0)")


def statistics_features(stats) -> int | None:
    """How many features statistics describe (the feature axis of each kind: the last
    axis of per-class means or sums, the columns of kept data, one list entry per
    feature, the sum over a product's parts), or None when they do not say."""
    if isinstance(stats, (list, tuple)):
        parts = [statistics_features(part) for part in stats]
        return None if None in parts or not parts else sum(parts)
    fields = vars(stats) if dataclasses.is_dataclass(stats) else {}
    for name in ("mean", "feature_sum"):
        if isinstance(fields.get(name), np.ndarray) and fields[name].ndim == 2:
            return fields[name].shape[1]
    if isinstance(fields.get("categories"), list):
        return len(fields["categories"])
    values = fields.get("values")
    if isinstance(values, tuple) and values and getattr(values[0], "ndim", 0) == 2:
        return values[0].shape[1]
    if isinstance(fields.get("parts"), tuple):
        return statistics_features(fields["parts"])
    return None


def _strictly():
    """Floating point errors and warnings raised, while parameters are derived again."""
    errors = np.errstate(all="raise")
    caught = warnings.catch_warnings()
    return errors, caught


def _derived(like):
    """``like`` with its parameters derived again from its statistics (a deep copy)."""
    fresh = copy.deepcopy(like)
    errors, caught = _strictly()
    with errors, caught:
        warnings.simplefilter("error")
        fresh.set_statistics(fresh.stats_)
    return fresh


def _derivable(like, where: str) -> bool:
    """Whether ``like``'s parameters derive again from its statistics alone. A family
    whose fit needs more than its statistics (``blockwise_reason()``: Ledoit-Wolf
    shrinkage, bins chosen from the data) may fail to; any other failure is a refusal."""
    try:
        _derived(like)
    except Exception as exc:  # the family's own refusal, or a floating point error
        if like.blockwise_reason():
            return False
        raise ValueError(f"its statistics give no valid {where} ({exc})") from None
    return True


def same(a, b, where: str) -> None:
    """Refuse (ValueError naming ``where``) a stored value ``b`` that differs from the
    value ``a`` derived from the statistics: types, dtypes, shapes and every number. An
    attribute ``b`` lacks (written by an older version) is set to the derived one."""
    if type(a) is not type(b):
        raise ValueError(f"{where} is a {type(b).__name__}, not a {type(a).__name__}")
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            raise ValueError(
                f"{where} is a {b.dtype} array of shape {b.shape}, not {a.dtype} {a.shape}"
            )
        if not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
            as_valid(a, b, where)
    elif isinstance(a, dict):
        if not a:  # a cache, built when first needed
            return
        if list(a) != list(b):
            raise ValueError(f"{where} has the keys {list(b)[:5]}, not {list(a)[:5]}")
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        if len(a) != len(b):
            raise ValueError(f"{where} has {len(b)} items, not {len(a)}")
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        va, vb = vars(a), vars(b)
        for k in va:
            if k in vb:
                same(va[k], vb[k], f"{where}.{k}")
            else:  # a file of an older version: derived now as this version derives it
                vb[k] = va[k]
    elif isinstance(a, (int, float)) and not isinstance(a, bool):
        if not (a == b or a != a and b != b):
            as_valid(np.asarray(a), np.asarray(b), where)
    elif a != b:
        raise ValueError(f"{where} is {b!r:.60}, not {a!r:.60} as its statistics give")


def as_valid(a: np.ndarray, b: np.ndarray, where: str) -> None:
    """Refuse a stored array ``b`` that breaks an invariant the derived array ``a`` (same
    dtype and shape) has: finite numbers (-inf only where ``a`` has it), its sign, rows
    summing to 1 (probabilities, or log-probabilities whose exponentials do), symmetric
    positive definite matrices, integer arrays equal to ``a``. Another version may derive
    other numbers (a file written by it then loads), but never such a state."""
    if a.dtype.kind not in "iuf" or a.size == 0:
        if not np.array_equal(a, b):
            raise ValueError(f"{where} differs from the value its statistics give")
        return
    if a.dtype.kind in "iu":
        if a.ndim == 0:  # a count or a position: its sign
            if a >= 0 > b:
                raise ValueError(f"{where} is {b}, a negative number its statistics never give")
        else:  # positions, sizes, counts of grid nodes: what the statistics give, exactly
            raise ValueError(f"{where} holds other integers than its statistics give")
        return
    full_a, full_b = a, b
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if (nan_b & ~nan_a).any() or ((b == np.inf) & (a != np.inf)).any():
        raise ValueError(f"{where} holds NaN or inf where its statistics give numbers")
    if ((b == -np.inf) & (a != -np.inf)).any():
        raise ValueError(f"{where} holds -inf where its statistics give numbers")
    square = a.ndim >= 2 and a.shape[-1] == a.shape[-2] > 1
    if square:  # matrices: the signs of their diagonals (factors, covariances)
        a, b = np.diagonal(a, axis1=-2, axis2=-1), np.diagonal(b, axis1=-2, axis2=-1)
        nan_a = np.isnan(a)
    aa, bb = a[~nan_a], b[~nan_a]
    for holds, what in ((aa >= 0, "negative"), (aa <= 0, "positive"), (aa > 0, "zero")):
        if holds.all() and not _sign(bb, what):
            raise ValueError(f"{where} holds {what} numbers, which its statistics never give")
    if a.ndim and a.shape[-1] > 1 and not nan_a.any() and not square:
        with np.errstate(all="ignore"):
            for norm in (lambda v: v.sum(axis=-1), lambda v: np.exp(v).sum(axis=-1)):
                if np.allclose(norm(a), 1.0, rtol=1e-9) and not np.allclose(norm(b), 1.0, 1e-9):
                    raise ValueError(f"{where} holds probabilities that do not sum to 1")
    if square and _definite(full_a) and not _definite(full_b):
        raise ValueError(f"{where} holds matrices that are not symmetric positive definite")


def _sign(values: np.ndarray, what: str) -> bool:
    return bool({"negative": values >= 0, "positive": values <= 0, "zero": values > 0}[what].all())


def _definite(m: np.ndarray) -> bool:
    if not np.isfinite(m).all() or not np.allclose(m, np.swapaxes(m, -1, -2), rtol=1e-10):
        return False
    try:
        np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        return False
    return True


def _held(value, seen: set):
    """The objects with ``check_state()`` that ``value`` holds (lists, tuples, attributes)."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _held(item, seen)
    elif hasattr(value, "__dict__") and not isinstance(value, (type, np.ndarray)):
        if callable(getattr(value, "check_state", None)) and not hasattr(value, "set_statistics"):
            yield value
        for item in vars(value).values():
            yield from _held(item, seen)


def check_likelihood(like, n_classes: int, n_features: int) -> None:
    """Refuse (ValueError) a fitted likelihood whose state no fit can give (see the
    module docstring), for ``n_classes`` classes and ``n_features`` features."""
    where = type(like).__name__
    state = vars(like)
    stats = state.get("stats_")
    check_statistics(stats, f"{where}.stats_")
    pending = state.get("pending_")
    if pending is not None and not isinstance(pending, str):
        raise ValueError(f"{where}.pending_ is {pending!r:.40}, not a reason or None")
    if pending:  # partial_fit has not seen every class yet: predicting raises this reason
        pass
    elif stats is not None and hasattr(like, "set_statistics") and _derivable(like, where):
        same(_derived(like), like, where)
    else:
        for name, value in state.items():
            if name != "stats_":
                check_numbers(value, f"{where}.{name}", logs=True)
        for part in _held(list(state.values()), set()):
            part.check_state(n_features)
    if pending:
        return
    found = statistics_features(stats)
    if found is None:
        found = getattr(like, "n_features_", None)
    if found is not None and found != n_features:
        raise ValueError(f"{where} describes {found} features, but the model has {n_features}")
    try:
        classes = like.n_classes_
    except Exception as exc:
        raise ValueError(f"{where} does not say how many classes it has ({exc!r})") from None
    if classes != n_classes:
        raise ValueError(f"{where} describes {classes} classes, but the model has {n_classes}")
