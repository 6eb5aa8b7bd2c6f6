"""Read files from the server's own caches without trusting what is on disk.

A cache folder (``$FLDA_CACHE_DIR``) may be shared or tampered with: ``/dev/zero`` reports
a size of 0 and never ends, a FIFO blocks the reader (and every thread waiting on its
lock), a symlink can point at either.  :func:`read_regular_file` opens the path *once*
with ``O_NOFOLLOW | O_NONBLOCK``, checks on that descriptor that it is a regular file no
larger than the limit, and reads at most the limit + 1 bytes from it (a file that grows
after the check is refused too): memory is bounded whatever the file is.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_CHUNK = 1 << 20
#: An absolute path in a message (``/srv/cache/x.mat``, ``C:\\cache\\x.mat``), not a
#: URL's ``//host/…`` part.
_ABSOLUTE_PATH = re.compile(
    r"(?<![\w:/\\])(?:[A-Za-z]:)?[/\\](?:[^\s'\"/\\]+[/\\])+"
    r"([^\s'\"/\\]*)"
)


class UnsafeFile(OSError):
    """The path is not a regular file (device, FIFO, socket, symlink, folder) or is
    larger than the caller's limit.  An ``OSError``, so a caller that treats an
    unreadable file as missing treats this one the same way."""


def is_regular_file(path):
    """True if ``path`` itself (not a symlink's target) is a regular file."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def read_regular_file(path, max_bytes):
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Raises
    ------
    UnsafeFile
        ``path`` is not a regular file, or holds more than ``max_bytes`` bytes.
    OSError
        It cannot be opened (missing, a symlink: ``ELOOP``, no permission).
    """
    descriptor = os.open(path, _FLAGS)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(f"{os.path.basename(path)!r} is not a regular file")
        if info.st_size > max_bytes:
            raise UnsafeFile(f"{os.path.basename(path)!r} is larger than {max_bytes:,} bytes")
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(descriptor, min(_CHUNK, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise UnsafeFile(f"{os.path.basename(path)!r} is larger than {max_bytes:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def write_atomically(path, write):
    """Write the file ``path`` with ``write(binary_file)`` into a temporary file of its
    folder, renamed over ``path`` when done (a reader sees the old file or the new one, never
    a part).  True when written; False, and no temporary file left, when the folder cannot
    be written (read-only, a full disk)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                write(out)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def without_paths(text, limit=200):
    """``text`` (e.g. an exception's message) with every absolute path shortened to its
    file name and cut to ``limit`` characters: what may be shown to a user, who must never
    see where the server keeps its files.

    Examples
    --------
    >>> without_paths("Unknown mat file type in '/srv/cache/skada/amazon/x.mat'")
    "Unknown mat file type in 'x.mat'"
    >>> without_paths("HTTP Error 404 at https://figshare.com/ndownloader/files/41")
    'HTTP Error 404 at https://figshare.com/ndownloader/files/41'
    """
    text = _ABSOLUTE_PATH.sub(lambda match: match.group(1) or "…", str(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"
