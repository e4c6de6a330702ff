"""Ensembles of selective KDBs against a random forest, on the folds and bins of the Weka
comparison.

The data sets, the 10 stratified folds (``random_state=0``) and the MDL discretisation
are those of :mod:`weka_data` (as in ``benchmarks/weka_compare.py``): every model reads
the same integer codes (NaN where missing), bayesrule's with ``discretize=None``.

* ``RandomForest``: scikit-learn's ``RandomForestClassifier(n_estimators=100,
  random_state=0)`` on the codes as numbers (it takes NaN since scikit-learn 1.4);
* ``ESKDB``: bayesrule's ensemble of selective KDBs, its defaults (``random_state=0``
  where it takes one);
* ``SKDB``, ``KDB`` (k=2), ``AODE``, ``A2DE`` (``AnDE(n=2)``): bayesrule's, defaults.

A model bayesrule does not have yet is reported as not available. No parameter is tuned
on the test folds. ``--raw`` adds ``RandomForest (raw)`` and ``ESKDB (raw)``: the same
folds unbinned (numeric columns as floats; ESKDB discretises them itself, on the training
fold, as its defaults say). Per data set: mean accuracy and log loss over the folds
(``sklearn.metrics.log_loss``; a forest's posteriors of 0 are clipped there), then the
mean over data sets, and on how many data sets ESKDB's accuracy is at least the forest's
and its log loss lower.

Usage::

    .venv/bin/python benchmarks/forest_compare.py [--datasets iris wine ...] [--raw] [--record]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import log_loss

sys.path.insert(0, str(Path(__file__).resolve().parent))
import weka_data  # noqa: E402

import bayesrule  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "forest_results.md"


def _bayesrule(name: str, **params):
    """A factory of bayesrule's ``name`` with ``params`` (those it takes, plus
    ``discretize=None`` unless given), or None where bayesrule lacks the class."""

    def make():
        cls = getattr(bayesrule, name, None)
        if cls is None:
            return None
        accepted = cls().get_params()
        wanted = {"discretize": None, "random_state": 0, **params}
        return cls(**{k: v for k, v in wanted.items() if k in accepted})

    return make


def _forest():
    return RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1)


#: label -> (factory, reads the raw folds)
MODELS = {
    "RandomForest": (_forest, False),
    "ESKDB": (_bayesrule("ESKDB"), False),
    "SKDB": (_bayesrule("SKDB"), False),
    "KDB (k=2)": (_bayesrule("KDB", k=2), False),
    "AODE": (_bayesrule("AODE"), False),
    "A2DE": (_bayesrule("AnDE", n=2), False),
}
RAW_MODELS = {
    "RandomForest (raw)": (_forest, True),
    "ESKDB (raw)": (_bayesrule("ESKDB", discretize="auto"), True),
}


def score(make, folds, raw: bool) -> dict:
    """Mean accuracy and log loss over the folds, seconds, or ``error``."""
    accuracy, losses, seconds = [], [], 0.0
    for fold in folds:
        model = make()
        if model is None:
            return {"error": "not available"}
        X_train, X_test = (fold.raw_train, fold.raw_test) if raw else (fold.X_train, fold.X_test)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            try:
                model.fit(X_train, fold.y_train)
                proba = model.predict_proba(X_test)
            except Exception as exc:  # reported in the table, never hidden
                return {"error": f"{type(exc).__name__}: {str(exc)[:120]}"}
            seconds += time.perf_counter() - start
        full = np.zeros((len(fold.y_test), len(fold.classes)))
        full[:, np.searchsorted(fold.classes, model.classes_)] = proba
        truth = np.searchsorted(fold.classes, fold.y_test)
        accuracy.append(np.mean(np.argmax(full, 1) == truth))
        losses.append(log_loss(truth, full, labels=np.arange(len(fold.classes))))
    return {"accuracy": float(np.mean(accuracy)), "log_loss": float(np.mean(losses)), "s": seconds}


def compare(names, models) -> dict:
    """{data set: {model: score}}."""
    results = {}
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # classes with fewer than 10 rows
            folds = weka_data.make_folds(weka_data.load(name))
        results[name] = {label: score(make, folds, raw) for label, (make, raw) in models.items()}
        line = {m: r.get("accuracy", r.get("error")) for m, r in results[name].items()}
        print(f"{name}: {line}", file=sys.stderr)
    return results


def table(results, models, key: str) -> str:
    """One row per data set, then the means over all data sets (n/a where a model failed
    on one) and over the data sets every model ran: ``key`` (accuracy in %, or log loss)
    of every model."""
    labels, fmt = list(models), (".2f" if key == "accuracy" else ".4f")
    scale = 100 if key == "accuracy" else 1
    lines = [f"| data set | {' | '.join(labels)} |", "|---|" + "---:|" * len(labels)]
    for name, row in results.items():
        cells = ["n/a" if "error" in row[m] else format(scale * row[m][key], fmt) for m in labels]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    common = [n for n, row in results.items() if not any("error" in r for r in row.values())]
    for title, names in (("all", list(results)), (f"the {len(common)} all ran", common)):
        means = []
        for m in labels:
            rows = [results[n][m] for n in names]
            bad = not rows or any("error" in r for r in rows)
            means.append("n/a" if bad else format(scale * np.mean([r[key] for r in rows]), fmt))
        lines.append(f"| **mean, {title}** | {' | '.join(means)} |")
    return "\n".join(lines)


def errors(results) -> str:
    lines = [
        f"- {name} / {model}: {r['error']}"
        for name, row in results.items()
        for model, r in row.items()
        if "error" in r
    ]
    return "\n".join(lines) if lines else "- none"


def verdict(results, ours="ESKDB", forest="RandomForest") -> str:
    """``ours`` against ``forest``, over the data sets where both ran: mean accuracy,
    mean log loss, wins."""
    rows = [
        (r[ours], r[forest])
        for r in results.values()
        if "error" not in r[ours] and "error" not in r[forest]
    ]
    failed = [n for n, r in results.items() if "error" in r[ours]]
    if not rows:
        return f"{ours}: {next(iter(results.values()))[ours]['error']}."
    acc_e, acc_f = (np.mean([p[i]["accuracy"] for p in rows]) for i in (0, 1))
    ll_e, ll_f = (np.mean([p[i]["log_loss"] for p in rows]) for i in (0, 1))
    wins = sum(e["accuracy"] >= f["accuracy"] for e, f in rows)
    lower = sum(e["log_loss"] < f["log_loss"] for e, f in rows)
    return (
        f"- {ours} against {forest}, on the {len(rows)} data sets where both ran ({ours} "
        f"failed on {', '.join(failed) if failed else 'none'}): mean accuracy "
        f"{100 * acc_e:.2f} % vs {100 * acc_f:.2f} % "
        f"({'at least' if acc_e >= acc_f else 'BELOW'}); "
        f"mean log loss {ll_e:.4f} vs {ll_f:.4f} ({'lower' if ll_e < ll_f else 'NOT lower'}); "
        f"accuracy at least the forest's on {wins}/{len(rows)} data sets, log loss lower on "
        f"{lower}/{len(rows)}."
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = weka_data.dataset_names()
    parser.add_argument("--datasets", nargs="+", choices=names, default=names)
    parser.add_argument("--raw", action="store_true", help="also the unbinned folds")
    parser.add_argument("--record", action="store_true", help=f"write {RESULTS.name}")
    args = parser.parse_args(argv)
    models = {**MODELS, **(RAW_MODELS if args.raw else {})}
    start = time.perf_counter()
    results = compare(args.datasets, models)
    seconds = {m: sum(results[n][m].get("s", 0.0) for n in results) for m in models}
    text = "\n\n".join(
        [
            "# ESKDB against a random forest, on the Weka comparison's folds and bins\n\n"
            "Written by `benchmarks/forest_compare.py --record` (protocol in its "
            "docstring): 10 stratified folds (random_state=0), numeric columns binned at "
            "each training fold's MDL cut points, every model on the same integer codes; "
            "means over the folds, then over the data sets.",
            f"## Accuracy (%)\n\n{table(results, models, 'accuracy')}",
            f"## Log loss\n\n{table(results, models, 'log_loss')}",
            verdict(results)
            + ("\n" + verdict(results, "ESKDB (raw)", "RandomForest (raw)") if args.raw else ""),
            f"Not available or failed:\n\n{errors(results)}",
            "Fit + predict_proba seconds, all data sets and folds: "
            + ", ".join(f"{m} {s:.1f}" for m, s in seconds.items()),
        ]
    )
    print(text)
    print(f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    if args.record:
        RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main()
