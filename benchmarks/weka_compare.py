"""bayesrule's semi-naive Bayes against Weka 3.6's, on the same folds and the same bins.

Needs Java and Weka 3.6 (Debian: ``apt-get install weka``, ``/usr/share/java/weka.jar``;
another jar with ``--weka-jar``). Data sets, folds and the MDL discretisation are those of
:mod:`weka_data` (10 stratified folds, ``random_state=0``; numeric columns cut at the
Fayyad-Irani MDL points of the training fold): both libraries read the very same integer
codes, Weka as nominal ARFF files written per fold, bayesrule as a float array (NaN for
``?``) with ``discretize=None``.

Weka side: ``benchmarks/WekaFolds.java`` (run by ``java`` from source, one JVM per model)
trains a fresh classifier per fold on the training ARFF and writes
``distributionForInstance`` of every test row at full precision (what ``-p 0
-distribution`` prints to 3 decimals; ``--check-cli`` compares the two on one fold per
model). Weka's defaults, as its ``getOptions`` spells them: NaiveBayes (Laplace counts
on nominal data), AODE ``-F 1`` (Laplace), AODEsr ``-F 1 -M 1.0 -C 50`` (m-estimates,
m = 1; the row "AODEsr -L" takes Laplace estimates, as AODE's), WAODE, HNB, and
BayesNet with the TAN search (``-S BAYES``) and ``SimpleEstimator -A 0.5``, plus ``-D``
(counts without an ADTree, which runs out of memory on digits). The row "TAN
(ENTROPY)" scores edges by log-likelihood (``-S ENTROPY``), which makes them
the conditional mutual information of Friedman et al.'s TAN. BayesNet replaces missing
values by the training modes (its ReplaceMissingValues filter); WAODE and HNB refuse
them. Results are cached in ``benchmarks/weka_cache.json.gz``, keyed by the ARFF text
and the options; ``--rerun-weka`` runs Weka again.

bayesrule side: the counterparts of each Weka model (:data:`COUNTERPARTS`), with the
settings that correspond to Weka's defaults (AODEsr and WAODE with
``smoothing="m-estimate"``; TAN with ``direction="weka"``, and ``edge_score="bayes"``
for ``-S BAYES``; TAN also on mode-imputed tables, as
BayesNet sees them; WAODE and HNB on mode-imputed tables beside Weka's
``FilteredClassifier`` with ``ReplaceMissingValues``, so that the data sets with missing
values are compared too; these rows are printed for the data sets with missing values
only, and summarised over all); a model or parameter bayesrule lacks is reported ("not
available", or the parameter listed as not passed). Per data set and counterpart: mean
over folds of accuracy and log loss (``sklearn.metrics.log_loss`` over all classes),
the difference in accuracy (bayesrule - Weka, percentage points; ``LOW`` where below
-0.5), the largest absolute difference of the posteriors of any test row (about 1e-15
where the two compute the same model) and the rate at which the predicted classes agree.

``--speed``: Weka's AODE against ``bayesrule.AODE`` on benchmarks/bench.py's 100,000 x 30
x 3 table, trained on it and scoring it (:func:`speed`).

Usage::

    .venv/bin/python benchmarks/weka_compare.py                 # tables to stdout
    .venv/bin/python benchmarks/weka_compare.py --speed --record  # + benchmarks/weka_results.md
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss

sys.path.insert(0, str(Path(__file__).resolve().parent))
import weka_data  # noqa: E402

import bayesrule  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "WekaFolds.java"
CACHE = HERE / "weka_cache.json.gz"
RESULTS = HERE / "weka_results.md"
BAYES = "weka.classifiers.bayes."
TAN = [
    "-D",  # counts without an ADTree (same counts; the ADTree runs out of memory on digits)
    "-Q",
    "weka.classifiers.bayes.net.search.local.TAN",
    "-E",
    "weka.classifiers.bayes.net.estimate.SimpleEstimator",
]
TAN_ENTROPY = [*TAN[:3], "--", "-S", "ENTROPY", *TAN[3:], "--", "-A", "0.5"]

IMPUTE = ["-F", "weka.filters.unsupervised.attribute.ReplaceMissingValues", "-W"]

#: Weka model -> (class, options: Weka's defaults unless said)
WEKA_MODELS = {
    "NaiveBayes": (BAYES + "NaiveBayes", []),
    "AODE": (BAYES + "AODE", []),
    "AODEsr": (BAYES + "AODEsr", []),
    "AODEsr -L": (BAYES + "AODEsr", ["-L"]),  # Laplace estimates instead of m-estimates
    "WAODE": (BAYES + "WAODE", []),
    "HNB": (BAYES + "HNB", []),
    "TAN": (BAYES + "BayesNet", TAN),
    "TAN (ENTROPY)": (BAYES + "BayesNet", TAN_ENTROPY),
    "WAODE, modes imputed": (
        "weka.classifiers.meta.FilteredClassifier",
        [*IMPUTE, BAYES + "WAODE"],
    ),
    "HNB, modes imputed": ("weka.classifiers.meta.FilteredClassifier", [*IMPUTE, BAYES + "HNB"]),
}


@dataclass(frozen=True)
class Counterpart:
    """bayesrule's model compared with the Weka model ``weka``: the class ``cls`` with
    ``required`` parameters (NotAvailable without them) and the ``matching`` ones that
    correspond to Weka's defaults (passed where the class takes them; ``priors=a``:
    Weka's class prior ``(N_c + a) / (N + a C)``, computed on the training fold).
    ``impute``: missing values replaced by the training fold's most frequent value
    first, as Weka's BayesNet does (its ReplaceMissingValues filter). Every model gets
    ``discretize=None``."""

    weka: str
    cls: str
    required: dict = field(default_factory=dict)
    matching: dict = field(default_factory=dict)
    note: str = ""
    impute: bool = False

    @property
    def label(self) -> str:
        return self.cls + (", modes imputed" if self.impute else "")


#: SimpleEstimator -A 0.5, no back-off; the tree grown and directed as Weka's TAN search
_TAN = {"alpha": 0.5, "backoff": 0.0, "direction": "weka"}
_TAN_BAYES = {**_TAN, "edge_score": "bayes"}  # -S BAYES, the score's alpha 0.5 = alpha
_PRIOR = {"priors": 0.5}  # SimpleEstimator's class prior
#: Weka's AODEsr and WAODE smooth by m-estimates, m = 1, uniform priors: P(y, x_p) =
#: (F(y, x_p) + 1 / (C O_p)) / (N_p + 1), P(x_j | y, x_p) = (F(y, x_p, x_j) + 1 / O_j) /
#: (F(y, x_p) + 1): bayesrule's smoothing="m-estimate" with alpha = m
_M = {"smoothing": "m-estimate", "alpha": 1.0}
_IMPUTED = "missing values replaced by the training modes, as Weka's BayesNet does"

#: the rows of the comparison: one or more bayesrule models per Weka model
COUNTERPARTS = [
    Counterpart("NaiveBayes", "CategoricalNB", {"alpha": 1.0}, {"priors": 1.0}),
    Counterpart("AODE", "AODE", {"alpha": 1.0, "min_count": 1}, {"backoff": 0.0}),
    Counterpart("AODEsr", "AODE", {"subsumption": True, **_M}, {"min_count": 1}),
    Counterpart("AODEsr -L", "AODE", {"subsumption": True, "alpha": 1.0, "min_count": 1}),
    Counterpart("WAODE", "WAODE", _M, {"min_count": 0}, "no frequency limit, as Weka's"),
    Counterpart("HNB", "HNB"),
    Counterpart("TAN", "TAN", _TAN_BAYES, _PRIOR),
    Counterpart("TAN", "TAN", _TAN_BAYES, _PRIOR, _IMPUTED, impute=True),
    Counterpart("TAN (ENTROPY)", "TAN", _TAN, _PRIOR, "edges by CMI: the ENTROPY tree"),
    Counterpart("TAN (ENTROPY)", "TAN", _TAN, _PRIOR, _IMPUTED, impute=True),
    Counterpart("WAODE, modes imputed", "WAODE", _M, {"min_count": 0}, impute=True),
    Counterpart("HNB, modes imputed", "HNB", impute=True),
]


class NotAvailable(Exception):
    """A counterpart bayesrule does not have (yet)."""


def smoothed_priors(y, classes, a: float) -> dict:
    """Weka's class prior: (N_c + a) / (N + a C) over the training fold."""
    counts = np.array([np.sum(y == c) for c in classes], dtype=np.float64)
    return dict(zip(classes, (counts + a) / (counts.sum() + a * len(classes)), strict=True))


