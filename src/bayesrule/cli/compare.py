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
* numbers without missing values: qda, lda, gaussian-nb, nearest-mean, gaussian
  (the covariance structure by BIC), mixture (components per class chosen by BIC, 1 to
  4), kernel-nb; with missing values, those that leave them out (gaussian-nb,
  kernel-nb);
* non-negative whole numbers without missing values (counts) add the count models;
* whole numbers or text (discrete values) add the discrete models (categorical-nb,
  aode, ande, waode, tan, kdb, spode, skdb, eskdb, hnb, search);
* columns that are not all floating point (text, integers, booleans), or missing
  values, add mixed-nb; a model that needs more columns than the table has at its
  defaults (kdb: 3) is left out; tables with text columns get only mixed-nb and, when their
  numbers are whole, the discrete models.

Examples
--------
>>> import pandas as pd
>>> from bayesrule.cli.compare import applicable
>>> applicable(pd.DataFrame({"x": [0.5, 1.5], "y": [2.0, 3.5]}))
['qda', 'lda', 'gaussian-nb', 'nearest-mean', 'gaussian', 'mixture', 'kernel-nb']
>>> coded = pd.DataFrame({"colour": ["red", "green"], "n": [1, 2]})
>>> applicable(coded)  # doctest: +NORMALIZE_WHITESPACE
['categorical-nb', 'mixed-nb', 'aode', 'ande', 'waode', 'tan', 'spode', 'skdb', 'eskdb',
 'hnb', 'search']
