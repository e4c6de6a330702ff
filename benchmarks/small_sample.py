"""Small classes in many dimensions: Bayesian estimates against plug-in QDA.

50 draws of three Gaussian classes in 20 dimensions (random means, covariances
``(A + I)(A + I)^T`` with ``A`` of entries N(0, 1/d)); each draw trains on 5 rows per
class and scores 200 held-out rows per class. Every model is fitted on the same rows;
the table gives the median and mean held-out log loss, the error rate, and in how many
of the 50 draws ``QuadraticDiscriminant(estimate="predictive")`` has the lower log loss.
Prints a Markdown table (``--out`` also writes it); the test suite checks the same claim
(``tests/estimators/test_bayesian_estimates.py``).

Examples::

    .venv/bin/python benchmarks/small_sample.py
    .venv/bin/python benchmarks/small_sample.py --draws 20 --rows 10
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.metrics import log_loss

from bayesrule import GaussianNB, LinearDiscriminant, QuadraticDiscriminant


def classes(rng, d: int = 20, C: int = 3):
    """A draw of C Gaussian classes in d dimensions: ``rows(k)``, k rows per class."""
    means = rng.normal(size=(C, d))
    factors = [rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d) for _ in range(C)]

    def rows(k):
        y = np.repeat(np.arange(C), k)
        return np.stack([means[c] + factors[c] @ rng.normal(size=d) for c in y]), y

    return rows


MODELS = {
    "QDA, ML, reg_covar='auto'": lambda: QuadraticDiscriminant(),
    "QDA, ML, reg_covar=0.1": lambda: QuadraticDiscriminant(reg_covar=0.1),
    "QDA, RDA chosen by CV": lambda: QuadraticDiscriminant(pooling="cv", shrinkage="cv"),
    "scikit-learn QDA(solver='eigen', shrinkage='auto')": lambda: QuadraticDiscriminantAnalysis(
        solver="eigen", shrinkage="auto"
    ),
    "LDA (pooled ML)": lambda: LinearDiscriminant(),
    "GaussianNB": lambda: GaussianNB(),
    "QDA, estimate='map'": lambda: QuadraticDiscriminant(estimate="map"),
    "QDA, estimate='predictive'": lambda: QuadraticDiscriminant(estimate="predictive"),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=50)
    parser.add_argument("--rows", type=int, default=5, help="training rows per class")
    parser.add_argument("--dims", type=int, default=20)
    parser.add_argument("--out", type=Path, help="also write the table here")
    args = parser.parse_args(argv)
    losses = {name: [] for name in MODELS}
    errors = {name: [] for name in MODELS}
    for seed in range(args.draws):
        rows = classes(np.random.default_rng(seed), d=args.dims)
        (X, y), (Xt, yt) = rows(args.rows), rows(200)
        for name, make in MODELS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scikit-learn's collinearity warnings
                model = make().fit(X, y)
                proba = model.predict_proba(Xt)
            losses[name].append(log_loss(yt, proba, labels=[0, 1, 2]))
            errors[name].append(np.mean(proba.argmax(axis=1) != yt))
    best = np.array(losses["QDA, estimate='predictive'"])
    lines = [
        f"{args.draws} draws, {args.rows} training rows per class, {args.dims} dimensions, "
        "3 classes, 200 held-out rows per class",
        "",
        "| model | median log loss | mean log loss | mean error | predictive wins |",
        "|---|---|---|---|---|",
    ]
    for name in MODELS:
        loss = np.array(losses[name])
        wins = "" if name.endswith("'predictive'") else f"{int((best < loss).sum())} / {args.draws}"
        lines.append(
            f"| {name} | {np.median(loss):.3f} | {loss.mean():.3f} | "
            f"{np.mean(errors[name]):.3f} | {wins} |"
        )
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
