"""Conjugate priors of Gaussian classes: predictive densities, evidence, MAP, defaults."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.integrate import dblquad
from scipy.special import gammaln
from scipy.stats import multivariate_normal, multivariate_t, t

from bayesrule.likelihoods import get_structure
from bayesrule.likelihoods.conjugate import NormalGamma, NormalInverseWishart, check_prior
from bayesrule.likelihoods.conjugate_evidence import (
    empirical_bayes,
    log_marginal_likelihood,
)
from bayesrule.likelihoods.conjugate_posterior import posterior
from bayesrule.priors import Dirichlet, check_class_alpha
from bayesrule.stats import class_moments, merge
from bayesrule.stats.moments import empty

STRUCTURES = ["full", "tied", "diag", "tied_diag", "spherical", "tied_spherical"]
FIELDS = [
    "map_means",
    "map_covariances",
    "predictive_location",
    "predictive_scale",
    "predictive_factor",
    "predictive_df",
    "log_evidence",
    "posterior_shrinkage",
]


def _data(seed=0, n=45, d=3, C=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, size=n)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 2.0 * y[:, None]
    return X, y


def _stats(X, y, structure, C=3, w=None):
    return class_moments(X, y, C, w, kind=get_structure(structure).stats_kind)


def _prior(structure, d=3):
    """A fixed, fully specified prior (the evidence's chain rule needs one)."""
    mean = np.linspace(-0.5, 1.0, d)
    if get_structure(structure).dense:
        A = np.arange(d * d, dtype=float).reshape(d, d) / (d * d)
        return NormalInverseWishart(mean, 0.7, d + 0.5, A @ A.T + 0.8 * np.eye(d))
    spherical = get_structure(structure).form == "spherical"
    return NormalGamma(mean, 0.7, 1.3, 0.9 if spherical else np.linspace(0.5, 1.5, d))


# ----------------------------------------------------------------- predictive densities
@pytest.mark.parametrize("structure", STRUCTURES)
def test_predictive_log_densities_equal_scipy(structure):
    X, y = _data()
    post = posterior(None, _stats(X, y, structure), structure)
    Xnew = np.random.default_rng(9).normal(size=(40, 3)) * 2
    got = post.log_predictive(Xnew)
    loc, scales, df = post.predictive_location, post.class_scales(), post.predictive_df
    want = []
    for c in range(3):
        if structure in ("full", "tied"):
            want.append(multivariate_t(loc[c], scales[c], df=df[c]).logpdf(Xnew))
        elif structure in ("spherical", "tied_spherical"):
            want.append(multivariate_t(loc[c], scales[c] * np.eye(3), df=df[c]).logpdf(Xnew))
        else:
            sd = np.sqrt(scales[c])
            want.append(sum(t(df[c], loc[c, j], sd[j]).logpdf(Xnew[:, j]) for j in range(3)))
    assert_allclose(got, np.array(want), rtol=1e-10)


def test_full_predictive_follows_the_stated_formula():
    X, y = _data()
    prior = _prior("full")
    post = posterior(prior, _stats(X, y, "full"), "full")
    n = np.bincount(y, minlength=3)
    kappa, nu = prior.shrinkage + n, prior.dof + n
    assert_allclose(post.predictive_df, nu - 3 + 1)
    want = post.posterior_scale * ((kappa + 1) / (kappa * (nu - 2)))[:, None, None]
    assert_allclose(post.predictive_scale, want, rtol=1e-14)


# ----------------------------------------------------------------- the evidence
@pytest.mark.parametrize("structure", STRUCTURES)
def test_evidence_is_the_product_of_one_step_predictive_densities(structure):
    """ln p(X) = sum_k ln p(x_k | x_1..x_{k-1}) (the chain rule, rows in any order)."""
    X, y = _data(seed=3, n=36)
    prior = _prior(structure)
    kind = get_structure(structure).stats_kind
    chain = 0.0
    for k in range(X.shape[0]):
        seen = _stats(X[:k], y[:k], structure) if k else empty(3, 3, kind)
        chain += posterior(prior, seen, structure).log_predictive(X[k : k + 1])[y[k], 0]
    per_class, total = log_marginal_likelihood(prior, _stats(X, y, structure), structure)
    assert_allclose(total, chain, rtol=1e-9)
    assert_allclose(per_class.sum(), total, rtol=1e-13)


@pytest.mark.parametrize("structure", ["full", "diag", "spherical"])
def test_untied_evidence_per_class_is_each_class_alone(structure):
    X, y = _data(seed=4)
    prior = _prior(structure)
    per_class, _ = log_marginal_likelihood(prior, _stats(X, y, structure), structure)
    for c in range(3):
        one = _stats(X[y == c], np.zeros((y == c).sum(), int), structure, C=1)
        assert_allclose(per_class[c], log_marginal_likelihood(prior, one, structure)[1])


@pytest.mark.parametrize("structure", ["full", "diag"])
def test_evidence_equals_numerical_integration_in_one_dimension(structure):
    x = np.array([0.3, 1.9, -0.4, 1.1])
    mu0, k0 = 0.5, 0.8
    a0, b0 = 1.5, 0.6  # NIW in d = 1: dof 2 a0, scale 2 b0
    if structure == "full":
        prior = NormalInverseWishart([mu0], k0, 2 * a0, [[2 * b0]])
    else:
        prior = NormalGamma([mu0], k0, a0, b0)
    stats = class_moments(x[:, None], np.zeros(4, int), 1, kind=get_structure(structure).stats_kind)
    _, closed = log_marginal_likelihood(prior, stats, structure)

    def log_joint(mu, log_var):  # ln[p(x | mu, s) p(mu | s) p(s)] ds/dlog s, s = e^t
        s = np.exp(log_var)
        log_prior_s = a0 * np.log(b0) - gammaln(a0) - (a0 + 1) * log_var - b0 / s
        log_prior_mu = -0.5 * np.log(2 * np.pi * s / k0) - k0 * (mu - mu0) ** 2 / (2 * s)
        log_lik = -0.5 * x.size * np.log(2 * np.pi * s) - ((x - mu) ** 2).sum() / (2 * s)
        return log_prior_s + log_prior_mu + log_lik + log_var - closed

    kappa = k0 + x.size
    centre = (k0 * mu0 + x.sum()) / kappa  # mu within 40 posterior sds of its mean

    def half(log_var):
        return 40.0 * np.sqrt(np.exp(log_var) / kappa)

    value, _ = dblquad(
        lambda mu, tv: np.exp(log_joint(mu, tv)),
        -20.0,
        15.0,
        lambda tv: centre - half(tv),
        lambda tv: centre + half(tv),
        epsabs=1e-14,
        epsrel=1e-13,
    )
    assert_allclose(np.log(value), 0.0, atol=1e-11)


def test_tied_evidence_splits_the_shared_part_by_counts():
    X, y = _data(seed=5)
    prior = _prior("tied")
    stats = _stats(X, y, "tied")
    per_class, total = log_marginal_likelihood(prior, stats, "tied")
    post = posterior(prior, stats, "tied")
    n, d = stats.count, 3
    own = 0.5 * d * np.log(prior.shrinkage / post.posterior_shrinkage) - 0.5 * d * np.log(np.pi) * n
    assert_allclose((per_class - own) / n, (total - own.sum()) / n.sum(), rtol=1e-12)


# ----------------------------------------------------------------- MAP against mclust
# Data exact in R and numpy: X[i, j] = ((i (j + 3) 7 + 5 j) mod 23) / 8, classes 7, 8, 9.
# Rscript -e 'library(mclust); i <- 0:23; X <- sapply(0:2, function(j) ((i * (j + 3) * 7
#   + 5 * j) %% 23) / 8); z <- unmap(rep(1:3, c(7, 8, 9))); p <- priorControl(shrinkage =
#   0.3, mean = c(1, 1.5, 1.2), dof = 6, scale = diag(3) * 0.5 + 0.1); options(digits = 17);
#   r <- mstep(X, "VVV", z, prior = p); print(r$parameters)'   (and "EEE"; "VVI" and "VII"
#   with scale = 0.7, printing t(apply(sigma, 3, diag)))
def _mclust_data():
    i, j = np.arange(24)[:, None], np.arange(3)[None, :]
    return ((i * (j + 3) * 7 + 5 * j) % 23) / 8, np.repeat([0, 1, 2], [7, 8, 9])


MCLUST_MEANS = np.array(
    [
        [1.6849315068493149, 1.2773972602739727, 1.2308219178082191],
        [1.3162650602409638, 1.4397590361445782, 1.1879518072289155],
        [0.99999999999999989, 1.32526881720430101, 1.62473118279569895],
    ]
)
MCLUST_VVV = np.array(
    [
        [
            [0.30994661563255427, 0.108118452860596279, 0.062074435938759040],
            [0.10811845286059628, 0.244714443996776693, -0.065803787268331956],
            [0.06207443593875904, -0.065803787268331956, 0.346761180499597033],
        ],
        [
            [0.442940512048192847, -0.049895414993306554, 0.118770917001338683],
            [-0.049895414993306554, 0.385826639892905165, 0.076748661311914351],
            [0.118770917001338683, 0.076748661311914351, 0.292016398929049403],
        ],
        [
            [0.22894736842105265, 0.11710526315789471, -0.04407894736842103],
            [0.11710526315789471, 0.36614141199773637, -0.12058220147142043],
            [-0.04407894736842103, -0.12058220147142043, 0.28854272778720980],
        ],
    ]
)
MCLUST_EEE = np.array(
    [
        [0.455333935628357889, 0.082358228576406067, 0.059878942138416692],
        [0.082358228576406067, 0.468380885943735503, -0.061895841886227057],
        [0.059878942138416692, -0.061895841886227057, 0.428709641032584077],
    ]
)
MCLUST_VVI = np.array(
    [
        [0.35793949771689498, 0.28400970319634700, 0.39966267123287669],
        [0.50455807605421688, 0.44030496987951800, 0.33476844879518075],
        [0.26176470588235295, 0.41509922517394049, 0.32837128399746990],
    ]
)
MCLUST_VII = np.array([0.45884445426425086, 0.56100305634301917, 0.42402699070037775])


@pytest.mark.parametrize(
    "structure, want",
    [("full", MCLUST_VVV), ("tied", MCLUST_EEE), ("diag", MCLUST_VVI), ("spherical", MCLUST_VII)],
)
def test_map_estimates_equal_mclust(structure, want):
    X, y = _mclust_data()
    mean = [1.0, 1.5, 1.2]
    if get_structure(structure).dense:
        prior = NormalInverseWishart(mean, 0.3, 6.0, np.eye(3) * 0.5 + 0.1)
    else:  # mclust's inverse gamma (dof / 2, scale / 2)
        prior = NormalGamma(mean, 0.3, 3.0, 0.35)
    post = posterior(prior, _stats(X, y, structure), structure)
    assert_allclose(post.map_means, MCLUST_MEANS, rtol=1e-10)
    assert_allclose(post.map_covariances, want, rtol=1e-10)


def test_default_prior_equals_mclust_default_prior():
    # Rscript -e 'library(mclust); i <- 0:23; X <- sapply(0:2, function(j) ((i * (j + 3)
    #   * 7 + 5 * j) %% 23) / 8); dput(defaultPrior(X, G = 1, modelName = "VVV"))'
    X, y = _mclust_data()
    prior = NormalInverseWishart().resolve(_stats(X, y, "full"), "full")
    assert_allclose(prior.mean, [1.31770833333333, 1.34375, 1.36979166666667], rtol=1e-14)
    assert prior.dof == 5.0 and prior.shrinkage == 0.01
    want = [
        [0.766276041666667, 0.12109375, 0.0384114583333333],
        [0.12109375, 0.7109375, -0.10546875],
        [0.0384114583333333, -0.10546875, 0.688151041666667],
    ]
    assert_allclose(prior.scale, want, rtol=1e-14)
    tied = NormalInverseWishart().resolve(_stats(X, y, "tied"), "tied")
    assert_allclose(tied.scale, prior.scale, rtol=1e-13)


def test_default_normal_gamma_prior():
    X, y = _data()
    var = X.var(axis=0, ddof=1)
    diag = NormalGamma().resolve(_stats(X, y, "diag"), "diag")
    assert diag.shape == 1.5 and diag.shrinkage == 0.01
    assert_allclose(diag.mean, X.mean(axis=0), rtol=1e-13)
    assert_allclose(diag.rate, var / 2, rtol=1e-12)
    spherical = NormalGamma().resolve(_stats(X, y, "full"), "spherical")
    assert spherical.rate.shape == () and np.isclose(spherical.rate, var.mean() / 2)


def test_default_scale_is_diagonal_when_the_covariance_is_singular():
    X = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 5.0], [3.0, 3.0, 1.0]])  # n = d
    prior = NormalInverseWishart().resolve(class_moments(X, np.zeros(3, int), 1), "full")
    assert_allclose(prior.scale, np.diag(X.var(axis=0, ddof=1)))


