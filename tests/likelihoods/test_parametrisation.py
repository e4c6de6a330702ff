"""mclust's 14 covariance parametrisations: M-steps against R's mclust 6.0.0 (reference
numbers and how they were computed: tests/mclust_reference.py), fixed points, parameter
counts, the Gaussian structures built on them, and bad input."""

import numpy as np
import pytest
from mclust_reference import (
    DATASETS,
    MCLUST,
    N_VAR_PARAMS,
    PARAMETER_SIZES,
    data,
    moments,
)
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from bayesrule.likelihoods import Gaussian, get_structure
from bayesrule.likelihoods.base import Undetermined
from bayesrule.likelihoods.parametrisation import (
    MODELS,
    covariances,
    n_covariance_parameters,
    variances,
)

#: nVarParams(m, 4, 3) in R, m in mclust.options("emModelNames")
IRIS_N_VAR_PARAMS = dict(
    zip(MODELS, (1, 3, 4, 6, 10, 12, 10, 12, 16, 18, 22, 24, 28, 30), strict=True)
)

ITERATIVE = ("VEI", "VEE", "EVE", "VVE", "VEV")
CLOSED = tuple(m for m in MODELS if m not in ITERATIVE)


def fitted(name, model):
    X, y = data(name)
    return Gaussian(covariance=model, reg_covar=0).fit(X, y, n_classes=3)


def log_likelihoods(name, model):
    """(classification, mixture) log-likelihoods of the fitted Gaussians, and df."""
    X, y = data(name)
    L = fitted(name, model).log_likelihood(X)
    proportions = np.bincount(y) / len(y)
    df = 3 * X.shape[1] + n_covariance_parameters(model, 3, X.shape[1])
    return L[np.arange(len(y)), y].sum(), logsumexp(L + np.log(proportions), axis=1).sum(), df


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("model", MODELS)
def test_the_log_likelihood_of_each_class_under_its_own_density_is_mclusts(name, model):
    ours = log_likelihoods(name, model)[0]
    theirs = MCLUST[name][model][2]
    if model == "VVE":  # mclust's is not the ML (see the test below): ours is higher
        assert ours > theirs + 0.1
        return
    rtol = 1e-10 if model in CLOSED else 1e-6
    assert ours == pytest.approx(theirs, rel=rtol, abs=0)


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("model", [m for m in MODELS if m != "VVE"])
def test_mclusts_edda_log_likelihood_and_bic_are_reproduced(name, model):
    classification, mixture, df = log_likelihoods(name, model)
    X, _ = data(name)
    bic = 2 * mixture - df * np.log(len(X))
    ref_mixture, ref_bic, ref_classification = MCLUST[name][model]
    # the mixture likelihood is not stationary at the ML estimate, so it carries the
    # error of an unconverged M-step at first order: mclust's EVE M-step stops (at its
    # tol = sqrt(eps) on the parameters) some 2e-5 below the optimum that ours reaches
    rtol = 1e-10 if model in CLOSED else 1e-5 if model == "EVE" else 1e-6
    assert mixture == pytest.approx(ref_mixture, rel=rtol, abs=0)
    assert bic == pytest.approx(ref_bic, rel=rtol, abs=0)
    if model == "EVE":  # and ours is the better maximum
        assert classification >= ref_classification


