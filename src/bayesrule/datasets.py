"""Example data sets of the source documents, with their true parameters.

Each generator draws from a known model, so the parameters a classifier estimates
can be checked against the truth that produced the data. The small tables of the
naive Bayes examples (``exam``, ``sports``, ``hiking``) come with the one sample the
source document classifies (``query``; pass ``[data.query]`` to ``predict``) and its
answer in ``DESCR``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch

__all__ = [
    "FRUIT_CLASSES",
    "FRUIT_COVARIANCES",
    "FRUIT_FEATURES",
    "FRUIT_MEANS",
    "FRUIT_PRIORS",
    "exam",
    "fruit",
    "hiking",
    "sports",
]

#: Class labels of the fruit problem, in the order of the parameters below.
FRUIT_CLASSES: tuple[str, ...] = ("apple", "orange", "grapefruit")

#: Feature names: weight in grams, colour wavelength in nanometres.
FRUIT_FEATURES: tuple[str, ...] = ("weight_g", "color_nm")

#: True class means, shape (3, 2), rows in ``FRUIT_CLASSES`` order.
FRUIT_MEANS: np.ndarray = np.array([[150.0, 560.0], [160.0, 615.0], [230.0, 620.0]])

#: True class covariances, shape (3, 2, 2): the features are independent in each class.
FRUIT_COVARIANCES: np.ndarray = np.array(
    [np.diag([200.0, 200.0]), np.diag([250.0, 150.0]), np.diag([400.0, 200.0])]
)

#: Problem-specific priors (how often a shopper brings each fruit), not class frequencies.
FRUIT_PRIORS: np.ndarray = np.array([0.4, 0.4, 0.2])

for _array in (FRUIT_MEANS, FRUIT_COVARIANCES, FRUIT_PRIORS):
    _array.flags.writeable = False
del _array

_FRUIT_DESCR = """\
Fruit at a self-checkout (synthetic)
------------------------------------

A scale and a camera measure each fruit placed on a self-checkout: its weight in
grams and the dominant wavelength of its colour in nanometres. The three classes
are green apples, oranges and grapefruit, each drawn from a two-dimensional
Gaussian whose features are independent:

    class        mean (g, nm)    variances (g^2, nm^2)
    apple        (150, 560)      (200, 200)
    orange       (160, 615)      (250, 150)
    grapefruit   (230, 620)      (400, 200)

Colour separates apples from the two citrus fruits; weight separates oranges from
grapefruit. The priors (0.4, 0.4, 0.2) describe how often shoppers buy each fruit,
not how many samples of each class were collected: every class has the same number
of samples here. A quadratic Bayes classifier with these priors is correct on about
97.5 % of fresh samples.

