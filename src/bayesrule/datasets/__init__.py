"""Example data sets of the source documents, with their true parameters.

Each generator draws from a known model, so the parameters a classifier estimates
can be checked against the truth that produced the data: ``fruit`` (seed 003's
three Gaussian classes) and ``two_modes`` (seed 000's Gaussian mixture example). The
small tables of the naive Bayes examples (``exam``, ``sports``, ``hiking``) come with
the one sample the source document classifies (``query``; pass ``[data.query]`` to
``predict``) and its answer in ``DESCR``. ``dependent_pairs`` draws discrete attribute
pairs that depend on each other given the class (exact naive Bayes at ``strength=0``),
with the true ``log_joint``, for testing semi-naive Bayes.
"""

from ._dependent import dependent_pairs
from ._fruit import (
    FRUIT_CLASSES,
    FRUIT_COVARIANCES,
    FRUIT_FEATURES,
    FRUIT_MEANS,
    FRUIT_PRIORS,
    fruit,
)
from ._tables import exam, hiking, sports
from ._two_modes import two_modes

__all__ = [
    "FRUIT_CLASSES",
    "FRUIT_COVARIANCES",
    "FRUIT_FEATURES",
    "FRUIT_MEANS",
    "FRUIT_PRIORS",
    "dependent_pairs",
    "exam",
    "fruit",
    "hiking",
    "sports",
    "two_modes",
]
