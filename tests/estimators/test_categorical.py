"""The categorical naive Bayes family: parity with scikit-learn, additivity, any values."""

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

from bayesrule import CategoricalNB
from bayesrule.likelihoods import Categorical
from bayesrule.likelihoods.categorical import CategoryCounts


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    bins = KBinsDiscretizer(
        n_bins=5, encode="ordinal", strategy="quantile", quantile_method="averaged_inverted_cdf"
    )
    Xd = bins.fit_transform(X)
    # every bin of every feature occurs, so O_j = 5 here and in scikit-learn
    assert all(np.unique(col).tolist() == [0, 1, 2, 3, 4] for col in Xd.T)
    return Xd, y


def _same_parameters(ours, theirs):
    assert len(ours.category_count_) == len(theirs.category_count_)
    for a, b in zip(ours.category_count_, theirs.category_count_, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- parity
@pytest.mark.parametrize("alpha", [1.0, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_scikit_learn_on_discretised_wine(wine, alpha, weighted):
    X, y = wine
    w = np.random.default_rng(0).uniform(0.2, 3.0, len(y)) if weighted else None
    ours = CategoricalNB(alpha=alpha).fit(X, y, sample_weight=w)
    theirs = SkCategoricalNB(alpha=alpha).fit(X, y, sample_weight=w)
    _same_parameters(ours, theirs)
    np.testing.assert_allclose(ours.class_count_, theirs.class_count_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-8)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-10
    )
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert [c.tolist() for c in ours.categories_] == [[0, 1, 2, 3, 4]] * X.shape[1]


def test_string_bool_and_pandas_categorical_columns_match_scikit_learn_on_codes():
    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "flag": rng.random(n) < 0.3,
            "size": pd.Categorical(
                rng.choice(["S", "M", "L"], n), categories=["S", "M", "L", "XL"]
            ),
            "count": rng.integers(0, 4, n),
        }
    )
    y = np.where((frame["colour"] == "red") ^ frame["flag"] ^ (rng.random(n) < 0.2), "yes", "no")
    ours = CategoricalNB().fit(frame, y)
    assert ours.feature_names_in_.tolist() == ["colour", "flag", "size", "count"]
    cats = ours.categories_
    assert cats[0].tolist() == ["blue", "green", "red"]
    assert cats[1].tolist() == [False, True]
    assert all(isinstance(v, (bool, np.bool_)) for v in cats[1])
    assert cats[2].tolist() == ["L", "M", "S"]  # values seen; the unused "XL" is not one
    assert cats[3].tolist() == [0, 1, 2, 3]
    codes = OrdinalEncoder().fit_transform(frame.astype(object))
    theirs = SkCategoricalNB().fit(codes, y)
    _same_parameters(ours, theirs)
    np.testing.assert_allclose(ours.predict_proba(frame), theirs.predict_proba(codes), atol=1e-12)
    # a plain object array and a numpy bool array work the same way
    again = CategoricalNB().fit(frame.to_numpy(dtype=object), y)
    np.testing.assert_allclose(
        again.predict_proba(frame.to_numpy(object)), ours.predict_proba(frame)
    )
    flags = CategoricalNB().fit(frame[["flag"]].to_numpy(), y)
    assert flags.categories_[0].tolist() == [False, True]
    np.testing.assert_allclose(
        flags.predict_proba([[True], [False]]),
        SkCategoricalNB().fit(codes[:, [1]], y).predict_proba([[1], [0]]),
        atol=1e-12,
    )


