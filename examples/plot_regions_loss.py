"""
Decision regions move with the loss matrix
==========================================

When mistakes have different costs, the Bayes rule takes the action of least
conditional risk, :math:`R(\\alpha_i|x) = \\sum_j \\lambda_{ij} P(\\omega_j|x)`, where
:math:`\\lambda_{ij}` is the loss of deciding class :math:`i` when the truth is class
:math:`j`. Zero-one loss gives back the class of largest posterior; any other loss
enlarges the regions of the classes that are costly to miss, so that the costly
mistakes become rarer.
"""

# %%
# Three loss matrices
# -------------------
# Rows are the decisions and columns the true classes, in the tutorial's order apple,
# orange, grapefruit (a :class:`~bayesrule.LossMatrix` with ``classes=`` is aligned to
# the model's sorted classes). The tutorial's loss makes taking a dearer fruit for a
# cheaper one cost more than the reverse; in the "orange shortage" calling an orange
# anything else costs 100.
import matplotlib.pyplot as plt
import numpy as np

from bayesrule import LossMatrix, QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.plot import decision_regions_under

X, y = fruit(1000, random_state=0, return_X_y=True)
X_test, y_test = fruit(1000, random_state=1, return_X_y=True)
model = QuadraticDiscriminant(priors={"apple": 0.4, "orange": 0.4, "grapefruit": 0.2})
model.fit(X, y)

order = ["apple", "orange", "grapefruit"]
losses = {
    "zero-one": LossMatrix.zero_one(3),
    "tutorial": LossMatrix([[0, 2, 3], [1, 0, 2], [1, 1, 0]], classes=order),
    "orange shortage": LossMatrix([[0, 100, 3], [1, 0, 2], [1, 100, 0]], classes=order),
}

# %%
# Conditional risks of one fruit
# ------------------------------
# For the fruit of 170 g and 585 nm the apple is the most probable class, but under the
# tutorial's loss selling it as an apple risks more than selling it as an orange.
x = np.array([[170.0, 585.0]])
post = zip(model.classes_, model.predict_proba(x)[0], strict=True)
print("posteriors:      ", ", ".join(f"{c} {p:.4f}" for c, p in post))
for name, loss in losses.items():
    risk = model.risk(x, loss=loss)[0]
    text = ", ".join(f"{c} {r:.4f}" for c, r in zip(model.classes_, risk, strict=True))
    print(f"{name:16s} risks: {text} -> decide {model.predict(x, loss=loss)[0]}")

# %%
# Errors against cost on new fruit
# --------------------------------
# On 3000 test fruit, each rule is scored by its error rate and by its mean loss under
# its own loss matrix, beside the minimum-error rule scored under the same loss. The
# least-risk rule makes more errors but costs less on average: that is what it
# minimises.
codes = np.searchsorted(model.classes_, y_test)
plain = np.searchsorted(model.classes_, model.predict(X_test))
for name, loss in losses.items():
    matrix = loss.aligned(model.classes_).matrix
    decided = np.searchsorted(model.classes_, model.predict(X_test, loss=loss))
    print(
        f"{name:16s} error {np.mean(decided != codes):.4f}, mean loss "
        f"{matrix[decided, codes].mean():.4f} (minimum-error rule: "
        f"{matrix[plain, codes].mean():.4f})"
    )

# %%
# The regions
# -----------
# :func:`bayesrule.plot.decision_regions_under` decides every grid point under another
# loss without refitting. Under the tutorial's loss the boundaries shift a little
# (the orange region takes the star); when oranges are scarce the orange region
# grows far into the other two.
fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), layout="constrained")
for ax, (name, loss) in zip(axes, losses.items(), strict=True):
    decision_regions_under(model, X[::6], y[::6], loss=loss, ax=ax, title=name, resolution=150)
    ax.plot(*x.T, "k*", markersize=12)
    ax.set_xlabel("weight (g)")
    ax.set_ylabel("colour (nm)")
fig.suptitle("Least-risk regions of one fitted model under three loss matrices")
