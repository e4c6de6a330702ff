"""(being written)"""

from .base import Likelihood


class Bernoulli(Likelihood):
    """(being written)"""

    def __init__(self, alpha=1.0, binarize=0.0):
        self.alpha = alpha
        self.binarize = binarize
