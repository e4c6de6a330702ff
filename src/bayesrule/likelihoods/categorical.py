"""(being written)"""

from .base import Likelihood


class Categorical(Likelihood):
    """(being written)"""

    def __init__(self, alpha=1.0, unseen="smooth"):
        self.alpha = alpha
        self.unseen = unseen
