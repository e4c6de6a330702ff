"""``covariance_estimator=`` of LinearDiscriminant and QuadraticDiscriminant: a
scikit-learn covariance estimator fitted on each class's rows
(:mod:`bayesrule.likelihoods.estimated_covariance`).

LDA equals scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr",
covariance_estimator=...)``; QDA equals the posteriors computed by hand from
``clone(est).fit(X[y == c]).covariance_`` with scipy.stats; the refusals name the
parameter and the fix; a model holding an estimator saves and loads without pickle."""

import json

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.base import clone
from sklearn.covariance import OAS, EmpiricalCovariance, LedoitWolf, ShrunkCovariance
from sklearn.datasets import load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from bayesrule import BayesClassifier, LinearDiscriminant, QuadraticDiscriminant
from bayesrule import io as bio
from bayesrule.io.legacy import added_parameters
from bayesrule.likelihoods import Gaussian

DATA = {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True)}
ESTIMATORS = {
    "OAS": OAS,
    "LedoitWolf": LedoitWolf,
    "ShrunkCovariance": lambda: ShrunkCovariance(shrinkage=0.3),
}
TOL = 1e-10


def _by_hand(estimator, X, y, Xt):
    """QDA's log-likelihoods and posteriors (empirical priors) from each class's
    ``clone(estimator).fit(X_c).covariance_``, with scipy.stats."""
    classes = np.unique(y)
    loglik = np.column_stack(
        [
            multivariate_normal(
                X[y == c].mean(axis=0), clone(estimator).fit(X[y == c]).covariance_
            ).logpdf(Xt)
            for c in classes
        ]
    )
    joint = loglik + np.log([np.mean(y == c) for c in classes])
    return loglik, np.exp(joint - logsumexp(joint, axis=1, keepdims=True))


# ---------------------------------------------------------------------------- parity
@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_lda_equals_scikit_learns_lsqr_solver(data, name):
    X, y = DATA[data]
    make = ESTIMATORS[name]
    ours = LinearDiscriminant(covariance_estimator=make()).fit(X, y)
    theirs = LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=make()).fit(X, y)
    np.testing.assert_allclose(ours.covariances_, theirs.covariance_, rtol=1e-12)
    np.testing.assert_allclose(ours.means_, theirs.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=TOL)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    plain = LinearDiscriminant().fit(X, y).covariances_
    assert np.abs(ours.covariances_ - plain).max() > 1e-4 * np.abs(plain).max()  # it shrinks


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_qda_equals_each_class_estimator_by_hand(data, name):
    X, y = DATA[data]
    estimator = ESTIMATORS[name]()
    ours = QuadraticDiscriminant(covariance_estimator=estimator).fit(X, y)
    loglik, posterior = _by_hand(estimator, X, y, X)
    for c in range(3):
        expected = clone(estimator).fit(X[y == c]).covariance_
        np.testing.assert_allclose(ours.covariances_[c], expected, rtol=1e-12)
    np.testing.assert_allclose(ours.log_likelihood(X), loglik, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), posterior, rtol=0, atol=TOL)
    assert not hasattr(estimator, "covariance_")  # the one given is cloned, never fitted


def test_iris_posteriors_with_oas():
    """Two iris rows between versicolor and virginica (scikit-learn's lsqr gives the
    same LDA numbers; the QDA ones are :func:`_by_hand`'s)."""
    X, y = DATA["iris"]
    rows = X[[70, 77]]
    lda = LinearDiscriminant(covariance_estimator=OAS()).fit(X, y)
    np.testing.assert_allclose(
        lda.predict_proba(rows), [[0.0, 0.3038, 0.6962], [0.0, 0.6380, 0.3620]], atol=5e-5
    )
    qda = QuadraticDiscriminant(covariance_estimator=OAS()).fit(X, y)
    np.testing.assert_allclose(
        qda.predict_proba(rows), [[0.0, 0.4183, 0.5817], [0.0, 0.8093, 0.1907]], atol=5e-5
    )
    np.testing.assert_array_equal(qda.predict(rows), [2, 1])


@pytest.mark.parametrize("model", [LinearDiscriminant, QuadraticDiscriminant])
def test_the_empirical_covariance_is_the_ml_fit(model):
    X, y = DATA["wine"]
    given = model(covariance_estimator=EmpiricalCovariance()).fit(X, y)
    plain = model().fit(X, y)
    np.testing.assert_allclose(given.covariances_, plain.covariances_, rtol=1e-10)
    np.testing.assert_allclose(given.predict_proba(X), plain.predict_proba(X), atol=TOL)


