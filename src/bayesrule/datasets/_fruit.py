"""Seed 003's fruit at a self-checkout: three bivariate Gaussian classes."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._common import _check_n, _gaussian, _result, _rng

#: Class labels of the fruit problem, in the order of the parameters below.
FRUIT_CLASSES: tuple[str, ...] = ("apple", "orange", "grapefruit")

#: Feature names: weight in grams, colour wavelength in nanometres.
FRUIT_FEATURES: tuple[str, ...] = ("weight_g", "color_nm")

#: True class means, shape (3, 2), rows in ``FRUIT_CLASSES`` order.
FRUIT_MEANS: np.ndarray = np.array([[150.0, 560.0], [160.0, 615.0], [230.0, 620.0]])

#: True class covariances, shape (3, 2, 2): the features are independent in each class.
FRUIT_COVARIANCES: np.ndarray = np.array(
    [np.diag([200.0, 200.0]), np.diag([250.0, 150.0]), np.diag([400.0, 200.0])]
)

#: Problem-specific priors (how often a shopper brings each fruit), not class frequencies.
FRUIT_PRIORS: np.ndarray = np.array([0.4, 0.4, 0.2])

for _array in (FRUIT_MEANS, FRUIT_COVARIANCES, FRUIT_PRIORS):
    _array.flags.writeable = False
del _array

_FRUIT_DESCR = """\
Fruit at a self-checkout (synthetic)
------------------------------------

A scale and a camera measure each fruit placed on a self-checkout: its weight in
grams and the dominant wavelength of its colour in nanometres. The three classes
are green apples, oranges and grapefruit, each drawn from a two-dimensional
Gaussian whose features are independent:

    class        mean (g, nm)    variances (g^2, nm^2)
    apple        (150, 560)      (200, 200)
    orange       (160, 615)      (250, 150)
    grapefruit   (230, 620)      (400, 200)

Colour separates apples from the two citrus fruits; weight separates oranges from
grapefruit. The priors (0.4, 0.4, 0.2) describe how often shoppers buy each fruit,
not how many samples of each class were collected: every class has the same number
of samples here. A quadratic Bayes classifier with these priors is correct on about
97.5 % of fresh samples.

Samples are stored in class order: all apples, then all oranges, then grapefruit.
"""


def fruit(
    n_per_class: int = 1000,
    random_state: int | np.random.Generator | None = None,
    *,
    return_X_y: bool = False,
) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """Draw the apple / orange / grapefruit data of the fruit tutorial.

    Each class is a bivariate Gaussian over (weight in g, colour wavelength in nm)
    with the true parameters ``FRUIT_MEANS`` and ``FRUIT_COVARIANCES``.

    Parameters
    ----------
    n_per_class : int, default=1000
        Number of samples drawn from each of the three classes.
    random_state : int, numpy.random.Generator or None, default=None
        Seed or generator passed to :func:`numpy.random.default_rng`; the same
        integer always gives the same data.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        With keys ``data`` (3 * n_per_class, 2) float64, ``target`` (3 * n_per_class,)
        string labels, rows in class order; ``feature_names``, ``target_names``,
        the true ``means`` (3, 2), ``covariances`` (3, 2, 2) and ``priors`` (3,) in
        ``target_names`` order, and ``DESCR``.
    (X, y) : tuple of ndarray
        If ``return_X_y`` is True.

    Raises
    ------
    TypeError
        If ``n_per_class`` is not an integer or ``random_state`` cannot seed a generator.
    ValueError
        If ``n_per_class`` is less than 1.

    Notes
    -----
    Estimators sort their ``classes_``, so ``("apple", "grapefruit", "orange")`` is the
    fitted order. Pass the priors as a mapping to keep them with their classes:
    ``priors=dict(zip(data.target_names, data.priors))``.

    Examples
    --------
    >>> from bayesrule.datasets import fruit
    >>> data = fruit(500, random_state=0)
    >>> data.data.shape, data.target.shape
    ((1500, 2), (1500,))
    >>> data.feature_names
    ['weight_g', 'color_nm']
    >>> data.target[[0, 500, 1000]].tolist()
    ['apple', 'orange', 'grapefruit']
    >>> dict(zip(data.target_names.tolist(), data.priors.tolist()))
    {'apple': 0.4, 'orange': 0.4, 'grapefruit': 0.2}
    >>> X, y = fruit(10, random_state=0, return_X_y=True)
    >>> X.shape, y.dtype.kind
    ((30, 2), 'U')
    """
    n = _check_n(n_per_class, "n_per_class")
    rng = _rng(random_state)
    blocks = []
    for mean, cov in zip(FRUIT_MEANS, FRUIT_COVARIANCES, strict=True):
        blocks.append(_gaussian(rng, mean, cov, n))
    X = np.concatenate(blocks).astype(np.float64, copy=False)
    y = np.repeat(np.array(FRUIT_CLASSES), n)
    return _result(
        X,
        y,
        return_X_y,
        feature_names=list(FRUIT_FEATURES),
        target_names=np.array(FRUIT_CLASSES),
        means=FRUIT_MEANS.copy(),
        covariances=FRUIT_COVARIANCES.copy(),
        priors=FRUIT_PRIORS.copy(),
        DESCR=_FRUIT_DESCR,
    )
