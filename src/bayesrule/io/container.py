"""The zip container of a model file: its entries, checksums, packing and unpacking
(see :mod:`bayesrule.io.files` for the format)."""

from __future__ import annotations

import hashlib
import io
import json
import math
import zipfile

import numpy as np

from .codec import _ARRAY_KINDS, _Invalid

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
    if dtype.hasobject or dtype.kind not in _ARRAY_KINDS or dtype.subdtype is not None:
        raise _Invalid(f"entry {name!r} has dtype {dtype}, which bayesrule files never hold")
    if not all(type(n) is int and n >= 0 for n in shape):
        raise _Invalid(f"entry {name!r} has the impossible shape {shape}")
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


def _check_members(members: list[zipfile.ZipInfo], size: int) -> None:
    """Refuse compressed members and sizes the file cannot hold, before anything is read:
    bayesrule writes every entry stored (uncompressed), so what a member inflates to is
    bounded by the file's own size (no deflate bomb)."""
    total = 0
    for m in members:
        if m.compress_type != zipfile.ZIP_STORED:
            raise _Invalid(
                f"entry {m.filename!r} is compressed (method {m.compress_type}); bayesrule "
                "writes its entries uncompressed, so this file was not written by save()"
            )
        total += m.file_size
        if m.file_size != m.compress_size or total > size:
            raise _Invalid(
                f"entry {m.filename!r} declares {m.file_size} bytes, more than the "
                f"{size}-byte file holds"
            )


def _unpack(raw: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    """Verify a file's bytes and return its JSON document and array entries."""
    if not raw.startswith(b"PK\x03\x04"):
        raise _Invalid(_what_is(raw))
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        names = zf.namelist()
        _check_members(zf.infolist(), len(raw))
        bad = zf.testzip()  # reads every member, checking its CRC-32
    except _Invalid:
        raise
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
