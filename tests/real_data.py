"""Real data sets for the out-of-the-box checks: scikit-learn's bundled iris, wine, breast
cancer and digits, and the Palmer penguins (numeric columns, rows with a missing
measurement dropped), each with the scikit-learn estimator every bayesrule estimator is
measured against at its defaults."""

from functools import cache

import numpy as np
import palmerpenguins
from sklearn import datasets, discriminant_analysis, naive_bayes, neighbors
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

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


def binned_categorical_nb():
    """scikit-learn's discrete naive Bayes on real-valued columns, at its defaults:
    KBinsDiscretizer's 5 quantile bins per column as codes, then CategoricalNB."""
    return make_pipeline(KBinsDiscretizer(encode="ordinal"), naive_bayes.CategoricalNB())


#: the semi-naive models relax discrete naive Bayes: measured against scikit-learn's
DISCRETE = {
    "AODE",
    "TAN",
    "KDB",
    "SPODE",
    "AnDE",
    "WAODE",
    "HNB",
    "StructureSearch",
    "SKDB",
    "ESKDB",
}


def counterpart(name: str):
    """A maker of the scikit-learn estimator that ``name`` is measured against."""
    if name in DISCRETE:
        return binned_categorical_nb
    return COUNTERPARTS.get(name, naive_bayes.GaussianNB)


def fallback(name: str):
    """What ``name`` is measured against where its counterpart refuses the data
    (scikit-learn's QDA on collinear columns, its CategoricalNB on a category unseen
    in training): the binned CategoricalNB for discrete models, else GaussianNB."""
    return binned_categorical_nb if name == "CategoricalNB" else naive_bayes.GaussianNB
