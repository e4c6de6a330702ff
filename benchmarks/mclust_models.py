"""mclust's 14 covariance parametrisations, bayesrule against R's mclust side by side.

For iris, wine (standardised: the same matrix goes to both) and the Palmer penguins
(four measurements, rows with a missing value dropped), with the classes as the groups
(EDDA: one Gaussian per class, all classes sharing the parametrisation):

* per model, the log-likelihood and BIC of ``GaussianBayes(covariance=model,
  reg_covar=0)`` and of ``MclustDA(modelType="EDDA", modelNames=model)`` (its iterative
  M steps run to convergence: ``emControl(tol = c(1e-12, 1e-14))``) and their relative
  differences. MclustDA's EDDA log-likelihood is that of the mixture of the classes,
  ``sum_i ln sum_c P(w_c) p(x_i|w_c)`` under the class frequencies, so that is compared.
  mclust's VVE M step updates the common orientation from the classes' scatter
  matrices without dividing by their volumes, so its fixed point is not the maximum of
  the likelihood given the classes; the table's VVE note compares the two fits on that
  objective (left out of the largest difference);
* the model EDDA chooses by BIC over all 14 (``GaussianBayes(covariance="bic")``);
* MclustDA (a mixture per class, G = 1..5 and the 14 models by BIC, hierarchical
  starts) against ``GaussianMixtureBayes("bic", covariance="bic", init="hc",
  max_components=5, reg_covar=0)``: the model and G chosen per class, and the
  cross-validated error of that choice, mclust's ``cvMclustDA`` (10 folds of
  ``balancedFolds`` after ``set.seed(0)``) beside the same refits here on the same
  folds (each class's chosen model and G refitted on the training rows, posteriors under
  the class proportions of all rows, as ``cvMclustDA`` predicts);
* speed: each model's fit on 20,000 x 5 rows (three classes), both timed in one run (R's
  time from inside R, after loading), and EDDA over all 14 on 200,000 x 20 rows against
  scikit-learn's four ``GaussianMixture`` covariance types fitted once each (three
  components, their defaults).

Needs ``Rscript`` with mclust (Debian: ``apt-get install r-base-core r-cran-mclust``);
never run by ``make test``. Prints a Markdown table (``--out`` also writes it).

Examples::

    .venv/bin/python benchmarks/mclust_models.py
    .venv/bin/python benchmarks/mclust_models.py --skip-speed --out /tmp/t.md
    .venv/bin/python benchmarks/mclust_models.py --busy     # timings beside a busy process
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MODELS = (
    "EII", "VII", "EEI", "VEI", "EVI", "VVI", "EEE",
    "VEE", "EVE", "VVE", "EEV", "VEV", "EVV", "VVV",
)  # fmt: skip

#: every R script's start: mclust, and the table written by write_table as X and y
R_READ = r"""
suppressMessages(library(mclust))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
X <- as.matrix(d[, grep("^x", names(d))])
y <- factor(d$y)
"""

R_EDDA = (
    R_READ
    + r"""
# the iterative M steps (VEI, VEE, VEV, EVE, VVE) run to convergence, as bayesrule's do
tight <- emControl(tol = c(1e-12, 1e-14), itmax = c(1e6, 1e6))
lines <- c()
for (mn in mclust.options("emModelNames")) {
  r <- try(MclustDA(X, y, modelType = "EDDA", modelNames = mn, verbose = FALSE,
                    control = tight), silent = TRUE)
  if (inherits(r, "try-error") || is.null(r)) {
    lines <- c(lines, paste(mn, "NA NA NA"))
  } else {
    lines <- c(lines, sprintf("%s %.17g %.0f %.17g", mn, r$loglik, r$df, r$bic))
    if (mn == "VVE") for (c in names(r$models)) {
      p <- r$models[[c]]$parameters
      lines <- c(lines, paste("VVE-class", c, paste(sprintf("%.17g", c(p$mean,
                 p$variance$sigma)), collapse = " ")))
    }
  }
}
best <- MclustDA(X, y, modelType = "EDDA", verbose = FALSE)
lines <- c(lines, paste("chosen", best$models[[1]]$modelName))
writeLines(lines, args[2])
"""
)

R_MCLUSTDA = (
    R_READ
    + r"""
