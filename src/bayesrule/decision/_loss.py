"""Loss matrices, conditional risk and the Bayes action over any posterior matrix.

The conditional risk of action ``a_i`` is ``R(a_i|x) = sum_j L[i, j] P(w_j|x)`` and the
Bayes rule takes the action of least risk. Zero-one loss is the fast path of the same
rule (the largest posterior); a reject row (Chow's rule) is one more action.

Examples
--------
Seed 003's fruit, posteriors at x = [170, 585] and its loss matrix:

>>> import numpy as np
>>> from bayesrule import LossMatrix
>>> from bayesrule.decision import bayes_action, conditional_risk
>>> posterior = np.array([[0.6459, 0.3526, 0.0015]])
>>> loss = LossMatrix([[0, 2, 3], [1, 0, 2], [1, 1, 0]])
>>> conditional_risk(posterior, loss).round(4)
array([[0.7097, 0.6489, 0.9985]])
>>> bayes_action(posterior, loss), bayes_action(posterior, LossMatrix.zero_one(3))
(array([1]), array([0]))
"""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import is_numeric_labels


def is_zero_one_matrix(matrix) -> bool:
    """Whether a loss matrix ``L[action, class]`` is the plain zero-one loss (C x C)."""
    m = np.asarray(matrix)
    c = m.shape[-1]
    return m.shape == (c, c) and np.array_equal(m, 1.0 - np.eye(c))


class LossMatrix:
    """Loss ``L[i, j]`` of taking action ``i`` when the true class is ``j``.

    Parameters
    ----------
    matrix : array-like of shape (a, C)
        Non-negative, finite losses. ``a == C`` for classification only; ``a == C + 1``
        when the last row is the reject action.
    actions : sequence of length a, optional
        Names of the actions (for display). Defaults to ``0 .. a-1``.
    classes : sequence of length C, optional
        Class labels of the columns. When given, an estimator reorders the matrix to
        its ``classes_``; rows named by a class label follow it, and a further row is
        the reject action. Without it, columns must already be in ``classes_`` order.

    Warns
    -----
    UserWarning
        When a row is all zeros beside other rows: that action costs nothing whatever
        the class, so the Bayes rule takes it almost always (a reject cost of 0, a row
        left empty).

    Examples
    --------
    >>> from bayesrule import LossMatrix
    >>> LossMatrix.with_reject(2, 0.2).matrix
    array([[0. , 1. ],
           [1. , 0. ],
           [0.2, 0.2]])

    Labelled rows and columns are aligned to an estimator's (sorted) classes:

    >>> loss = LossMatrix([[0, 2, 3], [1, 0, 2], [1, 1, 0]],
    ...                   classes=["apple", "orange", "grapefruit"])
    >>> loss.aligned(np.array(["apple", "grapefruit", "orange"])).matrix
    array([[0., 3., 2.],
           [1., 0., 1.],
           [1., 2., 0.]])
    """

    def __init__(self, matrix, actions=None, classes=None):
        try:
            m = np.array(matrix, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"loss matrix must be numeric, got {matrix!r}") from exc
        if m.ndim != 2 or m.shape[0] < 1 or m.shape[1] < 1:
            raise ValueError(f"loss matrix must be 2-D (actions x classes), got shape {m.shape}")
        if not np.all(np.isfinite(m)):
            raise ValueError("loss matrix must be finite; it contains NaN or inf.")
        if (m < 0).any():
            raise ValueError(
                "loss matrix entries must be non-negative (a loss, not a gain); shift the "
                "rows by a constant if you think in gains."
            )
        if actions is not None:
            actions = np.asarray(actions, dtype=object).tolist()
            if len(actions) != m.shape[0]:
                raise ValueError(
                    f"actions has {len(actions)} names for a loss matrix with {m.shape[0]} rows"
                )
        if classes is not None:
            classes = np.asarray(classes).tolist()  # plain Python labels, compared by value
            if len(classes) != m.shape[1] or len(set(classes)) != len(classes):
                raise ValueError(
                    f"classes must name the {m.shape[1]} columns once each, got {classes}"
                )
            if actions is None:
                actions = classes + (["reject"] if m.shape[0] == m.shape[1] + 1 else [])
        self.matrix = m
        self.actions = actions
        self.classes = classes
        _warn_free_actions(self)  # points at the line that built the matrix

    def aligned(self, classes) -> LossMatrix:
        """This loss with columns (and class rows) in the order of ``classes``."""
        if self.classes is None:
            return self
        labels = np.asarray(classes).tolist()
        position = {c: i for i, c in enumerate(self.classes)}
        if len(labels) != len(position) or any(c not in position for c in labels):
            raise ValueError(
                f"loss matrix classes {self.classes} differ from the estimator's classes {labels}"
            )
        cols = [position[c] for c in labels]
        rows = list(cols)
        if self.actions is not None and all(c in self.actions for c in labels):
            rows = [self.actions.index(c) for c in labels]
        extra = [i for i in range(self.n_actions) if i not in rows]
        actions = None if self.actions is None else [self.actions[i] for i in rows + extra]
        # the same validated rows reordered (any free-action warning was given for self)
        out = object.__new__(LossMatrix)
        out.matrix = self.matrix[np.ix_(rows + extra, cols)]
        out.actions, out.classes = actions, labels
        return out

    @classmethod
    def zero_one(cls, n_classes: int) -> LossMatrix:
        """The symmetric loss: 0 when right, 1 when wrong (minimum error rate)."""
        return cls(1.0 - np.eye(n_classes))

    @classmethod
    def with_reject(cls, n_classes: int, cost: float) -> LossMatrix:
        """Zero-one loss plus a reject action that costs ``cost`` whatever the class.

        The Bayes action then follows Chow's rule: reject when the largest posterior is
        below ``1 - cost``.
        """
        if not isinstance(cost, (int, float, np.number)) or isinstance(cost, bool):
            raise TypeError(f"reject cost must be a number, got {cost!r}")
        if not np.isfinite(cost) or cost < 0:
            raise ValueError(f"reject cost must be a finite number >= 0, got {cost!r}")
        m = np.vstack([1.0 - np.eye(n_classes), np.full((1, n_classes), float(cost))])
        if cost > 0:
            return cls(m)
        out = object.__new__(cls)  # valid by construction; warn at the caller's line
        out.matrix, out.actions, out.classes = m, None, None
        _warn_free_actions(out, stacklevel=3)
        return out

    @property
    def n_actions(self) -> int:
        return self.matrix.shape[0]

    @property
    def n_classes(self) -> int:
        return self.matrix.shape[1]

    @property
    def has_reject(self) -> bool:
        return self.n_actions == self.n_classes + 1

    def is_zero_one(self) -> bool:
        """Whether this is the plain zero-one loss (decisions are then the argmax)."""
        return is_zero_one_matrix(self.matrix)

    def __repr__(self) -> str:
        return f"LossMatrix({self.matrix.tolist()!r})"

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, LossMatrix)
            and np.array_equal(self.matrix, other.matrix)
            and self.classes == other.classes
        )

    __hash__ = None


