"""Time bayesrule against scikit-learn on the same data, in one run.

Every row compares one bayesrule estimator with its scikit-learn counterpart on one
operation (``fit``, ``predict_proba`` or ``predict``) and one data size, and reports

* the best wall-clock time of each library over ``--repeat`` runs (``time.perf_counter``;
  the two libraries alternate within each repeat so that background load hits both),
* the ratio sklearn time / bayesrule time (> 1: bayesrule is faster),
* the target ratio from the performance issue, and ``MISS`` where a row falls short,
* how closely the two libraries agree on the result, so that the speed table also shows
  that the same model was computed: the largest absolute difference of the class means
  for ``fit``; for ``predict_proba`` the largest absolute difference of the posteriors
  (GaussianNB, LDA), or the rate at which the most probable class agrees (QDA: sklearn
  uses the unbiased covariance, bayesrule the maximum-likelihood one); for the count
  models the largest difference of ``feature_log_prob_`` after ``fit`` and the rate at
  which ``predict`` gives the same labels.

Gaussian mixtures (``gmm``, on the ``gmm`` sizes) compare EM per iteration, a two-class
fit and a BIC search (``bench_bic_search``: the number of components and the structure
chosen per class, against one ``GaussianMixture`` per candidate) with scikit-learn's
``GaussianMixture`` (see ``bench_mixture``).

KernelNB (``kde``, on the ``kernel`` sizes) has no scikit-learn counterpart: its
``predict`` is measured against a budget of 3 x bayesrule's GaussianNB predict time x
the kernel's support (2 grid nodes per evaluation; see ``bench_kernel``).

ConformalSet (``conformal``, on the ``conformal`` sizes: 1,000,000 x 20 x 10) times split
conformal sets of a GaussianNB for ``lac``, ``aps`` and ``raps``: ``fit``, its two parts
(the model's fit; the calibration, scores and quantile, from given posteriors) and
``predict_set`` on every row, against MAPIE's ``SplitConformalClassifier`` on the same
split and model where MAPIE is installed (informational rows otherwise), with the peak
memory over one (rows x C) float64 matrix (see ``bench_conformal``).

bayesrule is timed once per model and size; LinearDiscriminant's two rows (against the
svd and the lsqr solver) share its time.

Data: C Gaussian classes of equal size, float64, generated in chunks with a fixed seed,
class means drawn from N(0, (3 / sqrt(d))^2) per feature (pairs of class means about
4 standard deviations apart, so that posteriors are not all 0 or 1), and a random
per-class, per-feature standard deviation in [exp(-0.25), exp(0.25)] so that the classes'
covariances differ (QDA is meaningful). Only one size's data is alive at a time.

Sparse sizes (MultinomialNB and BernoulliNB, against scikit-learn's on the same CSR
matrix): word counts of C classes, each row a Poisson(K) number of draws from its class's
distribution over d features (a shuffled Zipf-like profile, perturbed per class), counts
1, 2, ... (geometric), duplicates summed.

Memory: after the timed runs, every row's call runs once more per library under
``tracemalloc`` (NumPy's and SciPy's arrays are traced; BLAS work buffers are not), and
the peak traced bytes above what was allocated before the call (the fitted model and
the output included) go into the "MiB" columns, beside the data's own size.
``--no-memory`` skips these runs.

Categorical sizes (``aode``, ``quick-aode``; the semi-naive rows): integer codes 0 .. 4
(5 values per attribute) from :func:`bayesrule.datasets.dependent_pairs` with
``strength=0.8``: the attributes come in pairs whose second member copies the first
through a class-specific permutation 80% of the time, so naive Bayes's independence
assumption is wrong and AODE's and TAN's is not. A held-out set of n / 5 rows is drawn
from the same model. ``aode`` compares ``AODE()`` (``fit``, ``predict_proba``,
``predict``) and ``tan`` compares ``TAN()`` (``fit``, ``predict_proba``) with
scikit-learn's ``CategoricalNB(min_categories=5)``, the closest estimator it has. These
rows are informational (no target: status ``info``, never ``MISS``): naive Bayes is a
different, cheaper model (AODE does about d times its work per prediction). Their
``fit`` row reports each model's error rate and log loss on the held-out rows (and the
Bayes-optimal error of the true model), which is the point of them; the prediction rows
the rate at which the two models' labels agree.

Examples::

    .venv/bin/python benchmarks/bench.py --quick
    .venv/bin/python benchmarks/bench.py     # the full run; writes benchmarks/results.md
    .venv/bin/python benchmarks/bench.py --sizes medium --models gnb,lda --repeat 5
    .venv/bin/python benchmarks/bench.py --sizes 100000x30x4 --sklearn-only
    .venv/bin/python benchmarks/bench.py --sizes sparse --models mnb,bnb
    .venv/bin/python benchmarks/bench.py --sizes 50000x20000x10:80 --models mnb
    .venv/bin/python benchmarks/bench.py --sizes gmm --models gmm
    .venv/bin/python benchmarks/bench.py --sizes aode --models aode,tan --profile
    .venv/bin/python benchmarks/bench.py --sizes conformal --models conformal

A full run rewrites ``benchmarks/results.md`` and keeps its sections from the first
``## `` heading on (``conformal_compare.py --record`` writes one).
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import importlib
import io
import math
import os
import platform
import pstats
import sys
import time
import traceback
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import bench_conformal
import numpy as np
import pomegranate_models as pomegranate
import scipy
import scipy.sparse as sp
import sklearn
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
from sklearn.naive_bayes import GaussianNB as SkGaussianNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

OPERATIONS = ("fit", "predict_proba", "predict")


# --------------------------------------------------------------------------- sizes


@dataclass(frozen=True)
class Size:
    """One data set: n samples, d features, C classes; ``only`` limits the rows.

    ``nnz_per_row`` > 0 makes it a sparse (CSR) count matrix with about that many
    non-zeros per row; the models of kind "sparse" run on those, the others on dense.
    ``data="mixture"`` marks the Gaussian data the mixture (EM) rows run on: the C
    classes are then the K components of one mixture. ``data="categorical"``: integer
    codes 0 .. CATEGORICAL_VALUES - 1 with dependent attribute pairs (semi-naive rows).
    """

    name: str
    n: int
    d: int
    n_classes: int
    only: frozenset[tuple[str, str]] | None = None  # (model, operation) pairs
    nnz_per_row: int = 0
    data: str = ""

    @property
    def kind(self) -> str:
        return self.data or ("sparse" if self.nnz_per_row else "gaussian")

    @property
    def shape(self) -> str:
        if self.nnz_per_row:
            return f"{self.n:,} x {self.d:,} x {self.n_classes} csr"
        if self.data == "categorical":
            return f"{self.n:,} x {self.d} x {self.n_classes} cat"
        return f"{self.n:,} x {self.d} x {self.n_classes}"

    @property
    def stored_values(self) -> int:
        """Values the data holds: n * d dense, about n * nnz_per_row sparse."""
        return self.n * (self.nnz_per_row or self.d)

    def wants(self, model: str, operation: str) -> bool:
        return self.only is None or (model, operation) in self.only


GNB_PROBA_ONLY = frozenset({("gnb", "predict_proba")})

SIZES = {
    "large": Size("large", 1_000_000, 100, 20),
    "medium": Size("medium", 200_000, 50, 10),
    "binary": Size("binary", 1_000_000, 100, 2, only=GNB_PROBA_ONLY),
    "quick": Size("quick", 20_000, 20, 5),
    "quick-binary": Size("quick-binary", 20_000, 20, 2, only=GNB_PROBA_ONLY),
    "sparse": Size("sparse", 200_000, 50_000, 20, nnz_per_row=100),
    "quick-sparse": Size("quick-sparse", 20_000, 5_000, 5, nnz_per_row=50),
    "gmm": Size("gmm", 200_000, 20, 5, data="mixture"),
    "quick-gmm": Size("quick-gmm", 20_000, 20, 5, data="mixture"),
    "aode": Size("aode", 100_000, 30, 3, data="categorical"),
    "quick-aode": Size("quick-aode", 10_000, 30, 3, data="categorical"),
    "kernel": Size("kernel", 200_000, 10, 2, data="kernel"),
    "quick-kernel": Size("quick-kernel", 20_000, 10, 2, data="kernel"),
    "conformal": Size("conformal", 1_000_000, 20, 10, data="conformal"),
    "quick-conformal": Size("quick-conformal", 20_000, 20, 5, data="conformal"),
}
DEFAULT_SIZES = ("large", "medium", "binary", "sparse", "gmm", "aode", "kernel", "conformal")
QUICK_SIZES = (
    "quick",
    "quick-binary",
    "quick-sparse",
    "quick-gmm",
    "quick-aode",
    "quick-kernel",
    "quick-conformal",
)

#: values per attribute of the categorical sizes, and how often the second attribute of a
#: pair copies the first through its class's permutation (``dependent_pairs``)
CATEGORICAL_VALUES = 5
CATEGORICAL_STRENGTH = 0.8


def parse_size(text: str) -> Size:
    """A named size (``large``, ``medium``, ...), ``NxDxC`` such as ``50000x20x5``, or
    ``NxDxC:K`` for a sparse count matrix with about K non-zeros per row."""
    if text in SIZES:
        return SIZES[text]
    shape, _, per_row = text.partition(":")
    try:
        n, d, c = (int(part.replace("_", "")) for part in shape.lower().split("x"))
        k = int(per_row.replace("_", "")) if per_row else 0
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"size {text!r} is neither one of {sorted(SIZES)} nor of the form NxDxC "
            "(e.g. 50000x20x5) or NxDxC:K (sparse, e.g. 50000x20000x10:80)"
        ) from None
    if n < 2 * c or d < 1 or c < 2 or k < 0 or (per_row and k < 1):
        raise argparse.ArgumentTypeError(
            f"size {text!r} needs n >= 2C, d >= 1, C >= 2 (and K >= 1)"
        )
    return Size(text, n, d, c, nnz_per_row=k)


def make_data(size: Size, seed: int, chunk_rows: int = 65_536) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian classes with distinct means and per-class scales, generated in chunks."""
    n, d, n_classes = size.n, size.d, size.n_classes
    rng = np.random.default_rng([seed, n, d, n_classes])
    means = rng.normal(0.0, 3.0 / math.sqrt(d), size=(n_classes, d))
    scales = np.exp(rng.uniform(-0.25, 0.25, size=(n_classes, d)))
    y = np.arange(n, dtype=np.int64) % n_classes  # balanced labels 0 .. C-1
    rng.shuffle(y)
    X = np.empty((n, d), dtype=np.float64)
    for start in range(0, n, chunk_rows):
        rows = slice(start, min(start + chunk_rows, n))
        block = X[rows]  # a C-contiguous view
        rng.standard_normal(out=block)
        labels = y[rows]
        block *= scales[labels]
        block += means[labels]
    return X, y


