"""
The fruit tutorial, end to end
==============================

Three kinds of fruit (apple, orange, grapefruit) are told apart by two measurements,
their weight in grams and the wavelength of their colour in nanometres. Each class has
a Gaussian likelihood :math:`p(x|\\omega_j)` with its own mean and covariance, the shop
knows its problem-specific priors :math:`P(\\omega_j)`, and Bayes' rule turns both into
posteriors :math:`P(\\omega_j|x) = p(x|\\omega_j) P(\\omega_j) / p(x)`. Under zero-one
loss the decision is the class of largest posterior.
"""

# %%
# The data and the classifier
# ---------------------------
# :func:`bayesrule.datasets.fruit` draws 1000 fruit of each class from the tutorial's
# Gaussians. :class:`~bayesrule.QuadraticDiscriminant` fits one full Gaussian per
# class by maximum likelihood; the priors are given, not estimated, because every
# class has the same number of training rows while the shop sells fewer grapefruit.
import numpy as np

import bayesrule
from bayesrule import QuadraticDiscriminant
from bayesrule.datasets import fruit
from bayesrule.plot import decision_regions

train = fruit(1000, random_state=0)
priors = {"apple": 0.4, "orange": 0.4, "grapefruit": 0.2}
model = QuadraticDiscriminant(priors=priors).fit(train.data, train.target)
print("classes (sorted):", model.classes_)
print("estimated means:\n", model.means_.round(1))

# %%
# One fruit: 170 g, 585 nm
# ------------------------
# The likelihoods say how typical the measurement is of each class, the evidence
# :math:`p(x)` is their prior-weighted sum, and the posteriors are the normalised
# products. With the true parameters of the tutorial the numbers are the textbook's;
# the model fitted on 3000 fruit gives similar values and the same decision.
x = np.array([[170.0, 585.0]])
truth = QuadraticDiscriminant.from_parameters(
    train.means, train.covariances, priors=priors, classes=train.target_names
)


def show(name, values, classes):
    print(f"  {name:18s}", ", ".join(f"{c} {v:.5g}" for c, v in zip(classes, values, strict=True)))


for name, clf in (("true parameters", truth), ("fitted on 3000 fruit", model)):
    print(name)
    show("likelihood p(x|w)", np.exp(clf.log_likelihood(x)[0]), clf.classes_)
    show("posterior P(w|x)", clf.predict_proba(x)[0], clf.classes_)
    print(f"  evidence p(x)      {np.exp(clf.log_evidence(x)[0]):.5g}")
    print(f"  decision           {clf.predict(x)[0]}")

# %%
# Accuracy on fresh fruit
# -----------------------
# The error rate has to be measured on data the model has not seen.
# :func:`bayesrule.report` gives per-class and overall accuracy, the confusion matrix
# and the expected risk on 1000 new fruit per class.
test = fruit(1000, random_state=1)
print(bayesrule.report(model, test.data, test.target))

# %%
# Decision regions
# ----------------
# Every point of the plane is given the class of least risk (here, of largest
# posterior). The boundaries are quadratic curves because the classes' covariances
# differ. The star marks the fruit of 170 g and 585 nm, just inside the apple region.
ax = decision_regions(model, test.data[::4], test.target[::4], title="Minimum-error-rate regions")
ax.plot(*x.T, "k*", markersize=14)
ax.annotate("x = (170, 585)", x[0], xytext=(8, -4), textcoords="offset points")
ax.set_xlabel("weight (g)")
ax.set_ylabel("colour (nm)")
