"""The additive terms of a mixture's log-density that ``explain`` reports.

With ``L_k = ln w_k + ln N(x; mu_k, Sigma_k)`` and the responsibilities ``r_k =
exp(L_k) / sum_j exp(L_j)``, ``ln p(x) = ln sum_k exp(L_k) = sum_k r_k L_k - sum_k r_k
ln r_k`` exactly: a term per component (its responsibility times its weighted log
density) and the mixing term (the entropy of the responsibilities, >= 0).
"""

from __future__ import annotations

import numpy as np


def log_terms(like, X) -> tuple[list[str], np.ndarray]:
    """``Mixture.log_terms``: per component ``r_k L_k`` (components numbered within
    each class; a class with fewer has 0 there), then the mixing term."""
    like.check_ready()
    X = np.asarray(X, dtype=np.float64)
    n, C = X.shape[0], like.n_classes_
    K = max(m.n_components for m in like.mixtures_)
    terms = np.zeros((n, C, K + 1))
    for c, model in enumerate(like.mixtures_):
        L = model.component_log_density(X)  # (n, K_c)
        top = L.max(axis=1, keepdims=True)
        finite = np.isfinite(top[:, 0])
        with np.errstate(invalid="ignore", over="ignore"):
            r = np.exp(L - np.where(np.isfinite(top), top, 0.0))
            r /= r.sum(axis=1, keepdims=True)
        on = r > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            part = np.where(on, r * L, 0.0)
            mixing = -np.where(on, r * np.log(r), 0.0).sum(axis=1)
        terms[:, c, : L.shape[1]] = np.where(finite[:, None], part, 0.0)
        terms[:, c, K] = np.where(finite, mixing, -np.inf)
    names = [f"component {k + 1}" for k in range(K)]
    return [*names, "mixing (entropy of the responsibilities)"], terms
