"""The one preset mechanism: a named estimator is a :class:`BayesClassifier` whose
likelihood is built from its own parameters.

A preset declares its family (``_family``), the family arguments it fixes (``_fixed``,
e.g. the covariance structure) and its own parameters with their defaults
(``_parameters``), which the family takes under the same names. Its ``__init__`` is made
from that table and the decision parameters every preset shares (``priors``, ``loss``,
``reject_label``): keyword-only (those named in ``_positional`` also by position),
stored as given (scikit-learn's convention), with the signature ``get_params`` and
``help`` read. A class that writes its own ``__init__`` keeps it, and so do its
subclasses. ``{common}`` in its docstring becomes the
shared parameters' text.
"""

from __future__ import annotations

from .._signatures import storing_init
from .classifier import BayesClassifier

#: the decision parameters every preset takes, with their defaults
DECISION = {"priors": None, "loss": None, "reject_label": None}

#: the parameters every preset shares, for its docstring
COMMON = """priors : None, "empirical", "uniform", array-like or dict, default=None
        As in :class:`~bayesrule.BayesClassifier`.
    loss : None, array-like or LossMatrix, default=None
        As in :class:`~bayesrule.BayesClassifier`.
    reject_label : label, default=None
        As in :class:`~bayesrule.BayesClassifier`."""


class Preset(BayesClassifier):
    """A BayesClassifier whose likelihood is
    ``_family(**_fixed, **{name: self.<name> for name in _parameters})``."""

    _family: type = None
    _fixed: dict = {}
    _parameters: dict = {}
    _positional: tuple[str, ...] = ()  # parameters that may also be passed by position
    #: decision parameters whose default differs from :data:`DECISION` for this preset
    _decision_defaults: dict = {}
    #: ``{name}`` in a preset's docstring -> the text put there
    _doc_parts: dict = {"common": COMMON}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, text in cls._doc_parts.items():
            if cls.__doc__ and f"{{{name}}}" in cls.__doc__:
                cls.__doc__ = cls.__doc__.replace(f"{{{name}}}", text)
        # a class that writes its own __init__ keeps it, and so do its subclasses
        if getattr(cls.__init__, "declared", False) or cls.__init__ is BayesClassifier.__init__:
            cls.__init__ = storing_init(
                cls.__name__,
                {**cls._parameters, **DECISION, **cls._decision_defaults},
                positional=cls._positional,
            )

    def _family_options(self) -> dict:
        """The family's arguments from this preset's parameters."""
        return {name: getattr(self, name) for name in self._parameters}

    def _make_likelihood(self):
        return self._family(**self._fixed, **self._family_options())

    def _fitted_likelihood(self):
        self._ready()
        return self.likelihood_


class fitted:
    """A read-only fitted attribute that is the fitted likelihood's attribute of the same
    name (``NotFittedError`` before ``fit``); ``doc`` is its docstring."""

    def __init__(self, doc: str):
        self.__doc__ = doc

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return getattr(instance._fitted_likelihood(), self.name)

    def __set__(self, instance, value):
        raise AttributeError(f"{self.name} is fitted, not set: it comes from the likelihood")
