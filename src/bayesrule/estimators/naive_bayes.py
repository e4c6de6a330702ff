"""Named naive Bayes classifiers: thin presets of :class:`~bayesrule.BayesClassifier`.

Each fixes one likelihood family of :mod:`bayesrule.likelihoods` (binary, categorical,
multinomial, complement, kernel density) and exposes its parameters. A missing value
(NaN, None, pandas NA) drops its feature out of the product for that sample, so a row
with every feature missing gets the prior as its posterior (seed 001).

Binary and multinomial models are linear classifiers in the log domain (seed 001:
"naive Bayes constructs a linear classifier"): ``predict_joint_log_proba(X)`` equals
``X @ coef_.T + intercept_`` (for the Bernoulli model, on 0/1 data without missing values;
the multinomial leaves out the multinomial coefficient, which all classes share).
"""

from __future__ import annotations

import numpy as np

from ..likelihoods import Bernoulli, Categorical, Complement, Kernel, Multinomial, Poisson
from .preset import Preset, fitted


class _Counts:
    """``feature_count_`` of the binary and count models."""

    feature_count_ = fitted("Weighted sum of each feature per class, shape (C, d).")


class _LinearForm(_Counts):
    """``feature_log_prob_``, ``coef_`` and ``intercept_`` of binary and count models."""

    feature_log_prob_ = fitted("Smoothed ``ln P(feature j | class c)``, shape (C, d).")

    @property
    def coef_(self) -> np.ndarray:
        """Weights ``w_c`` of the linear form, shape (C, d)."""
        return self._fitted_likelihood().linear_coef()

    @property
    def intercept_(self) -> np.ndarray:
        """Intercepts ``w_c0`` of the linear form (the log-prior included), shape (C,)."""
        like = self._fitted_likelihood()
        with np.errstate(divide="ignore"):
            return like.linear_intercept() + np.log(self.class_prior_)


class BernoulliNB(_LinearForm, Preset):
    """Naive Bayes for binary features: ``P(x_j = 1 | c) = p_cj``.

    ``p_cj = (N_cj + alpha) / (N_c + 2 alpha)`` where ``N_cj`` counts the samples of class
    c with feature j on, and ``N_c`` those with feature j observed.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing; 0 gives the ML estimates.
    binarize : float or None, default=0.0
        Threshold: values above it count as 1. None: the data are already 0/1 (anything
        else raises ValueError).
    {common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_
        As in :class:`~bayesrule.BayesClassifier`.
    feature_count_ : ndarray of shape (C, d)
    feature_log_prob_ : ndarray of shape (C, d)
        ``ln p_cj``.
    coef_ : ndarray of shape (C, d)
        ``ln p_cj - ln(1 - p_cj)``.
    intercept_ : ndarray of shape (C,)
        ``sum_j ln(1 - p_cj) + ln P(c)``.

    Examples
    --------
    Seed 000's exam table (Confident, Studied, Sick; 1 = Yes) with ML estimates:

    >>> from bayesrule import BernoulliNB
    >>> X = [[1, 0, 0], [1, 0, 1], [0, 1, 1], [0, 1, 0], [1, 1, 1]]
    >>> y = ["Fail", "Pass", "Fail", "Pass", "Pass"]
    >>> clf = BernoulliNB(alpha=0, binarize=None).fit(X, y)
    >>> import numpy as np
    >>> np.exp(clf.predict_joint_log_proba([[1, 1, 0]])).round(3)   # Fail, Pass
    array([[0.05 , 0.089]])
    >>> clf.predict([[1, 1, 0]])
    array(['Pass'], dtype='<U4')
    """

    _family = Bernoulli
    _parameters = {"alpha": 1.0, "binarize": 0.0}


class MultinomialNB(_LinearForm, Preset):
    """Naive Bayes for counts (bags of words): ``p(x|c) ~ prod_j theta_cj ** x_j``.

    ``theta_cj = (N_cj + alpha) / (N_c + alpha d)`` with ``N_cj`` the total count of
    feature j in class c (seed 000, section 3.5.2.3, with Laplace smoothing at
    ``alpha=1``). Works on dense or scipy sparse counts, and inside a scikit-learn
    ``Pipeline`` after ``CountVectorizer``.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive smoothing; 0 gives the ML estimates.
    {common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_
        As in :class:`~bayesrule.BayesClassifier`.
    feature_count_ : ndarray of shape (C, d)
    feature_log_prob_ : ndarray of shape (C, d)
        ``ln theta_cj``.
    coef_ : ndarray of shape (C, d)
        Equal to ``feature_log_prob_``.
    intercept_ : ndarray of shape (C,)
        ``ln P(c)``.

    Examples
    --------
    >>> from bayesrule import MultinomialNB
    >>> X = [[2, 1, 0], [3, 0, 1], [0, 1, 4], [1, 0, 3]]
    >>> clf = MultinomialNB().fit(X, ["ham", "ham", "spam", "spam"])
    >>> clf.predict([[0, 0, 2]])
    array(['spam'], dtype='<U4')
    """

    _family = Multinomial
    _parameters = {"alpha": 1.0}


