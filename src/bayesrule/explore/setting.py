"""What the explorer shows, computed by bayesrule: a setting of two to four Gaussian
classes over two features, priors, a loss matrix and an optional reject cost, turned
into a :class:`~bayesrule.QuadraticDiscriminant` and evaluated on a grid (decision
regions, largest posterior, least conditional risk) and at a point (likelihoods,
evidence, posteriors, risks, decision).

Examples
--------
>>> s = fruit_setting()
>>> out = s.readout([170.0, 585.0])
>>> [round(p, 4) for p in out["posteriors"]]
[0.6459, 0.3526, 0.0015]
>>> out["decision"]
'apple'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from ..datasets import FRUIT_CLASSES, FRUIT_COVARIANCES, FRUIT_FEATURES, FRUIT_MEANS, FRUIT_PRIORS
from ..decision import LossMatrix, conditional_risk
from ..estimators import QuadraticDiscriminant

#: the label of the reject action
REJECT = "reject"
#: draws from each class that estimate the Neyman-Pearson rule's rates
DRAWS = 20_000


@dataclass(frozen=True)
class Setting:
    """Two to four Gaussian classes over two features, and how to decide between them."""

    classes: tuple
    means: np.ndarray  # (K, 2)
    covariances: np.ndarray  # (K, 2, 2)
    priors: np.ndarray  # (K,), summing to 1
    loss: np.ndarray  # (K, K): loss[action, class]
    reject_cost: float | None = None
    features: tuple = ("x0", "x1")
    bounds: tuple = (0.0, 1.0, 0.0, 1.0)  # xmin, xmax, ymin, ymax
    points: tuple = field(default=(), compare=False)  # training points: (X (n, 2), y (n,))
    false_alarm: float | None = None  # Neyman-Pearson (two classes): the bound, or None
    positive: int = 0  # the class Neyman-Pearson detects

    def __post_init__(self):
        K = len(self.classes)
        if not 2 <= K <= 4:
            raise ValueError(f"the explorer draws 2 to 4 classes, got {K}")
        if np.shape(self.means) != (K, 2) or np.shape(self.covariances) != (K, 2, 2):
            raise ValueError("means must have shape (K, 2) and covariances (K, 2, 2)")

    @property
    def actions(self) -> list:
        """The classes, then the reject action where there is a reject cost."""
        return [*self.classes, *([REJECT] if self.reject_cost is not None else [])]

    def model(self) -> QuadraticDiscriminant:
        """The classifier of this setting (no data: its parameters given), made once."""
        return self._classifier

    @cached_property
    def _classifier(self) -> QuadraticDiscriminant:
        K = len(self.classes)
        matrix = np.asarray(self.loss, dtype=float)
        if self.reject_cost is not None:
            matrix = np.vstack([matrix, np.full((1, K), float(self.reject_cost))])
        loss = LossMatrix(matrix)
        reject = REJECT if self.reject_cost is not None else None
        return QuadraticDiscriminant.from_parameters(
            self.means,
            self.covariances,
            priors=np.asarray(self.priors, dtype=float),
            classes=list(self.classes),
            loss=loss,
            reject_label=reject,
        )

    def with_prior(self, k: int, value: float) -> Setting:
        """Class k's prior set to ``value``, the others scaled to keep the sum 1."""
        value = float(np.clip(value, 0.0, 1.0))
        rest = np.delete(np.asarray(self.priors, dtype=float), k)
        scale = (1.0 - value) / rest.sum() if rest.sum() > 0 else 0.0
        rest = rest * scale if rest.sum() > 0 else np.full(rest.size, (1.0 - value) / rest.size)
        return replace(self, priors=np.insert(rest, k, value))

    def with_classes(self, k: int) -> Setting:
        """``k`` classes (2 to 4): the first ones kept as they are, new ones ("class 3",
        ...) spread over the figure with the classes' mean covariance; priors uniform,
        the loss zero-one where a class is new; the training points dropped."""
        if k not in (2, 3, 4):
            raise ValueError(f"the explorer draws 2 to 4 classes, got {k!r}")
        kept = min(k, len(self.classes))
        x0, x1, y0, y1 = self.bounds
        spots = [(0.25, 0.25), (0.75, 0.75), (0.25, 0.75), (0.75, 0.25)]
        means = [*self.means[:kept]]
        names = [*self.classes[:kept]]
        for i in range(kept, k):
            fx, fy = spots[i]
            means.append([x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)])
            name = f"class {i + 1}"
            names.append(name if name not in names else f"{name}'")
        cov = np.mean(self.covariances, axis=0)
        covs = [*self.covariances[:kept], *([cov] * (k - kept))]
        loss = 1.0 - np.eye(k)
        loss[:kept, :kept] = np.asarray(self.loss)[:kept, :kept]
        return replace(
            self,
            classes=tuple(names),
            means=np.array(means, dtype=float),
            covariances=np.array(covs, dtype=float),
            priors=np.full(k, 1.0 / k),
            loss=loss,
            points=(),
            false_alarm=self.false_alarm if k == 2 else None,
            positive=min(self.positive, k - 1),
        )

    @property
    def neyman_pearson_on(self) -> bool:
        """Whether the Neyman-Pearson rule decides (two classes and a false-alarm bound)."""
        return self.false_alarm is not None and len(self.classes) == 2

    def neyman_pearson(self) -> dict:
        """The Neyman-Pearson rule of two classes: decide ``positive`` where the log
        likelihood ratio ``ln p(x|pos) / p(x|neg)`` exceeds ``threshold``, the largest
        whose false-alarm rate ``P(decide pos | neg)`` is at most ``false_alarm``; the
        rates estimated on :data:`DRAWS` draws from each class (seeded: the same every
        time), once per setting. Returns ``threshold``, ``false_alarm`` and ``detection``."""
        return self._neyman_pearson

    @cached_property
    def _neyman_pearson(self) -> dict:
        if not self.neyman_pearson_on:
            raise ValueError(
                "the Neyman-Pearson rule here takes two classes and a false-alarm bound"
            )
        alpha = float(self.false_alarm)
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"the false-alarm bound must lie in (0, 1), got {alpha!r}")
        model = self.model()
        rng = np.random.default_rng(0)
        pos, neg = self.positive, 1 - self.positive
        n = DRAWS
        ratio = {}
        for k in (pos, neg):
            draws = rng.multivariate_normal(self.means[k], self.covariances[k], size=n)
            ll = model.log_likelihood(draws)
            ratio[k] = ll[:, pos] - ll[:, neg]
        below = np.sort(ratio[neg])[::-1]  # the negatives' ratios, largest first
        allowed = int(np.floor(alpha * n))  # at most this many false alarms
        threshold = float(below[allowed]) if allowed < n else -np.inf
        return {
            "threshold": threshold,
            "false_alarm": float(np.mean(ratio[neg] > threshold)),
            "detection": float(np.mean(ratio[pos] > threshold)),
        }

    def _np_decide(self, X: np.ndarray, rule: dict) -> np.ndarray:
        """The Neyman-Pearson action index of rows ``X`` (the positive class or the other)."""
        ll = self.model().log_likelihood(X)
        pos, neg = self.positive, 1 - self.positive
        return np.where(ll[:, pos] - ll[:, neg] > rule["threshold"], pos, neg)

    def grid(self, size=(200, 150)) -> dict:
        """Over a grid of the bounds: ``decision`` (action index per cell, shape (ny,
        nx)), ``posterior`` (the largest) and ``risk`` (the least conditional risk)."""
        x0, x1, y0, y1 = self.bounds
        xs, ys = np.linspace(x0, x1, size[0]), np.linspace(y0, y1, size[1])
        xx, yy = np.meshgrid(xs, ys)
        cells = np.column_stack([xx.ravel(), yy.ravel()])
        model = self.model()
        proba = model.predict_proba(cells)
        risk = conditional_risk(proba, model.loss_.matrix)
        shape = (size[1], size[0])
        decision = np.argmin(risk, axis=1)
        if self.neyman_pearson_on:
            decision = self._np_decide(cells, self.neyman_pearson())
        return {
            "decision": decision.reshape(shape),
            "posterior": proba.max(axis=1).reshape(shape),
            "risk": risk.min(axis=1).reshape(shape),
        }

    def readout(self, x) -> dict:
        """Every number of Bayes' rule at the point ``x``: likelihoods ``p(x|w)``,
        evidence ``p(x)``, posteriors, conditional risks per action and the decision
        (with a false-alarm bound, the Neyman-Pearson rule's, and its ``neyman_pearson``
        threshold and rates)."""
        model = self.model()
        x = np.asarray(x, dtype=float).reshape(1, 2)
        likelihoods = np.exp(model.log_likelihood(x)[0])
        proba = model.predict_proba(x)[0]
        risks = model.risk(x)[0]
        extra = {}
        if self.neyman_pearson_on:
            rule = self.neyman_pearson()
            extra = {
                "neyman_pearson": {**rule, "decision": self.classes[self._np_decide(x, rule)[0]]}
            }
        return {
            **extra,
            "x": x[0].tolist(),
            "likelihoods": likelihoods.tolist(),
            "evidence": float(np.exp(model.log_evidence(x)[0])),
            "posteriors": proba.tolist(),
            "risks": risks.tolist(),
            "decision": str(extra["neyman_pearson"]["decision"] if extra else model.predict(x)[0]),
        }