Samples are stored in class order: all apples, then all oranges, then grapefruit.
"""


def _check_n(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {value!r}.")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer (1 or more), got {value!r}.")
    return int(value)


def _rng(random_state: object) -> np.random.Generator:
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "random_state must be None, a non-negative int or a numpy.random.Generator, "
            f"got {random_state!r}."
        ) from exc


def fruit(
    n_per_class: int = 1000,
    random_state: int | np.random.Generator | None = None,
    *,
    return_X_y: bool = False,
) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """Draw the apple / orange / grapefruit data of the fruit tutorial.

    Each class is a bivariate Gaussian over (weight in g, colour wavelength in nm)
    with the true parameters ``FRUIT_MEANS`` and ``FRUIT_COVARIANCES``.

    Parameters
    ----------
    n_per_class : int, default=1000
        Number of samples drawn from each of the three classes.
    random_state : int, numpy.random.Generator or None, default=None
        Seed or generator passed to :func:`numpy.random.default_rng`; the same
        integer always gives the same data.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        With keys ``data`` (3 * n_per_class, 2) float64, ``target`` (3 * n_per_class,)
        string labels, rows in class order; ``feature_names``, ``target_names``,
        the true ``means`` (3, 2), ``covariances`` (3, 2, 2) and ``priors`` (3,) in
        ``target_names`` order, and ``DESCR``.
    (X, y) : tuple of ndarray
        If ``return_X_y`` is True.

    Raises
    ------
    TypeError
        If ``n_per_class`` is not an integer or ``random_state`` cannot seed a generator.
    ValueError
        If ``n_per_class`` is less than 1.

    Notes
    -----
    Estimators sort their ``classes_``, so ``("apple", "grapefruit", "orange")`` is the
    fitted order. Pass the priors as a mapping to keep them with their classes:
    ``priors=dict(zip(data.target_names, data.priors))``.

    Examples
    --------
    >>> from bayesrule.datasets import fruit
    >>> data = fruit(500, random_state=0)
    >>> data.data.shape, data.target.shape
    ((1500, 2), (1500,))
    >>> data.feature_names
    ['weight_g', 'color_nm']
    >>> data.target[[0, 500, 1000]].tolist()
    ['apple', 'orange', 'grapefruit']
    >>> dict(zip(data.target_names.tolist(), data.priors.tolist()))
    {'apple': 0.4, 'orange': 0.4, 'grapefruit': 0.2}
    >>> X, y = fruit(10, random_state=0, return_X_y=True)
    >>> X.shape, y.dtype.kind
    ((30, 2), 'U')
    """
    n = _check_n(n_per_class, "n_per_class")
    rng = _rng(random_state)
    blocks = []
    for mean, cov in zip(FRUIT_MEANS, FRUIT_COVARIANCES, strict=True):
        factor = np.linalg.cholesky(cov)
        blocks.append(mean + rng.standard_normal((n, mean.size)) @ factor.T)
    X = np.concatenate(blocks).astype(np.float64, copy=False)
    y = np.repeat(np.array(FRUIT_CLASSES), n)
    if return_X_y:
        return X, y
    return Bunch(
        data=X,
        target=y,
        feature_names=list(FRUIT_FEATURES),
        target_names=np.array(FRUIT_CLASSES),
        means=FRUIT_MEANS.copy(),
        covariances=FRUIT_COVARIANCES.copy(),
        priors=FRUIT_PRIORS.copy(),
        DESCR=_FRUIT_DESCR,
    )


# --------------------------------------------------------------------------- naive Bayes tables
def _table(rows, dtype=object) -> np.ndarray:
    out = np.empty((len(rows), len(rows[0])), dtype=dtype)
    out[:] = rows
    return out


def _small_bunch(data, target, query, feature_names, descr, return_X_y):
    target = np.array(target)
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        feature_names=list(feature_names),
        target_names=np.unique(target),
        query=query,
        DESCR=descr,
    )


_EXAM_DESCR = """\
Exam results (seed 000, section 3.5.2.2, Bernoulli naive Bayes)
----------------------------------------------------------------

Five students, three yes/no features and whether they passed:

    Confident  Studied  Sick  Result
    Yes        No       No    Fail
    Yes        No       Yes   Pass
    No         Yes      Yes   Fail
    No         Yes      No    Pass
    Yes        Yes      Yes   Pass

Query: Confident=Yes, Studied=Yes, Sick=No. With maximum-likelihood estimates
the source computes

    p(x|Pass) P(Pass) = 2/3 x 2/3 x 1/3 x 3/5 = 4/45 = 0.088
    p(x|Fail) P(Fail) = 1/2 x 1/2 x 1/2 x 2/5 = 1/20 = 0.05

and predicts Pass.
"""


def exam(*, return_X_y: bool = False) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """The exam table of seed 000: three yes/no features, Pass or Fail.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (5, 3) object array of "Yes"/"No", ``target`` (5,) "Pass"/"Fail",
        ``feature_names`` ["Confident", "Studied", "Sick"], ``target_names``, ``query``
        the one sample the seed classifies (a list of 3 values), and ``DESCR`` with the
        seed's answer.
    (X, y) : tuple of ndarray
        If ``return_X_y`` is True.

    Examples
    --------
    The seed's maximum-likelihood answer, ``4/45`` for Pass against ``1/20`` for Fail:

    >>> import numpy as np
    >>> from bayesrule import CategoricalNB
    >>> from bayesrule.datasets import exam
    >>> data = exam()
    >>> data.query
    ['Yes', 'Yes', 'No']
    >>> clf = CategoricalNB(alpha=0).fit(data.data, data.target)
    >>> clf.classes_
    array(['Fail', 'Pass'], dtype='<U4')
    >>> np.exp(clf.predict_joint_log_proba([data.query])) * [20, 45]   # 1/20, 4/45
    array([[1., 4.]])
    >>> clf.predict([data.query])
    array(['Pass'], dtype='<U4')
    """
    data = _table(
        [
            ["Yes", "No", "No"],
            ["Yes", "No", "Yes"],
            ["No", "Yes", "Yes"],
            ["No", "Yes", "No"],
            ["Yes", "Yes", "Yes"],
        ]
    )
    target = ["Fail", "Pass", "Fail", "Pass", "Pass"]
    query = ["Yes", "Yes", "No"]
    names = ("Confident", "Studied", "Sick")
    return _small_bunch(data, target, query, names, _EXAM_DESCR, return_X_y)


_SPORTS_DESCR = """\
Sports or not (seed 000, section 3.5.2.3, multinomial naive Bayes)
------------------------------------------------------------------

