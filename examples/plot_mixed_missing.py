"""
Mixed column types and missing values: the Palmer penguins
==========================================================

Naive Bayes multiplies one term per feature, :math:`p(x|c) = \\prod_j p(x_j|c)`, so
each column can have its own family: a Gaussian for a measurement, a categorical
distribution for a label such as the island. A missing value is easy too: the
feature is marginalised out, which in a product of independent terms means its
factor is left out, both when the model is fitted and when a row is classified. No
row has to be dropped and nothing has to be imputed.
"""

# %%
# The data
# --------
# Three species, four body measurements (floats), the island and the sex (text). A
# few rows lack some values. The year of the observation is left out: it says
# nothing about the species.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from palmerpenguins import load_penguins
from sklearn.metrics import ConfusionMatrixDisplay, confusion_matrix
from sklearn.model_selection import StratifiedKFold, cross_val_predict, cross_val_score

from bayesrule import MixedNB

penguins = load_penguins()
X = penguins.drop(columns=["species", "year"])
y = penguins["species"].to_numpy()
print(X.dtypes)
print("missing values per column:", X.isna().sum().to_dict())
print("rows with a missing value:", X.isna().any(axis=1).sum(), "of", len(X))

# %%
# One family per column type
# --------------------------
# ``features="auto"`` reads the column types: floats become Gaussian, text (and
# integers, read as codes) categorical.
model = MixedNB(features="auto").fit(X, y)
for family, columns in model.blocks_:
    print(f"{family:12s} {columns}")

# %%
# Cross-validated accuracy, missing values kept
# ---------------------------------------------
# Ten stratified folds over all the rows, incomplete ones included.
folds = StratifiedKFold(10, shuffle=True, random_state=0)
scores = cross_val_score(MixedNB(), X, y, cv=folds)
print(f"10-fold accuracy: {scores.mean():.4f} (std {scores.std():.4f})")

# %%
# Two penguins were recorded with their island only. Their posteriors come from the
# priors and the island's counts alone (below): Torgersen had only Adelie penguins,
# though Laplace smoothing leaves the other species a little probability there, and
# Biscoe had both Gentoo and Adelie.
print(pd.crosstab(penguins["island"], penguins["species"]))
only_island = X.drop(columns="island").isna().all(axis=1).to_numpy()
proba = cross_val_predict(MixedNB(), X, y, cv=folds, method="predict_proba")
for row, p in zip(X[only_island].itertuples(), proba[only_island], strict=True):
    text = ", ".join(f"{c} {v:.3f}" for c, v in zip(model.classes_, p, strict=True))
    print(f"{row.island:10s} {text}")

# %%
# Where the mistakes are
# ----------------------
# The cross-validated confusion matrix (left) and, for each species, how much
# posterior the held-out penguins give their own species (right). Most are near 1:
# Adelie and Chinstrap, which share the island Dream and overlap in size, are the
# pair that gets confused.
decided = model.classes_[proba.argmax(axis=1)]
print("confusion (rows: true species):\n", confusion_matrix(y, decided, labels=model.classes_))

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained")
ConfusionMatrixDisplay.from_predictions(y, decided, ax=left, cmap="Blues", colorbar=False)
left.set_title("10-fold confusion matrix")
codes = np.searchsorted(model.classes_, y)
own = proba[np.arange(len(y)), codes]
right.hist([own[codes == k] for k in range(3)], bins=20, label=model.classes_, log=True)
right.set(xlabel="held-out posterior of the true species", ylabel="penguins (log scale)")
right.set_title("How sure the model is of the right answer")
right.legend()