# ----------------------------------------------------------------- statistics
@pytest.mark.parametrize("structure", STRUCTURES)
def test_merged_halves_give_the_posterior_of_the_whole(structure):
    X, y = _data(seed=6, n=60)
    whole = posterior(None, _stats(X, y, structure), structure)
    halves = merge(_stats(X[:25], y[:25], structure), _stats(X[25:], y[25:], structure))
    merged = posterior(None, halves, structure)
    for field in FIELDS:
        assert_allclose(getattr(merged, field), getattr(whole, field), rtol=1e-11, err_msg=field)


@pytest.mark.parametrize("structure", ["full", "tied", "diag"])
def test_integer_weights_equal_duplicated_rows(structure):
    X, y = _data(seed=7, n=30)
    w = np.arange(30) % 3 + 1
    weighted = posterior(None, _stats(X, y, structure, w=w.astype(float)), structure)
    repeated = posterior(
        None, _stats(np.repeat(X, w, axis=0), np.repeat(y, w), structure), structure
    )
    for field in FIELDS:
        assert_allclose(getattr(weighted, field), getattr(repeated, field), rtol=1e-11)


@pytest.mark.parametrize(
    "tied, untied", [("tied", "full"), ("tied_diag", "diag"), ("tied_spherical", "spherical")]
)
def test_tied_structures_with_one_class_are_the_untied_ones(tied, untied):
    X, _ = _data(seed=8)
    y = np.zeros(X.shape[0], int)
    a = posterior(_prior(tied), _stats(X, y, tied, C=1), tied)
    b = posterior(_prior(untied), _stats(X, y, untied, C=1), untied)
    for field in FIELDS:
        got, want = getattr(a, field), getattr(b, field)
        if field == "predictive_scale":  # the tied scale is shared, times its factor
            got = got * a.predictive_factor[0]
        if field != "predictive_factor":
            assert_allclose(got, np.reshape(want, np.shape(got)), rtol=1e-12, err_msg=field)


