"""Discrete-attribute families of semi-naive Bayes, and what they are built from.

``network`` (the base: conditional tables over discrete attributes, bins for continuous
columns), ``one_dependence`` (SPODE and AODE), ``learned`` (TAN and KDB, with learned
structure), ``structure`` (mutual information, Chow-Liu trees), ``cpt`` (conditional
probability tables), ``discretize`` (cut points) and ``values`` (encoding of values).
"""
