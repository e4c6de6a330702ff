"""Class covariances from a scikit-learn covariance estimator
(:mod:`bayesrule.likelihoods.estimated_covariance`)."""

import numpy as np
import pytest
from sklearn.covariance import OAS, LedoitWolf
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from bayesrule.likelihoods.estimated_covariance import estimated, refuse_weights


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4)) @ rng.normal(size=(4, 4))
    y = np.repeat([0, 1, 2], 30)
    return X + y[:, None], y


@pytest.mark.parametrize("make", [LedoitWolf, OAS])
def test_pooled_equals_scikit_learns_lda(make):
    X, y = _data()
    stats, pooled = estimated(make(), X, y, 3, tied=True)
    lda = LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=make()).fit(X, y)
    np.testing.assert_allclose(pooled, lda.covariance_, rtol=1e-12)
    np.testing.assert_allclose(stats.mean, lda.means_, rtol=1e-12)


def test_per_class_is_the_estimator_on_each_class():
    X, y = _data()
    _, per_class = estimated(OAS(), X, y, 3, tied=False)
    for c in range(3):
        np.testing.assert_allclose(per_class[c], OAS().fit(X[y == c]).covariance_, rtol=1e-13)


def test_refusals():
    X, y = _data()
    with pytest.raises(TypeError, match="scikit-learn covariance estimator"):
        estimated("oas", X, y, 3, tied=True)
    with pytest.raises(ValueError, match="takes no sample_weight"):
        refuse_weights(np.ones(90))
