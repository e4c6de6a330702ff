"""(being written)"""

from .base import Likelihood


class Kernel(Likelihood):
    """(being written)"""

    def __init__(self, bandwidth="scott"):
        self.bandwidth = bandwidth