Five short texts:

    "A great game"                    Sports
    "The election was over"           Not sports
    "Very clean match"                Sports
    "A clean but forgettable game"    Sports
    "It was a close election"         Not sports

Query: "A very close game". The vocabulary has 14 words; Sports texts hold 11
words and Not sports texts 9. With Laplace smoothing (add 1) the source computes,
without the prior factor,

    Sports:      3/25 x 2/25 x 1/25 x 3/25 = 4.61e-5
    Not sports:  2/23 x 1/23 x 2/23 x 1/23 = 1.43e-5

and classifies the text as Sports.
"""


def sports(*, return_X_y: bool = False) -> Bunch | tuple[list[str], np.ndarray]:
    """The five texts of seed 000's multinomial example, Sports or Not sports.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` a list of 5 texts, ``target`` (5,) "Sports"/"Not sports",
        ``feature_names`` ["text"], ``target_names``, ``query`` "A very close game" (the
        text the seed classifies), and ``DESCR`` with the seed's answer.
    (X, y) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    Word counts (one-letter words kept) and Laplace smoothing give the seed's
    products of word probabilities, ``4.61e-5`` and ``1.43e-5``:

    >>> import numpy as np
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from bayesrule import MultinomialNB
    >>> from bayesrule.datasets import sports
    >>> data = sports()
    >>> words = CountVectorizer(token_pattern=r"(?u)\\b\\w+\\b")
    >>> clf = MultinomialNB(alpha=1).fit(words.fit_transform(data.data), data.target)
    >>> clf.classes_
    array(['Not sports', 'Sports'], dtype='<U10')
    >>> query = words.transform([data.query])
    >>> np.exp(clf.log_likelihood(query)).round(7)   # Not sports, Sports
    array([[1.43e-05, 4.61e-05]])
    >>> clf.predict(query)
    array(['Sports'], dtype='<U10')
    """
    data = [
        "A great game",
        "The election was over",
        "Very clean match",
        "A clean but forgettable game",
        "It was a close election",
    ]
    target = ["Sports", "Not sports", "Sports", "Sports", "Not sports"]
    return _small_bunch(data, target, "A very close game", ("text",), _SPORTS_DESCR, return_X_y)


_HIKING_DESCR = """\
Go hiking? (seed 002, naive Bayes with Laplacian smoothing, eq. 11)
--------------------------------------------------------------------

Five days, three features (weather, mood, schedule), P = went hiking, N = did not:

    P: sunny, unhappy, free
    P: sunny, happy,   free
    N: rainy, happy,   free
    P: sunny, unhappy, busy
    N: rainy, unhappy, busy

Query: windy, happy, free. "windy" never occurs in training, so without smoothing
both classes get probability zero; the source smooths with eq. 11,

    P(X_j = v | C_k) = (m_kjv + lambda) / (m_k + O_j lambda),  lambda = 1,

O_j the number of values of feature j. Counting the values seen in training
(O_j = 2 for every feature):

    P:  1/5 x 2/5 x 3/5 x 3/5 = 0.0288
    N:  1/4 x 1/2 x 1/2 x 2/5 = 0.025

so the answer is: go hiking (P).
"""


def hiking(*, return_X_y: bool = False) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """The hiking table of seed 002: weather, mood and schedule; P (go) or N.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (5, 3) object array of strings, ``target`` (5,) "P"/"N",
        ``feature_names`` ["weather", "mood", "schedule"], ``target_names``, ``query``
        the one sample the seed classifies (a list of 3 values), and ``DESCR`` with the
        answer.
    (X, y) : tuple of ndarray
        If ``return_X_y`` is True.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule import CategoricalNB
    >>> from bayesrule.datasets import hiking
    >>> data = hiking()
    >>> data.query
    ['windy', 'happy', 'free']
    >>> clf = CategoricalNB(alpha=1).fit(data.data, data.target)
    >>> np.exp(clf.predict_joint_log_proba([data.query])).round(4)   # N, P
    array([[0.025 , 0.0288]])
    >>> clf.predict([data.query])
    array(['P'], dtype='<U1')
    """
    data = _table(
        [
            ["sunny", "unhappy", "free"],
            ["sunny", "happy", "free"],
            ["rainy", "happy", "free"],
            ["sunny", "unhappy", "busy"],
            ["rainy", "unhappy", "busy"],
        ]
    )
    target = ["P", "P", "N", "P", "N"]
    query = ["windy", "happy", "free"]
    names = ("weather", "mood", "schedule")
    return _small_bunch(data, target, query, names, _HIKING_DESCR, return_X_y)