class RowLoss:
    """One loss matrix per row, ``matrix[n, action, class]`` (finite, non-negative).

    It answers what the decision needs of a :class:`~bayesrule.LossMatrix`
    (``n_actions``, ``n_classes``, ``has_reject``, ``is_zero_one``); the conditional
    risk contracts it row by row.
    """

    def __init__(self, matrix):
        try:
            m = np.array(matrix, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"loss must be numeric, got {type(matrix).__name__}") from exc
        if m.ndim != 3 or 0 in m.shape:
            raise ValueError(
                f"a per-row loss must be 3-D (rows, actions, classes), got shape {m.shape}"
            )
        if not np.isfinite(m).all():
            raise ValueError("loss must be finite; it contains NaN or inf.")
        if (m < 0).any():
            raise ValueError(
                "loss entries must be non-negative (a loss, not a gain); shift each row's "
                "matrix by a constant if you think in gains."
            )
        self.matrix = m

    @property
    def n_rows(self) -> int:
        return self.matrix.shape[0]

    @property
    def n_actions(self) -> int:
        return self.matrix.shape[1]

    @property
    def n_classes(self) -> int:
        return self.matrix.shape[2]

    @property
    def has_reject(self) -> bool:
        return self.n_actions == self.n_classes + 1

    def is_zero_one(self) -> bool:
        return False

    def risk(self, posterior: np.ndarray) -> np.ndarray:
        """``R[n, i] = sum_j L[n, i, j] P[n, j]``, shape (n, a)."""
        return np.einsum("nij,nj->ni", self.matrix, posterior)

    def __repr__(self) -> str:
        return f"RowLoss(shape={self.matrix.shape})"


