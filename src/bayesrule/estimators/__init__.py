"""The estimator stage: :class:`BayesClassifier`, its named presets, and their registry.

:data:`ESTIMATORS` is the one list of bayesrule's estimators: the package's public names,
the classes model files may name (:mod:`bayesrule.io`), the ``bayesrule`` command's model
names and the data each accepts (read from the estimator's tags), and the contract tests
all come from it. Adding an estimator is one entry here.
"""

from dataclasses import dataclass

from .averaged import WAODE, AnDE
from .classifier import BayesClassifier
from .ensemble import ESKDB
from .gaussian import GaussianNB, LinearDiscriminant, NearestMean, QuadraticDiscriminant
from .gaussian_bayes import GaussianBayes
from .hidden import HNB
from .mixed import MixedNB
from .mixture import GaussianMixtureBayes
from .naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    KernelNB,
    MultinomialNB,
    PoissonNB,
)
from .network import KDB, TAN
from .one_dependence import AODE, SPODE
from .selective import SKDB
from .structure_search import StructureSearch


@dataclass(frozen=True)
class Entry:
    """An estimator of the registry.

    Attributes
    ----------
    cls : type
        The estimator class (a :class:`BayesClassifier`).
    cli_name : str or None
        Its name on the command line (``bayesrule fit --model NAME``); None: Python only.
    help : str
        One line for the command's list of models.
    discrete : bool, default=False
        It models every column as discrete values (whole numbers, text, booleans):
        continuous measurements are binned first or refused (the semi-naive models), or
        each value becomes a category of its own (CategoricalNB). The tags say which data
        an estimator accepts; this says which of them it models well (``bayesrule
        compare`` reads it).
    min_features : int, default=1
        The fewest columns it takes at its defaults (KDB with ``k=2``: 3).
    """

    cls: type
    cli_name: str | None
    help: str
    discrete: bool = False
    min_features: int = 1


#: every estimator, in the order the command lists them
ESTIMATORS = (
    Entry(BayesClassifier, None, "Bayes' rule over any likelihood object"),
    Entry(QuadraticDiscriminant, "qda", "a full Gaussian per class"),
    Entry(LinearDiscriminant, "lda", "Gaussians sharing one covariance"),
    Entry(GaussianNB, "gaussian-nb", "independent Gaussian features"),
    Entry(NearestMean, "nearest-mean", "shared spherical Gaussian"),
    Entry(GaussianBayes, "gaussian", "a Gaussian per class, structure by BIC (EDDA)"),
    Entry(GaussianMixtureBayes, "mixture", "a Gaussian mixture per class (EM)"),
    Entry(KernelNB, "kernel-nb", "kernel density per feature"),
    Entry(BernoulliNB, "bernoulli-nb", "yes/no features, words present"),
    Entry(MultinomialNB, "multinomial-nb", "word counts"),
    Entry(ComplementNB, "complement-nb", "complement word counts"),
    Entry(PoissonNB, "poisson-nb", "Poisson counts per feature"),
    Entry(CategoricalNB, "categorical-nb", "discrete values of any kind", discrete=True),
    Entry(MixedNB, "mixed-nb", "a family per column, any kinds"),
    Entry(AODE, "aode", "averaged one-dependence estimators", discrete=True),
    Entry(AnDE, "ande", "averaged n-dependence estimators (A2DE)", discrete=True, min_features=2),
    Entry(WAODE, "waode", "AODE weighted by mutual information", discrete=True),
    Entry(TAN, "tan", "tree-augmented naive Bayes", discrete=True),
    Entry(KDB, "kdb", "k-dependence Bayes (k=2)", discrete=True, min_features=3),
    Entry(SPODE, "spode", "one super-parent for every attribute", discrete=True),
    Entry(SKDB, "skdb", "selective KDB: attributes and k by leave-one-out", discrete=True),
    Entry(ESKDB, "eskdb", "ensemble of selective KDBs on random bins", discrete=True),
    Entry(HNB, "hnb", "hidden naive Bayes (Weka's HNB)", discrete=True),
    Entry(StructureSearch, "search", "network structure by cross-validated search", discrete=True),
)

__all__ = ["ESTIMATORS", "Entry", *(entry.cls.__name__ for entry in ESTIMATORS)]
