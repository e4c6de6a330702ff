"""
Minimax: a rule for unknown priors
==================================

The Bayes rule is optimal for the priors it was built with. If the class frequencies
met in use differ, its risk changes: for a fixed rule the overall risk
:math:`r = P(\\omega_1) R_1 + P(\\omega_2) R_2` is a straight line in the priors, where
:math:`R_j` is the expected loss on class :math:`j`. The Bayes risk, the best risk at
each prior, is a concave curve; each rule's line lies above it and touches it at the
prior the rule was built for. The minimax rule is the Bayes rule under the least
favourable priors, where that curve peaks: its two conditional risks are equal, so
its line is flat and its risk is the same whatever the priors.
"""

# %%
# Apples against oranges
# ----------------------
# Two classes of the fruit data, and the tutorial's costs between them: selling an
# orange as an apple loses 2, the reverse loses 1. The conditional risks are measured
# on a large test set, for the Bayes rule under each prior (``predict(priors=...)``
# decides under other priors without refitting).
import matplotlib.pyplot as plt
import numpy as np

from bayesrule import Minimax, QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.decision import minimax_priors


def apples_and_oranges(n, seed):
    X, y = fruit(n, random_state=seed, return_X_y=True)
    return X[y != "grapefruit"], y[y != "grapefruit"]


X, y = apples_and_oranges(1000, 0)
X_test, y_test = apples_and_oranges(20000, 1)
loss = np.array([[0, 2], [1, 0]])  # rows: decide apple, orange; columns: true class
model = QuadraticDiscriminant(loss=loss).fit(X, y)
truth = np.searchsorted(model.classes_, y_test)


def conditional_risks(decided):
    """R_apple and R_orange: the mean loss on the test apples and on the test oranges."""
    action = np.searchsorted(model.classes_, decided)
    return np.array([loss[action[truth == j], j].mean() for j in (0, 1)])


p_orange = np.linspace(0, 1, 41)
bayes = np.array([conditional_risks(model.predict(X_test, priors=[1 - p, p])) for p in p_orange])
bayes_risk = (1 - p_orange) * bayes[:, 0] + p_orange * bayes[:, 1]

# %%
# The minimax rule
# ----------------
# :class:`~bayesrule.Minimax` fits the model and finds the priors that maximise its
# Bayes risk; :func:`bayesrule.decision.minimax_priors` does the same for a model
# already fitted, from held-out data. Both land near the peak of the curve.
minimax = Minimax(QuadraticDiscriminant(), loss=loss, calibration=None).fit(X, y)
print("least favourable priors (Minimax):", minimax.priors_.round(3))
priors, risk = minimax_priors(model, X_test, y_test)
print("least favourable priors (minimax_priors, test data):", priors.round(3))
print(f"minimax risk: {minimax.minimax_risk_:.4f} (Minimax), {risk:.4f} (minimax_priors)")
print(
    f"largest Bayes risk on the grid: {bayes_risk.max():.4f} at P(orange) "
    f"{p_orange[bayes_risk.argmax()]:.3f}"
)

# %%
# Worst cases
# -----------
# A rule's worst case over all priors is its larger conditional risk. The rules built
# for lopsided priors do well near them and badly at the other end; the minimax rule's
# two risks nearly agree, so it has the smallest worst case.
rules = {"Bayes, P(orange) 0.2": [0.8, 0.2], "Bayes, P(orange) 0.8": [0.2, 0.8]}
lines = {name: conditional_risks(model.predict(X_test, priors=p)) for name, p in rules.items()}
lines["minimax"] = conditional_risks(minimax.predict(X_test))
for name, (r_apple, r_orange) in lines.items():
    print(
        f"{name:22s} R_apple {r_apple:.4f}  R_orange {r_orange:.4f}  worst "
        f"{max(r_apple, r_orange):.4f}"
    )

fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
ax.plot(p_orange, bayes_risk, "k-", lw=2, label="Bayes risk (best rule at each prior)")
for (name, (r_apple, r_orange)), style in zip(lines.items(), ("--", "-.", "-"), strict=True):
    ax.plot([0, 1], [r_apple, r_orange], style, label=f"{name}, priors fixed")
ax.axvline(minimax.priors_[1], color="0.6", linestyle=":", label="least favourable prior")
ax.set_xlabel("true prior P(orange)")
ax.set_ylabel("expected loss per fruit")
ax.set_ylim(0, None)
ax.legend(fontsize="small")
ax.set_title("Risk against the prior: fixed rules are lines, minimax is flat")