def test_ledoit_wolf_on_raw_features_is_not_shrinkage_auto():
    """``shrinkage="auto"`` (scikit-learn's too) standardises each class before
    Ledoit-Wolf; ``LedoitWolf()`` shrinks the raw covariance towards its mean variance,
    which wine's proline (variance about 1e5) dominates."""
    X, y = DATA["wine"]
    raw = LinearDiscriminant(covariance_estimator=LedoitWolf()).fit(X, y).covariances_
    auto = LinearDiscriminant(shrinkage="auto").fit(X, y).covariances_
    pooled = sum(np.mean(y == c) * LedoitWolf().fit(X[y == c]).covariance_ for c in range(3))
    np.testing.assert_allclose(raw, pooled, rtol=1e-12)
    assert raw[0, 0] > 50 > 1 > auto[0, 0]  # alcohol's variance: about 76 against 0.26


def test_the_gaussian_family_takes_it_under_bayes_classifier():
    X, y = DATA["iris"]
    est = BayesClassifier(Gaussian("tied", covariance_estimator=OAS())).fit(X, y)
    lda = LinearDiscriminant(covariance_estimator=OAS()).fit(X, y)
    np.testing.assert_array_equal(est.predict_proba(X), lda.predict_proba(X))
    assert est.likelihood_.row_covariance_ is not None


# ---------------------------------------------------------------------------- reg_covar
def test_a_float_reg_covar_is_added_to_the_estimators_diagonal():
    X, y = DATA["iris"]
    base = QuadraticDiscriminant(covariance_estimator=OAS()).fit(X, y)
    reg = QuadraticDiscriminant(covariance_estimator=OAS(), reg_covar=0.05).fit(X, y)
    np.testing.assert_allclose(reg.covariances_, base.covariances_ + 0.05 * np.eye(4), rtol=1e-14)
    lda = LinearDiscriminant(covariance_estimator=OAS(), reg_covar=0.05).fit(X, y)
    theirs = LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=OAS()).fit(X, y)
    np.testing.assert_allclose(lda.covariances_, theirs.covariance_ + 0.05 * np.eye(4), rtol=1e-12)
    assert base.likelihood_.auto_regularisation_ is None  # "auto": OAS is not singular


def test_auto_regularises_a_singular_estimate_and_zero_refuses_it():
    """EmpiricalCovariance on a class of 3 rows in 4 features is singular: "auto" adds
    1e-6 times each feature's variance to its diagonal, 0 refuses it."""
    X, y = DATA["iris"]
    keep = np.r_[0:50, 50:100, 100:103]
    X, y = X[keep], y[keep]
    est = QuadraticDiscriminant(covariance_estimator=EmpiricalCovariance()).fit(X, y)
    added = est.likelihood_.auto_regularisation_
    np.testing.assert_array_equal(added[:2], 0.0)
    variance = np.maximum(X.var(axis=0), X[y == 2].var(axis=0))
    np.testing.assert_allclose(added[2], 1e-6 * variance, rtol=1e-12)
    assert np.isfinite(est.predict_proba(X)).all()
    with pytest.raises(ValueError, match="singular"):
        QuadraticDiscriminant(covariance_estimator=EmpiricalCovariance(), reg_covar=0).fit(X, y)


# ---------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("model", "other"),
    [
        (LinearDiscriminant, {"shrinkage": 0.3}),
        (LinearDiscriminant, {"shrinkage": "auto"}),
        (LinearDiscriminant, {"estimate": "map"}),
        (QuadraticDiscriminant, {"shrinkage": 0.2}),
        (QuadraticDiscriminant, {"pooling": 0.5}),
        (QuadraticDiscriminant, {"pooling": "cv"}),
        (QuadraticDiscriminant, {"estimate": "predictive"}),
    ],
)
def test_another_estimate_with_it_is_refused(model, other):
    X, y = DATA["iris"]
    ((name, value),) = other.items()
    est = model(covariance_estimator=OAS(), **other)  # __init__ only stores
    assert est.get_params()[name] == value
    with pytest.raises(ValueError, match=rf"covariance_estimator=OAS\(\) and {name}=.*pick one"):
        est.fit(X, y)


@pytest.mark.parametrize("covariance", ["diag", "spherical", "bic", "VEV"])
def test_other_structures_refuse_it(covariance):
    X, y = DATA["iris"]
    with pytest.raises(ValueError, match="'full' and 'tied' covariances only"):
        BayesClassifier(Gaussian(covariance, covariance_estimator=OAS())).fit(X, y)


@pytest.mark.parametrize("model", [LinearDiscriminant, QuadraticDiscriminant])
@pytest.mark.parametrize("bad", ["oas", OAS, 3])
def test_a_non_estimator_is_a_type_error(model, bad):
    X, y = DATA["iris"]
    with pytest.raises(TypeError, match="must be a scikit-learn covariance estimator"):
        model(covariance_estimator=bad).fit(X, y)


