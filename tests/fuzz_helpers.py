"""Shared parts of the fuzzers (``-m fuzz``): scratch projects, a guard against hangs, and
what every diagnostic must carry."""

from __future__ import annotations

import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from compile_helpers import REPO

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "games"
#: the games the fuzzers start from: small fixture games, and real games (slower to check)
SOURCES = {
    "toy": FIXTURES / "toy",
    "merchants": FIXTURES / "merchants",
    "envoys": FIXTURES / "envoys",
    "march_of_progress": REPO / "rules" / "march_of_progress",
    "westphalia": REPO / "rules" / "westphalia",
}
#: one input taking longer than this is a hang (a finding), not slowness
HANG_SECONDS = 60


def scratch(game: str) -> Path:
    """A project holding a copy of one game (removed when the process ends)."""
    root = Path(tempfile.mkdtemp(prefix=f"rulecraft-fuzz-{game}-"))
    (root / "rules").mkdir()
    (root / "generated").mkdir()
    shutil.copytree(SOURCES[game], root / "rules" / game)
    return root


class Hang(Exception):
    pass


@contextmanager
def no_hang(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Raise :class:`Hang` if the block runs longer than ``seconds``."""

    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"no answer after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def bad_positions(diagnostics: list, root: Path) -> list[str]:
    """Diagnostics without a usable file:line:col (the file must exist in the project)."""
    out = []
    for d in diagnostics:
        pos = d.pos
        ok = (
            pos is not None
            and pos.line >= 1
            and pos.col >= 1
            and (root / pos.file).exists()
            and bool(d.message)
        )
        if not ok:
            out.append(d.render() if hasattr(d, "render") else repr(d))
    return out
