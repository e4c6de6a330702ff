"""Discrete-attribute families of semi-naive Bayes, and what they are built from.

``network`` (the base: conditional tables over discrete attributes, bins for continuous
columns), ``one_dependence`` (SPODE and AODE), ``learned`` (TAN and KDB, with learned
structure), ``selective`` and ``selective_loo`` (selective KDB: the candidates scored by
leave-one-out), ``ensemble`` and ``random_cuts`` (ESKDB: selective KDBs on random bins
and orders), ``structure`` (mutual information, Chow-Liu trees), ``cpt`` (conditional
probability tables) and ``discretize`` (cut points); the values of discrete columns are
encoded by :mod:`bayesrule.stats.values`.
"""