m <- MclustDA(X, y, verbose = FALSE)
lines <- c()
for (c in names(m$models)) {
  mm <- m$models[[c]]
  lines <- c(lines, sprintf("model %s %s %d %.17g", c, mm$modelName, mm$G, mm$loglik))
}
set.seed(0)
folds <- mclust:::balancedFolds(y, nfolds = 10)
set.seed(0)
cv <- cvMclustDA(m, nfold = 10, verbose = FALSE)
fold <- integer(nrow(X))
for (f in seq_along(folds)) fold[folds[[f]]] <- f - 1
lines <- c(lines, sprintf("ce %.17g", cv$ce), paste("fold", paste(fold, collapse = " ")),
           paste("pred", paste(as.character(cv$classification), collapse = " ")))
writeLines(lines, args[2])
"""
)

R_SPEED = (
    R_READ
    + r"""
invisible(MclustDA(X[1:300, ], y[1:300], modelType = "EDDA", modelNames = "VVV", verbose = FALSE))
lines <- c()
for (mn in mclust.options("emModelNames")) {
  best <- Inf
  for (r in 1:as.integer(args[3])) {
    t <- system.time(MclustDA(X, y, modelType = "EDDA", modelNames = mn, verbose = FALSE))
    best <- min(best, t[["elapsed"]])
  }
  lines <- c(lines, sprintf("%s %.6f", mn, best))
}
writeLines(lines, args[2])
"""
)


# --------------------------------------------------------------------------- data
def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The data set ``name`` as (X, integer classes)."""
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler

    if name == "penguins":
        from palmerpenguins import load_penguins

        columns = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
        frame = load_penguins().dropna(subset=columns)
        X = frame[columns].to_numpy(dtype=float)
        return X, np.unique(frame["species"].to_numpy(), return_inverse=True)[1]
    data = getattr(datasets, f"load_{name}")()
    X = data.data.astype(float)
    if name == "wine":
        X = StandardScaler().fit_transform(X)
    return X, data.target


def write_table(path: Path, X, y) -> None:
    header = ",".join([*(f"x{j}" for j in range(X.shape[1])), "y"])
    np.savetxt(
        path, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.17g"
    )


def rscript(code: str, workdir: Path, X, y, *extra) -> list[str]:
    """Run ``code`` on (X, y) in one R process; the lines it writes."""
    table, script, out = workdir / "data.csv", workdir / "run.R", workdir / "out.txt"
    write_table(table, X, y)
    script.write_text(code)
    subprocess.run(["Rscript", str(script), str(table), str(out), *map(str, extra)], check=True)
    return out.read_text().splitlines()


# --------------------------------------------------------------------------- bayesrule
def edda_row(X, y, model: str) -> tuple[float, int, float]:
    """(log-likelihood, parameters, BIC) of GaussianBayes(covariance=model) on (X, y), as
    MclustDA reports them for EDDA: the log-likelihood of the mixture of the classes
    (``sum_i ln p(x_i)`` under the class frequencies) and ``2 ln L - df ln n``, ``df`` the
    means and covariance parameters (proportions not counted)."""
    from bayesrule import GaussianBayes

    clf = GaussianBayes(covariance=model, reg_covar=0).fit(X, y)
    loglik = float(clf.log_evidence(X).sum())
    df = clf.likelihood_.n_parameters()
    return loglik, df, 2 * loglik - df * np.log(len(y))


