"""The one preset mechanism: a named estimator is a :class:`BayesClassifier` whose
likelihood is built from its own parameters.

A preset names its family (``_family``), the family arguments it fixes (``_fixed``,
e.g. the covariance structure) and those of its own parameters the family takes
(``_options``); ``{common}`` in its docstring becomes the shared parameters' text.
"""

from __future__ import annotations

from .classifier import BayesClassifier

#: the parameters every preset shares, for its docstring
COMMON = """priors : None, "empirical", "uniform", array-like or dict, default=None
        As in :class:`~bayesrule.BayesClassifier`.
    loss : None, array-like or LossMatrix, default=None
        As in :class:`~bayesrule.BayesClassifier`.
    reject_label : label, default=None
        As in :class:`~bayesrule.BayesClassifier`."""


class Preset(BayesClassifier):
    """A BayesClassifier whose likelihood is
    ``_family(**_fixed, **{name: self.<name> for name in _options})``."""

    _family: type = None
    _fixed: dict = {}
    _options: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__ and "{common}" in cls.__doc__:
            cls.__doc__ = cls.__doc__.replace("{common}", COMMON)

    def _make_likelihood(self):
        options = {name: getattr(self, name) for name in self._options}
        return self._family(**self._fixed, **options)

    def _fitted_likelihood(self):
        self._ready()
        return self.likelihood_
