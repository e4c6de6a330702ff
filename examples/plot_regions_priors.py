"""
Decision regions move with the priors
=====================================

The posterior is the likelihood times the prior, divided by the evidence, so the
priors :math:`P(\\omega_j)` shift every boundary between two classes: where
:math:`p(x|\\omega_i) P(\\omega_i) = p(x|\\omega_j) P(\\omega_j)`. Raising the prior of
one class moves its boundaries away from its mean and enlarges its region. A fitted
bayesrule model decides under other priors without refitting, because the likelihoods
do not depend on them.
"""

# %%
# One model, several priors
# -------------------------
# The fruit classifier is fitted once, with the tutorial's priors. Every ``predict*``
# method takes ``priors=`` to decide under other ones.
import numpy as np

from bayesrule import QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.plot import prior_sweep

X, y = fruit(1000, random_state=0, return_X_y=True)
X_test, y_test = fruit(1000, random_state=1, return_X_y=True)
model = QuadraticDiscriminant(priors={"apple": 0.4, "orange": 0.4, "grapefruit": 0.2})
model.fit(X, y)

sweep = {
    "uniform": "uniform",
    "fitted (tutorial)": None,
    "favour apple": {"apple": 0.8, "orange": 0.1, "grapefruit": 0.1},
    "favour orange": {"apple": 0.1, "orange": 0.8, "grapefruit": 0.1},
    "favour grapefruit": {"apple": 0.1, "orange": 0.1, "grapefruit": 0.8},
    "almost no grapefruit": {"apple": 0.49, "orange": 0.49, "grapefruit": 0.02},
}

# %%
# The same fruit under each set of priors
# ---------------------------------------
# For the fruit of 170 g and 585 nm the apple and orange likelihoods are close, so
# the priors decide between them. The last column is the accuracy on a test set with
# 1000 fruit of each class: the priors that match its class frequencies (uniform)
# should make the fewest errors, up to sampling noise, and priors far from them make
# more.
x = np.array([[170.0, 585.0]])
print("classes:", model.classes_)
print(f"{'priors':22s} {'P(w|x)':26s} decision  test accuracy")
for name, priors in sweep.items():
    post = model.predict_proba(x, priors=priors)[0].round(3)
    decision = model.predict(x, priors=priors)[0]
    accuracy = np.mean(model.predict(X_test, priors=priors) == y_test)
    print(f"{name:22s} {str(post):26s} {decision:9s} {accuracy:.4f}")

# %%
# The regions
# -----------
# :func:`bayesrule.plot.prior_sweep` draws one panel per set of priors. The favoured class
# takes over the ground where the likelihoods overlap; far from the overlap the
# likelihoods dominate and the regions barely move.
axes = prior_sweep(
    model, X[::6], y[::6], priors_list=sweep, ncols=3, resolution=120, figsize=(12, 7)
)
for ax in axes:
    ax.set_xlabel("weight (g)")
    ax.set_ylabel("colour (nm)")
axes[0].figure.suptitle("Minimum-error-rate regions of one fitted model under six sets of priors")
