"""Class-conditional densities p(x|w): one module per family.

Every likelihood object fits from data and class indices, keeps additive statistics in
``stats_``, and evaluates ``log_likelihood(X) -> (n, C)``.
"""

from .bernoulli import Bernoulli
from .categorical import Categorical
from .covariance import STRUCTURES, Structure, get_structure
from .gaussian import Gaussian
from .kernel import Kernel
from .mixture import Mixture
from .multinomial import Complement, Multinomial
from .poisson import Poisson

__all__ = [
    "Bernoulli",
    "Categorical",
    "Complement",
    "Gaussian",
    "Kernel",
    "Mixture",
    "Multinomial",
    "Poisson",
    "STRUCTURES",
    "Structure",
    "get_structure",
]