def test_mismatched_column_names_at_predict_are_refused():
    frame = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "u", "v", "v"]})
    clf = CategoricalNB().fit(frame, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(frame.rename(columns={"b": "c"}))


def test_mixed_types_in_one_column_do_not_crash():
    X = np.array([[1], ["a"], [2.5], ["b"], [1], [None]], dtype=object)
    y = [0, 1, 0, 1, 0, 1]
    clf = CategoricalNB().fit(X, y)
    assert clf.categories_[0].tolist() == [2.5, 1, "a", "b"]  # by type name, then value
    # class 0: 1 twice, 2.5 once (n=3); class 1: "a", "b" (n=2; None is missing); O = 4
    np.testing.assert_allclose(
        np.exp(clf.log_likelihood(np.array([[1], ["a"]], dtype=object))),
        [[3 / 7, 1 / 6], [1 / 7, 2 / 6]],
        rtol=1e-12,
    )


def test_unhashable_values_raise_type_error_naming_the_feature():
    X = np.array([["a", "b"], ["a", "c"], ["b", "c"]], dtype=object)
    X[1, 1] = {"foo": "bar"}
    with pytest.raises(TypeError, match=r"feature 1 .*argument must be a string or a number"):
        CategoricalNB().fit(X, [0, 1, 1])
    clf = CategoricalNB().fit(np.array([["a"], ["b"]], dtype=object), [0, 1])
    query = np.empty((1, 1), dtype=object)
    query[0, 0] = ["a list"]
    with pytest.raises(TypeError, match="feature 0"):
        clf.predict(query)


# --------------------------------------------------------------------------- additivity
def test_merge_of_string_statistics_is_a_union_and_associative():
    fam = Categorical()
    a = fam.statistics(np.array([["x"], ["y"]], dtype=object), np.array([0, 1]), 2)
    b = fam.statistics(np.array([["z"], ["x"], [None]], dtype=object), np.array([1, 1, 0]), 2)
    c = fam.statistics(np.array([[None]], dtype=object), np.array([0]), 2)  # nothing seen
    left, right = a.merge(b).merge(c), a.merge(b.merge(c))
    for s in (left, right):
        assert s.categories[0].tolist() == ["x", "y", "z"]
        np.testing.assert_array_equal(s.counts[0], [[1, 0, 0], [1, 1, 1]])
    whole = np.array([["x"], ["y"], ["z"], ["x"], [None], [None]], dtype=object)
    np.testing.assert_array_equal(
        fam.statistics(whole, np.array([0, 1, 1, 1, 0, 0]), 2).counts[0], left.counts[0]
    )


def test_numeric_and_object_batches_merge():
    fam = Categorical()
    a = fam.statistics(np.array([[1.0], [2.0]]), np.array([0, 1]), 2)
    b = fam.statistics(np.array([["a"], [2]], dtype=object), np.array([0, 0]), 2)
    merged = a.merge(b)
    assert merged.categories[0].tolist() == [1.0, 2.0, "a"]
    np.testing.assert_array_equal(merged.counts[0], [[1, 1, 1], [0, 1, 0]])


def test_zero_weight_rows_add_no_values():
    X = np.array([["a"], ["b"], ["c"], ["a"]], dtype=object)
    clf = CategoricalNB().fit(X, [0, 1, 1, 0], sample_weight=[1, 1, 0, 1])
    assert clf.categories_[0].tolist() == ["a", "b"]


# --------------------------------------------------------------------------- unseen, missing
SMALL_X = np.array([["a", "u"], ["a", "v"], ["b", "u"], ["a", "u"], ["b", "v"]], dtype=object)
SMALL_Y = [0, 0, 0, 1, 1]


@pytest.mark.parametrize(
    "unseen, expected",
    [
        # class 0 (n=3): a 2, b 1 / u 2, v 1; class 1 (n=2): a 1, b 1 / u 1, v 1; O_j = 2
        ("smooth", [(1 / 5) * (3 / 5), (1 / 4) * (2 / 4)]),
        ("ignore", [3 / 5, 2 / 4]),
    ],
)
def test_unseen_value_policies_give_the_formula(unseen, expected):
    clf = CategoricalNB(alpha=1, unseen=unseen).fit(SMALL_X, SMALL_Y)
    query = np.array([["z", "u"]], dtype=object)
    np.testing.assert_allclose(np.exp(clf.log_likelihood(query))[0], expected, rtol=1e-12)
    np.testing.assert_allclose(
        clf.likelihood_.unseen_log_prob_[:, 0],
        np.log([1 / 5, 1 / 4]) if unseen == "smooth" else [0, 0],
        rtol=1e-12,
    )


def test_unseen_error_names_the_feature_and_the_value():
    clf = CategoricalNB(unseen="error").fit(SMALL_X, SMALL_Y)
    clf.predict(SMALL_X)  # seen values are fine
    with pytest.raises(ValueError, match=r"feature 1 has the value 'w', never seen"):
        clf.predict(np.array([["a", "w"]], dtype=object))


def _reference_log_likelihood(X, y, query, alpha, n_classes):
    """Plain counting of seed 002's eq. 11; None / NaN are missing."""

    def missing(v):
        return v is None or (isinstance(v, float) and v != v)

    out = np.zeros((len(query), n_classes))
    for j in range(len(X[0])):
        counts = defaultdict(float)
        totals = defaultdict(float)
        values = set()
        for row, c in zip(X, y, strict=True):
            if not missing(row[j]):
                counts[c, row[j]] += 1
                totals[c] += 1
                values.add(row[j])
        for i, row in enumerate(query):
            if missing(row[j]):
                continue
            for c in range(n_classes):
                p = (counts[c, row[j]] + alpha) / (totals[c] + alpha * len(values))
                out[i, c] += np.log(p)
    return out


@pytest.mark.parametrize("as_float", [False, True])
def test_missing_values_drop_out_of_statistics_and_product(as_float):
    rng = np.random.default_rng(7)
    n, d = 200, 4
    X = rng.integers(0, 3 + np.arange(d), (n, d)).astype(object)
    y = (rng.random(n) < 0.4).astype(int)
    X[rng.random((n, d)) < 0.25] = None
    query = rng.integers(0, 3, (30, d)).astype(object)
    query[rng.random((30, d)) < 0.3] = None
    if as_float:
        X, query = X.astype(float), query.astype(float)  # None -> NaN
    clf = CategoricalNB(alpha=0.5).fit(X, y)
    expected = _reference_log_likelihood(X.tolist(), y.tolist(), query.tolist(), 0.5, 2)
    np.testing.assert_allclose(clf.log_likelihood(query), expected, rtol=1e-12)


def test_missing_feature_equals_the_model_without_it():
    rng = np.random.default_rng(8)
    X = rng.choice(["p", "q", "r"], (150, 3)).astype(object)
    y = rng.integers(0, 3, 150)
    X[:40, 1] = None
    full = CategoricalNB().fit(X, y)
    # the other features' statistics use every row; feature 1 only its observed rows
    without = CategoricalNB().fit(X[:, [0, 2]], y)
    query = np.array([["p", None, "r"], ["q", np.nan, "q"]], dtype=object)
    np.testing.assert_allclose(
        full.predict_proba(query), without.predict_proba(query[:, [0, 2]]), rtol=1e-12
    )
    alone = CategoricalNB().fit(X[40:, [1]], y[40:])
    np.testing.assert_array_equal(full.category_count_[1], alone.category_count_[0])


def test_all_missing_row_gets_the_prior():
    clf = CategoricalNB().fit(SMALL_X, SMALL_Y)
    query = np.array([[None, np.nan]], dtype=object)
    np.testing.assert_array_equal(clf.log_likelihood(query), [[0.0, 0.0]])
    np.testing.assert_allclose(clf.predict_proba(query)[0], [3 / 5, 2 / 5], rtol=1e-15)


# --------------------------------------------------------------------------- alpha = 0
def test_alpha_zero_gives_ml_estimates_and_impossible_classes():
    clf = CategoricalNB(alpha=0).fit(SMALL_X, SMALL_Y)
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_[0]), [[2 / 3, 1 / 3], [1 / 2, 1 / 2]])
    # every training value has a class where it was seen: no error, finite posteriors
    assert np.isfinite(clf.predict_log_proba(SMALL_X)).any(axis=1).all()


