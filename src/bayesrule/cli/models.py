"""Model names of the ``bayesrule`` command, and its priors, loss and text options.

Every estimator of bayesrule has a name on the command line (``--model NAME``):

==================  ====================================  ===========================
name                estimator                             data
==================  ====================================  ===========================
``qda``             :class:`~bayesrule.QuadraticDiscriminant`  numbers, no missing values
``lda``             :class:`~bayesrule.LinearDiscriminant`     numbers, no missing values
``nearest-mean``    :class:`~bayesrule.NearestMean`            numbers, no missing values
``gaussian``        :class:`~bayesrule.GaussianBayes`          numbers, no missing values
``mixture``         :class:`~bayesrule.GaussianMixtureBayes`   numbers (missing left out)
``gaussian-nb``     :class:`~bayesrule.GaussianNB`             numbers (missing left out)
``kernel-nb``       :class:`~bayesrule.KernelNB`               numbers (missing left out)
``bernoulli-nb``    :class:`~bayesrule.BernoulliNB`            numbers (> 0 is "yes"), text
``multinomial-nb``  :class:`~bayesrule.MultinomialNB`          counts >= 0, text
``complement-nb``   :class:`~bayesrule.ComplementNB`           counts >= 0, text
``poisson-nb``      :class:`~bayesrule.PoissonNB`              counts >= 0, text
``categorical-nb``  :class:`~bayesrule.CategoricalNB`          values of any kind
``mixed-nb``        :class:`~bayesrule.MixedNB`                columns of any kinds
``aode``            :class:`~bayesrule.AODE`                   discrete values of any kind
``ande``            :class:`~bayesrule.AnDE`                   discrete values of any kind
``waode``           :class:`~bayesrule.WAODE`                  discrete values of any kind
``tan``             :class:`~bayesrule.TAN`                    discrete values of any kind
``kdb``             :class:`~bayesrule.KDB`                    discrete values of any kind
``spode``           :class:`~bayesrule.SPODE`                  discrete values of any kind
``skdb``            :class:`~bayesrule.SKDB`                   discrete values of any kind
``eskdb``           :class:`~bayesrule.ESKDB`                  discrete values of any kind
``hnb``             :class:`~bayesrule.HNB`                    discrete values of any kind
``search``          :class:`~bayesrule.StructureSearch`        discrete values of any kind
==================  ====================================  ===========================

The default model (:func:`default_model`) is ``multinomial-nb`` for a text column,
``mixed-nb`` for tables with non-numeric columns or missing values, and ``qda`` (seed
003's model: one full Gaussian per class) for complete numeric tables.

Examples
--------
>>> import numpy as np
>>> from bayesrule.cli.models import parse_priors
>>> parse_priors("apple=0.4,orange=0.4,grapefruit=0.2", np.array(["apple", "grapefruit", "orange"]))
{'apple': 0.4, 'orange': 0.4, 'grapefruit': 0.2}
>>> parse_priors("1=0.25, 2=0.75", np.array([1, 2]))
{1: 0.25, 2: 0.75}
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from ..estimators import ESTIMATORS
from .errors import CLIError

__all__ = ["MODELS", "TOKEN_PATTERN", "build", "default_model", "parse_loss", "parse_priors"]

#: words of a text column: runs of letters and digits, one-letter words kept (seed 000)
TOKEN_PATTERN = r"(?u)\b\w+\b"


@dataclass(frozen=True)
class Model:
    """A model name: its estimator class and the data it takes.

    ``data`` is ``"dense"`` (numbers, no missing values), ``"numeric"`` (numbers,
    missing values left out), ``"counts"`` (non-negative numbers), ``"binary"``
    (numbers, > 0 counts as present), ``"any"`` (values of any kind) or ``"discrete"``
    (values of any kind, modelled as discrete values); ``text``: it takes a text column
    (as word counts). Both are read from the estimator's tags (and ``discrete`` from its
    registry entry).
    """

    cls: type
    data: str
    text: bool
    help: str
    min_features: int = 1


def _model(entry) -> Model:
    tags = entry.cls().__sklearn_tags__().input_tags
    if tags.categorical:
        data = "discrete" if entry.discrete else "any"
    elif tags.positive_only:
        data = "counts"
    elif not tags.allow_nan:
        data = "dense"
    else:
        data = "binary" if tags.sparse else "numeric"
    return Model(entry.cls, data, tags.sparse, entry.help, entry.min_features)


#: the command's model names, from the registry of estimators
MODELS = {entry.cli_name: _model(entry) for entry in ESTIMATORS if entry.cli_name}


def known_models() -> str:
    return ", ".join(MODELS)


def check_model_name(name: str) -> Model:
    """The model of ``name``, or an error listing the known names."""
    if name not in MODELS:
        import difflib

        close = difflib.get_close_matches(name, list(MODELS), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise CLIError(f"unknown model {name!r}; {hint}the models are: {known_models()}")
    return MODELS[name]


def default_model(kinds: dict[str, str], has_missing: bool, text: bool) -> str:
    """The model ``fit`` uses without ``--model`` (see the module docstring)."""
    if text:
        return "multinomial-nb"
    if has_missing or any(kind == "text" for kind in kinds.values()):
        return "mixed-nb"
    return "qda"


def check_data(name: str, X, source="the data") -> None:
    """An error when model ``name`` cannot take the feature table ``X``: the first cell
    it cannot take, by row, column and value (:mod:`bayesrule.cli.cells`)."""
    from .cells import check_cells

    model = MODELS[name]
    check_cells(X, name, model.data, source, largest_magnitude(name))


def largest_magnitude(name: str) -> float:
    """The largest magnitude of a value the family of model ``name`` evaluates."""
    family = getattr(MODELS[name].cls, "_family", None)
    return float(getattr(family, "largest_magnitude", np.inf))


#: estimator parameters that ``fit`` sets from an option -> the option
OPTIONS = {"reg_covar": "--reg-covar", "discretize": "--discretize", "n_bins": "--n-bins"}


def takes(parameter: str) -> list[str]:
    """The model names whose estimators have ``parameter``."""
    return [n for n, m in MODELS.items() if parameter in m.cls._get_param_names()]


def build(
    name: str,
    *,
    priors=None,
    loss=None,
    reject_label=None,
    components=None,
    max_components=None,
    random_state=0,
    **options,
):
    """A new, unfitted estimator for model ``name``.

    ``options`` are estimator parameters of :data:`OPTIONS` (None: the default); a model
    without the parameter is refused, naming the models that have it. ``mixture``
    chooses its components per class by BIC unless ``components`` says otherwise.
    """
    model = check_model_name(name)
    kwargs = {"priors": priors, "loss": loss, "reject_label": reject_label}
    if name == "mixture":
        kwargs["n_components"] = "bic" if components is None else components
        kwargs["random_state"] = random_state
        if max_components is not None:
            kwargs["max_components"] = max_components
    elif components is not None or max_components is not None:
        raise CLIError("--components and --max-components apply to --model mixture only")
    for parameter, value in options.items():
        if value is None:
            continue
        if name not in takes(parameter):
            raise CLIError(
                f"{OPTIONS[parameter]} applies to the models {', '.join(takes(parameter))}; "
                f"not to {name}"
            )
        kwargs[parameter] = None if value == "none" else value  # --discretize none
    if "random_state" in model.cls().get_params():  # eskdb, search: seeded as mixture
        kwargs["random_state"] = random_state
    return model.cls(**kwargs)


def parse_components(text: str | None):
    """``--components``: a positive integer or ``bic``."""
    if text is None or text == "bic":
        return text
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise CLIError(f"--components must be a positive integer or 'bic', got {text!r}")
    return value


# --------------------------------------------------------------------------- priors
def _label_of(key: str, classes: np.ndarray, what: str):
    labels = classes.tolist()
    for label in labels:
        if str(label) == key:
            return label
    raise CLIError(
        f"{what} names {key!r}, which is not a class; the classes are: "
        f"{', '.join(map(str, labels))}"
    )


def parse_priors(text: str | None, classes: np.ndarray):
    """``--priors``: ``empirical``, ``uniform`` or ``label=p,label=p,...``.

    Returns the estimator's ``priors`` parameter: None, ``"uniform"`` or a dict from
    class label (as in ``classes``) to probability.
    """
    if text is None or text.strip() == "empirical":
        return None
    if text.strip() == "uniform":
        return "uniform"
    priors = {}
    for part in text.split(","):
        key, eq, value = part.strip().rpartition("=")
        if not eq or not key.strip():
            raise CLIError(
                f"--priors {text!r} is not understood; give 'empirical', 'uniform' or "
                "label=probability pairs separated by commas, e.g. apple=0.4,orange=0.6"
            )
        label = _label_of(key.strip(), classes, "--priors")
        try:
            p = float(value)
        except ValueError:
            raise CLIError(
                f"--priors: {value.strip()!r} (for {key.strip()!r}) is not a number"
            ) from None
        if not math.isfinite(p) or p < 0:
            raise CLIError(f"--priors: the probability of {key.strip()!r} must be >= 0, got {p}")
        priors[label] = p
    missing = [str(c) for c in classes.tolist() if c not in priors]
    if missing:
        raise CLIError(f"--priors gives no probability for the classes {', '.join(missing)}")
    total = sum(priors.values())
    if abs(total - 1.0) > 1e-6:
        raise CLIError(f"--priors must sum to 1, but {text!r} sums to {total:.6g}")
    return priors


# --------------------------------------------------------------------------- loss
def parse_loss(path: str | None, classes: np.ndarray, reject_cost: float | None):
    """The loss matrix of ``--loss FILE`` and ``--reject-cost C``.

    The file is a CSV table: the header row names the classes (its first cell is
    free, e.g. ``action``), each further row starts with the action it is the loss
    of: a class (decide that class) or one other name (the reject action, e.g.
    ``reject``). ``--reject-cost C`` adds a reject row costing ``C`` for every class.

    Returns
    -------
    loss : LossMatrix or None
    reject_label : str or None
        The name of the reject action, when there is one.
    """
    from ..decision import LossMatrix

    if reject_cost is not None and (not math.isfinite(reject_cost) or reject_cost < 0):
        raise CLIError(f"--reject-cost must be a number >= 0, got {reject_cost}")
    labels = classes.tolist()
    if path is None:
        if reject_cost is None:
            return None, None
        return LossMatrix.with_reject(len(labels), float(reject_cost)), _reject_name(labels)
    from .data import check_file

    check_file(path)
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [[cell.strip() for cell in row] for row in csv.reader(f) if any(row)]
    if len(rows) < 2 or len(rows[0]) < 2:
        raise CLIError(f"loss file {path} needs a header row of classes and a row per action")
    columns = [_label_of(name, classes, f"loss file {path}") for name in rows[0][1:]]
    if sorted(map(str, columns)) != sorted(map(str, labels)):
        missing = [str(c) for c in labels if c not in columns]
        raise CLIError(f"loss file {path} has no column for the classes {', '.join(missing)}")
    by_action, extra = {}, []
    for row in rows[1:]:
        if len(row) != len(rows[0]):
            raise CLIError(
                f"loss file {path}: row {row[0]!r} has {len(row) - 1} values for "
                f"{len(columns)} classes"
            )
        try:
            values = [float(v) for v in row[1:]]
        except ValueError:
            raise CLIError(
                f"loss file {path}: row {row[0]!r} holds a value that is not a number"
            ) from None
        if not all(math.isfinite(v) and v >= 0 for v in values):
            raise CLIError(f"loss file {path}: row {row[0]!r} has a negative or infinite loss")
        ordered = [values[columns.index(c)] for c in labels]
        label = next((c for c in labels if str(c) == row[0]), None)
        if label is None:
            extra.append((row[0], ordered))
        elif label in by_action:
            raise CLIError(f"loss file {path} has two rows for the action {row[0]!r}")
        else:
            by_action[label] = ordered
    missing = [str(c) for c in labels if c not in by_action]
    if missing:
        raise CLIError(f"loss file {path} has no row for deciding {', '.join(missing)}")
    if len(extra) > 1:
        raise CLIError(
            f"loss file {path} has rows {[n for n, _ in extra]} that are not classes; "
            "one other row (the reject action) is allowed"
        )
    matrix = [by_action[c] for c in labels]
    reject = None
    if extra:
        if reject_cost is not None:
            raise CLIError(
                f"loss file {path} already has a reject row ({extra[0][0]!r}); "
                "leave out --reject-cost"
            )
        reject, row = extra[0]
        matrix.append(row)
    elif reject_cost is not None:
        reject = _reject_name(labels)
        matrix.append([float(reject_cost)] * len(labels))
    actions = [*map(str, labels), *([reject] if reject else [])]
    return LossMatrix(matrix, actions=actions), reject


def _reject_name(labels) -> str:
    name = "reject"
    while name in labels:
        name += "_"
    return name


# --------------------------------------------------------------------------- text
def vectorizer(vocabulary=None):
    """The word counter of ``--text-column`` (scikit-learn's CountVectorizer)."""
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(token_pattern=TOKEN_PATTERN, vocabulary=vocabulary)


def texts(column) -> list[str]:
    """A text column as strings, missing cells as empty texts."""
    return [
        "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
        for v in column.astype(object).tolist()
    ]


# --------------------------------------------------------------------------- metadata
def set_metadata(
    est, *, name, columns, target, source, n_samples, text_column=None, vocabulary=None
):
    """Store what ``inspect`` and ``predict`` need on the estimator (saved with it)."""
    from .. import __version__

    est.cli_model_ = name
    est.cli_columns_ = [str(c) for c in columns]
    est.cli_target_ = str(target)
    est.cli_text_column_ = text_column
    est.cli_vocabulary_ = None if vocabulary is None else [str(w) for w in vocabulary]
    est.cli_data_ = str(source)
    est.cli_n_samples_ = int(n_samples)
    est.cli_trained_at_ = datetime.now(UTC).isoformat(timespec="seconds")
    est.cli_version_ = __version__
    return est


def model_name_of(est) -> str:
    """The command-line name of a fitted estimator (also for models saved from Python)."""
    name = getattr(est, "cli_model_", None)
    if name:
        return name
    by_class = {m.cls: n for n, m in MODELS.items()}
    return by_class.get(type(est), type(est).__name__)
