"""``GaussianBayes``: a Gaussian per class with any covariance structure, the structure
chosen by BIC among mclust's 14 by default (EDDA, Bensmail and Celeux 1996)."""

from __future__ import annotations

from .gaussian_parameters import _GaussianParameters
from .preset import Preset, fitted


class GaussianBayes(_GaussianParameters, Preset):
    """Gaussian classes ``N(mu_c, Sigma_c)`` whose covariances share a parametrisation.

    mclust's ``Sigma_c = lambda_c D_c A_c D_c^T`` (volume, shape, orientation; each equal
    across classes "E", varying "V", or the identity "I"): EII, VII, EEI, VEI, EVI, VVI,
    EEE, VEE, EVE, VVE, EEV, VEV, EVV, VVV. VVV is the quadratic discriminant, EEE the
    linear one, VVI Gaussian naive Bayes, EII the nearest mean. By default every one is
    fitted and the one of largest BIC is kept, mclust's ``MclustDA(modelType="EDDA")``;
    all 14 come from the same class moments, so ``partial_fit`` and Dask collections
    work as for one structure.

    Missing values (NaN) are taken under maximum likelihood: each structure is fitted by
    EM over the missing coordinates and scored by the BIC of the observed values (with
    "bic", every one of the 14; see :mod:`~bayesrule.likelihoods.gaussian_missing`), and
    a row is scored by the density of its observed coordinates. EM needs all the rows at
    once: ``partial_fit`` and Dask collections with NaN are refused.

    Parameters
    ----------
    covariance : str, default="bic"
        "bic" chooses among the 14 (``covariance_``, ``bic_``); or one of the 14 names, or
        bayesrule's "full", "tied", "diag", "spherical", "tied_diag", "tied_spherical".
    reg_covar : "auto" or float, default="auto"
        As in :class:`QuadraticDiscriminant`: "auto" regularises a singular covariance
        only; ``0`` refuses it.
    {bayes} Name a structure for them, not "bic".
    {common}

    Attributes
    ----------
    covariance_ : str
        The structure fitted (the choice with "bic").
    bic_ : dict or None
        With "bic": every model's BIC ``2 ln L - df ln n`` (larger is better; NaN where a
        model cannot be fitted).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bayesrule import GaussianBayes
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = GaussianBayes().fit(X, y)
    >>> clf.covariance_
    'VEV'
    >>> round(clf.score(X, y), 3)
    0.98
    """

    _parameters = {"covariance": "bic", "reg_covar": "auto", "estimate": "ml", "prior": None}

    covariance_ = fitted("The covariance structure fitted (with 'bic': the one chosen).")
    bic_ = fitted("With covariance='bic': each model's BIC (larger is better), else None.")