def fruit_setting() -> Setting:
    """Seed 003's fruit: the true means and covariances, priors 0.4/0.4/0.2, zero-one loss."""
    K = len(FRUIT_CLASSES)
    return Setting(
        classes=tuple(FRUIT_CLASSES),
        means=np.asarray(FRUIT_MEANS, dtype=float),
        covariances=np.asarray(FRUIT_COVARIANCES, dtype=float),
        priors=np.asarray(FRUIT_PRIORS, dtype=float),
        loss=1.0 - np.eye(K),
        features=tuple(FRUIT_FEATURES),
        bounds=(100.0, 290.0, 520.0, 680.0),
    )


def setting_of(model, pair=(0, 1), at=None) -> Setting:
    """The setting of a fitted Gaussian classifier (or a model file): its classes, means,
    covariances, priors and loss. With more than two features, the 2-D slice through the
    features ``pair`` with the others fixed at ``at`` (default: the prior-weighted mean
    of the class means), exactly: each class's Gaussian conditioned on the fixed
    features, its prior multiplied by their density ``p(x_rest = at | c)`` (renormalised),
    so that the slice's posteriors are the model's at those points. ValueError saying
    why where the explorer cannot draw it."""
    if model is None:
        return fruit_setting()
    if isinstance(model, (str, Path)):
        from ..io import load

        model = load(model)
    means = getattr(model, "means_", None)
    if means is None or not hasattr(model, "full_covariances"):
        raise ValueError(
            f"the explorer draws Gaussian classifiers (QDA, LDA, Gaussian naive Bayes); "
            f"this model is a {type(model).__name__}"
        )
    K, d = means.shape
    if not 2 <= K <= 4:
        raise ValueError(f"the explorer draws 2 to 4 classes; this model has {K}")
    pair = [int(j) for j in pair]
    if d < 2 or len(set(pair)) != 2 or not all(0 <= j < d for j in pair):
        raise ValueError(f"pair must name two different features of the {d}, got {pair}")
    covs = model.full_covariances()
    priors = np.asarray(model.class_prior_, dtype=float)
    names = getattr(model, "feature_names_in_", None)
    names = [str(v) for v in names] if names is not None else [f"x{j}" for j in range(d)]
    rest = [j for j in range(d) if j not in pair]
    if rest:
        at = priors @ means[:, rest] if at is None else np.asarray(at, dtype=float)
        means, covs, priors = _slice(means, covs, priors, pair, rest, at)
    else:
        means, covs = means[:, pair], covs[:, pair][:, :, pair]
    matrix = np.asarray(model.loss_.matrix, dtype=float)
    reject = float(matrix[K, 0]) if matrix.shape[0] == K + 1 else None
    spread = 3.5 * np.sqrt(np.stack([covs[:, 0, 0], covs[:, 1, 1]], axis=1))
    low, high = (means - spread).min(axis=0), (means + spread).max(axis=0)
    return Setting(
        classes=tuple(str(c) for c in model.classes_.tolist()),
        means=np.asarray(means, dtype=float),
        covariances=covs,
        priors=priors,
        loss=matrix[:K],
        reject_cost=reject,
        features=(names[pair[0]], names[pair[1]]),
        bounds=(float(low[0]), float(high[0]), float(low[1]), float(high[1])),
    )


