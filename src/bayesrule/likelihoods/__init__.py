"""Class-conditional densities p(x|w): one module per family.

Every likelihood object fits from data and class indices, keeps additive statistics in
``stats_``, and evaluates ``log_likelihood(X) -> (n, C)``.
"""

from .covariance import STRUCTURES, Structure, get_structure
from .gaussian import Gaussian

__all__ = ["Gaussian", "STRUCTURES", "Structure", "get_structure"]