class ComplementNB(_Counts, Preset):
    """Complement naive Bayes (Rennie et al., 2003), as scikit-learn's ComplementNB.

    Each class is scored by the weights of its complement (all other classes'
    counts): ``w_cj = -ln theta~_cj`` with ``theta~_cj = (N~_cj + alpha) / (N~_c +
    alpha d)``, normalised by ``sum_j |w_cj|`` when ``norm=True``. The score ``x . w_c``
    takes the place of ``ln p(x|c)``; it is not a normalised density.

    By default it decides under uniform priors, as Rennie et al.'s final algorithm
    and scikit-learn's ComplementNB do (the complement weights exist to undo the skew
    that unequal class sizes give; a prior from the class frequencies would put it
    back). Pass ``priors="empirical"`` (or any priors) for the log-prior of the Bayes
    rule. Without a density there is no evidence, BIC or AIC: ``log_evidence``, ``bic``
    and ``aic`` raise TypeError.

    Parameters
    ----------
    alpha : float, default=1.0
    norm : bool, default=False
        Normalise the weights (the paper's "weight normalisation").
    priors : None, "empirical", "uniform", array-like or dict, default="uniform"
        As in :class:`~bayesrule.BayesClassifier`; uniform by default (see above).
    loss : None, array-like or LossMatrix, default=None
        As in :class:`~bayesrule.BayesClassifier`.
    reject_label : label, default=None
        As in :class:`~bayesrule.BayesClassifier`.

    Attributes
    ----------
    feature_count_ : ndarray of shape (C, d)
    feature_log_prob_ : ndarray of shape (C, d)
        The weights ``w_cj`` (scikit-learn's name).

    Examples
    --------
    >>> from bayesrule import ComplementNB
    >>> X = [[2, 1, 0], [3, 0, 1], [0, 1, 4], [1, 0, 3]]
    >>> clf = ComplementNB().fit(X, ["ham", "ham", "spam", "spam"])
    >>> clf.predict([[0, 0, 2], [4, 1, 0]])
    array(['spam', 'ham'], dtype='<U4')
    """

    _family = Complement
    _parameters = {"alpha": 1.0, "norm": False}
    _decision_defaults = {"priors": "uniform"}

    feature_log_prob_ = fitted("The complement weights ``w_cj``, shape (C, d).")


class CategoricalNB(Preset):
    """Naive Bayes for discrete features with any values (strings, booleans, numbers).

    Lidstone estimates (seed 002, eq. 11): ``P(x_j = v | c) = (N_cjv + alpha) /
    (N_cj + alpha O_j)``, where ``O_j`` is the number of values feature j took in
    training and ``N_cj`` the samples of class c where feature j is observed.

    Parameters
    ----------
    alpha : float, default=1.0
        Lidstone lambda; 1 is Laplace smoothing, 0 the ML estimates.
    unseen : {"smooth", "ignore", "error"}, default="smooth"
        A value never seen in training: "smooth" gives it count 0 in the formula above,
        "ignore" drops that feature for that sample, "error" raises ValueError naming the
        feature and the value.
    discretize : {"auto", "mdl", "quantile"} or None, default="auto"
        How to bin float columns, as in :class:`~bayesrule.AODE`: "auto" the continuous
        ones and the whole-number ones of more than max(sqrt(n), 20) values by supervised MDL cut
        points (Fayyad and Irani, as Weka), float codes kept as values; "mdl" or
        "quantile" every float column. None: keep whole-number floats as values and
        refuse other floats with a ValueError.
    n_bins : int, default=5
        Bins per column for ``discretize="quantile"`` (unused by "auto" and "mdl").
    {common}

    Attributes
    ----------
    categories_ : list of ndarray
        The values of each feature seen in training, sorted (bin numbers for binned
        columns).
    bin_edges_ : list
        Per feature None, or the inner cut points that bin a continuous column.
    category_count_ : list of ndarray of shape (C, O_j)
    feature_log_prob_ : list of ndarray of shape (C, O_j)

    Examples
    --------
    Seed 002's hiking decision for a weather never seen in training:

    >>> from bayesrule import CategoricalNB
    >>> X = [["sunny", "unhappy", "free"], ["sunny", "happy", "free"],
    ...      ["rainy", "happy", "free"], ["sunny", "unhappy", "busy"],
    ...      ["rainy", "unhappy", "busy"]]
    >>> y = ["P", "P", "N", "P", "N"]
    >>> CategoricalNB(alpha=1).fit(X, y).predict([["windy", "happy", "free"]])
    array(['P'], dtype='<U1')
    """

    _family = Categorical
    _parameters = {"alpha": 1.0, "unseen": "smooth", "discretize": "auto", "n_bins": 5}

    categories_ = fitted("The values of each feature seen in training, sorted.")
    bin_edges_ = fitted("Per feature None, or the inner cut points that bin a continuous column.")

    category_count_ = fitted(
        "Weighted count of each value per class, one (C, O_j) array per feature."
    )

    feature_log_prob_ = fitted("Smoothed ``ln P(x_j = v | c)``, one (C, O_j) array per feature.")


