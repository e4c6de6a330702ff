"""Real data sets for the out-of-the-box checks: scikit-learn's bundled iris, wine, breast
cancer and digits, and the Palmer penguins (numeric columns, rows with a missing
measurement dropped), each with the scikit-learn estimator every bayesrule estimator is
measured against at its defaults."""

from functools import cache

import numpy as np
import palmerpenguins
from sklearn import datasets, discriminant_analysis, naive_bayes, neighbors

PENGUIN_COLUMNS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]


@cache
def penguins():
    df = palmerpenguins.load_penguins().dropna(subset=PENGUIN_COLUMNS)
    return df[PENGUIN_COLUMNS].to_numpy(float), df["species"].to_numpy()


@cache
def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The data set ``name`` (iris, wine, breast_cancer, digits, penguins) as (X, y)."""
    if name == "penguins":
        return penguins()
    data = getattr(datasets, f"load_{name}")()
    return data.data.astype(float), data.target


NAMES = ("iris", "wine", "breast_cancer", "digits", "penguins")

#: the scikit-learn estimator each bayesrule estimator is measured against (by class
#: name); GaussianNB where scikit-learn has no model of the same family
COUNTERPARTS = {
    "QuadraticDiscriminant": discriminant_analysis.QuadraticDiscriminantAnalysis,
    "BayesClassifier": discriminant_analysis.QuadraticDiscriminantAnalysis,
    "GaussianMixtureBayes": discriminant_analysis.QuadraticDiscriminantAnalysis,
    "LinearDiscriminant": discriminant_analysis.LinearDiscriminantAnalysis,
    "GaussianNB": naive_bayes.GaussianNB,
    "NearestMean": neighbors.NearestCentroid,
    "BernoulliNB": naive_bayes.BernoulliNB,
    "MultinomialNB": naive_bayes.MultinomialNB,
    "ComplementNB": naive_bayes.ComplementNB,
    "PoissonNB": naive_bayes.MultinomialNB,
    "CategoricalNB": naive_bayes.CategoricalNB,
}


def counterpart(name: str):
    return COUNTERPARTS.get(name, naive_bayes.GaussianNB)
