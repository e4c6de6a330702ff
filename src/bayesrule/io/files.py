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

import hashlib
import io
import json
import math
import os
import secrets
import zipfile
from datetime import UTC, datetime

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .codec import _ARRAY_KINDS, _BUILTIN, _Decoder, _Encoder, _Invalid, _registry, register  # noqa: F401

__all__ = ["FORMAT", "FORMAT_VERSION", "info", "load", "register", "save"]

#: the ``format`` field of every file this module writes.
FORMAT = "bayesrule-model"
#: the newest format version this library reads (and the one it writes).
FORMAT_VERSION = 1

_JSON = "__bayesrule__.json"
_DIGEST = "__bayesrule__.sha256"
_COMMENT_PREFIX = b"bayesrule-sha256="
_COMMENT_LEN = len(_COMMENT_PREFIX) + 64
_EOCD = b"PK\x05\x06"


# --------------------------------------------------------------------------- container
def _content_digest(json_bytes: bytes, arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256(json_bytes)
    for name in sorted(arrays):
        a = arrays[name]
        h.update(f"\0{name}\0{a.dtype.str}\0{list(a.shape)}\0".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _pack(json_bytes: bytes, arrays: dict[str, np.ndarray], digest: str) -> bytes:
    """The file's bytes: NumPy's zip with the whole-file SHA-256 as the zip comment."""
    entries = {
        _JSON: np.frombuffer(json_bytes, dtype=np.uint8),
        _DIGEST: np.frombuffer(digest.encode("ascii"), dtype=np.uint8),
        **arrays,
    }
    if any(a.dtype.hasobject for a in entries.values()):  # never let numpy pickle
        raise TypeError("object arrays cannot go into a bayesrule file")
    buf = io.BytesIO()
    np.savez(buf, **entries)
    raw = buf.getvalue()
    if raw[-22:-18] != _EOCD or raw[-2:] != b"\0\0":
        raise RuntimeError("unexpected zip layout from numpy.savez")
    comment = _COMMENT_PREFIX + hashlib.sha256(raw).hexdigest().encode("ascii")
    return raw[:-2] + len(comment).to_bytes(2, "little") + comment


def _container(document: dict, arrays: dict[str, np.ndarray]) -> bytes:
    document = {
        **document,
        "arrays": {n: {"dtype": a.dtype.str, "shape": list(a.shape)} for n, a in arrays.items()},
    }
    text = json.dumps(document, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    json_bytes = text.encode("utf-8")
    return _pack(json_bytes, arrays, _content_digest(json_bytes, arrays))


def _read_npy(data: bytes, name: str) -> np.ndarray:
    """One ``.npy`` member, refusing object dtypes and sizes the bytes do not hold."""
    fp = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
        else:
            raise _Invalid(f"entry {name!r} has unsupported .npy version {version}")
    except ValueError as exc:
        raise _Invalid(f"entry {name!r} is not a NumPy array ({exc})") from None
    if dtype.hasobject or dtype.kind not in _ARRAY_KINDS:
        raise _Invalid(f"entry {name!r} has dtype {dtype}, which bayesrule files never hold")
    if fp.tell() + math.prod(shape) * dtype.itemsize != len(data):
        raise _Invalid(f"entry {name!r} has the wrong size for its shape {shape}")
    fp.seek(0)
    return np.lib.format.read_array(fp, allow_pickle=False)


def _what_is(raw: bytes) -> str:
    if not raw:
        return "the file is empty"
    if raw.startswith(b"\x93NUMPY"):
        return "it is a single NumPy array (.npy), not a bayesrule .npz container"
    if raw[:1] == b"\x80" or raw.startswith((b"(dp", b"(lp", b"ccopy_reg")):
        return (
            "it looks like a Python pickle; bayesrule never unpickles files (unpickling "
            "can run arbitrary code)"
        )
    return "it is not a zip/npz container"


def _unpack(raw: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    """Verify a file's bytes and return its JSON document and array entries."""
    if not raw.startswith(b"PK\x03\x04"):
        raise _Invalid(_what_is(raw))
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        names = zf.namelist()
        bad = zf.testzip()  # reads every member, checking its CRC-32
    except Exception as exc:  # a damaged zip fails in many ways: report them all alike
        raise _Invalid(f"the zip container is damaged or truncated ({exc})") from None
    if bad is not None:
        raise _Invalid(f"entry {bad!r} fails its CRC or header check (the file is corrupted)")
    if len(set(names)) != len(names) or not all(n.endswith(".npy") for n in names):
        raise _Invalid("the container has duplicate or non-array entries")
    members = {n[: -len(".npy")]: n for n in names}
    if _JSON not in members:
        raise _Invalid(f"it is an .npz file without the {_JSON!r} entry of bayesrule models")
    json_bytes = _read_npy(zf.read(members[_JSON]), _JSON)
    if json_bytes.dtype != np.uint8 or json_bytes.ndim != 1:
        raise _Invalid(f"the {_JSON!r} entry is not a 1-D uint8 array")
    json_bytes = json_bytes.tobytes()
    try:
        document = json.loads(json_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _Invalid(f"the {_JSON!r} entry is not JSON ({exc})") from None
    if type(document) is not dict or document.get("format") != FORMAT:
        found = document.get("format") if type(document) is dict else None
        raise _Invalid(f"the JSON entry has format {found!r}, not {FORMAT!r}")
    version = document.get("format_version")
    if type(version) is not int or version < 1:
        raise _Invalid(f"format_version {version!r} is not a positive integer")
    if version > FORMAT_VERSION:
        from .. import __version__

        raise _Invalid(
            f"it has format_version {version} (written by bayesrule "
            f"{document.get('bayesrule_version')}), but bayesrule {__version__} reads "
            f"format versions up to {FORMAT_VERSION}; upgrade bayesrule to load it"
        )
    # version 1 from here on: whole-file hash in the zip comment, then the content hash
    body, comment = raw[: -_COMMENT_LEN - 2], raw[-_COMMENT_LEN:]
    if (
        len(raw) < _COMMENT_LEN + 22
        or not comment.startswith(_COMMENT_PREFIX)
        or raw[-_COMMENT_LEN - 2 : -_COMMENT_LEN] != _COMMENT_LEN.to_bytes(2, "little")
    ):
        raise _Invalid("its whole-file checksum (the zip comment) is missing or damaged")
    if hashlib.sha256(body + b"\0\0").hexdigest().encode("ascii") != comment[-64:]:
        raise _Invalid("its whole-file SHA-256 does not match (the file was modified)")
    manifest = document.get("arrays")
    if type(manifest) is not dict:
        raise _Invalid("the JSON entry has no 'arrays' manifest")
    expected = {_JSON, _DIGEST, *manifest}
    if set(members) != expected:
        missing, extra = sorted(expected - set(members)), sorted(set(members) - expected)
        raise _Invalid(f"missing array entries {missing}, unexpected entries {extra}")
    arrays = {n: _read_npy(zf.read(members[n]), n) for n in manifest}
    digest = _read_npy(zf.read(members[_DIGEST]), _DIGEST).tobytes()
    if digest != _content_digest(json_bytes, arrays).encode("ascii"):
        raise _Invalid("its SHA-256 over the JSON and arrays does not match (modified content)")
    return document, arrays


# --------------------------------------------------------------------------- public API
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


def _read(path) -> tuple[str, dict, dict[str, np.ndarray]]:
    shown = os.fsdecode(os.fspath(path))
    with open(shown, "rb") as f:
        raw = f.read()
    try:
        document, arrays = _unpack(raw)
    except _Invalid as exc:
        raise ValueError(f"{shown} is not a valid bayesrule model file: {exc}") from None
    return shown, document, arrays


def load(path):
    """Read an estimator written by :func:`save`.

    The file is verified before anything is built: its zip CRCs, a SHA-256 of the
    whole file and one of the JSON and arrays, the format name and version, and every
    class it names (only registered bayesrule classes; no module named in the file is
    imported, nothing is unpickled).

    Parameters
    ----------
    path : str or os.PathLike

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
        (upgrade bayesrule), an unknown class or a missing array entry.

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
    shown, document, arrays = _read(path)
    by_name, _ = _registry()
    try:
        decoder = _Decoder(by_name, arrays)
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
        if set(current) != set(params):
            raise _Invalid(
                f"its parameters {sorted(params)} differ from those of "
                f"{type(estimator).__name__} {sorted(current)}"
            )
    except (_Invalid, RecursionError, KeyError, TypeError) as exc:
        reason = exc if isinstance(exc, _Invalid) else f"malformed content ({exc!r})"
        raise ValueError(f"{shown} is not a valid bayesrule model file: {reason}") from None
    return estimator


def info(path) -> dict:
    """The header of a bayesrule model file, after verifying it; no object is built.

    Parameters
    ----------
    path : str or os.PathLike

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
    _, document, arrays = _read(path)
    keys = ("format", "format_version", "bayesrule_version", "created", "class")
    return {**{k: document.get(k) for k in keys}, "n_arrays": len(arrays)}
