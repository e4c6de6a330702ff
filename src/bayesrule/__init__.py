"""bayesrule: Bayesian classification, from class-conditional densities to Bayes decisions.

    posterior = likelihood x prior / evidence  ->  decision of minimum risk

Estimators follow scikit-learn's conventions; see ``DESIGN.md`` for the contract.
"""

from .decision import BayesDecision, LossMatrix, Minimax, NeymanPearson
from .estimators import *  # noqa: F403 (every estimator of the registry)
from .estimators import ESTIMATORS
from .posterior import bayes
from .report import report

__version__ = "0.1.0"

__all__ = [
    *(entry.cls.__name__ for entry in ESTIMATORS),
    "BayesDecision",
    "LossMatrix",
    "Minimax",
    "NeymanPearson",
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
