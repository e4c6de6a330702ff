"""Every estimator, with the settings the contract tests run it under."""

from bayesrule import (
    BayesClassifier,
    GaussianNB,
    LinearDiscriminant,
    NearestMean,
    QuadraticDiscriminant,
)
from bayesrule.likelihoods import Gaussian

ESTIMATORS = {
    "GaussianNB": lambda: GaussianNB(),
    "QuadraticDiscriminant": lambda: QuadraticDiscriminant(reg_covar=1e-6),
    "LinearDiscriminant": lambda: LinearDiscriminant(reg_covar=1e-9),
    "LinearDiscriminant-shrunk": lambda: LinearDiscriminant(shrinkage=0.3),
    "NearestMean": lambda: NearestMean(),
    "BayesClassifier-spherical": lambda: BayesClassifier(Gaussian("spherical", reg_covar=1e-9)),
}
