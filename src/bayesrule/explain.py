"""Why a Bayes classifier decided as it did: the log posterior odds broken into terms.

For a row x, the decided class k and another class j,

    ln P(k|x) / P(j|x) = ln P(k) / P(j) + sum_t [ f_t(x, k) - f_t(x, j) ],

where the ``f_t`` are additive terms of the log-likelihood that the model's family
reports (:meth:`bayesrule.likelihoods.base.Likelihood.log_terms`): one per feature
for the naive Bayes families (``MixedNB``: per column of each block), one per attribute
given its parents for the semi-naive networks (AODE: per attribute over its SPODEs,
weighted by their responsibilities, plus the super-parents' and the averaging's own
terms), the quadratic, linear and constant parts of the discriminant for full and
shared Gaussians (LDA, QDA), one per component for mixtures (its responsibility times
its weighted log density, and the mixing term), and the whole log-likelihood where a
family is not broken down (kernel densities, HNB, ESKDB, AnDE and WAODE, Student t
densities). The terms sum to the log odds exactly
(to rounding). :func:`explain` returns them as an :class:`Explanation`.

Examples
--------
>>> from bayesrule import CategoricalNB
>>> from bayesrule.datasets import hiking
>>> walk = hiking()
>>> model = CategoricalNB(alpha=1.0).fit(walk.data, walk.target)
>>> why = model.explain([walk.query])
>>> str(why.decided[0])
'P'
>>> print(why.text(0))
row 0: decided P
term             vs N
prior            0.4055
x0               -0.2231
x1               -0.2231
x2               0.1823
total (ln odds)  0.1415
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .decision._loss import is_zero_one_matrix
from .posterior import log_priors, normalize

#: the largest terms array (rows x classes x terms x 8 bytes) explain builds at once
MAX_BYTES = 1 << 30


@dataclass(frozen=True)
class Explanation:
    """The terms of the log joint ``ln P(c) + ln p(x|c)`` of every row and class.

    Attributes
    ----------
    classes : ndarray of shape (C,)
        The class labels.
    names : list of str
        The terms' names: ``"prior"`` first, then the likelihood's terms (features by
        their names).
    terms : ndarray of shape (n, C, T)
        Per row and class the terms; their sum is the log joint up to a term that is
        the same for every class (which odds do not see).
    decided : ndarray of shape (n,)
        The class each row is explained for: the model's decision, or the most probable
        class where the model rejects the row.
    decision : ndarray of shape (n,)
        The model's decision itself (a reject label where it rejects).
    of_features : tuple of bool
        Per term, whether it belongs to a feature (or an attribute given its parents),
        not to the prior, a constant or the averaging of components.
    actions : ndarray of shape (A,)
        The model's actions (its classes, then a reject action where it has one).
    loss : ndarray of shape (A, C)
        The loss ``L[action, class]`` the model decides under.
    """

    classes: np.ndarray
    names: list
    terms: np.ndarray
    decided: np.ndarray
    decision: np.ndarray
    of_features: tuple = ()
    actions: np.ndarray | None = None
    loss: np.ndarray | None = None

    @property
    def decided_index(self) -> np.ndarray:
        """The position of ``decided`` among ``classes``, shape (n,)."""
        position = {c: i for i, c in enumerate(self.classes.tolist())}
        return np.array([position[c] for c in self.decided.tolist()], dtype=np.intp)

    def odds_terms(self, row: int) -> np.ndarray:
        """The terms of ``ln P(decided|x) / P(j|x)`` of one row against every class j,
        shape (C, T) (zeros against the decided class itself)."""
        k = self.decided_index[row]
        return self.terms[row, k] - self.terms[row]

    def log_odds(self) -> np.ndarray:
        """``ln P(decided|x) / P(j|x)`` from the terms, shape (n, C)."""
        k = self.decided_index
        rows = np.arange(self.terms.shape[0])
        return (self.terms[rows, k][:, None, :] - self.terms).sum(axis=2)

    def to_frame(self, row: int):
        """One row's odds terms as a pandas DataFrame: a column per other class, a row
        per term, and the total."""
        import pandas as pd

        k = self.decided_index[row]
        others = [j for j in range(len(self.classes)) if j != k]
        parts = self.odds_terms(row)[others].T
        columns = [str(self.classes[j]) for j in others]
        frame = pd.DataFrame(parts, index=self.names, columns=columns)
        frame.loc["total (ln odds)"] = parts.sum(axis=0)
        return frame

    def text(self, row: int, digits: int = 4) -> str:
        """One row's odds terms as a table of text (what ``bayesrule explain`` prints)."""
        k = self.decided_index[row]
        others = [j for j in range(len(self.classes)) if j != k]
        parts = self.odds_terms(row)[others].T  # (T, C - 1)
        labels = [*self.names, "total (ln odds)"]
        rows = [*parts, parts.sum(axis=0)]
        width = max(len(s) for s in [*labels, "term"])
        heads = [f"vs {self.classes[j]}" for j in others]
        cell = max(len(h) for h in heads)
        lines = [f"row {row}: decided {self.decided[row]}"]
        lines.append("term".ljust(width) + "".join("  " + h.ljust(cell) for h in heads))
        for label, values in zip(labels, rows, strict=True):
            cells = "".join("  " + f"{v:.{digits}f}".ljust(cell) for v in values)
            lines.append(label.ljust(width) + cells.rstrip())
        if self.decision[row] != self.decided[row]:
            lines.append(f"(the model rejects this row: {self.decision[row]!r})")
        if self.loss is not None and not is_zero_one_matrix(self.loss):
            parts = self.risk_terms(row)
            a = str(self.decision[row])
            lines.append(f"risk of {a} minus risk of each action, by class (P(c|x) x loss):")
            for b, values in zip(self.actions.tolist(), parts, strict=True):
                if str(b) != a:
                    cells = ", ".join(
                        f"{c}: {v:.{digits}f}"
                        for c, v in zip(self.classes.tolist(), values, strict=True)
                    )
                    lines.append(f"  vs {b}: {cells}; total {values.sum():.{digits}f}")
        return "\n".join(lines)

    def risk_terms(self, row: int) -> np.ndarray:
        """The risk of the model's decision minus that of every action, by class, for one
        row: ``(L[a*, c] - L[b, c]) P(c|x)``, shape (A, C); each row sums to
        ``R(a*|x) - R(b|x)`` (at most 0 for the Bayes action), the breakdown of a decision
        under a loss (zeros against the decided action itself)."""
        if self.loss is None:
            raise ValueError("this explanation carries no loss (made by explain of a model)")
        posterior = normalize(self.terms[row].sum(axis=1))
        a = list(self.actions.tolist()).index(self.decision[row])
        return (self.loss[a] - self.loss) * posterior

    @property
    def runners_up(self) -> np.ndarray:
        """Per row the position of the most probable class other than the decided one,
        shape (n,)."""
        joint = self.terms.sum(axis=2)
        joint[np.arange(joint.shape[0]), self.decided_index] = -np.inf
        return np.argmax(joint, axis=1)

    def deciding_features(self, top: int = 5) -> list[tuple[str, int]]:
        """The feature terms that most often weigh most for the decided class against
        the runner-up: ``(name, rows)`` pairs, most frequent first (none where the
        likelihood is not broken down by feature)."""
        C = len(self.classes)
        own = np.flatnonzero(self.of_features)
        if C < 2 or own.size == 0:
            return []
        rows = np.arange(self.terms.shape[0])
        mine, theirs = self.terms[rows, self.decided_index], self.terms[rows, self.runners_up]
        diff = mine[:, own] - theirs[:, own]
        counts = np.bincount(np.argmax(diff, axis=1), minlength=own.size)
        order = np.argsort(-counts, kind="stable")[:top]
        return [(self.names[own[t]], int(counts[t])) for t in order if counts[t] > 0]