@pytest.mark.parametrize("model", [LinearDiscriminant, QuadraticDiscriminant])
def test_sample_weight_partial_fit_and_missing_values_are_refused(model):
    X, y = DATA["iris"]
    est = model(covariance_estimator=OAS())
    with pytest.raises(ValueError, match="covariance_estimator takes no sample_weight"):
        est.fit(X, y, sample_weight=np.ones(len(y)))
    unlabelled = y.astype(object)
    unlabelled[::5] = None  # semi-supervised EM weights these rows by their posteriors
    with pytest.raises(ValueError, match="nor unlabelled rows"):
        est.fit(X, unlabelled)
    assert not hasattr(est, "partial_fit")
    with pytest.raises(AttributeError, match="partial_fit") as info:
        est.partial_fit(X, y, classes=[0, 1, 2])
    assert "use fit with the data in memory" in str(info.value.__cause__)
    assert hasattr(model(), "partial_fit")
    holes = X.copy()
    holes[3, 1] = np.nan
    assert model().fit(holes, y).n_features_in_ == 4  # the ML fit takes NaN
    with pytest.raises(ValueError, match="NaN"):
        est.fit(holes, y)
    fitted = model(covariance_estimator=OAS()).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        fitted.predict(holes)


def test_the_family_refuses_streaming_and_nan_itself():
    X, y = DATA["iris"]
    like = Gaussian("tied", covariance_estimator=OAS())
    assert like.input_kind == "dense"
    assert "rows at once" in like.blockwise_reason()
    with pytest.raises(ValueError, match="partial_fit does not give it; use fit"):
        like.partial_fit(X, y, 3)
    holes = X.copy()
    holes[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN.*covariance_estimator cannot fit"):
        like.fit(holes, y, 3)
    with pytest.raises(ValueError, match="covariance_estimator takes no sample_weight"):
        like.fit(X, y, 3, sample_weight=np.ones(len(y)))


def test_dask_collections_are_refused():
    da = pytest.importorskip("dask.array")
    X, y = DATA["iris"]
    est = LinearDiscriminant(covariance_estimator=OAS())
    with pytest.raises(ValueError, match="Dask collection .* use fit with the data in memory"):
        est.fit(da.from_array(X, chunks=50), da.from_array(y, chunks=50))


# ---------------------------------------------------------------------------- save and load
@pytest.mark.parametrize("model", [LinearDiscriminant, QuadraticDiscriminant])
def test_a_model_holding_an_estimator_saves_and_loads_without_pickle(model, tmp_path):
    X, y = DATA["wine"]
    est = model(covariance_estimator=OAS()).fit(X, y)
    path = tmp_path / "oas.model"
    bio.save(est, path)
    with np.load(path, allow_pickle=False) as npz:  # JSON and plain arrays, no pickle
        assert all(npz[name].dtype != object for name in npz.files)
        text = npz["__bayesrule__.json"].tobytes().decode()
    json.loads(text)
    assert '"sklearn.covariance.OAS"' in text
    back = bio.load(path)
    assert repr(back.covariance_estimator) == "OAS()"
    assert type(back.covariance_estimator) is OAS
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(back.covariances_, est.covariances_)
    refit = clone(back).fit(X, y)  # its parameters still fit
    np.testing.assert_array_equal(refit.predict_proba(X), est.predict_proba(X))


def test_wide_data_round_trip_keeps_the_covariance_the_rows_gave(tmp_path):
    """Fewer rows than features: the pooled ML covariance is singular, the estimates
    from rows are not. The statistics alone cannot re-derive them, so the family keeps
    them (``row_covariance_``) and a loaded model checks against them (a Ledoit-Wolf
    model on such data did not load before)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 20)), np.repeat([0, 1, 2], 4)
    for est in (
        LinearDiscriminant(covariance_estimator=OAS()),
        LinearDiscriminant(shrinkage="auto"),
        QuadraticDiscriminant(covariance_estimator=ShrunkCovariance()),
    ):
        est.fit(X, y)
        assert est.likelihood_.auto_regularisation_ is None
        bio.save(est, tmp_path / "wide.model")
        back = bio.load(tmp_path / "wide.model")
        np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
        np.testing.assert_array_equal(back.likelihood_.row_covariance_, est.covariances_)


def test_files_from_before_the_parameter_load_with_none():
    assert added_parameters(Gaussian)["covariance_estimator"] is None
    assert added_parameters(LinearDiscriminant)["covariance_estimator"] is None
    assert LinearDiscriminant().fit(*DATA["iris"]).likelihood_.row_covariance_ is None
