"""Gaussian mixture class-conditional densities, fitted by EM.

``family`` (the :class:`Mixture` likelihood), ``model`` (one fitted mixture density),
``em`` (EM in memory) and ``em_blocks`` (EM over the row blocks of a Dask collection).
"""

from .family import MIXTURE, Mixture
from .model import MixtureModel

__all__ = ["MIXTURE", "Mixture", "MixtureModel"]
