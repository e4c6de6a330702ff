"""Decisions over any posterior matrix: loss matrices, conditional risk, the Bayes action,
and the criteria beyond the minimum-risk rule (Neyman-Pearson, minimax, priors that change,
reject curves, and the Bayes decision on top of any probabilistic classifier).

The conditional risk of action ``a_i`` is ``R(a_i|x) = sum_j L[i, j] P(w_j|x)`` and the
Bayes rule takes the action of least risk. Zero-one loss is the fast path of the same
rule (the largest posterior); a reject row (Chow's rule) is one more action.

Examples
--------
Seed 003's fruit, posteriors at x = [170, 585] and its loss matrix:

>>> import numpy as np
>>> from bayesrule import LossMatrix
>>> from bayesrule.decision import bayes_action, conditional_risk
>>> posterior = np.array([[0.6459, 0.3526, 0.0015]])
>>> loss = LossMatrix([[0, 2, 3], [1, 0, 2], [1, 1, 0]])
>>> conditional_risk(posterior, loss).round(4)
array([[0.7097, 0.6489, 0.9985]])
>>> bayes_action(posterior, loss), bayes_action(posterior, LossMatrix.zero_one(3))
(array([1]), array([0]))
"""

from ._loss import (
    LossMatrix,
    as_loss_matrix,
    bayes_action,
    conditional_risk,
    reject_and_actions,
)
from .minimax import Minimax, minimax_priors
from .neyman_pearson import NeymanPearson
from .priors_shift import estimate_priors
from .reject import reject_curve
from .wrap import BayesDecision

__all__ = [
    "BayesDecision",
    "LossMatrix",
    "Minimax",
    "NeymanPearson",
    "as_loss_matrix",
    "bayes_action",
    "conditional_risk",
    "estimate_priors",
    "minimax_priors",
    "reject_and_actions",
    "reject_curve",
]