def build(part: Counterpart, fold: weka_data.Fold):
    """A fresh, unfitted counterpart, and the Weka-matching parameters it could not take
    (NotAvailable where bayesrule lacks the class or a required parameter)."""
    cls = getattr(bayesrule, part.cls, None)
    if cls is None:
        raise NotAvailable(f"bayesrule has no {part.cls}")
    accepted = cls().get_params()
    missing = [p for p in part.required if p not in accepted]
    if missing:
        raise NotAvailable(f"{part.cls} takes no {', '.join(missing)}")
    params = {"discretize": None, **part.required}
    dropped = []
    for key, value in part.matching.items():
        if key not in accepted:
            dropped.append(key)
        elif key == "priors":
            classes = sorted(set(fold.y_train.tolist()))
            params[key] = smoothed_priors(fold.y_train, classes, value)
        else:
            params[key] = value
    return cls(**params), dropped


def impute_modes(X_train, X_test):
    """Both tables with each missing code replaced by the training column's most
    frequent code (the lowest on ties, as Weka's ReplaceMissingValues)."""
    X_train, X_test = X_train.copy(), X_test.copy()
    for j in range(X_train.shape[1]):
        seen = X_train[~np.isnan(X_train[:, j]), j].astype(np.int64)
        mode = np.bincount(seen).argmax() if seen.size else 0
        X_train[np.isnan(X_train[:, j]), j] = mode
        X_test[np.isnan(X_test[:, j]), j] = mode
    return X_train, X_test


