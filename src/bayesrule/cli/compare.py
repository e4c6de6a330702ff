"""``bayesrule compare``: which Bayes model fits my data? Cross-validated, best first.

Every model family that can take the data is scored by stratified k-fold
cross-validation: accuracy and log loss over the held-out posteriors of all folds,
the BIC of the model fitted on all the data (lower is better; complement-nb has no
normalised density and no BIC) and the mean time of one fit. Rows are sorted by log
loss, then accuracy: log loss scores the posteriors themselves, which Bayes decisions
under a loss or with a reject option use, not only their largest entry.

Which families are tried (:func:`applicable`), from the data each model takes (its
tags, see :mod:`bayesrule.cli.models`):

* word counts of a text column: the models that take text (bernoulli-nb,
  multinomial-nb, complement-nb, poisson-nb);
* numbers without missing values: qda, lda, gaussian-nb, nearest-mean, mixture
  (components per class chosen by BIC, 1 to 4), kernel-nb; with missing values,
  those that leave them out (gaussian-nb, kernel-nb);
* non-negative whole numbers without missing values (counts) add the count models;
* whole numbers or text (discrete values) add the discrete models (categorical-nb,
  aode, tan, kdb, spode);
* columns that are not all floating point (text, integers, booleans), or missing
  values, add mixed-nb; a model that needs more columns than the table has at its
  defaults (kdb: 3) is left out; tables with text columns get only mixed-nb and, when their
  numbers are whole, the discrete models.

Examples
--------
>>> import pandas as pd
>>> from bayesrule.cli.compare import applicable
>>> applicable(pd.DataFrame({"x": [0.5, 1.5], "y": [2.0, 3.5]}))
['qda', 'lda', 'gaussian-nb', 'nearest-mean', 'mixture', 'kernel-nb']
>>> applicable(pd.DataFrame({"colour": ["red", "green"], "n": [1, 2]}))
['categorical-nb', 'mixed-nb', 'aode', 'tan', 'spode']
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from ..report import _table
from . import data as D
from . import models as M
from .errors import CLIError
from .progress import Progress
from .training import training_data

__all__ = ["applicable", "compare", "run"]

#: the largest number of components per class that ``mixture`` tries (by BIC)
MAX_COMPONENTS = 4


def applicable(X, text: bool = False) -> list[str]:
    """The model names that can take the feature table ``X`` (module docstring), in the
    command's order, from the data each model takes (:data:`~bayesrule.cli.models.MODELS`)."""
    if text:
        return [name for name, model in M.MODELS.items() if model.text]
    kinds = D.column_kinds(X)
    has_text = any(kind == "text" for kind in kinds.values())
    numbers = X[[c for c, kind in kinds.items() if kind != "text"]]
    values = numbers.to_numpy(dtype=float, na_value=np.nan)
    missing = bool(X.isna().to_numpy().any())
    observed = values[~np.isnan(values)]
    whole = bool(np.all(observed == np.round(observed)))
    takes = {
        "any": missing or any(kind != "float" for kind in kinds.values()),
        "discrete": whole,
        "numeric": not has_text,
        "dense": not (has_text or missing),
        "counts": not (has_text or missing) and whole and observed.size and observed.min() >= 0,
    }
    takes["binary"] = takes["counts"]
    wide = len(kinds)
    return [
        name for name, model in M.MODELS.items() if takes[model.data] and wide >= model.min_features
    ]


def _estimator(name: str, random_state: int):
    if name == "mixture":
        return M.build(
            name, components="bic", max_components=MAX_COMPONENTS, random_state=random_state
        )
    return M.build(name)


def _rows(X, index):
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


