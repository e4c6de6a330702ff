"""Reading a model file's bytes with bounds: a regular file only, opened without
blocking, and no more than a maximum size (see :func:`read_bounded`)."""

from __future__ import annotations

import os
import stat

from .codec import _Invalid

#: the largest model file :func:`bayesrule.io.load` reads unless told otherwise (bytes);
#: the environment variable ``BAYESRULE_MAX_MODEL_BYTES`` or ``load(..., max_bytes=)``
#: raises it for a model that legitimately needs more (e.g. KernelNB on many rows)
MAX_BYTES = 1 << 30
_ENV = "BAYESRULE_MAX_MODEL_BYTES"
_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _max_bytes(max_bytes=None) -> int:
    """The size limit: ``max_bytes`` if given, else the environment's, else MAX_BYTES."""
    if max_bytes is None:
        text = os.environ.get(_ENV)
        if not text:
            return MAX_BYTES
        try:
            max_bytes = int(text)
        except ValueError:
            raise ValueError(
                f"the environment variable {_ENV}={text!r} is not a whole number of bytes; "
                f"set it to e.g. {4 * MAX_BYTES} or unset it"
            ) from None
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise TypeError(f"max_bytes must be an int (bytes), got {max_bytes!r}")
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive number of bytes, got {max_bytes}")
    return max_bytes


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_bounded(path: str, limit: int, magic: bytes = b"") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Anything else (a folder, a FIFO, ``/dev/zero``, a socket) is refused before it is
    opened, and the file is opened non-blocking, so nothing here waits for a writer or
    reads forever; a file over ``limit`` bytes is refused from its size, before reading.
    A file that does not start with ``magic`` is read no further than its first chunk
    (what was read is returned, for the caller's message).

    Raises
    ------
    FileNotFoundError
        If nothing is at ``path``.
    bayesrule.io.codec._Invalid
        For a file that is not a regular file, or larger than ``limit``.

    Examples
    --------
    >>> import tempfile
    >>> from bayesrule.io.codec import _Invalid
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     try:
    ...         read_bounded(tmp, 100)
    ...     except _Invalid as exc:
    ...         print(exc)
    it is a folder, not a regular file
    """
    kind = _kind(os.stat(path).st_mode)
    if kind:
        raise _Invalid(f"it is {kind}, not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)  # the path may have been replaced since the stat
        if kind:
            raise _Invalid(f"it is {kind}, not a regular file")
        if info.st_size > limit:
            raise _Invalid(_too_large(info.st_size, limit))
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total == len(chunk) and not chunk.startswith(magic[: len(chunk)]):
                break  # not a file of this kind: the first bytes tell why
            if total > limit:  # the file grew while it was read
                raise _Invalid(_too_large(total, limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _too_large(size: int, limit: int) -> str:
    return (
        f"it is {size} bytes, over the limit of {limit} bytes for model files; if it is a "
        f"model you trust that needs more, pass load(path, max_bytes=...) or set the "
        f"environment variable {_ENV} (e.g. {_ENV}={max(2 * limit, size + 1)})"
    )