def test_alpha_zero_impossible_sample_names_feature_and_value():
    X = np.array([["a", "u"], ["a", "v"], ["b", "u"], ["b", "u"]], dtype=object)
    clf = CategoricalNB(alpha=0).fit(X, [0, 0, 1, 1])
    # "b" never with class 0 and "v" never with class 1: impossible in both classes
    with pytest.raises(ValueError, match=r"feature 0 has the value 'b'.*alpha > 0"):
        clf.predict(np.array([["b", "v"]], dtype=object))
    assert np.isneginf(clf.log_likelihood(np.array([["b", "v"]], dtype=object))).all()
    with pytest.raises(ValueError, match=r"value 'w', never seen in training.*alpha > 0"):
        clf.predict_proba(np.array([["a", "w"]], dtype=object))


def test_alpha_zero_class_without_observed_values_is_uniform():
    X = np.array([["a", "u"], ["b", None], ["a", None]], dtype=object)
    clf = CategoricalNB(alpha=0).fit(X, [0, 1, 1])
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_[1]), [[1.0], [1.0]])
    X2 = np.array([["a", "u"], ["b", "v"], ["a", None]], dtype=object)
    clf = CategoricalNB(alpha=0).fit(X2, [0, 0, 1])
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_[1]), [[0.5, 0.5], [0.5, 0.5]])


