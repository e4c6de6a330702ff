"""
Why did the model decide that?
==============================

A Bayes classifier decides by the log posterior odds of the decided class
:math:`k` against another class :math:`j`, and for the naive and semi-naive models
those odds are a sum:
:math:`\\ln \\frac{P(\\omega_k|x)}{P(\\omega_j|x)} = \\ln \\frac{P(\\omega_k)}{P(\\omega_j)}
+ \\sum_t \\ln \\frac{P(x_t|\\omega_k, \\mathrm{pa}_t)}{P(x_t|\\omega_j, \\mathrm{pa}_t)}`,
one term for the prior and one for each attribute given its parents. Each term says
how much, and in which direction, one piece of evidence moved the decision.
Every bayesrule estimator returns these terms from ``explain(X)``. This example
asks a tree-augmented naive Bayes model (TAN) why it named the species of a penguin.
"""

# %%
# A TAN model of the Palmer penguins
# ----------------------------------
# Island and sex are categories; the four measurements are binned at MDL cut points
# (``discretize="mdl"``). TAN gives every attribute the class and at most one other
# attribute as parents; the summary lists the cut points and the tree.
import numpy as np
import pandas as pd
from palmerpenguins import load_penguins
from sklearn.model_selection import train_test_split

from bayesrule import TAN
from bayesrule.plot import explanation

penguins = load_penguins()
X = penguins.drop(columns=["species", "year"])
y = penguins["species"].to_numpy(dtype=object)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
model = TAN(discretize="mdl").fit(X_tr, y_tr)
print(f"test accuracy {model.score(X_te, y_te):.3f}")
lines = model.summary().splitlines()
first = next(i for i, line in enumerate(lines) if "cut points" in line)
last = next(i for i, line in enumerate(lines) if line.lstrip().startswith("I(X_j"))
print("\n".join(lines[first:last]))

# %%
# The closest call
# ----------------
# The test penguin whose largest posterior is smallest is the most interesting to
# explain. ``explain`` returns an ``Explanation``; its ``text`` is what the
# ``bayesrule explain`` command prints: the terms of the log odds against each other
# class, which add up to ``ln P(decided|x) / P(other|x)``.
proba = model.predict_proba(X_te)
row = int(np.argmin(proba.max(axis=1)))
print(X_te.iloc[row].to_string(), "\ntrue species:", y_te[row])
print(
    "posteriors:",
    ", ".join(f"{c} {p:.3f}" for c, p in zip(model.classes_, proba[row], strict=True)),
)
why = model.explain(X_te.iloc[[row]])
print(why.text(0))
top_two = np.sort(proba[row])[-2:]
print(f"ln of the two largest posteriors' ratio: {np.log(top_two[1] / top_two[0]):.4f}")

# %%
# The waterfall of the decision against the runner-up
# ---------------------------------------------------
# :func:`bayesrule.plot.explanation` draws the terms one after another, the prior's
# first, then the others from the largest down, and their sum as the last bar. The
# bill's length, above the cut point that separates Adelie from Chinstrap bills,
# argues for a Chinstrap, but the island argues harder for an Adelie: no Chinstrap
# of the training rows lives on Torgersen.
print(pd.crosstab(X_tr["island"], y_tr, colnames=["species"]))
ax = explanation(why, 0)
ax.use_sticky_edges = False  # leave a margin beyond the longest bar
ax.autoscale_view()
ax.figure.tight_layout()

# %%
# Over the whole test set, ``deciding_features`` counts the attribute that weighed
# most for the decided class against the runner-up, row by row.
print(model.explain(X_te).deciding_features())
