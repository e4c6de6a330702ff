"""The data sets, folds and MDL discretisation shared by the Weka and forest comparisons.

Data sets (all offline): scikit-learn's bundled iris, wine, breast_cancer and digits; the
Palmer penguins (``palmerpenguins``; island and sex nominal, the survey year left out);
and the example ARFF files Debian's ``weka`` package ships in
``/usr/share/doc/weka/examples`` (read by :func:`read_arff`; absent files are skipped).

Protocol, identical for every library: ``StratifiedKFold(10, shuffle=True,
random_state=0)`` over the rows. In each fold every numeric column (digits' pixel levels
included) is cut at the Fayyad-Irani MDL cut points learned on the training fold's
observed values (:func:`bayesrule.likelihoods.discrete.discretize.cut_points`, as Weka's
supervised ``Discretize``) and both folds are binned with them (``apply_cuts``). Nominal
values become integer codes (their position in the sorted values of the whole data set).
Missing values stay missing (NaN here, ``?`` in ARFF).

:class:`Fold` holds the codes as float arrays (NaN where missing) and, per column, the
codes declared in the fold's ARFF header: every code seen in the training *or* the test
fold (a bin code always occurs in training: the MDL cuts lie between training values; a
nominal value met only in the test fold is declared too, so Weka reads it, and counted in
``test_only``); ``raw_train`` and ``raw_test`` hold the same rows unbinned (numeric
columns as floats, nominal ones as codes).
"""

from __future__ import annotations

import csv
import hashlib
import io
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from bayesrule.likelihoods.discrete.discretize import apply_cuts, cut_points

WEKA_EXAMPLES = Path("/usr/share/doc/weka/examples")

#: Weka's example files used (name -> file stem); iris is scikit-learn's
ARFF_SETS = {
    "vote": "vote",
    "soybean": "soybean",
    "breast-cancer": "breast-cancer",
    "credit-g": "credit-g",
    "diabetes": "diabetes",
    "ionosphere": "ionosphere",
    "glass": "glass",
    "labor": "labor",
    "segment": "segment-challenge",
}


@dataclass
class Dataset:
    """A table ``X`` (numeric columns float, nominal ones object), labels ``y`` (str)."""

    name: str
    X: pd.DataFrame
    y: np.ndarray
    numeric: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def classes(self) -> list[str]:
        return sorted(set(self.y.tolist()))


def _split_values(text: str) -> list[str]:
    row = next(csv.reader([text], quotechar="'", skipinitialspace=True))
    return [v.strip().strip('"') for v in row]


def read_arff(path) -> tuple[pd.DataFrame, dict[str, list[str] | None]]:
    """A dense ARFF file as a DataFrame (numeric columns float, nominal ones str, ``?``
    missing) and each attribute's declared values (None for numeric)."""
    attributes: dict[str, list[str] | None] = {}
    rows, in_data = [], False
    for line in Path(path).read_text(encoding="latin-1").splitlines():
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        lower = line.lower()
        if in_data:
            rows.append(_split_values(line))
        elif lower.startswith("@attribute"):
            rest = line[len("@attribute") :].strip()
            if rest.startswith("'"):
                end = rest.index("'", 1)
                name, kind = rest[1:end], rest[end + 1 :].strip()
            else:
                name, kind = rest.split(None, 1)
            if kind.startswith("{"):
                attributes[name] = _split_values(kind.strip()[1:-1])
            elif kind.lower() in ("numeric", "real", "integer"):
                attributes[name] = None
            else:
                raise ValueError(f"{path}: attribute {name} of type {kind!r} is not supported")
        elif lower.startswith("@data"):
            in_data = True
    frame = pd.DataFrame(rows, columns=list(attributes), dtype=object)
    frame = frame.where(frame != "?", None)
    for name, values in attributes.items():
        if values is None:
            frame[name] = pd.to_numeric(frame[name]).astype(np.float64)
        else:
            bad = set(frame[name].dropna()) - set(values)
            if bad:
                raise ValueError(f"{path}: {name} holds undeclared values {sorted(bad)}")
    return frame, attributes


