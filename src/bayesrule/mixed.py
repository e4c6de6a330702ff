"""(being written)"""

from .classifier import BayesClassifier


class MixedNB(BayesClassifier):
    """(being written)"""

    def __init__(self, *, features="auto", priors=None, loss=None, reject_label=None):
        self.features = features
        self.priors = priors
        self.loss = loss
        self.reject_label = reject_label