def compare_edda(name: str, workdir: Path) -> tuple[list[str], float, bool]:
    """Markdown rows of one data set, the largest relative difference, and whether the
    two choose the same model."""
    from bayesrule import GaussianBayes

    X, y = load(name)
    theirs, vve = {}, {}
    for line in rscript(R_EDDA, workdir, X, y):
        key, *values = line.split()
        if key == "VVE-class":
            vve[int(values[0])] = np.array(values[1:], dtype=float)
        else:
            theirs[key] = values
    rows, worst = [], 0.0
    for model in MODELS:
        loglik, df, bic = edda_row(X, y, model)
        r_loglik, r_df, r_bic = (float(v) for v in theirs[model])
        rel_l = abs(loglik - r_loglik) / abs(r_loglik)
        rel_b = abs(bic - r_bic) / abs(r_bic)
        if model != "VVE":  # explained below the table (vve_note)
            worst = max(worst, rel_l, rel_b)
        rows.append(
            f"| {name} | {model} | {loglik:.10g} | {r_loglik:.10g} | {rel_l:.1e} | "
            f"{df} / {int(r_df)} | {bic:.10g} | {r_bic:.10g} | {rel_b:.1e} |"
        )
    ours = GaussianBayes(covariance="bic").fit(X, y).covariance_
    chosen = theirs["chosen"][0]
    rows.append(f"| {name} | **EDDA's choice** | {ours} | {chosen} | | | | | |")
    rows.append(vve_note(name, X, y, vve, {name: theirs["VVE"][0]}))
    return rows, worst, ours == chosen


def vve_note(name: str, X, y, theirs: dict, loglik_of_vve: dict) -> str:
    """A row comparing the two VVE fits on what EDDA's M step maximises, the
    log-likelihood of the rows given their classes ``sum_i ln N(x_i; mu_y_i, Sigma_y_i)``:
    bayesrule's fit, and mclust's parameters (its orientation step weighs the classes'
    scatters without their volumes, so its fixed point is not the maximum); and a row
    of :func:`mclust_rule_vve` against mclust's VVE."""
    from scipy.stats import multivariate_normal

    from bayesrule import GaussianBayes

    d = X.shape[1]
    fit = GaussianBayes(covariance="VVE", reg_covar=0).fit(X, y)
    ours = mclust = 0.0
    for c, values in sorted(theirs.items()):
        rows = X[y == c]
        mean, sigma = values[:d], values[d:].reshape(d, d)
        mclust += multivariate_normal(mean, sigma).logpdf(rows).sum()
        ours += multivariate_normal(fit.means_[c], fit.covariances_[c]).logpdf(rows).sum()
    rule = mclust_rule_vve(X, y)
    r_loglik = float(loglik_of_vve[name]) if name in loglik_of_vve else float("nan")
    return (
        f"| {name} | VVE: ln L given the classes (the M step's objective) | {ours:.10g} "
        f"| {mclust:.10g} | {'higher' if ours > mclust else '**lower**'} here | | | | |\n"
        f"| {name} | VVE by mclust's update rule (written here), EDDA's ln L | {rule:.10g} "
        f"| {r_loglik:.10g} | {abs(rule - r_loglik) / abs(r_loglik):.1e} | | | | |"
    )


def mclust_rule_vve(X, y, tol: float = 1e-14, max_iter: int = 1_000_000) -> float:
    """EDDA's log-likelihood (the mixture of the classes) of VVE fitted by mclust's
    update rule, written here from its description: from ``D = I`` and unit shapes, the
    two majorisation steps of Browne and McNicholas for the common orientation with the
    classes' scatter matrices ``W_k`` weighted by their unit-determinant shapes only
    (not by their volumes), then each class's variances along D, their geometric mean
    the volume; until the objective ``sum_k tr(D^T W_k D A_k^-1)`` changes by less than
    ``tol`` relative. Reproducing mclust's number shows that the VVE difference is that
    rule, not the data or the start."""
    from scipy.special import logsumexp
    from scipy.stats import multivariate_normal

    def polar(F):
        U, _, Vt = np.linalg.svd(F)
        return U @ Vt

    classes = np.unique(y)
    n = np.array([np.sum(y == c) for c in classes], dtype=float)
    mu = np.array([X[y == c].mean(axis=0) for c in classes])
    W = np.array([(X[y == c] - m).T @ (X[y == c] - m) for c, m in zip(classes, mu, strict=True)])
    omega = np.linalg.eigvalsh(W)[:, -1]
    D, shape, previous = np.eye(X.shape[1]), np.ones(mu.shape), np.inf
    for _ in range(max_iter):
        F = sum(
            (D.T / a[:, None]) @ (Wk - w * np.eye(len(a)))
            for Wk, a, w in zip(W, shape, omega, strict=True)
        )
        D = polar(F).T
        F = sum(Wk @ D / a - (1 / a).max() * (Wk @ D) for Wk, a in zip(W, shape, strict=True))
        D = polar(F)
        rotated = np.einsum("jl,kjm,ml->kl", D, W, D) / n[:, None]
        volume = np.exp(np.log(rotated).mean(axis=1))
        shape = rotated / volume[:, None]
        objective = float((rotated * n[:, None] / shape).sum())
        if abs(objective - previous) <= tol * (1 + abs(objective)):
            break
        previous = objective
    logp = np.column_stack(
        [
            multivariate_normal(m, v * (D * a) @ D.T).logpdf(X)
            for m, v, a in zip(mu, volume, shape, strict=True)
        ]
    )
    return float(logsumexp(logp + np.log(n / n.sum()), axis=1).sum())