def _arff_set(name: str, stem: str) -> Dataset:
    frame, attributes = read_arff(WEKA_EXAMPLES / f"{stem}.arff")
    target = frame.columns[-1]
    X = frame.drop(columns=[target])
    numeric = [c for c in X.columns if attributes[c] is None]
    return Dataset(name, X, frame[target].to_numpy(dtype=str), numeric, f"Weka {stem}.arff")


def _sklearn_set(name: str) -> Dataset:
    import sklearn.datasets as sd

    bunch = getattr(sd, f"load_{name}")(as_frame=True)
    y = np.asarray(bunch.target_names)[bunch.target.to_numpy()].astype(str)
    X = bunch.data.astype(np.float64)
    return Dataset(name, X, y, list(X.columns), f"scikit-learn load_{name}")


def _penguins() -> Dataset:
    from palmerpenguins import load_penguins

    frame = load_penguins()
    X = frame.drop(columns=["species", "year"])
    for column in ("island", "sex"):
        X[column] = X[column].astype(object).where(X[column].notna(), None)
    numeric = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
    X[numeric] = X[numeric].astype(np.float64)
    return Dataset("penguins", X, frame["species"].to_numpy(dtype=str), numeric, "palmerpenguins")


def dataset_names() -> list[str]:
    """The data sets available here: scikit-learn's four, penguins, Weka's files found."""
    names = ["iris", "wine", "breast_cancer", "digits", "penguins"]
    return names + [n for n, stem in ARFF_SETS.items() if (WEKA_EXAMPLES / f"{stem}.arff").exists()]


def load(name: str) -> Dataset:
    if name in ("iris", "wine", "breast_cancer", "digits"):
        return _sklearn_set(name)
    if name == "penguins":
        return _penguins()
    return _arff_set(name, ARFF_SETS[name])