def make_sparse_data(
    size: Size, seed: int, chunk_rows: int = 20_000
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Word counts: each row Poisson(K) draws from its class's distribution over d words."""
    n, d, n_classes = size.n, size.d, size.n_classes
    rng = np.random.default_rng([seed, n, d, n_classes, size.nnz_per_row])
    profile = 1.0 / np.arange(1, d + 1) ** 0.8  # Zipf-like word frequencies
    rng.shuffle(profile)
    q = profile * np.exp(rng.normal(0.0, 0.6, size=(n_classes, d)))
    cdf = np.cumsum(q / q.sum(axis=1, keepdims=True), axis=1)
    y = np.arange(n, dtype=np.int64) % n_classes
    rng.shuffle(y)
    blocks = []
    for start in range(0, n, chunk_rows):
        labels = y[start : start + chunk_rows]
        lengths = rng.poisson(size.nnz_per_row, size=len(labels))
        owner = np.repeat(labels, lengths)
        u = rng.random(owner.size)
        cols = np.empty(owner.size, dtype=np.int32)
        for c in range(n_classes):
            sel = owner == c
            cols[sel] = np.minimum(np.searchsorted(cdf[c], u[sel]), d - 1)
        counts = rng.geometric(0.6, size=owner.size).astype(np.float64)
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        block = sp.csr_matrix((counts, cols, indptr), shape=(len(labels), d))
        block.sum_duplicates()
        blocks.append(block)
    return sp.vstack(blocks, format="csr"), y


@dataclass(frozen=True)
class HeldOut:
    """Rows drawn from the same model as the training rows, to score the fitted models."""

    X: np.ndarray
    y: np.ndarray
    bayes_error: float  # error rate of the true model's posterior (the Bayes classifier)


def make_categorical_data(size: Size, seed: int) -> tuple[np.ndarray, np.ndarray, HeldOut]:
    """Codes 0 .. 4 in dependent pairs (``dependent_pairs``), plus n / 5 held-out rows."""
    from bayesrule.datasets import dependent_pairs

    n, d, n_classes = size.n, size.d, size.n_classes
    rng = np.random.default_rng([seed, n, d, n_classes, CATEGORICAL_VALUES])
    options = {
        "n_pairs": (d + 1) // 2,  # an odd d drops the last pair's second attribute
        "n_values": CATEGORICAL_VALUES,
        "n_classes": n_classes,
        "strength": CATEGORICAL_STRENGTH,
        "random_state": rng,
    }
    train = dependent_pairs(n, **options)
    test = dependent_pairs(max(n // 5, n_classes), **options)
    bayes = test.log_joint(test.data).argmax(axis=1)
    held_out = HeldOut(
        np.ascontiguousarray(test.data[:, :d]),
        test.target,
        float(np.mean(bayes != test.target)),
    )
    return np.ascontiguousarray(train.data[:, :d]), train.target, held_out


def data_bytes(X) -> int:
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


# --------------------------------------------------------------------------- models


@dataclass(frozen=True)
class Baseline:
    """One scikit-learn estimator that a bayesrule estimator is compared with."""

    label: str
    make: Callable[[], Any]


@dataclass(frozen=True)
class Model:
    """A bayesrule estimator, how to build it, and its scikit-learn baselines."""

    key: str
    label: str
    bayesrule_name: str
    bayesrule_kwargs: dict[str, Any]
    baselines: tuple[Baseline, ...]
    proba_check: str  # "maxabs" or "argmax"
    targets: Callable[[str, int, str], float]  # (operation, C, baseline) -> target ratio
    data: str = "gaussian"  # the kind of Size it runs on: "gaussian", "sparse", "mixture"
    # or "categorical"
    operations: tuple[str, ...] = ("fit", "predict_proba")


def _gnb_target(operation: str, n_classes: int, baseline: str) -> float:
    if operation == "predict_proba":
        return {20: 15.0, 2: 4.0}.get(n_classes, 1.0)
    return 3.0 if n_classes == 20 else 1.0


def _qda_target(operation: str, n_classes: int, baseline: str) -> float:
    return 3.0 if operation == "fit" else 2.0


def _lda_target(operation: str, n_classes: int, baseline: str) -> float:
    return 5.0 if operation == "fit" and baseline.endswith("(svd)") else 1.0


def _count_nb_target(operation: str, n_classes: int, baseline: str) -> float:
    return {"fit": 3.0, "predict": 2.0}.get(operation, 1.0)


def _gmm_target(operation: str, n_classes: int, baseline: str) -> float:
    return {"EM iteration": 3.0, "BIC search": 1.0}.get(operation, 2.0)


def _no_target(operation: str, n_classes: int, baseline: str) -> float:
    """Informational rows (a different model than the baseline): status "info"."""
    return 0.0


def _kernel_target(operation: str, n_classes: int, baseline: str) -> float:
    """KernelNB predict against its budget (see ``bench_kernel``); fit informational."""
    return 1.0 if operation == "predict" else 0.0


def _conformal_target(operation: str, n_classes: int, baseline: str) -> float:
    """ConformalSet against MAPIE (see ``bench_conformal``): ``predict_set`` >= 1x; ``fit``
    and its parts informational, with their ratio: at parity by construction (the same
    split, model fit and posteriors dominate both; ConformalSet also validates all n
    labels, MAPIE only the held-out ones)."""
    return 1.0 if operation == "predict_set" else 0.0


def _categorical_nb() -> SkCategoricalNB:
    return SkCategoricalNB(min_categories=CATEGORICAL_VALUES)


MODELS = {
    "gnb": Model(
        "gnb",
        "GaussianNB",
        "GaussianNB",
        {},
        (Baseline("GaussianNB", SkGaussianNB),),
        "maxabs",
        _gnb_target,
    ),
    "qda": Model(
        "qda",
        "QuadraticDiscriminant",
        "QuadraticDiscriminant",
        {"reg_covar": 0.0},
        (Baseline("QDA", QuadraticDiscriminantAnalysis),),
        "argmax",
        _qda_target,
    ),
    "lda": Model(
        "lda",
        "LinearDiscriminant",
        "LinearDiscriminant",
        {},
        (
            Baseline("LDA (svd)", LinearDiscriminantAnalysis),
            Baseline("LDA (lsqr)", lambda: LinearDiscriminantAnalysis(solver="lsqr")),
        ),
        "maxabs",
        _lda_target,
    ),
    "mnb": Model(
        "mnb",
        "MultinomialNB",
        "MultinomialNB",
        {},
        (Baseline("MultinomialNB", SkMultinomialNB),),
        "maxabs",
        _count_nb_target,
        data="sparse",
        operations=OPERATIONS,
    ),
    "bnb": Model(
        "bnb",
        "BernoulliNB",
        "BernoulliNB",
        {},
        (Baseline("BernoulliNB", SkBernoulliNB),),
        "maxabs",
        _count_nb_target,
        data="sparse",
        operations=OPERATIONS,
    ),
    "gmm": Model(
        "gmm",
        "Gaussian mixture (EM)",
        "likelihoods.mixture.em",
        {},
        (Baseline("GaussianMixture", GaussianMixture),),
        "maxabs",
        _gmm_target,
        data="mixture",
        operations=("EM iteration", "fit, 2 classes", "BIC search"),
    ),
    "aode": Model(
        "aode",
        "AODE",
        "AODE",
        {},
        (Baseline("CategoricalNB", _categorical_nb),),
        "argmax",
        _no_target,
        data="categorical",
        operations=OPERATIONS,
    ),
    "tan": Model(
        "tan",
        "TAN",
        "TAN",
        {},
        (Baseline("CategoricalNB", _categorical_nb),),
        "argmax",
        _no_target,
        data="categorical",
    ),
    "kde": Model(
        "kde",
        "KernelNB",
        "KernelNB",
        {},
        (),  # no scikit-learn estimator: timed against bayesrule's GaussianNB
        "argmax",
        _kernel_target,
        data="kernel",
        operations=("fit", "predict"),
    ),
    "conformal": Model(
        "conformal",
        "ConformalSet",
        "decision.conformal",
        {},
        (),  # MAPIE's SplitConformalClassifier where installed (see bench_conformal)
        "argmax",
        _conformal_target,
        data="conformal",
        operations=("fit", "fit: model", "fit: calibration", "predict_set"),
    ),
}


def load_bayesrule(models: list[Model], sklearn_only: bool) -> tuple[dict[str, Any], list[str]]:
    """bayesrule's estimator classes by model key; notes on the ones that are missing."""
    if sklearn_only:
        return {}, ["--sklearn-only: bayesrule is not timed"]
    try:
        import bayesrule
    except Exception as exc:  # report any import failure and go on
        return {}, [f"bayesrule does not import ({type(exc).__name__}: {exc}); sklearn only"]
    classes, notes = {}, []
    for model in models:
        if "." in model.bayesrule_name:  # a module (the mixture rows time its functions)
            try:
                cls = importlib.import_module(f"bayesrule.{model.bayesrule_name}")
            except ImportError:
                cls = None
        else:
            cls = getattr(bayesrule, model.bayesrule_name, None)
        if cls is None:
            notes.append(f"bayesrule.{model.bayesrule_name} is missing; sklearn only for it")
        else:
            classes[model.key] = cls
    return classes, notes


# --------------------------------------------------------------------------- timing


@dataclass
class Row:
    model: str
    baseline: str
    operation: str
    size: Size
    t_sklearn: float | None
    t_bayesrule: float | None
    target: float
    agreement: str
    error: str = ""
    memory: tuple[float | None, float | None] = (None, None)  # peak bytes: sklearn, bayesrule
    data_bytes: float | None = None  # the size of X (set by main)
    t_pomegranate: float | None = None  # where pomegranate has the model and is installed

    @property
    def pomegranate_ratio(self) -> float | None:
        if self.t_pomegranate is None or self.t_bayesrule is None:
            return None
        return self.t_pomegranate / max(self.t_bayesrule, 1e-12)

    @property
    def ratio(self) -> float | None:
        if self.t_sklearn is None or self.t_bayesrule is None:
            return None
        return self.t_sklearn / max(self.t_bayesrule, 1e-12)

    @property
    def status(self) -> str:
        if self.error:
            return "ERROR"
        if self.ratio is None:
            return "-"
        if self.target <= 0:
            return "info"
        return "ok" if self.ratio >= self.target else "MISS"


@dataclass
class Timed:
    """Best time and last result of one callable over the repeats (None: it failed)."""

    best: float = math.inf
    result: Any = None
    error: str = ""
    runs: int = field(default=0)

    @property
    def seconds(self) -> float | None:
        return None if self.error or self.runs == 0 else self.best


def time_alternating(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, Timed]:
    """Run each callable ``repeat`` times, alternating between them; keep the best time."""
    timed = {name: Timed() for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            entry = timed[name]
            if entry.error:
                continue
            entry.result = None  # free the previous result before the next run
            gc.collect()
            try:
                start = time.perf_counter()
                result = call()
                elapsed = time.perf_counter() - start
            except Exception as exc:  # a failing library must not stop the run
                entry.error = f"{type(exc).__name__}: {exc}"
                traceback.print_exc()
                continue
            entry.result, entry.runs = result, entry.runs + 1
            entry.best = min(entry.best, elapsed)
    return timed


def max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))


def mean_agreement(sk_model: Any, br_model: Any) -> str:
    if hasattr(sk_model, "feature_log_prob_") and hasattr(br_model, "feature_log_prob_"):
        diff = max_abs_diff(sk_model.feature_log_prob_, br_model.feature_log_prob_)
        return f"log prob max|d| {diff:.1e}"
    sk_means = getattr(sk_model, "theta_", None)
    if sk_means is None:
        sk_means = getattr(sk_model, "means_", None)
    br_means = getattr(br_model, "means_", None)
    if sk_means is None or br_means is None or np.shape(sk_means) != np.shape(br_means):
        return "means n/a"
    return f"means max|d| {max_abs_diff(sk_means, br_means):.1e}"


def proba_agreement(check: str, p_sklearn: np.ndarray, p_bayesrule: np.ndarray) -> str:
    if np.shape(p_sklearn) != np.shape(p_bayesrule):
        return f"shape {np.shape(p_bayesrule)} != {np.shape(p_sklearn)}"
    if np.ndim(p_sklearn) == 1:  # predicted labels
        return f"labels agree {100 * np.mean(p_sklearn == p_bayesrule):.3f}%"
    if check == "argmax":
        same = np.mean(np.argmax(p_sklearn, axis=1) == np.argmax(p_bayesrule, axis=1))
        return f"argmax {100 * same:.3f}%"
    return f"proba max|d| {max_abs_diff(p_sklearn, p_bayesrule):.1e}"


def held_out_quality(fits: dict[str, Timed], held_out: HeldOut) -> str:
    """Error rate and log loss of every fitted model (by name) on the held-out rows."""
    parts = []
    for name, entry in fits.items():
        if entry.seconds is None:
            continue
        proba = entry.result.predict_proba(held_out.X)
        error = np.mean(np.argmax(proba, axis=1) != held_out.y)
        picked = proba[np.arange(held_out.y.size), held_out.y]
        loss = -np.mean(np.log(np.maximum(picked, 1e-300)))
        parts.append(f"{name} {100 * error:.3f}% (log loss {loss:.1e})")
    return (
        f"held-out error {', '.join(parts)}; Bayes {100 * held_out.bayes_error:.3f}%"
        if parts
        else "-"
    )


def profile_call(label: str, call: Callable[[], Any], top: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    call()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).strip_dirs().sort_stats("tottime").print_stats(top)
    print(f"\n--- cProfile of bayesrule {label} (by own time) ---")
    print(text.getvalue().strip().split("\n\n", 1)[-1], flush=True)


def bench_model(
    model: Model,
    bayesrule_cls: Any | None,
    size: Size,
    X: np.ndarray,
    y: np.ndarray,
    repeat: int,
    profile: int,
    memory: bool,
    held_out: HeldOut | None = None,
) -> list[Row]:
    """Time fit and the prediction operations of one model against its baselines; with
    ``held_out``, the fit rows' agreement column scores every model on those rows;
    with ``memory``, each row's peak traced memory."""
    rows: list[Row] = []

    def make_bayesrule() -> Any:
        return bayesrule_cls(**model.bayesrule_kwargs)

    def make_pomegranate() -> Any:
        return pomegranate.classifier(model.key, size.n_classes)

    with_pomegranate = pomegranate.has(model.key)

    def fit_calls(baselines: tuple[Baseline, ...]) -> dict[str, Callable[[], Any]]:
        calls: dict[str, Callable[[], Any]] = {
            b.label: (lambda b=b: b.make().fit(X, y)) for b in baselines
        }
        if bayesrule_cls is not None:
            calls["bayesrule"] = lambda: make_bayesrule().fit(X, y)
        if with_pomegranate:
            calls[pomegranate.LABEL] = lambda: make_pomegranate().fit(X, y)
        return calls

    # Warm-up on a slice with a few times d rows per class (so that QDA's covariances are
    # not singular): first-call imports and caches are not what we time.
    warm_rows = 5 * size.n_classes * max(size.d, 20) if size.kind == "gaussian" else 10_000
    warm = slice(0, min(size.n, warm_rows))
    factories = [b.make for b in model.baselines]
    if bayesrule_cls is not None:
        factories.append(make_bayesrule)
    if with_pomegranate:
        factories.append(make_pomegranate)
    for factory in factories:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted = factory().fit(X[warm], y[warm])
                for operation in model.operations[1:]:  # e.g. predict's own kernel
                    getattr(fitted, operation)(X[warm])
        except Exception:  # the timed run reports the error
            pass

    want_fit = size.wants(model.key, "fit")
    fit_repeat = repeat if want_fit else 1
    fits = time_alternating(fit_calls(model.baselines), fit_repeat)
    br_fit = fits.get("bayesrule")
    fit_peaks = peaks(fit_calls(model.baselines), fits) if memory and want_fit else {}

    if want_fit:
        for baseline in model.baselines:
            sk_fit = fits[baseline.label]
            agreement = "-"
            if held_out is not None:
                agreement = held_out_quality(
                    {baseline.label: sk_fit, **({model.label: br_fit} if br_fit else {})},
                    held_out,
                )
            elif sk_fit.seconds is not None and br_fit is not None and br_fit.seconds is not None:
                agreement = mean_agreement(sk_fit.result, br_fit.result)
            rows.append(
                Row(
                    model.label,
                    baseline.label,
                    "fit",
                    size,
                    sk_fit.seconds,
                    None if br_fit is None else br_fit.seconds,
                    model.targets("fit", size.n_classes, baseline.label),
                    agreement,
                    "; ".join(e for e in (sk_fit.error, br_fit.error if br_fit else "") if e),
                    (fit_peaks.get(baseline.label), fit_peaks.get("bayesrule")),
                    t_pomegranate=pomegranate_seconds(fits),
                )
            )
            print_progress(rows[-1])
        if profile and br_fit is not None and br_fit.seconds is not None:
            profile_call(
                f"{model.label}.fit {size.shape}", lambda: make_bayesrule().fit(X, y), profile
            )

    for operation in model.operations[1:]:
        if size.wants(model.key, operation):
            rows += bench_prediction(model, operation, size, X, fits, repeat, profile, memory)
    del fits
    gc.collect()
    return rows


def bench_prediction(
    model: Model,
    operation: str,
    size: Size,
    X: Any,
    fits: dict[str, Timed],
    repeat: int,
    profile: int,
    memory: bool,
) -> list[Row]:
    """Time one prediction method (``predict_proba``, ``predict``) of the fitted models."""
    rows: list[Row] = []
    br_fit = fits.get("bayesrule")
    calls: dict[str, Callable[[], Any]] = {}
    for label, entry in fits.items():
        if entry.seconds is not None:
            calls[label] = lambda m=entry.result: getattr(m, operation)(X)
    timed = time_alternating(calls, repeat)
    br_timed = timed.get("bayesrule")
    peaked = peaks(calls, timed) if memory else {}
    for baseline in model.baselines:
        sk_timed = timed.get(baseline.label, Timed(error=fits[baseline.label].error))
        br_error = br_fit.error if br_fit is not None and br_fit.error else ""
        if br_timed is not None and br_timed.error:
            br_error = br_timed.error
        agreement = "-"
        if sk_timed.seconds is not None and br_timed is not None and br_timed.seconds is not None:
            agreement = proba_agreement(model.proba_check, sk_timed.result, br_timed.result)
        pom = timed.get(pomegranate.LABEL)
        if pom is not None and br_timed is not None and br_timed.seconds is not None:
            if pom.seconds is None:
                agreement += f"; pomegranate failed ({pom.error[:60]})"
            else:
                agreement += "; pomegranate " + proba_agreement(
                    "maxabs", pomegranate.to_numpy(pom.result), br_timed.result
                )
        rows.append(
            Row(
                model.label,
                baseline.label,
                operation,
                size,
                sk_timed.seconds,
                None if br_timed is None else br_timed.seconds,
                model.targets(operation, size.n_classes, baseline.label),
                agreement,
                "; ".join(e for e in (sk_timed.error, br_error) if e),
                (peaked.get(baseline.label), peaked.get("bayesrule")),
                t_pomegranate=pomegranate_seconds(timed),
            )
        )
        print_progress(rows[-1])
    if profile and br_timed is not None and br_timed.seconds is not None:
        fitted = br_fit.result
        profile_call(
            f"{model.label}.{operation} {size.shape}",
            lambda: getattr(fitted, operation)(X),
            profile,
        )
    return rows


#: EM iterations timed per fit in the mixture's "EM iteration" row (tol=0: all run)
EM_ITERATIONS = 10


def bench_mixture(
    model: Model,
    module: Any | None,
    size: Size,
    X: np.ndarray,
    y: np.ndarray,
    repeat: int,
    memory: bool,
) -> list[Row]:
    """Gaussian mixtures fitted by EM: bayesrule's ``fit_mixture`` and ``Mixture`` against
    scikit-learn's ``GaussianMixture`` (full covariances, reg_covar=1e-6).

    * "EM iteration": one mixture of K = C components on all rows, both started from the
      same given weights, means (K rows drawn with a fixed seed) and precisions (the
      inverse of the data's covariance for every component), ``tol=0`` and
      ``max_iter=10``; the time per iteration is the fit time / 10.
    * "fit, 2 classes": the whole classifier fit: with classes y mod 2, bayesrule's
      ``GaussianMixtureBayes(K, random_state=0).fit`` against one ``GaussianMixture(K)``
      per class (k-means initialisation from one ``RandomState(0)`` shared in class
      order, as ``Mixture`` does; default ``tol=1e-4`` on both).

    Agreement: the largest absolute difference of the component means.
    """
    GaussianMixtureBayes = (
        None if module is None else importlib.import_module("bayesrule").GaussianMixtureBayes
    )
    n, K = size.n, size.n_classes
    rng = np.random.default_rng(0)
    init = {
        "weights_init": np.full(K, 1.0 / K),
        "means_init": X[np.sort(rng.choice(n, K, replace=False))],
        "precisions_init": np.repeat(np.linalg.inv(np.cov(X.T))[None], K, axis=0),
    }
    labels = y % 2
    parts = [X[labels == c] for c in (0, 1)]
    gm_options = {"reg_covar": 1e-6, "tol": 1e-4, "max_iter": 200}

    def quietly(call: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # tol=0 never converges
                return call()

        return run

    def sk_classes() -> list:
        rs = np.random.RandomState(0)
        return [GaussianMixture(K, random_state=rs, **gm_options).fit(part) for part in parts]

    operations = {
        "EM iteration": (
            quietly(lambda: GaussianMixture(K, tol=0, max_iter=EM_ITERATIONS, **init).fit(X)),
            None
            if module is None
            else quietly(
                lambda: module.fit_mixture(X, None, K, tol=0, max_iter=EM_ITERATIONS, **init)
            ),
            EM_ITERATIONS,
        ),
        "fit, 2 classes": (
            sk_classes,
            None
            if module is None
            else lambda: GaussianMixtureBayes(K, random_state=0, **gm_options).fit(X, labels),
            1,
        ),
    }
    pom_calls = {}
    if pomegranate.available() is not None:
        pom_calls["EM iteration"] = lambda: pomegranate.fit_mixture(X, init, EM_ITERATIONS)
    rows = []
    for operation, (sk_call, br_call, per) in operations.items():
        calls = {"GaussianMixture": sk_call}
        if br_call is not None:
            calls["bayesrule"] = br_call
        if operation in pom_calls:
            calls[pomegranate.LABEL] = pom_calls[operation]
        timed = time_alternating(calls, repeat)
        peaked = peaks(calls, timed) if memory else {}
        sk, br = timed["GaussianMixture"], timed.get("bayesrule")
        agreement = "-"
        if sk.seconds is not None and br is not None and br.seconds is not None:
            sk_models = sk.result if isinstance(sk.result, list) else [sk.result]
            fitted = getattr(br.result, "mixtures_", None)
            br_models = [br.result] if fitted is None else list(fitted.values())
            diff = max(
                max_abs_diff(a.means_, b.means_) for a, b in zip(sk_models, br_models, strict=True)
            )
            iters = "/".join(str(m.n_iter_) for m in br_models)
            agreement = f"means max|d| {diff:.1e}; iterations {iters}"
            pom = timed.get(pomegranate.LABEL)
            if pom is not None and pom.seconds is not None:
                pom_diff = max_abs_diff(pomegranate.mixture_means(pom.result), br_models[0].means_)
                agreement += f"; pomegranate means max|d| {pom_diff:.1e}"
        rows.append(
            Row(
                model.label,
                "GaussianMixture",
                operation,
                size,
                None if sk.seconds is None else sk.seconds / per,
                None if br is None or br.seconds is None else br.seconds / per,
                model.targets(operation, K, "GaussianMixture"),
                agreement,
                "; ".join(e for e in (sk.error, br.error if br else "") if e),
                (peaked.get("GaussianMixture"), peaked.get("bayesrule")),
                t_pomegranate=pomegranate_seconds(timed, per),
            )
        )
        print_progress(rows[-1])
    if size.wants(model.key, "BIC search"):
        rows.append(bench_bic_search(model, module, size, X, y, repeat, memory))
        print_progress(rows[-1])
    return rows


#: the BIC search row: rows of the data (at most), largest k, and starts per candidate
BIC_ROWS, BIC_COMPONENTS, BIC_STARTS = 4_000, 5, 3


def bench_bic_search(
    model: Model,
    module: Any | None,
    size: Size,
    X: np.ndarray,
    y: np.ndarray,
    repeat: int,
    memory: bool,
) -> Row:
    """The BIC search of a Gaussian mixture per class: bayesrule's
    ``GaussianMixtureBayes("bic", covariance="sklearn", max_components=5)`` against one
    scikit-learn ``GaussianMixture(k, covariance_type=s, n_init=3)`` per candidate
    (the 4 structures x k = 1..5 of each class, each with BIC_STARTS k-means starts as
    bayesrule's search gives every candidate; the lowest ``.bic`` kept), on the first
    ``min(n / 10, 4,000)`` rows with classes y mod 2 (each a mixture of the data's
    Gaussians). Agreement: the (structure, k) each chooses per class (bayesrule refuses
    degenerate candidates, scikit-learn has no such rule) and the largest relative
    difference of the BIC of the choices both fitted."""
    n = min(size.n // 10, BIC_ROWS)
    Xs, labels = X[:n], y[:n] % 2
    parts = [Xs[labels == c] for c in (0, 1)]
    structures = ("full", "tied", "diag", "spherical")

    def sk_search() -> list:
        rs = np.random.RandomState(0)
        chosen = []
        for part in parts:
            table = {}
            for s in structures:
                for k in range(1, BIC_COMPONENTS + 1):
                    gm = GaussianMixture(
                        k, covariance_type=s, n_init=BIC_STARTS, reg_covar=1e-6, random_state=rs
                    )
                    table[s, k] = gm.fit(part).bic(part)
            chosen.append(table)
        return chosen

    calls: dict[str, Callable[[], Any]] = {"GaussianMixture": sk_search}
    if module is not None:
        cls = importlib.import_module("bayesrule").GaussianMixtureBayes
        options = {"covariance": "sklearn", "max_components": BIC_COMPONENTS, "random_state": 0}
        calls["bayesrule"] = lambda: cls("bic", n_init=BIC_STARTS, **options).fit(Xs, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        timed = time_alternating(calls, repeat)
        peaked = peaks(calls, timed) if memory else {}
    sk, br = timed["GaussianMixture"], timed.get("bayesrule")
    agreement = "-"
    if sk.seconds is not None and br is not None and br.seconds is not None:
        picks, diffs = [], []
        for table, (c, mine) in zip(sk.result, br.result.bic_.items(), strict=True):
            theirs = min(table, key=table.get)
            ours = (br.result.mixtures_[c].covariance, br.result.mixtures_[c].n_components)
            picks.append(f"{ours[0]} {ours[1]} / {theirs[0]} {theirs[1]}")
            diffs += [abs(mine[p] - table[p]) / abs(table[p]) for p in (ours, theirs) if p in mine]
        agreement = (
            f"choice (bayesrule / sklearn) {'; '.join(picks)}; BIC max rel d "
            f"{max(diffs, default=float('nan')):.1e}; {n:,} rows, 2 classes"
        )
    return Row(
        model.label,
        "GaussianMixture",
        "BIC search",
        size,
        sk.seconds,
        None if br is None else br.seconds,
        model.targets("BIC search", 2, "GaussianMixture"),
        agreement,
        "; ".join(e for e in (sk.error, br.error if br else "") if e),
        (peaked.get("GaussianMixture"), peaked.get("bayesrule")),
    )


#: grid nodes one binned kernel evaluation reads (per value, class and feature): the two
#: nodes it interpolates between
KERNEL_SUPPORT = 2
#: KernelNB predict may take this many times GaussianNB's predict time x the support
KERNEL_BUDGET = 3.0


def bench_kernel(
    model: Model,
    cls: Any | None,
    size: Size,
    X: np.ndarray,
    y: np.ndarray,
    repeat: int,
    memory: bool,
) -> list[Row]:
    """``KernelNB()`` (binned kernel densities) against bayesrule's ``GaussianNB()`` on the
    same data: scikit-learn has no kernel density classifier.

    The target (issue 16): ``KernelNB.predict`` within ``KERNEL_BUDGET`` (3) times
    GaussianNB's predict time per row times the kernel's support. The support is the
    number of grid nodes one evaluation reads: the log-density of a value in one class
    and feature is interpolated between ``KERNEL_SUPPORT`` (2) nodes of that density's
    grid, where a Gaussian reads its mean and variance. (Values outside a grid, farther
    than 4 bandwidths from the class's training values, are summed exactly over the
    training values near them; the agreement column gives their share, and their time is
    in KernelNB's.) The row's "sklearn s" column holds that budget, 3 x GaussianNB's
    predict time x 2, so that ratio >= 1 means within it. The fit row is informational,
    beside GaussianNB's fit: KernelNB's sorts each class's values and builds the grids.
    """
    import bayesrule
    from bayesrule.likelihoods import kernel_grid

    gnb = bayesrule.GaussianNB().fit(X, y)
    rows = []

    def add(vs, operation, reference, ours, agreement, peaked):
        rows.append(
            Row(
                model.label,
                vs,
                operation,
                size,
                reference,
                None if ours is None else ours.seconds,
                model.targets(operation, size.n_classes, ""),
                agreement,
                "" if ours is None else ours.error,
                (peaked.get("GaussianNB"), peaked.get("bayesrule")),
            )
        )
        print_progress(rows[-1])

    fits = {"GaussianNB": lambda: bayesrule.GaussianNB().fit(X, y)}
    if cls is not None:
        fits["bayesrule"] = lambda: cls().fit(X, y)
    timed = time_alternating(fits, repeat)
    peaked = peaks(fits, timed) if memory else {}
    fitted = timed.get("bayesrule")
    kde = None if fitted is None or fitted.seconds is None else fitted.result
    agreement = "-"
    if kde is not None:
        like = kde.likelihood_
        nodes = [g[3].size for row in like._grids for g in row if g is not None]
        agreement = (
            f"{int(kde.binned_.sum())} of {kde.binned_.size} densities binned, "
            f"{np.mean(nodes):,.0f} grid nodes each"
        )
    add("GaussianNB (bayesrule)", "fit", timed["GaussianNB"].seconds, fitted, agreement, peaked)
    predicts = {"GaussianNB": lambda: gnb.predict(X)}
    if kde is not None:
        predicts["bayesrule"] = lambda: kde.predict(X)
    timed = time_alternating(predicts, repeat)
    peaked = peaks(predicts, timed) if memory else {}
    t_gnb, br = timed["GaussianNB"].seconds, timed.get("bayesrule")
    budget = None if t_gnb is None else KERNEL_BUDGET * KERNEL_SUPPORT * t_gnb
    agreement = "-"
    if kde is not None and br is not None and br.seconds is not None and t_gnb is not None:
        like = kde.likelihood_
        outside = sum(
            int(np.isnan(kernel_grid.evaluate(g, X[:, j].copy(), like.bandwidth_[c, j])).sum())
            for c, row in enumerate(like._grids)
            for j, g in enumerate(row)
            if g is not None
        )
        share = outside / (X.shape[0] * len(like._grids) * X.shape[1])
        same = np.mean(br.result == timed["GaussianNB"].result)
        agreement = (
            f"KernelNB / (GaussianNB x support {KERNEL_SUPPORT}) = "
            f"{br.seconds / (KERNEL_SUPPORT * t_gnb):.2f} (<= {KERNEL_BUDGET:g}); "
            f"{100 * share:.3f}% of values outside the grids (exact); "
            f"labels agree with GaussianNB {100 * same:.2f}%"
        )
    add(
        f"{KERNEL_BUDGET:g} x GaussianNB x {KERNEL_SUPPORT}",
        "predict",
        budget,
        br,
        agreement,
        peaked,
    )
    return rows


def peak_memory(call: Callable[[], Any]) -> float:
    """Peak bytes traced by ``tracemalloc`` (NumPy and SciPy arrays included) during
    ``call``, above what was traced when it started (its result included)."""
    gc.collect()
    tracemalloc.start()
    try:
        call()
        return float(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def pomegranate_seconds(timed: dict[str, Timed], per: int = 1) -> float | None:
    entry = timed.get(pomegranate.LABEL)
    return None if entry is None or entry.seconds is None else entry.seconds / per


def peaks(calls: dict[str, Callable[[], Any]], timed: dict[str, Timed]) -> dict[str, float]:
    """Peak traced memory of one more run of each call that ran without error (not
    pomegranate's: tracemalloc does not see PyTorch's allocations)."""
    out = {}
    for label, call in calls.items():
        entry = timed.get(label)
        if entry is None or entry.seconds is None or label == pomegranate.LABEL:
            continue
        try:
            out[label] = peak_memory(call)
        except Exception:  # the timed runs worked; report no memory rather than stop
            continue
    return out


# --------------------------------------------------------------------------- report


def fmt_seconds(t: float | None) -> str:
    return "-" if t is None else f"{t:.3f}"


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


HEADERS = (
    "model",
    "vs sklearn",
    "operation",
    "n x d x C",
    "data MiB",
    "sklearn s",
    "bayesrule s",
    "ratio",
    "target",
    "status",
    "pomegranate s",
    "vs pomegranate",
    "sklearn MiB",
    "bayesrule MiB",
    "agreement",
)
RIGHT = set(HEADERS) - {"model", "vs sklearn", "operation", "status", "agreement"}


def fmt_mib(n_bytes: float | None) -> str:
    return "-" if n_bytes is None else f"{n_bytes / 2**20:,.0f}"


def table_cells(row: Row) -> list[str]:
    return [
        row.model,
        row.baseline,
        row.operation,
        row.size.shape,
        fmt_mib(row.data_bytes),
        fmt_seconds(row.t_sklearn),
        fmt_seconds(row.t_bayesrule),
        fmt_ratio(row.ratio),
        f">= {row.target:g}x" if row.target > 0 else "-",
        row.status,
        fmt_seconds(row.t_pomegranate),
        fmt_ratio(row.pomegranate_ratio),
        fmt_mib(row.memory[0]),
        fmt_mib(row.memory[1]),
        row.error or row.agreement,
    ]


def render_table(rows: list[Row]) -> str:
    """A Markdown table, padded so that it also reads well in a terminal."""
    cells = [table_cells(row) for row in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(HEADERS)]

    def line(values: list[str] | tuple[str, ...]) -> str:
        padded = [
            v.rjust(w) if h in RIGHT else v.ljust(w)
            for v, w, h in zip(values, widths, HEADERS, strict=True)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(
        "-" * (w + 1) + ":" if h in RIGHT else "-" * (w + 2)
        for w, h in zip(widths, HEADERS, strict=True)
    )
    return "\n".join([line(HEADERS), rule + "|", *(line(c) for c in cells)])


def print_progress(row: Row) -> None:
    print(
        f"  {row.model:<22} {row.operation:<13} vs {row.baseline:<11} "
        f"sklearn {fmt_seconds(row.t_sklearn):>8} s  bayesrule {fmt_seconds(row.t_bayesrule):>8} s"
        f"  ratio {fmt_ratio(row.ratio):>7}  {row.status}  {row.error or row.agreement}",
        flush=True,
    )


def blas_summary() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed"
    parts = []
    for lib in sorted(threadpool_info(), key=lambda lib: lib.get("filepath", "")):
        owner = os.path.basename(os.path.dirname(lib.get("filepath", "")))
        owner = owner.removesuffix(".libs") or "?"
        extra = ", ".join(
            str(v)
            for v in (lib.get("threading_layer"), lib.get("architecture"))
            if v not in (None, "")
        )
        parts.append(
            f"{lib.get('internal_api')} {lib.get('version') or ''}".strip()
            + f" [{owner}; {lib.get('num_threads')} threads{'; ' + extra if extra else ''}]"
        )
    return "; ".join(parts) or "no BLAS/OpenMP pools found"


def header_lines(bayesrule_version: str) -> list[str]:
    return [
        f"date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"host: {platform.node()} ({platform.machine()}, {os.cpu_count()} CPUs), "
        f"Python {platform.python_version()}",
        f"versions: bayesrule {bayesrule_version}, scikit-learn {sklearn.__version__}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}",
        f"threadpools: {blas_summary()}",
    ]


# --------------------------------------------------------------------------- main


def kept_sections(path: str) -> str:
    """What a rewrite of ``path`` keeps: its sections from the first ``## `` heading on
    (written by other scripts, such as ``conformal_compare.py --record``; this one writes
    none), or ""."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return ""
    start = text.find("\n## ")
    return "" if start < 0 else text[start + 1 :]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time bayesrule against scikit-learn; ratio = sklearn / bayesrule time.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes (20,000 x 20 x 5 and x 2, 20,000 x 5,000 x 5 sparse, 10,000 x 30 "
        "x 3 categorical, 20,000 x 20 x 5 conformal) and one repeat: a smoke run in seconds",
    )
    parser.add_argument(
        "--sizes",
        type=lambda s: [parse_size(p) for p in s.split(",") if p],
        default=None,
        help=f"comma-separated names from {sorted(SIZES)} or NxDxC "
        f"(default: {','.join(DEFAULT_SIZES)})",
    )
    parser.add_argument(
        "--models",
        default=",".join(MODELS),
        help=f"comma-separated subset of {','.join(MODELS)} (default: all)",
    )
    parser.add_argument(
        "--repeat", type=int, default=None, help="best of this many runs (default 3; 1 --quick)"
    )
    parser.add_argument(
        "--repeat-large",
        type=int,
        default=2,
        help="best of this many runs for sizes of 5e7 or more stored values (n*d dense, "
        "non-zeros sparse; default 2)",
    )
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    parser.add_argument(
        "--output",
        metavar="PATH",
        help="also write the table (and header) as Markdown (default for a full run with "
        "every model and size: benchmarks/results.md)",
    )
    parser.add_argument(
        "--sklearn-only", action="store_true", help="time scikit-learn only (no bayesrule)"
    )
    parser.add_argument(
        "--no-memory",
        dest="memory",
        action="store_false",
        help="skip the peak-memory runs (tracemalloc; one more run per row and library)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=15,
        default=0,
        metavar="TOP",
        help="after each timing, run the bayesrule call once under cProfile and print "
        "the TOP functions by own time (default 15)",
    )
    args = parser.parse_args(argv)
    unknown = [m for m in args.models.split(",") if m and m not in MODELS]
    if unknown:
        parser.error(f"--models: unknown {unknown}; choose from {','.join(MODELS)}")
    if (
        args.output is None
        and not args.quick
        and args.sizes is None
        and args.models == ",".join(MODELS)
    ):  # the full run of `make bench` records itself
        args.output = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.md")
    if args.sizes is None:
        args.sizes = [SIZES[s] for s in (QUICK_SIZES if args.quick else DEFAULT_SIZES)]
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    if args.quick:
        args.repeat_large = min(args.repeat_large, args.repeat)
    if args.repeat < 1 or args.repeat_large < 1:
        parser.error("--repeat and --repeat-large must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    models = [MODELS[m] for m in dict.fromkeys(args.models.split(",")) if m]
    classes, notes = load_bayesrule(models, args.sklearn_only)
    try:
        import bayesrule

        bayesrule_version = getattr(bayesrule, "__version__", "?")
    except Exception:
        bayesrule_version = "not importable"

    header = header_lines(bayesrule_version)
    header.append(
        f"pomegranate: {pomegranate.available() or 'not installed (' + pomegranate.INSTALL + ')'}"
    )
    command = "benchmarks/bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    header.append(f"command: {command.strip()}")
    print("\n".join(header))
    for note in notes:
        print(f"note: {note}")
    print(flush=True)

    rows: list[Row] = []
    for size in args.sizes:
        active = [
            m
            for m in models
            if m.data == size.kind and any(size.wants(m.key, op) for op in m.operations)
        ]
        if not active:
            continue
        large = size.stored_values >= 50_000_000
        repeat = args.repeat_large if large else args.repeat
        start = time.perf_counter()
        held_out = None
        if size.kind == "sparse":
            X, y = make_sparse_data(size, args.seed)
            density = f", {X.nnz / size.n:.1f} non-zeros per row"
        elif size.kind == "categorical":
            X, y, held_out = make_categorical_data(size, args.seed)
            density = f", {CATEGORICAL_VALUES} values, {held_out.y.size:,} held-out rows"
        else:
            X, y = make_data(size, args.seed)
            density = ""
        print(
            f"[{size.name}] {size.shape}: data {data_bytes(X) / 2**20:,.0f} MiB{density} "
            f"generated in {time.perf_counter() - start:.1f} s; best of {repeat}",
            flush=True,
        )
        first = len(rows)
        for model in active:
            if model.data == "mixture":
                rows += bench_mixture(
                    model, classes.get(model.key), size, X, y, repeat, args.memory
                )
                continue
            if model.data == "kernel":
                rows += bench_kernel(model, classes.get(model.key), size, X, y, repeat, args.memory)
                continue
            if model.data == "conformal":
                rows += bench_conformal.bench_conformal(
                    model,
                    classes.get(model.key),
                    size,
                    X,
                    y,
                    repeat,
                    args.memory,
                    args.profile,
                    sys.modules[__name__],
                )
                continue
            rows += bench_model(
                model,
                classes.get(model.key),
                size,
                X,
                y,
                repeat,
                args.profile,
                args.memory,
                held_out,
            )
        for row in rows[first:]:
            row.data_bytes = data_bytes(X)
        del X, y, held_out
        gc.collect()

    compared_rows = [r for r in rows if r.target > 0]
    other_rows = [r for r in rows if r.target <= 0]
    table = render_table(compared_rows)
    if other_rows:
        table += (
            "\n\nInformational (bayesrule models that scikit-learn does not have, timed "
            "beside its nearest model; no target):\n\n" + render_table(other_rows)
        )
    print("\n" + table)
    misses = [r for r in rows if r.status in ("MISS", "ERROR")]
    errors = [r for r in rows if r.status == "ERROR"]
    compared = sum((r.ratio is not None and r.target > 0) or bool(r.error) for r in rows)
    summary = f"{len(misses)} of {compared} compared rows miss their target" + (
        ": "
        + "; ".join(f"{r.model} {r.operation} vs {r.baseline} at {r.size.shape}" for r in misses)
        if misses
        else ""
    )
    informational = sum(r.status == "info" for r in rows)
    if informational:
        summary += f"; {informational} informational rows (no target) not counted"
    if args.quick:
        summary += " (--quick is a smoke run: the targets are meant for the full sizes)"
    print("\n" + summary)
    if args.output:
        kept = kept_sections(args.output)
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write("# bayesrule vs scikit-learn\n\n")
            fh.write("ratio = sklearn time / bayesrule time (> 1: bayesrule is faster); ")
            fh.write("times are the best of the repeats, in seconds; MiB: the data's size, ")
            fh.write("and each library's peak traced memory during the call (tracemalloc). ")
            fh.write("vs pomegranate = pomegranate time / bayesrule time, where pomegranate ")
            fh.write("(CPU) has the model.\n\n")
            fh.write("".join(f"- {line}\n" for line in header + [f"note: {n}" for n in notes]))
            fh.write("\n" + table + "\n\n" + summary + "\n")
            if kept:
                fh.write("\n" + kept)
        print(f"wrote {args.output}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
