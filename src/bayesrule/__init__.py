"""bayesrule: Bayesian classification, from class-conditional densities to Bayes decisions.

    posterior = likelihood x prior / evidence  ->  decision of minimum risk

Estimators follow scikit-learn's conventions; see ``DESIGN.md`` for the contract.
"""

from .classifier import BayesClassifier
from .decision import BayesDecision, LossMatrix, Minimax, NeymanPearson
from .estimators import GaussianNB, LinearDiscriminant, NearestMean, QuadraticDiscriminant
from .mixed import MixedNB
from .mixture_bayes import GaussianMixtureBayes
from .naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, KernelNB, MultinomialNB
from .network_bayes import KDB, TAN
from .posterior import bayes
from .report import report
from .seminaive import AODE, SPODE

__version__ = "0.1.0"

__all__ = [
    "AODE",
    "BayesClassifier",
    "BayesDecision",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianMixtureBayes",
    "GaussianNB",
    "KDB",
    "KernelNB",
    "LinearDiscriminant",
    "LossMatrix",
    "Minimax",
    "MixedNB",
    "MultinomialNB",
    "NeymanPearson",
    "NearestMean",
    "QuadraticDiscriminant",
    "SPODE",
    "TAN",
    "bayes",
    "report",
    "__version__",
]


def __getattr__(name):
    # submodules that pull in optional extras are imported on first use
    if name in ("plot", "io", "datasets"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'bayesrule' has no attribute {name!r}")
