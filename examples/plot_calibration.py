"""
Are the posteriors honest? Reliability and calibration
======================================================

A posterior :math:`P(\\omega|x) = 0.9` should be right nine times out of ten. The
Bayes decision under a loss matrix, the reject option and every expected risk rely
on that, not only on which class comes first. Naive Bayes on dependent features
counts the same evidence several times, so its posteriors pile up near 0 and 1
and it is more often wrong than it says. This example measures that on the
handwritten digits and repairs it with :class:`bayesrule.Calibrated`.
"""

# %%
# A naive model and its calibrated version
# ----------------------------------------
# ``Calibrated`` cross-fits the estimator: five times it fits on four fifths of the
# training rows and predicts the fifth, so that every row gets posteriors from a
# model that never saw it. On those held-out posteriors it learns one temperature
# :math:`T` that divides every log posterior before they are normalised again, and
# then refits the estimator on all rows. :math:`T > 1` softens posteriors that are
# too sure; the ranking of the classes, hence the zero-one decision, is unchanged.
import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from bayesrule import Calibrated, GaussianNB
from bayesrule.metrics import brier_score, expected_calibration_error
from bayesrule.plot import reliability_diagram

X, y = load_digits(return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
raw = GaussianNB().fit(X_tr, y_tr)
calibrated = Calibrated(GaussianNB(), cv=5, random_state=0).fit(X_tr, y_tr)
print(f"temperature T = {calibrated.temperature_:.2f}")

# %%
# Scores on held-out digits
# -------------------------
# The Brier score is the mean squared distance from the posteriors to the one-hot
# truth; the expected calibration error (ECE) bins the rows by their top posterior
# and averages the gap between confidence and accuracy; the log loss is the mean of
# :math:`-\ln P(\omega_{\mathrm{true}}|x)`. All three are lower for better posteriors.
for name, model in (("GaussianNB", raw), ("Calibrated", calibrated)):
    proba = model.predict_proba(X_te)
    print(
        f"{name:10s}  accuracy {model.score(X_te, y_te):.3f}  "
        f"Brier {brier_score(y_te, proba, model.classes_):.3f}  "
        f"ECE {expected_calibration_error(y_te, proba, model.classes_):.3f}  "
        f"log loss {log_loss(y_te, proba, labels=model.classes_):.3f}"
    )

# %%
# Reliability diagrams
# --------------------
# Each dot is a bin of rows by their top posterior: its mean confidence across, its
# accuracy up; the grey bars are the share of rows in each bin. Naive Bayes puts
# nearly every row in the last bin and is wrong there more often than it claims;
# after calibration the dots lie closer to the diagonal.
fig, axes = plt.subplots(1, 2, figsize=(10, 4.8), sharey=True)
for ax, (name, model) in zip(axes, (("GaussianNB", raw), ("Calibrated", calibrated)), strict=True):
    reliability_diagram(model, X_te, y_te, ax=ax)
    ax.set_title(f"{name}: {ax.get_title()}")
fig.tight_layout()
