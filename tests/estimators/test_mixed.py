"""MixedNB: one family per column block, chosen from a DataFrame's types or given."""

from __future__ import annotations

import numpy as np
import palmerpenguins
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn.model_selection import StratifiedKFold

from bayesrule import CategoricalNB, GaussianNB, MixedNB
from bayesrule.likelihoods import Categorical, Gaussian, Kernel

NUMERIC = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
CATEGORICAL = ["island", "sex"]


def penguins():
    df = palmerpenguins.load_penguins()
    return df[NUMERIC + CATEGORICAL], df["species"].to_numpy()


def test_auto_places_columns_by_type_and_keeps_their_names():
    X, y = penguins()
    clf = MixedNB().fit(X, y)
    assert clf.blocks_ == [("gaussian", NUMERIC), ("categorical", CATEGORICAL)]
    assert list(clf.feature_names_in_) == NUMERIC + CATEGORICAL
    text = clf.summary()
    for name in NUMERIC + CATEGORICAL + ["Adelie", "Chinstrap", "Gentoo"]:
        assert name in text
    assert clf.class_count_.sum() == len(X) == 344  # no row dropped


def test_integer_bool_and_category_columns_are_categorical():
    X = pd.DataFrame(
        {
            "year": [2007, 2008, 2007, 2009],
            "flag": [True, False, True, True],
            "kind": pd.Categorical(["a", "b", "a", "b"]),
            "size": [1.0, 2.0, 1.5, 2.5],
            "name": pd.array(["x", "y", None, "y"], dtype="string"),
        }
    )
    clf = MixedNB().fit(X, [0, 1, 0, 1])
    assert clf.blocks_ == [
        ("gaussian", ["size"]),
        ("categorical", ["year", "flag", "kind", "name"]),
    ]


def test_auto_refuses_a_column_it_cannot_place():
    X = pd.DataFrame({"when": pd.date_range("2020-01-01", periods=4), "v": [1.0, 2, 3, 4]})
    with pytest.raises(ValueError, match="cannot place column 'when'"):
        MixedNB().fit(X, [0, 1, 0, 1])


def _complete_case_accuracy(X, y, train, test):
    """GaussianNB on the numbers + CategoricalNB on the categories, on complete rows only."""
    complete = X.notna().all(axis=1).to_numpy()
    tr, te = train[complete[train]], test[complete[test]]
    g = GaussianNB().fit(X.iloc[tr][NUMERIC], y[tr])
    c = CategoricalNB().fit(X.iloc[tr][CATEGORICAL], y[tr])
    joint = g.predict_joint_log_proba(X.iloc[te][NUMERIC]) + c.log_likelihood(
        X.iloc[te][CATEGORICAL]
    )
    return np.mean(g.classes_[joint.argmax(axis=1)] == y[te]), te


def test_penguins_at_least_as_accurate_as_complete_case_naive_bayes():
    X, y = penguins()
    assert X.isna().any(axis=1).sum() == 11  # rows with something missing
    folds = StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)
    mixed, complete_case, everything = [], [], []
    for train, test in folds:
        clf = MixedNB().fit(X.iloc[train], y[train])  # incomplete rows included
        acc, rows = _complete_case_accuracy(X, y, train, test)
        complete_case.append(acc)
        mixed.append(clf.score(X.iloc[rows], y[rows]))
        everything.append(clf.score(X.iloc[test], y[test]))  # every row predicted
    assert np.mean(mixed) >= np.mean(complete_case)
    assert np.mean(everything) > 0.95


def test_a_missing_value_changes_the_posterior_as_marginalising_it():
    X, y = penguins()
    clf = MixedNB().fit(X, y)
    x = X.iloc[[0]].copy()
    full = clf.predict_joint_log_proba(x)[0]
    gaussian = clf.likelihood_.blocks_[0][0]
    j = NUMERIC.index("flipper_length_mm")
    term = norm.logpdf(
        x["flipper_length_mm"].iloc[0],
        gaussian.means_[:, j],
        np.sqrt(gaussian.covariances_[:, j]),
    )
    x.loc[x.index[0], "flipper_length_mm"] = np.nan
    np.testing.assert_allclose(clf.predict_joint_log_proba(x)[0], full - term, rtol=1e-12)
    marginal = np.exp(full - term - np.logaddexp.reduce(full - term))
    np.testing.assert_allclose(clf.predict_proba(x)[0], marginal, rtol=1e-12)
    # a categorical value missing: its log-probability leaves the sum
    cat = clf.likelihood_.blocks_[1][0]
    k = list(cat.categories_[0]).index(x["island"].iloc[0])
    x2 = X.iloc[[0]].copy()
    x2["island"] = None
    np.testing.assert_allclose(
        clf.predict_joint_log_proba(x2)[0], full - cat.feature_log_prob_[0][:, k], rtol=1e-12
    )


