"""GaussianMixtureBayes("bic", covariance="bic") against R's mclust (MclustDA) on the same
cross-validation folds: time and accuracy.

Both fit a Gaussian mixture per class with the number of components and the covariance
structure chosen by BIC: mclust over its 14 structures and G = 1..5 (MclustDA's
defaults, hierarchical-clustering starts), bayesrule over scikit-learn's 4 structures
and k = 1..10 (k-means starts). Each library fits and predicts every fold of the same
stratified k-fold split; its time is the sum over folds (R's from inside R, after the
package has loaded), the best of ``--repeat`` runs, the two alternating. Needs
``Rscript`` with mclust (Debian: ``apt-get install r-base-core r-cran-mclust``); never run
by ``make test``.

Examples::

    .venv/bin/python benchmarks/mclust_compare.py
    .venv/bin/python benchmarks/mclust_compare.py --data wine --folds 5 --repeat 3
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn import datasets
from sklearn.model_selection import StratifiedKFold

R_SCRIPT = r"""
suppressMessages(library(mclust))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
X <- as.matrix(d[, grep("^x", names(d))])
y <- factor(d$y)
pred <- character(nrow(d))
start <- proc.time()[["elapsed"]]
for (f in sort(unique(d$fold))) {
  test <- d$fold == f
  model <- MclustDA(X[!test, , drop = FALSE], y[!test], verbose = FALSE)
  pred[test] <- as.character(predict(model, X[test, , drop = FALSE])$classification)
}
elapsed <- proc.time()[["elapsed"]] - start
writeLines(c(sprintf("%.6f", elapsed), pred), args[2])
"""


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    data = getattr(datasets, f"load_{name}")()
    return data.data.astype(float), data.target


def run_mclust(X, y, folds, workdir: Path) -> tuple[float, np.ndarray]:
    """MclustDA on every fold in one R process: (seconds inside R, predicted labels)."""
    table = workdir / "data.csv"
    columns = [f"x{j}" for j in range(X.shape[1])]
    rows = np.column_stack([X, y, folds])
    header = ",".join([*columns, "y", "fold"])
    np.savetxt(table, rows, delimiter=",", header=header, comments="", fmt="%.17g")
    script, out = workdir / "mclust.R", workdir / "out.txt"
    script.write_text(R_SCRIPT)
    subprocess.run(["Rscript", str(script), str(table), str(out)], check=True)
    lines = out.read_text().split()
    return float(lines[0]), np.array([float(v) for v in lines[1:]]).astype(y.dtype)


def run_bayesrule(X, y, folds, random_state: int) -> tuple[float, np.ndarray]:
    """GaussianMixtureBayes("bic", covariance="bic") on every fold: (seconds, labels)."""
    from bayesrule import GaussianMixtureBayes

    pred = np.empty_like(y)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unconverged candidates say so; not the point here
        for f in np.unique(folds):
            test = folds == f
            model = GaussianMixtureBayes("bic", covariance="bic", random_state=random_state)
            pred[test] = model.fit(X[~test], y[~test]).predict(X[test])
    return time.perf_counter() - start, pred


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="iris", help="a scikit-learn data set (default iris)")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--seed", type=int, default=0, help="folds' and k-means' seed")
    args = parser.parse_args(argv)
    if shutil.which("Rscript") is None:
        print("Rscript not found: apt-get install r-base-core r-cran-mclust", file=sys.stderr)
        return 2
    X, y = load(args.data)
    folds = np.empty(len(y), dtype=int)
    split = StratifiedKFold(args.folds, shuffle=True, random_state=args.seed)
    for f, (_, test) in enumerate(split.split(X, y)):
        folds[test] = f
    warm = slice(None, None, 3)  # imports and first calls, on every third row
    run_bayesrule(X[warm], y[warm], np.arange(len(y))[warm] % 2, args.seed)
    times = {"mclust": [], "bayesrule": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            t, mclust_pred = run_mclust(X, y, folds, Path(tmp))
            times["mclust"].append(t)
            t, ours_pred = run_bayesrule(X, y, folds, args.seed)
            times["bayesrule"].append(t)
    best = {name: min(ts) for name, ts in times.items()}
    accuracy = {"mclust": np.mean(mclust_pred == y), "bayesrule": np.mean(ours_pred == y)}
    print(f"{args.data}, {args.folds}-fold CV (same folds), best of {args.repeat}:")
    print(
        f"  mclust MclustDA                               {best['mclust']:7.3f} s  "
        f"accuracy {accuracy['mclust']:.4f}"
    )
    print(
        f"  GaussianMixtureBayes('bic', covariance='bic') {best['bayesrule']:7.3f} s  "
        f"accuracy {accuracy['bayesrule']:.4f}"
    )
    print(
        f"  ratio mclust / bayesrule time: {best['mclust'] / best['bayesrule']:.2f}x "
        "(> 1: bayesrule is faster)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