# --------------------------------------------------------------------------- MclustDA
def mixture_search(X, y, **fixed):
    """GaussianMixtureBayes as MclustDA fits: hc starts, G = 1..5, no regularisation."""
    import warnings

    from bayesrule import GaussianMixtureBayes

    options = dict(n_components="bic", covariance="bic", max_components=5) | fixed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unconverged or refused candidates say so
        return GaussianMixtureBayes(init="hc", reg_covar=0, **options).fit(X, y)


def refit(X, y, c, model: str, G: int):
    """Class c's mixture of ``model`` and G refitted on (X, y) (the other classes one
    component: their columns are unused). Where EM cannot fit it, MclustDA's rule: the
    model before it in mclust's list (VEI -> EEI), or from EII one component fewer."""
    while True:
        structure = "VVV" if model == "XXX" else model
        try:
            return mixture_search(X, y, n_components={c: G}, covariance=structure)
        except ValueError:
            j = MODELS.index(structure)
            if j == 0:
                G -= 1
            else:
                model = MODELS[j - 1]


def cross_validated(X, y, folds, chosen: dict, priors) -> np.ndarray:
    """The class predicted for every row by refits on the other folds of each class's
    ``chosen[c] = (model, G)``, posteriors under ``priors`` (as ``cvMclustDA``)."""
    pred = np.empty_like(y)
    classes = np.unique(y)
    for f in np.unique(folds):
        train, test = folds != f, folds == f
        joint = np.empty((test.sum(), classes.size))
        for j, c in enumerate(classes):
            fitted = refit(X[train], y[train], c, *chosen[c])
            joint[:, j] = fitted.log_likelihood(X[test])[:, j] + np.log(priors[j])
        pred[test] = classes[joint.argmax(axis=1)]
    return pred


def compare_mclustda(name: str, workdir: Path) -> tuple[list[str], bool, float]:
    """Markdown rows of MclustDA against the hc search on one data set, whether every
    class's choice agrees, and the difference of the cross-validated errors."""
    X, y = load(name)
    theirs, cv = {}, {}
    for line in rscript(R_MCLUSTDA, workdir, X, y):
        key, *values = line.split()
        if key == "model":
            theirs[int(values[0])] = (values[1], int(values[2]), float(values[3]))
        else:
            cv[key] = values
    ours = mixture_search(X, y)
    rows, same = [], True
    for c, (model, G, loglik) in sorted(theirs.items()):
        mixture = ours.mixtures_[c]
        form = "XXX" if mixture.n_components == 1 and model == "XXX" else mixture.covariance
        agree = (form, mixture.n_components) == (model, G) or (
            model == "XXX" and mixture.n_components == 1 and form in ("EEE", "VVV", "XXX")
        )
        same = same and agree
        ll = float(ours.likelihood_.log_likelihood(X[y == c])[:, c].sum())
        rows.append(
            f"| {name} | class {c} | {mixture.covariance}, G = {mixture.n_components} | "
            f"{model}, G = {G} | {ll:.8g} | {loglik:.8g} | {'yes' if agree else '**no**'} |"
        )
    folds = np.array(cv["fold"], dtype=int)
    r_pred = np.array(cv["pred"], dtype=float).astype(y.dtype)
    priors = np.bincount(y) / len(y)
    chosen = {c: (m, G) for c, (m, G, _) in theirs.items()}
    pred = cross_validated(X, y, folds, chosen, priors)
    ce, r_ce = float(np.mean(pred != y)), float(cv["ce"][0])
    rows.append(
        f"| {name} | **10-fold CV error** | {ce:.4f} | {r_ce:.4f} (cvMclustDA) | "
        f"| | same class on {np.mean(pred == r_pred):.1%} of rows |"
    )
    return rows, same, abs(ce - r_ce)