def test_explicit_blocks_by_name_index_and_object():
    X, y = penguins()
    features = [
        (Gaussian("diag", var_smoothing=1e-9), ["bill_length_mm", "bill_depth_mm"]),
        ("kernel", [2, "body_mass_g"]),
        (Categorical(alpha=0.5), CATEGORICAL),
    ]
    clf = MixedNB(features=features).fit(X, y)
    assert [name for name, _ in clf.blocks_] == ["gaussian", "kernel", "categorical"]
    assert clf.blocks_[1][1] == [2, "body_mass_g"]
    fitted = [type(f) for f, _ in clf.likelihood_.blocks_]
    assert fitted == [Gaussian, Kernel, Categorical]
    assert features[0][0].__dict__.get("means_") is None  # the given object is not fitted
    assert clf.score(X, y) > 0.9


def test_numpy_object_table_without_names():
    X, y = penguins()
    table = X.to_numpy(dtype=object)
    clf = MixedNB().fit(table, y)
    assert clf.blocks_ == [("gaussian", [0, 1, 2, 3]), ("categorical", [4, 5])]
    named = MixedNB().fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(table), named.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize(
    "features, error, match",
    [
        ("everything", ValueError, "features must be 'auto'"),
        ([("zipf", ["island"])], ValueError, "unknown family 'zipf'; use one of .*'poisson'"),
        ([(GaussianNB(), ["island"])], TypeError, "likelihood object"),
        ([("gaussian", ["beak"])], ValueError, r"features\[0\]='beak' is not among the columns"),
        ([("gaussian", NUMERIC)], ValueError, r"columns \[4, 5\] belong to no block"),
        (
            [("gaussian", NUMERIC), ("categorical", CATEGORICAL + ["body_mass_g"])],
            ValueError,
            "blocks 0 and 1",
        ),
        ([("gaussian", [9])], ValueError, r"features\[0\]=9 is not among the columns: X has 6"),
        ([("gaussian", [1.5])], TypeError, r"features\[0\] must be a column position or name"),
    ],
)
def test_bad_features(features, error, match):
    X, y = penguins()
    with pytest.raises(error, match=match):
        MixedNB(features=features).fit(X, y)


def test_columns_are_checked_at_prediction():
    X, y = penguins()
    clf = MixedNB().fit(X, y)
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(X.rename(columns={"island": "isle"}))
    with (
        pytest.warns(UserWarning, match="does not have valid feature names"),
        pytest.raises(ValueError, match="has 5 features"),
    ):
        clf.predict(X.iloc[:, :5].to_numpy(dtype=object))


def test_a_poisson_block_adds_poisson_nb_log_likelihood():
    """A ("poisson", cols) block contributes exactly PoissonNB's log-likelihood."""
    from bayesrule import PoissonNB

    rng = np.random.default_rng(3)
    counts = rng.poisson([[1.0, 4.0]] * 30 + [[3.0, 1.0]] * 30).astype(float)
    y = np.repeat(["calm", "busy"], 30)
    frame = pd.DataFrame({"a": counts[:, 0], "b": counts[:, 1], "colour": ["r", "g"] * 30})
    mixed = MixedNB(features=[("poisson", ["a", "b"]), ("categorical", ["colour"])]).fit(frame, y)
    alone = PoissonNB().fit(counts, y)
    cat = CategoricalNB().fit(frame[["colour"]].to_numpy(), y)
    expected = alone.log_likelihood(counts) + cat.log_likelihood(frame[["colour"]].to_numpy())
    np.testing.assert_allclose(mixed.log_likelihood(frame), expected, rtol=1e-12)
    assert mixed.blocks_[0] == ("poisson", ["a", "b"])