@pytest.mark.parametrize("name", DATASETS)
def test_mclusts_vve_is_eves_orientation_and_shapes_with_varying_volumes(name):
    """mclust 6.0.0's VVE returns exactly the orientation and shapes of its EVE fit (R:
    ``mstep("VVE", ...)$parameters$variance$orientation`` equals EVE's), with each group's
    volume re-estimated: not the VVE maximum, which ours finds (higher likelihood,
    above); built so from our EVE, it reproduces mclust's numbers."""
    counts, means, W = moments(name)
    X, y = data(name)
    eve = covariances("EVE", counts, W)
    _, D = np.linalg.eigh(eve[0])
    rotated = np.einsum("ji,kjl,li->ki", D, W, D)
    volumes = np.exp(np.log(rotated).mean(axis=1)) / counts  # gm(diag(D^T W_k D)) / n_k
    shapes = rotated / np.exp(np.log(rotated).mean(axis=1))[:, None]
    sigma = np.einsum("jl,kl,il->kji", D, volumes[:, None] * shapes, D)
    L = np.column_stack([multivariate_normal(means[k], sigma[k]).logpdf(X) for k in range(3)])
    assert L[np.arange(len(y)), y].sum() == pytest.approx(MCLUST[name]["VVE"][2], rel=1e-4)
    # ours: one orientation (the covariances commute), a higher maximum
    ours = covariances("VVE", counts, W)
    assert np.allclose(ours[0] @ ours[1], ours[1] @ ours[0], atol=1e-10)
    mine = sum(multivariate_normal(means[k], ours[k]).logpdf(X[y == k]).sum() for k in range(3))
    assert mine > L[np.arange(len(y)), y].sum() + 0.1


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("model", MODELS)
def test_the_m_step_is_idempotent(name, model):
    """Scatters that the model fits exactly (``W_k = n_k Sigma_k`` with Sigma from the
    model) give back the same covariances: the ML estimate within the model is a fixed
    point of its M-step, iterative ones included."""
    counts, _, W = moments(name)
    sigma = covariances(model, counts, W)
    again = covariances(model, counts, counts[:, None, None] * sigma)
    assert _correlation_units(again, sigma) < (1e-10 if model in CLOSED else 1e-6)


def _correlation_units(a, b):
    """The largest difference of covariances (G, d, d), in units of ``b``'s standard
    deviations (``(a - b)_jl / (s_j s_l)``): a scale-free comparison."""
    sd = np.sqrt(np.einsum("kjj->kj", b))
    return np.abs((a - b) / (sd[:, :, None] * sd[:, None, :])).max()


