"""
Kernel densities and their bandwidth
====================================

``KernelNB`` is naive Bayes whose class-conditional density of each feature is a
kernel density estimate: a Gaussian bump of standard deviation :math:`h` on every
training value of the class, averaged. It needs no assumption on the shape of
:math:`p(x_j|\\omega)`, and can follow two modes or a skewed tail, but everything
depends on the bandwidth :math:`h`: too small and the estimate is a comb of spikes
on the training points, too large and it blurs every detail. This example fits one
feature with several bandwidths and compares them with the true densities.
"""

# %%
# Two classes with known densities
# --------------------------------
# Class ``a`` has two modes; class ``b`` is a skewed gamma distribution. With the
# true densities known, the held-out log-likelihood of each estimate can be compared
# with that of the truth, the best any estimate can do on average.
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from bayesrule import KernelNB

truth = {
    "a": lambda x: 0.5 * stats.norm.pdf(x, -2, 0.5) + 0.5 * stats.norm.pdf(x, 1, 0.7),
    "b": stats.gamma(a=2.0, loc=1.0, scale=1.2).pdf,
}


def draw(n, rng):
    """n rows of each class: x of shape (2n, 1) and the labels."""
    a = np.where(rng.random(n) < 0.5, rng.normal(-2, 0.5, n), rng.normal(1, 0.7, n))
    b = stats.gamma(a=2.0, loc=1.0, scale=1.2).rvs(n, random_state=rng)
    return np.r_[a, b][:, None], np.repeat(["a", "b"], n)


rng = np.random.default_rng(0)
X, y = draw(150, rng)
X_test, y_test = draw(5000, rng)

# %%
# Held-out log-likelihood
# -----------------------
# Scott's and Silverman's rules scale the class's standard deviation by a power of
# its size (in one dimension Silverman's is a little wider). The mean of
# :math:`\ln p(x|\omega)` over fresh rows of each class rewards an estimate that puts
# its mass where new data fall: the rules come closest to the truth, the narrow
# kernel loses most, because fresh points often fall between its spikes.
rows = np.arange(len(y_test))
truth_ll = np.mean([np.log(truth[c](x)) for x, c in zip(X_test[:, 0], y_test, strict=True)])
print(f"{'bandwidth':10s} {'h (a, b)':14s} held-out mean ln p(x|class)  accuracy")
models = {}
for bandwidth in ("scott", "silverman", 0.1, 1.0):
    model = models[bandwidth] = KernelNB(bandwidth=bandwidth).fit(X, y)
    own = np.searchsorted(model.classes_, y_test)
    ll = model.log_likelihood(X_test)[rows, own].mean()
    h = model.bandwidth_[:, 0].round(3)
    print(f"{bandwidth!s:10s} {h!s:14s} {ll:27.3f}  {model.score(X_test, y_test):.3f}")
bayes = np.array(["a", "b"])[(truth["b"](X_test[:, 0]) > truth["a"](X_test[:, 0])).astype(int)]
print(f"{'truth':25s} {truth_ll:27.3f}  {np.mean(bayes == y_test):.3f}")

# %%
# The estimates against the truth
# -------------------------------
# The small bandwidth follows the sample's accidents; the large one flattens the two
# modes of ``a``. Every kernel estimate spills past the sharp edge where ``b``
# starts, since its bumps are symmetric. The decision only needs the right class to
# have the larger likelihood, so the accuracies barely differ, and all are about that
# of the Bayes rule with the true densities.
grid = np.linspace(-4.5, 10, 600)
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for k, (ax, label) in enumerate(zip(axes, ["a", "b"], strict=True)):
    ax.plot(grid, truth[label](grid), "k-", lw=2.5, label="true density")
    for bandwidth, model in models.items():
        ax.plot(
            grid,
            np.exp(model.log_likelihood(grid[:, None])[:, k]),
            lw=1.2,
            label=f"bandwidth={bandwidth!r}",
        )
    ax.plot(X[y == label, 0], np.full((y == label).sum(), -0.01), "|", color="0.4")
    ax.set_title(f"p(x | {label})")
    ax.set_xlabel("x")
axes[0].legend(fontsize="small")
fig.tight_layout()
