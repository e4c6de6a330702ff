"""Every estimator of the registry at its defaults on real data: scikit-learn's iris, wine,
breast cancer and digits and the Palmer penguins. Each fits and cross-validates (5-fold,
stratified) at least as accurately as its scikit-learn counterpart at its defaults, less
0.01; where the counterpart refuses the data (scikit-learn's QDA on collinear columns),
at least as accurately as scikit-learn's GaussianNB, less 0.01."""

from functools import cache

import numpy as np
import pytest
from real_data import NAMES, counterpart, load
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB

from bayesrule.estimators import ESTIMATORS

CV = StratifiedKFold(5, shuffle=True, random_state=0)

#: models with no scikit-learn model of their family; the floor is said beside each
NO_COUNTERPART = {
    # a Poisson rate per class and feature: no scikit-learn model; measured against
    # scikit-learn's MultinomialNB only on counts (digits), on measurements against chance
    "PoissonNB": ("digits",),
}


@cache
def baseline(name: str, dataset: str) -> float:
    X, y = load(dataset)
    try:
        with np.errstate(all="ignore"):
            return cross_val_score(counterpart(name)(), X, y, cv=CV, error_score="raise").mean()
    except Exception:  # the counterpart refuses the data: GaussianNB is the floor
        return cross_val_score(GaussianNB(), X, y, cv=CV).mean()


def chance(y) -> float:
    return np.unique(y, return_counts=True)[1].max() / len(y)


@pytest.mark.slow
@pytest.mark.parametrize("dataset", NAMES)
@pytest.mark.parametrize("entry", ESTIMATORS, ids=lambda e: e.cls.__name__)
def test_defaults_work_on_real_data(entry, dataset):
    X, y = load(dataset)
    name = entry.cls.__name__
    ours = cross_val_score(clone(entry.cls()), X, y, cv=CV, error_score="raise").mean()
    if name in NO_COUNTERPART and dataset not in NO_COUNTERPART[name]:
        assert ours > chance(y) + 0.1, (name, dataset, ours)
    else:
        assert ours >= baseline(name, dataset) - 0.01, (
            name,
            dataset,
            ours,
            baseline(name, dataset),
        )