def test_normal_gamma_in_one_dimension_is_normal_inverse_wishart():
    X, y = _data(seed=9, d=1)
    niw = posterior(NormalInverseWishart([0.2], 0.4, 3.0, [[1.6]]), _stats(X, y, "full"), "full")
    ng = posterior(NormalGamma([0.2], 0.4, 1.5, 0.8), _stats(X, y, "diag"), "diag")
    assert_allclose(niw.map_covariances[:, :, 0], ng.map_covariances, rtol=1e-13)
    assert_allclose(niw.predictive_scale[:, :, 0], ng.predictive_scale, rtol=1e-13)
    assert_allclose(niw.predictive_df, ng.predictive_df, rtol=1e-13)
    assert_allclose(niw.log_evidence, ng.log_evidence, rtol=1e-13)


@pytest.mark.parametrize(
    "structure, kinds",
    [
        ("tied", ["full", "tied"]),
        ("diag", ["full", "diag"]),
        ("spherical", ["full", "diag"]),
        ("tied_diag", ["full", "tied", "diag"]),
        ("tied_spherical", ["full", "tied", "diag"]),
    ],
)
def test_every_statistics_layout_a_structure_takes_gives_one_posterior(structure, kinds):
    X, y = _data(seed=10)
    prior = _prior(structure)
    first, *others = [posterior(prior, class_moments(X, y, 3, kind=k), structure) for k in kinds]
    for other in others:
        for field in FIELDS:
            assert_allclose(getattr(other, field), getattr(first, field), rtol=1e-12)