# --------------------------------------------------------------------------- speed
def classes_data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three classes of correlated Gaussians with their own covariances, n rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.empty((n, d))
    for c in range(3):
        rows = y == c
        A = rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d) * (1 + c)
        X[rows] = rng.normal(size=(rows.sum(), d)) @ A.T + 3 * rng.normal(size=d)
    return X, y


def best_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def speed(workdir: Path, repeat: int) -> list[str]:
    from sklearn.mixture import GaussianMixture

    from bayesrule import GaussianBayes

    X, y = classes_data(20_000, 5)
    GaussianBayes(covariance="VVV").fit(X[:300], y[:300])  # imports, first calls
    theirs = dict(line.split() for line in rscript(R_SPEED, workdir, X, y, repeat))
    rows = ["", "| model | bayesrule (s) | mclust (s) | mclust / bayesrule |", "|---|---|---|---|"]
    for model in MODELS:
        ours = best_time(lambda m=model: GaussianBayes(covariance=m).fit(X, y), repeat)
        r = float(theirs[model])
        rows.append(f"| {model} | {ours:.4f} | {r:.4f} | {r / ours:.2f}x |")
    X, y = classes_data(200_000, 20, seed=1)
    edda = best_time(lambda: GaussianBayes(covariance="bic").fit(X, y), repeat)
    sk = best_time(
        lambda: [
            GaussianMixture(3, covariance_type=t, random_state=0).fit(X)
            for t in ("full", "tied", "diag", "spherical")
        ],
        repeat,
    )
    rows += [
        "",
        "| 200,000 x 20 | seconds |",
        "|---|---|",
        f"| GaussianBayes(covariance='bic'), all 14 | {edda:.3f} |",
        f"| scikit-learn GaussianMixture(3), 4 types once each | {sk:.3f} |",
        f"| ratio scikit-learn / bayesrule | {sk / edda:.2f}x |",
    ]
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="*", default=["iris", "wine", "penguins"])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many timings")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument(
        "--busy", action="store_true", help="time the speed rows with another process busy"
    )
    parser.add_argument("--out", type=Path, help="also write the table here")
    args = parser.parse_args(argv)
    if shutil.which("Rscript") is None:
        print("Rscript not found: apt-get install r-base-core r-cran-mclust", file=sys.stderr)
        return 2
    lines = [
        "| data | model | ln L bayesrule | ln L mclust | rel. diff | df | BIC bayesrule "
        "| BIC mclust | rel. diff |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    worst, same = 0.0, True
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.data:
            rows, w, agree = compare_edda(name, Path(tmp))
            lines += rows
            worst, same = max(worst, w), same and agree
        lines.append("")
        lines.append(f"largest relative difference {worst:.1e}; same EDDA choices: {same}")
        lines += [
            "",
            "| data | class | bayesrule (init='hc') | MclustDA | ln L bayesrule | ln L mclust "
            "| same |",
            "|---|---|---|---|---|---|---|",
        ]
        same_da, worst_cv = True, 0.0
        for name in args.data:
            rows, agree, gap = compare_mclustda(name, Path(tmp))
            lines += rows
            same_da, worst_cv = same_da and agree, max(worst_cv, gap)
        lines.append("")
        lines.append(
            f"same MclustDA choices: {same_da}; largest CV error difference {worst_cv:.4f}"
        )
        if not args.skip_speed:
            busy = None
            if args.busy:  # one core kept busy by another process, for both libraries
                busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
                lines += ["", "(speed with another process keeping one core busy)"]
            try:
                lines += speed(Path(tmp), args.repeat)
            finally:
                if busy is not None:
                    busy.kill()
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
