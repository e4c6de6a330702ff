"""Naive Bayes against semi-naive Bayes (AODE, TAN, KDB) on real data sets, cross-validated.

Every model is bayesrule's, with Laplace smoothing (``alpha=1``): ``CategoricalNB``,
``AODE``, ``TAN`` and ``KDB(k=2)``. The data sets ship with installed packages:

    digits          scikit-learn's 8x8 digits, 64 attributes with integer values 0..16
    wine            scikit-learn's wine recognition data, 13 continuous attributes
    breast_cancer   scikit-learn's Wisconsin diagnostic data, 30 continuous attributes
    iris            scikit-learn's iris, 4 continuous attributes
    penguins        palmerpenguins: island and sex (categorical, some missing) and four
                    measurements (continuous, two rows missing them); the survey year
                    is left out

Protocol: ``StratifiedKFold(folds, shuffle=True, random_state=0)``. In each fold the
measurement columns are binned with cut points learned on the training fold only,
either Fayyad-Irani MDL (``"mdl"``) or five equal-frequency bins (``"quantile"``),
with :func:`bayesrule.likelihoods.discrete.discretize.cut_points`; all four models get the very
same binned table (the digits need no binning). Missing values stay missing. On the
test fold: accuracy of the most probable class (what ``predict`` returns under the
default zero-one loss) and the log loss of ``predict_proba``
(:func:`sklearn.metrics.log_loss`). The table gives mean +- standard deviation over
the folds and the total wall time of fit + predict_proba over all folds.

Binning is done here, once per training fold, rather than by each estimator's own
``discretize=``, so that the four models see the very same table (and the same cut
points for every measurement column, whole-number ones included).

Usage: ``python examples/seminaive_compare.py [--folds 10] [--datasets wine iris ...]``;
it prints Markdown tables.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from bayesrule import AODE, KDB, TAN, CategoricalNB
from bayesrule.likelihoods.discrete.discretize import apply_cuts, cut_points

#: The four models, each built fresh per fold.
MODELS = {
    "CategoricalNB": lambda: CategoricalNB(alpha=1.0),
    "AODE": lambda: AODE(alpha=1.0),
    "TAN": lambda: TAN(alpha=1.0),
    "KDB(k=2)": lambda: KDB(k=2, alpha=1.0),
}

#: Binnings of the measurement columns: name -> (method, n_bins).
BINNINGS = {"mdl": ("mdl", 5), "quantile": ("quantile", 5)}


@dataclass
class Dataset:
    """A table ``X`` (DataFrame), labels ``y`` and the columns to bin in each fold."""

    name: str
    X: pd.DataFrame
    y: np.ndarray
    numeric: list[str] = field(default_factory=list)

    @property
    def n_missing(self) -> int:
        return int(self.X.isna().sum().sum())


def _sklearn(name, loader, numeric=True) -> Dataset:
    bunch = loader(as_frame=True)
    X = bunch.data
    return Dataset(name, X, bunch.target.to_numpy(), list(X.columns) if numeric else [])


def _penguins() -> Dataset:
    from palmerpenguins import load_penguins

    frame = load_penguins()
    X = frame.drop(columns=["species", "year"])
    X["island"] = X["island"].astype(object)  # strings; missing values become NaN
    X["sex"] = X["sex"].astype(object)
    numeric = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
    return Dataset("penguins", X, frame["species"].to_numpy(dtype=object), numeric)


#: Loaders of the data sets, by name.
DATASETS = {
    "digits": lambda: _sklearn("digits", load_digits, numeric=False),
    "wine": lambda: _sklearn("wine", load_wine),
    "breast_cancer": lambda: _sklearn("breast_cancer", load_breast_cancer),
    "iris": lambda: _sklearn("iris", load_iris),
    "penguins": _penguins,
}


def bin_fold(data: Dataset, train, test, method: str, n_bins: int):
    """The fold's training and test tables with ``data.numeric`` binned on the training rows.

    Returns ``(X_train, X_test, bins)``: DataFrames whose binned columns hold bin indices
    as floats (NaN where missing), and the number of bins of each binned column.
    """
    X_train, X_test = data.X.iloc[train].copy(), data.X.iloc[test].copy()
    _, y_codes = np.unique(data.y[train], return_inverse=True)
    n_classes = int(y_codes.max()) + 1
    bins = []
    for column in data.numeric:
        values = X_train[column].to_numpy(dtype=np.float64)
        seen = ~np.isnan(values)
        edges = cut_points(values[seen], y_codes[seen], n_classes, None, method, n_bins)
        X_train[column] = apply_cuts(values, edges)
        X_test[column] = apply_cuts(X_test[column].to_numpy(dtype=np.float64), edges)
        bins.append(edges.size + 1)
    return X_train, X_test, bins


def _score(make, X_train, y_train, X_test, y_test):
    """(accuracy, log loss, seconds, warning messages) of one model on one fold."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model = make().fit(X_train, y_train)
        proba = model.predict_proba(X_test)
        seconds = time.perf_counter() - start
    predicted = model.classes_[np.argmax(proba, axis=1)]
    accuracy = float(np.mean(predicted == y_test))
    loss = float(log_loss(y_test, proba, labels=model.classes_))
    messages = {f"{w.category.__name__}: {w.message}" for w in caught}
    return accuracy, loss, seconds, messages