@pytest.mark.parametrize("structure", ["full", "tied", "diag"])
def test_with_overwhelming_data_the_predictive_is_the_ml_gaussian(structure):
    X, y = _data(seed=14)
    stats = _stats(X, y, structure, w=np.full(X.shape[0], 1e12))
    post = posterior(None, stats, structure)
    Xnew = np.random.default_rng(1).normal(size=(10, 3))
    ml = _stats(X, y, structure)
    covariance = get_structure(structure).full(get_structure(structure).estimate(ml), 3, 3)
    want = [multivariate_normal(ml.mean[c], covariance[c]).logpdf(Xnew) for c in range(3)]
    assert_allclose(post.log_predictive(Xnew), np.array(want), rtol=1e-9)


def test_class_without_data_keeps_the_prior():
    X, y = _data(seed=11)
    y[y == 2] = 0
    prior = _prior("full")
    post = posterior(prior, _stats(X, y, "full"), "full")
    assert_allclose(post.map_means[2], prior.mean)
    assert post.log_evidence[2] == 0.0
    assert_allclose(post.posterior_scale[2], prior.scale)


def test_missing_values_diag_is_each_feature_on_its_observed_rows():
    X, y = _data(seed=12, n=50)
    X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    prior = _prior("diag")
    post = posterior(prior, class_moments(X, y, 3, kind="diag"), "diag")
    assert post.predictive_df.shape == (3, 3)
    for j in range(3):
        rows = ~np.isnan(X[:, j])
        one = class_moments(X[rows, j : j + 1], y[rows], 3, kind="diag")
        sub = NormalGamma(prior.mean[j : j + 1], prior.shrinkage, prior.shape, prior.rate[j])
        alone = posterior(sub, one, "diag")
        assert_allclose(post.map_covariances[:, j], alone.map_covariances[:, 0], rtol=1e-12)
        assert_allclose(post.predictive_df[:, j], alone.predictive_df, rtol=1e-12)
    total = log_marginal_likelihood(prior, class_moments(X, y, 3, kind="diag"), "diag")[1]
    parts = sum(
        log_marginal_likelihood(
            NormalGamma(prior.mean[j : j + 1], 0.7, 1.3, prior.rate[j]),
            class_moments(X[~np.isnan(X[:, j]), j : j + 1], y[~np.isnan(X[:, j])], 3, kind="diag"),
            "diag",
        )[1]
        for j in range(3)
    )
    assert_allclose(total, parts, rtol=1e-12)


