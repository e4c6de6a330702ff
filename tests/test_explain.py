"""``explain`` against hand computations on the seeds' worked examples (the exam and
hiking tables of seeds 000 and 002, the fruit of seed 003), its text and table, and its
refusals. The contract over every estimator is ``tests/contract/test_explain.py``."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from bayesrule import CategoricalNB, LossMatrix, QuadraticDiscriminant
from bayesrule.datasets import (
    FRUIT_CLASSES,
    FRUIT_COVARIANCES,
    FRUIT_MEANS,
    FRUIT_PRIORS,
    exam,
    hiking,
)

X_FRUIT = np.array([[170.0, 585.0]])


def fruit_model(**kwargs):
    return QuadraticDiscriminant.from_parameters(
        FRUIT_MEANS, FRUIT_COVARIANCES, priors=FRUIT_PRIORS, classes=FRUIT_CLASSES, **kwargs
    )


def test_exam_000_by_hand():
    # maximum likelihood (alpha=0), as the seed counts
    data = exam()
    model = CategoricalNB(alpha=0.0).fit(data.data, data.target)
    why = model.explain([data.query])
    assert why.decided[0] == "Pass"
    X, y = data.data, data.target
    terms = [np.log(3 / 2)]  # prior: 3 Pass, 2 Fail
    for j, value in enumerate(data.query):
        p_pass = np.mean(X[y == "Pass", j] == value)
        p_fail = np.mean(X[y == "Fail", j] == value)
        terms.append(np.log(p_pass / p_fail))
    fail = list(model.classes_).index("Fail")
    np.testing.assert_allclose(why.odds_terms(0)[fail], terms, rtol=1e-12)
    # the seed's answer: 4/45 for Pass against 1/20 for Fail
    np.testing.assert_allclose(np.sum(terms), np.log((4 / 45) / (1 / 20)), rtol=1e-12)
    assert why.names == ["prior", "x0", "x1", "x2"]  # a NumPy table: no feature names


def test_hiking_002_by_hand():
    data = hiking()  # Laplace smoothing, lambda = 1
    model = CategoricalNB(alpha=1.0).fit(data.data, data.target)
    why = model.explain([data.query])
    assert why.decided[0] == "P"
    X, y = data.data, data.target
    terms = [np.log(3 / 2)]
    for j, value in enumerate(data.query):
        values = np.unique(X[:, j])
        # (count + 1) / (N_c + O_j); "windy", never seen, counts 0
        p = [(np.sum(X[y == c, j] == value) + 1.0) / (np.sum(y == c) + values.size) for c in "PN"]
        terms.append(np.log(p[0] / p[1]))
    other = list(model.classes_).index("N")
    np.testing.assert_allclose(why.odds_terms(0)[other], terms, rtol=1e-12)
    proba = dict(zip(model.classes_, model.predict_proba([data.query])[0], strict=True))
    np.testing.assert_allclose(np.log(proba["P"] / proba["N"]), np.sum(terms), rtol=1e-12)


def test_fruit_003_by_hand():
    model = fruit_model()
    why = model.explain(X_FRUIT)
    assert why.decided[0] == "apple"  # posteriors 0.6459, 0.3526, 0.0015
    x = X_FRUIT[0]
    per_class = []
    for mu, cov, prior in zip(FRUIT_MEANS, FRUIT_COVARIANCES, FRUIT_PRIORS, strict=True):
        W = -0.5 * np.linalg.inv(cov)  # seed 003, eq. 24
        w = np.linalg.inv(cov) @ mu  # eq. 25
        w0 = -0.5 * mu @ np.linalg.inv(cov) @ mu - 0.5 * np.log(np.linalg.det(cov))  # eq. 26
        per_class.append([np.log(prior), x @ W @ x, *(x * w), w0 - np.log(2 * np.pi)])
    per_class = np.array(per_class)
    np.testing.assert_allclose(why.terms[0], per_class, rtol=1e-12)
    assert why.names == ["prior", "quadratic x'Wx", "x0 (linear)", "x1 (linear)", "constant"]
    odds = why.log_odds()[0]
    proba = model.predict_proba(X_FRUIT)[0]
    np.testing.assert_allclose(odds, np.log(proba[0] / proba), atol=1e-10)
    np.testing.assert_allclose(proba, [0.6459, 0.3526, 0.0015], atol=5e-5)


def test_text_and_table_of_a_row():
    model = fruit_model()
    why = model.explain(X_FRUIT)
    text = why.text(0)
    assert text.splitlines()[0] == "row 0: decided apple"
    assert "vs orange" in text and "vs grapefruit" in text and "total (ln odds)" in text
    frame = why.to_frame(0)
    assert list(frame.columns) == ["orange", "grapefruit"]
    proba = model.predict_proba(X_FRUIT)[0]
    np.testing.assert_allclose(
        frame.loc["total (ln odds)"], np.log(proba[0] / proba[1:]), atol=1e-10
    )
    assert why.deciding_features(2)[0][1] == 1


def test_a_rejected_row_is_explained_for_its_most_probable_class():
    model = fruit_model(loss=LossMatrix.with_reject(3, 0.1))
    why = model.explain(X_FRUIT)
    assert why.decision[0] != "apple"  # rejected: the posterior 0.65 is below 0.9
    assert why.decided[0] == "apple"
    assert "rejects" in why.text(0)


def test_bad_input():
    with pytest.raises(NotFittedError):
        QuadraticDiscriminant().explain(X_FRUIT)
    with pytest.raises(ValueError, match="features"):
        fruit_model().explain([[1.0, 2.0, 3.0]])


def test_report_counts_the_terms_that_decide():
    from bayesrule import GaussianNB, report
    from bayesrule.datasets import fruit

    train, test = fruit(500, random_state=0), fruit(300, random_state=1)
    model = GaussianNB().fit(train.data, train.target)
    rep = report(model, test.data, test.target)
    # by hand: per row, the feature whose term favours the decision most over the runner-up
    why = model.explain(test.data)
    joint = why.terms.sum(axis=2)
    rows = np.arange(len(test.target))
    k = why.decided_index
    joint[rows, k] = -np.inf
    runner = joint.argmax(axis=1)
    diff = why.terms[rows, k, 1:] - why.terms[rows, runner, 1:]
    counts = np.bincount(diff.argmax(axis=1), minlength=2)
    assert dict(rep.deciding) == {f"x{j}": int(c) for j, c in enumerate(counts) if c}
    assert sum(dict(rep.deciding).values()) == len(test.target)
    assert "Terms that most often decide (rows): x" in str(rep)
    # a model reporting its likelihood whole lists nothing
    from bayesrule import KernelNB

    kde = KernelNB().fit(train.data, train.target)
    assert report(kde, test.data, test.target).deciding == ()


def test_mixture_terms_by_hand():
    # ln p(x|c) = sum_k r_k (ln w_k + ln N_k(x)) - sum_k r_k ln r_k, from scipy's densities
    from scipy.stats import multivariate_normal

    from bayesrule import GaussianMixtureBayes
    from bayesrule.datasets import two_modes

    data = two_modes(400, random_state=0)
    model = GaussianMixtureBayes(n_components=2, random_state=0).fit(data.data, data.target)
    X = data.data[:5]
    why = model.explain(X)
    assert why.names[1:] == [
        "component 1",
        "component 2",
        "mixing (entropy of the responsibilities)",
    ]
    for c, mixture in enumerate(model.likelihood_.mixtures_):
        covs = mixture.full_covariances()
        L = np.column_stack(
            [
                np.log(w) + multivariate_normal(mu, cov).logpdf(X)
                for w, mu, cov in zip(mixture.weights_, mixture.means_, covs, strict=True)
            ]
        )
        r = np.exp(L - L.max(axis=1, keepdims=True))
        r /= r.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(why.terms[:, c, 1:3], r * L, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(why.terms[:, c, 3], -(r * np.log(r)).sum(axis=1), atol=1e-12)


def test_waterfall_against_a_class_and_its_refusals():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bayesrule.plot import explanation

    why = fruit_model().explain(X_FRUIT)
    ax = explanation(why, 0, "grapefruit", top=2)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert (
        labels[0] == "prior" and labels[-2] == "other terms (2)" and labels[-1] == "total (ln odds)"
    )
    widths = [p.get_width() for p in ax.patches]
    odds = why.log_odds()[0, 2]  # classes: apple, orange, grapefruit as given
    assert widths[-1] == pytest.approx(odds, abs=1e-10)
    assert sum(widths[:-1]) == pytest.approx(odds, abs=1e-9)
    assert ax.get_title() == "Why apple and not grapefruit (row 0)"
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="against must be one of the other classes"):
        explanation(why, 0, "apple")
    with pytest.raises(ValueError, match="row must be an integer in 0 .. 0"):
        explanation(why, 3)
    with pytest.raises(TypeError, match="model.explain"):
        explanation(np.zeros(3))


def test_risk_difference_under_the_seed_loss_by_class():
    loss = [[0, 2, 3], [1, 0, 2], [1, 1, 0]]
    model = fruit_model(loss=loss)
    why = model.explain(X_FRUIT)
    assert why.decision[0] == "orange"  # the seed's least-risk action
    parts = why.risk_terms(0)  # (actions, classes)
    risk = model.risk(X_FRUIT)[0]  # 0.7098, 0.6489, 0.9985
    np.testing.assert_allclose(parts.sum(axis=1), risk[1] - risk, atol=1e-12)
    proba = model.predict_proba(X_FRUIT)[0]
    L = np.array(loss, float)
    np.testing.assert_allclose(parts, (L[1] - L) * proba, atol=1e-12)
    assert np.all(parts.sum(axis=1) <= 1e-12)  # the Bayes action has the least risk
    text = why.text(0)
    assert "risk of orange minus risk of each action" in text and "vs apple:" in text
    # zero-one loss: no risk section
    assert "risk of" not in fruit_model().explain(X_FRUIT).text(0)
