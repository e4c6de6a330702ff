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
import importlib
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
_ARRAY_KINDS = "biufcUSmM"  # dtypes an array entry may have (no object, no structured)
_LABEL_TYPES = (str, int, float, bool)

#: classes a file may name, ``"module.Class"`` strings imported on first use; adding a
#: bayesrule class is one line here (or a call to :func:`register` from its module).
_BUILTIN = [
    "bayesrule.classifier.BayesClassifier",
    "bayesrule.estimators.GaussianNB",
    "bayesrule.estimators.QuadraticDiscriminant",
    "bayesrule.estimators.LinearDiscriminant",
    "bayesrule.estimators.NearestMean",
    "bayesrule.likelihoods.gaussian.Gaussian",
    "bayesrule.likelihoods.covariance.Structure",
    "bayesrule.decision.LossMatrix",
    "bayesrule.stats.ClassMoments",
]
_by_name: dict[str, type] = {}
_by_class: dict[type, str] = {}
_builtin_loaded = False


def register(cls: type, *, name: str | None = None) -> type:
    """Allow instances of ``cls`` in saved files (usable as a class decorator).

    Parameters
    ----------
    cls : type
        A class whose instances are restored by ``cls.__new__(cls)`` and an update of
        their ``__dict__`` with the saved attributes.
    name : str, optional
        The name written to files; default ``"module.QualName"``. Registering a second
        name for a class keeps files that use the old name loadable (after a move).

    Returns
    -------
    cls

    Examples
    --------
    >>> import os, tempfile
    >>> from bayesrule import GaussianNB
    >>> from bayesrule.io import load, register, save
    >>> @register
    ... class MyNB(GaussianNB):  # a user's subclass, now allowed in files
    ...     pass
    >>> model = MyNB().fit([[0.0], [1.0], [5.0], [6.0]], ["low", "low", "high", "high"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save(model, os.path.join(tmp, "my.model"))
    ...     print(type(load(os.path.join(tmp, "my.model"))).__name__)
    MyNB
    """
    if not isinstance(cls, type):
        raise TypeError(f"register takes a class, got {cls!r}")
    key = name or f"{cls.__module__}.{cls.__qualname__}"
    other = _by_name.get(key)
    if other is not None and other is not cls:
        raise ValueError(f"the name {key!r} is already registered for {other!r}")
    _by_name[key] = cls
    _by_class.setdefault(cls, key)
    return cls


def _registry() -> tuple[dict[str, type], dict[type, str]]:
    global _builtin_loaded
    if not _builtin_loaded:
        for path in _BUILTIN:  # fixed names, never names read from a file
            module, _, attr = path.rpartition(".")
            register(getattr(importlib.import_module(module), attr), name=path)
        _builtin_loaded = True
    return _by_name, _by_class


