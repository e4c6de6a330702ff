"""pomegranate (CPU) counterparts of the benchmark's models, where it has them.

pomegranate 1.x (built on PyTorch) is optional: without it the benchmark's pomegranate
columns read "-" and the header says how to install it. Its CPU build of PyTorch is the
one to install (the default wheel pulls several GB of CUDA libraries)::

    .venv/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu
    .venv/bin/pip install pomegranate

The counterparts take the benchmark's float64 NumPy data as they are (pomegranate keeps
the dtype): GaussianNB is a ``BayesClassifier`` of ``Normal(covariance_type="diag")``
per class, QDA one of ``Normal(covariance_type="full")``, and a Gaussian mixture a
``GeneralMixtureModel`` of full-covariance ``Normal``. pomegranate has no shared
covariance (LDA), no multinomial model, and no sparse input, so those rows have no
pomegranate time.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

LABEL = "pomegranate"
INSTALL = (
    "pip install torch --index-url https://download.pytorch.org/whl/cpu && pip install pomegranate"
)

#: covariance type of the per-class Normal, by benchmark model key
CLASSIFIERS = {"gnb": "diag", "qda": "full"}


@cache
def available() -> str | None:
    """A note with pomegranate's and PyTorch's versions and threads, or None without it."""
    try:
        import pomegranate
        import torch
    except Exception:
        return None
    return (
        f"pomegranate {getattr(pomegranate, '__version__', '?')} on torch {torch.__version__} "
        f"({torch.get_num_threads()} threads)"
    )


def has(model_key: str) -> bool:
    return available() is not None and model_key in CLASSIFIERS


def classifier(model_key: str, n_classes: int) -> Any:
    """An unfitted pomegranate Bayes classifier for the benchmark model ``model_key``."""
    from pomegranate.bayes_classifier import BayesClassifier
    from pomegranate.distributions import Normal

    covariance = CLASSIFIERS[model_key]
    return BayesClassifier([Normal(covariance_type=covariance) for _ in range(n_classes)])


def fit_mixture(X: np.ndarray, init: dict[str, np.ndarray], iterations: int) -> Any:
    """A full-covariance mixture fitted by exactly ``iterations`` EM iterations from the
    given weights, means and precisions (``tol=-inf``: it never stops early)."""
    from pomegranate.distributions import Normal
    from pomegranate.gmm import GeneralMixtureModel

    covs = np.linalg.inv(init["precisions_init"])
    components = [
        Normal(means=init["means_init"][k], covs=covs[k], covariance_type="full")
        for k in range(len(covs))
    ]
    model = GeneralMixtureModel(
        components, priors=init["weights_init"], max_iter=iterations, tol=-np.inf
    )
    return model.fit(X)


def mixture_means(model: Any) -> np.ndarray:
    return np.stack([to_numpy(d.means) for d in model.distributions])


def to_numpy(value: Any) -> np.ndarray:
    """A PyTorch tensor (or anything array-like) as a NumPy array."""
    detach = getattr(value, "detach", None)
    return np.asarray(detach().cpu().numpy() if detach is not None else value)