class KernelNB(Preset):
    """Naive Bayes with a Gaussian kernel density estimate per feature and class.

    ``p(x_j | c) = sum_i w_i N(x_j; x_ij, h_cj^2) / sum_i w_i`` over the training
    samples i of class c. The model keeps its training data; prediction runs in blocks
    of bounded memory.

    Parameters
    ----------
    bandwidth : {"scott", "silverman"} or float, default="scott"
        The kernel's standard deviation ``h_cj``: Scott's rule ``sigma n^(-1/5)``,
        Silverman's ``sigma (3 n / 4)^(-1/5)`` (``sigma`` the class's standard deviation
        of the feature, ``n`` its total weight of observed values: integer weights
        count samples), or one float in the features'
        units.
    algorithm : {"auto", "exact", "binned"}, default="auto"
        How densities are evaluated: ``"exact"`` sums a kernel term per training value
        near the test value; ``"binned"`` interpolates in a grid of each density made at
        fit (nodes ``h / 64`` apart; the absolute error of each ``ln p(x_j | c)`` is at
        most about 0.002, typically below 1e-4), and evaluates exactly the values
        farther than 4 bandwidths from the class's training values; ``"auto"`` bins the
        densities of at least 1000 training values (or that weight). See
        :class:`~bayesrule.likelihoods.Kernel`.
    {common}

    Attributes
    ----------
    bandwidth_ : ndarray of shape (C, d)
    binned_ : ndarray of shape (C, d), dtype bool
        Which densities are evaluated in their grid (the others exactly).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import KernelNB
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (50, 1)), rng.normal(4, 1, (50, 1))]
    >>> KernelNB().fit(X, [0] * 50 + [1] * 50).predict([[0.5], [3.5]])
    array([0, 1])
    """

    _family = Kernel
    _parameters = {"bandwidth": "scott", "algorithm": "auto"}

    bandwidth_ = fitted("The kernel standard deviation of each class and feature, shape (C, d).")
    binned_ = fitted("Which densities are evaluated in their grid, shape (C, d).")


class PoissonNB(_Counts, Preset):
    """Naive Bayes for counts with a Poisson rate per class and feature.

    ``ln p(x|c) = sum_j (x_j ln lambda_cj - lambda_cj - ln x_j!)`` over the observed
    features, with ``lambda_cj = (S_cj + alpha) / N_cj``: ``S_cj`` the weighted sum of
    feature j over the samples of class c, ``N_cj`` their weight where feature j is
    observed. Unlike MultinomialNB, a sample's total count is part of the model (a
    class with larger rates expects longer rows). Counts must be >= 0; other whole
    or fractional values are scored with ``ln x! = lgamma(x + 1)`` (see
    :class:`~bayesrule.likelihoods.Poisson`). Dense or scipy sparse input.

    Parameters
    ----------
    alpha : float, default=1.0
        Pseudo-count added to each class's total of each feature: the posterior mean
        of the rate under a flat prior (1), Jeffreys' prior (0.5), or the ML rate (0).
    {common}

    Attributes
    ----------
    classes_, class_count_, class_prior_, n_features_in_
        As in :class:`~bayesrule.BayesClassifier`.
    feature_count_ : ndarray of shape (C, d)
        ``S_cj``.
    rate_ : ndarray of shape (C, d)
        ``lambda_cj``.

    Examples
    --------
    >>> from bayesrule import PoissonNB
    >>> X = [[2, 1, 0], [4, 0, 1], [0, 1, 3], [1, 0, 5]]
    >>> clf = PoissonNB(alpha=0).fit(X, ["calm", "calm", "busy", "busy"])
    >>> clf.rate_          # rows: busy, calm (classes_ order)
    array([[0.5, 0.5, 4. ],
           [3. , 0.5, 0.5]])
    >>> clf.predict([[1, 0, 4], [3, 1, 0]])
    array(['busy', 'calm'], dtype='<U4')
    """

    _family = Poisson
    _parameters = {"alpha": 1.0}

    rate_ = fitted("The Poisson rates ``lambda_cj``, shape (C, d).")
