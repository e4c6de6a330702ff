"""The BIC search of a class's mixture: which candidates to fit, their shared k-means
starts, which fitted candidates BIC may judge, and the choice.

Candidates are ``(covariance, k)`` pairs. Some are not fitted, some are fitted and then
refused (mclust gives such models no BIC), each with a reason that the fitted
``Mixture.refused_`` keeps:

* **not fitted**: more components than the class has distinct rows; more free
  parameters than rows (the candidate could interpolate its data, and BIC would not
  see it; not with ``init="hc"``, which judges as mclust does, :func:`mclust_rules`);
  too few distinct rows for the structure without ``reg_covar``;
* **refused after EM** (:func:`degenerate`), for k >= 2 only: a component backed by
  fewer than ``d + 1`` rows' weight (sample weights count as rows, as BIC's n counts
  them; not with ``init="hc"``), or a component at the variance floor, whose variance
  (less ``reg_covar``) in some direction is below :data:`FLOOR_RTOL` of the class's
  variance there, as on a component that collapsed onto a few rows sharing a value:
  only the regularisation keeps its density finite, and its likelihood would grow
  without bound as ``reg_covar`` shrinks;
* **failed**: EM stopped with an error (a singular covariance at ``reg_covar=0``).

The k-means starts depend only on the class's rows and k, so one set of starts per
(class, k) serves every structure (:func:`draw_starts`); in a search for k they are
several (:data:`SEARCH_STARTS`), each EM run from each, the best likelihood kept.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._text import class_name
from ..covariance import get_structure
from .checks import _check_previous, searched
from .model import MixtureModel, n_free

#: k-means starts per (class, k) when BIC chooses the number of components and
#: ``n_init="auto"``
SEARCH_STARTS = 3

#: a component whose variance (less reg_covar) in some direction is below this share
#: of the class's variance there is "at the variance floor"
FLOOR_RTOL = 1e-6


def n_starts(n_init, choosing_k: bool) -> int:
    """Starts per (class, k): ``n_init``, or with "auto" :data:`SEARCH_STARTS` in a search
    for k and 1 for a fixed k (scikit-learn's ``GaussianMixture`` default)."""
    if isinstance(n_init, str):
        return SEARCH_STARTS if choosing_k else 1
    return int(n_init)


def too_small(reg_covar: float, distinct: int, structure: str, k: int, d: int) -> int:
    """Distinct samples needed for nonsingular covariances at reg_covar=0 (0: enough):
    ``d + 1`` per component for full matrices of their own, ``k + d`` for a shared one
    (EEE), two per component otherwise (as a rule of thumb: mclust's models that share
    a volume, shape or orientation can need fewer, and EM says where they fail)."""
    if reg_covar > 0:
        return 0
    form = get_structure(structure)
    if form.dense:
        need = k + d if form.tied else k * (d + 1)
    else:
        need = 2 * k
    return need if distinct < need else 0


def candidates(mixture, k_fixed, n_rows: int, distinct: int, d: int):
    """The ``(covariance, k)`` pairs to fit for a class, and ``{pair: reason}`` of the
    ones left out. ``k_fixed``: the class's number of components, or None for "bic"."""
    structures = list(searched(mixture.covariance) or [mixture.covariance])
    if k_fixed is not None:
        return [(s, k_fixed) for s in structures], {}
    pairs, refused = [], {}
    for s in structures:
        for k in range(1, mixture.max_components + 1):
            need = too_small(mixture.reg_covar, distinct, s, k, d)
            if k > distinct:
                refused[s, k] = f"more components than distinct rows ({k} > {distinct})"
            elif n_free(s, k, d) > n_rows and not mclust_rules(mixture):
                refused[s, k] = (
                    f"more free parameters than rows ({n_free(s, k, d)} > {n_rows}; BIC "
                    "cannot judge it)"
                )
            elif need:
                refused[s, k] = f"too few distinct rows at reg_covar=0 ({distinct} < {need})"
            else:
                pairs.append((s, k))
    if not pairs:  # the first candidate, whatever it lacks (fit then says what)
        pairs = [(structures[0], 1)]
        refused.pop(pairs[0], None)
    return pairs, refused


def mclust_rules(mixture) -> bool:
    """Whether the search judges its candidates by mclust's rules (``init="hc"``, which
    reproduces ``MclustDA``): every candidate EM fits gets its BIC, whatever its number
    of parameters or the rows behind a component; only a component at the variance
    floor (where mclust's EM stops on a singular covariance) is refused."""
    return getattr(mixture, "init", "kmeans") == "hc"


def one_component_aliases(pairs: list, covariance) -> tuple[list, dict]:
    """The candidates to fit, and ``{pair: the fitted pair it equals}``: in a search
    among mclust's models (``covariance="bic"``) the one-component models of a form
    are one model (EII and VII; EEI, VEI, EVI and VVI; EEE ... VVV: mclust's XII, XXI
    and XXX), fitted once under its first name; the others share its fit and BIC (so
    the first name wins BIC's tie, as in mclust's table)."""
    if covariance != "bic":
        return pairs, {}
    first, same, kept = {}, {}, []
    for structure, k in pairs:
        if k == 1:
            form = get_structure(structure).form
            if form in first:
                same[structure, k] = first[form]
                continue
            first[form] = (structure, k)
        kept.append((structure, k))
    return kept, same


def with_aliases(results: list, same: dict, pairs: list) -> list:
    """The fitted candidates' ``(pair, model, BIC, warnings, error)`` in the order of
    ``pairs``, each alias (:func:`one_component_aliases`) with its fitted pair's."""
    if not same:
        return results
    fitted = {result[0]: result for result in results}
    return [(pair, *fitted[same.get(pair, pair)][1:]) for pair in pairs]


def _floor_share(model: MixtureModel, reg_covar: float) -> tuple[int, float]:
    """The component with the least variance (less ``reg_covar``), in units of the
    class's variance in the same direction, and that share. The class's covariance is
    the mixture's own (within plus between components), less ``reg_covar``; directions
    in which the class itself has no variance are left out."""
    K, d = model.means_.shape
    weights = model.weights_ / model.weights_.sum()
    S = model.full_covariances() - reg_covar * np.eye(d)
    centred = model.means_ - weights @ model.means_
    total = np.einsum("k,kij->ij", weights, S) + (centred.T * weights) @ centred
    form = get_structure(model.covariance).form
    if form != "full":
        var = np.einsum("kjj->kj", S)
        scale = np.diag(total)
        if form == "spherical":
            var, scale = var[:, :1], scale.mean(keepdims=True)
        keep = scale > 0
        if not keep.any():
            return 0, np.inf
        share = var[:, keep] / scale[keep]
        k = int(np.argmin(share.min(axis=1)))
        return k, float(share[k].min())
    values, vectors = np.linalg.eigh(total)
    keep = values > 1e-12 * max(values[-1], 0.0)
    if not keep.any():
        return 0, np.inf
    T = vectors[:, keep] / np.sqrt(values[keep])
    lowest = np.linalg.eigvalsh(np.swapaxes(T, 0, 1) @ S @ T)[:, 0]  # (K,)
    k = int(np.argmin(lowest))
    return k, float(lowest[k])


def degenerate(
    model: MixtureModel, total_weight: float, reg_covar: float, lenient: bool = False
) -> str | None:
    """Why BIC may not judge a fitted candidate (see the module docstring), or None;
    ``lenient``: by mclust's rules (:func:`mclust_rules`), the variance floor only."""
    K, d = model.means_.shape
    if K == 1:
        return None
    rows = model.weights_ * total_weight
    k = int(np.argmin(rows))
    if rows[k] < (d + 1) * (1 - 1e-9) and not lenient:
        held = f"{rows[k]:.3g}"
        if float(held) >= d + 1:  # not "3 < 3"
            held = f"{rows[k]:.9g}"
        return (
            f"a component backed by fewer than d + 1 rows' weight (component {k} holds "
            f"{held} < d + 1 = {d + 1})"
        )
    k, share = _floor_share(model, reg_covar)
    if share < FLOOR_RTOL:
        return (
            f"a component at the variance floor (component {k} has {max(share, 0.0):.1e} "
            "of the class's variance in some direction, less reg_covar)"
        )
    return None


def choose(
    c,
    results,
    refused: dict,
    total_weight: float,
    reg_covar: float,
    choosing: bool,
    lenient: bool = False,
):
    """The lowest BIC among the fitted candidates of class ``c`` that BIC may judge
    (``lenient``: by mclust's rules, :func:`mclust_rules`).

    ``results``: per candidate ``(pair, model or None, bic, warnings, error)`` in the
    order fitted. Refusals go into ``refused`` (when ``choosing``). Returns the chosen
    model, its warnings and the BIC table; when every fitted candidate was refused, the
    lowest BIC among them with a warning; when every one failed, raises the first error.
    """
    table, best, fallback, first_error = {}, None, None, None
    for pair, model, bic, caught, error in results:
        if model is None:
            first_error = first_error or error
            refused[pair] = f"EM failed ({error})"
            continue
        reason = degenerate(model, total_weight, reg_covar, lenient) if choosing else None
        if reason is not None:
            refused[pair] = reason
            if fallback is None or bic < fallback[2]:
                fallback = (model, caught, bic, pair, reason)
            continue
        table[pair] = bic
        if best is None or bic < best[2]:  # the first of equal BICs
            best = (model, caught, bic)
    if best is None and fallback is not None:
        model, caught, bic, pair, reason = fallback
        table[pair] = bic
        named = where(c, pair[1], pair[0])
        caught = [
            *caught,
            (f"{named}: every candidate was refused; kept it ({reason})", UserWarning),
        ]
        best = (model, caught, bic)
    if best is None:
        raise first_error
    return best[0], best[1], table


def warm_of(previous: list | None, c: int, structure: str, k: int) -> MixtureModel | None:
    """Class c's last mixture when the candidate (structure, k) is its own (a warm
    start), else None (the candidate starts as a first fit does)."""
    prev = previous[c] if previous is not None else None
    if prev is not None and (prev.covariance, prev.n_components) != (structure, k):
        return None
    return prev


def check_warm(c: int, previous: list | None, d: int) -> None:
    """Refuse a warm start from a fit on other features, as fit_mixture does, whatever
    the candidates (a search would otherwise start the others from k-means, silently)."""
    prev = previous[c] if previous is not None else None
    if prev is not None and prev.means_.shape[1] != d:
        try:
            _check_previous(prev, prev.covariance, prev.n_components, d)
        except ValueError as exc:
            named = where(c, prev.n_components, prev.covariance)
            raise ValueError(f"{named}: {exc}") from None


def where(c: int, k: int, structure: str) -> str:
    """How errors and warnings name a class's candidate."""
    return f"{class_name(c)} (n_components={k}, covariance={structure!r})"


def distinct_rows(X: np.ndarray) -> int:
    """Number of distinct rows of ``X`` (byte-wise after mapping -0.0 to 0.0; at least 1)."""
    rows = np.ascontiguousarray(X + 0.0).view(np.dtype((np.void, X.dtype.itemsize * X.shape[1])))
    return int(np.unique(rows).shape[0])


def _runs(ks: list[int]) -> str:
    """``[2, 3, 4, 7]`` as ``"2-4, 7"``."""
    parts, start = [], 0
    for i in range(1, len(ks) + 1):
        if i == len(ks) or ks[i] != ks[i - 1] + 1:
            first, last = ks[start], ks[i - 1]
            parts.append(str(first) if first == last else f"{first}-{last}")
            start = i
    return ", ".join(parts)


def show_refused(refused: dict) -> list[str]:
    """Readable lines of a class's refused candidates: per structure and reason, the ks
    together with the first one's details."""
    groups: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for (structure, k), why in sorted(refused.items()):
        kind, _, details = why.partition(" (")
        groups.setdefault((structure, kind), []).append((k, details.removesuffix(")")))
    lines = []
    for (structure, kind), items in groups.items():
        k0, details = items[0]
        more = "; ..." if len(items) > 1 else ""
        lines.append(
            f"  refused {structure}, k = {_runs([k for k, _ in items])}: {kind} "
            f"(k = {k0}: {details}{more})"
        )
    return lines


def warn_all(caught) -> None:
    """Show the chosen candidate's warnings (message, category)."""
    for message, category in caught:
        warnings.warn(message, category, stacklevel=4)
