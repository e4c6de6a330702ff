"""mclust's start (``init="hc"``): the agglomerative tree against R's mclust 6.0.0, and
MclustDA's choices on iris and scaled wine."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.preprocessing import StandardScaler

from bayesrule.estimators.mixture import GaussianMixtureBayes
from bayesrule.likelihoods.mixture.hierarchical import (
    duplicate_groups,
    hierarchical_partitions,
    svd_scores,
)
from bayesrule.likelihoods.mixture.starts import HC_ROWS, hc_starts

#: ``hclass(hc(X[y == c, ], modelName = "VVV", use = "SVD"), 2:4) - 1`` in mclust 6.0.0,
#: X scikit-learn's iris written to CSV with 17 digits (rows in its order)
HCLASS = {
    (0, 2): "00001100000001111111111110100001110111001101101000",
    (0, 3): "01112210110112222222222221200112221222102212212100",
    (0, 4): "01112310110112233333332331300113221222103213312100",
    (1, 2): "00000001011000100001000000000111100000000011000010",
    (1, 3): "01011112022111201112101100011222211101111122111021",
    (1, 4): "01022113033121301123102100021333321102121133111031",
    (2, 2): "01010010100101001001010101110100011001100010001001",
    (2, 3): "01210212100101001221012101110122011201100010001001",
    (2, 4): "01210212100101001321012101110123011201100010001001",
}

#: ``MclustDA(X, factor(y))`` (its defaults: G = 1:5, the 14 models, hc starts): per
#: class the chosen model and G; then the log-likelihood (``models[[c]]$loglik``) of
#: ``MclustDA(X, y, G = G, modelNames = model, control = emControl(tol = c(1e-11,
#: 1e-14), itmax = c(1e6, 1e6)))``, EM run to convergence (the default tolerance, 1e-5
#: relative, stops wine's class 1 at -1009.1485); wine standardised (StandardScaler)
MCLUSTDA = {
    "iris": [("EEE", 2, 55.0239911584), ("XXX", 1, -9.90930990302), ("XXX", 1, -58.5909739527)],
    "wine": [("VEI", 5, -515.66669179), ("VEI", 3, -1009.06049613), ("VEI", 3, -472.746674843)],
}


@pytest.mark.parametrize(("c", "k"), sorted(HCLASS))
def test_tree_cuts_equal_mclust_hclass(c, k):
    X, y = load_iris(return_X_y=True)
    ours = hierarchical_partitions(X[y == c], [k])[k]
    assert "".join(map(str, ours)) == HCLASS[c, k]


def test_svd_scores_are_whitened_and_drop_constant_columns():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) @ np.array([[2.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 3.0]])
    Z = svd_scores(np.column_stack([X, np.full(40, 7.0)]))
    assert Z.shape == (40, 3)  # the constant column is dropped
    # scores Z V / sqrt(s) of the standardised Z = U S V^T: uncorrelated, and each
    # column's sum of squares its singular value s_j
    standard = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    s = np.linalg.svd(standard, compute_uv=False)
    np.testing.assert_allclose(Z.T @ Z, np.diag(s), atol=1e-10)


def test_identical_rows_start_together_and_stay_together():
    X = np.array([[0.0, 0.0], [3.0, 1.0], [0.0, 0.0], [3.1, 1.2], [9.0, 9.0], [0.0, 0.0]])
    assert duplicate_groups(X).tolist() == [0, 1, 0, 2, 3, 0]
    parts = hierarchical_partitions(X, [1, 2, 3, 4, 5])
    assert sorted(parts) == [1, 2, 3, 4]  # 4 distinct rows: k = 5 is left out
    for labels in parts.values():
        assert labels[0] == labels[2] == labels[5]
    assert parts[3].tolist() == [0, 1, 0, 1, 2, 0]


def test_ward_when_rows_do_not_outnumber_columns():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(0, 0.1, (3, 6)), rng.normal(5, 0.1, (3, 6))])
    assert hierarchical_partitions(X, [2])[2].tolist() == [0, 0, 0, 1, 1, 1]
    assert hierarchical_partitions(X, [2], model="EII")[2].tolist() == [0, 0, 0, 1, 1, 1]


def test_large_class_grows_its_tree_on_a_subset_and_places_every_row():
    rng = np.random.default_rng(2)
    n = HC_ROWS + 500
    X = np.concatenate([rng.normal(0, 1, (n // 2, 2)), rng.normal(8, 1, (n - n // 2, 2))])
    labels = hc_starts(X, [2], np.random.RandomState(0))[2][0]
    assert labels.shape == (n,)
    truth = np.repeat([0, 1], [n // 2, n - n // 2])
    agree = max(np.mean(labels == truth), np.mean(labels != truth))
    assert agree > 0.999


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MCLUSTDA))
def test_search_from_hc_chooses_as_mclustda(name):
    if name == "iris":
        X, y = load_iris(return_X_y=True)
    else:
        X, y = load_wine(return_X_y=True)
        X = StandardScaler().fit_transform(X)
    model = GaussianMixtureBayes(
        "bic", covariance="bic", init="hc", max_components=5, reg_covar=0, tol=1e-9
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    for c, (structure, k, loglik) in enumerate(MCLUSTDA[name]):
        mixture = model.mixtures_[c]
        assert mixture.n_components == k
        if structure != "XXX":  # mclust's name of every one-component ellipsoidal model
            assert mixture.covariance == structure
        ours = model.likelihood_.log_likelihood(X[y == c])[:, c].sum()
        assert ours == pytest.approx(loglik, rel=1e-8)


def test_kmeans_rules_refuse_what_hc_rules_judge():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    kwargs = dict(covariance="VEI", max_components=5, reg_covar=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kmeans = GaussianMixtureBayes("bic", random_state=0, **kwargs).fit(X, y)
        hc = GaussianMixtureBayes("bic", init="hc", **kwargs).fit(X, y)
    assert ("VEI", 5) in kmeans.refused_[0]  # 86 parameters > 59 rows
    assert ("VEI", 5) in hc.bic_[0] and ("VEI", 5) not in hc.refused_[0]


def test_unknown_init_names_the_choices():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=r"init must be one of \['kmeans', 'hc'\]"):
        GaussianMixtureBayes(1, init="random").fit(X, y)


def test_a_covariance_per_class_fits_each_class_as_alone():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    per_class = {"setosa": "EEE", "virginica": "VEI"}  # versicolor: "full"
    model = GaussianMixtureBayes({"setosa": 2, "virginica": 2}, covariance=per_class, init="hc")
    model.fit(X, labels)
    assert [m.covariance for m in model.mixtures_.values()] == ["EEE", "full", "VEI"]
    for c, (label, structure) in enumerate([("setosa", "EEE"), ("virginica", "VEI")]):
        alone = GaussianMixtureBayes({label: 2}, covariance=structure, init="hc").fit(X, labels)
        ours = model.likelihood_.log_likelihood(X)[:, 2 * c]
        np.testing.assert_allclose(ours, alone.likelihood_.log_likelihood(X)[:, 2 * c], rtol=1e-12)
    assert "'setosa': 'EEE'" in model.summary()
    searched = GaussianMixtureBayes(
        "bic", covariance={"setosa": "bic"}, max_components=2, init="hc"
    ).fit(X, labels)
    assert len(searched.bic_["setosa"]) > 2 and set(searched.bic_["versicolor"]) <= {
        ("full", 1),
        ("full", 2),
    }
    with pytest.raises(ValueError, match=r"covariance\['setosa'\] must be one of"):
        GaussianMixtureBayes(1, covariance={"setosa": "XYZ"}).fit(X, labels)
    with pytest.raises(TypeError, match=r"covariance\['setosa'\] must be a string"):
        GaussianMixtureBayes(1, covariance={"setosa": 3}).fit(X, labels)
    with pytest.raises(ValueError, match="not classes of y"):
        GaussianMixtureBayes(1, covariance={"daisy": "EEE"}).fit(X, labels)


def test_dask_blocks_start_from_the_same_tree():
    import dask.array as da

    X, y = load_iris(return_X_y=True)
    kwargs = dict(covariance="sklearn", init="hc", max_components=3, reg_covar=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        memory = GaussianMixtureBayes("bic", **kwargs).fit(X, y)
        blocks = GaussianMixtureBayes("bic", **kwargs).fit(
            da.from_array(X, chunks=50), da.from_array(y, chunks=50)
        )
    for c in memory.mixtures_:
        assert memory.bic_[c].keys() == blocks.bic_[c].keys()
        np.testing.assert_allclose(
            list(blocks.bic_[c].values()), list(memory.bic_[c].values()), rtol=1e-9
        )
    np.testing.assert_allclose(blocks.predict_proba(X), memory.predict_proba(X), atol=1e-12)


def test_integer_weights_equal_repeated_rows_in_the_tree_and_the_fit():
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(4).integers(1, 4, size=len(y))
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    rows = np.repeat(np.arange(len(y)), w)
    for k, labels in hierarchical_partitions(X[y == 1], [2, 3, 4], weights=w[y == 1]).items():
        repeated = hierarchical_partitions(Xr[yr == 1], [k])[k]
        np.testing.assert_array_equal(labels[np.repeat(np.arange(50), w[y == 1])], repeated)
    kwargs = dict(covariance="VVV", init="hc", max_components=3)
    weighted = GaussianMixtureBayes("bic", **kwargs).fit(X, y, sample_weight=w)
    repeated = GaussianMixtureBayes("bic", **kwargs).fit(Xr, yr)
    for c in weighted.bic_:
        np.testing.assert_allclose(
            list(weighted.bic_[c].values()), list(repeated.bic_[c].values()), rtol=1e-9
        )
    np.testing.assert_allclose(
        weighted.predict_proba(X),
        repeated.predict_proba(Xr)[np.unique(rows, return_index=True)[1]],
        atol=1e-9,
    )


def test_more_components_than_distinct_rows_start_from_kmeans():
    # the tree cannot cut 3 clusters from 2 distinct rows; k-means starts that k
    X = np.array([[0.0, 0.0]] * 3 + [[1.0, 1.0]] * 3 + [[5.0, 5.0], [6.0, 5.5], [5.5, 6.2]] * 2)
    y = np.repeat([0, 1], 6)
    model = GaussianMixtureBayes(3, init="hc", random_state=0).fit(X, y)
    assert model.mixtures_[0].n_components == 3
    assert np.isfinite(model.predict_proba(X)).all()
