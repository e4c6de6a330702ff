"""The decision attributes of an estimator, read from its parameters when it decides:
``set_params(loss=..., priors=..., reject_label=...)`` takes effect without refitting
(see :mod:`bayesrule.decision.posterior_decision`)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._dask import is_dask
from ..decision.posterior_decision import Decision, decision_of


class Deciding:
    """Mixin of :class:`~bayesrule.BayesClassifier`: ``class_prior_``, ``loss_``,
    ``reject_label_`` and ``actions_`` from the current parameters (and ``explain``)."""

    def _empirical_prior(self) -> np.ndarray | None:
        """The estimated priors when a family supplies its own (None: class frequencies)."""
        return None

    def _check_classes(self, classes):
        if len(classes) < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 classes in y, got 1 class "
                f"({classes.tolist()}); a classifier has nothing to decide with one class."
            )

    def _check_decision(self, classes, counts) -> None:
        """Refuse bad ``priors``, ``loss`` or ``reject_label`` before anything is fitted
        (over ``classes``, the array the fit then keeps: the decisions reuse the check)."""
        decision_of(self, classes, counts=counts)

    def _decision(self, priors=None) -> Decision:
        """The decision taken now: current ``priors`` (or ``priors`` for this call),
        ``loss`` and ``reject_label``, over the fitted classes."""
        check_is_fitted(self, "likelihood_")
        return decision_of(
            self, priors=priors, counts=self.class_count_, empirical=self._empirical_prior()
        )

    @property
    def class_prior_(self) -> np.ndarray:
        """The priors P(w_j) decisions are taken under, shape (C,)."""
        return self._decision().prior

    @property
    def loss_(self):
        """The loss matrix decisions are taken under (a ``LossMatrix``)."""
        return self._decision().loss

    @property
    def reject_label_(self):
        """What ``predict`` returns for the reject action."""
        return self._decision().reject_label

    @property
    def actions_(self) -> np.ndarray:
        """Labels of the actions ``predict`` can return, shape (a,)."""
        return self._decision().actions

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy: the fraction of samples whose Bayes action is their class.

        A rejected sample counts as not correct.
        """
        pred = self.predict(X)
        if is_dask(pred):
            pred = np.asarray(pred.compute())
        y = np.asarray(y.compute() if is_dask(y) else y)
        if y.shape != pred.shape:
            raise ValueError(f"y has shape {y.shape}, but X has {pred.shape[0]} samples")
        # as objects, labels of any types compare elementwise (a reject label never equals y)
        correct = (pred.astype(object) == y.astype(object)).astype(bool)
        return float(np.average(correct, weights=sample_weight))

    def explain(self, X, priors=None):
        """Why each row is decided as it is: the log posterior odds of the decided class
        against every other class, broken into the prior's term and the likelihood's
        (per feature, per attribute given its parents, linear and quadratic parts; see
        :mod:`bayesrule.explain`). They sum to the log odds to rounding.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        priors : as in :meth:`predict`, optional

        Returns
        -------
        Explanation
            ``text(row)`` prints one row's terms, ``to_frame(row)`` gives them as a
            table, ``terms`` (n, C, T) holds them all.

        Examples
        --------
        >>> from bayesrule import QuadraticDiscriminant
        >>> from bayesrule.datasets import fruit
        >>> train = fruit(1000, random_state=0)
        >>> model = QuadraticDiscriminant(priors=[0.4, 0.4, 0.2]).fit(train.data, train.target)
        >>> why = model.explain([[170.0, 585.0]])
        >>> why.names[:2], str(why.decided[0])
        (['prior', "quadratic x'Wx"], 'apple')
        >>> print(why.text(0).splitlines()[-1])  # ln P(apple|x)/P(grapefruit|x), /P(orange|x)
        total (ln odds)  6.0950         1.0578
        """
        from ..explain import explain

        return explain(self, X, priors)