#: terms besides one per feature that a family may add (constants, averaging, and the
#: components of a mixture): the room :func:`explain` allows for them before it starts
EXTRA_TERMS = 16


def explain(model, X, priors=None) -> Explanation:
    """The :class:`Explanation` of ``model``'s decisions on the rows of ``X`` (see the
    module docstring); ``priors`` as in ``predict``. The decisions are taken from the
    terms' posteriors by the model's own rule (its loss and reject action), the
    likelihood evaluated once."""
    rule = model._decision(priors)
    X = model._validated(X)
    n, C = X.shape[0], len(model.classes_)
    if n * C * (X.shape[1] + EXTRA_TERMS) * 8 > MAX_BYTES:  # before any is computed
        raise ValueError(
            f"explaining {n} rows of {X.shape[1]} features and {C} classes takes more "
            f"than {MAX_BYTES >> 20} MB; explain fewer rows at a time (e.g. X[:1000])."
        )
    names, terms = model.likelihood_.log_terms(X)
    feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"x{j}" for j in range(X.shape[1])]
    of_features = (False, *("{" in name for name in names))
    names = ["prior", *(name.format(*map(str, feature_names)) for name in names)]
    log_prior = np.broadcast_to(log_priors(rule.prior), (n, C))
    terms = np.concatenate([log_prior[:, :, None], terms], axis=2)
    posterior = normalize(terms.sum(axis=2))
    decision = rule.decide(posterior)
    top = model.classes_[np.argmax(posterior, axis=1)].tolist()
    labels = set(model.classes_.tolist())  # a decision not among them: the reject action
    decided = [d if d in labels else t for d, t in zip(decision.tolist(), top, strict=True)]
    return Explanation(
        model.classes_,
        names,
        terms,
        np.array(decided, dtype=model.classes_.dtype),
        decision,
        of_features,
        np.asarray(rule.actions),
        np.asarray(rule.loss.matrix, dtype=float),
    )
