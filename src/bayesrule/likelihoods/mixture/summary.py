"""The readable summary of a fitted :class:`~bayesrule.likelihoods.mixture.Mixture`."""

from __future__ import annotations

import numpy as np

from ..._text import FEATURES_SHOWN, block
from .search import show_refused


def describe(mixture, classes, feature_names) -> list[str]:
    """Readable lines of a fitted mixture: per class the weights, means and variances of
    its components, its BIC and the refused candidates."""
    shown = list(feature_names[:FEATURES_SHOWN])
    more = len(feature_names) - len(shown)
    n_components, covariance = mixture.n_components, mixture.covariance
    if isinstance(n_components, dict):  # keyed by class position: show the labels
        n_components = {classes[k]: v for k, v in n_components.items()}
    if isinstance(covariance, dict):
        covariance = {classes[k]: v for k, v in covariance.items()}
    lines = [
        f"Gaussian mixture per class (EM), n_components={n_components!r}, "
        f"covariance={covariance!r}, reg_covar={mixture.reg_covar:g}"
        + ("" if mixture.prior is None else f", MAP EM under prior={mixture.prior!r}")
    ]
    refusals = getattr(mixture, "refused_", None) or [{}] * len(mixture.mixtures_)
    for label, model, table, refused in zip(
        classes, mixture.mixtures_, mixture.bic_, refusals, strict=True
    ):
        key = (model.covariance, model.n_components)
        state = "converged" if model.converged_ else "not converged"
        lines.append(
            f"class {label}: {model.n_components} "
            f"component{'s' if model.n_components > 1 else ''}, covariance="
            f"{model.covariance!r}, {model.n_iter_} EM iterations ({state}), "
            f"BIC {table[key]:.6g}"
            + (f" (lowest of {len(table)} candidates)" if len(table) > 1 else "")
            + (f"; {len(refused)} refused (no BIC):" if refused else "")
        )
        lines += show_refused(refused)
        lines += block("weights", model.weights_)
        columns = f"rows: components; columns: {', '.join(map(str, shown))}"
        lines += block(f"means ({columns})", model.means_[:, : len(shown)])
        variances = np.einsum("kjj->kj", model.full_covariances())
        lines += block(f"variances ({columns})", variances[:, : len(shown)])
        if more > 0:
            lines.append(f"  ... ({more} more features)")
    return lines
