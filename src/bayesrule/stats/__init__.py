"""Mergeable sufficient statistics: values that add.

``moments`` (weighted counts, means and centred scatter per class, merged by Chan et
al.'s rule), ``soft_moments`` (the same under soft memberships: EM's M step), ``counts``
(per-class feature sums of the count families) and ``pair_counts`` (pairwise class-
conditional counts of semi-naive Bayes). Every family's ``fit``, ``partial_fit``, Dask
fit and M step turn such statistics into parameters.
"""

from .moments import ClassMoments, class_moments, merge

__all__ = ["ClassMoments", "class_moments", "merge"]