# --------------------------------------------------------------------------- encoding
class _Encoder:
    """Turns an object graph into JSON-ready values plus a dict of array entries."""

    def __init__(self, by_class: dict[type, str]):
        self.by_class = by_class
        self.arrays: dict[str, np.ndarray] = {}
        self._array_names: dict[int, str] = {}
        self._ids: dict[int, int] = {}
        self._alive: list = []  # keeps memoised objects alive, so their ids stay unique

    def _add_array(self, a: np.ndarray) -> str:
        name = f"a{len(self.arrays)}"
        self.arrays[name] = a
        return name

    def _scalar(self, v: np.generic, where: str):
        kind, dtype = v.dtype.kind, v.dtype.str
        if kind == "b":
            return {"__numpy__": dtype, "value": bool(v)}
        if kind in "iu":
            return {"__numpy__": dtype, "value": int(v)}
        if kind == "f" and v.dtype.itemsize <= 8:
            return {"__numpy__": dtype, "value": _float(float(v))}
        if kind == "U":
            return {"__numpy__": dtype, "value": str(v)}
        if kind in _ARRAY_KINDS:
            return {"__numpy__": dtype, "array": self._add_array(np.asarray(v))}
        raise TypeError(f"{where} is a NumPy scalar of dtype {v.dtype}, which cannot be saved")

    def _memo(self, obj) -> int | None:
        return self._ids.get(id(obj))

    def _remember(self, obj) -> int:
        k = self._ids[id(obj)] = len(self._ids)
        self._alive.append(obj)
        return k

    def encode(self, v, where: str):
        t = type(v)
        if v is None or t in (bool, int, str):
            return v
        if t is float:
            return _float(v)
        if isinstance(v, np.generic):
            return self._scalar(v, where)
        if t is np.ndarray:
            if v.dtype.kind == "O":
                return self._objects(v, where)
            if v.dtype.kind not in _ARRAY_KINDS or v.dtype.hasobject:
                raise TypeError(f"{where} is an array of dtype {v.dtype}, which cannot be saved")
            name = self._array_names.get(id(v))
            if name is None:
                name = self._array_names[id(v)] = self._add_array(v)
                self._alive.append(v)
            return {"__array__": name}
        if t is list:
            return [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if t is tuple:
            return {"__tuple__": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if t is dict:
            return {
                "__dict__": [
                    [self.encode(k, f"{where} key {k!r}"), self.encode(x, f"{where}[{k!r}]")]
                    for k, x in v.items()
                ]
            }
        name = self.by_class.get(t)
        if name is None:
            raise TypeError(
                f"cannot save {where}: {t.__module__}.{t.__qualname__} is not a type bayesrule "
                "files may hold (JSON values, NumPy arrays and scalars, lists, tuples, dicts, "
                "and classes registered with bayesrule.io.register)."
            )
        known = self._memo(v)
        if known is not None:
            return {"__ref__": known}
        k = self._remember(v)
        state = {a: self.encode(x, f"{where}.{a}") for a, x in vars(v).items()}
        return {"__class__": name, "id": k, "state": state}

    def _objects(self, a: np.ndarray, where: str):
        known = self._memo(a)
        if known is not None:
            return {"__ref__": known}
        items = []
        for i, x in enumerate(a.ravel(order="C")):
            ok = type(x) in _LABEL_TYPES or (
                isinstance(x, np.generic)
                and x.dtype.kind in "biufU"
                and (x.dtype.kind != "f" or x.dtype.itemsize <= 8)
            )
            if not ok:
                raise TypeError(
                    f"cannot save {where}[{i}]: object arrays (labels) may hold only str, "
                    f"int, float or bool values, got {type(x).__module__}.{type(x).__qualname__}"
                )
            items.append(self.encode(x, f"{where}[{i}]"))
        return {"__objects__": items, "shape": list(a.shape), "id": self._remember(a)}


def _float(x: float):
    if math.isfinite(x):
        return x
    return {"__float__": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


# --------------------------------------------------------------------------- decoding
class _Invalid(Exception):
    """Why a file is not a valid bayesrule model file."""


_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class _Decoder:
    def __init__(self, by_name: dict[str, type], arrays: dict[str, np.ndarray]):
        self.by_name = by_name
        self.arrays = arrays
        self.objects: dict[int, object] = {}

    def decode(self, node):
        t = type(node)
        if node is None or t in (bool, int, float, str):
            return node
        if t is list:
            return [self.decode(x) for x in node]
        if t is not dict:
            raise _Invalid(f"unexpected JSON value {node!r}")
        keys = set(node)
        if keys == {"__float__"}:
            if node["__float__"] not in _FLOATS:
                raise _Invalid(f"unknown float {node['__float__']!r}")
            return _FLOATS[node["__float__"]]
        if keys in ({"__numpy__", "value"}, {"__numpy__", "array"}):
            return self._scalar(node)
        if keys == {"__array__"}:
            return self._array(node["__array__"])
        if keys == {"__tuple__"}:
            return tuple(self.decode(x) for x in self._list(node["__tuple__"]))
        if keys == {"__dict__"}:
            pairs = [self._list(p) for p in self._list(node["__dict__"])]
            if any(len(p) != 2 for p in pairs):
                raise _Invalid("a dict entry is not a [key, value] pair")
            try:
                return {self.decode(k): self.decode(v) for k, v in pairs}
            except TypeError as exc:  # an unhashable key
                raise _Invalid(f"a dict key is not hashable ({exc})") from None
        if keys == {"__ref__"}:
            ref = node["__ref__"]
            if type(ref) is not int or ref not in self.objects:
                raise _Invalid(f"reference {ref!r} to an object not read yet")
            return self.objects[ref]
        if keys == {"__objects__", "shape", "id"}:
            return self._objects(node)
        if keys == {"__class__", "id", "state"}:
            return self._object(node)
        raise _Invalid(f"unknown JSON object with keys {sorted(keys)}")

    @staticmethod
    def _list(x) -> list:
        if type(x) is not list:
            raise _Invalid(f"expected a JSON list, got {x!r}")
        return x

    def _remember(self, k, obj):
        if type(k) is not int or k in self.objects:
            raise _Invalid(f"object id {k!r} is not a new integer")
        self.objects[k] = obj

    def _array(self, name) -> np.ndarray:
        if type(name) is not str or name not in self.arrays:
            raise _Invalid(f"missing array entry {name!r}")
        return self.arrays[name]

    def _scalar(self, node):
        try:
            dtype = np.dtype(node["__numpy__"])
        except (TypeError, ValueError):
            raise _Invalid(f"unknown dtype {node['__numpy__']!r}") from None
        if "array" in node:
            a = self._array(node["array"])
            if a.shape != () or a.dtype != dtype:
                raise _Invalid(f"scalar entry {node['array']!r} is not a 0-d {dtype} array")
            return a[()]
        value = self.decode(node["value"])
        expected = {"b": bool, "i": int, "u": int, "f": float, "U": str}.get(dtype.kind)
        if expected is None or type(value) is not expected:
            raise _Invalid(f"{value!r} is not a NumPy scalar of dtype {dtype}")
        return dtype.type(value)

    def _objects(self, node) -> np.ndarray:
        shape = self._list(node["shape"])
        if not all(type(n) is int and n >= 0 for n in shape):
            raise _Invalid(f"bad object array shape {shape!r}")
        items = [self.decode(x) for x in self._list(node["__objects__"])]
        if len(items) != math.prod(shape):
            raise _Invalid(f"{len(items)} labels for an object array of shape {shape}")
        for x in items:
            if not isinstance(x, (*_LABEL_TYPES, np.generic)):
                raise _Invalid(f"object arrays hold labels, not {type(x).__name__}")
        a = np.empty(len(items), dtype=object)
        a[:] = items
        a = a.reshape(shape)
        self._remember(node["id"], a)
        return a

    def _object(self, node):
        name = node["__class__"]
        cls = self.by_name.get(name) if type(name) is str else None
        if cls is None:
            raise _Invalid(
                f"unknown class {name!r} (this bayesrule knows {sorted(self.by_name)}; a file "
                "from a newer bayesrule or a plug-in may need that package imported first)"
            )
        obj = cls.__new__(cls)
        self._remember(node["id"], obj)
        state = node["state"]
        if type(state) is not dict:
            raise _Invalid(f"the state of a {name} is not a JSON object")
        obj.__dict__.update({k: self.decode(v) for k, v in state.items()})
        return obj


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
        from . import __version__

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
    ('bayesrule.estimators.NearestMean', 1)
    """
    from . import __version__

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