@dataclass
class Fold:
    """One fold's codes (float, NaN missing), labels, declared codes per column."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    declared: list[list[int]]
    classes: list[str]
    test_only: int  # (column, value) pairs met in the test fold only
    raw_train: np.ndarray | None = None  # numeric columns unbinned, nominal ones codes
    raw_test: np.ndarray | None = None


def _codes(column: pd.Series, values: list) -> np.ndarray:
    index = {v: i for i, v in enumerate(values)}
    return np.array([np.nan if v is None else index[v] for v in column], dtype=np.float64)


def make_folds(data: Dataset, n_folds=10, random_state=0) -> list[Fold]:
    """The stratified folds of ``data``, every numeric column MDL-binned per fold."""
    classes = data.classes
    y_codes = np.searchsorted(classes, data.y)
    nominal = {
        c: sorted(set(data.X[c].dropna().tolist())) for c in data.X.columns if c not in data.numeric
    }
    splitter = StratifiedKFold(n_folds, shuffle=True, random_state=random_state)
    folds = []
    for train, test in splitter.split(data.X, data.y):
        columns_train, columns_test, raw = [], [], []
        for column in data.X.columns:
            values = data.X[column]
            if column in nominal:
                codes = _codes(values, nominal[column])
                columns_train.append(codes[train])
                columns_test.append(codes[test])
                raw.append(codes)
                continue
            v = values.to_numpy(dtype=np.float64)
            raw.append(v)
            fit, seen = v[train], ~np.isnan(v[train])
            edges = cut_points(fit[seen], y_codes[train][seen], len(classes), None, "mdl", 5)
            columns_train.append(apply_cuts(fit, edges))
            columns_test.append(apply_cuts(v[test], edges))
        X_train, X_test = np.column_stack(columns_train), np.column_stack(columns_test)
        declared, test_only = [], 0
        for j in range(X_train.shape[1]):
            seen_train = set(np.unique(X_train[~np.isnan(X_train[:, j]), j]).astype(int))
            seen_test = set(np.unique(X_test[~np.isnan(X_test[:, j]), j]).astype(int))
            test_only += len(seen_test - seen_train)
            declared.append(sorted(seen_train | seen_test) or [0])
        fold = Fold(X_train, data.y[train], X_test, data.y[test], declared, classes, test_only)
        fold.raw_train, fold.raw_test = np.column_stack(raw)[train], np.column_stack(raw)[test]
        folds.append(fold)
    return folds


def _quote(label: str) -> str:
    return "'" + label.replace("\\", "\\\\").replace("'", "\\'") + "'"


def arff_text(X: np.ndarray, y, declared, classes, relation="fold") -> str:
    """A nominal ARFF of codes ``X`` (NaN -> ``?``) and labels ``y`` (the last
    attribute, ``class``), every column declaring the codes ``declared``."""
    out = io.StringIO()
    out.write(f"@relation {relation}\n\n")
    for j, values in enumerate(declared):
        out.write(f"@attribute a{j} {{{','.join(str(v) for v in values)}}}\n")
    out.write(f"@attribute class {{{','.join(_quote(c) for c in classes)}}}\n\n@data\n")
    text = np.where(np.isnan(X), "?", np.nan_to_num(X).astype(np.int64).astype(str))
    quoted = [_quote(c) for c in classes]
    index = {c: i for i, c in enumerate(classes)}
    for row, label in zip(text, y, strict=True):
        out.write(",".join(row) + "," + quoted[index[label]] + "\n")
    return out.getvalue()


def write_fold(fold: Fold, directory: Path, stem: str) -> tuple[Path, Path, str]:
    """``stem``-train.arff and ``stem``-test.arff in ``directory``; their joint sha1."""
    texts = [
        arff_text(fold.X_train, fold.y_train, fold.declared, fold.classes, f"{stem}-train"),
        arff_text(fold.X_test, fold.y_test, fold.declared, fold.classes, f"{stem}-test"),
    ]
    paths = [directory / f"{stem}-train.arff", directory / f"{stem}-test.arff"]
    for path, text in zip(paths, texts, strict=True):
        path.write_text(text)
    digest = hashlib.sha1("".join(texts).encode()).hexdigest()
    return paths[0], paths[1], digest


def describe(data: Dataset, folds: list[Fold]) -> dict:
    """Rows, attributes (numeric), classes, missing cells, mean bins per numeric column."""
    numeric = [data.X.columns.get_loc(c) for c in data.numeric]
    bins = [len(f.declared[j]) for f in folds for j in numeric]
    return {
        "rows": len(data.y),
        "attributes": data.X.shape[1],
        "numeric": len(numeric),
        "classes": len(data.classes),
        "missing": int(data.X.isna().sum().sum()),
        "bins": float(np.mean(bins)) if bins else None,
        "test_only": sum(f.test_only for f in folds),
        "source": data.source,
    }


def time_weka(jar, X: np.ndarray, y, runs: int, classifier: str) -> list[tuple[float, float]]:
    """Seconds ``(build, score)`` of ``runs`` fresh Weka models (``classifier``, a class
    name) trained on the table ``X`` (codes), ``y`` and scoring its every row, in one
    JVM (``benchmarks/WekaSpeed.java``; the ARFF file read once, untimed): the first run
    cold (the JIT compiling as it goes, what one ``-t train.arff`` run measures), the
    later ones warm. RuntimeError with Java's message where it could not run."""
    labels = np.array([str(v) for v in y])
    classes = sorted(set(labels.tolist()))
    declared = [sorted(set(np.unique(X[:, j]).tolist())) for j in range(X.shape[1])]
    with tempfile.TemporaryDirectory() as tmp:
        train = Path(tmp) / "train.arff"
        train.write_text(arff_text(X.astype(np.float64), labels, declared, classes))
        source = Path(__file__).resolve().parent / "WekaSpeed.java"
        command = ["java", "-Xmx4g", "-cp", str(jar), str(source), str(train), str(runs)]
        done = subprocess.run(
            [*command, classifier], capture_output=True, text=True, timeout=3000, check=False
        )
    if done.returncode != 0:
        raise RuntimeError(f"{classifier} could not be timed: {done.stderr.strip()[-500:]}")
    return [tuple(map(float, line.split()[:2])) for line in done.stdout.split("\n") if line]
