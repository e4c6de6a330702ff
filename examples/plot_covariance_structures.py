"""
Four covariance structures, four kinds of boundary
==================================================

With Gaussian likelihoods :math:`p(x|\\omega_i) = N(\\mu_i, \\Sigma_i)` the
discriminant :math:`g_i(x) = \\ln p(x|\\omega_i) + \\ln P(\\omega_i)` is a quadratic
form :math:`x^T W_i x + w_i^T x + w_{i0}` with :math:`W_i = -\\frac12 \\Sigma_i^{-1}`.
The boundary between two classes, :math:`g_i(x) = g_j(x)`, is quadratic when
:math:`W_i \\ne W_j` and a straight line when the covariances are equal, because the
quadratic terms then cancel. Four bayesrule models fit four structures to the same
data: a full covariance per class, one shared covariance, a diagonal covariance per
class (naive Bayes) and one shared variance in every direction (nearest mean).
"""

# %%
# Data with correlated, unequal classes
# -------------------------------------
# The three classes are drawn from known Gaussians whose covariances differ in size
# and orientation, so only the full model matches how the data were made.
import matplotlib.pyplot as plt
import numpy as np

from bayesrule import GaussianNB, LinearDiscriminant, NearestMean, QuadraticDiscriminant
from bayesrule.plot import decision_regions, likelihood_contours

truth = QuadraticDiscriminant.from_parameters(
    means=[[0.0, 0.0], [4.0, 1.0], [1.0, 4.0]],
    covariances=[[[2.0, 1.2], [1.2, 1.5]], [[1.0, -0.5], [-0.5, 1.2]], [[0.5, 0.0], [0.0, 2.5]]],
)
X, y = truth.sample(600, random_state=0)
X_test, y_test = truth.sample(6000, random_state=1)

models = {
    "full: QuadraticDiscriminant": QuadraticDiscriminant(),
    "shared: LinearDiscriminant": LinearDiscriminant(),
    "diagonal: GaussianNB": GaussianNB(),
    "isotropic: NearestMean": NearestMean(),
}

# %%
# Contours and regions
# --------------------
# Each panel shows the fitted densities :math:`p(x|\omega_i)` as contours over the
# model's decision regions. The full model's ellipses tilt and differ; the shared one
# gives every class the same ellipse; the diagonal ones have their axes along the
# coordinates; the isotropic ones are circles of one size.
fig, axes = plt.subplots(2, 2, figsize=(10, 9), sharex=True, sharey=True)
for ax, (name, model) in zip(axes.flat, models.items(), strict=True):
    model.fit(X, y)
    decision_regions(model, X, ax=ax, resolution=150, alpha=0.2)
    likelihood_contours(model, X, y=y, ax=ax, levels=4, resolution=150, title=name)
    ax.set_aspect("equal")
fig.tight_layout()

# %%
# Quadratic or linear
# -------------------
# The fitted ``quadratic_coef_`` holds each class's :math:`W_i`. Where the largest
# difference between two classes' :math:`W` is zero, every boundary of the model is a
# line: the shared and isotropic models. Naive Bayes keeps a quadratic boundary (its
# variances differ by class), but its quadrics cannot tilt. On fresh data from the
# true Gaussians, the Bayes rule with the true parameters makes the fewest errors on
# average (no rule does better); the fitted models come close to it, and the full
# model, whose structure matches the truth, comes closest.
for name, model in models.items():
    W = model.quadratic_coef_
    gap = max(np.abs(W[i] - W[j]).max() for i in range(3) for j in range(i))
    print(
        f"{name:30s} max |W_i - W_j| = {gap:.3f}   test accuracy {model.score(X_test, y_test):.3f}"
    )
print(f"{'the true Gaussians':30s} {'':24s} test accuracy {truth.score(X_test, y_test):.3f}")
