"""Seed 000's Gaussian mixture example: a one-mode class beside a two-mode class."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._common import _check_n, _gaussian, _result, _rng

#: the true model: per class label, its component weights, means and covariances
_TWO_MODES = {
    1: {
        "weights": np.array([1.0]),
        "means": np.array([[0.0, 0.0]]),
        "covariances": np.array([[[1.2, 0.0], [0.0, 1.2]]]),
    },
    2: {
        "weights": np.array([0.5, 0.5]),
        "means": np.array([[3.0, -1.0], [2.0, 3.0]]),
        "covariances": np.array([[[0.6, 0.3], [0.3, 1.2]], [[1.2, -0.3], [-0.3, 0.6]]]),
    },
}
_TWO_MODES_PRIORS = np.array([1.0, 2.0]) / 3.0

_TWO_MODES_DESCR = """\
One mode against two (synthetic, seed 000, section 3.4)
-------------------------------------------------------

Two features, two classes in the ratio 1 : 2. Class 1 is one Gaussian near the
origin; class 2 is a mixture of two equally weighted Gaussians, one near (3, -1)
and one near (2, 3):

    class  weight  mean      covariance
    1      1       (0, 0)    [[1.2, 0], [0, 1.2]]
    2      1/2     (3, -1)   [[0.6, 0.3], [0.3, 1.2]]
    2      1/2     (2, 3)    [[1.2, -0.3], [-0.3, 0.6]]

The priors are 1/3 and 2/3. The classes overlap: the Bayes classifier with the
true densities errs on about 3.9 % of fresh samples. A single Gaussian for class 2
(mean about (2.5, 1), stretched along the line between the modes) puts density
between the modes where class 2 has little, and errs on about 5.3 % even when
fitted on a large sample: a Gaussian mixture per class fits what one Gaussian
cannot.

Samples are stored in class order: class 1, then class 2's first mode, then its
second; ``component`` gives each sample's mode within its class (0 or 1).
"""


def two_modes(
    n_samples: int = 300,
    *,
    random_state: int | np.random.Generator | None = None,
    return_X_y: bool = False,
) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """Draw seed 000's mixture example: class 1 one Gaussian, class 2 two Gaussians.

    A third of the samples (``n_samples // 3``) belong to class 1, drawn from one
    Gaussian at the origin; the rest to class 2, split evenly (the first mode gets
    the smaller half) between Gaussians near (3, -1) and (2, 3). See ``DESCR`` for
    the true parameters.

    Parameters
    ----------
    n_samples : int, default=300
        Total number of samples, at least 3 (so that every mode has one). The
        default is the seed's: 100 of class 1 and 200 of class 2.
    random_state : int, numpy.random.Generator or None, default=None
        Seed or generator passed to :func:`numpy.random.default_rng`; the same
        integer always gives the same data.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        With keys ``data`` (n_samples, 2) float64; ``target`` (n_samples,) the labels
        1 and 2, rows in class order; ``component`` (n_samples,) each sample's mode
        within its class; ``feature_names`` ``["x1", "x2"]``; ``target_names``
        ``array([1, 2])``; the true parameters as dicts from class label to array,
        ``weights`` (K,), ``means`` (K, 2) and ``covariances`` (K, 2, 2), with K = 1
        for class 1 and 2 for class 2 (the form ``GaussianMixtureBayes``'s
        ``weights_init`` and ``means_init`` take); ``priors`` (2,) the class
        probabilities 1/3 and 2/3 in ``target_names`` order; and ``DESCR``.
    (X, y) : tuple of ndarray
        If ``return_X_y`` is True.

    Raises
    ------
    TypeError
        If ``n_samples`` is not an integer or ``random_state`` cannot seed a generator.
    ValueError
        If ``n_samples`` is less than 3.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesrule.datasets import two_modes
    >>> data = two_modes(random_state=0)
    >>> data.data.shape, np.bincount(data.target).tolist()
    ((300, 2), [0, 100, 200])
    >>> np.bincount(data.component[data.target == 2]).tolist()
    [100, 100]
    >>> data.means[2]
    array([[ 3., -1.],
           [ 2.,  3.]])
    >>> data.weights[2], data.priors.round(4)
    (array([0.5, 0.5]), array([0.3333, 0.6667]))
    """
    n = _check_n(n_samples, "n_samples")
    if n < 3:
        raise ValueError(
            f"n_samples must be at least 3 (one sample for each of the three modes), got {n}."
        )
    rng = _rng(random_state)
    n1 = n // 3
    n2 = n - n1
    sizes = {1: [n1], 2: [n2 // 2, n2 - n2 // 2]}
    blocks, target, component = [], [], []
    for label, params in _TWO_MODES.items():
        for k, (mean, cov) in enumerate(zip(params["means"], params["covariances"], strict=True)):
            m = sizes[label][k]
            blocks.append(_gaussian(rng, mean, cov, m))
            target.append(np.full(m, label))
            component.append(np.full(m, k))
    X = np.concatenate(blocks).astype(np.float64, copy=False)
    y = np.concatenate(target)
    return _result(
        X,
        y,
        return_X_y,
        component=np.concatenate(component),
        feature_names=["x1", "x2"],
        target_names=np.array([1, 2]),
        weights={c: p["weights"].copy() for c, p in _TWO_MODES.items()},
        means={c: p["means"].copy() for c, p in _TWO_MODES.items()},
        covariances={c: p["covariances"].copy() for c, p in _TWO_MODES.items()},
        priors=_TWO_MODES_PRIORS.copy(),
        DESCR=_TWO_MODES_DESCR,
    )
