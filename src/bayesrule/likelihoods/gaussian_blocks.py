"""A Gaussian fitted on row blocks (a :class:`~bayesrule._blocks.Blocks`, e.g. the
partitions of a Dask collection): the class moments of every block merged, and with
``shrinkage="auto"`` (Ledoit-Wolf) a second pass for its sums."""

from __future__ import annotations

from .._blocks import add
from ..stats.moments import class_moments, merge
from .covariance import pooled_moments
from .ledoit_wolf import ledoit_wolf_pooled, ledoit_wolf_scales, ledoit_wolf_sums
from .regularisation import check_counts


def fit_blocks(like, blocks, n_classes):
    """Fit the Gaussian ``like`` on ``blocks`` of ``(X, y, w)`` as ``fit`` on all of
    them (see :meth:`~bayesrule.likelihoods.Gaussian.fit_blocks`)."""
    structure = like._check_params()
    if "cv" in like._amounts(structure):
        raise ValueError("pooling or shrinkage 'cv' needs the data in memory; give floats.")
    auto = like._ledoit_wolf
    kind = "full" if auto else structure.stats_kind
    stats = blocks.map_reduce(_block_moments, _merge, like, n_classes, kind)
    if stats is None:
        raise ValueError("X has no rows: every block of the Dask collection is empty.")
    if not auto:
        return like.set_statistics(stats)
    check_counts(stats)
    means, scales = stats.mean, ledoit_wolf_scales(stats)
    beta = blocks.map_reduce(_block_sums, add, n_classes, means, scales)
    return like.set_statistics(pooled_moments(stats), _covariance=ledoit_wolf_pooled(stats, beta))


def _block_moments(part, like, n_classes, kind):
    """One checked block's class moments of ``kind``."""
    X, y, w = part
    if kind == like._check_params().stats_kind:
        return like.statistics(X, y, n_classes, w)
    return class_moments(X, y, n_classes, w, kind=kind)


def _block_sums(part, n_classes, means, scales):
    """One checked block's Ledoit-Wolf sums."""
    X, y, w = part
    return ledoit_wolf_sums(X, y, n_classes, w, means, scales)


def _merge(a, b):
    return b if a is None else a if b is None else merge(a, b)
