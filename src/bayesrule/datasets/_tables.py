"""The small tables of the naive Bayes examples (seeds 000 and 002), with their queries."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._common import _small_bunch, _table

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