def _slice(means, covs, priors, pair, rest, at):
    """Each class's Gaussian over ``pair`` given the ``rest`` at ``at``, and the priors
    times ``p(x_rest = at | c)``, renormalised."""
    from scipy.stats import multivariate_normal

    out_means, out_covs, log_w = [], [], []
    for mu, cov, prior in zip(means, covs, priors, strict=True):
        s_pr = cov[np.ix_(pair, rest)]
        s_rr = cov[np.ix_(rest, rest)]
        gain = np.linalg.solve(s_rr, s_pr.T).T  # S_pr S_rr^-1
        out_means.append(mu[pair] + gain @ (at - mu[rest]))
        out_covs.append(cov[np.ix_(pair, pair)] - gain @ s_pr.T)
        log_w.append(np.log(prior) + multivariate_normal(mu[rest], s_rr).logpdf(at))
    log_w = np.array(log_w) - np.max(log_w)
    weights = np.exp(log_w)
    return np.array(out_means), np.array(out_covs), weights / weights.sum()


def setting_from_table(frame, x: str | None = None, y: str | None = None, label=None):
    """``(setting, (x, y, label))``: QDA fitted on two numeric columns of a table (the
    first two by default) with the classes in ``label`` (by default the last column
    that is not one of them), its training points shown; ValueError saying what is
    wrong with the table otherwise."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    def number(c):
        return is_numeric_dtype(frame[c]) and not is_bool_dtype(frame[c])

    numeric = [c for c in frame.columns if number(c)]
    if len(numeric) < 2:
        raise ValueError(
            f"the table needs two numeric columns to draw; it has {len(numeric)} "
            f"({', '.join(map(str, frame.columns)) or 'no columns'})"
        )
    x = numeric[0] if x is None else x
    y = next(c for c in numeric if c != x) if y is None else y
    if label is None:
        others = [c for c in frame.columns if c not in (x, y)]
        if not others:
            raise ValueError("the table needs a column of class labels besides the two drawn")
        label = others[-1]
    for name in (x, y, label):
        if name not in frame.columns:
            raise ValueError(f"no column {name!r} in the table")
    rows = frame[[x, y, label]].dropna()
    classes = rows[label].astype(str).to_numpy()
    found = np.unique(classes)
    if not 2 <= found.size <= 4:
        raise ValueError(f"the explorer draws 2 to 4 classes; column {label!r} has {found.size}")
    X = rows[[x, y]].to_numpy(dtype=float)
    model = QuadraticDiscriminant().fit(X, classes)
    setting = replace(setting_of(model), features=(str(x), str(y)), points=(X, classes))
    return setting, (x, y, label)
