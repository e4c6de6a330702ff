"""The Neyman-Pearson rule: most detections for a false-alarm rate held at a bound.

Among all rules whose rate of deciding ``positive`` on true negatives (the false alarm,
type I error) is at most ``alpha``, the likelihood-ratio test

    decide positive  when  ln p(x|positive) - ln p(x|negative) > threshold

detects the most positives (Neyman-Pearson lemma). The priors and the loss do not enter:
the bound replaces them. :class:`NeymanPearson` fits any classifier, then takes the
threshold from held-out negatives, so that the rate holds on new data and not only on
the data the densities were fitted to.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit, log_expit
from sklearn.utils import indexable
from sklearn.utils.validation import check_is_fitted

from .._validation import unique_labels_sorted
from ._crossfit import (
    HeldOutRule,
    check_calibration,
    check_fraction,
    check_labels,
    cross_fit,
    relative_log_likelihood,
)
from .priors_shift import training_priors

__all__ = ["NeymanPearson"]

#: how far a held-out score may be pushed from 0 when a posterior is exactly 0 or 1.
_SCORE_LIMIT = 1e300


class NeymanPearson(HeldOutRule):
    """Two-class decisions with the false-alarm rate held at ``max_false_alarm``.

    The score of a sample is the log likelihood ratio ``ln p(x|pos) - ln p(x|neg)``: from
    the estimator's ``log_likelihood`` where it has one (every bayesrule estimator), else
    its log posterior odds minus the log prior odds it was trained under. A sample is
    called positive when its score exceeds ``threshold_``.

    The threshold is the ``r``-th largest score of the ``m`` held-out negatives, with
    ``r = floor(max_false_alarm * (m + 1))``. A new negative then exceeds it with
    probability ``r / (m + 1) <= max_false_alarm`` (it is as likely to rank anywhere among
    the ``m + 1``; the conformal argument), so the rate holds on new data, not only on the
    calibration data, where ``false_alarm_ = (r - 1) / m`` is slightly lower. It needs
    ``m >= ceil(1 / max_false_alarm) - 1``.

    Parameters
    ----------
    estimator : classifier with ``predict_proba`` (or ``log_likelihood``)
        Cloned and fitted on the training data.
    max_false_alarm : float in (0, 1), default=0.05
        The largest rate of deciding ``positive`` on true negatives (alpha).
    positive : label, default=None
        The class to detect; None means the larger of the two labels (``classes_[1]``,
        scikit-learn's ``pos_label`` convention).
    calibration : int >= 2 or float in (0, 1), default=5
        Where the held-out negatives come from. An int ``k`` is cross-fitting: ``k``
        stratified folds, each scored by a model fitted on the others, so every negative
        of the data sets the threshold and the final model is refitted on all the data.
        A float holds out that stratified fraction once, and the final model is the one
        fitted on the rest. Cross-fitting is the default because the precision of the
        achieved rate is limited by the number of held-out negatives (its standard error
        is about ``sqrt(alpha (1 - alpha) / m)``) and it uses all of them while the model
        still learns from all the data; the bound above then holds up to the small
        difference between the fold models and the refitted one. A split makes the
        guarantee exact (the threshold is computed for the very model that predicts) at
        the price of fewer samples on each side.
    random_state : None, int or RandomState, default=None
        Shuffling of the folds or the split.

    Attributes
    ----------
    estimator_ : the fitted classifier that scores new samples
    classes_ : ndarray of shape (2,)
    positive_ : label
        The class detected.
    threshold_ : float
        The log likelihood ratio above which a sample is called positive.
    false_alarm_ : float
        Rate of positive calls among the held-out negatives.
    detection_ : float
        Rate of positive calls among the held-out positives (power, sensitivity).
    roc_ : tuple of ndarray (fpr, tpr, thresholds)
        The held-out ROC curve the threshold was taken from: the rates of calling a
        sample positive when its score exceeds each threshold (decreasing, ending in -inf).
    implied_priors_ : ndarray of shape (2,)
        The priors (``classes_`` order) under which the Bayes rule with zero-one loss is
        this rule: ``P(pos) = expit(-threshold_)``; ``predict_proba`` is under them.
    train_prior_ : ndarray of shape (2,)
        The priors ``estimator_``'s posteriors are under (used for the score when it
        has no ``log_likelihood``).
    n_calibration_negatives_ : int
        ``m``, the held-out negatives.
    n_features_in_ : int

    Examples
    --------
    Negatives N(0, 1), positives N(2, 1); at most 5 % false alarms:

    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.decision import NeymanPearson
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (4000, 1)), rng.normal(2, 1, (4000, 1))]
    >>> y = np.repeat([0, 1], 4000)
    >>> np_rule = NeymanPearson(GaussianNB(), max_false_alarm=0.05, random_state=0).fit(X, y)
    >>> float(np_rule.false_alarm_) <= 0.05
    True
    >>> round(np_rule.threshold_, 1), round(float(2 * norm.isf(0.05) - 2), 1)  # LLR = 2x - 2
    (1.3, 1.3)
    >>> np_rule.predict([[0.0], [2.0]])
    array([0, 1])
    """

    def __init__(
        self, estimator, *, max_false_alarm=0.05, positive=None, calibration=5, random_state=None
    ):
        self.estimator = estimator
        self.max_false_alarm = max_false_alarm
        self.positive = positive
        self.calibration = calibration
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def _check_params(self, classes):
        alpha = check_fraction("max_false_alarm", self.max_false_alarm)
        if len(classes) != 2:
            raise ValueError(
                f"Only binary classification is supported: NeymanPearson decides between "
                f"exactly two classes (negative and positive), got {len(classes)} class(es): "
                f"{classes.tolist()}. For more classes, decide with a loss matrix, or merge "
                "the classes into positive and negative."
            )
        if self.positive is None:
            pos_idx = 1
        else:
            matches = [i for i, c in enumerate(classes.tolist()) if c == self.positive]
            if not matches:
                raise ValueError(
                    f"positive={self.positive!r} is not a class; the classes are "
                    f"{classes.tolist()}."
                )
            pos_idx = matches[0]
        calibration = check_calibration(self.calibration, allow_none=False, owner="NeymanPearson")
        return alpha, pos_idx, calibration

    def fit(self, X, y):
        """Fit the estimator and the threshold that holds the false-alarm rate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Anything the estimator accepts.
        y : array-like of shape (n_samples,)
            Two class labels.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Not two classes; ``max_false_alarm`` outside (0, 1); ``positive`` not a
            class; fewer held-out negatives than the rate needs (the message says how
            many).
        """
        X, y = indexable(X, y)
        y = check_labels(y)
        classes = unique_labels_sorted(y)
        alpha, pos_idx, calibration = self._check_params(classes)
        positive, negative = classes[pos_idx], classes[1 - pos_idx]

        def score(model, X_part, _y_train):
            return self._score(model, X_part, positive, negative, _y_train)

        final, final_y, rows, scores = cross_fit(
            self.estimator, X, y, calibration, self.random_state, score
        )
        is_pos = y[rows] == positive
        neg, pos = np.sort(scores[~is_pos]), np.sort(scores[is_pos])
        m = neg.size
        r = math.floor(alpha * (m + 1) * (1 + 1e-12))
        if r < 1:
            need = math.ceil(1.0 / alpha * (1 - 1e-12)) - 1
            total = need if isinstance(calibration, int) else math.ceil(need / calibration)
            raise ValueError(
                f"max_false_alarm={alpha} needs at least {need} held-out negatives (class "
                f"{negative!r}) to be reached, but calibration={calibration} held out {m}. "
                f"Give at least {total} negatives in y"
                + (", hold out a larger fraction" if isinstance(calibration, float) else "")
                + ", or allow a larger max_false_alarm."
            )
        threshold = neg[m - r]
        self._adopt(final, classes)
        self.train_prior_ = training_priors(final, final_y)
        self.positive_ = positive
        self.threshold_ = float(threshold)
        implied = expit(np.r_[threshold, -threshold])  # (P(neg), P(pos))
        self.implied_priors_ = implied if pos_idx == 1 else implied[::-1]
        self.n_calibration_negatives_ = int(m)
        self.false_alarm_ = float(np.mean(neg > threshold))
        self.detection_ = float(np.mean(pos > threshold)) if pos.size else float("nan")
        self.roc_ = _roc(neg, pos)
        return self

    @staticmethod
    def _score(model, X, positive, negative, y_train=None, prior=None) -> np.ndarray:
        """``ln p(x|pos) - ln p(x|neg)``, finite (a posterior of exactly 0 or 1 gives
        +-1e300 rather than an infinity)."""
        loglik = relative_log_likelihood(model, X, y_train, prior)
        labels = np.asarray(model.classes_).tolist()
        col_pos, col_neg = labels.index(positive), labels.index(negative)
        with np.errstate(invalid="ignore"):
            llr = loglik[:, col_pos] - loglik[:, col_neg]
        return np.nan_to_num(llr, nan=0.0, posinf=_SCORE_LIMIT, neginf=-_SCORE_LIMIT)

    # ------------------------------------------------------------------ deciding
    def log_likelihood_ratio(self, X) -> np.ndarray:
        """The log likelihood ratio ``ln p(x|pos) - ln p(x|neg)`` of each sample, (n,)."""
        check_is_fitted(self, "estimator_")
        negative = self.classes_[0] if self.positive_ == self.classes_[1] else self.classes_[1]
        return self._score(self.estimator_, X, self.positive_, negative, prior=self.train_prior_)

    def decision_function(self, X) -> np.ndarray:
        """Score minus threshold, signed as scikit-learn's binary convention: positive
        values favour ``classes_[1]``.

        With the default ``positive`` (``classes_[1]``) this is
        ``ln p(x|pos) - ln p(x|neg) - threshold_``; with ``positive = classes_[0]`` it is
        its negative. It is also the log posterior odds of ``classes_[1]`` under
        ``implied_priors_``. A score exactly at the threshold goes to ``classes_[0]``.
        """
        check_is_fitted(self, "estimator_")
        margin = self.log_likelihood_ratio(X) - self.threshold_
        return margin if self.positive_ == self.classes_[1] else -margin

    def predict(self, X) -> np.ndarray:
        """``positive_`` where the log likelihood ratio exceeds ``threshold_``, else the
        other class."""
        check_is_fitted(self, "estimator_")
        return self.classes_[(self.decision_function(X) > 0).astype(np.intp)]

    def predict_proba(self, X) -> np.ndarray:
        """Posteriors under ``implied_priors_``, shape (n, 2), columns in ``classes_`` order.

        The Neyman-Pearson rule is the Bayes rule (zero-one loss) under the priors whose
        log odds ``ln P(pos) / P(neg)`` are ``-threshold_``, so these posteriors, unlike
        the inner estimator's (``estimator_.predict_proba``), agree with ``predict``:
        ``P(classes_[1]|x) = expit(decision_function(x))``.
        """
        check_is_fitted(self, "estimator_")
        d = self.decision_function(X)
        return np.column_stack([expit(-d), expit(d)])

    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`, computed without underflow."""
        check_is_fitted(self, "estimator_")
        d = self.decision_function(X)
        return np.column_stack([log_expit(-d), log_expit(d)])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _roc(neg: np.ndarray, pos: np.ndarray):
    """False- and true-positive rates of ``score > t`` over the distinct held-out scores
    (decreasing), then -inf; ``neg`` and ``pos`` sorted ascending."""
    thresholds = np.r_[np.unique(np.r_[neg, pos])[::-1], -np.inf]
    above = lambda s: (s.size - np.searchsorted(s, thresholds, side="right")) / max(s.size, 1)  # noqa: E731
    return above(neg), above(pos), thresholds