def _relative(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("name", DATASETS)
def test_the_iterative_estimates_satisfy_their_stationarity_equations(name):
    counts, _, W = moments(name)
    d = W.shape[-1]
    w = np.einsum("kjj->kj", W)
    # VEI: lambda_k = tr(W_k A^-1) / (d n_k), A proportional to sum_k diag(W_k) / lambda_k
    var = variances("VEI", counts, w, tol=1e-14)
    scale = np.exp(np.log(var).mean(axis=1))
    shape = var[0] / scale[0]
    assert _relative(var / scale[:, None], np.broadcast_to(shape, var.shape)) < 1e-12
    assert _relative(scale, (w / shape).sum(axis=1) / (d * counts)) < 1e-10
    pooled = (w / scale[:, None]).sum(axis=0)
    assert _relative(shape, pooled / np.exp(np.log(pooled).mean())) < 1e-10
    # VEE: lambda_k = tr(W_k C^-1) / (d n_k), C proportional to sum_k W_k / lambda_k
    sigma = covariances("VEE", counts, W, tol=1e-14)
    scale = np.linalg.det(sigma) ** (1 / d)
    C = sigma[0] / scale[0]
    assert _relative(sigma / scale[:, None, None], np.broadcast_to(C, sigma.shape)) < 1e-12
    traces = np.trace(np.linalg.solve(C, W), axis1=1, axis2=2)
    assert _relative(scale, traces / (d * counts)) < 1e-10
    S = np.einsum("k,kjl->jl", 1 / scale, W)
    assert _relative(C, S / np.linalg.det(S) ** (1 / d)) < 1e-10
    # VEV: each Sigma_k has W_k's eigenvectors, one shape (eigenvalue ratios)
    sigma = covariances("VEV", counts, W, tol=1e-14)
    values, vectors = np.linalg.eigh(W)
    projected = np.einsum("kji,kjl,kli->ki", vectors, sigma, vectors)
    rebuilt = np.einsum("kji,ki,kli->kjl", vectors, projected, vectors)
    assert _relative(rebuilt, sigma) < 1e-10
    ratios = projected / projected[:, -1:]
    assert _relative(ratios, np.broadcast_to(ratios[0], ratios.shape)) < 1e-10


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("model", ["EVE", "VVE"])
def test_a_common_orientation_is_a_stationary_point(name, model):
    """``f(D) = sum_k tr(W_k D M_k D^T)`` (M_k the inverse variances along D) is
    stationary over orthogonal D: ``D^T grad f = D^T sum_k W_k D M_k`` is symmetric."""
    counts, _, W = moments(name)
    sigma = covariances(model, counts, W, tol=1e-12)
    _, D = np.linalg.eigh(sigma[0])
    variances_ = np.einsum("ji,kjl,li->ki", D, sigma, D)
    assert _relative(np.einsum("jl,kl,il->kji", D, variances_, D), sigma) < 1e-10
    G = D.T @ np.einsum("kji,il,kl->jl", W, D, 1 / variances_)
    assert np.abs(G - G.T).max() < 1e-8 * np.abs(G).max()
    # and the volumes and shapes are the closed forms given D
    rotated = np.einsum("ji,kjl,li->ki", D, W, D)
    if model == "VVE":
        expected = rotated / counts[:, None]
    else:
        gm = np.exp(np.log(rotated).mean(axis=1))
        expected = rotated * (gm.sum() / counts.sum() / gm)[:, None]
    assert _relative(variances_, expected) < 1e-8


def test_the_parameter_counts_are_mclusts_nvarparams():
    for model in MODELS:
        ours = tuple(n_covariance_parameters(model, G, d) for d, G in PARAMETER_SIZES)
        assert ours == N_VAR_PARAMS[model], model


@pytest.mark.parametrize("model", MODELS)
def test_a_gaussian_of_each_model_matches_scipy_and_counts_its_parameters(model):
    X, y = data("iris")
    g = Gaussian(covariance=model).fit(X, y, n_classes=3)
    sigma = g.full_covariances()
    expected = np.column_stack(
        [multivariate_normal(g.means_[k], sigma[k]).logpdf(X) for k in range(3)]
    )
    np.testing.assert_allclose(g.log_likelihood(X), expected, rtol=1e-10)
    counts, _, W = moments("iris")
    tol = 1e-12 if model in CLOSED else 1e-6
    assert _correlation_units(sigma, covariances(model, counts, W)) < tol
    # nVarParams(m, d = 4, G = 3) from R, plus the 12 means
    assert g.n_parameters() == 12 + IRIS_N_VAR_PARAMS[model]
    assert g.covariance_ == model


def test_mclust_names_of_the_six_structures_are_the_same_structures():
    X, y = data("wine")
    pairs = {"EII": "tied_spherical", "VII": "spherical", "EEI": "tied_diag"}
    pairs |= {"VVI": "diag", "EEE": "tied", "VVV": "full"}
    for mclust_name, ours in pairs.items():
        assert get_structure(mclust_name) is get_structure(ours)
        a = Gaussian(covariance=mclust_name).fit(X, y, n_classes=3)
        b = Gaussian(covariance=ours).fit(X, y, n_classes=3)
        assert a.covariances_.shape == b.covariances_.shape
        np.testing.assert_array_equal(a.covariances_, b.covariances_)
    assert Gaussian("EEE").fit(X, y, n_classes=3).covariances_.shape == (13, 13)
    assert get_structure("VEI").native_shape(3, 13) == (3, 13)
    assert get_structure("EVV").native_shape(3, 13) == (3, 13, 13)


def test_draws_of_a_new_structure_have_its_moments():
    X, y = data("iris")
    g = Gaussian(covariance="EVE").fit(X, y, n_classes=3)
    draws = g.sample([20000, 1, 1], np.random.default_rng(0))[:20000]
    np.testing.assert_allclose(draws.mean(axis=0), g.means_[0], atol=0.01)
    np.testing.assert_allclose(np.cov(draws.T), g.covariances_[0], atol=0.005)


def test_the_m_step_takes_weights_that_are_not_integers():
    counts, _, W = moments("iris")
    # doubling every weight and scatter changes no covariance
    for model in MODELS:
        sigma = covariances(model, counts, W)
        tol = 1e-12 if model in CLOSED else 1e-6
        assert _correlation_units(covariances(model, 2 * counts, 2 * W), sigma) < tol
        assert _correlation_units(covariances(model, counts / 2.5, W / 2.5), sigma) < tol


# ----------------------------------------------------------------- bad input
def test_unknown_names_are_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"got 'VVX'") as info:
        get_structure("VVX")
    for name in (*MODELS, "full", "tied_spherical"):
        assert repr(name) in str(info.value)
    with pytest.raises(ValueError, match=r"or 'bic'"):
        Gaussian(covariance="VVX").fit(np.eye(3), np.array([0, 1, 1]), n_classes=2)
    with pytest.raises(ValueError, match="model must be one of mclust's"):
        covariances("full", np.ones(2), np.ones((2, 3, 3)))


