"""Naive Bayes over columns of different kinds: one likelihood family per column block."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from .._validation import column_position, column_type, missing_mask
from ..likelihoods import Bernoulli, Categorical, Gaussian, Kernel, Multinomial, Poisson
from ..likelihoods.base import Likelihood
from ..likelihoods.product import Product
from .preset import Preset

#: the families ``features`` may name by string, as the likelihood each one builds
FAMILIES = {
    "gaussian": lambda: Gaussian("diag", var_smoothing=1e-9),
    "categorical": Categorical,
    "bernoulli": Bernoulli,
    "multinomial": Multinomial,
    "kernel": Kernel,
    "poisson": Poisson,
}


class MixedNB(Preset):
    """Naive Bayes with one likelihood family per block of columns, missing values marginalised.

    ``ln p(x|c) = sum_b ln p_b(x_b | c)`` over column blocks ``b``, each modelled by its
    own family. A missing value (NaN, None, pandas NA) drops its feature out of the
    product for that sample, both when fitting (statistics use the observed values) and
    when predicting; a row with every feature missing gets the prior as its posterior.
    No row is dropped. A Gaussian or kernel column that has no observed value at all in
    some class is refused (its density there is unknown; drop the column or give that
    class data for it); a categorical one gets every value equally likely there.

    Parameters
    ----------
    features : "auto" or list of (family, columns), default="auto"
        "auto" chooses a family per column from its type: floating-point columns are
        Gaussian (``Gaussian("diag", var_smoothing=1e-9)``, GaussianNB's model); bool,
        category, object and string columns are categorical (``Categorical()``).
        **Integer columns are categorical**: integers in tables are most often codes,
        levels or small counts (a year, a number of doors), which a categorical models
        without assuming a shape; cast a column to float to model it as Gaussian.
        Columns of other types (dates, complex numbers) raise ValueError. Or a list of
        ``(family, columns)``: family a name from ``"gaussian"``, ``"categorical"``,
        ``"bernoulli"``, ``"multinomial"``, ``"kernel"``, ``"poisson"`` or a likelihood object from
        :mod:`bayesrule.likelihoods`; columns DataFrame column names or integer
        positions. Every column must belong to exactly one block. In an object array
        without dtypes, a column of numbers with at least one float is Gaussian.
    priors : None, "empirical", "uniform", array-like or dict, default=None
        As in :class:`~bayesrule.BayesClassifier`.
    loss : None, array-like or LossMatrix, default=None
        As in :class:`~bayesrule.BayesClassifier`.
    reject_label : label, default=None
        As in :class:`~bayesrule.BayesClassifier`.

    Attributes
    ----------
    blocks_ : list of (str, list)
        The family and the columns (names for a DataFrame, else positions) of each block.
    likelihood_ : Product
        The fitted product; ``likelihood_.blocks_`` holds each block's fitted family.
    classes_, class_count_, class_prior_, n_features_in_, feature_names_in_
        As in :class:`~bayesrule.BayesClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from bayesrule import MixedNB
    >>> df = pd.DataFrame({
    ...     "length": [4.1, 3.9, np.nan, 6.2, 5.8, 6.0],
    ...     "colour": ["red", "red", "green", "green", None, "green"],
    ... })
    >>> clf = MixedNB().fit(df, ["a", "a", "a", "b", "b", "b"])
    >>> clf.blocks_
    [('gaussian', ['length']), ('categorical', ['colour'])]
    >>> clf.predict(pd.DataFrame({"length": [4.0, np.nan], "colour": [None, "green"]}))
    array(['a', 'b'], dtype='<U1')
    """

    _parameters = {"features": "auto"}
    _saved_state = ("_plan", "blocks_")  # fitted state besides the classifier's

    def _prepare(self, X):
        """Choose or check the column blocks before ``fit`` fits every family on its columns."""
        self._plan = _resolve(self.features, X)

    def _make_likelihood(self):
        plan = getattr(self, "_plan", None)
        if plan is None:  # before fit (e.g. for tags): the kind of input is a table
            return Product()
        return Product([(family, positions) for _, family, _, positions in plan])

    def _fitted(self) -> None:
        self.blocks_ = [(name, list(columns)) for name, _, columns, _ in self._plan]


def _resolve(features, X) -> list[tuple[str, Likelihood, list, list[int]]]:
    """(family name, likelihood, columns as given, column positions) per block."""
    if sp.issparse(X):
        raise TypeError(
            "MixedNB takes a table (DataFrame or array), not sparse input; densify it, or "
            "use BernoulliNB or MultinomialNB for sparse data."
        )
    names = _column_names(X)
    if names is None and not hasattr(X, "dtype"):  # a list: one conversion, not one per column
        X = np.asarray(X, dtype=object)
    n_features = _n_columns(X)
    if isinstance(features, str):
        if features != "auto":
            raise ValueError(
                f"features must be 'auto' or a list of (family, columns), got {features!r}"
            )
        return _auto(X, names, n_features)
    if not isinstance(features, (list, tuple)) or not features:
        raise ValueError(
            f"features must be 'auto' or a non-empty list of (family, columns), got {features!r}"
        )
    plan = []
    for k, pair in enumerate(features):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"features[{k}] must be a (family, columns) pair, got {pair!r}")
        family, columns = pair
        name, like = _family(family, k)
        if isinstance(columns, (str, numbers.Integral)):
            columns = [columns]
        positions = [column_position(f"features[{k}]", c, n_features, names) for c in columns]
        plan.append((name, like, list(columns), positions))
    return plan


def _family(family, k) -> tuple[str, Likelihood]:
    if isinstance(family, str):
        if family not in FAMILIES:
            raise ValueError(
                f"features[{k}]: unknown family {family!r}; use one of {sorted(FAMILIES)} or "
                "a likelihood object."
            )
        return family, FAMILIES[family]()
    if isinstance(family, Likelihood):
        return type(family).__name__.lower(), clone(family)
    raise TypeError(
        f"features[{k}]: a family must be a name from {sorted(FAMILIES)} or a likelihood "
        f"object from bayesrule.likelihoods, got {family!r}"
    )


def _column_names(X):
    columns = getattr(X, "columns", None)
    return None if columns is None else [str(c) if not isinstance(c, str) else c for c in columns]


def _n_columns(X) -> int:
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.shape(np.asarray(X, dtype=object))
    if len(shape) != 2:
        raise ValueError(f"X must be 2-D (samples x features), got shape {tuple(shape)}")
    return int(shape[1])


def _auto(X, names, n_features) -> list:
    kinds = [_column_kind(X, j, names) for j in range(n_features)]
    plan = []
    for family in ("gaussian", "categorical"):
        positions = [j for j, kind in enumerate(kinds) if kind == family]
        if positions:
            columns = [names[j] for j in positions] if names is not None else positions
            plan.append((family, FAMILIES[family](), columns, positions))
    return plan


def _column_kind(X, j, names) -> str:
    if names is not None:  # a DataFrame: decide from the dtype
        dtype = X.dtypes.iloc[j]
        kind = column_type(dtype)
        if kind is None:
            raise ValueError(
                f"features='auto' cannot place column {names[j]!r} of type {dtype}; convert "
                "it (e.g. a date to a number or a category), or give features as a list of "
                "(family, columns)."
            )
        return "gaussian" if kind == "float" else "categorical"
    column = np.asarray(X, dtype=None if hasattr(X, "dtype") else object)[:, j]
    if column.dtype.kind == "f":
        return "gaussian"
    if column.dtype.kind in "biuUS":
        return "categorical"
    if column.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: column {j} is complex.")
    if column.dtype.kind != "O":
        raise ValueError(
            f"features='auto' cannot place column {j} of type {column.dtype}; give features "
            "as a list of (family, columns)."
        )
    values = column[~missing_mask(column)].tolist()
    numbers_only = all(
        isinstance(v, (numbers.Real, np.number)) and not isinstance(v, (bool, np.bool_))
        for v in values
    )
    has_float = any(isinstance(v, (float, np.floating)) for v in values)
    return "gaussian" if numbers_only and has_float else "categorical"