def metrics(proba: np.ndarray, fold: weka_data.Fold) -> tuple[float, float, np.ndarray]:
    """(accuracy, log loss, predicted class indices) of posteriors in ``fold.classes``
    order."""
    predicted = np.argmax(proba, axis=1)
    truth = np.searchsorted(fold.classes, fold.y_test)
    accuracy = float(np.mean(predicted == truth))
    loss = float(log_loss(truth, proba, labels=np.arange(len(fold.classes))))
    return accuracy, loss, predicted


def run_bayesrule(part: Counterpart, folds) -> dict:
    """Per fold the counterpart's posteriors (fold.classes order) and seconds."""
    out = {"proba": [], "seconds": 0.0, "dropped": [], "warnings": set()}
    for fold in folds:
        clf, out["dropped"] = build(part, fold)
        X_train, X_test = fold.X_train, fold.X_test
        if part.impute:
            X_train, X_test = impute_modes(X_train, X_test)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            clf.fit(X_train, fold.y_train)
            proba = clf.predict_proba(X_test)
            out["seconds"] += time.perf_counter() - start
        out["warnings"] |= {f"{w.category.__name__}: {w.message}" for w in caught}
        full = np.zeros((len(fold.y_test), len(fold.classes)))
        full[:, np.searchsorted(fold.classes, clf.classes_)] = proba
        out["proba"].append(full)
    return out


# ------------------------------------------------------------------------------ Weka