def _warn_free_actions(loss: LossMatrix, stacklevel: int = 3) -> None:
    """UserWarning for an action whose row is all zeros beside other actions.

    Such an action costs nothing whatever the class, so its conditional risk is 0 and
    the Bayes rule takes it for every sample where no other action is also free of risk:
    almost always a mistake (a reject cost of 0, a row left empty).
    """
    if loss.n_actions < 2:
        return
    free = np.flatnonzero(~loss.matrix.any(axis=1))
    if free.size == 0:
        return
    names = "" if loss.actions is None else f" (action(s) {[loss.actions[i] for i in free]})"
    warnings.warn(
        f"loss matrix row(s) {free.tolist()}{names} are all zeros: such an "
        "action costs nothing whatever the class, so the Bayes rule takes it for almost "
        "every sample. Give it its real cost (e.g. a reject cost above 0).",
        UserWarning,
        stacklevel=stacklevel,
    )


def as_loss_matrix(loss, n_classes: int, classes=None) -> LossMatrix:
    """The estimator's ``loss`` parameter as a validated :class:`LossMatrix`."""
    if loss is None:
        return LossMatrix.zero_one(n_classes)
    lm = loss if isinstance(loss, LossMatrix) else LossMatrix(loss)
    if classes is not None:
        lm = lm.aligned(classes)
    if lm.n_classes != n_classes or lm.n_actions not in (n_classes, n_classes + 1):
        raise ValueError(
            f"loss matrix has shape {lm.matrix.shape} but there are {n_classes} classes; "
            f"give a ({n_classes}, {n_classes}) matrix, or ({n_classes + 1}, {n_classes}) "
            "whose last row is the reject action."
        )
    return lm


def conditional_risk(posterior, loss) -> np.ndarray:
    """``R(a_i|x) = sum_j L[i, j] P(w_j|x)`` for every sample and action, shape (n, a).

    ``loss`` is a (a, C) matrix (or LossMatrix), or one matrix per row, (n, a, C)
    (:mod:`bayesrule.decision.row_loss`)."""
    p = np.asarray(posterior, dtype=np.float64)
    lm = _as_loss(loss)
    if p.shape[-1] != lm.n_classes:
        raise ValueError(
            f"posterior has {p.shape[-1]} classes but the loss matrix has {lm.n_classes} columns"
        )
    if lm.matrix.ndim == 3:
        if p.shape[0] != lm.matrix.shape[0]:
            raise ValueError(
                f"the loss has {lm.matrix.shape[0]} rows of costs but the posterior has "
                f"{p.shape[0]} rows; give one (actions, classes) matrix per row."
            )
        return lm.risk(p)
    return p @ lm.matrix.T


def _as_loss(loss):
    """A LossMatrix, or a RowLoss for a per-row (n, a, C) loss."""
    if isinstance(loss, LossMatrix) or getattr(loss, "matrix", None) is not None:
        return loss
    if np.ndim(loss) == 3:
        return RowLoss(loss)
    return LossMatrix(loss)


def bayes_action(posterior, loss=None) -> np.ndarray:
    """Index of the action of least conditional risk for each sample.

    With zero-one loss (or None) this is the class of largest posterior; ties go to the
    first action, so a reject action is taken only when it is strictly less risky.
    """
    p = np.asarray(posterior, dtype=np.float64)
    if loss is None or (hasattr(loss, "is_zero_one") and loss.is_zero_one()):
        return np.argmax(p, axis=-1)
    return np.argmin(conditional_risk(p, loss), axis=-1)


def reject_and_actions(reject_label, classes: np.ndarray, loss: LossMatrix):
    """The reject label to use and the labels of the actions (``classes``, then the
    reject label when ``loss`` has a reject row).

    None picks -1 for numeric labels (the smallest label minus one when -1 is a class)
    and "reject" otherwise (``"reject_"``, ... when that is a class); a given label equal to a
    class raises ValueError.
    """
    labels = classes.tolist()
    reject = reject_label
    if reject is not None and not isinstance(reject, (str, int, float, np.generic)):
        raise TypeError(f"reject_label must be a string or a number, got {reject!r}")
    if isinstance(reject, np.generic):
        reject = reject.item()
    if reject is None:
        reject = -1 if is_numeric_labels(classes) else "reject"
        if reject == -1 and reject in labels:  # e.g. classes {-1, 1}: next free number
            reject = min(labels) - 1
        while reject in labels:  # "reject" is a class: "reject_", "reject__", ...
            reject += "_"
    elif any(reject == c for c in labels):
        raise ValueError(
            f"reject_label={reject!r} equals a class label; choose a label that is not "
            f"one of {labels}."
        )
    actions = classes
    if loss.has_reject:
        actions = np.array([*labels, reject])
        same_kind = isinstance(reject, str) == (classes.dtype.kind in "US")
        if actions.dtype.kind != classes.dtype.kind or not same_kind:
            actions = np.array([*labels, reject], dtype=object)  # keep each label's type
    return reject, actions
