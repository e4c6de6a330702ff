"""(being written)"""

from .base import Likelihood


class Multinomial(Likelihood):
    """(being written)"""

    def __init__(self, alpha=1.0):
        self.alpha = alpha


class Complement(Likelihood):
    """(being written)"""

    def __init__(self, alpha=1.0, norm=False):
        self.alpha = alpha
        self.norm = norm
