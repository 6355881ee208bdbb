"""Reading and writing the files people name (a save, a record, an example, a sheet, a
balance page) safely.

Only regular files are written or replaced, never a symbolic link, a pipe, a device or a
folder (as root, replacing ``/dev/full`` with a sheet is one ``-o`` away), and a file is
replaced whole or not at all. Only regular files are read, and at most :data:`MAX_READ`
bytes of them: a pipe named as a save would block for ever, and ``/dev/zero`` would be read
until memory runs out."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .machine import GameError

__all__ = ["MAX_READ", "FileReadError", "FileWriteError", "read_file", "read_text", "write_file"]

#: the most bytes :func:`read_file` reads (a long game's save is a few megabytes)
MAX_READ = 64 * 2**20


class FileWriteError(GameError):
    """A file could not be written; the message names it and says why."""


class FileReadError(GameError):
    """A file could not be read; the message names it and says why (``why`` alone)."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"cannot read {path}: {why}")
        self.path = path
        self.why = why


def read_file(path: str | os.PathLike[str], limit: int = MAX_READ) -> bytes:
    """The bytes of the regular file ``path`` (a symbolic link to one is followed), refused
    in words if it is anything else, or larger than ``limit`` bytes."""
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a pipe does not wait for a writer (it is refused just below)
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise FileReadError(name, "no such file") from None
    except OSError as exc:
        raise FileReadError(name, f"{exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise FileReadError(name, "it is a folder; give the path of a file")
        if not stat.S_ISREG(st.st_mode):
            raise FileReadError(
                name,
                "it is not a regular file (a pipe, a device or a socket); give the path of a file",
            )
        if st.st_size > limit:
            raise FileReadError(
                name, f"it is {_size(st.st_size)}, more than the {_size(limit)} rulecraft reads"
            )
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise FileReadError(name, f"{exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while being read
        raise FileReadError(name, f"it is more than the {_size(limit)} rulecraft reads")
    return data


def read_text(path: str | os.PathLike[str], limit: int = MAX_READ) -> str:
    """The text of the UTF-8 file ``path`` (a leading byte-order mark dropped), as
    :func:`read_file` reads it."""
    data = read_file(path, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileReadError(
            os.fspath(path), f"not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from None


def _size(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n >= 2**20 else f"{n} bytes"


def write_file(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to the regular file ``path``, replacing it whole.

    A new file gets the mode of a new file (0666 less the umask), a replaced one keeps its
    mode. Where no temporary file can be made next to it, an existing file is overwritten in
    place."""
    target = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not target.parent.is_dir():
        raise FileWriteError(f"cannot write {target}: folder {target.parent} does not exist")
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise FileWriteError(f"cannot write {target}: {exc.strerror or exc}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise FileWriteError(
            f"cannot write {target}: it is {what}; give the path of a file to write"
        )
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError:
        _overwrite(target, raw, exists=st is not None)
        return
    try:
        os.fchmod(fd, mode)  # mkstemp makes it 0600
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileWriteError(f"cannot write {target}: {exc.strerror or exc}") from None


def _overwrite(target: Path, raw: bytes, exists: bool) -> None:
    """Write in place (no temporary file could be made): an existing regular file only."""
    flags = os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        if not exists:
            raise PermissionError(13, "Permission denied")
        fd = os.open(target, flags)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise FileWriteError(f"cannot write {target}: it is not a regular file")
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
    except OSError as exc:
        raise FileWriteError(f"cannot write {target}: {exc.strerror or exc}") from None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
