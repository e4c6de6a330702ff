"""Safe persistence of fitted estimators: a versioned file of JSON and arrays, never pickle.

:func:`save` writes one ``.npz`` container (written by :func:`numpy.savez`, read back
with ``allow_pickle=False`` semantics) and :func:`load` reads it. Loading runs no code
named in the file: classes are looked up in an explicit registry of bayesrule classes
(:func:`register` adds one), and every other value is plain data.

File format, version 1
----------------------
Zip members (NumPy ``.npy`` arrays, stored uncompressed):

* ``__bayesrule__.json``: a uint8 array holding a UTF-8 JSON document with ``format``
  (``"bayesrule-model"``), ``format_version`` (int), ``bayesrule_version``, ``created``
  (UTC, ISO 8601), ``class`` (the registered name of the estimator's class),
  ``estimator`` (the encoded object), ``params`` (its ``get_params(deep=False)``,
  encoded) and ``arrays`` (name -> dtype and shape of every array entry).
* ``__bayesrule__.sha256``: SHA-256 (hex, as uint8) over the JSON text and then, in
  sorted name order, each array's name, dtype, shape and C-order bytes.
* one entry per array (``a0``, ``a1``, ...): numeric, bool, str or bytes dtypes only.

The zip comment holds ``bayesrule-sha256=<hex>``: SHA-256 of the whole file as written
by NumPy (without the comment), so an edited byte anywhere is detected.

Values are encoded recursively: ``None``, bool, int, str and finite floats as JSON
(floats round-trip exactly); ``{"__float__": "nan"}`` (or ``"inf"``, ``"-inf"``); NumPy
scalars as ``{"__numpy__": dtype, "value": v}`` (or ``"array": name`` for dtypes JSON
cannot hold exactly); arrays as ``{"__array__": name}``; object arrays of labels as
``{"__objects__": [...], "shape": [...], "id": k}``; ``{"__tuple__": [...]}``; lists
as lists; dicts as ``{"__dict__": [[key, value], ...]}`` (keys of any encodable type);
registered objects as ``{"__class__": name, "id": k, "state": {attribute: value}}``;
a second reference to an object or object array already written as ``{"__ref__": k}``.
The stable anchor across versions is the JSON entry with ``format`` and
``format_version``; a newer version is refused with a request to upgrade bayesrule.

Examples
--------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from bayesrule import GaussianNB
>>> from bayesrule.io import load, save
>>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]], float)
>>> nb = GaussianNB().fit(X, ["a", "a", "a", "b", "b", "b"])
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = pathlib.Path(tmp) / "model.bayesrule"
...     save(nb, path)
...     again = load(path)
>>> bool(np.array_equal(again.predict_proba(X), nb.predict_proba(X)))
True
"""

from __future__ import annotations

import os
import secrets
from datetime import UTC, datetime

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..estimators.classifier import BayesClassifier
from ..estimators.state import check_classifier, check_decision_wrapper
from .codec import _Decoder, _Encoder, _Invalid, _registry, json_nodes, register
from .container import FORMAT, FORMAT_VERSION, _container, _unpack
from .reading import _max_bytes, read_bounded

__all__ = ["FORMAT", "FORMAT_VERSION", "info", "load", "register", "save"]


def save(estimator, path) -> None:
    """Write a fitted estimator to ``path``: JSON and arrays in one ``.npz`` file.

    Everything the estimator holds is stored (its parameters and every fitted
    attribute), so :func:`load` gives back an estimator that predicts bitwise the same,
    can be refitted, and continues ``partial_fit`` from the saved statistics. Nothing
    is pickled. The file is written to a temporary file in the same directory and then
    renamed over ``path``, so a reader never sees half a file.

    Parameters
    ----------
    estimator : fitted bayesrule estimator
        An instance of a registered class (every estimator of bayesrule).
    path : str or os.PathLike
        Where to write; used exactly as given (no ``.npz`` is appended).

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator is not fitted.
    TypeError
        If the estimator is not a registered class, or holds a value that cannot be
        saved (the message names the attribute and its type).

    Examples
    --------
    >>> import os, tempfile
    >>> from bayesrule import NearestMean
    >>> from bayesrule.io import info, load, save
    >>> nm = NearestMean().fit([[0.0, 0.0], [0.0, 2.0], [4.0, 0.0], [4.0, 2.0]], [1, 1, 2, 2])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "nearest.model")
    ...     save(nm, path)
    ...     header = info(path)
    ...     print(load(path).predict([[1.0, 1.0], [3.0, 1.5]]))
    [1 2]
    >>> header["class"], header["format_version"]
    ('bayesrule.estimators.gaussian.NearestMean', 1)
    """
    from .. import __version__

    by_name, by_class = _registry()
    cls_name = by_class.get(type(estimator))
    if cls_name is None or not isinstance(estimator, BaseEstimator):
        t = type(estimator)
        raise TypeError(
            f"bayesrule.io.save stores bayesrule estimators; {t.__module__}.{t.__qualname__} "
            "is not one (register other classes with bayesrule.io.register)."
        )
    check_is_fitted(estimator)
    enc = _Encoder(by_class)
    root = type(estimator).__name__
    state = enc.encode(estimator, root)
    params = {
        k: enc.encode(v, f"{root}.get_params()[{k!r}]")
        for k, v in estimator.get_params(deep=False).items()
    }
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "bayesrule_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "class": cls_name,
        "estimator": state,
        "params": params,
    }
    data = _container(document, enc.arrays)
    _write_atomic(os.fsdecode(os.fspath(path)), data)


