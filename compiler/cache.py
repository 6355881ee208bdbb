"""The compile cache: which games' generated files are already what their rules make.

``rulecraft compile`` records, per game, a key (a hash of everything that decides the game's
generated files) and the hash of every file it wrote, in ``<project>/.rulecraft-cache/``
(not committed).  The next run skips a game whose key is the same and whose files on disk
still hash to what was recorded; any doubt (no cache, an unreadable one, a mismatch, a file
edited by hand or changed by a checkout) compiles the game in full, as without a cache.

The key of a game hashes:

- the content and the name of every file under ``rules/<game>/``;
- the project's configuration that reaches the output: the rules and generated folders
  (relative to the root) and the package;
- the compiler: every file of the installed ``compiler``, ``runtime`` and ``schemas``
  folders of rulecraft (grammar and templates included), the versions of rulecraft and of
  the libraries that shape the text (ruff formats it, jinja2 renders it, lark and PyYAML
  read the rules), and Python's.

This module is imported before deciding anything, so it uses the standard library only: no
stage of the compiler is imported for a game that is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rulecraft.runtime.config import Project

__all__ = ["CACHE_DIR", "CompileCache", "compiler_key", "game_key"]

#: the cache folder, in the project's root (git-ignored)
CACHE_DIR = ".rulecraft-cache"
CACHE_FILE = "compile.json"
#: the format of the cache file: another number is no cache
FORMAT = 1

#: the distributions whose version can change the generated text
_LIBRARIES = ("rulecraft", "ruff", "jinja2", "lark", "PyYAML")
#: the folders of the installed rulecraft that the compiler reads or is
_SOURCES = ("compiler", "runtime", "schemas")

_compiler_key: str | None = None


def compiler_key() -> str:
    """A hash of the compiler itself (computed once per process)."""
    global _compiler_key
    if _compiler_key is None:
        from importlib.metadata import PackageNotFoundError, version

        h = hashlib.sha256(f"rulecraft compile cache {FORMAT}\n".encode())
        h.update(f"python {sys.implementation.name} {sys.version_info[:3]}\n".encode())
        for name in _LIBRARIES:
            try:
                h.update(f"{name} {version(name)}\n".encode())
            except PackageNotFoundError:
                h.update(f"{name} -\n".encode())
        here = Path(__file__).resolve().parents[1]  # <repo>/ or site-packages/rulecraft/
        for folder in _SOURCES:
            _hash_tree(h, here / folder, folder)
        _compiler_key = h.hexdigest()
    return _compiler_key


def _hash_tree(h: Any, folder: Path, name: str) -> None:
    """Add the name and content of every file under ``folder`` to ``h``, in a fixed order
    (compiled bytecode left out)."""
    files, seen = [], set()
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:  # a link back up the tree: its files are hashed once
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        files.extend(Path(dirpath, f) for f in filenames if not f.endswith((".pyc", ".pyo")))
    for path in sorted(files, key=lambda p: p.relative_to(folder).as_posix()):
        data = path.read_bytes()
        rel = path.relative_to(folder).as_posix()
        h.update(f"{name}/{rel} {len(data)}\n".encode())
        h.update(data)


def _rel(project: Project, path: Path) -> str:
    return (
        path.relative_to(project.root).as_posix()
        if path.is_relative_to(project.root)
        else str(path)
    )


def game_key(project: Project, game: str) -> str | None:
    """The key of ``game``'s generated files; None when its rules cannot be read (then the
    compiler reports why)."""
    folder = project.rules / game
    h = hashlib.sha256(compiler_key().encode())
    h.update(f"\n{_rel(project, project.rules)}\n{_rel(project, project.generated)}\n".encode())
    h.update(f"{project.package}\n{game}\n".encode())
    try:
        if not folder.is_dir():
            return None
        _hash_tree(h, folder, game)
    except (OSError, ValueError):
        return None
    return h.hexdigest()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class CompileCache:
    """The cache of a project: per game, its key and the hashes of its generated files."""

    def __init__(self, project: Project, games: dict[str, dict[str, Any]] | None = None):
        self.project = project
        self.games: dict[str, dict[str, Any]] = games or {}

    @property
    def path(self) -> Path:
        return self.project.root / CACHE_DIR / CACHE_FILE

    @classmethod
    def load(cls, project: Project) -> CompileCache:
        """The project's cache; an empty one if there is none or it cannot be read."""
        cache = cls(project)
        try:
            data = json.loads(cache.path.read_bytes())
            if data.get("format") == FORMAT and isinstance(data.get("games"), dict):
                cache.games = {
                    game: entry
                    for game, entry in data["games"].items()
                    if isinstance(entry, dict)
                    and isinstance(entry.get("key"), str)
                    and isinstance(entry.get("files"), dict)
                }
        except (OSError, ValueError, AttributeError):
            pass
        return cache

    def fresh(self, game: str) -> dict[Path, str] | None:
        """The generated files of ``game`` (path relative to the root -> text) when the
        cache vouches for them: its key is the recorded one, the recorded files hash as they
        did, and its generated folder holds no other module; else None."""
        entry = self.games.get(game)
        if entry is None or entry["key"] != game_key(self.project, game):
            return None
        root = self.project.root
        files: dict[Path, str] = {}
        try:
            for rel, digest in entry["files"].items():
                data = (root / rel).read_bytes()
                if _digest(data) != digest:
                    return None
                files[Path(rel)] = data.decode("utf-8")
            folder = self.project.generated / game
            if folder.is_dir() and any(
                p.relative_to(root) not in files for p in folder.rglob("*.py")
            ):
                return None  # a module the rules do not make: compile decides whether it goes
        except (OSError, ValueError, TypeError):
            return None
        return files

    def strays(self, games: Iterable[str]) -> bool:
        """True if the generated folder holds a module outside the folders of ``games``
        (besides its ``__init__.py``): one of a game no longer in the rules, say."""
        gen = self.project.generated
        if not gen.is_dir():
            return False
        known = set(games)
        for path in gen.rglob("*.py"):
            parts = path.relative_to(gen).parts
            if parts != ("__init__.py",) and (len(parts) == 1 or parts[0] not in known):
                return True
        return False

    def record(self, game: str, key: str | None, files: Iterable[Path]) -> None:
        """Remember ``game`` as compiled from ``key`` into ``files`` (relative to the root),
        hashed as they are on disk now."""
        if key is None:
            self.games.pop(game, None)
            return
        root = self.project.root
        try:
            digests = {rel.as_posix(): _digest((root / rel).read_bytes()) for rel in files}
        except OSError:
            self.games.pop(game, None)
            return
        self.games[game] = {"key": key, "files": dict(sorted(digests.items()))}

    def save(self) -> None:
        """Write the cache (quietly nothing if the project's folder is not writable)."""
        data = {"format": FORMAT, "games": dict(sorted(self.games.items()))}
        try:
            self.path.parent.mkdir(exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# rulecraft compile's cache (safe to delete)\n*\n")
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            tmp.replace(self.path)
        except OSError:
            pass

    def forget_except(self, games: Iterable[str]) -> None:
        """Drop the entries of games that are not among ``games`` (any more)."""
        keep = set(games)
        self.games = {game: entry for game, entry in self.games.items() if game in keep}
