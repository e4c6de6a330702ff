"""The naive Bayes worked examples of seeds 000 and 002, with their exact numbers."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import Pipeline

from bayesrule import BernoulliNB, CategoricalNB, MultinomialNB
from bayesrule.datasets import exam, hiking, sports


# --------------------------------------------------------------------------- exam (seed 000)
def test_exam_data_is_the_seed_table():
    data = exam()
    assert data.feature_names == ["Confident", "Studied", "Sick"]
    assert data.data.tolist() == [
        ["Yes", "No", "No"],
        ["Yes", "No", "Yes"],
        ["No", "Yes", "Yes"],
        ["No", "Yes", "No"],
        ["Yes", "Yes", "Yes"],
    ]
    assert data.target.tolist() == ["Fail", "Pass", "Fail", "Pass", "Pass"]
    assert data.query == ["Yes", "Yes", "No"]
    assert "4/45" in data.DESCR and "1/20" in data.DESCR
    X, y = exam(return_X_y=True)
    np.testing.assert_array_equal(X, data.data)
    np.testing.assert_array_equal(y, data.target)


def test_exam_categorical_ml_000():
    data = exam()
    clf = CategoricalNB(alpha=0).fit(data.data, data.target)
    assert clf.classes_.tolist() == ["Fail", "Pass"]
    np.testing.assert_allclose(clf.class_prior_, [2 / 5, 3 / 5], rtol=1e-15)
    # P(Confident=Yes|Pass) = 2/3, P(Studied=Yes|Pass) = 2/3, P(Sick=No|Pass) = 1/3;
    # every one of them is 1/2 given Fail
    like = np.exp(clf.log_likelihood([data.query]))[0]
    np.testing.assert_allclose(like, [1 / 8, 4 / 27], rtol=1e-13)
    joint = np.exp(clf.predict_joint_log_proba([data.query]))[0]
    np.testing.assert_allclose(joint, [1 / 20, 4 / 45], rtol=1e-13)
    assert round(joint[1], 3) == 0.089 and round(joint[0], 3) == 0.05  # the seed's 0.088
    assert clf.predict([data.query]).tolist() == ["Pass"]
    np.testing.assert_allclose(
        clf.predict_proba([data.query])[0], np.array([1 / 20, 4 / 45]) / (1 / 20 + 4 / 45)
    )


def test_exam_bernoulli_ml_000():
    data = exam()
    X = (data.data == "Yes").astype(int)
    query = (np.array([data.query]) == "Yes").astype(int)
    clf = BernoulliNB(alpha=0, binarize=None).fit(X, data.target)
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_), [[1 / 2] * 3, [2 / 3, 2 / 3, 2 / 3]])
    joint = np.exp(clf.predict_joint_log_proba(query))[0]
    np.testing.assert_allclose(joint, [1 / 20, 4 / 45], rtol=1e-13)
    assert clf.predict(query).tolist() == ["Pass"]


# --------------------------------------------------------------------------- sports (seed 000)
def _sports_pipeline():
    data = sports()
    pipe = Pipeline(
        [
            ("words", CountVectorizer(token_pattern=r"(?u)\b\w+\b", lowercase=True)),
            ("nb", MultinomialNB(alpha=1)),
        ]
    )
    return data, pipe.fit(data.data, data.target)


def test_sports_data_is_the_seed_table():
    data = sports()
    assert data.data[2] == "Very clean match" and len(data.data) == 5
    assert data.target.tolist() == ["Sports", "Not sports", "Sports", "Sports", "Not sports"]
    assert data.query == "A very close game"
    assert "4.61e-5" in data.DESCR and "1.43e-5" in data.DESCR


def test_sports_word_probabilities_000():
    _, pipe = _sports_pipeline()
    words, nb = pipe.named_steps["words"], pipe.named_steps["nb"]
    assert nb.classes_.tolist() == ["Not sports", "Sports"]
    assert len(words.vocabulary_) == 14  # d, the number of distinct words
    np.testing.assert_array_equal(nb.feature_count_.sum(axis=1), [9, 11])
    theta = np.exp(nb.feature_log_prob_)
    expected = {  # word: (P(word | Not sports), P(word | Sports)), the seed's table
        "a": (2 / 23, 3 / 25),
        "very": (1 / 23, 2 / 25),
        "close": (2 / 23, 1 / 25),
        "game": (1 / 23, 3 / 25),
    }
    for word, probs in expected.items():
        np.testing.assert_allclose(theta[:, words.vocabulary_[word]], probs, rtol=1e-13)


def test_sports_products_and_decision_000():
    data, pipe = _sports_pipeline()
    words, nb = pipe.named_steps["words"], pipe.named_steps["nb"]
    query = words.transform([data.query])
    # the product of the four word probabilities, without the prior (as the seed prints)
    like = np.exp(nb.log_likelihood(query))[0]
    np.testing.assert_allclose(like, [(2 * 1 * 2 * 1) / 23**4, (3 * 2 * 1 * 3) / 25**4], rtol=1e-12)
    assert like[1] == pytest.approx(4.61e-5, abs=5e-8)
    assert like[0] == pytest.approx(1.43e-5, abs=5e-8)
    assert pipe.predict([data.query]).tolist() == ["Sports"]


# --------------------------------------------------------------------------- hiking (seed 002)
def test_hiking_data_is_the_seed_table():
    data = hiking()
    assert data.feature_names == ["weather", "mood", "schedule"]
    assert data.target.tolist() == ["P", "P", "N", "P", "N"]
    assert data.query == ["windy", "happy", "free"]


@pytest.mark.parametrize(
    "unseen, expected",
    [
        # eq. 11 with lambda = 1 and O_j = 2 (values seen in training); windy is unseen:
        # P (m=3): windy 1/5, happy (1+1)/5, free (2+1)/5, prior 3/5
        # N (m=2): windy 1/4, happy (1+1)/4, free (1+1)/4, prior 2/5
        ("smooth", [(1 / 4) * (1 / 2) * (1 / 2) * (2 / 5), (1 / 5) * (2 / 5) * (3 / 5) * (3 / 5)]),
        # the unseen weather drops out of the product
        ("ignore", [(1 / 2) * (1 / 2) * (2 / 5), (2 / 5) * (3 / 5) * (3 / 5)]),
    ],
)
def test_hiking_laplace_smoothing_002(unseen, expected):
    data = hiking()
    clf = CategoricalNB(alpha=1, unseen=unseen).fit(data.data, data.target)
    assert clf.classes_.tolist() == ["N", "P"]
    joint = np.exp(clf.predict_joint_log_proba([data.query]))[0]
    np.testing.assert_allclose(joint, expected, rtol=1e-13)
    assert clf.predict([data.query]).tolist() == ["P"]  # go hiking


def test_hiking_without_smoothing_has_no_answer_002():
    data = hiking()
    clf = CategoricalNB(alpha=0).fit(data.data, data.target)
    with pytest.raises(ValueError, match=r"'windy', never seen in training.*alpha > 0"):
        clf.predict([data.query])
