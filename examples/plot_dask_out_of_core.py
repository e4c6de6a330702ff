"""
Fitting on data in blocks with Dask
===================================

A Gaussian naive Bayes model needs only a few sufficient statistics per class: the
number of rows, the mean and the centred sum of squares of every feature. Those of two
blocks of rows merge exactly (Chan et al.'s pairwise rule), so a model fitted block by
block on a Dask array equals the model fitted on all rows at once, up to rounding,
and no block needs to see the others. The data never have to fit in memory together.
"""

# %%
# A Dask array built block by block
# ---------------------------------
# Each block is made by a function that Dask calls only when the block is needed (in
# real use it would read one file or one slice of a large file). Three classes are
# shifted by one unit on every third of ten features.
import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np

from bayesrule import GaussianNB

N_BLOCKS, ROWS, D = 20, 5_000, 10
SHIFT = (np.arange(D) % 3 == np.arange(3)[:, None]).astype(float)


def block(seed):
    """One block of rows and its labels, the same every time it is asked for."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size=ROWS)
    return SHIFT[labels] + rng.standard_normal((ROWS, D)), labels


parts = [dask.delayed(block)(seed) for seed in range(N_BLOCKS)]
X = da.concatenate([da.from_delayed(p[0], (ROWS, D), float) for p in parts])
y = da.concatenate([da.from_delayed(p[1], (ROWS,), np.int64) for p in parts])
print(X)

# %%
# Fit on the blocks, then in memory
# ---------------------------------
# ``fit`` computes the statistics of each block as one task on Dask's default
# threaded scheduler and merges them in a tree. For comparison the same rows are
# gathered into one NumPy array and fitted as usual.
model = GaussianNB().fit(X, y)
X_mem, y_mem = dask.compute(X, y)
in_memory = GaussianNB().fit(X_mem, y_mem)
gap = max(np.abs(model.theta_ - in_memory.theta_).max(), np.abs(model.var_ - in_memory.var_).max())
print("rows per class:", model.class_count_)
print(f"largest difference from the model fitted in memory: {gap:.1e}")

# %%
# Predictions on a Dask array are Dask arrays too, computed on demand.
proba = model.predict_proba(X[:3])
print("predict_proba returns", type(proba))
print("posteriors of the first three rows:\n", proba.compute().round(3))
print("their true classes:", y_mem[:3])

# %%
# The fitted means
# ----------------
# The figure shows how far each fitted class mean lies from the true mean (1 on the
# shifted features, 0 elsewhere). The two fits make the same sampling error, so the
# crosses of the block-wise fit sit in the circles of the fit in memory: what
# separates either from the truth is the finite sample, not the blocks.
fig, ax = plt.subplots(figsize=(7, 3.8))
for k, colour in enumerate(["#1f77b4", "#ff7f0e", "#2ca02c"]):
    features = np.arange(D) + 0.2 * (k - 1)
    ax.plot(features, in_memory.theta_[k] - SHIFT[k], "o", color=colour, mfc="none", ms=9)
    ax.plot(features, model.theta_[k] - SHIFT[k], "x", color=colour, label=f"class {k}")
ax.axhline(0.0, color="black", lw=0.8)
ax.set_xlabel("feature")
ax.set_ylabel("fitted mean - true mean")
ax.set_title("Dask fit (x) and fit in memory (o)")
ax.legend(loc="best", fontsize="small")
