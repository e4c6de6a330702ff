"""
Posterior maps and the evidence
===============================

Bayes' rule divides the joint :math:`p(x|\\omega_j) P(\\omega_j)` by the evidence
:math:`p(x) = \\sum_k p(x|\\omega_k) P(\\omega_k)`, so that the posteriors
:math:`P(\\omega_j|x)` sum to one at every point. This example draws the posterior of
each fruit over the plane of weight and colour, and the evidence itself: the
posteriors say which class a point belongs to, the evidence says how plausible the
point is at all.
"""

# %%
# The fruit model
# ---------------
# A full Gaussian per class, fitted on 1000 fruit of each kind, with the shop's
# priors: fewer grapefruit than apples or oranges.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from bayesrule import QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.plot import posterior_map

data = fruit(1000, random_state=0)
X = pd.DataFrame(data.data, columns=["weight (g)", "colour (nm)"])
y = data.target
priors = {"apple": 0.4, "orange": 0.4, "grapefruit": 0.2}
model = QuadraticDiscriminant(priors=priors).fit(X, y)
x = pd.DataFrame([[170.0, 585.0]], columns=X.columns)
print("classes:", model.classes_)
print("posteriors at 170 g, 585 nm:", model.predict_proba(x).round(4))
print(f"evidence there: p(x) = {np.exp(model.log_evidence(x)[0]):.3e}")

# %%
# One map per class
# -----------------
# Each map is near 1 deep inside its class's region and falls to 0 across the
# boundaries, where two classes share the probability; the three maps add up to one
# everywhere. The transitions are narrow because the classes overlap little: a few
# grams or nanometres past a boundary, one class's likelihood dwarfs the others'.
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), sharey=True)
for ax, label in zip(axes, model.classes_, strict=True):
    posterior_map(model, label, X[::10], y=y[::10], ax=ax, resolution=150)
fig.tight_layout()

# %%
# The evidence over the plane
# ---------------------------
# ``log_evidence`` is :math:`\ln p(x)`, the log of the prior-weighted mixture of the
# class densities. It is high where fruit are common and falls off fast elsewhere.
# A point far from every class still gets confident posteriors, since they are
# ratios, so a low evidence is the warning that the model has never seen anything
# like it. The cross marks such a point: 290 g and 540 nm.
far = pd.DataFrame([[290.0, 540.0]], columns=X.columns)
print("posteriors at 290 g, 540 nm:", model.predict_proba(far).round(4))
print(
    f"log evidence there: {model.log_evidence(far)[0]:.1f}, "
    f"at 170 g, 585 nm: {model.log_evidence(x)[0]:.1f}"
)

weights, colours = np.meshgrid(np.linspace(90, 340, 200), np.linspace(500, 680, 200))
grid = pd.DataFrame({"weight (g)": weights.ravel(), "colour (nm)": colours.ravel()})
log_p = model.log_evidence(grid).reshape(weights.shape)
fig, ax = plt.subplots(figsize=(7, 5))
mesh = ax.contourf(weights, colours, np.maximum(log_p, -40), levels=20, cmap="magma")
fig.colorbar(mesh, ax=ax, label="ln p(x) (floored at -40)")
ax.plot(*x.to_numpy().T, "w*", markersize=12)
ax.plot(*far.to_numpy().T, "wx", markersize=10, mew=2)
ax.set_xlabel("weight (g)")
ax.set_ylabel("colour (nm)")
ax.set_title("Log evidence ln p(x)")
