"""
Chow's reject option: fewer errors for fewer decisions
======================================================

A classifier may refuse to decide. If rejecting costs :math:`c` and every error
costs 1, the risk of deciding class :math:`j` is :math:`1 - P(\\omega_j|x)` and the
risk of rejecting is :math:`c`, so the Bayes rule rejects exactly when the largest
posterior is below :math:`1 - c` (Chow's rule). A small cost rejects many samples
and leaves few errors among those accepted; with :math:`C` classes a cost of
:math:`1 - 1/C` or more never rejects. The error-reject curve shows the whole
trade-off.
"""

# %%
# The trade-off on new fruit
# --------------------------
# :func:`bayesrule.decision.reject_curve` computes, for each reject cost, the share
# of test samples rejected and the error rate on the rest, both from the labels and
# as the model expects them from its own posteriors.
import matplotlib.pyplot as plt

from bayesrule import LossMatrix, QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.decision import reject_curve
from bayesrule.plot import decision_regions_under
from bayesrule.plot import reject_curve as plot_reject_curve

X, y = fruit(1000, random_state=0, return_X_y=True)
X_test, y_test = fruit(1000, random_state=1, return_X_y=True)
priors = {"apple": 0.4, "orange": 0.4, "grapefruit": 0.2}
model = QuadraticDiscriminant(priors=priors).fit(X, y)

curve = reject_curve(model, X_test, y_test, costs=[0.01, 0.05, 0.1, 0.2, 0.3, 2 / 3])
print(" cost  rejected  error on accepted  expected")
for c, rate, err, exp in zip(
    curve["cost"],
    curve["reject_rate"],
    curve["accepted_error"],
    curve["expected_accepted_error"],
    strict=True,
):
    print(f"{c:5.3f}  {rate:8.4f}  {err:17.4f}  {exp:8.4f}")

# %%
# The same rule as an estimator
# -----------------------------
# ``LossMatrix.with_reject(3, c)`` is zero-one loss with a fourth action, reject, of
# cost ``c``; ``predict`` then returns ``"reject"`` for the doubtful fruit. Its reject
# rate and error on the accepted fruit are the curve's at that cost.
careful = QuadraticDiscriminant(priors=priors, loss=LossMatrix.with_reject(3, 0.1))
decided = careful.fit(X, y).predict(X_test)
kept = decided != careful.reject_label_
print(
    f"cost 0.1: rejected {1 - kept.mean():.4f}, error on accepted "
    f"{(decided[kept] != y_test[kept]).mean():.4f}"
)

# %%
# The error-reject curve
# ----------------------
# :func:`bayesrule.plot.reject_curve` draws the error on the accepted samples against
# the reject rate, with some costs written beside their points. Rejecting the few
# fruit near the boundaries removes most of the errors (the axis stops at 30 %
# rejected; a cost of 0 would reject every fruit whose posterior is not exactly 1).
ax = plot_reject_curve(model, X_test, y_test)
ax.set_xlim(-0.01, 0.3)

# %%
# Where the rule rejects
# ----------------------
# The reject region (grey) is a band along every boundary, where two posteriors are
# close; it widens as the cost falls.
fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), layout="constrained")
for ax, cost in zip(axes, (0.05, 0.2), strict=True):
    decision_regions_under(
        model,
        X[::5],
        y[::5],
        loss=LossMatrix.with_reject(3, cost),
        ax=ax,
        title=f"reject cost {cost}: reject when max P(w|x) < {1 - cost:g}",
        resolution=200,
    )
    ax.set_xlabel("weight (g)")
    ax.set_ylabel("colour (nm)")
