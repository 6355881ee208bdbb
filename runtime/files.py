"""Writing the files people ask for (a sheet, a save, a balance page) safely: only regular
files are written or replaced, never a symbolic link, a pipe, a device or a folder (as root,
replacing ``/dev/full`` with a sheet is one ``-o`` away), and a file is replaced whole or not
at all."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .machine import GameError

__all__ = ["FileWriteError", "write_file"]


class FileWriteError(GameError):
    """A file could not be written; the message names it and says why."""


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
