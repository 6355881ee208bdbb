"""A rules project: where its games, its generated engines and their Python package are.

A project is a folder with a ``rulecraft.toml`` (or a ``[tool.rulecraft]`` table in its
``pyproject.toml``)::

    rules = "rules"              # one folder per game
    generated = "generated"      # where `rulecraft compile` writes the engines
    package = "my_game_engines"  # the Python package they are imported as

Every key is optional: ``rules`` and ``generated`` default to those names, ``package`` to the
name of the generated folder. A folder with a ``rules/`` folder and no configuration is a
project with the defaults (how rulecraft's own tests make scratch projects).

This module reads only the standard library, so that a project's engines can be found and
played without the compiler.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .files import FileReadError, read_text

__all__ = [
    "CONFIG",
    "KEYS",
    "NoProject",
    "Project",
    "ProjectError",
    "find_project",
    "read_project",
]

CONFIG = "rulecraft.toml"
#: the keys of the configuration and what each names
KEYS = {
    "rules": "the folder of the games (one folder each)",
    "generated": "the folder `rulecraft compile` writes the engines into",
    "package": "the Python package the engines are imported as",
    "rules_index": "the rules index `rulecraft coverage` counts: a folder of <game>.yaml files "
    "listing the rulebook's items with their ids",
}

#: the engines bundled with rulecraft (``rulecraft.generated``; in a checkout, the repository's
#: generated/ folder, whose pyproject.toml names that package)
_BUNDLED = Path(__file__).resolve().parents[1] / "generated"


class ProjectError(Exception):
    """The folder is not a rulecraft project, or its configuration is wrong."""


class NoProject(ProjectError):
    """No project at or above the folder: commands that also work on the bundled games go
    on without one (a broken configuration is a :class:`ProjectError`, never ignored)."""


@dataclass(frozen=True)
class Project:
    """A project's folders (absolute) and the package its engines are imported as."""

    root: Path
    rules: Path
    generated: Path
    package: str
    #: the file the configuration came from (None: a rules/ folder and the defaults)
    config: Path | None = None
    #: the project's rules index (``rules_index``; None: not declared)
    rules_index: Path | None = None

    @property
    def generated_rel(self) -> Path:
        """The generated folder relative to the root (how `compile` names what it writes)."""
        return Path(self.generated.relative_to(self.root))

    def games(self) -> list[str]:
        """The game folders under ``rules``, sorted."""
        if not self.rules.is_dir():
            return []
        return sorted(
            p.name for p in self.rules.iterdir() if p.is_dir() and not p.name.startswith(".")
        )


def _table(folder: Path) -> tuple[dict[str, Any], Path] | None:
    """The configuration table of ``folder`` and its file, or None if it has none."""
    own = folder / CONFIG
    if own.is_file() or own.is_symlink() or own.exists():  # not a file: an error, not ignored
        return _read(own), own
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        tool = _read(pyproject).get("tool")
        if isinstance(tool, dict) and "rulecraft" in tool:
            table = tool["rulecraft"]
            if not isinstance(table, dict):
                raise ProjectError(f"{pyproject}: [tool.rulecraft] must be a table")
            return table, pyproject
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        text = read_text(path)
    except FileReadError as exc:
        raise ProjectError(str(exc)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib (3.11) gives the place only in its message: "... (at line 3, column 9)"
        message = str(exc)
        at = _AT.search(message)
        if at is not None:
            line, col = int(at[1]), int(at[2])
        elif message.endswith("(at end of document)"):
            lines = text.split("\n")
            line, col = len(lines), len(lines[-1]) + 1
        else:
            raise ProjectError(f"{path}: not valid TOML: {message}") from None
        what = message[: message.rindex("(")].rstrip()
        raise ProjectError(
            f"{path}:{line}:{col}: not valid TOML: {what[:1].lower()}{what[1:]}"
        ) from None


_AT = re.compile(r"\(at line (\d+), column (\d+)\)$")


def read_project(root: Path, table: dict[str, Any], config: Path | None = None) -> Project:
    """The project at ``root`` described by ``table`` (the keys of :data:`KEYS`)."""
    where = config or root
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        known = ", ".join(KEYS)
        raise ProjectError(f"{where}: unknown key {unknown[0]!r} (known: {known})")
    for key, value in table.items():
        if not isinstance(value, str) or not value:
            raise ProjectError(f"{where}: {key} must be a non-empty string, not {value!r}")
        if not value.isprintable():  # a NUL is no path at all
            raise ProjectError(f"{where}: {key} holds a control character: {value!r}")
    try:
        rules = (root / table.get("rules", "rules")).resolve()
        generated = (root / table.get("generated", "generated")).resolve()
        index = (root / table["rules_index"]).resolve() if "rules_index" in table else None
    except (OSError, RuntimeError) as exc:  # a loop of links
        raise ProjectError(f"{where}: cannot follow the folders it names: {exc}") from None
    for key, path in (("rules", rules), ("generated", generated), ("rules_index", index)):
        try:  # a name longer than the file system allows: every later look at it would fail
            if path is not None:
                path.exists()
        except OSError as exc:
            raise ProjectError(
                f"{where}: {key} names a path the system cannot use ({exc.strerror}): "
                "give a shorter name"
            ) from None
    if not generated.is_relative_to(root):
        raise ProjectError(f"{where}: generated must be a folder inside {root}")
    package = table.get("package", generated.name)
    if not all(part.isidentifier() for part in package.split(".")):
        raise ProjectError(f"{where}: package must be a dotted Python name, not {package!r}")
    top = package.partition(".")[0]
    bundled = package == "rulecraft.generated" and generated == _BUNDLED  # rulecraft's own
    if (top == "rulecraft" and not bundled) or top in sys.stdlib_module_names:
        # the engines would replace rulecraft's own modules (or the standard library's) on
        # import, and every game would fail
        whose = "rulecraft itself" if top == "rulecraft" else "a module of the standard library"
        raise ProjectError(
            f"{where}: package {package!r} is taken ({top!r} is {whose}): name the engines' "
            'package after your project (package = "my_game_engines")'
        )
    return Project(root, rules, generated, package, config, index)


def find_project(start: Path | str | None = None, explicit: Path | str | None = None) -> Project:
    """The project in ``explicit`` (``--project DIR``), else the nearest one at or above
    ``start`` (default: the working folder)."""
    if explicit is not None:
        folder = Path(explicit).resolve()
        if not folder.is_dir():
            raise ProjectError(f"no folder {explicit}")
        found = _at(folder)
        if found is None:
            raise ProjectError(
                f"{explicit} is not a rulecraft project (no {CONFIG}, no [tool.rulecraft] in a "
                "pyproject.toml, no rules/ folder): `rulecraft init` makes one"
            )
        return found
    here = Path(start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        found = _at(folder)
        if found is not None:
            return found
    raise NoProject(
        f"no {CONFIG} (or rules/ folder) in {here} or above: run rulecraft inside a project, "
        "name one with --project DIR, or make one with `rulecraft init`"
    )


def _at(folder: Path) -> Project | None:
    found = _table(folder)
    if found is not None:
        return read_project(folder, *found)
    if (folder / "rules").is_dir():
        return read_project(folder, {})
    return None