"""

from __future__ import annotations

import contextlib
import json
import math
import time
import warnings

import numpy as np

from .._text import count
from ..report import _table
from . import data as D
from . import models as M
from .cells import check_typos
from .errors import CLIError
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
    return M.build(name, random_state=random_state)


def _rows(X, index):
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


def folds_of(y, cv: int, random_state: int) -> list:
    """The stratified folds ``compare`` uses: (train, test) index pairs."""
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(cv, shuffle=True, random_state=random_state)
    return list(splitter.split(np.zeros(len(y)), y))


def _empty_row(name: str) -> dict:
    return {
        "model": name,
        "accuracy": math.nan,
        "log_loss": math.nan,
        "bic": None,
        "fit_seconds": math.nan,
        "predict_seconds": math.nan,
        "total_seconds": math.nan,
        "error": None,
        "skipped": None,
        "warnings": [],
    }


def evaluate(name, X, y, folds, random_state: int = 0, note=None) -> dict:
    """Cross-validate model ``name`` over ``folds``: one row of :func:`compare`.

    ``note(text, step)`` (optional) is called as the work goes (``step``: True when a
    fold or the final fit is done). Fit and prediction are timed apart: the mean time of
    one fit on the training folds and of one ``predict_proba`` of the held-out fold.
    """
    from sklearn.metrics import log_loss

    note = note or (lambda text, step: None)
    classes = np.unique(y)
    position = {c: i for i, c in enumerate(classes.tolist())}
    row = _empty_row(name)
    begun = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            proba = np.zeros((len(y), len(classes)))
            decided = np.empty(len(y), dtype=object)
            fits, predictions = [], []
            for k, (train, test) in enumerate(folds):
                note(f"{name}: fold {k + 1}/{len(folds)}", False)
                est = _estimator(name, random_state)
                start = time.perf_counter()
                est.fit(_rows(X, train), y[train])
                fits.append(time.perf_counter() - start)
                columns = [position[c] for c in est.classes_.tolist()]
                start = time.perf_counter()
                posterior = est.predict_proba(_rows(X, test))
                predictions.append(time.perf_counter() - start)
                proba[np.ix_(test, columns)] = posterior
                decided[test] = est.classes_[posterior.argmax(axis=1)]  # zero-one loss
                note(f"{name}: fold {k + 1}/{len(folds)}", True)
            row["accuracy"] = float(np.mean(decided == y))
            row["log_loss"] = float(log_loss(y, proba, labels=classes))
            row["fit_seconds"] = float(np.mean(fits))
            row["predict_seconds"] = float(np.mean(predictions))
            note(f"{name}: BIC", False)
            est = _estimator(name, random_state).fit(X, y)
            try:
                row["bic"] = float(est.bic(X, y))
            except TypeError:  # no normalised density (complement-nb)
                row["bic"] = None
        except (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError) as exc:
            row["error"] = " ".join(str(exc).split())
        note(name, True)
    row["total_seconds"] = time.perf_counter() - begun
    row["warnings"] = sorted({" ".join(str(w.message).split()) for w in caught})
    return row


def compare(
    X, y, names, *, cv: int = 5, random_state: int = 0, progress=None, time_limit=None, status=None
) -> list[dict]:
    """Cross-validate each model of ``names`` on ``(X, y)``; rows best first.

    With ``time_limit`` (seconds), each model runs in a worker process
    (:mod:`bayesrule.cli.workers`) that is stopped when its cross-validation runs past
    the limit; the model's row is then ``skipped`` with the reason.

    Returns
    -------
    list of dict
        Per model: ``model``, ``accuracy``, ``log_loss``, ``bic`` (None when the model
        has none), ``fit_seconds`` and ``predict_seconds`` (means over the folds),
        ``total_seconds`` (the model's whole time, final fit for the BIC included),
        ``error`` (None, or why the model failed), ``skipped`` (None, or why it was
        stopped; failed and skipped models come last) and ``warnings`` (deduplicated).
    """
    from .workers import in_worker

    folds = folds_of(y, cv, random_state)
    results = []
    for i, name in enumerate(names):
        done_before = i * (cv + 1)

        def note(text, step, done_before=done_before):
            if progress is not None:
                if step:
                    progress.done = min(progress.done + 1, done_before + cv + 1)
                progress.show(text)

        stage = (
            status.stage(f"{name} ({i + 1} of {len(names)})")
            if status is not None and progress is None
            else contextlib.nullcontext()
        )
        with stage:
            if time_limit is None:
                row = evaluate(name, X, y, folds, random_state, note)
            else:
                args = (name, X, y, folds, random_state)
                row = in_worker(evaluate, args, note, time_limit, _empty_row(name))
        if progress is not None:
            progress.done = done_before + cv + 1
            progress.show(name)
        results.append(row)
    results.sort(
        key=lambda r: (
            r["error"] is not None or r["skipped"] is not None,
            r["log_loss"],
            -r["accuracy"],
        )
    )
    return results


def _format(results) -> list[str]:
    header = [
        "rank",
        "model",
        "accuracy (%)",
        "log loss",
        "BIC",
        "fit (ms)",
        "predict (ms)",
        "total (s)",
    ]
    rows = []
    for rank, r in enumerate(results, 1):
        if r["error"] is not None or r["skipped"] is not None:
            what = "failed" if r["error"] is not None else "skipped"
            rows.append(["-", r["model"], what, "", "", "", "", ""])
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
                f"{1000 * r['predict_seconds']:.1f}",
                f"{r['total_seconds']:.2f}",
            ]
        )
    lines = _table(header, rows, left=2)
    notes = [f"{r['model']}: failed: {r['error']}" for r in results if r["error"] is not None]
    notes += [f"{r['model']}: skipped: {r['skipped']}" for r in results if r["skipped"]]
    notes += [f"{r['model']}: warning: {w}" for r in results for w in r["warnings"][:2]]
    return lines + ([""] + notes if notes else [])


def _names(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise CLIError(f"{option} names no model; separate model names by commas")
    for n in names:
        M.check_model_name(n)
    return names


def chosen(names: list[str], models, skip) -> list[str]:
    """The models of ``--models`` (each must take the data) less those of ``--skip``."""
    wanted, skipped = _names(models, "--models"), _names(skip, "--skip") or []
    if wanted is not None:
        for n in wanted:
            if n not in names:
                raise CLIError(
                    f"{n} cannot take this data; the models that can: {', '.join(names)}"
                )
        names = wanted
    names = [n for n in names if n not in skipped]
    if not names:
        raise CLIError("--skip leaves no model to compare")
    return names


def run(args) -> int:
    """The ``compare`` subcommand."""
    if args.cv < 2:
        raise CLIError(f"--cv must be at least 2 folds, got {args.cv}")
    if args.time_limit is not None and not args.time_limit > 0:
        raise CLIError(f"--time-limit must be a positive number of seconds, got {args.time_limit}")
    status = args.status
    frame = D.read_for(args, args.data)
    y = D.target_labels(frame, args.target, args.data)
    classes, counts = np.unique(y, return_counts=True)
    D.check_two_classes(classes, args.target, args.data)
    if counts.min() < args.cv:
        small = str(classes[np.argmin(counts)])
        raise CLIError(
            f"class {small!r} has {count(int(counts.min()), 'row')}, fewer than the "
            f"{args.cv} folds; use --cv {max(int(counts.min()), 2)} or more data"
        )
    text = args.text_column is not None
    X, columns, _, _ = training_data(
        frame,
        args.data,
        args.target,
        args.features,
        args.text_column,
        "multinomial-nb" if text else "mixed-nb",
        args.id_column,
    )
    if not text:
        check_typos(X, args.data)
    names = chosen(applicable(X, text), args.models, args.skip)
    bar = status.bar(len(names) * (args.cv + 1), "compare")
    with bar:
        results = compare(
            X,
            y,
            names,
            cv=args.cv,
            random_state=args.random_state,
            progress=bar if bar.enabled else None,
            time_limit=args.time_limit,
            status=status,
        )
    if args.json:
        print(json.dumps(results, indent=2, default=_plain))
        return 0
    described = f"word counts of {args.text_column!r}" if text else f"{len(columns)} features"
    print(
        f"Compared {len(names)} models on {len(y)} rows of {args.data} ({described}, "
        f"{len(classes)} classes): {args.cv}-fold stratified cross-validation, "
        "best first by log loss"
    )
    print("\n".join(_format(results)))
    return 0


def _plain(value):
    return value.item() if hasattr(value, "item") else str(value)
