"""Gaussian mixture class-conditional densities, fitted by EM (seed 000, section 3.4).

``p(x|w_c) = sum_k w_ck N(x; mu_ck, Sigma_ck)``: each class has its own mixture, a
:class:`MixtureModel` fitted by :func:`fit_mixture`, whose numerics are scikit-learn's
``GaussianMixture`` (the same k-means initialisation, updates, lower bound and stopping
rule; sample weights also accepted). The number of components, and the covariance
structure, may be chosen per class by BIC, ``-2 ln L + p ln n`` with ``n`` the class's
total weight, over ``k = 1 .. max_components`` (mclust's approach): the lowest wins.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.utils import check_random_state

from ..._signatures import storing_init
from ..._text import class_name, count
from ..base import BLOCK_BYTES, SQUARING_LIMIT, Likelihood
from . import terms
from .candidates import fit_candidates
from .checks import INITS, check_mixture_params, informative, searched
from .em import fit_mixture
from .em_blocks import class_sums, fit_mixtures_blocks
from .em_missing import filled_rows
from .map_step import one_component_first, regularised, without_prior
from .model import MixtureModel, row_block
from .search import (
    candidates,
    check_warm,
    choose,
    distinct_rows,
    mclust_rules,
    n_starts,
    one_component_aliases,
    too_small,
    warm_of,
    warn_all,
    where,
    with_aliases,
)
from .starts import draw_starts
from .summary import describe

__all__ = ["MIXTURE", "Mixture", "MixtureModel", "fit_mixture"]

#: the mixture's parameters with their defaults (GaussianMixtureBayes takes them too)
MIXTURE = {
    "n_components": "bic",
    "covariance": "full",
    "reg_covar": 1e-6,
    "max_iter": 200,
    "tol": 1e-4,
    "n_init": "auto",
    "random_state": None,
    "weights_init": None,
    "means_init": None,
    "precisions_init": None,
    "warm_start": False,
    "max_components": 10,
    "init": "kmeans",
    "prior": None,
}


class Mixture(Likelihood):
    """A Gaussian mixture density per class, fitted by EM.

    Parameters
    ----------
    n_components : int, dict or "bic", default="bic"
        Components of every class; a dict ``{class index: int}`` (classes left out get
        1); or "bic": per class, the k in ``1 .. max_components`` (at most the class's
        number of distinct samples) of lowest BIC.
    covariance : str or dict, default="full"
        The covariance structure of a class's components (a dict ``{class index:
        str}`` gives each class its own; classes left out get "full"): scikit-learn's "full",
        "tied" (shared by the components of one class), "diag" or "spherical"; or one
        of mclust's 14 models "EII" ... "VVV" (``Sigma_k = lambda_k D_k A_k D_k^T``,
        "E" meaning shared by the components of one class: EEE is "tied", VVV
        "full", VVI "diag", VII "spherical"); or "bic" to choose among mclust's 14
        per class too (as mclust's ``MclustDA``), or "sklearn" to choose among
        scikit-learn's four.
    reg_covar : float, default=1e-6
        Added to the diagonal of every covariance at each M step.
    max_iter : int, default=200
    tol : float, default=1e-4
        EM stops when the mean log-likelihood changes by less.
    n_init : int or "auto", default="auto"
        k-means initialisations per fit; the best final lower bound is kept. "auto": 3
        where BIC chooses the number of components, else 1.
    random_state : None, int or RandomState
    weights_init, means_init, precisions_init : None or dict, default=None
        ``{class index: array}`` in scikit-learn's shapes, for fixed n_components.
    warm_start : bool, default=False
        A refit starts from the fitted mixtures (same class, structure and k), in
        memory or on a Dask collection (:meth:`fit_blocks`).
    max_components : int, default=10
        Largest k tried by ``n_components="bic"``.
    init : {"kmeans", "hc"}, default="kmeans"
        EM's starts: ``n_init`` k-means partitions per k, or "hc", one partition per k
        cut from mclust's model-based agglomerative tree of the class
        (:mod:`~bayesrule.likelihoods.mixture.hierarchical`), as ``Mclust``/``MclustDA``
        start.
    prior : None, "default", NormalInverseWishart or NormalGamma, default=None
        None: maximum-likelihood EM. Otherwise conjugate-prior MAP EM, mclust's
        ``priorControl()`` (:mod:`~bayesrule.likelihoods.mixture.map_step`): "default"
        is mclust's ``defaultPrior`` per class, model and k; a prior object fixes the
        hyperparameters it gives (NormalInverseWishart for the dense models, NormalGamma
        for the diagonal ones). Not with VEE, EVE, VVE and EVV (a search leaves them
        out), missing values or Dask collections.

    Missing values (NaN) are allowed: a row is scored by the density of its observed
    coordinates, and a class with NaN is fitted by EM over its missing coordinates
    (:mod:`~bayesrule.likelihoods.mixture.em_missing`); not on Dask (:meth:`fit_blocks`).

    Attributes
    ----------
    mixtures_ : list of MixtureModel
        One per class index.
    bic_ : list of dict
        Per class, ``{(covariance, k): BIC}`` of every candidate fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.likelihoods.mixture import Mixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(0, 1, (200, 1)), rng.normal(-4, 1, (200, 1)),
    ...                     rng.normal(4, 1, (200, 1))])
    >>> y = np.repeat([0, 1, 1], 200)
    >>> like = Mixture(n_components="bic", max_components=3, random_state=0).fit(X, y, 2)
    >>> [m.n_components for m in like.mixtures_]
    [1, 2]
    >>> like.log_likelihood(np.array([[0.0], [4.0]])).round(2)
    array([[-0.88, -8.87],
           [-9.47, -1.6 ]])
    """

    largest_magnitude = SQUARING_LIMIT

    @property
    def input_kind(self) -> str:
        """What X may hold: "missing" (NaN) under maximum likelihood, "dense" under a
        prior (MAP EM does not run over missing coordinates)."""
        return "missing" if self.prior is None else "dense"

    __init__ = storing_init("Mixture", MIXTURE, positional=tuple(MIXTURE))

    # ----------------------------------------------------------------- parameters
    def _check_params(self, n_classes: int) -> dict:
        """The validated settings; ValueError/TypeError naming the parameter."""
        return check_mixture_params(self, n_classes)

    def _candidates(self, c: int, n_rows: int, distinct: int, d: int):
        """The (covariance, k) pairs to fit for class ``c`` and ``{pair: reason}`` of those
        left out (:func:`~bayesrule.likelihoods.mixture.search.candidates`); ValueError
        when a fixed number of components is impossible."""
        rules = self if self.prior is None else regularised(self)
        if isinstance(self.n_components, str):  # "bic"
            pairs, refused = candidates(rules, None, n_rows, distinct, d)
            return (pairs if self.prior is None else without_prior(pairs, refused)), refused
        k = self._components_of(c)
        if k > n_rows:
            raise ValueError(
                f"n_components={k} for {class_name(c)} is more than its "
                f"{count(n_rows, 'sample')} (with positive weight); use n_components <= "
                f"{n_rows} there."
            )
        pairs, refused = candidates(rules, k, n_rows, distinct, d)
        if self.prior is not None:
            pairs = without_prior(pairs, refused)
        for structure, _ in pairs:
            need = too_small(rules.reg_covar, distinct, structure, k, d)
            if need:
                raise ValueError(
                    f"{class_name(c)} has {count(distinct, 'distinct sample')}, too few for "
                    f"{k} components with covariance={structure!r} and reg_covar=0 (about "
                    f"{need} are needed); use fewer components, set reg_covar > 0, or use "
                    "covariance='diag'."
                )
        return pairs, refused

    def _drawn_ks(self, c: int, pairs, previous, given: dict) -> list[int]:
        """The k of class c that need k-means starts: those of a candidate that starts
        neither warm nor from given weights, means and precisions."""
        if all(given.get(name) is not None for name in INITS):
            return []
        return sorted({k for s, k in pairs if warm_of(previous, c, s, k) is None})

    # ----------------------------------------------------------------- fitting
    def blockwise_reason(self) -> str | None:
        return "EM iterates over all the data (fit_blocks runs it over the blocks)"

    def statistics(self, X, y, n_classes, sample_weight=None):
        raise NotImplementedError(
            "a Gaussian mixture has no additive statistics (EM needs all the data at "
            "once); use fit."
        )

    def partial_fit(self, X, y, n_classes, sample_weight=None):
        raise NotImplementedError(
            "a Gaussian mixture is fitted by EM on all the data at once; use fit (with "
            "warm_start=True to start from the previous fit)."
        )

    def fit(self, X, y, n_classes, sample_weight=None):
        """Fit every class's mixture (choosing k and the structure by BIC if asked)."""
        inits = self._check_params(n_classes)
        X = np.asarray(X, dtype=np.float64)
        d = X.shape[1]
        rs = check_random_state(self.random_state)
        previous = self._previous(n_classes)
        choose_k = isinstance(self.n_components, str)
        mixtures, tables, refusals = [], [], []
        used = informative(X, sample_weight)
        for c in range(n_classes):
            rows = (y == c) & used
            Xc = X[rows]
            wc = None if sample_weight is None else sample_weight[rows]
            if Xc.shape[0] == 0:
                raise ValueError(
                    f"{class_name(c)} has no samples (with positive weight and an observed value)."
                )
            check_warm(c, previous, d)
            like = self.for_class(c)  # the class's own covariance
            choosing = choose_k or searched(like.covariance) is not None
            needed = choose_k or self.reg_covar == 0
            distinct = distinct_rows(Xc) if needed else Xc.shape[0]
            every, refused = like._candidates(c, Xc.shape[0], distinct, d)
            if self.prior is not None:  # mclust's one-component fits under a prior
                every = one_component_first(every)
            pairs, same = one_component_aliases(every, like.covariance)
            options = {name: value.get(c) for name, value in inits.items()}
            ks = self._drawn_ks(c, pairs, previous, options)
            if self.prior is not None:  # fit_mixture's prior (one candidate at a time)
                options["prior"] = self.prior
            # k-means sees rows with missing values completed (em_missing.filled_rows)
            seen = filled_rows(Xc, wc, self.reg_covar) if ks and np.isnan(Xc).any() else Xc
            n = n_starts(self.n_init, choose_k)
            starts = draw_starts(seen, wc, ks, n, rs, choosing, init=self.init)
            results = fit_candidates(like, c, Xc, wc, pairs, starts, options, previous)
            results = with_aliases(results, same, every)
            total = Xc.shape[0] if wc is None else float(wc.sum())
            best, caught, table = choose(
                c, results, refused, total, self.reg_covar, choosing, mclust_rules(self)
            )
            warn_all(caught)  # the chosen model's warnings only
            mixtures.append(best)
            tables.append(table)
            refusals.append(refused)
        self.mixtures_, self.bic_, self.refused_ = mixtures, tables, refusals
        self.pending_ = None
        return self

    def fit_blocks(self, blocks, n_classes):
        """Fit every class's mixture by EM over row blocks (a
        :class:`~bayesrule._blocks.Blocks` of ``(X, y, w)``, ``y`` class positions): one
        pass over the blocks per iteration, shared by all classes and, when BIC chooses,
        by all their candidates (see
        :mod:`~bayesrule.likelihoods.mixture.em_blocks`). The candidates, the k-means
        starts and their order, the warm starts, the refusals, the choice and ``bic_`` are
        those of :meth:`fit`."""
        inits = self._check_params(n_classes)
        if self.prior is not None:
            raise ValueError(
                "a prior (MAP EM) is not available on a Dask collection; compute it and "
                "fit in memory, or use prior=None."
            )
        previous = self._previous(n_classes)
        choose_k = isinstance(self.n_components, str)
        choosing = choose_k or any(
            searched(self.for_class(c).covariance) is not None for c in range(n_classes)
        )
        needed = choose_k or self.reg_covar == 0
        # distinct rows are counted up to what the candidates' rules look at: k <= K
        # components need at most K (d + 1) of them (see search.too_small)
        if choose_k:
            largest = self.max_components
        else:
            largest = max(self._components_of(c) for c in range(n_classes))
        sums = class_sums(blocks, n_classes, largest if needed else 0)
        specs, refusals, plan, aliases = [], [], {}, []
        for c in range(n_classes):
            if c not in sums:
                raise ValueError(f"{class_name(c)} has no samples (with positive weight).")
            n_rows = sums[c][0]
            d = sums[c][2].size
            distinct = len(sums[c][3]) if needed else n_rows
            check_warm(c, previous, d)
            options = {name: value.get(c) for name, value in inits.items()}
            given = tuple(options.get(name) for name in INITS)
            like = self.for_class(c)  # the class's own covariance
            every, refused = like._candidates(c, n_rows, distinct, d)
            pairs, same = one_component_aliases(every, like.covariance)
            aliases.append((same, every))
            refusals.append(refused)
            plan[c] = self._drawn_ks(c, pairs, previous, options)
            for structure, k in pairs:
                warm = warm_of(previous, c, structure, k)
                specs.append((c, where(c, k, structure), k, structure, given, warm))
        fitted = fit_mixtures_blocks(
            blocks,
            specs,
            reg_covar=self.reg_covar,
            max_iter=self.max_iter,
            tol=self.tol,
            n_init=n_starts(self.n_init, choose_k),
            rs=check_random_state(self.random_state),
            sums=sums,
            errors="keep" if choosing else "raise",
            plan=plan,
            dedupe=choosing,
            init=self.init,
        )
        mixtures, tables = [], []
        for c in range(n_classes):
            results = [
                ((spec[3], spec[2]), got.model, got.bic, got.warnings, got.error)
                for spec, got in zip(specs, fitted, strict=True)
                if spec[0] == c
            ]
            results = with_aliases(results, *aliases[c])
            best, caught, table = choose(
                c,
                results,
                refusals[c],
                sums[c][1],
                self.reg_covar,
                choose_k or searched(self.for_class(c).covariance) is not None,
                mclust_rules(self),
            )
            warn_all(caught)  # the chosen model's warnings only
            mixtures.append(best)
            tables.append(table)
        self.mixtures_, self.bic_, self.refused_ = mixtures, tables, refusals
        self.pending_ = None
        return self

    def _previous(self, n_classes: int) -> list | None:
        """With ``warm_start``, the last fit's mixtures when it had ``n_classes`` classes."""
        previous = getattr(self, "mixtures_", None) if self.warm_start else None
        return previous if previous is not None and len(previous) == n_classes else None

    def for_class(self, c: int) -> Mixture:
        """The mixture as class c's search reads it: ``covariance`` that class's own
        where it is a dict (classes left out: "full"), else ``self``."""
        if not isinstance(self.covariance, dict):
            return self
        view = copy.copy(self)
        view.covariance = self.covariance.get(c, "full")
        return view

    def _components_of(self, c: int) -> int:
        """The fixed number of components of class c (a dict leaves out classes of 1)."""
        k = self.n_components
        return k.get(c, 1) if isinstance(k, dict) else k

    # ----------------------------------------------------------------- evaluation
    @property
    def n_classes_(self) -> int:
        return len(self.mixtures_)

    def _row_block(self, n_features: int) -> int:
        per_row = max(2 * m.n_components * n_features for m in self.mixtures_) + self.n_classes_
        return max(64, min(BLOCK_BYTES // (8 * per_row), row_block(1, n_features)))

    log_terms = terms.log_terms  # per component, by its responsibility, and the mixing

    def _class_major(self, X, relative: bool) -> np.ndarray:
        """ln p(x|w_c) of a block of rows, shape (C, rows)."""
        out = np.empty((self.n_classes_, X.shape[0]))
        for c, model in enumerate(self.mixtures_):
            out[c] = model.log_density(X)
        return out

    # ----------------------------------------------------------------- model size, sampling
    def n_parameters(self) -> int:
        """Free parameters of all the classes' mixtures."""
        return sum(m.n_parameters() for m in self.mixtures_)

    def sample(self, counts, random_state) -> np.ndarray:
        """``counts[c]`` draws of class c, rows in class order, shape (sum(counts), d)."""
        d = self.mixtures_[0].means_.shape[1]
        draws = [
            m.sample(int(k), random_state) for m, k in zip(self.mixtures_, counts, strict=True)
        ]
        return np.concatenate(draws) if draws else np.empty((0, d))

    def describe(self, classes, feature_names) -> list[str]:
        """Readable lines: per class the weights, means and variances of its components
        (:func:`~bayesrule.likelihoods.mixture.summary.describe`)."""
        return describe(self, classes, feature_names)