# ----------------------------------------------------------------- empirical Bayes
@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("fit_dof", [False, True])
def test_empirical_bayes_increases_the_evidence(structure, fit_dof):
    X, y = _data(seed=13, n=60)
    stats = _stats(X, y, structure)
    chosen = empirical_bayes(stats, structure, fit_dof=fit_dof)
    default = log_marginal_likelihood(None, stats, structure)[1]
    better = log_marginal_likelihood(chosen, stats, structure)[1]
    assert better > default + 1e-3
    # a local optimum: nudging a hyperparameter does not increase it further
    for field in ("shrinkage",):
        for step in (0.9, 1.1):
            nudged = type(chosen)(**{**chosen.__dict__, field: getattr(chosen, field) * step})
            assert log_marginal_likelihood(nudged, stats, structure)[1] <= better + 1e-6


# ----------------------------------------------------------------- Dirichlet
def test_dirichlet_class_prior():
    assert_allclose(Dirichlet(1.0).proportions([3, 0, 1]), [4 / 7, 1 / 7, 2 / 7])
    assert_allclose(Dirichlet((1.0, 2.0, 3.0)).proportions([3, 0, 1]), [4 / 10, 2 / 10, 4 / 10])
    assert_allclose(Dirichlet(1e-12).proportions([6, 2]), [0.75, 0.25])


@pytest.mark.parametrize(
    "alpha, error, match",
    [
        (0.0, ValueError, "finite and > 0"),
        (-1.0, ValueError, "finite and > 0"),
        (np.nan, ValueError, "finite and > 0"),
        ([1.0, 2.0], ValueError, r"one entry per class \(3\)"),
        ("one", TypeError, "alpha must be a number"),
        (True, TypeError, "alpha must be a number"),
    ],
)
def test_dirichlet_alpha_validation(alpha, error, match):
    with pytest.raises(error, match=match):
        check_class_alpha(alpha, 3)