def test_shapes_and_values_are_checked():
    with pytest.raises(ValueError, match=r"needs full scatter matrices"):
        covariances("VEV", np.ones(2), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"counts must have shape \(G,\)"):
        covariances("EEE", np.ones(3), np.ones((2, 3, 3)))
    with pytest.raises(ValueError, match="finite"):
        covariances("EEE", np.ones(2), np.full((2, 3, 3), np.nan))
    with pytest.raises(Undetermined, match="the weight n_k of group 1"):
        covariances("VII", np.array([1.0, 0.0]), np.ones((2, 3)))
    # an equal-volume model does not divide by a group's weight
    assert covariances("EII", np.array([2.0, 0.0]), np.array([[2.0, 4.0], [0.0, 0.0]]))[
        1, 0, 0
    ] == pytest.approx(1.5)


def test_a_singular_group_leaves_a_normalised_model_undetermined():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    y = np.repeat([0, 1], 15)
    y[:3] = 2  # class 2: three rows in four dimensions
    W = np.array([np.cov(X[y == k].T, bias=True) * (y == k).sum() for k in range(3)])
    counts = np.bincount(y).astype(float)
    with pytest.raises(Undetermined, match=r"model 'EVV'.*group 2.*'EEE'.*estimate='map'"):
        covariances("EVV", counts, W)
    assert np.linalg.matrix_rank(covariances("VVV", counts, W)[2]) == 2  # singular
    assert np.isfinite(covariances("VEV", counts, W)).all()  # one shape for all


def test_too_few_rows_for_a_full_covariance_suggest_map_or_a_simpler_structure():
    X, y = data("iris")
    keep = np.flatnonzero((y != 2) | (np.arange(len(y)) < 103))  # class 2: 3 rows
    with pytest.raises(ValueError, match=r"(?s)singular \(it has 3 samples.*estimate='map'.*'EEE'"):
        Gaussian(covariance="VVV", reg_covar=0).fit(X[keep], y[keep], n_classes=3)
    with pytest.raises(ValueError, match=r"(?s)estimate='map'.*'VVI'"):
        Gaussian(covariance="full", reg_covar=0).fit(X[keep], y[keep], n_classes=3)
    # the default reg_covar='auto' still regularises it
    g = Gaussian(covariance="full").fit(X[keep], y[keep], n_classes=3)
    assert g.auto_regularisation_ is not None and g.auto_regularisation_[2].max() > 0
    assert g.auto_regularisation_[:2].max() == 0
    # the others can still be fitted by ML (one shared covariance)
    assert Gaussian(covariance="EEE", reg_covar=0).fit(X[keep], y[keep], n_classes=3).stats_


def test_shrinkage_and_pooling_are_for_full_and_tied_only():
    X, y = data("iris")
    for kwargs in ({"pooling": 0.5}, {"shrinkage": 0.1}):
        with pytest.raises(ValueError, match="apply to the 'full' and 'tied'"):
            Gaussian(covariance="VEV", **kwargs).fit(X, y, n_classes=3)
    np.testing.assert_allclose(
        Gaussian(covariance="VVV", pooling=1.0).fit(X, y, n_classes=3).covariances_[0],
        Gaussian(covariance="tied").fit(X, y, n_classes=3).covariances_,
    )
