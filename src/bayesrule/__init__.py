"""bayesrule: Bayesian classification, from class-conditional densities to Bayes decisions.

    posterior = likelihood x prior / evidence  ->  decision of minimum risk

Estimators follow scikit-learn's conventions; see ``DESIGN.md`` for the contract.

The public names are imported on first use (:func:`__getattr__`), so that
``import bayesrule`` and the command's ``bayesrule --version`` start without loading
scikit-learn; ``from bayesrule import GaussianNB`` works as usual.
"""

import importlib as _importlib
import sys as _sys
import types as _types

__version__ = "0.1.0"

#: public names besides the estimators -> the submodule that defines them
_DEFINED_IN = {
    "BayesDecision": ".decision",
    "Calibrated": ".decision",
    "ConformalSet": ".decision",
    "SelectiveClassifier": ".decision",
    "OutlierReject": ".decision",
    "LossMatrix": ".decision",
    "Minimax": ".decision",
    "NeymanPearson": ".decision",
    "Dirichlet": ".priors",
    "NormalInverseWishart": ".likelihoods.conjugate",
    "NormalGamma": ".likelihoods.conjugate",
    "bayes": ".posterior",
    "report": ".report",
}
#: submodules that pull in optional extras (imported on first use, not by ``import *``)
_EXTRAS = ("plot", "io", "datasets")


def _estimator_names() -> list[str]:
    from .estimators import ESTIMATORS  # the one list of estimators

    return [entry.cls.__name__ for entry in ESTIMATORS]


def __getattr__(name):
    """The public names, imported on first use (PEP 562)."""
    if name in _EXTRAS:
        return _importlib.import_module(f".{name}", __name__)
    if name in _DEFINED_IN:
        value = getattr(_importlib.import_module(_DEFINED_IN[name], __name__), name)
    elif name == "__all__":
        value = [*_estimator_names(), *_DEFINED_IN, "__version__"]
    elif not name.startswith("_") and name in _estimator_names():
        value = getattr(_importlib.import_module(".estimators", __name__), name)
    else:
        raise AttributeError(f"module 'bayesrule' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_DEFINED_IN, *_EXTRAS, *_estimator_names()})


class _Package(_types.ModuleType):
    """The package module. ``bayesrule.report`` is the function :func:`report`, also
    after ``import bayesrule.report`` (the submodule, which the import system would
    otherwise set as the package's attribute ``report``); ``from bayesrule.report import
    Report`` reads the submodule itself."""

    def __setattr__(self, name, value):
        if name == "report" and isinstance(value, _types.ModuleType):
            value = value.report
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
