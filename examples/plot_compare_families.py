"""
Every family on one data set
============================

Each bayesrule estimator is the same Bayes rule over a different model of the
class-conditional density :math:`p(x|\\omega_j)`: Gaussians with full, shared,
diagonal or isotropic covariances, a mixture of Gaussians per class, kernel
densities per feature, or tables of counts over binned features. This example
cross-validates one of each on the wine recognition data (178 wines, 3 cultivars,
13 chemical measurements), by accuracy and by log loss.
"""

# %%
# The models
# ----------
# The models over discrete values (naive Bayes over categories, AODE, TAN) bin every
# measurement with ``discretize="mdl"``, at supervised cut points learned on the
# training folds only. ``NearestMean`` assumes the same variance in every direction,
# which makes no sense when the measurements' spreads differ by orders of magnitude
# (proline varies by hundreds, hue by tenths): it gets standardised features first.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayesrule as br

X, y = load_wine(return_X_y=True)
print(f"{X.shape[0]} wines, {X.shape[1]} measurements, {np.unique(y).size} cultivars")
spread = X.std(axis=0)
print(f"standard deviations of the measurements: {spread.min():.2f} to {spread.max():.0f}")
models = {
    "GaussianNB (diagonal)": br.GaussianNB(),
    "NearestMean (isotropic)": make_pipeline(StandardScaler(), br.NearestMean()),
    "LinearDiscriminant (shared)": br.LinearDiscriminant(),
    "QuadraticDiscriminant (full)": br.QuadraticDiscriminant(),
    "RDA (pooling, shrinkage by CV)": br.QuadraticDiscriminant(pooling="cv", shrinkage="cv"),
    "GaussianBayes (best of 14 by BIC)": br.GaussianBayes(),
    "GaussianMixtureBayes (BIC)": br.GaussianMixtureBayes(random_state=0),
    "KernelNB": br.KernelNB(),
    "CategoricalNB (MDL bins)": br.CategoricalNB(discretize="mdl"),
    "AODE (MDL bins)": br.AODE(discretize="mdl"),
    "TAN (MDL bins)": br.TAN(discretize="mdl"),
}

# %%
# Ten-fold cross-validation
# -------------------------
# Every model sees the same folds. Accuracy counts the decisions of largest
# posterior (the Bayes decision under zero-one loss); the log loss is the mean of
# :math:`-\ln P(\omega_{\mathrm{true}}|x)` and also rewards honest posteriors.
folds = StratifiedKFold(10, shuffle=True, random_state=0)
scores = {}
for name, model in models.items():
    cv = cross_validate(model, X, y, cv=folds, scoring=("accuracy", "neg_log_loss"))
    scores[name] = {
        "accuracy": cv["test_accuracy"].mean(),
        "acc sd": cv["test_accuracy"].std(),
        "log loss": -cv["test_neg_log_loss"].mean(),
        "loss sd": cv["test_neg_log_loss"].std(),
    }
table = pd.DataFrame(scores).T
print(table.round(3).to_string())

# %%
# The wines are easy to tell apart: every model makes only a few mistakes, and the
# accuracies differ little. The log loss separates the models more: the Gaussian
# models whose covariances link the measurements (shared, full, regularised,
# mixtures) give the true class more posterior probability than the models that
# treat the features as independent given the class or that bin them. The bars show
# the mean over the folds and its standard error.
root_n = np.sqrt(folds.get_n_splits())  # standard error = sd / sqrt(folds)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), sharey=True)
ypos = np.arange(len(table))
for ax, (column, sd) in zip(axes, [("accuracy", "acc sd"), ("log loss", "loss sd")], strict=True):
    ax.barh(ypos, table[column], xerr=table[sd] / root_n, color="#1f77b4", ecolor="0.3", capsize=3)
    ax.set_xlabel(f"{column} (10 folds)")
axes[0].set_xlim(0.9, 1.005)
axes[0].set_yticks(ypos, table.index)
axes[0].invert_yaxis()
fig.suptitle("Wine: one model of p(x|w) per family")
fig.tight_layout()
