"""Finiteness and magnitude of numeric input, checked in one pass (with worker threads on
large arrays), and the messages that name the first bad cell by row and column."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp

from ._engines.threads import n_threads, one_blas_thread

#: arrays of at least this many values are checked for finiteness by worker threads
THREADED_CHECK = 1 << 22


def _all_finite(values: np.ndarray, allow_nan: bool, limit: float = np.inf) -> bool:
    """Whether ``values`` holds no inf (and no NaN unless allowed) and, for a finite
    ``limit``, no value beyond it in magnitude: True is certain, False means "look
    closer". One pass: a sum, or with a limit the sum of squares (finite and at most
    ``limit**2`` only when every value is within the limit). Large arrays are summed in
    parts by worker threads (numpy's reductions release the GIL): the check that
    scikit-learn runs on one core."""
    bounded = np.isfinite(limit)

    def part(chunk: np.ndarray) -> bool:
        with np.errstate(over="ignore", invalid="ignore"):  # per thread: large finite sums
            if bounded:
                flat = chunk.ravel(order="K")  # a view of a C- or Fortran-ordered array
                if np.vdot(flat, flat) <= limit * limit:  # False for NaN and inf
                    return True
                if allow_nan:  # NaN marks missing values: the largest of the others
                    return bool(np.nanmax(np.abs(flat), initial=0.0) <= limit)
            elif np.isfinite(np.add.reduce(chunk, axis=None)):
                return True
        return allow_nan and not np.isinf(chunk).any() and not bounded

    contiguous = values.flags.c_contiguous or values.flags.f_contiguous
    flat = values.ravel(order="K") if contiguous else None  # a view, in memory order
    workers = n_threads() if flat is not None and values.size >= THREADED_CHECK else 1
    # vdot (bounded) is BLAS's ddot: its threads would spin against ours and any busy
    # process; the plain sum needs no BLAS (and no process-wide limit)
    with one_blas_thread() if bounded else nullcontext():
        if workers <= 1:
            return part(values)
        with ThreadPoolExecutor(workers) as pool:
            return all(pool.map(part, np.array_split(flat, workers)))


def check_magnitude(values, limit: float, family: str, columns=None) -> None:
    """Refuse a value beyond ``limit`` in magnitude, naming its row, column and value:
    ``family`` squares deviations, so larger values overflow float64 (NaN is allowed
    here; ``columns`` names the columns of ``values`` in the caller's X)."""
    if not np.isfinite(limit):
        return
    if not sp.issparse(values):
        values = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        big = np.abs(values.data if sp.issparse(values) else values) > limit
    if not big.any():
        return
    i, j, value = first_cell(values, big)
    column = j if columns is None else columns[j]
    raise ValueError(
        f"X has {value:g} at row {i}, column {column}: beyond {limit:g}, the largest "
        f"magnitude {family} evaluates (it squares deviations, which overflow float64 "
        f"past that). Rescale that column, e.g. divide it by 1e{int(np.log10(abs(value)))} "
        "or standardise X (sklearn.preprocessing.StandardScaler)."
    )


def refuse_nonfinite(X, allow_nan: bool, name: str) -> None:
    """ValueError naming the row and column of the first infinity (or NaN, where the
    model cannot leave missing values out) of ``X``, with the fix."""
    data = X.data if sp.issparse(X) else X
    bad = np.isinf(data) if allow_nan else ~np.isfinite(data)
    if not bad.any():
        return
    i, j, value = first_cell(X, bad)
    if value == value:
        raise infinity_error(i, j, value)
    raise ValueError(
        f"Input X contains NaN (row {i}, column {j}): a missing value, which {name} cannot "
        "leave out. Impute it (sklearn.impute.SimpleImputer in a pipeline), drop the rows, "
        "or use a model that takes missing values: GaussianNB, KernelNB, MixedNB, or "
        "QuadraticDiscriminant, LinearDiscriminant, GaussianBayes and GaussianMixtureBayes "
        "at their defaults (maximum likelihood: no estimate='map'/'predictive', prior, "
        "shrinkage, pooling or covariance_estimator)."
    )


def first_cell(X, mask) -> tuple[int, int, object]:
    """(row, column, value) of the first flagged cell of ``X``: ``mask`` flags the cells
    of a dense array, or the stored values (``X.data``) of a sparse matrix."""
    if sp.issparse(X):
        coo = X.tocoo()
        return int(coo.row[mask][0]), int(coo.col[mask][0]), coo.data[mask][0]
    i, j = (int(k) for k in np.argwhere(mask)[0])
    return i, j, X[i, j]


def infinity_error(i: int, j: int, value) -> ValueError:
    """The one message for an infinite value of X, at row ``i`` and column ``j``."""
    return ValueError(
        f"Input X contains infinity (row {i}, column {j}: {value}); replace it by a "
        "finite value, or by NaN to mark it missing where the model takes missing values."
    )
