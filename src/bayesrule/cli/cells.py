"""The cells of a feature table that a model cannot take, named by row, column and value.

The command checks a table before it fits or predicts, so that a mistake in one cell is
reported where it is (``column 'weight_g', row 18: '12,5 g'``) rather than as an array
error of the estimator, or by changing the model: a column of numbers with one cell of
text is read by pandas as a text column, which would otherwise turn the default model
from ``qda`` into ``mixed-nb`` without a word. Rows are counted from 1, the header not
included (row 1 is the first row of data).

Examples
--------
>>> import pandas as pd
>>> from bayesrule.cli.cells import check_typos
>>> check_typos(pd.DataFrame({"w": ["1.5", "2", "x"] + ["3"] * 7}), "t.csv")
Traceback (most recent call last):
...
bayesrule.cli.errors.CLIError: column 'w' of t.csv holds numbers, but row 3 holds 'x', \
which is not a number; correct that cell, or leave it empty for a missing value
"""

from __future__ import annotations

import numpy as np

from .errors import CLIError

__all__ = ["check_cells", "check_typos"]

#: a text column counts as numbers with typos when at least this share of its filled
#: cells are numbers
NUMERIC_SHARE = 0.8


def _not_numbers(column):
    """Mask of the filled cells of ``column`` that are not numbers."""
    import pandas as pd

    numbers = pd.to_numeric(column, errors="coerce")
    return column.notna().to_numpy() & numbers.isna().to_numpy()


def _first(mask) -> tuple[int, int]:
    """(1-based row of the first True, how many are True)."""
    where = np.flatnonzero(mask)
    return int(where[0]) + 1, int(where.size)


def _more(count: int, what: str) -> str:
    return f" ({count} such {what} in all)" if count > 1 else ""


def _typo(X, name, source) -> CLIError | None:
    """The error for a text column of ``X`` that mostly holds numbers, or None."""
    column = X[name]
    bad = _not_numbers(column)
    filled = int(column.notna().sum())
    if not bad.any() or filled - bad.sum() < NUMERIC_SHARE * filled:
        return None
    row, count = _first(bad)
    value = str(column.iloc[row - 1])
    return CLIError(
        f"column {name!r} of {source} holds numbers, but row {row} holds {value!r}, which is "
        f"not a number{_more(count, 'cells')}; correct that cell, or leave it empty for a "
        "missing value"
    )


def check_typos(X, source) -> None:
    """Refuse a text column of ``X`` whose cells are mostly numbers (module docstring)."""
    from .data import column_kinds

    for name, kind in column_kinds(X).items():
        if kind == "text":
            error = _typo(X, name, source)
            if error is not None:
                raise error


def check_cells(X, model: str, data: str, source, limit: float = np.inf) -> None:
    """Refuse the first cell of ``X`` that model ``model`` cannot take, by row and column.

    Parameters
    ----------
    X : pandas.DataFrame
        The feature columns.
    model : str
        The model's command-line name (for messages).
    data : str
        What the model takes (:class:`bayesrule.cli.models.Model`'s ``data``).
    source : str
        The file, for messages.
    limit : float, default=inf
        The largest magnitude the model's family evaluates.
    """
    from .data import column_kinds

    numbers_only = data not in ("any", "discrete")
    for name, kind in column_kinds(X).items():
        column = X[name]
        if kind == "text":
            if not numbers_only:
                continue
            error = _typo(X, name, source)
            if error is not None:
                raise error
            row, _ = _first(_not_numbers(column))
            raise CLIError(
                f"column {name!r} is not numeric (values like {str(column.iloc[row - 1])!r}), "
                f"and {model} needs numbers; use --model mixed-nb (naive Bayes over columns "
                "of any kind) or categorical-nb, or leave the column out with --features"
            )
        if kind != "float":
            continue
        values = column.to_numpy(dtype=float, na_value=np.nan)
        _check_numbers(values, name, model, data, source, limit)


def _check_numbers(values, name, model, data, source, limit) -> None:
    infinite = np.isinf(values)
    if infinite.any():
        row, count = _first(infinite)
        raise CLIError(
            f"column {name!r} of {source} holds {values[row - 1]:g} in row {row}"
            f"{_more(count, 'values')}; {model} needs finite numbers: correct that cell "
            "(or leave it empty for a missing value)"
        )
    missing = np.isnan(values)
    if data == "dense" and missing.any():
        row, count = _first(missing)
        raise CLIError(
            f"column {name!r} has {count} missing value{'s' if count > 1 else ''} (the first "
            f"in row {row}), which {model} cannot use; fill them in, or use --model "
            "gaussian-nb or mixed-nb (they leave missing values out)"
        )
    huge = np.abs(np.where(missing, 0.0, values)) > limit
    if huge.any():
        row, count = _first(huge)
        raise CLIError(
            f"column {name!r} of {source} holds {values[row - 1]:g} in row {row}"
            f"{_more(count, 'values')}, beyond {limit:g}, the largest magnitude {model} "
            "evaluates (it squares deviations); rescale the column, e.g. in other units"
        )
    if data == "counts":
        negative = np.where(missing, 0.0, values) < 0
        if negative.any():
            row, count = _first(negative)
            raise CLIError(
                f"column {name!r} holds {values[row - 1]:g} in row {row}, and {model} models "
                "counts (>= 0); use --model gaussian-nb or qda for measurements"
            )
