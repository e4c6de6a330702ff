"""
Neyman-Pearson: the most detections for a bounded false-alarm rate
==================================================================

Sometimes neither priors nor costs are known, but the rate of false alarms (calling
a negative sample positive) must stay below a bound :math:`\\alpha`. The
Neyman-Pearson lemma says that the rule that detects the most positives under that
bound compares the likelihood ratio :math:`p(x|\\text{pos}) / p(x|\\text{neg})` with a
threshold, chosen so that the false-alarm rate is :math:`\\alpha`. Each threshold is
one point of the ROC curve; the bound picks the point.
"""

# %%
# Breast tumours: detect the malignant ones
# -----------------------------------------
# In scikit-learn's breast cancer data, class 0 is malignant: that is the positive
# class, and a false alarm is a benign tumour called malignant. Half the data train
# the rule, the other half measure its rates. :class:`~bayesrule.NeymanPearson` fits a
# Gaussian model (one shared, shrunk covariance) and takes the threshold on the log
# likelihood ratio from held-out benign tumours (cross-fitting), so that the bound
# holds on new data.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_curve
from sklearn.model_selection import train_test_split

from bayesrule import LinearDiscriminant, NeymanPearson

X, y = load_breast_cancer(return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
malignant = y_te == 0


def rates(decided):
    """False-alarm rate (benign called malignant) and detection rate on the test half."""
    return np.mean(decided[~malignant] == 0), np.mean(decided[malignant] == 0)


def neyman_pearson(alpha):
    model = LinearDiscriminant(shrinkage="auto")
    return NeymanPearson(model, max_false_alarm=alpha, positive=0, random_state=0)


rules = {alpha: neyman_pearson(alpha).fit(X_tr, y_tr) for alpha in (0.01, 0.05, 0.1)}
for alpha, rule in rules.items():
    false_alarm, detection = rates(rule.predict(X_te))
    spread = np.sqrt(alpha * (1 - alpha) / np.sum(~malignant))
    print(
        f"alpha {alpha:.2f}: threshold {rule.threshold_:6.3f}, held-out false alarm "
        f"{rule.false_alarm_:.3f}; test false alarm {false_alarm:.3f} (+- {spread:.3f}), "
        f"detection {detection:.3f}"
    )

# %%
# The bound holds on average over new data, not on every test set. One test half has
# only a few hundred benign tumours, so its rate alone has the standard error printed
# after it; the threshold varies too, as it comes from the held-out benign tumours of
# the training half (at :math:`\alpha = 0.01`, from the single largest of their
# scores). Averaged over ten random halvings of the data, the test rates stay below
# their bounds.
splits = [train_test_split(X, y, test_size=0.5, random_state=s, stratify=y) for s in range(10)]
for alpha in rules:
    alarms = [
        np.mean(neyman_pearson(alpha).fit(Xa, ya).predict(Xb[yb == 1]) == 0)
        for Xa, Xb, ya, yb in splits
    ]
    print(f"alpha {alpha:.2f}: mean test false alarm over 10 splits {np.mean(alarms):.3f}")

# %%
# Against the Bayes rule
# ----------------------
# The minimum-error Bayes rule with the training class frequencies as priors is one
# more point on the same curve: the one whose threshold is the log prior odds.
bayes = LinearDiscriminant(shrinkage="auto").fit(X_tr, y_tr)
false_alarm, detection = rates(bayes.predict(X_te))
odds = np.log(bayes.class_prior_[1] / bayes.class_prior_[0])
print(
    f"Bayes rule: threshold ln P(benign)/P(malignant) {odds:.3f}; test false alarm "
    f"{false_alarm:.3f}, detection {detection:.3f}"
)

# %%
# The ROC curve
# -------------
# Sweeping the threshold on the test half's log likelihood ratios traces the ROC curve
# (:func:`sklearn.metrics.roc_curve`); every rule above is a point on it, and the
# dotted lines mark the bounds. A smaller :math:`\alpha` gives up detections for
# fewer false alarms.
score = rules[0.05].log_likelihood_ratio(X_te)
fpr, tpr, _ = roc_curve(malignant, score)
fig, ax = plt.subplots(figsize=(6, 5), layout="constrained")
ax.plot(fpr, tpr, color="0.3", label="ROC on the test half")
for (alpha, rule), color in zip(rules.items(), ("C0", "C1", "C2"), strict=True):
    ax.plot(*rates(rule.predict(X_te)), "o", color=color, label=f"Neyman-Pearson, alpha {alpha}")
    ax.axvline(alpha, color=color, linestyle=":")
ax.plot(false_alarm, detection, "k^", markersize=9, label="Bayes rule, zero-one loss")
ax.set(xlim=(-0.005, 0.2), ylim=(0.6, 1.005), title="Operating points on the ROC curve")
ax.set(xlabel="false-alarm rate (benign called malignant)", ylabel="detection rate")
ax.legend(loc="lower right", fontsize="small")