# ----------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "prior, match",
    [
        (NormalInverseWishart(mean=[0.0, 1.0]), r"mean must have shape \(3,\), got shape \(2,\)"),
        (NormalInverseWishart(mean=[0.0, np.nan, 1.0]), "mean must be finite"),
        (NormalInverseWishart(scale=np.eye(2)), r"scale must have shape \(3, 3\), got shape"),
        (NormalInverseWishart(scale=np.diag([1.0, 1.0, np.inf])), "scale must be finite"),
        (NormalInverseWishart(scale=np.diag([1.0, 1.0, -1.0])), "scale must be positive definite"),
        (NormalInverseWishart(scale=np.triu(np.ones((3, 3)))), "scale must be symmetric"),
        (NormalInverseWishart(dof=2.0), r"degrees of freedom 2\.0 are at or below d - 1"),
        (NormalInverseWishart(dof=np.inf), "dof must be finite"),
        (NormalInverseWishart(shrinkage=0.0), r"shrinkage must be > 0, got 0\.0"),
        (NormalInverseWishart(shrinkage=-1.0), "shrinkage must be > 0"),
        (NormalInverseWishart(shrinkage=np.nan), "shrinkage must be finite"),
    ],
)
def test_normal_inverse_wishart_validation(prior, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        posterior(prior, _stats(X, y, "full"), "full")


@pytest.mark.parametrize(
    "prior, structure, match",
    [
        (NormalGamma(mean=[0.0]), "diag", r"mean must have shape \(3,\)"),
        (NormalGamma(shrinkage=0), "diag", "shrinkage must be > 0"),
        (NormalGamma(shape=0.0), "diag", "shape must be > 0"),
        (NormalGamma(shape=np.inf), "diag", "shape must be finite"),
        (NormalGamma(rate=-1.0), "diag", "rate must be finite and > 0"),
        (NormalGamma(rate=[1.0, np.nan, 1.0]), "diag", "rate must be finite"),
        (NormalGamma(rate=[1.0, 2.0]), "diag", r"rate must have shape \(3,\)"),
        (NormalGamma(rate=[1.0, 2.0, 3.0]), "spherical", "rate must be a scalar"),
    ],
)
def test_normal_gamma_validation(prior, structure, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        posterior(prior, _stats(X, y, structure), structure)


@pytest.mark.parametrize(
    "prior, structure, match",
    [
        (NormalGamma(), "full", "covariance='full' takes a NormalInverseWishart prior"),
        (NormalInverseWishart(), "diag", "covariance='diag' takes a NormalGamma prior"),
        ({"shrinkage": 1.0}, "full", "prior must be None, a NormalInverseWishart"),
        (NormalInverseWishart(shrinkage="1"), "full", "shrinkage must be a number"),
        (NormalGamma(rate="a"), "diag", "rate must be a number or an array"),
    ],
)
def test_wrong_types_raise_type_error(prior, structure, match):
    X, y = _data()
    with pytest.raises(TypeError, match=match):
        posterior(prior, _stats(X, y, structure), structure)


def test_statistics_that_do_not_fit_the_structure_are_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="covariance='full' needs 'full' statistics"):
        posterior(None, class_moments(X, y, 3, kind="tied"), "full")
    with pytest.raises(ValueError, match="full or tied statistics"):
        posterior(None, class_moments(X, y, 3, kind="diag"), "tied")
    with pytest.raises(ValueError, match="needs 'full' or 'diag' statistics"):
        posterior(_prior("spherical"), class_moments(X, y, 3, kind="tied"), "spherical")
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="fit covariance='diag' only"):
        posterior(_prior("tied_diag"), class_moments(X, y, 3, kind="diag"), "tied_diag")
    with pytest.raises(ValueError, match="covariance must be one of"):
        check_prior(None, "banana")


def test_defaults_need_data_and_a_varying_feature():
    with pytest.raises(ValueError, match="the statistics are empty"):
        posterior(None, empty(2, 3, "full"), "full")
    X, y = _data()
    X[:, 1] = 4.0
    with pytest.raises(ValueError, match="feature 1 is constant over all the data"):
        posterior(None, _stats(X, y, "full"), "full")
    with pytest.raises(ValueError, match="feature 1 is constant over all the data"):
        posterior(None, _stats(X, y, "diag"), "diag")
    # an explicit scale makes it proper
    assert np.isfinite(posterior(_prior("full"), _stats(X, y, "full"), "full").log_evidence).all()