def compare(datasets=None, folds=10, random_state=0, binnings=None, models=None) -> list[dict]:
    """Cross-validate every model on every data set (and binning); one dict per row.

    Each row: ``dataset, binning, bins (mean bins per binned column), model, accuracy,
    log_loss`` (arrays over the folds; NaN where the model raised), ``seconds``,
    ``warnings`` (set of messages) and ``error`` (``"Type: message"`` or None).
    """
    names = list(DATASETS) if datasets is None else list(datasets)
    binnings = BINNINGS if binnings is None else binnings
    models = MODELS if models is None else models
    rows = []
    for name in names:
        data = DATASETS[name]()
        splits = list(
            StratifiedKFold(folds, shuffle=True, random_state=random_state).split(data.X, data.y)
        )
        variants = binnings if data.numeric else {"none": (None, None)}
        for binning, (method, n_bins) in variants.items():
            block = {
                m: {"accuracy": [], "log_loss": [], "seconds": 0.0, "warnings": set()}
                for m in models
            }
            errors, all_bins = {}, []
            for train, test in splits:
                if method is None:
                    X_train, X_test = data.X.iloc[train], data.X.iloc[test]
                else:
                    X_train, X_test, bins = bin_fold(data, train, test, method, n_bins)
                    all_bins += bins
                for model, make in models.items():
                    if model in errors:
                        continue
                    try:
                        acc, loss, sec, msgs = _score(
                            make, X_train, data.y[train], X_test, data.y[test]
                        )
                    except Exception as exc:  # reported in the table, never hidden
                        errors[model] = f"{type(exc).__name__}: {exc}"
                        continue
                    cell = block[model]
                    cell["accuracy"].append(acc)
                    cell["log_loss"].append(loss)
                    cell["seconds"] += sec
                    cell["warnings"] |= msgs
            for model, cell in block.items():
                error = errors.get(model)
                rows.append(
                    {
                        "dataset": name,
                        "binning": binning,
                        "bins": float(np.mean(all_bins)) if all_bins else None,
                        "model": model,
                        "accuracy": np.array(cell["accuracy"] if error is None else [np.nan]),
                        "log_loss": np.array(cell["log_loss"] if error is None else [np.nan]),
                        "seconds": cell["seconds"],
                        "warnings": cell["warnings"],
                        "error": error,
                    }
                )
    return rows


def dataset_table(datasets=None) -> str:
    """Markdown table of the data sets: rows, attributes, classes, binned, missing."""
    lines = [
        "| data set | rows | attributes | classes | binned attributes | missing values |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in list(DATASETS) if datasets is None else datasets:
        d = DATASETS[name]()
        lines.append(
            f"| {name} | {d.X.shape[0]} | {d.X.shape[1]} | {np.unique(d.y).size} "
            f"| {len(d.numeric)} | {d.n_missing} |"
        )
    return "\n".join(lines)


def _mean_sd(values, digits) -> str:
    if np.isnan(values).any():
        return "error"
    return f"{values.mean():.{digits}f} ± {values.std(ddof=1) if values.size > 1 else 0:.{digits}f}"


def results_table(rows) -> str:
    """Markdown table of :func:`compare`'s rows; the best mean of each block in bold."""
    lines = [
        "| data set | binning | model | accuracy | log loss | time (s) |",
        "|---|---|---|---:|---:|---:|",
    ]
    blocks = {}
    for row in rows:
        blocks.setdefault((row["dataset"], row["binning"]), []).append(row)
    for (dataset, binning), block in blocks.items():
        accs = [r["accuracy"].mean() for r in block]
        losses = [r["log_loss"].mean() for r in block]
        best_acc, best_loss = np.nanmax(accs), np.nanmin(losses)
        label = binning if block[0]["bins"] is None else f"{binning} ({block[0]['bins']:.1f} bins)"
        for row, acc, loss in zip(block, accs, losses, strict=True):
            a, ll = _mean_sd(row["accuracy"], 3), _mean_sd(row["log_loss"], 3)
            a = f"**{a}**" if acc == best_acc else a
            ll = f"**{ll}**" if loss == best_loss else ll
            lines.append(
                f"| {dataset} | {label} | {row['model']} | {a} | {ll} | {row['seconds']:.3f} |"
            )
    return "\n".join(lines)


def notes(rows) -> str:
    """The errors and warnings met, one line each ("none" when there were none)."""
    lines = [
        f"- {r['dataset']} / {r['binning']} / {r['model']}: {text}"
        for r in rows
        for text in ([r["error"]] if r["error"] else []) + sorted(r["warnings"])
    ]
    return "\n".join(lines) if lines else "- none"


def main(folds=10, datasets=None, random_state=0) -> list[dict]:
    """Print the data set table, the results table and the notes; return the rows."""
    names = list(DATASETS) if datasets is None else list(datasets)
    rows = compare(names, folds=folds, random_state=random_state)
    print(f"## Data sets\n\n{dataset_table(names)}\n")
    print(
        f"## {folds}-fold cross-validation (StratifiedKFold, shuffle, random_state="
        f"{random_state}), alpha=1\n\nmean ± sd over folds; bins: mean bins per binned "
        f"column; time: fit + predict_proba, all folds; best mean per block in bold.\n"
    )
    print(results_table(rows))
    print(f"\nErrors and warnings:\n{notes(rows)}")
    return rows


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=10, help="number of folds")
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), help="data sets")
    parser.add_argument("--random-state", type=int, default=0, help="seed of the folds")
    args = parser.parse_args(argv)
    return {"folds": args.folds, "datasets": args.datasets, "random_state": args.random_state}


if __name__ == "__main__":
    main(**_parse(sys.argv[1:]))
