"""
When the class priors change
============================

A classifier fitted on one population decides under that population's priors
:math:`P(\\omega_j)`. If the mix of classes changes later while each class looks the
same (:math:`p(x|\\omega_j)` unchanged: *prior shift* or *label shift*), the
posteriors are off by the ratio of new to old priors, and so are the decisions.
The new priors can be estimated from the new rows alone, without labels, by EM
(Saerens et al. 2002): average the posteriors to get priors, move the posteriors to
those priors, and repeat. This example trains on balanced fruit and decides on a
shop that sells mostly oranges.
"""

# %%
# Balanced training data, a shifted test set
# ------------------------------------------
# The model is fitted on 1000 fruit of each kind, so it decides under equal
# priors. The new rows are drawn with other proportions, kept aside as the truth.
import numpy as np

from bayesrule import QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.decision import adapt_priors, estimate_priors
from bayesrule.plot import prior_shift

X, y = fruit(1000, random_state=0, return_X_y=True)
model = QuadraticDiscriminant().fit(X, y)

rng = np.random.default_rng(1)
X_pool, y_pool = fruit(3000, random_state=1, return_X_y=True)
new_counts = {"apple": 300, "grapefruit": 200, "orange": 1500}
keep = np.concatenate(
    [rng.choice(np.flatnonzero(y_pool == c), n, replace=False) for c, n in new_counts.items()]
)
X_new, y_new = X_pool[keep], y_pool[keep]
true_priors = np.array([np.mean(y_new == c) for c in model.classes_])
print("classes:          ", model.classes_)
print("training priors:  ", model.class_prior_.round(3))
print("new priors (truth):", true_priors.round(3))

# %%
# Estimating the new priors without labels
# ----------------------------------------
# :func:`~bayesrule.decision.estimate_priors` runs the EM on the unlabelled rows; with
# ``confidence`` it adds bootstrap intervals.
estimate = estimate_priors(model, X_new, confidence=0.9, random_state=0)
for c, p, lo, hi, t in zip(
    model.classes_, estimate.priors, estimate.lower, estimate.upper, true_priors, strict=True
):
    print(f"{c:10s} estimated {p:.3f}  90% interval [{lo:.3f}, {hi:.3f}]  true {t:.3f}")

ax = prior_shift(estimate)
ax.scatter(
    np.arange(3) + 0.2,
    true_priors,
    marker="D",
    s=40,
    facecolors="none",
    edgecolors="black",
    label="true new priors",
)
ax.legend(loc="upper left", fontsize="small")

# %%
# Deciding under the new priors
# -----------------------------
# The likelihoods stay as fitted; only the priors in Bayes' rule change. ``predict``
# takes ``priors=`` for one call, and :func:`~bayesrule.decision.adapt_priors`
# returns a copy of the model that keeps the estimated priors. Fruit that look
# halfway between apple and orange are now called oranges, which is right more often
# in this shop, so the accuracy rises, to about what the true priors give.
adapted = adapt_priors(model, X_new)
print(f"accuracy under the training priors:  {model.score(X_new, y_new):.3f}")
print(f"accuracy after adapt_priors:         {adapted.score(X_new, y_new):.3f}")
print(
    f"accuracy under the true new priors:  "
    f"{np.mean(model.predict(X_new, priors=true_priors) == y_new):.3f}"
)