def _java(jar, *args, timeout=3000) -> subprocess.CompletedProcess:
    command = ["java", "-Xmx4g", "-cp", str(jar), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def _parse_runner(text: str) -> tuple[str, dict]:
    """(effective options, {key: {"dist", "build", "test"} or {"error"}})."""
    effective, runs, current = "", {}, None
    for line in text.splitlines():
        if line.startswith("@ "):
            effective = line[2:]
        elif line.startswith("# "):
            key, build_s, test_s = line[2:].rsplit(" ", 2)
            current = runs[key] = {"dist": [], "build": float(build_s), "test": float(test_s)}
        elif line.startswith("! "):
            key, error = line[2:].split(" ", 1)
            runs[key], current = {"error": error}, None
        elif line:
            current["dist"].append([float(v) for v in line.split()])
    return effective, runs


def run_weka(folds_by_set: dict, jar, rerun=False) -> dict:
    """{model: {"effective": options, "runs": {data set: [per fold dict]}}}. A fold's run
    comes from the cache where its ARFF text (sha1) and the model's options are those
    cached; the others run, one JVM per model, and join the cache."""
    cache = json.loads(gzip.decompress(CACHE.read_bytes())) if CACHE.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = {}
        for name, folds in folds_by_set.items():
            for k, fold in enumerate(folds):
                files[f"{name}/{k}"] = weka_data.write_fold(fold, tmp, f"{name}-{k}")
        for model, (cls, options) in WEKA_MODELS.items():
            entry = cache.get(model, {})
            if entry.get("options") != options or rerun:
                entry = cache[model] = {"options": options, "runs": {}}
            runs = entry["runs"]
            todo = [k for k, f in files.items() if runs.get(k, {}).get("digest") != f[2]]
            if not todo:
                continue
            (tmp / "list").write_text("".join(f"{k}\t{files[k][0]}\t{files[k][1]}\n" for k in todo))
            start = time.perf_counter()
            done = _java(jar, RUNNER, tmp / "list", tmp / "out", cls, *options)
            if done.returncode != 0:
                raise RuntimeError(f"Weka {model} failed:\n{done.stderr[-2000:]}")
            entry["effective"], new = _parse_runner((tmp / "out").read_text())
            for key, run in new.items():
                runs[key] = {**run, "digest": files[key][2]}
            print(
                f"Weka {model}, {len(todo)} folds: {time.perf_counter() - start:.1f} s",
                file=sys.stderr,
            )
    CACHE.write_bytes(gzip.compress(json.dumps(cache).encode()))
    return {
        model: {
            "effective": cache[model]["effective"],
            "runs": {
                n: [cache[model]["runs"][f"{n}/{k}"] for k in range(len(f))]
                for n, f in folds_by_set.items()
            },
        }
        for model in WEKA_MODELS
    }


def check_cli(fold: weka_data.Fold, weka: dict, name: str, jar) -> list[str]:
    """Weka's own ``-t -T -p 0 -distribution`` on fold 0 of ``name`` against the runner's
    posteriors (printed to 3 decimals): the largest difference per model."""
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        train, test, _ = weka_data.write_fold(fold, Path(tmp), "cli")
        for model, (cls, options) in WEKA_MODELS.items():
            run = weka[model]["runs"][name][0]
            if "error" in run:
                continue
            general = ["-t", train, "-T", test, "-p", "0", "-distribution"]
            done = _java(jar, cls, *general, *options)  # options last: "--" takes the rest
            rows = [
                [float(v.lstrip("*")) for v in line.split()[-1].split(",")]
                for line in done.stdout.splitlines()
                if line.strip()[:1].isdigit()
            ]
            if len(rows) != len(run["dist"]):
                lines.append(f"- {model}: no predictions read ({done.stderr.strip()[:200]})")
                continue
            diff = np.abs(np.array(rows) - np.array(run["dist"])).max()
            lines.append(f"- {model}: {len(rows)} rows, largest |difference| {diff:.1e}")
    return lines


# ------------------------------------------------------------------------------ tables


def _weka_row(runs, folds) -> dict:
    bad = next((r["error"] for r in runs if "error" in r), None)
    if bad:
        return {"weka_error": bad}
    scored = [metrics(np.array(r["dist"]), f) for r, f in zip(runs, folds, strict=True)]
    return {"weka_error": None, "weka": [s[:2] for s in scored]}


def _our_row(part: Counterpart, runs, folds) -> dict:
    try:
        ours = run_bayesrule(part, folds)
    except NotAvailable as exc:
        return {"error": f"not available: {exc}"}
    except Exception as exc:  # reported in the table, never hidden
        return {"error": f"{type(exc).__name__}: {exc}"}
    scored = [metrics(p, f) for p, f in zip(ours["proba"], folds, strict=True)]
    row = {"error": None, "ours": [s[:2] for s in scored], "seconds": ours["seconds"]}
    row.update(dropped=ours["dropped"], warnings=ours["warnings"])
    if not any("error" in r for r in runs):
        pairs = list(zip(ours["proba"], [np.array(r["dist"]) for r in runs], strict=True))
        row["max_diff"] = max(float(np.abs(p - t).max()) for p, t in pairs)
        agree = np.concatenate([np.argmax(p, 1) == np.argmax(t, 1) for p, t in pairs])
        row["agree"] = float(np.mean(agree))
    return row


def compare(names, jar, rerun=False) -> tuple[list[dict], dict, dict]:
    """Rows of the comparison (one per data set and counterpart), the Weka runs and
    each data set's description."""
    data = {n: weka_data.load(n) for n in names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # classes with fewer than 10 rows
        folds = {n: weka_data.make_folds(d) for n, d in data.items()}
    described = {n: weka_data.describe(data[n], folds[n]) for n in names}
    weka = run_weka(folds, jar, rerun)
    rows = []
    for name in names:
        for part in COUNTERPARTS:
            runs = weka[part.weka]["runs"][name]
            row = {"dataset": name, "part": part, "missing": described[name]["missing"]}
            row.update(_weka_row(runs, folds[name]))
            rows.append({**row, **_our_row(part, runs, folds[name])})
    return rows, weka, described


def _mean(pairs, i) -> float:
    return float(np.mean([p[i] for p in pairs]))


def datasets_table(described) -> str:
    lines = [
        "| data set | rows | attributes (numeric) | classes | missing cells | mean MDL bins "
        "| test-only values | source |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, d in described.items():
        bins = "-" if d["bins"] is None else f"{d['bins']:.2f}"
        lines.append(
            f"| {name} | {d['rows']} | {d['attributes']} ({d['numeric']}) | {d['classes']} "
            f"| {d['missing']} | {bins} | {d['test_only']} | {d['source']} |"
        )
    return "\n".join(lines)


def _cells(r) -> list[str]:
    """Weka acc, ours acc, diff, Weka ll, ours ll, max diff, agree, flag."""
    cells, flag = ["-"] * 7, ""
    if r["weka_error"]:
        cells[0], flag = "refused", "Weka: " + r["weka_error"].split(":")[0]
    else:
        cells[0], cells[3] = f"{100 * _mean(r['weka'], 0):.2f}", f"{_mean(r['weka'], 1):.4f}"
    if r["error"]:
        cells[1], flag = "n/a", (flag + " " + r["error"][:80]).strip()
    else:
        cells[1], cells[4] = f"{100 * _mean(r['ours'], 0):.2f}", f"{_mean(r['ours'], 1):.4f}"
    if not r["error"] and not r["weka_error"]:
        d = 100 * (_mean(r["ours"], 0) - _mean(r["weka"], 0))
        cells[2], cells[5] = f"{d:+.2f}", f"{r['max_diff']:.1e}"
        cells[6] = f"{100 * r['agree']:.1f}"
        flag = "LOW" if d < -0.5 else ""
    return [*cells, flag]


def results_table(rows) -> str:
    lines = [
        "| data set | Weka model | bayesrule model | Weka acc % | bayesrule acc % | diff (pp) "
        "| Weka log loss | bayesrule log loss | max abs diff P | agree % | |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        if r["part"].impute and not r["missing"]:
            continue  # the same table as the row without imputation
        cells = " | ".join(_cells(r))
        lines.append(f"| {r['dataset']} | {r['part'].weka} | {r['part'].label} | {cells} |")
    return "\n".join(lines)


def summary_table(rows) -> str:
    lines = [
        "| Weka model | bayesrule model | data sets | mean Weka acc % | mean bayesrule acc % "
        "| mean diff (pp) | worst diff (pp) | within 0.5 pp or better | mean Weka log loss "
        "| mean bayesrule log loss | Weka refused | bayesrule n/a |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for part in COUNTERPARTS:
        mine = [r for r in rows if r["part"] is part]
        both = [r for r in mine if not r["error"] and not r["weka_error"]]
        refused = sum(bool(r["weka_error"]) for r in mine)
        missing = sum(bool(r["error"]) for r in mine)
        head = f"| {part.weka} | {part.label} | {len(both)} |"
        if not both:
            lines.append(f"{head} | | | | | | | {refused} | {missing} |")
            continue
        w = [_mean(r["weka"], 0) for r in both]
        o = [_mean(r["ours"], 0) for r in both]
        d = [100 * (b - a) for a, b in zip(w, o, strict=True)]
        ok = sum(x >= -0.5 for x in d)
        wl = np.mean([_mean(r["weka"], 1) for r in both])
        ol = np.mean([_mean(r["ours"], 1) for r in both])
        lines.append(
            f"{head} {100 * np.mean(w):.2f} | {100 * np.mean(o):.2f} | {np.mean(d):+.2f} "
            f"| {min(d):+.2f} | {ok}/{len(both)} | {wl:.4f} | {ol:.4f} | {refused} | {missing} |"
        )
    return "\n".join(lines)


def notes(rows, weka) -> str:
    lines = [f"- Weka {m}: `{WEKA_MODELS[m][0]} {weka[m]['effective']}`" for m in WEKA_MODELS]
    for part in COUNTERPARTS:
        first = next((r for r in rows if r["part"] is part and not r["error"]), None)
        dropped = first["dropped"] if first else []
        params = {"discretize": None, **part.required, **part.matching}
        if "priors" in params:
            a = params["priors"]
            aC = "C" if a == 1 else f"{a:g} C"
            params["priors"] = f"(N_c + {a:g}) / (N + {aC}) of the training fold"
        text = ", ".join(
            f"{k}={v}" if k == "priors" else f"{k}={v!r}"
            for k, v in params.items()
            if k not in dropped
        )
        extra = f" (not passed, {part.cls} lacks them: {', '.join(dropped)})" if dropped else ""
        note = f"; {part.note}" if part.note else ""
        lines.append(f"- bayesrule for {part.weka}: `{part.cls}({text})`{extra}{note}")
    errors = {(r["part"].weka, r["weka_error"]) for r in rows if r["weka_error"]}
    lines += [f"- Weka {m} refused: {e}" for m, e in sorted(errors)]
    for r in rows:
        for text in sorted(r.get("warnings", ())):
            lines.append(f"- {r['dataset']} / {r['part'].label} (bayesrule): {text[:200]}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ speed


def speed(jar, repeat=3) -> str:
    """Weka's AODE and ``bayesrule.AODE().fit(X, y).predict_proba(X)`` on bench.py's
    100,000 x 30 x 3 table, trained on it and scoring it; Markdown lines with the medians.

    Weka runs in one JVM (``benchmarks/WekaSpeed.java``, the ARFF read once, untimed):
    ``repeat + 2`` fresh models, the first one cold (the JIT compiling as it goes, what
    a single ``-t train.arff`` run measures), the median of the others warm, the target's
    reference. bayesrule runs ``repeat`` times in this process."""
    from bench import SIZES, make_categorical_data

    X, y, _ = make_categorical_data(SIZES["aode"], 0)
    times = {"fit": [], "proba": []}
    try:
        weka = weka_data.time_weka(jar, X, y, repeat + 2, BAYES + "AODE")
    except RuntimeError as exc:
        return f"Weka's {exc}"
    for _ in range(repeat):
        start = time.perf_counter()
        model = bayesrule.AODE().fit(X, y)
        middle = time.perf_counter()
        proba = model.predict_proba(X)
        times["fit"].append(middle - start)
        times["proba"].append(time.perf_counter() - middle)
    cold = weka[0]
    warm = tuple(statistics.median(t[i] for t in weka[1:]) for i in (0, 1))
    fit, scored = (statistics.median(times[k]) for k in ("fit", "proba"))
    ours = fit + scored
    accuracy = float(np.mean(model.classes_[np.argmax(proba, 1)] == y))
    runs = {"weka": [[round(a, 3), round(b, 3)] for a, b in weka]}
    runs.update({k: [round(t, 3) for t in v] for k, v in times.items()})
    return "\n".join(
        [
            f"Data: bench.py's `aode` size, {X.shape[0]:,} x {X.shape[1]} codes 0..4, "
            f"{int(y.max()) + 1} classes; trained on the table and scoring it (Weka: "
            f"distributionForInstance of every row; bayesrule: predict_proba); all runs "
            f"(seconds): {json.dumps(runs)}.",
            "",
            "| | train (s) | score 100,000 rows (s) | train + score (s) | ratio to bayesrule |",
            "|---|---:|---:|---:|---:|",
            f"| Weka 3.6 AODE, warm JVM (median of runs 2 to {repeat + 2}) | {warm[0]:.3f} "
            f"| {warm[1]:.3f} | {sum(warm):.3f} | {sum(warm) / ours:.1f}x |",
            f"| Weka 3.6 AODE, first run in a fresh JVM | {cold[0]:.3f} | {cold[1]:.3f} "
            f"| {sum(cold):.3f} | {sum(cold) / ours:.1f}x |",
            f"| bayesrule AODE().fit + predict_proba (median of {repeat}) | {fit:.3f} "
            f"| {scored:.3f} | {ours:.3f} | 1.0x |",
            "",
            f"bayesrule's training accuracy: {100 * accuracy:.2f} %.",
        ]
    )


# ------------------------------------------------------------------------------ main


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = weka_data.dataset_names()
    parser.add_argument("--datasets", nargs="+", choices=names, default=names)
    parser.add_argument("--weka-jar", default="/usr/share/java/weka.jar")
    parser.add_argument("--rerun-weka", action="store_true", help="ignore the Weka cache")
    parser.add_argument("--check-cli", action="store_true", help="runner vs -p 0 -distribution")
    parser.add_argument("--speed", action="store_true", help="time AODE on 100,000 x 30 x 3")
    parser.add_argument("--repeat", type=int, default=3, help="repeats of --speed")
    parser.add_argument("--record", action="store_true", help=f"write {RESULTS.name}")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows, weka, described = compare(args.datasets, args.weka_jar, args.rerun_weka)
    sections = [
        "# bayesrule against Weka 3.6: semi-naive Bayes on the same folds and bins\n\n"
        "Written by `benchmarks/weka_compare.py --record` (see its docstring for the "
        "protocol). 10 stratified folds (shuffle, random_state=0); numeric columns binned "
        "at the Fayyad-Irani MDL cut points of each training fold; both libraries read "
        "the same integer codes. Means over the 10 folds; diff = bayesrule - Weka in "
        "percentage points (LOW: below -0.5); max abs diff P: the largest difference of "
        "the posteriors of any test row; agree: rows whose predicted class is the same.",
        f"## Data sets\n\n{datasets_table(described)}",
        f"## Per data set\n\n{results_table(rows)}",
        f"## Per model, over the data sets both sides ran\n\n{summary_table(rows)}",
        f"## Settings and warnings\n\n{notes(rows, weka)}",
    ]
    if args.check_cli:
        name = args.datasets[0]
        fold = weka_data.make_folds(weka_data.load(name))[0]
        lines = check_cli(fold, weka, name, args.weka_jar)
        sections.append(
            f"## The runner against Weka's command line ({name}, fold 0, `-p 0 "
            "-distribution`, 3 decimals)\n\n" + "\n".join(lines)
        )
    if args.speed:
        sections.append(f"## AODE speed, 100,000 x 30 x 3\n\n{speed(args.weka_jar, args.repeat)}")
    text = "\n\n".join(sections) + "\n"
    print(text)
    print(f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    if args.record:
        RESULTS.write_text(text)


if __name__ == "__main__":
    main()
