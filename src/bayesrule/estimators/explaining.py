"""``explain`` of every Bayes classifier (the breakdown lives in :mod:`bayesrule.explain`)."""

from __future__ import annotations


class Explaining:
    """The ``explain`` method of :class:`~bayesrule.BayesClassifier`."""

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