# --------------------------------------------------------------------------- bad parameters
@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"alpha": -0.1}, ValueError, "alpha must be a finite number >= 0"),
        ({"alpha": np.inf}, ValueError, "alpha"),
        ({"alpha": "1"}, TypeError, "alpha must be a number"),
        ({"alpha": True}, TypeError, "alpha must be a number"),
        ({"unseen": "bogus"}, ValueError, "'smooth', 'ignore', 'error'"),
        ({"unseen": None}, ValueError, "unseen must be one of"),
    ],
)
def test_bad_parameters_are_refused_at_fit(params, error, match):
    with pytest.raises(error, match=match):
        CategoricalNB(**params).fit(SMALL_X, SMALL_Y)


def test_wrong_number_of_features_at_predict():
    clf = CategoricalNB().fit(SMALL_X, SMALL_Y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(SMALL_X[:, :1])


# --------------------------------------------------------------------------- the model
def test_sample_frequencies_match_probabilities():
    rng = np.random.default_rng(5)
    X = np.empty((400, 2), dtype=object)
    X[:, 0] = rng.choice(["a", "b", "c"], 400)
    X[:, 1] = rng.random(400) < 0.3
    y = rng.integers(0, 2, 400)
    clf = CategoricalNB(alpha=2).fit(X, y)
    n = 200_000
    Xs, ys = clf.sample(n, random_state=0)
    assert Xs.shape == (n, 2) and Xs.dtype == object
    np.testing.assert_allclose(
        [np.mean(ys == c) for c in clf.classes_], clf.class_prior_, atol=5 * 0.5 / np.sqrt(n)
    )
    for c in range(2):
        rows = Xs[ys == clf.classes_[c]]
        for j in range(2):
            p = np.exp(clf.feature_log_prob_[j][c])
            freq = [np.mean(rows[:, j] == v) for v in clf.categories_[j]]
            assert (np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / len(rows))).all()
    assert clf.categories_[1].tolist() == [False, True]


def test_sample_is_numeric_for_numeric_categories(wine):
    X, y = wine
    Xs, _ = CategoricalNB().fit(X, y).sample(50, random_state=1)
    assert Xs.dtype == np.float64
    assert set(np.unique(Xs)) <= {0.0, 1.0, 2.0, 3.0, 4.0}


def test_n_parameters_counts_free_probabilities(wine):
    X, y = wine
    clf = CategoricalNB().fit(X, y)
    assert clf.likelihood_.n_parameters() == 3 * 13 * 4
    assert clf.n_parameters() == 3 * 13 * 4 + 2


def test_thousands_of_features_do_not_underflow():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, (60, 5000))
    y = rng.integers(0, 2, 60)
    clf = CategoricalNB().fit(X, y)
    ll = clf.log_likelihood(X[:5])
    assert np.isfinite(ll).all() and (ll < -4000).all()
    np.testing.assert_allclose(clf.predict_proba(X[:5]).sum(axis=1), 1.0, rtol=1e-12)


def test_describe_lists_values_and_probabilities():
    clf = CategoricalNB().fit(SMALL_X, SMALL_Y)
    lines = clf.likelihood_.describe(["no", "yes"], ["f0", "f1"])
    text = "\n".join(lines)
    assert "f0: values a, b" in text and "rows: classes no, yes" in text
    assert "0.6" in text  # P(a | no) = 3/5
    many = CategoricalNB().fit(np.zeros((4, 25), int) + [[0], [1], [0], [1]], [0, 1, 0, 1])
    names = [f"x{j}" for j in range(25)]
    assert many.likelihood_.describe([0, 1], names)[-1] == "  ... (5 more features)"


def test_family_statistics_are_a_dataclass_with_merge():
    stats = Categorical().statistics(SMALL_X, np.array(SMALL_Y), 2)
    assert isinstance(stats, CategoryCounts)
    fam = Categorical().set_statistics(stats)
    assert fam.stats_ is stats and fam.n_classes_ == 2


def test_defaults_bin_continuous_columns():
    """Issue 16: every float of breast cancer was its own category (0.42 in 5-fold CV);
    at the defaults the columns are binned by supervised MDL."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = load_breast_cancer(return_X_y=True)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    assert cross_val_score(CategoricalNB(), X, y, cv=cv).mean() > 0.94
    est = CategoricalNB().fit(X, y)
    assert all(e is not None for e in est.bin_edges_)
    with pytest.raises(ValueError, match="holds continuous values"):
        CategoricalNB(discretize=None).fit(X, y)