def compare(X, y, names, *, cv: int = 5, random_state: int = 0, progress=None) -> list[dict]:
    """Cross-validate each model of ``names`` on ``(X, y)``; rows best first.

    Returns
    -------
    list of dict
        Per model: ``model``, ``accuracy``, ``log_loss``, ``bic`` (None when the model
        has none), ``fit_seconds`` (mean over the folds), ``error`` (None, or why the
        model failed; failed models come last) and ``warnings`` (messages, deduplicated).
    """
    from sklearn.metrics import log_loss
    from sklearn.model_selection import StratifiedKFold

    classes = np.unique(y)
    position = {c: i for i, c in enumerate(classes.tolist())}
    folds = list(
        StratifiedKFold(cv, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y)
    )
    results = []
    for name in names:
        row = {
            "model": name,
            "accuracy": math.nan,
            "log_loss": math.nan,
            "bic": None,
            "fit_seconds": math.nan,
            "error": None,
            "warnings": [],
        }
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                proba = np.zeros((len(y), len(classes)))
                decided = np.empty(len(y), dtype=object)
                seconds = []
                for k, (train, test) in enumerate(folds):
                    if progress is not None:
                        progress.show(f"{name}: fold {k + 1}/{cv}")
                    est = _estimator(name, random_state)
                    start = time.perf_counter()
                    est.fit(_rows(X, train), y[train])
                    seconds.append(time.perf_counter() - start)
                    columns = [position[c] for c in est.classes_.tolist()]
                    posterior = est.predict_proba(_rows(X, test))
                    proba[np.ix_(test, columns)] = posterior
                    decided[test] = est.classes_[posterior.argmax(axis=1)]  # zero-one loss
                    if progress is not None:
                        progress.advance(f"{name}: fold {k + 1}/{cv}")
                row["accuracy"] = float(np.mean(decided == y))
                row["log_loss"] = float(log_loss(y, proba, labels=classes))
                row["fit_seconds"] = float(np.mean(seconds))
                if progress is not None:
                    progress.show(f"{name}: BIC")
                est = _estimator(name, random_state).fit(X, y)
                try:
                    row["bic"] = float(est.bic(X, y))
                except TypeError:  # no normalised density (complement-nb)
                    row["bic"] = None
            except (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError) as exc:
                row["error"] = " ".join(str(exc).split())
            if progress is not None:
                progress.done = (len(results) + 1) * (cv + 1)
                progress.show(name)
        row["warnings"] = sorted({" ".join(str(w.message).split()) for w in caught})
        results.append(row)
    results.sort(key=lambda r: (r["error"] is not None, r["log_loss"], -r["accuracy"]))
    return results


def _format(results) -> list[str]:
    header = ["rank", "model", "accuracy (%)", "log loss", "BIC", "fit (ms)"]
    rows = []
    for rank, r in enumerate(results, 1):
        if r["error"] is not None:
            rows.append(["-", r["model"], "failed", "", "", ""])
            continue
        bic = "-" if r["bic"] is None else f"{r['bic']:.1f}"
        rows.append(
            [
                str(rank),
                r["model"],
                f"{100 * r['accuracy']:.1f}",
                f"{r['log_loss']:.4f}",
                bic,
                f"{1000 * r['fit_seconds']:.1f}",
            ]
        )
    lines = _table(header, rows, left=2)
    notes = [f"{r['model']}: failed: {r['error']}" for r in results if r["error"] is not None]
    notes += [f"{r['model']}: warning: {w}" for r in results for w in r["warnings"][:2]]
    return lines + ([""] + notes if notes else [])


def run(args) -> int:
    """The ``compare`` subcommand."""
    if args.cv < 2:
        raise CLIError(f"--cv must be at least 2 folds, got {args.cv}")
    frame = D.read_table(args.data)
    y = D.target_labels(frame, args.target, args.data)
    classes, counts = np.unique(y, return_counts=True)
    D.check_two_classes(classes, args.target, args.data)
    if counts.min() < args.cv:
        small = str(classes[np.argmin(counts)])
        raise CLIError(
            f"class {small!r} has {counts.min()} rows, fewer than the {args.cv} "
            f"folds; use --cv {max(int(counts.min()), 2)} or more data"
        )
    text = args.text_column is not None
    X, columns, _, _ = training_data(
        frame,
        args.data,
        args.target,
        args.features,
        args.text_column,
        "multinomial-nb" if text else "mixed-nb",
    )
    names = applicable(X, text)
    if args.models:
        wanted = [n.strip() for n in args.models.split(",")]
        for n in wanted:
            M.check_model_name(n)
            if n not in names:
                raise CLIError(
                    f"{n} cannot take this data; the models that can: {', '.join(names)}"
                )
        names = wanted
    with Progress(len(names) * (args.cv + 1), "compare") as bar:
        results = compare(X, y, names, cv=args.cv, random_state=args.random_state, progress=bar)
    described = f"word counts of {args.text_column!r}" if text else f"{len(columns)} features"
    print(
        f"Compared {len(names)} models on {len(y)} rows of {args.data} ({described}, "
        f"{len(classes)} classes): {args.cv}-fold stratified cross-validation, "
        "best first by log loss"
    )
    print("\n".join(_format(results)))
    return 0
