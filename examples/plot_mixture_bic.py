"""
A class with two modes: Gaussian mixtures chosen by BIC
=======================================================

One Gaussian per class cannot describe a class whose samples gather in two separate
clouds: it puts its mean between them, where the class has few samples, and spreads
its covariance over both. A Gaussian mixture
:math:`p(x|\\omega) = \\sum_k \\alpha_k N(x; \\mu_k, \\Sigma_k)`, fitted by EM, can.
The number of components is a model choice: the Bayesian information criterion
(BIC) trades the likelihood against the number of parameters, and the lowest BIC
wins, separately for each class.
"""

# %%
# The data
# --------
# :func:`bayesrule.datasets.two_modes` draws class 1 from one Gaussian and class 2,
# twice as frequent, from two. 300 samples train the models and 3000 fresh ones test
# them.
import matplotlib.pyplot as plt

from bayesrule import GaussianMixtureBayes, QuadraticDiscriminant
from bayesrule.datasets import two_modes
from bayesrule.plot import bic_curve, decision_regions, mixture_components

train = two_modes(300, random_state=0)
test = two_modes(3000, random_state=1)

# %%
# Choosing the components by BIC
# ------------------------------
# ``n_components="bic"`` fits 1 to ``max_components`` components to each class and
# keeps the lowest BIC.
mixture = GaussianMixtureBayes(n_components="bic", max_components=5, random_state=0)
mixture.fit(train.data, train.target)
for label, model in mixture.mixtures_.items():
    bics = {k: round(b, 1) for (_, k), b in mixture.bic_[label].items()}
    print(f"class {label}: BIC by number of components {bics}")
    print(f"  chosen {model.n_components}, weights {model.weights_.round(3)}")

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), layout="constrained")
bic_curve(mixture, ax=left, title="BIC of each class's candidates")
mixture_components(mixture, train.data, train.target, ax=right, title="Chosen components")

# %%
# Against one Gaussian per class
# ------------------------------
# :class:`~bayesrule.QuadraticDiscriminant` fits one full Gaussian per class. Both
# models use the class frequencies as priors, so only the likelihood of class 2
# differs, and the held-out accuracy shows what the second mode is worth.
single = QuadraticDiscriminant().fit(train.data, train.target)
for name, model in (("one Gaussian per class", single), ("mixture chosen by BIC", mixture)):
    print(f"{name:24s} held-out accuracy {model.score(test.data, test.target):.4f}")

# %%
# The single Gaussian of class 2 is centred between its two clouds and stretched along
# the line that joins them, so the boundary is one smooth curve around that ellipse.
# The mixture's boundary is shaped by each cloud separately and comes to a corner at
# the gap between them, where class 2 has few samples.
fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), layout="constrained")
for ax, (name, model) in zip(
    axes, (("one Gaussian per class", single), ("Gaussian mixture (BIC)", mixture)), strict=True
):
    decision_regions(model, test.data[::6], test.target[::6], ax=ax, title=name, resolution=200)