def _write_atomic(path, data: bytes) -> None:
    directory, base = os.path.split(path)
    tmp = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
    try:
        with open(tmp, "xb") as f:  # created with the user's umask, like a plain open
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read(path, max_bytes=None) -> tuple[str, dict, dict[str, np.ndarray]]:
    shown = os.fsdecode(os.fspath(path))
    try:
        raw = read_bounded(shown, _max_bytes(max_bytes), magic=b"PK\x03\x04")
        document, arrays = _unpack(raw)
    except _Invalid as exc:
        raise ValueError(f"{shown} is not a valid bayesrule model file: {exc}") from None
    return shown, document, arrays


def load(path, *, max_bytes=None):
    """Read an estimator written by :func:`save`.

    The file is verified before anything is built: its zip CRCs, a SHA-256 of the
    whole file and one of the JSON and arrays, the format name and version, and every
    class it names (only registered bayesrule classes; no module named in the file is
    imported, nothing is unpickled).

    Parameters
    ----------
    path : str or os.PathLike
        A regular file (folders, pipes and devices are refused before being opened).
    max_bytes : int, optional
        The largest file read, in bytes; default the environment variable
        ``BAYESRULE_MAX_MODEL_BYTES``, else 1 GiB. A larger file is refused from its
        size, before it is read.

    Returns
    -------
    estimator
        Equal to the saved one: same parameters, same fitted state, bitwise the same
        predictions.

    Raises
    ------
    FileNotFoundError
        If there is no file at ``path``.
    ValueError
        If the file is not a valid bayesrule model file: not a zip/npz container, a
        pickle, truncated, modified, another program's file, a newer format version
        (upgrade bayesrule), an unknown class or a missing array entry; a file over
        ``max_bytes``, or not a regular file; fitted state that the class's own
        invariants refuse (its ``check_state``: shapes, finite values, non-negative
        counts, normalised probabilities, parameters that follow from the statistics).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from bayesrule import LinearDiscriminant
    >>> from bayesrule.io import load, save
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]], float)
    >>> lda = LinearDiscriminant(shrinkage=0.2).fit(X, [1, 1, 1, 2, 2, 2])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "lda.npz")
    ...     save(lda, path)
    ...     again = load(path)
    ...     with open(path, "r+b") as f:  # damage one byte
    ...         _ = f.seek(200)
    ...         _ = f.write(b"?")
    ...     try:
    ...         load(path)
    ...     except ValueError as exc:
    ...         print("refused:", "not a valid bayesrule model file" in str(exc))
    refused: True
    >>> again.get_params() == lda.get_params(), again.predict([[-0.8, -1.0]])
    (True, array([1]))
    """
    shown, document, arrays = _read(path, max_bytes)
    by_name, _ = _registry()
    try:
        decoder = _Decoder(by_name, arrays, budget=2 * json_nodes(document) + 100_000)
        estimator = decoder.decode(document.get("estimator"))
        params = document.get("params")
        if type(params) is not dict:
            raise _Invalid("the JSON entry has no 'params' object")
        params = {k: decoder.decode(v) for k, v in params.items()}
        if type(estimator) is not by_name.get(document.get("class")) or not isinstance(
            estimator, BaseEstimator
        ):
            raise _Invalid(f"the stored object is not a {document.get('class')!r} estimator")
        try:
            current = estimator.get_params(deep=False)
        except AttributeError as exc:
            raise _Invalid(f"the stored state lacks a parameter ({exc})") from None
        if not set(params) <= set(current):  # one it lacks: the class's default
            raise _Invalid(
                f"its parameters {sorted(params)} differ from those of "
                f"{type(estimator).__name__} {sorted(current)}"
            )
    except (_Invalid, RecursionError, KeyError, TypeError) as exc:
        reason = exc if isinstance(exc, _Invalid) else f"malformed content ({exc!r})"
        raise ValueError(f"{shown} is not a valid bayesrule model file: {reason}") from None
    _check_fitted(estimator, shown)
    return estimator


def _check_fitted(estimator, shown: str) -> None:
    """Each fitted classifier in the file (the estimator, or one a wrapper holds) is
    checked against its invariants (:func:`bayesrule.estimators.state.check_classifier`,
    which runs its likelihood's ``check_state``); load raises ValueError for any failure."""
    for obj in _objects(estimator):
        if "classes_" not in vars(obj):
            continue
        if isinstance(obj, BayesClassifier):
            check = check_classifier
        elif "estimator_" in vars(obj):  # a fitted decision rule around a classifier
            check = check_decision_wrapper
        else:
            continue
        try:
            check(obj)
        except Exception as exc:  # noqa: BLE001 - a forged state fails in any way
            raise ValueError(
                f"{shown} is not a valid bayesrule model file: its fitted state is not one "
                f"that fit gives: {exc}"
            ) from None


def _objects(root):
    """The objects with attributes reachable from ``root`` (each once)."""
    seen, stack = set(), [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, tuple)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif hasattr(obj, "__dict__") and not isinstance(obj, (type, np.ndarray)):
            yield obj
            stack.extend(vars(obj).values())


def info(path, *, max_bytes=None) -> dict:
    """The header of a bayesrule model file, after verifying it; no object is built.

    Parameters
    ----------
    path : str or os.PathLike
    max_bytes : int, optional
        As in :func:`load`.

    Returns
    -------
    dict
        ``format``, ``format_version``, ``bayesrule_version``, ``created``, ``class``
        and ``n_arrays``.

    Raises
    ------
    ValueError
        As :func:`load`, for files that are not valid bayesrule model files.
    """
    _, document, arrays = _read(path, max_bytes)
    keys = ("format", "format_version", "bayesrule_version", "created", "class")
    return {**{k: document.get(k) for k in keys}, "n_arrays": len(arrays)}
